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

``objective="graphax"`` prices orders in Graphax's cost model instead (AlphaGrad's vertex
game, :mod:`dgraph.elimination.graphax_model`) on a graph with every jaxpr equation a
vertex (:func:`dgraph.core.builders.jaxpr_equations.equation_graph`): the portfolio is
AlphaGrad's three baselines, the cheapest-first greedy in that model with its restarts, and
simulated annealing over vertex orders from the best of them (a counted number of moves,
seeded). The winner is built and verified on the graph's live part, where its ``mults``
are dgraph's count over structured blocks; ``info["graphax_mults"]`` is the model's.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable

from ..core.builders.jaxpr_equations import live_part
from ..core.expressions import ExpressionSet
from ..core.graph import DGraph
from ..elimination.graphax_model import GRAPHAX, graphax_cost, graphax_orders
from ..elimination.kernel import BLOCKS, Algebra, Elimination, effective_cost
from ..elimination.vertex import markowitz_order, vertex_elimination
from ..elimination.vertex_optimal import TENSOR_VERTEX_LIMIT, vertex_optimal_search
from ..errors import InputError, SearchTooLarge

__all__ = ["RESTARTS_PER_SECOND", "anneal_order", "best_blocks", "cheapest_first_order"]

RESTARTS_PER_SECOND = 4  # randomized greedy orders a budget second buys
MOVES_PER_SECOND = 100  # annealing moves a budget second buys (objective "graphax")


def cheapest_first_order(
    graph: DGraph, rng: random.Random | None = None, width: int = 3, algebra: Algebra = BLOCKS
) -> list[str]:
    """Eliminate next the vertex whose products cost least over blocks (Naumann's
    Markowitz rule with the true price for the degree); with ``rng``, one of the
    ``width`` cheapest at random.

    >>> from dgraph.core.builders import bundled
    >>> len(cheapest_first_order(bundled("naumann_sin.trace")))
    2
    """
    state = Elimination(graph, algebra)
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


def anneal_order(
    price: Callable[[list[str]], int], order: list[str], moves: int, rng: random.Random
) -> tuple[int, list[str]]:
    """Simulated annealing over vertex orders (any order of the intermediates is one):
    a move takes one vertex to another place; a worse order is kept with probability
    exp(-increase / T), T falling geometrically from 3% of the start's price to almost
    nothing over ``moves``. The cheapest order seen and its price."""
    current = best = list(order)
    now = low = price(current)
    n = len(order)
    if n < 2 or moves < 1:
        return low, best
    start = max(now * 0.03, 1.0)
    for step in range(moves):
        t = start * (0.001 ** (step / moves))
        i, j = rng.randrange(n), rng.randrange(n - 1)
        trial = current[:i] + current[i + 1 :]
        trial.insert(j, current[i])
        cost = price(trial)
        if cost <= now or rng.random() < math.exp((now - cost) / t):
            current, now = trial, cost
            if cost < low:
                best, low = trial, cost
    return low, best


def _best_graphax(graph: DGraph, budget: float, seed: int) -> ExpressionSet:
    orders = graphax_orders(graph)
    orders["cheapest first"] = cheapest_first_order(graph, algebra=GRAPHAX)
    rng = random.Random(seed)
    for k in range(int(budget * RESTARTS_PER_SECOND)):
        orders[f"cheapest first, restart {k + 1}"] = cheapest_first_order(
            graph, rng, algebra=GRAPHAX
        )
    prices = {by: graphax_cost(graph, order) for by, order in orders.items()}
    start = min(prices, key=prices.__getitem__)
    low, annealed = anneal_order(
        lambda order: graphax_cost(graph, order),
        orders[start],
        int(budget * MOVES_PER_SECOND),
        rng,
    )
    orders["annealing"], prices["annealing"] = annealed, low
    by = min(prices, key=prices.__getitem__)
    part = live_part(graph)
    winner = vertex_elimination(part, [v for v in orders[by] if v in part], "best")
    winner.verify()
    info = {
        "objective": "graphax",
        "found_by": by,
        "order": orders[by],
        "graphax_mults": prices[by],
        "candidates": prices,
        "budget": budget,
        "cut_by_time": False,
    }
    return winner._relabeled("best", {**winner.info, **info})


def best_blocks(
    graph: DGraph,
    budget: float,
    seed: int = 0,
    candidates: Iterable[ExpressionSet] = (),
    objective: str = "blocks",
) -> ExpressionSet:
    """The cheapest verified expression set of a tensor graph found within ``budget``
    (module docstring): priced in scalar multiplications of the structured block products
    (``objective="blocks"``) or in Graphax's model (``"graphax"``, on an equation graph)."""
    if objective == "graphax":
        return _best_graphax(graph, budget, seed)
    if objective != "blocks":
        raise InputError(f"objective {objective[:20]!r} is not one of 'blocks', 'graphax'")
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
