"""Session 62 (lead): the cheapest-first greedy order (``cheapest_first_order``,
``best``'s first order and its restarts) priced incrementally — each vertex once, then
only the eliminated vertex's neighbours — against the rule as first written (every
vertex left priced at every step), on the survey's ``batchrx`` (RK4 steps of a batch
reactor; benchmarks/programs_survey/programs/batchrx_np.py) at several step counts:
vertices, ``vertex_cost`` calls, CPU-s of each, whether the orders are equal (also two
random restarts), and growth exponents::

    PYTHONPATH=. python benchmarks/greedy_order62.py 5 10 20
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent / "programs_survey" / "programs"))
import batchrx_np
from harness import log_slope

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from dgraph.elimination.kernel import Elimination
from dgraph.frontends import from_python
from dgraph.search.orders import cheapest_first_order
from tests.test_best_ceiling import _priced_every_step as every_step  # the rule as first written


def _timed(order, graph, *args):
    calls = [0]
    original = Elimination.vertex_cost

    def counted(self, v):
        calls[0] += 1
        return original(self, v)

    Elimination.vertex_cost = counted
    try:
        start = time.process_time()
        found = order(graph, *args)
        return found, time.process_time() - start, calls[0]
    finally:
        Elimination.vertex_cost = original


def main() -> None:
    rows = []
    for steps in map(int, sys.argv[1:] or ["5", "10", "20"]):
        batchrx_np.STEPS = steps
        graph = from_python(batchrx_np.f, point=batchrx_np.POINT(np.random.default_rng(0)))
        n = len(graph.intermediates)
        new, new_s, new_calls = _timed(cheapest_first_order, graph)
        old, old_s, old_calls = _timed(every_step, graph)
        same = new == old and all(
            cheapest_first_order(graph, random.Random(s)) == every_step(graph, random.Random(s))
            for s in (0, 1)
        )
        rows.append((n, old_s, new_s))
        print(
            f"steps {steps:3d}  vertices {n:5d}  calls {old_calls:9,d} -> {new_calls:7,d}"
            f"  CPU-s {old_s:8.3f} -> {new_s:6.3f}  same orders {same}",
            flush=True,
        )
    if len(rows) > 1:
        ns = [r[0] for r in rows]
        every, incremental = (
            log_slope(ns, [r[1] for r in rows]),
            log_slope(ns, [r[2] for r in rows]),
        )
        print(f"exponent over vertices: every step {every:.2f}, incremental {incremental:.2f}")


if __name__ == "__main__":
    main()
