"""CPU-s of ``value_check._unreached`` (the check's structurally constant outputs) on a
graph of n inputs, each feeding a chain: one walk from all inputs is linear in the graph
(session 37's first version searched from each input: quadratic).

    python benchmarks/unreached_scale.py
"""

import time

import networkx as nx

from dgraph.core import value_check as vc


class G:  # the attribute _unreached reads
    nx: nx.DiGraph


def main() -> None:
    for n in (2000, 4000, 8000, 64000):
        g = G()
        g.nx = nx.DiGraph()
        inputs = [f"x{i}" for i in range(n)]
        for i in range(n):  # each input feeds the rest of a chain
            g.nx.add_edge(inputs[i], f"t{i}")
            if i + 1 < n:
                g.nx.add_edge(f"t{i}", f"t{i + 1}")
        start = time.process_time()
        vc._unreached(g, inputs, ["t0"])
        print(n, f"{time.process_time() - start:.3f}")


if __name__ == "__main__":
    main()
