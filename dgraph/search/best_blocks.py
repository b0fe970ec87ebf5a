"""``best`` on a tensor graph: vertex orders priced over Jacobian blocks.

On a tensor graph a product's price is its structured block product's scalar
multiplications (:mod:`dgraph.core.blocks`), which the scalar bounds and effective
counts of :mod:`dgraph.search.best` do not describe. The portfolio here: forward,
reverse and Markowitz's degrees; greedy orders that eliminate the vertex whose block
products cost least next (ties broken by evaluation order, then at random among the
cheapest few, a counted number of restarts); the exact search over vertex orders where
the graph is small (:func:`dgraph.elimination.vertex_optimal.vertex_optimal_search`,
which prices blocks); and any results given. The winner is rebuilt, priced as built and
verified; ``info["optimal_among"]`` is claimed only from the exact search's proof.

Like the scalar ``best``, the budget is work: restarts and exact-search nodes are
counted, so the same graph, budget and seed give the same result on every machine.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from ..core.expressions import ExpressionSet
from ..core.graph import DGraph
from ..elimination.kernel import BLOCKS, Elimination, effective_cost
from ..elimination.vertex import markowitz_order, vertex_elimination
from ..elimination.vertex_optimal import TENSOR_VERTEX_LIMIT, vertex_optimal_search
from ..errors import SearchTooLarge

__all__ = ["RESTARTS_PER_SECOND", "best_blocks", "cheapest_first_order"]

RESTARTS_PER_SECOND = 4  # randomized greedy orders a budget second buys


def cheapest_first_order(
    graph: DGraph, rng: random.Random | None = None, width: int = 3
) -> list[str]:
    """Eliminate next the vertex whose products cost least over blocks (Naumann's
    Markowitz rule with the true price for the degree); with ``rng``, one of the
    ``width`` cheapest at random.

    >>> from dgraph.core.builders import bundled
    >>> len(cheapest_first_order(bundled("naumann_sin.trace")))
    2
    """
    state = Elimination(graph, BLOCKS)
    left = list(graph.intermediates)
    order = []
    while left:
        prices = sorted((state.copy().eliminate_vertex(v), k, v) for k, v in enumerate(left))
        pick = prices[0] if rng is None else rng.choice(prices[:width])
        v = pick[2]
        state.eliminate_vertex(v)
        left.remove(v)
        order.append(v)
    return order


def best_blocks(
    graph: DGraph,
    budget: float,
    seed: int = 0,
    candidates: Iterable[ExpressionSet] = (),
) -> ExpressionSet:
    """The cheapest verified expression set of a tensor graph found within ``budget``
    (module docstring)."""
    orders: dict[str, list[str]] = {
        "forward": list(graph.intermediates),
        "reverse": list(reversed(graph.intermediates)),
        "markowitz": markowitz_order(graph),
        "cheapest first": cheapest_first_order(graph),
    }
    rng = random.Random(seed)
    for k in range(int(budget * RESTARTS_PER_SECOND)):
        orders[f"cheapest first, restart {k + 1}"] = cheapest_first_order(graph, rng)
    proven = None
    if len(graph.intermediates) <= TENSOR_VERTEX_LIMIT:
        try:
            result = vertex_optimal_search(graph, budget / 2)
        except SearchTooLarge:
            result = None
        if result is not None:
            orders["vertex-optimal"] = [v for _, v in result.moves]
            proven = "vertex-optimal" if result.proven else None
    given = {es.method: es for es in candidates if es.verified}
    prices = {name: es.mults for name, es in given.items()}
    for by, order in orders.items():
        prices.setdefault(by, effective_cost(graph, order))
    by = min(prices, key=prices.__getitem__)
    winner = given[by] if by in given else vertex_elimination(graph, orders[by], "best")
    if not winner.verified:
        winner.verify()
    info = {
        "objective": "blocks",
        "found_by": by,
        "order": orders.get(by, winner.info.get("order")),
        "candidates": prices,
        "budget": budget,
        "cut_by_time": False,
    }
    if proven is not None and winner.mults <= prices[proven]:
        info.update(optimal_among="vertex elimination", proven_optimal=True)
    return winner._relabeled("best", {**winner.info, **info})
