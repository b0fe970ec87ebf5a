"""face-optimal without a budget on random graphs of 8 to 16 intermediate faces.

Run: python benchmarks/face_optimal_scaling.py [PER_SIZE]  (default 5 graphs per size).
Draws random DAGs (1-3 inputs, 2-6 intermediates, 1-3 outputs, density 0.3-0.6) by seed
until it has PER_SIZE graphs of each face count from 8 to 16, runs the exact search
(FACE_LIMIT raised to 16 here, so that it runs exactly beyond the limit too), and prints
per face count the median and largest seconds and expanded states, how many were proven,
and the largest gap to edge-optimal's 'greedy' incumbent (Markowitz). Seconds depend on
the machine; expanded states do not.
"""

from __future__ import annotations

import random
import statistics
import sys
import time

import dgraph.faces.optimal as optimal
from dgraph.core.random_graphs import random_dag
from dgraph.faces.line_graph import intermediate_faces, line_graph
from dgraph.faces.optimal import face_optimal

SIZES = range(8, 17)
optimal.FACE_LIMIT = max(SIZES)  # measure beyond the limit too, exactly


def graphs(per_size: int) -> dict[int, list]:
    found: dict[int, list] = {n: [] for n in SIZES}
    seed = 0
    while any(len(v) < per_size for v in found.values()) and seed < 200_000:
        rng = random.Random(seed)
        g = random_dag(
            seed, rng.randint(1, 3), rng.randint(2, 6), rng.randint(1, 3), rng.uniform(0.3, 0.6)
        )
        n = len(intermediate_faces(line_graph(g)))
        if n in found and len(found[n]) < per_size:
            found[n].append((seed, g))
        seed += 1
    return found


def main(per_size: int) -> None:
    print("| faces | graphs | proven | median s | max s | median expanded | max expanded |")
    print("|---|---|---|---|---|---|---|")
    for n, items in graphs(per_size).items():
        seconds, expanded, proven = [], [], 0
        for _, g in items:
            t0 = time.perf_counter()
            es = face_optimal(g)
            seconds.append(time.perf_counter() - t0)
            expanded.append(es.info["expanded"])
            proven += es.info["optimal"]
        print(
            f"| {n} | {len(items)} | {proven} | {statistics.median(seconds):.2f} |"
            f" {max(seconds):.2f} | {statistics.median(expanded):.0f} | {max(expanded)} |",
            flush=True,
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
