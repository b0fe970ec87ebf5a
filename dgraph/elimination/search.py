"""A* over elimination states with an admissible bound, an incumbent and a work budget.

Shared by the exact vertex and edge searches: with a consistent lower bound the first
goal popped is optimal; nodes whose bound reaches the incumbent's cost are pruned. When
the budget runs out the incumbent is returned, marked unproven, with the best lower
bound known (the smallest bound left in the queue). The budget is given in seconds, as
users know it, but spent as a count of work: each second buys :data:`MOVES_PER_SECOND`
moves priced (a state's expansion prices every move out of it), so the same graph and
budget give the same result on every machine, however loaded; the clock only says how
long it took (``seconds``). Vertex elimination searches the sets
of eliminated vertices (:func:`subset_search`), priced in any label algebra.

References: U. Naumann, "Optimal accumulation of Jacobian matrices by elimination
methods on the dual computational graph", Math. Program. 99 (2004) 399–421.
"""

from __future__ import annotations

import heapq
import itertools
import time
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass

from ..core.graph import DGraph
from ..core.provenance import Bound
from ..errors import InputError, SearchTooLarge

__all__ = [
    "MOVES_PER_SECOND",
    "SearchResult",
    "astar",
    "check_order",
    "check_size",
    "check_start",
    "moves_for",
    "subset_search",
]

# moves priced (children generated) per second of budget: a budget of S seconds takes
# about S seconds or less when idle, twice that at worst when loaded (measured:
# benchmarks/RESULTS.md, "figures moved from docstrings")
MOVES_PER_SECOND = 50_000
# a move's price grows with the graph (its state is a bitmask per vertex): the rate holds
# for graphs of this many vertices, and a larger graph's move counts as size / this many
REFERENCE_SIZE = 60
# what a search's start costs per second, in intermediates x (vertices + edges + starting
# orders x intermediates): the bound's cuts are a max-flow per intermediate, and each step
# of a starting order prices every vertex left. A budgeted search whose start alone costs
# more than its budget refuses
START_PER_SECOND = 100_000

# the price of every vertex left after eliminating a set (a bitmask over graph.order())
Prices = Callable[[int], Iterable[tuple[int, int]]]


@dataclass
class SearchResult:
    """The best sequence of moves found, its cost, and how sure we are of it."""

    moves: list
    cost: int
    proven: bool
    lower_bound: int
    states: int
    seconds: float
    solver: str = "A*"  # what searched: the A*, or CP-SAT (the constraint program)

    def info(self, family: str | None = None) -> dict:
        """The result's ``info``; with the ``family`` of accumulations searched, its lower
        bound typed (:class:`dgraph.core.provenance.Bound`)."""
        data = {
            "optimal": self.proven,
            "lower_bound": self.lower_bound,
            "states": self.states,
            "search_seconds": round(self.seconds, 3),
            "solver": self.solver,
        }
        if family is not None:
            data["bounds"] = (Bound(int(self.lower_bound), family),)
        return data


def astar(
    start: Hashable,
    expand: Callable[[Hashable], Iterable[tuple[object, int, Hashable]]],
    is_goal: Callable[[Hashable], bool],
    bound: Callable[[Hashable], int],
    incumbent: tuple[int, list] | None = None,
    budget: float | None = None,
    max_states: int = 5_000_000,
    size: int = 0,
    max_expansions: int | None = None,
) -> SearchResult:
    """Cheapest move sequence from ``start`` to a goal.

    ``expand(state)`` yields ``(move, cost, next_state)``; ``bound`` must be admissible
    (never above the cheapest completion); where it drops by more than a move costs, the
    child inherits its parent's f (pathmax) and a cheaper path reopens a state.
    ``incumbent`` is a known ``(cost, moves)``; when the budget (seconds, spent as
    :func:`moves_for` moves priced) or ``max_states`` is exhausted it is what comes back,
    unproven. ``size`` is the graph's vertex count: beyond :data:`REFERENCE_SIZE` each
    move counts for more.

    Raises
    ------
    SearchTooLarge
        Where ``max_expansions`` (None: no limit) states have been expanded and the
        search is not finished: the work counted, so the same graph refuses on every
        machine.
    """
    t0 = time.perf_counter()
    limit = moves_for(budget, size)
    priced = 0
    best_cost, best_moves = incumbent if incumbent else (float("inf"), [])
    g_best: dict[Hashable, int] = {start: 0}
    parent: dict[Hashable, tuple[Hashable, object]] = {}
    tie = itertools.count()
    heap = [(bound(start), 0, next(tie), start)]
    found_goal = None
    exhausted = False
    expanded = 0
    while heap:
        f, neg_g, _, state = heapq.heappop(heap)
        g = -neg_g
        if f >= best_cost:  # nothing left can beat the incumbent: it is optimal
            break
        if g > g_best[state]:  # a stale queue entry
            continue
        if is_goal(state):
            best_cost, found_goal = g, state
            break
        if (limit is not None and priced >= limit) or len(g_best) > max_states:
            heapq.heappush(heap, (f, neg_g, next(tie), state))
            exhausted = True
            break
        if max_expansions is not None and expanded >= max_expansions:
            raise SearchTooLarge(
                f"more than {max_expansions} states to expand before the optimum is proven"
            )
        expanded += 1
        for move, cost, nxt in expand(state):
            priced += 1
            g2 = g + cost
            if g2 < g_best.get(nxt, g2 + 1):
                g_best[nxt] = g2
                parent[nxt] = (state, move)
                f2 = max(g2 + bound(nxt), f)
                if f2 < best_cost:
                    heapq.heappush(heap, (f2, -g2, next(tie), nxt))
    seconds = time.perf_counter() - t0
    if found_goal is not None:
        moves = []
        state = found_goal
        while state != start:
            state, move = parent[state]
            moves.append(move)
        best_moves = moves[::-1]
    if best_cost == float("inf"):
        raise RuntimeError("search found no complete elimination and had no incumbent")
    lower = min(heap[0][0], best_cost) if exhausted and heap else best_cost
    return SearchResult(best_moves, int(best_cost), not exhausted, int(lower), len(g_best), seconds)


def moves_for(budget: float | None, size: int = 0) -> int | None:
    """The moves a budget of ``budget`` seconds buys on a graph of ``size`` vertices
    (None: no limit); at least one."""
    if budget is None:
        return None
    return max(1, int(budget * MOVES_PER_SECOND * REFERENCE_SIZE / max(size, REFERENCE_SIZE)))


def check_start(graph: DGraph, budget: float | None, orders: int, who: str) -> None:
    """Refuse a budgeted search whose start (the bound's cuts, pricing ``orders`` starting
    orders) alone costs more than ``budget`` (:data:`START_PER_SECOND`): counted, so the
    same graph and budget refuse on every machine."""
    p = len(graph.intermediates)
    start = p * (len(graph.order()) + graph.nx.number_of_edges() + orders * p)
    if budget is not None and start > budget * START_PER_SECOND:
        raise SearchTooLarge(
            f"{who}: {p} intermediate vertices: its start alone (the bound's cuts, the"
            f" starting orders priced) needs a budget of {start / START_PER_SECOND:.1f} s"
            " or more"
        )


def check_size(graph: DGraph, budget: float | None, limit: int, who: str) -> None:
    """Refuse an exhaustive vertex search beyond ``limit`` intermediates without a budget."""
    p = len(graph.intermediates)
    if p > limit and budget is None:
        raise SearchTooLarge(
            f"{who}: {p} intermediate vertices exceed the exhaustive limit of {limit};"
            " pass --budget SECONDS to search anyway for the best found"
        )


def check_order(graph: DGraph, order: Iterable[str], who: str) -> list[str]:
    """``order`` as a list, refused unless it eliminates every intermediate of ``graph``
    exactly once: a search prices a starting order as an upper bound on the optimum, and
    an order that skips vertices costs less than any complete one (a false proof).

    Raises
    ------
    InputError
        Where a vertex is missing, repeated or not an intermediate.
    """
    order = list(order)
    inner = set(graph.intermediates)
    seen: set[str] = set()
    repeated = [v for v in order if v in seen or seen.add(v)]
    problems = [
        (what, names)
        for what, names in (
            ("missing", [v for v in graph.intermediates if v not in seen]),
            ("repeated", sorted(set(repeated))),
            ("not intermediates", sorted(seen - inner)),
        )
        if names
    ]
    if problems:
        said = "; ".join(
            f"{what}: {', '.join(map(str, names[:5]))}"
            + (f" and {len(names) - 5} more" if len(names) > 5 else "")
            for what, names in problems
        )
        raise InputError(
            f"{who}: an order must eliminate each of the {len(inner)} intermediates"
            f" exactly once ({said})"
        )
    return order


def subset_search(
    graph: DGraph,
    prices: Prices,
    bound: Callable[[int], int],
    orders: Iterable[list[str]],
    budget: float | None,
    max_expansions: int | None = None,
) -> SearchResult:
    """The cheapest vertex elimination order, by A* over the sets of eliminated vertices.

    After eliminating a set S the graph does not depend on the order: i -> k exists iff
    a path from i to k has all its inner vertices in S, and its label is the sum of those
    paths' products, so in any label algebra the price of the next elimination depends
    on S alone (Bischof's dynamic program, Naumann 1999, §3). ``prices(S)`` gives (index in
    ``graph.order()``, price) for every intermediate left, ``bound(S)`` an admissible
    bound on the rest; the cheapest of ``orders``, priced by ``prices`` too, is the
    incumbent (the first of equals). ``max_expansions``: as :func:`astar`'s.
    """
    names = graph.order()
    index = {v: i for i, v in enumerate(names)}
    full = sum(1 << index[v] for v in graph.intermediates)
    orders = [check_order(graph, o, "search") for o in orders]

    def expand(done: int) -> Iterable[tuple[object, int, int]]:
        for v, cost in prices(done):
            yield ("vertex", names[v]), cost, done | 1 << v

    def priced(order: list[str]) -> int:
        done = total = 0
        for v in order:
            total += dict(prices(done))[index[v]]
            done |= 1 << index[v]
        return total

    cost, order = min(((priced(o), o) for o in orders), key=lambda c: c[0])
    incumbent = (cost, [("vertex", v) for v in order])
    return astar(
        0,
        expand,
        lambda done: done == full,
        bound,
        incumbent,
        budget,
        size=len(names),
        max_expansions=max_expansions,
    )
