"""``best`` on a tensor graph: vertex orders priced over Jacobian blocks.

On a tensor graph a product's price is its structured block product's scalar
multiplications (:mod:`dgraph.blocks`), which the scalar bounds and effective
counts of :mod:`dgraph.search.best` do not describe. The portfolio here: forward,
reverse and Markowitz's degrees; greedy orders that eliminate the vertex whose block
products cost least next (ties broken by evaluation order, then at random among the
cheapest few, a counted number of restarts); simulated annealing over vertex orders from
the best of them; the exact search over vertex orders where
the graph is small (:func:`dgraph.elimination.vertex_optimal.vertex_optimal_search`,
which prices blocks); and any results given. The winner is rebuilt, priced as built and
verified; ``info["optimal_among"]`` is claimed only from the exact search's proof.

Like the scalar ``best``, the budget is work: vertex eliminations priced, by the
restarts and the annealing moves, and exact-search nodes are counted, so the same graph,
budget and seed give the same result on every machine; the wall-clock ceiling
(:func:`dgraph.core.budget.ceiling_for`) stops a search where a machine is far slower,
and ``info["cut_by_time"]`` then says so.

``objective="graphax"`` prices orders in Graphax's cost model instead (AlphaGrad's vertex
game, :mod:`dgraph.elimination.graphax_model`) on a graph with every jaxpr equation a
vertex (:func:`dgraph.frontends.jaxpr_equations.equation_graph`): the portfolio is
AlphaGrad's three baselines, the cheapest-first greedy in that model with its restarts, and
simulated annealing over vertex orders from the best of them (seeded), as on blocks. The
winner is built and verified on the graph's live part, where its ``mults`` are dgraph's
count over structured blocks; ``info["graphax_mults"]`` is the model's.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterable

from ..core.activity import live_part
from ..core.budget import ceiling_for
from ..core.expressions import ExpressionSet
from ..core.graph import DGraph
from ..elimination.graphax_model import GRAPHAX, graphax_orders
from ..elimination.kernel import BLOCKS, Algebra, Elimination, effective_cost
from ..elimination.vertex import markowitz_order, vertex_elimination
from ..elimination.vertex_optimal import TENSOR_VERTEX_LIMIT, vertex_optimal_search
from ..errors import InputError, SearchTooLarge

__all__ = ["ELIMINATIONS_PER_SECOND", "anneal_order", "best_blocks", "cheapest_first_order"]

ELIMINATIONS_PER_SECOND = 20_000  # vertex eliminations priced that a budget second buys
RESTART_SHARE = 0.3  # of them for the randomized greedy restarts, the rest for annealing


def cheapest_first_order(
    graph: DGraph,
    rng: random.Random | None = None,
    width: int = 3,
    algebra: Algebra = BLOCKS,
) -> list[str]:
    """Eliminate next the vertex whose products cost least over blocks (Naumann's
    Markowitz rule with the true price for the degree); with ``rng``, one of the
    ``width`` cheapest at random.

    >>> from dgraph.frontends import bundled
    >>> len(cheapest_first_order(bundled("naumann_sin.trace")))
    2
    """
    state = Elimination(graph, algebra)
    left = list(graph.intermediates)
    order = []
    while left:
        prices = sorted((state.vertex_cost(v), k, v) for k, v in enumerate(left))
        pick = prices[0] if rng is None else rng.choice(prices[:width])
        v = pick[2]
        state.eliminate_vertex(v)
        left.remove(v)
        order.append(v)
    return order


def anneal_order(
    price: Callable[[list[str]], int],
    order: list[str],
    moves: int,
    rng: random.Random,
    stop: Callable[[], bool] = lambda: False,
) -> tuple[int, list[str]]:
    """Simulated annealing over vertex orders (any order of the intermediates is one):
    a move takes one vertex to another place; a worse order is kept with probability
    exp(-increase / T), T falling geometrically from 3% of the start's price to almost
    nothing over ``moves``. The cheapest order seen and its price (``stop()``: the
    wall-clock ceiling, checked between moves)."""
    current = best = list(order)
    now = low = price(current)
    n = len(order)
    if n < 2 or moves < 1:
        return low, best
    start = max(now * 0.03, 1.0)
    for step in range(moves):
        if stop():
            break
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


def _portfolio(
    graph: DGraph,
    baselines: dict[str, list[str]],
    algebra: Algebra,
    budget: float,
    seed: int,
    clock: _Clock,
) -> tuple[dict[str, list[str]], dict[str, int]]:
    """Orders and their prices in ``algebra``: the baselines, cheapest first, its
    randomized restarts and annealing from the best, within ``budget`` counted in
    eliminations priced (:data:`ELIMINATIONS_PER_SECOND`)."""
    n = max(1, len(graph.intermediates))
    work = budget * ELIMINATIONS_PER_SECOND

    def price(order: list[str]) -> int:
        return effective_cost(Elimination(graph, algebra), order)

    orders = dict(baselines)
    orders["cheapest first"] = cheapest_first_order(graph, algebra=algebra)
    rng = random.Random(seed)
    restart_cost = n * (n + 1) // 2 + n  # every vertex left priced at every step
    for k in range(int(RESTART_SHARE * work) // restart_cost):
        if clock.out("restarts"):
            break
        orders[f"cheapest first, restart {k + 1}"] = cheapest_first_order(
            graph, rng, algebra=algebra
        )
    prices = {by: price(order) for by, order in orders.items()}
    start = min(prices, key=prices.__getitem__)
    moves = int((1 - RESTART_SHARE) * work) // n
    low, annealed = anneal_order(price, orders[start], moves, rng, lambda: clock.out("annealing"))
    orders["annealing"], prices["annealing"] = annealed, low
    return orders, prices


class _Clock:
    """The wall-clock ceiling (:func:`dgraph.core.budget.ceiling_for` the budget): the
    one place these searches read the clock, and what it cut is reported."""

    def __init__(self, budget: float) -> None:
        self.end = time.perf_counter() + ceiling_for(budget)
        self.cut: list[str] = []

    def out(self, phase: str) -> bool:
        if time.perf_counter() < self.end:
            return False
        if phase not in self.cut:
            self.cut.append(phase)
        return True


def _verified_winner(
    prices: dict[str, int], build: Callable[[str], ExpressionSet]
) -> tuple[str, ExpressionSet]:
    """The cheapest candidate (the first of equals) whose set, ``build(name)``, verifies:
    one that fails is passed over. Where none verifies, the cheapest as it is, whose
    failed check its ``verification`` reports (never a claim of verified).

    >>> from dgraph.frontends import bundled
    >>> g = bundled("naumann_sin.trace")
    >>> sets = {"forward": vertex_elimination(g, ["v1", "v2"], "forward"),
    ...         "reverse": vertex_elimination(g, ["v2", "v1"], "reverse")}
    >>> by, es = _verified_winner({"forward": 4, "reverse": 3}, sets.__getitem__)
    >>> by, es.verified
    ('reverse', True)
    """
    failed = []
    for by in sorted(prices, key=prices.__getitem__):
        es = build(by)
        if es.verified or es.verify():
            return by, es
        failed.append((by, es))
    return failed[0]


def _best_graphax(graph: DGraph, budget: float, seed: int) -> ExpressionSet:
    clock = _Clock(budget)
    orders, prices = _portfolio(graph, graphax_orders(graph), GRAPHAX, budget, seed, clock)
    part = live_part(graph)
    by, winner = _verified_winner(
        prices, lambda by: vertex_elimination(part, [v for v in orders[by] if v in part], "best")
    )
    info = {
        "objective": "graphax",
        "found_by": by,
        "order": orders[by],
        "graphax_mults": prices[by],
        "candidates": prices,
        "budget": budget,
        "cut_by_time": bool(clock.cut),
        "cut_phases": clock.cut,
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
    (``objective="blocks"``) or in Graphax's model (``"graphax"``, on an equation graph).
    A candidate that fails verification is passed over for the next cheapest; where none
    verifies, the cheapest is returned unverified (its ``verification`` says why)."""
    if objective == "graphax":
        return _best_graphax(graph, budget, seed)
    if objective != "blocks":
        raise InputError(f"objective {objective[:20]!r} is not one of 'blocks', 'graphax'")
    clock = _Clock(budget)
    baselines = {
        "forward": list(graph.intermediates),
        "reverse": list(reversed(graph.intermediates)),
        "markowitz": markowitz_order(graph),
    }
    orders, prices = _portfolio(graph, baselines, BLOCKS, budget, seed, clock)
    proven = None
    if len(graph.intermediates) <= TENSOR_VERTEX_LIMIT and not clock.out("exact search"):
        try:
            result = vertex_optimal_search(graph, budget / 2)
        except SearchTooLarge:
            result = None
        if result is not None:
            orders["vertex-optimal"] = [v for _, v in result.moves]
            prices["vertex-optimal"] = effective_cost(graph, orders["vertex-optimal"])
            proven = "vertex-optimal" if result.proven else None
    given = {es.method: es for es in candidates if es.verified}
    prices = {**{name: es.mults for name, es in given.items()}, **prices}
    by, winner = _verified_winner(
        prices,
        lambda by: given[by] if by in given else vertex_elimination(graph, orders[by], "best"),
    )
    info = {
        "objective": "blocks",
        "found_by": by,
        "order": orders.get(by, winner.info.get("order")),
        "candidates": prices,
        "budget": budget,
        "cut_by_time": bool(clock.cut),
        "cut_phases": clock.cut,
    }
    if proven is not None and winner.verified and winner.mults <= prices[proven]:
        info.update(optimal_among="vertex elimination", proven_optimal=True)
    return winner._relabeled("best", {**winner.info, **info})
