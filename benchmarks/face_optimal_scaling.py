"""face-optimal without a budget on random graphs of 8 to 16 intermediate faces.

Run: python benchmarks/face_optimal_scaling.py [PER_SIZE]  (default 5 graphs per size).
Draws random DAGs (1-3 inputs, 2-6 intermediates, 1-3 outputs, density 0.3-0.6) by seed
until it has PER_SIZE graphs of each face count from 8 to 16 (then random programs of
8-18 statements, whose paths are longer, from 8 to 14 faces), runs the exact search
(FACE_LIMIT raised to 16 here, so that it runs exactly beyond the limit too), and prints
per face count how many were proven, the median and largest seconds, expanded states and
units of work, then the same for the A* alone (its bound-guided dive replaced by
Markowitz's order as the incumbent). Seconds depend on the machine; the counts do not.
"""

from __future__ import annotations

import random
import statistics
import sys
import time

import dgraph.faces.optimal as optimal
from dgraph.faces.line_graph import intermediate_faces, line_graph
from dgraph.faces.optimal import face_optimal
from dgraph.frontends.random_graphs import random_dag, random_program

SIZES = range(8, 17)
optimal.FACE_LIMIT = max(SIZES)  # measure beyond the limit too, exactly


def _dag(seed: int):
    rng = random.Random(seed)
    return random_dag(
        seed, rng.randint(1, 3), rng.randint(2, 6), rng.randint(1, 3), rng.uniform(0.3, 0.6)
    )


def _program(seed: int):
    """Longer paths: random programs of 8 to 18 statements."""
    rng = random.Random(seed)
    n_in, n_st, n_out = rng.randint(1, 3), rng.randint(8, 18), rng.randint(1, 3)
    return random_program(seed, n_inputs=n_in, n_statements=n_st, n_outputs=n_out)


def graphs(per_size: int, draw=_dag, sizes: range = SIZES) -> dict[int, list]:
    found: dict[int, list] = {n: [] for n in sizes}
    seed = 0
    while any(len(v) < per_size for v in found.values()) and seed < 20_000:
        g = draw(seed)
        n = len(intermediate_faces(line_graph(g)))
        if n in found and len(found[n]) < per_size:
            found[n].append((seed, g))
        seed += 1
    return found


def _run(g) -> tuple[float, int, int, bool]:
    t0 = time.perf_counter()
    es = face_optimal(g)
    return time.perf_counter() - t0, es.info["expanded"], es.info["work"], es.info["optimal"]


def _cells(runs: list[tuple[float, int, int, bool]]) -> str:
    seconds, expanded, work, proven = zip(*runs, strict=True)
    return (
        f"{sum(proven)} | {statistics.median(seconds):.2f} / {max(seconds):.2f} |"
        f" {statistics.median(expanded):.0f} / {max(expanded)} |"
        f" {statistics.median(work):.0f} / {max(work)}"
    )


def main(per_size: int, draw=_dag, sizes: range = SIZES) -> None:
    print(
        "| faces | graphs | proven | s (median / max) | expanded | work"
        " | A* alone: proven | s | expanded | work |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    dive = optimal._Search.dive
    markowitz = (10**9, [])  # the dive's place taken by nothing: Markowitz stays
    for n, items in graphs(per_size, draw, sizes).items():
        if not items:
            continue
        optimal._Search.dive = dive
        full = [_run(g) for _, g in items]
        optimal._Search.dive = lambda self: markowitz
        alone = [_run(g) for _, g in items]
        print(f"| {n} | {len(items)} | {_cells(full)} | {_cells(alone)} |", flush=True)
    optimal._Search.dive = dive


if __name__ == "__main__":
    per = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    print("random DAGs")
    main(per)
    print("\nrandom programs (longer paths), 8 to 14 faces")
    main(per, _program, range(8, 15))
