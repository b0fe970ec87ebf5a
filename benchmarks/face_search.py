"""Search random small graphs for one where face elimination beats edge elimination.

Run: python benchmarks/face_search.py [GRAPHS]  (default 3000 seeds; about 4 minutes).
Draws random DAGs (1-3 inputs, 1-5 intermediates, 1-3 outputs), keeps those with 3 to 10
intermediate faces, runs face-optimal (3 s budget) and edge-optimal, and prints every
graph where the face result is strictly cheaper, then a summary line.
"""

from __future__ import annotations

import random
import sys
import time

from dgraph.faces.line_graph import intermediate_faces, line_graph
from dgraph.faces.optimal import face_optimal
from dgraph.frontends.random_graphs import random_dag
from dgraph.methods import accumulate


def main(seeds: int) -> None:
    t0, searched, strict = time.perf_counter(), 0, []
    for seed in range(seeds):
        rng = random.Random(seed)
        g = random_dag(
            seed,
            rng.randint(1, 3),
            rng.randint(1, 5),
            rng.randint(1, 3),
            rng.choice([0.2, 0.35, 0.5]),
        )
        if not 3 <= len(intermediate_faces(line_graph(g))) <= 10:
            continue
        face = face_optimal(g, budget=3)
        edge = accumulate(g, "edge-optimal").mults
        searched += 1
        if face.mults < edge:
            strict.append(seed)
            print(f"seed {seed}: face {face.mults} < edge {edge}: {g.edges()}", flush=True)
    seconds = time.perf_counter() - t0
    print(f"{searched} graphs searched, {len(strict)} with face < edge ({seconds:.0f} s)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3000)
