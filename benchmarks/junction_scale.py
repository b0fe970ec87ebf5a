"""The junction bound's growth on long programs (dgraph.search.junction_bounds):
``cli_files_survey.hundred_ops(n)`` at element level, the bound on the graph and on its
structure (what the edge bound runs), in CPU seconds of this process.

    python benchmarks/junction_scale.py [N,N,...] [REPEATS]

N (default 100,200,400,1000) operations, REPEATS (default 1) runs each, the median
kept. Prints one line per N: intermediates, the bound and its CPU seconds (the first
call on a fresh graph: the labels' constant values, sympy's, are part of it), the
structure's bound and its seconds, and the growth exponent from the N before.
"""

from __future__ import annotations

import math
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cli_files_survey import hundred_ops

from dgraph.frontends import load
from dgraph.search.edge_bound import structural
from dgraph.search.junction_bounds import elimination_lower_bound


def timed(run) -> tuple[int, float]:
    """``run()``'s value and the CPU seconds it took."""
    start = time.process_time()
    value = run()
    return value, time.process_time() - start


def main(sizes: list[int], repeats: int) -> None:
    folder = Path(tempfile.mkdtemp())
    before: tuple[int, float] | None = None
    for n in sizes:
        path = folder / f"h{n}.py"
        path.write_text(hundred_ops(n))
        runs = []
        for _ in range(repeats):
            graph = load(f"{path}:f", level="element")
            bound, seconds = timed(lambda: elimination_lower_bound(graph))  # noqa: B023
            shape, shape_seconds = timed(lambda: elimination_lower_bound(structural(graph)))  # noqa: B023
            runs.append((seconds, shape_seconds))
        seconds = statistics.median(r[0] for r in runs)
        shape_seconds = statistics.median(r[1] for r in runs)
        growth = ""
        if before is not None:
            growth = f"  exponent {math.log(seconds / before[1]) / math.log(n / before[0]):.2f}"
        print(
            f"{n} ops, {len(graph.intermediates)} intermediates: bound {bound} "
            f"{seconds:.3f} s, structure {shape} {shape_seconds:.3f} s{growth}"
        )
        before = (n, seconds)


if __name__ == "__main__":
    main(
        [int(n) for n in (sys.argv[1] if len(sys.argv) > 1 else "100,200,400,1000").split(",")],
        int(sys.argv[2]) if len(sys.argv) > 2 else 1,
    )
