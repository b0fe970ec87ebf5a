"""The vertex elimination order with the fewest *effective* multiplications, by A*.

Bischof's dynamic program over eliminated sets (Naumann 1999, §3) holds for label values too:
after eliminating a set S, every label is the sum over the paths through S of their
products, so its value (:mod:`dgraph.core.kinds`) depends on S alone, and so does the
price of the next elimination — :func:`dgraph.elimination.search.subset_search` with the
kernel's value algebra (:class:`dgraph.elimination.kernel.Closure`).

The bound adds, over the remaining vertices, what the multiplications at each will cost
whenever it is eliminated (:mod:`dgraph.search.junction_bounds`: per vertex, or per
joined group while none of it is eliminated). A vertex that has a general in-edge
and a general out-edge now keeps them, so it costs at least one multiplication too.

A search that has priced :data:`BRACKETING_AFTER` sets computes the bracketing bound
(:mod:`dgraph.search.bracketing_bound`); where it is above the start's own bound, the
search starts again from a start whose bound is lifted to it, keeping the labels and
prices it has (else it goes on as it was). That is admissible: every order's vertex
elimination forms each input–output path's product once, by the chain rule over its
paths (Naumann 1999, §2), so its effective multiplications, priced move by move as the
search sums them (equal to what its built expression set counts where the labels depend
on the set alone: :meth:`Closure.exact`, the only case it is used), are at least the
fewest costly multiplications through which every path can be bracketed, which that
bound never exceeds (folding constants, which it allows, only lowers a count). So no
complete order from the start costs less. Every state's bound then takes its parent's
f where that is more (pathmax, Mérő 1984): along an optimal order every f stays at most
its cost, so the first goal popped is still optimal. On the heart dipole's two
14-intermediate parts the bound is the optimum (12 each), reverse mode's order: the
search ends at its start instead of expanding all 16,384 sets of each part. With a budget
a restarted search gets all of it again: the first 2,048 states and the program (at most
a quarter of the budget, :data:`BRACKETING_SECONDS`) come on top, so that the search has
at least the work it had without the lift.

Where two all-constant paths join the same two vertices the set-based prices may fall
below what an order's built expression set counts (:meth:`Closure.exact`): the search
then still returns its best order, priced as built, and claims it optimal only when that
price equals its proven set-based optimum, a lower bound on every order's built count.

A part of more than :data:`EFFECTIVE_LIMIT` intermediates, given a budget, goes to the
CP-SAT model's effective form (:mod:`dgraph.elimination.vertex_exact`) where OR-Tools
is installed and the labels depend on the set alone.

References: U. Naumann, "Optimal accumulation of Jacobian matrices by elimination
methods on the dual computational graph", Math. Program. 99 (2004) 399–421;
U. Naumann, "Optimizing the accumulation of Jacobians by edge elimination in the
computational graph", INRIA RR-3659 (1999); L. Mérő, "A heuristic search algorithm with
modifiable estimate", Artificial Intelligence 23 (1984) 13–27.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

from ..core.graph import DGraph
from ..elimination.kernel import VALUES, Closure, effective_cost
from ..elimination.parts import by_parts
from ..elimination.search import SearchResult, check_order, check_size, subset_search
from ..elimination.vertex_exact import EXACT_LIMIT, available, exact_vertex_search
from ..errors import SearchTooLarge
from .bracketing_bound import bracketing_lower_bound
from .junction_bounds import effective_vertex_bounds, group_bounds

__all__ = ["effective_optimal_search"]

EFFECTIVE_LIMIT = 18  # intermediates beyond which the search refuses without a budget
# vertices + edges whose start (parts, closures, junction bounds) one second of budget
# affords: a budgeted search that needs more refuses, from counts, not the clock
START_PER_SECOND = 3_000
# the sets whose labels the search keeps, so that a set's are one elimination from a
# kept set's (about 2 kB each on the heart dipole's parts)
LABELS_KEPT = 1 << 15
# sets priced after which the search asks the bracketing bound whether its start's bound
# lifts (an integer program: SciPy's import alone costs about what 5,000 expansions do),
# and the work (in seconds, :func:`bracketing_lower_bound`) the program gets at most
BRACKETING_AFTER = 2048
BRACKETING_SECONDS = 0.5


def effective_optimal_search(
    graph: DGraph, budget: float | None = None, incumbent: list[str] | None = None
) -> SearchResult:
    """The vertex order of least effective cost (as ``("vertex", v)`` moves), proven
    unless the budget ran out; ``incumbent`` is an order known to be good, of every
    intermediate once (else :class:`dgraph.errors.InputError`).

    >>> from dgraph.frontends import bundled
    >>> r = effective_optimal_search(bundled("naumann_sin.trace"))
    >>> r.cost, r.proven, [v for _, v in r.moves]
    (3, True, ['v2', 'v1'])
    """

    if incumbent is not None:
        incumbent = check_order(graph, incumbent, "effective-optimal: the incumbent")

    def search(part: DGraph, share: float | None) -> SearchResult:
        inside = set(part.intermediates)
        mine = None if incumbent is None else [v for v in incumbent if v in inside]
        return _connected_search(part, share, mine)

    size = len(graph.order()) + graph.nx.number_of_edges()
    if budget is not None and size > budget * START_PER_SECOND:
        raise SearchTooLarge(
            f"effective-optimal: {size} vertices and edges need a budget of"
            f" {size / START_PER_SECOND:.1f} s or more"
        )
    return by_parts(graph, search, budget)


def _connected_search(
    graph: DGraph, budget: float | None, incumbent: list[str] | None
) -> SearchResult:
    check_size(graph, budget, EFFECTIVE_LIMIT, "effective-optimal")
    large = EFFECTIVE_LIMIT < len(graph.intermediates) <= EXACT_LIMIT
    if budget is not None and large and available():  # the CP-SAT model
        try:
            floors = effective_vertex_bounds(graph, folds=False)  # moves priced one by one
            return exact_vertex_search(graph, "effective", budget, incumbent, floors=floors)
        except SearchTooLarge:  # a label's value depends on the order: the A*
            pass
    closure = Closure(graph, VALUES)
    names, inner = closure.names, closure.inner
    index = {v: i for i, v in enumerate(names)}
    inner_set = set(inner)
    bounds: dict[int, int] = {}

    def general(row: dict[int, Any]) -> bool:
        return None in row.values()  # a general label

    # its moves are priced one multiplication at a time, folding no constants: the
    # bounds may read every constant as it is (stronger where constants share a path)
    static = effective_vertex_bounds(graph, folds=False)
    floor = [static.get(v, 0) for v in names]
    # a group still whole owes its own bound instead of its members'
    groups = [
        (sum(1 << index[v] for v in members), owed - sum(static[v] for v in members))
        for members, owed in group_bounds(graph, static, folds=False)
        if len(members) > 1
    ]
    # a vertex with a general in-edge and a general out-edge costs at least one, and the
    # bound adds how much more than its static bound that is (outside a whole group). That
    # holds while no label can become 0 (a general label times 0 is 0, not general): with
    # every constant label positive no product or sum of them is 0; a 0 or a negative
    # constant (whose sums may cancel) drops this part of the bound
    positive = all(
        c is None or c > 0 for c in (graph.constant_label(u, v) for u, v in graph.edges())
    )
    extra = [1 if f == 0 and positive else 0 for f in floor]

    def rest(done: int) -> int:
        """The static bounds of the vertices ``done`` leaves."""
        return sum(floor[w] for w in inner if not done >> w & 1)

    def owed(done: int, now: set[int], total: int) -> int:
        """The bound after eliminating ``done``, whose :func:`rest` is ``total``; ``now``
        must cost at least one each."""
        whole = 0
        for mask, gain in groups:
            if not done & mask:
                whole |= mask
                total += gain
        return total + sum(extra[w] for w in now if not whole >> w & 1)

    exact = closure.exact()
    # per set priced lately, oldest first: its labels, which vertices have a general in-
    # and out-edge, and the price of each vertex left (None: not yet asked)
    kept: dict[int, _Priced] = {}

    def labels(done: int) -> _Priced:
        """The labels after eliminating ``done``: from those of a set one vertex smaller,
        where they are kept and the values depend on the set alone (one vertex
        elimination, not the whole graph: only the vertices next to it change), else from
        the graph's."""
        found = kept.get(done)
        if found is not None:
            return found
        if exact:
            for v in inner:
                if done >> v & 1 and (smaller := kept.get(done ^ 1 << v)) is not None:
                    kin, kout = closure.after((smaller.kin, smaller.kout), v)
                    gin, gout, price = list(smaller.gin), list(smaller.gout), list(smaller.price)
                    for k in smaller.kout[v]:  # v's successors' in-edges changed
                        gin[k], price[k] = general(kin[k]), None
                    for i in smaller.kin[v]:  # its predecessors' out-edges
                        gout[i], price[i] = general(kout[i]), None
                    found = _Priced(kin, kout, gin, gout, price)
                    break
        if found is None:
            kin, kout = closure.labels(done)
            gin, gout = [general(row) for row in kin], [general(row) for row in kout]
            found = _Priced(kin, kout, gin, gout, [None] * len(names))
        if len(kept) >= LABELS_KEPT:
            del kept[next(iter(kept))]
        kept[done] = found
        return found

    expanded = [0]  # sets priced so far (the search's expansions and its orders' steps)
    lift = exact and len(inner) > BRACKETING_AFTER.bit_length() - 1

    def prices(done: int) -> Iterator[tuple[int, int]]:
        expanded[0] += 1
        if lift and expanded[0] == BRACKETING_AFTER:  # most searches end long before
            seconds = BRACKETING_SECONDS if budget is None else min(BRACKETING_SECONDS, budget / 4)
            lifted = bracketing_lower_bound(graph, seconds, junction=0)
            if lifted > bound(0):  # else the search goes on as it was
                bounds[0] = lifted
                raise _Lifted
        state = labels(done)
        kin, kout, gin, gout, price = state.kin, state.kout, state.gin, state.gout, state.price
        counted = {v for v in inner if not done >> v & 1 and gin[v] and gout[v]}
        left = rest(done)
        for v in inner:
            if done >> v & 1:
                continue
            fresh = set()
            if gin[v]:  # v's successors gain a general in-edge
                fresh |= {k for k in kout[v] if gout[k]}
            if gout[v]:  # v's predecessors gain a general out-edge
                fresh |= {i for i in kin[v] if gin[i]}
            nxt = done | 1 << v
            bounds[nxt] = owed(nxt, (counted | (fresh & inner_set)) - {v}, left - floor[v])
            if price[v] is None:
                price[v] = closure.price(v, kin, kout)
            yield v, price[v]

    def bound(done: int) -> int:
        if done not in bounds:  # the start
            state = labels(done)
            now = {v for v in inner if state.gin[v] and state.gout[v]}
            bounds[done] = owed(done, now, rest(done))
        return bounds[done]

    orders = [graph.intermediates, graph.intermediates[::-1]] + ([incumbent] if incumbent else [])
    try:
        result = subset_search(graph, prices, bound, orders, budget)
    except _Lifted:
        result = subset_search(graph, prices, bound, orders, budget)
    if exact:
        return result
    # Where all-constant paths join, a label's value depends on the order, not on the set
    # alone (Closure.exact): the set-based prices can be above or below what an order
    # builds, so they prove nothing; the order found is priced as built.
    built = effective_cost(graph, [v for _, v in result.moves])
    return dataclasses.replace(result, cost=built, proven=False, lower_bound=0)


class _Lifted(Exception):
    """The start's bound was lifted (:func:`_connected_search`): the search starts again."""


@dataclasses.dataclass
class _Priced:
    """What the search knows of a set of eliminated vertices (:func:`_connected_search`)."""

    kin: list[dict[int, Any]]  # each vertex's in-edge labels
    kout: list[dict[int, Any]]  # and out-edge labels
    gin: list[bool]  # whether one of them is general
    gout: list[bool]
    price: list[int | None]  # what eliminating each vertex left costs; None: not yet asked
