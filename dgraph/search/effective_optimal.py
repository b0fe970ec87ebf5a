"""The vertex elimination order with the fewest *effective* multiplications, by A*.

Bischof's dynamic program over eliminated sets (seed 000 §3) holds for effective costs
too: after eliminating a set S, every label is the sum over the paths through S of their
products, so its kind (unit, constant, general; :mod:`dgraph.search.kinds`) depends on S
alone, and so does the price of the next elimination.

The bound adds, over the remaining vertices, what the multiplications at each will cost
whenever it is eliminated (:mod:`dgraph.search.junction_bounds`: per vertex, or per
joined group while none of it is eliminated). A vertex that has a general in-edge
and a general out-edge now keeps them, so it costs at least one multiplication too.
"""

from __future__ import annotations

from ..core.graph import DGraph
from ..elimination.parts import by_parts
from ..elimination.search import SearchResult, astar
from ..errors import SearchTooLarge
from .junction_bounds import effective_vertex_bounds, group_bounds
from .kinds import GENERAL, UNIT, KindGraph, add, effective_cost, multiply

__all__ = ["effective_optimal_search"]

EFFECTIVE_LIMIT = 18  # intermediates beyond which the search refuses without a budget


def effective_optimal_search(
    graph: DGraph, budget: float | None = None, incumbent: list[str] | None = None
) -> SearchResult:
    """The vertex order of least effective cost (as ``("vertex", v)`` moves), proven
    unless the budget ran out; ``incumbent`` is an order known to be good.

    >>> from dgraph.core.builders import bundled
    >>> r = effective_optimal_search(bundled("naumann_sin.trace"))
    >>> r.cost, r.proven, [v for _, v in r.moves]
    (3, True, ['v2', 'v1'])
    """

    def search(part: DGraph, share: float | None) -> SearchResult:
        inside = set(part.intermediates)
        return _connected_search(part, share, [v for v in incumbent or () if v in inside])

    return by_parts(graph, search, budget)


def _connected_search(
    graph: DGraph, budget: float | None, incumbent: list[str] | None
) -> SearchResult:
    names = graph.order()
    p = len(graph.intermediates)
    if p > EFFECTIVE_LIMIT and budget is None:
        raise SearchTooLarge(
            f"effective-optimal: {p} intermediate vertices exceed the exhaustive limit of"
            f" {EFFECTIVE_LIMIT}; pass a budget to search anyway for the best found"
        )
    index = {v: i for i, v in enumerate(names)}
    start_kinds = KindGraph(graph).pred
    preds0 = [[(index[u], k) for u, k in start_kinds[v].items()] for v in names]
    inner = [index[v] for v in graph.intermediates]
    inner_set = set(inner)
    full = sum(1 << v for v in inner)
    bounds: dict[int, int] = {}

    def kinds(done: int) -> tuple[list[dict[int, int]], list[dict[int, int]]]:
        """In- and out-edge kinds of every vertex after eliminating ``done``."""
        kin: list[dict[int, int]] = []
        for v in range(len(names)):
            row: dict[int, int] = {}
            for u, k in preds0[v]:
                through = kin[u].items() if done >> u & 1 else ((u, UNIT),)
                for w, kw in through:
                    kind = multiply(k, kw)[1]
                    row[w] = kind if w not in row else add(row[w], kind)
            kin.append(row)
        kout: list[dict[int, int]] = [{} for _ in names]
        for v, row in enumerate(kin):
            if not done >> v & 1:
                for u, k in row.items():
                    kout[u][v] = k
        return kin, kout

    def general(row: dict[int, int]) -> bool:
        return GENERAL in row.values()

    static = effective_vertex_bounds(graph)
    floor = [static.get(v, 0) for v in names]
    # a group still whole owes its own bound instead of its members'
    groups = [
        (sum(1 << index[v] for v in members), owed - sum(static[v] for v in members))
        for members, owed in group_bounds(graph, static)
        if len(members) > 1
    ]
    # a vertex with a general in-edge and a general out-edge costs at least one, and the
    # bound adds how much more than its static bound that is (outside a whole group)
    extra = [1 if f == 0 else 0 for f in floor]

    def owed(done: int, now: set[int]) -> int:
        """The bound after eliminating ``done``; ``now`` must cost at least one each."""
        whole = 0
        total = sum(floor[w] for w in inner if not done >> w & 1)
        for mask, gain in groups:
            if not done & mask:
                whole |= mask
                total += gain
        return total + sum(extra[w] for w in now if not whole >> w & 1)

    def expand(done: int):
        kin, kout = kinds(done)
        counted = {v for v in inner if not done >> v & 1 and general(kin[v]) and general(kout[v])}
        for v in inner:
            if done >> v & 1:
                continue
            cost = sum(multiply(ko, ki)[0] for ki in kin[v].values() for ko in kout[v].values())
            fresh = set()
            if general(kin[v]):  # v's successors gain a general in-edge
                fresh |= {k for k in kout[v] if general(kout[k])}
            if general(kout[v]):  # v's predecessors gain a general out-edge
                fresh |= {i for i in kin[v] if general(kin[i])}
            nxt = done | 1 << v
            bounds[nxt] = owed(nxt, (counted | (fresh & inner_set)) - {v})
            yield ("vertex", names[v]), cost, nxt

    def bound(done: int) -> int:
        if done not in bounds:  # the start
            kin, kout = kinds(done)
            bounds[done] = owed(done, {v for v in inner if general(kin[v]) and general(kout[v])})
        return bounds[done]

    candidates = [graph.intermediates, graph.intermediates[::-1]] + (
        [incumbent] if incumbent else []
    )
    order = min(candidates, key=lambda o: effective_cost(graph, o))
    start = (effective_cost(graph, order), [("vertex", v) for v in order])
    return astar(0, expand, lambda done: done == full, bound, start, budget)
