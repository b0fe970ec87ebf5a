"""Heuristic vertex elimination orders, priced in effective multiplications.

Greedy rules from the elimination literature (Naumann 1999; Griewank–Walther ch. 9)
— smallest Markowitz degree, smallest effective cost, smallest fill-in, smallest
*relative* Markowitz degree (|P|·|S| over |P| + |S|), each with forward or reverse
tie-breaks — then randomized restarts of the best rule; a beam search over elimination
states; and a greedy edge elimination (the cheapest forward or backward elimination at
every step). Annealing over orders priced on their windows is :mod:`dgraph.search.windows`;
:func:`cheapest_first_order` and :func:`anneal_order` price whole orders in any label
algebra of the kernel (Jacobian blocks, Graphax's model).
"""

from __future__ import annotations

import heapq
import math
import random
from collections.abc import Callable

from ..core.graph import DGraph
from ..elimination.kernel import BLOCKS, VALUES, Algebra, Costed, Elimination

__all__ = [
    "RULES",
    "anneal_order",
    "beam_order",
    "cheapest_first_order",
    "greedy_edges",
    "greedy_order",
]

Score = Callable[[Elimination, str], float]

RULES: dict[str, Score] = {
    "effective": lambda k, v: k.vertex_cost(v),
    "markowitz": lambda k, v: k.markowitz(v),
    "fill-in": lambda k, v: (k.fill_in(v), k.vertex_cost(v)),
    "relative": lambda k, v: k.markowitz(v) / max(1, len(k.pred[v]) + len(k.succ[v])),
}


def greedy_order(
    graph: DGraph, rule: str, tie: str = "forward", rng: random.Random | None = None
) -> list[str]:
    """Eliminate the vertex of smallest ``rule`` score until none is left; ties by
    evaluation order (``forward``), its reverse, or at random when ``rng`` is given.

    >>> from dgraph.frontends import bundled
    >>> greedy_order(bundled("naumann_sin.trace"), "effective", "reverse")
    ['v2', 'v1']
    """
    kinds = Elimination(graph, VALUES)
    position = {v: i for i, v in enumerate(graph.order())}
    sign = 1 if tie == "forward" else -1
    # a list in evaluation order, not a set: the random tie-breaks are drawn in its order,
    # and a set of names iterates in an order Python's string hashing seeds per process
    left, order = list(graph.intermediates), []
    score = RULES[rule]
    while left:

        def key(v: str) -> tuple:
            jitter = rng.random() if rng is not None else 0.0
            return (score(kinds, v), jitter, sign * position[v])

        v = min(left, key=key)
        kinds.eliminate_vertex(v)
        left.remove(v)
        order.append(v)
    return order


def beam_order(
    graph: DGraph,
    width: int = 8,
    branch: int = 6,
    algebra: Algebra = VALUES,
    work: int | None = None,
) -> Costed:
    """Beam search over vertex elimination: keep the ``width`` cheapest partial orders of
    each length, extending each by its ``branch`` cheapest next vertices; once ``work``
    vertices have been priced (None: no limit) only the cheapest goes on, completed
    greedily — a count, so the result never depends on the machine's speed. Priced in
    ``algebra``: effective (:data:`VALUES`) or structural (:data:`COUNT`)
    multiplications."""
    beam = [(0, [], Elimination(graph, algebra))]
    priced = 0
    for _ in graph.intermediates:
        if work is not None and priced >= work:
            width = branch = 1
        extended = []
        for cost, order, kinds in beam:
            left = kinds.intermediates()
            priced += len(left)
            for v in sorted(left, key=kinds.vertex_cost)[:branch]:
                nxt = kinds.copy()
                extended.append((cost + nxt.eliminate_vertex(v), [*order, v], nxt))
        extended.sort(key=lambda e: e[0])
        beam, seen = [], set()
        for entry in extended:
            key = frozenset(entry[1])
            if key not in seen:  # equal sets reached at different costs: keep the cheaper
                seen.add(key)
                beam.append(entry)
            if len(beam) == width:
                break
    cost, order, _ = beam[0]
    return Costed(cost, order)


def greedy_edges(graph: DGraph, rng: random.Random | None = None) -> Costed:
    """Edge elimination that always takes the cheapest front or back elimination, priced
    in effective then structural multiplications (ties: forward first, then evaluation
    order, or at random with ``rng``); its effective cost and moves.

    >>> from dgraph.frontends import bundled
    >>> greedy_edges(bundled("naumann_sin.trace")).cost
    3
    """
    kinds = Elimination(graph, VALUES)
    inner = set(graph.intermediates)
    position = {v: k for k, v in enumerate(graph.order())}
    total, moves = 0, []
    while inner & kinds.succ.keys():
        best, best_key = None, None
        for i, row in kinds.succ.items():
            for j in row:
                for direction, vertex in (("forward", i), ("backward", j)):
                    if vertex not in inner:
                        continue
                    degree = len(kinds.pred[i]) if direction == "forward" else len(kinds.succ[j])
                    key = (
                        kinds.edge_cost(i, j, direction),
                        degree,
                        rng.random() if rng is not None else 0.0,
                        direction,
                        position[i],
                        position[j],
                    )
                    if best_key is None or key < best_key:
                        best, best_key = (direction, (i, j)), key
        direction, (i, j) = best
        total += kinds.eliminate_edge(i, j, direction)
        moves.append(best)
    return Costed(total, moves)


def cheapest_first_order(
    graph: DGraph,
    rng: random.Random | None = None,
    width: int = 3,
    algebra: Algebra = BLOCKS,
    stop: Callable[[], bool] = lambda: False,
) -> list[str]:
    """Eliminate next the vertex whose products cost least in ``algebra`` (Jacobian
    blocks by default: Naumann's Markowitz rule with the true price for the degree);
    with ``rng``, one of the ``width`` cheapest at random (ties: evaluation order). A
    vertex's price reads only the labels of its own edges, and eliminating ``v``
    changes only edges between its predecessors and successors, so after each step
    just those are priced again (``batchrx``'s 1,292 blocks: 134,615 prices before,
    every vertex left at every step). Once ``stop()`` (the time ceiling, checked
    before each step), the vertices left follow in the graph's order (any order of the
    intermediates is an elimination order).

    >>> from dgraph.frontends import bundled
    >>> len(cheapest_first_order(bundled("naumann_sin.trace")))
    2
    """
    left = list(graph.intermediates)
    if stop():
        return left
    state = Elimination(graph, algebra)
    position = {v: k for k, v in enumerate(left)}
    price = {v: state.vertex_cost(v) for v in left}
    order: list[str] = []
    while price:
        if order and stop():
            return order + [v for v in left if v in price]
        count = 1 if rng is None else width
        cheapest = heapq.nsmallest(count, ((c, position[v], v) for v, c in price.items()))
        v = (cheapest[0] if rng is None else rng.choice(cheapest))[2]
        touched = [*state.pred[v], *state.succ[v]]
        state.eliminate_vertex(v)
        del price[v]
        for w in touched:
            if w in price:
                price[w] = state.vertex_cost(w)
        order.append(v)
    return order


def anneal_order(
    price: Callable[[list[str]], int],
    order: list[str],
    moves: int,
    rng: random.Random,
    stop: Callable[[], bool] = lambda: False,
) -> Costed:
    """Simulated annealing over vertex orders (any order of the intermediates is one):
    a move takes one vertex to another place; a worse order is kept with probability
    exp(-increase / T), T falling geometrically from 3% of the start's price to almost
    nothing over ``moves``. The cheapest order seen and its price (``stop()``: the
    time ceiling, checked between moves)."""
    current = best = list(order)
    now = low = price(current)
    n = len(order)
    if n < 2 or moves < 1:
        return Costed(low, best)
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
    return Costed(low, best)
