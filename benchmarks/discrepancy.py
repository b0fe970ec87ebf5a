"""Naumann's vertex-edge discrepancy on random c-graphs: the largest ratio of the vertex
optimum to the edge optimum found, per number of intermediate vertices p.

Run: python benchmarks/discrepancy.py [GRAPHS]  (default 1500 per p; prints a Markdown
table). Graphs: ``random_dag(seed, 1 + seed % 4, p, 1 + (seed // 4) % 5, density)`` with
density 0.3, 0.5 or 0.7 by seed, p = 2..5, kept when they have at most 12 intermediate
edges (both exact optima then take well under a second). Naumann (RR-3659, §2.4) proves
the ratio at most (√2(2 − √2))⁻¹ ≈ 1.207 for p = 2 and conjectures 2 for every p;
tests/test_seed_000.py checks both as hypothesis properties.
"""

from __future__ import annotations

import sys
from fractions import Fraction

import dgraph
from dgraph.elimination.metagraph import intermediate_edge_count
from dgraph.frontends.random_graphs import random_dag


def main(graphs: int = 1500) -> None:
    print(
        "| p | graphs solved | largest vertex/edge | vertex, edge | seed | inputs, outputs, edges |"
    )
    print("|---|---|---|---|---|---|")
    for p in range(2, 6):
        solved, best = 0, (Fraction(0), None)
        for seed in range(graphs):
            density = (0.3, 0.5, 0.7)[seed % 3]
            g = random_dag(seed, 1 + seed % 4, p, 1 + (seed // 4) % 5, density=density)
            if intermediate_edge_count(g) > 12:
                continue
            vertex = dgraph.accumulate(g, "vertex-optimal", verify=False).mults
            edge = dgraph.accumulate(g, "edge-optimal", verify=False).mults
            solved += 1
            ratio = Fraction(vertex, edge) if edge else Fraction(1)
            if ratio > best[0]:
                best = (ratio, (vertex, edge, seed, len(g.inputs), len(g.outputs), g.n_edges))
        ratio, (vertex, edge, seed, n, m, e) = best
        print(
            f"| {p} | {solved} | {ratio} = {float(ratio):.3f} | {vertex}, {edge} | {seed} |"
            f" {n}, {m}, {e} |"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1500)
