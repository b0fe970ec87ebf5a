"""What a bracketing bound costs where its program is past the budget: the MLP at growing
widths (its program's nonzeros grow with them), ``bracketing_lower_bound(g, seconds=1)``
CPU seconds (medians of ``--repeat``) and the bound, with the growth exponent between
consecutive sizes (log of the time ratio over log of the nonzeros' ratio, estimated by
``program_cells``). Run it with PYTHONPATH at two versions to compare them.

Usage::

    PYTHONPATH=. python benchmarks/bracketing_budget_stop.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

from dgraph.bench.realworld import mlp
from dgraph.search.bracketing_bound import bracketing_lower_bound, load_solver
from dgraph.search.edge_bound import program_cells

__all__ = ["main"]

HIDDEN = (6, 12, 24)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    load_solver()
    last = None
    for hidden in HIDDEN:
        g = mlp(hidden=hidden)
        times, bound = [], None
        for _ in range(args.repeat):
            start = time.process_time()
            bound = bracketing_lower_bound(g, seconds=1.0)
            times.append(time.process_time() - start)
        cells, cpu = program_cells(g), statistics.median(times)
        growth = ""
        if last is not None:
            growth = f", exponent {math.log(cpu / last[1]) / math.log(cells / last[0]):.2f}"
        print(f"hidden {hidden:3}: ~{cells:7} nonzeros, bound {bound}, {cpu:.3f} CPU-s{growth}")
        last = (cells, cpu)


if __name__ == "__main__":
    main()
