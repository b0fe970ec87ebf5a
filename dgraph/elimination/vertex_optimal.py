"""The optimal vertex elimination order: A* over sets of eliminated vertices on small
parts, constraint programming on large ones.

After eliminating a set S of vertices the graph's structure does not depend on the order
(i -> k exists iff a path from i to k has all its inner vertices in S), so the search runs
over the 2^p subsets (:func:`dgraph.elimination.search.subset_search`, Bischof's dynamic
program, Naumann 1999, §3) on the structure's bitmasks, pruned with the bound ``sum over
remaining v of cut_in(v) * cut_out(v)`` and the Markowitz, forward and reverse costs as
the incumbent. An independent part of more than :data:`VERTEX_LIMIT` intermediates, given
a budget, goes to the CP-SAT model of :mod:`dgraph.elimination.vertex_exact` instead
(where OR-Tools is installed; else to the A*, as before): it has proven optima of parts
of 108 intermediates (AlphaGrad's robot arm), and elsewhere returns its best order with
the solver's lower bound.

References: U. Naumann, "Optimal accumulation of Jacobian matrices by elimination
methods on the dual computational graph", Math. Program. 99 (2004) 399–421.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import partial

from ..core.expressions import ExpressionSet
from ..core.graph import DGraph
from ..errors import SearchTooLarge
from .kernel import BLOCKS, Elimination
from .labeled import replay
from .parts import by_parts
from .search import (
    Prices,
    SearchResult,
    check_order,
    check_size,
    check_start,
    subset_search,
)
from .structure import BitGraph
from .vertex import markowitz_order
from .vertex_exact import EXACT_LIMIT, available, exact_vertex_search

__all__ = ["VERTEX_LIMIT", "uses_exact_model", "vertex_optimal", "vertex_optimal_search"]

VERTEX_LIMIT = 18  # intermediates beyond which the search refuses without a budget
TENSOR_VERTEX_LIMIT = 14  # likewise on a tensor graph, where every set's blocks are kept


def vertex_optimal_search(
    graph: DGraph,
    budget: float | None = None,
    incumbent: list[str] | None = None,
    max_expansions: int | None = None,
) -> SearchResult:
    """The cheapest vertex elimination order (as moves), proven unless the budget ran out;
    each independent part searched on its own; ``incumbent`` is an order known to be
    good (it prunes from the start), of every intermediate once.

    Raises
    ------
    InputError
        Where ``incumbent`` is not an order of every intermediate, each once.
    SearchTooLarge
        Where a part has more intermediates than the exhaustive limit and no budget, or
        its search would expand more than ``max_expansions`` sets (None: no limit).
    """
    if incumbent is not None:
        incumbent = check_order(graph, incumbent, "vertex-optimal: the incumbent")

    def search(part: DGraph, share: float | None) -> SearchResult:
        inside = set(part.intermediates)
        mine = None if incumbent is None else [v for v in incumbent if v in inside]
        return _connected_search(part, share, mine, max_expansions)

    return by_parts(graph, search, budget)


def _connected_search(
    graph: DGraph,
    budget: float | None,
    incumbent: list[str] | None = None,
    max_expansions: int | None = None,
) -> SearchResult:
    limit = TENSOR_VERTEX_LIMIT if graph.is_tensor else VERTEX_LIMIT
    check_size(graph, budget, limit, "vertex-optimal")
    if uses_exact_model(graph, budget):
        try:
            found = exact_vertex_search(graph, "structural", budget, incumbent)
        except SearchTooLarge:  # too many fill clauses to build: the A*
            pass
        else:  # the solver's bound within a short budget can be below the cuts' (or 0)
            bound = min(max(found.lower_bound, _cut_bound(BitGraph(graph))), found.cost)
            return replace(found, lower_bound=bound, proven=bound >= found.cost)
    check_start(graph, budget, 3 + bool(incumbent), "vertex-optimal")
    inner = graph.intermediates
    orders = [inner, inner[::-1], markowitz_order(graph)] + ([incumbent] if incumbent else [])
    if graph.is_tensor:  # block prices, and no bound: the cuts count scalar products
        prices: Prices = _BlockPrices(graph)
        return _subsets(graph, prices, lambda done: 0, orders, budget, max_expansions)
    bits = BitGraph(graph)
    return _subsets(
        graph, bits.vertex_prices, partial(_cut_bound, bits), orders, budget, max_expansions
    )


def _cut_bound(bits: BitGraph, done: int = 0) -> int:
    """What eliminating the vertices not in ``done`` costs at least in any order: each
    vertex's product of its Menger cuts to the inputs and to the outputs (Naumann 2004,
    the A*'s admissible bound)."""
    cut_in, cut_out = bits.cuts()
    return sum(cut_in[v] * cut_out[v] for v in bits.intermediates if not done >> v & 1)


def _subsets(
    graph: DGraph,
    prices: Prices,
    bound: Callable[[int], int],
    orders: list[list[str]],
    budget: float | None,
    max_expansions: int | None,
) -> SearchResult:
    """:func:`~dgraph.elimination.search.subset_search`, its refusal naming the method."""
    try:
        return subset_search(graph, prices, bound, orders, budget, max_expansions)
    except SearchTooLarge as exc:
        raise SearchTooLarge(
            f"vertex-optimal: {len(graph.intermediates)} intermediates, {exc}; pass --budget"
            " SECONDS for the best found"
        ) from None


def uses_exact_model(graph: DGraph, budget: float | None) -> bool:
    """Whether a connected part goes to the CP-SAT model: beyond the A*'s exhaustive
    limit, with a budget, OR-Tools installed, on a scalar graph."""
    p = len(graph.intermediates)
    return (
        budget is not None
        and not graph.is_tensor
        and VERTEX_LIMIT < p <= EXACT_LIMIT
        and available()
    )


class _BlockPrices:
    """What eliminating each vertex left costs over Jacobian blocks, after a set: the
    state after a set does not depend on the order, so each is made once, from the set
    it was reached from, and kept."""

    def __init__(self, graph: DGraph) -> None:
        self.names = graph.order()
        self.inner = [i for i, v in enumerate(self.names) if graph.role(v) == "intermediate"]
        self.states = {0: Elimination(graph, BLOCKS)}
        self.paid: dict[tuple[int, int], int] = {}

    def __call__(self, done: int) -> Iterator[tuple[int, int]]:
        state = self.states[done]
        for v in self.inner:
            if done >> v & 1:
                continue
            key = (done, v)
            if key not in self.paid:
                after = state.copy()
                self.paid[key] = after.eliminate_vertex(self.names[v])
                self.states.setdefault(done | 1 << v, after)
            yield v, self.paid[key]


def vertex_optimal(
    graph: DGraph,
    budget: float | None = None,
    incumbent: list[str] | None = None,
    max_expansions: int | None = None,
) -> ExpressionSet:
    """Vertex elimination in an optimal order (``optimal`` says whether it is proven);
    ``incumbent`` is an order to start from (every intermediate once); ``max_expansions``
    refuses (SearchTooLarge) a search that would expand more sets (None: no limit)."""
    result = vertex_optimal_search(graph, budget, incumbent, max_expansions)
    order = [target for _, target in result.moves]
    return replay(
        graph, result.moves, "vertex-optimal", **result.info("vertex elimination"), order=order
    )
