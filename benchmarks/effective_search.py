"""The effective vertex A* (dgraph.search.effective_optimal) on the heart dipole and on
random programs: CPU seconds, states expanded, and every result (to compare two trees).

    PYTHONPATH=TREE python benchmarks/effective_search.py [--scipy] [--all OUT.json]

Prints the heart dipole's cost, proof, lower bound, states and CPU seconds of the search
(``--scipy``: SciPy imported first, as in a test process or a notebook that computed a
bracketing bound); with ``--all`` also searches the REAL_WORLD graphs and random_program
seeds 0..149 at two sizes (2 inputs, 9 statements; 3 inputs, 14 statements), prints the
CPU seconds and states of them all and writes each result to OUT.json.
"""

from __future__ import annotations

import argparse
import json
import time

from dgraph.bench.realworld import REAL_WORLD
from dgraph.errors import SearchTooLarge
from dgraph.frontends.random_graphs import random_program
from dgraph.search.effective_optimal import effective_optimal_search


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scipy", action="store_true")
    parser.add_argument("--all", metavar="OUT")
    args = parser.parse_args()
    if args.scipy:
        import scipy.optimize  # noqa: F401
    heart = REAL_WORLD["heart-dipole"]()
    t = time.process_time()
    r = effective_optimal_search(heart)
    print(
        f"heart dipole: cost {r.cost} proven {r.proven} bound {r.lower_bound}"
        f" states {r.states} cpu {time.process_time() - t:.2f}"
    )
    if not args.all:
        return
    graphs = {f"rw:{name}": build for name, build in REAL_WORLD.items()}
    for seed in range(150):
        graphs[f"rp{seed}"] = lambda s=seed: random_program(s, 2, 9, 2)
        graphs[f"rq{seed}"] = lambda s=seed: random_program(s, 3, 14, 2)
    out: dict[str, object] = {}
    t = time.process_time()
    for name, build in graphs.items():
        try:
            r = effective_optimal_search(build())
        except SearchTooLarge:
            out[name] = "too large"
            continue
        out[name] = [r.cost, r.proven, r.lower_bound, r.states, [v for _, v in r.moves]]
    states = sum(v[3] for v in out.values() if isinstance(v, list))
    print(f"{len(out)} graphs: states {states} cpu {time.process_time() - t:.2f}")
    with open(args.all, "w") as f:
        json.dump(out, f, indent=0)


if __name__ == "__main__":
    main()
