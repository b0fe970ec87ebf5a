"""Choosing a vertex elimination order for a (small) graph by its structural cost.

Used where a method hands a subproblem — an umbrella, a layer, a contracted graph — to
"the cheapest method on its small subgraph": forward, reverse and Markowitz orders are
priced on the structure, and the exact optimum is searched when the graph is small.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..core.graph import DGraph
from ..errors import SearchTooLarge
from .vertex import adjacency_sets, eliminate_in_sets, priced_markowitz_order
from .vertex_optimal import vertex_optimal_search

__all__ = ["EXACT_LIMIT", "cheapest_order", "order_cost", "structure_graph"]

EXACT_LIMIT = 12  # intermediates up to which the optimal order is searched


def structure_graph(
    succ: Mapping[str, Iterable[str]],
    pred: Mapping[str, Iterable[str]],
    inner: list[str],
    output: str | None = None,
) -> DGraph:
    """A structure-only DGraph of ``inner`` vertices with everything feeding them as
    inputs and what they feed as outputs (``output`` if given), in ``inner``'s order.
    ``succ`` and ``pred`` are adjacency maps (a networkx graph's, or an elimination
    state's), read only around ``inner``."""
    inner_set = set(inner)
    sinks = [output] if output is not None else []
    if output is None:
        sinks = list(dict.fromkeys(w for v in inner for w in succ[v] if w not in inner_set))
    keep = inner_set | set(sinks)
    sources = list(dict.fromkeys(u for v in keep for u in pred[v] if u not in keep))
    d = DGraph()
    for u in sources:
        d.add_vertex(u, "input")
    for v in inner:
        d.add_vertex(v, "intermediate")
    for y in sinks:
        d.add_vertex(y, "output")
    for v in [*inner, *sinks]:
        for u in pred[v]:
            if u in keep or u in sources:
                d.add_edge(u, v)
    return d


def order_cost(graph: DGraph, order: list[str]) -> int:
    """The structural cost of eliminating ``order``: the sum of Markowitz degrees met.

    Adjacency sets, so a step costs its fill-in, not the graph's size.
    """
    pred, succ = adjacency_sets(graph)
    total = 0
    for v in order:
        total += eliminate_in_sets(pred, succ, v)
        del pred[v], succ[v]
    return total


def cheapest_order(graph: DGraph, exact_limit: int = EXACT_LIMIT) -> list[str]:
    """The cheapest of forward, reverse and Markowitz orders, or the optimum if small."""
    inner = graph.intermediates
    if len(inner) <= 1:  # one order: nothing to search (an umbrella of one vertex)
        return list(inner)
    if len(inner) <= exact_limit:
        return [target for _, target in vertex_optimal_search(graph).moves]
    candidates = [inner, inner[::-1]]
    costs = [order_cost(graph, order) for order in candidates]
    try:  # abandoned as soon as it costs more than forward or reverse: fill-in can explode
        order, cost = priced_markowitz_order(graph, limit=min(costs))
        candidates.append(order)
        costs.append(cost)
    except SearchTooLarge:
        pass
    return candidates[costs.index(min(costs))]
