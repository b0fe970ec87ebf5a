"""Vertex elimination (Naumann 1999, §2.4): forward, reverse, Markowitz, any order.

Eliminating intermediate v costs its Markowitz degree |P_v| * |S_v|. Forward mode
eliminates in evaluation order, reverse mode in reverse order, and the Markowitz
heuristic greedily takes the smallest current degree, ties broken by evaluation order.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable

from ..core.expressions import ExpressionSet
from ..core.graph import DGraph
from ..errors import DGraphError
from .labeled import LabeledGraph

__all__ = [
    "adjacency_sets",
    "eliminate_in_sets",
    "forward",
    "markowitz",
    "markowitz_order",
    "reverse",
    "vertex_elimination",
]


def vertex_elimination(
    graph: DGraph, order: Iterable[str], method: str = "vertex"
) -> ExpressionSet:
    """Eliminate the intermediates in ``order`` (every one, each once).

    >>> from dgraph.core.builders import bundled
    >>> g = bundled("naumann_sin.trace")
    >>> vertex_elimination(g, ["v2", "v1"]).mults
    3
    """
    order = list(order)
    missing = set(graph.intermediates) - set(order)
    if missing or len(order) != len(set(order)):
        what = f"misses {sorted(missing)[0]!r}" if missing else "repeats a vertex"
        raise DGraphError(f"vertex order {what}; give every intermediate once")
    labeled = LabeledGraph(graph)
    for v in order:
        labeled.eliminate_vertex(v)
    return labeled.result(method, {"order": order})


def forward(graph: DGraph) -> ExpressionSet:
    """Forward mode: vertex elimination in evaluation order."""
    return vertex_elimination(graph, graph.intermediates, "forward")


def reverse(graph: DGraph) -> ExpressionSet:
    """Reverse mode: vertex elimination in reverse evaluation order."""
    return vertex_elimination(graph, reversed(graph.intermediates), "reverse")


def adjacency_sets(graph: DGraph) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Predecessor and successor sets of every vertex: the structure to eliminate on."""
    return (
        {v: set(graph.nx.pred[v]) for v in graph.nx},
        {v: set(graph.nx.succ[v]) for v in graph.nx},
    )


def eliminate_in_sets(pred: dict[str, set[str]], succ: dict[str, set[str]], v: str) -> int:
    """Eliminate ``v`` structurally (its predecessors gain its successors); its Markowitz
    degree. ``v``'s own sets are kept, for the caller to read."""
    for i in pred[v]:
        succ[i].discard(v)
        succ[i] |= succ[v]
    for k in succ[v]:
        pred[k].discard(v)
        pred[k] |= pred[v]
    return len(pred[v]) * len(succ[v])


def markowitz_order(graph: DGraph) -> list[str]:
    """Greedy order of smallest current Markowitz degree, ties by evaluation order.

    >>> from dgraph.core.builders import bundled
    >>> markowitz_order(bundled("naumann_sin.trace"))
    ['v1', 'v2']
    """
    position = {v: i for i, v in enumerate(graph.order())}
    pred, succ = adjacency_sets(graph)  # structure only: labels play no part in the choice
    # a heap of (degree, position, vertex), entries made stale by later changes skipped:
    # the degrees that change are those of the eliminated vertex's neighbours
    heap = [(len(pred[v]) * len(succ[v]), position[v], v) for v in graph.intermediates]
    heapq.heapify(heap)
    done: set[str] = set()
    order: list[str] = []
    while heap:
        degree, _, v = heapq.heappop(heap)
        if v in done or degree != len(pred[v]) * len(succ[v]):
            continue
        done.add(v)
        order.append(v)
        eliminate_in_sets(pred, succ, v)
        for w in pred[v] | succ[v]:
            if w not in done and graph.role(w) == "intermediate":
                heapq.heappush(heap, (len(pred[w]) * len(succ[w]), position[w], w))
    return order


def markowitz(graph: DGraph) -> ExpressionSet:
    """The Markowitz heuristic: smallest current degree first."""
    return vertex_elimination(graph, markowitz_order(graph), "markowitz")
