"""Heuristic vertex elimination orders, priced in effective multiplications.

Greedy rules from the elimination literature (Naumann 1999; Griewank–Walther ch. 9)
— smallest Markowitz degree, smallest effective cost, smallest fill-in, smallest
*relative* Markowitz degree (|P|·|S| over |P| + |S|), each with forward or reverse
tie-breaks — then randomized restarts of the best rule and simulated annealing over
whole orders until a deadline; a beam search over elimination states; and a greedy
edge elimination (the cheapest forward or backward elimination at every step).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable

from ..core.graph import DGraph
from ..elimination.kernel import VALUES, Elimination, effective_cost

__all__ = ["RULES", "anneal", "beam_order", "greedy_edges", "greedy_order"]

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

    >>> from dgraph.core.builders import bundled
    >>> greedy_order(bundled("naumann_sin.trace"), "effective", "reverse")
    ['v2', 'v1']
    """
    kinds = Elimination(graph, VALUES)
    position = {v: i for i, v in enumerate(graph.order())}
    sign = 1 if tie == "forward" else -1
    left, order = set(graph.intermediates), []
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


def anneal(
    graph: DGraph,
    start: list[str],
    deadline: float,
    max_steps: int,
    seed: int = 0,
    fixed: int = 0,
) -> tuple[int, list[str]]:
    """Simulated annealing over orders: move one vertex elsewhere, keep it if cheaper or
    with probability exp(-Δ/T), T cooling geometrically; the best order seen. The first
    ``fixed`` vertices of ``start`` stay where they are (a preprocessing prefix)."""
    rng = random.Random(seed)
    kinds = Elimination(graph, VALUES)
    prefix_cost = sum(kinds.eliminate_vertex(v) for v in start[:fixed])
    prefix = list(start[:fixed])
    current = list(start[fixed:])
    cost = effective_cost(kinds, current)
    best_cost, best = cost, list(current)
    n = len(current)
    if n < 2:
        return prefix_cost + best_cost, prefix + best
    temperature = max(1.0, 0.05 * cost)
    cooling = (0.01 / temperature) ** (1 / max_steps) if temperature > 0.01 else 1.0
    for _ in range(max_steps):
        if time.perf_counter() > deadline:  # a step prices a whole order: check each one
            break
        i, j = rng.randrange(n), rng.randrange(n)
        if i == j:
            continue
        candidate = list(current)
        candidate.insert(j, candidate.pop(i))
        new = effective_cost(kinds, candidate)
        if new <= cost or rng.random() < math.exp((cost - new) / temperature):
            current, cost = candidate, new
            if cost < best_cost:
                best_cost, best = cost, list(current)
        temperature *= cooling
    return prefix_cost + best_cost, prefix + best


def beam_order(
    graph: DGraph, width: int = 8, branch: int = 6, deadline: float | None = None
) -> tuple[int, list[str]]:
    """Beam search over vertex elimination: keep the ``width`` cheapest partial orders of
    each length, extending each by its ``branch`` cheapest next vertices; past
    ``deadline`` only the cheapest goes on, completed greedily."""
    beam = [(0, [], Elimination(graph, VALUES))]
    for _ in graph.intermediates:
        if deadline is not None and time.perf_counter() > deadline:
            width = branch = 1
        extended = []
        for cost, order, kinds in beam:
            for v in sorted(kinds.intermediates(), key=kinds.vertex_cost)[:branch]:
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
    return cost, order


def greedy_edges(
    graph: DGraph, rng: random.Random | None = None
) -> tuple[int, list[tuple[str, tuple[str, str]]]]:
    """Edge elimination that always takes the cheapest front or back elimination, priced
    in effective then structural multiplications (ties: forward first, then evaluation
    order, or at random with ``rng``); its effective cost and moves.

    >>> from dgraph.core.builders import bundled
    >>> greedy_edges(bundled("naumann_sin.trace"))[0]
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
    return total, moves
