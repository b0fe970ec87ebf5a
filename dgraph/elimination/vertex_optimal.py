"""The optimal vertex elimination order, by A* over sets of eliminated vertices.

After eliminating a set S of vertices the graph's structure does not depend on the order
(i -> k exists iff a path from i to k has all its inner vertices in S), so the search runs
over the 2^p subsets (Bischof's dynamic program, seed 000 §3), pruned with the bound
``sum over remaining v of cut_in(v) * cut_out(v)`` and the Markowitz, forward and reverse
costs as the incumbent.
"""

from __future__ import annotations

from ..core.expressions import ExpressionSet
from ..core.graph import DGraph
from ..errors import SearchTooLarge
from .labeled import replay
from .parts import by_parts
from .search import SearchResult, astar
from .structure import BitGraph, iter_bits
from .vertex import markowitz_order

__all__ = ["VERTEX_LIMIT", "vertex_optimal", "vertex_optimal_search"]

VERTEX_LIMIT = 18  # intermediates beyond which the search refuses without a budget


def _orders_cost(bits: BitGraph, order: list[int]) -> int:
    state, total = bits.start, 0
    for v in order:
        cost, state = bits.vertex(state, v)
        total += cost
    return total


def vertex_optimal_search(graph: DGraph, budget: float | None = None) -> SearchResult:
    """The cheapest vertex elimination order (as moves), proven unless the budget ran out;
    each independent part searched on its own."""
    return by_parts(graph, _connected_search, budget)


def _connected_search(graph: DGraph, budget: float | None) -> SearchResult:
    p = len(graph.intermediates)
    if p > VERTEX_LIMIT and budget is None:
        raise SearchTooLarge(
            f"vertex-optimal: {p} intermediate vertices exceed the exhaustive limit of"
            f" {VERTEX_LIMIT}; pass --budget SECONDS to search anyway for the best found"
        )
    bits = BitGraph(graph)
    n = len(bits.names)
    pred0 = bits.start_preds
    cut_in, cut_out = bits.cuts()
    weight = {v: cut_in[v] * cut_out[v] for v in bits.intermediates}
    full = sum(1 << v for v in bits.intermediates)

    def expand(done: int):
        # Predecessor and successor sets after eliminating ``done``: one sweep each way.
        preds = [0] * n
        for v in range(n):
            acc = 0
            for u in iter_bits(pred0[v]):
                acc |= preds[u] if done >> u & 1 else 1 << u
            preds[v] = acc
        succs = [0] * n
        for v in range(n - 1, -1, -1):
            acc = 0
            for w in iter_bits(bits.start[v]):
                acc |= succs[w] if done >> w & 1 else 1 << w
            succs[v] = acc
        for v in bits.intermediates:
            if not done >> v & 1:
                yield (
                    ("vertex", bits.names[v]),
                    preds[v].bit_count() * succs[v].bit_count(),
                    done | 1 << v,
                )

    def bound(done: int) -> int:
        return sum(w for v, w in weight.items() if not done >> v & 1)

    index = bits.index
    candidates = [
        [index[v] for v in graph.intermediates],
        [index[v] for v in reversed(graph.intermediates)],
        [index[v] for v in markowitz_order(graph)],
    ]
    best = min(candidates, key=lambda o: _orders_cost(bits, o))
    incumbent = (_orders_cost(bits, best), [("vertex", bits.names[v]) for v in best])
    return astar(0, expand, lambda done: done == full, bound, incumbent, budget)


def vertex_optimal(graph: DGraph, budget: float | None = None) -> ExpressionSet:
    """Vertex elimination in an optimal order (``optimal`` says whether it is proven)."""
    result = vertex_optimal_search(graph, budget)
    order = [target for _, target in result.moves]
    return replay(graph, result.moves, "vertex-optimal", **result.info(), order=order)
