"""Vertex elimination (Naumann 1999, §2.4): forward, reverse, Markowitz, any order.

Eliminating intermediate v costs its Markowitz degree |P_v| * |S_v|. Forward mode
eliminates in evaluation order, reverse mode in reverse order, and the Markowitz
heuristic greedily takes the smallest current degree, ties broken by evaluation order.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from typing import NamedTuple

from ..core.expressions import ExpressionSet, has_scaling_constants
from ..core.graph import DGraph
from ..errors import DGraphError, SearchTooLarge
from .labeled import LabeledGraph

__all__ = [
    "PRODUCT_LIMIT",
    "PricedOrder",
    "adjacency_sets",
    "eliminate_in_sets",
    "forward",
    "markowitz",
    "markowitz_order",
    "priced_markowitz_order",
    "reverse",
    "vertex_elimination",
]


def vertex_elimination(
    graph: DGraph, order: Iterable[str], method: str = "vertex"
) -> ExpressionSet:
    """Eliminate the intermediates in ``order`` (every one, each once).

    >>> from dgraph.frontends import bundled
    >>> g = bundled("naumann_sin.trace")
    >>> vertex_elimination(g, ["v2", "v1"]).mults
    3
    """
    order = list(order)
    missing = set(graph.intermediates) - set(order)
    if missing or len(order) != len(set(order)):
        what = f"misses {sorted(missing)[0]!r}" if missing else "repeats a vertex"
        raise DGraphError(f"vertex order {what}; give every intermediate once")
    # constants other than ±1 decide what may be inlined after the fact (see
    # ExpressionSet.inline_single_use), so those graphs name every factor first
    labeled = LabeledGraph(graph, names_only_shared=not has_scaling_constants(graph))
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


# Products a symbolic Markowitz elimination builds unasked: its fill-in makes long sums,
# and this many, built and verified, take about a minute (benchmarks/RESULTS.md).
PRODUCT_LIMIT = 250_000


def markowitz_order(graph: DGraph, limit: int | None = None) -> list[str]:
    """Greedy order of smallest current Markowitz degree, ties by evaluation order;
    raises :class:`SearchTooLarge` as soon as its products exceed ``limit``.

    >>> from dgraph.frontends import bundled
    >>> markowitz_order(bundled("naumann_sin.trace"))
    ['v1', 'v2']
    """
    return priced_markowitz_order(graph, limit).order


class PricedOrder(NamedTuple):
    """An elimination order and its structural cost."""

    order: list[str]
    cost: int


def priced_markowitz_order(graph: DGraph, limit: int | None = None) -> PricedOrder:
    """:func:`markowitz_order` with its structural cost (the products it makes, the sum
    of the degrees met), abandoned once that exceeds ``limit``."""
    position = {v: i for i, v in enumerate(graph.order())}
    pred, succ = adjacency_sets(graph)  # structure only: labels play no part in the choice
    # a heap of (degree, position, vertex), entries made stale by later changes skipped:
    # the degrees that change are those of the eliminated vertex's neighbours
    heap = [(len(pred[v]) * len(succ[v]), position[v], v) for v in graph.intermediates]
    heapq.heapify(heap)
    done: set[str] = set()
    order: list[str] = []
    products = 0
    while heap:
        degree, _, v = heapq.heappop(heap)
        if v in done or degree != len(pred[v]) * len(succ[v]):
            continue
        done.add(v)
        order.append(v)
        products += degree
        if limit is not None and products > limit:
            raise SearchTooLarge(
                f"markowitz: its order makes more than {limit:,} multiplications (after "
                f"{len(order):,} of {len(graph.intermediates):,} vertices, its fill-in "
                "growing): too large to build symbolically by default; forward and reverse "
                "have no fill-in"
            )
        eliminate_in_sets(pred, succ, v)
        for w in pred[v] | succ[v]:
            if w not in done and graph.role(w) == "intermediate":
                heapq.heappush(heap, (len(pred[w]) * len(succ[w]), position[w], w))
    return PricedOrder(order, products)


def markowitz(graph: DGraph, limit: int | None = PRODUCT_LIMIT) -> ExpressionSet:
    """The Markowitz heuristic: smallest current degree first; refused at once where its
    order makes more than ``limit`` multiplications (None: no limit)."""
    return vertex_elimination(graph, markowitz_order(graph, limit), "markowitz")
