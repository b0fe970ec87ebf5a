"""``best`` under a tight time ceiling, to run on a quiet and on a loaded machine: the
ceiling counts CPU time (dgraph.core.budget), so the result should not change with load.

    python benchmarks/ceiling_load.py [CEILING] [BUDGET] [REPEATS]

Runs ``best`` on spherical coordinates (budget BUDGET, default 1; seed 0) under a ceiling
of CEILING seconds (default 4) REPEATS times (default 3) and prints one JSON line each:
the result (mults, effective mults, found_by, lower bound), what the ceiling cut and by
which clock, the wall-clock seconds and the seconds the ceiling counted (the search
clock, dgraph.core.budget.now, where this checkout has it, else the process's CPU time).
Load the machine with busy loops at normal priority, e.g. eight of
``python -c "while True: pass" &``, and stop them afterwards.
"""

from __future__ import annotations

import json
import sys
import time

from dgraph.frontends import bundled
from dgraph.search.best import best

try:
    from dgraph.core.budget import now
except ImportError:  # a checkout whose ceiling is the wall clock
    now = time.process_time


def main(argv: list[str]) -> None:
    ceiling = float(argv[0]) if argv else 4.0
    budget = float(argv[1]) if len(argv) > 1 else 1.0
    repeats = int(argv[2]) if len(argv) > 2 else 3
    graph = bundled("spherical_coordinates.trace")
    for _ in range(repeats):
        wall, counted = time.perf_counter(), now()
        es = best(graph, budget=budget, seed=0, ceiling=ceiling)
        row = {
            "ceiling": ceiling,
            "mults": es.mults,
            "mults_effective": es.mults_effective,
            "found_by": es.info["found_by"],
            "lower_bound": es.info["lower_bound"],
            "cut_phases": es.info["cut_phases"],
            "cut_by": es.info.get("cut_by"),
            "wall_s": round(time.perf_counter() - wall, 2),
            "counted_s": round(now() - counted, 2),
        }
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
