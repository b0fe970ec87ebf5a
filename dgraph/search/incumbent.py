"""A good vertex order within a work budget: the exact model's starting point.

The constraint program of :mod:`dgraph.elimination.vertex_exact` proves optima fast from
a good incumbent and improves a poor one slowly (one worker: no neighbourhood search; the
robot arm's figures are in benchmarks/RESULTS.md). So ``vertex-optimal`` on a large part
first spends a share of its budget
here: the cheapest greedy rule in structural multiplications (both tie-breaks), annealed
over orders (:func:`dgraph.search.windows.anneal_windows`) and its windows re-ordered
exactly (:func:`dgraph.search.windows.improve_windows`), each a count of work.
"""

from __future__ import annotations

import math

from ..core.graph import DGraph
from ..elimination.kernel import Costed, move_costs
from .orders import RULES, greedy_order
from .windows import anneal_windows, improve_windows

__all__ = ["good_order"]

ELIMINATIONS_PER_SECOND = 100_000  # as best's annealing (dgraph.search.best)


def good_order(graph: DGraph, budget: float, seed: int = 0) -> Costed:
    """(structural mults, order): the cheapest greedy order, annealed and polished within
    ``budget`` seconds of counted work; the same on every machine.

    >>> from dgraph.frontends import bundled
    >>> good_order(bundled("naumann_discrepancy.json"), 0.1).cost
    14
    """
    n = len(graph.intermediates)

    def cost(order: list[str]) -> int:
        return move_costs(graph, [("vertex", v) for v in order]).structural

    starts = [greedy_order(graph, rule, tie) for rule in RULES for tie in ("forward", "reverse")]
    best_cost, best_order = min(((cost(o), o) for o in starts), key=lambda c: c[0])
    if n < 2:
        return Costed(best_cost, best_order)
    window = 1 + (n - 1) / math.log(n)
    steps = min(int(budget * ELIMINATIONS_PER_SECOND / window), 100 * n)
    if steps > 0:
        annealed_cost, annealed = anneal_windows(graph, best_order, "structural", steps, seed)
        if annealed_cost < best_cost:
            best_cost, best_order = annealed_cost, annealed
    polished_cost, polished = improve_windows(graph, best_order, windows=2 * n)
    if polished_cost < best_cost:
        best_cost, best_order = polished_cost, polished
    return Costed(best_cost, best_order)
