"""``face-optimal``: the cheapest face elimination, by A* over line-graph states.

Vertex and edge eliminations are face eliminations in chunks, so the optimum found here
is at most ``edge-optimal`` and ``vertex-optimal`` (Naumann 2004; Griewank–Walther
§9.2). A state is the segments every line-graph vertex holds
(:mod:`dgraph.faces.compact`), so two orders reaching the same line graph meet in one
entry of the table; every face elimination costs one multiplication. The bound is the
fewest (s, r, t) triples through which every path, as the state has cut it, can still be
bracketed (:mod:`dgraph.faces.bound`): each elimination is one such triple. It is exact
at the start on the papers' examples (13 on Naumann's discrepancy graph), so the search
goes nearly straight down: exact without a budget up to ``FACE_LIMIT`` intermediate
faces. The incumbent is the cheaper of Markowitz's vertex order and a dive guided by the
bound (:meth:`_Search.dive`).

With ``budget`` (seconds) ``edge-optimal`` gets half of it, by its own rules, and its
result joins the incumbents (on spherical coordinates, 26 faces, it is the best known,
28); the face search stops after ``budget / 2 * UNITS_PER_SECOND`` units of work
(generated states and the bound's branch-and-bound nodes, :class:`dgraph.faces.bound.Work`)
— a count, so its part of the result is the same on any machine — or, as a safety net,
at its time ceiling (:func:`dgraph.core.budget.ceiling_for`: three times the budget plus
the slack, of CPU time, with a wall-clock backstop), which ``info["cut_by_time"]`` reports
(and ``info["cut_by"]``, which clock); it returns the best found with its lower bound.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import time
from collections.abc import Iterator
from dataclasses import dataclass

from ..core.budget import Deadline, ceiling_for
from ..core.expressions import ExpressionSet, Step
from ..core.graph import DGraph
from ..core.provenance import Bound
from ..elimination.metagraph import edge_optimal
from ..elimination.vertex import markowitz_order
from ..errors import SearchTooLarge
from .bound import OutOfWork, TripleBound, Work, root_bound
from .compact import Content, FaceGraph, Key, Move
from .elimination import FaceState, check_path_limit
from .line_graph import intermediate_faces, line_graph

__all__ = ["FACE_LIMIT", "UNITS_PER_SECOND", "face_optimal"]

FACE_LIMIT = 14  # intermediate faces up to which face-optimal is exact without a budget
# units of work (generated states, branch-and-bound nodes) per second of --budget: about
# a second of wall-clock time a second of budget on a loaded 2-core machine
UNITS_PER_SECOND = 700_000


@dataclass
class _Result:
    moves: list[Move]
    cost: int
    proven: bool
    lower_bound: int
    states: int
    expanded: int


class _Search:
    """A* with the bracketing bound (pathmax where the bound drops by more than a move);
    every generated state and branch-and-bound node is spent from ``work``."""

    def __init__(self, graph: DGraph, work: Work) -> None:
        self.fg = FaceGraph(graph)
        self.work = work
        self.bound = TripleBound(work)
        self._h: dict[Key, int] = {}

    def h(self, key: Key) -> int:
        if key not in self._h:
            self._h[key] = self.bound(self.fg.cuts(key))
        return self._h[key]

    def known_bound(self, key: Key) -> int:
        """The bound of ``key`` if computed, else the weak one (no search)."""
        return self._h[key] if key in self._h else root_bound(self.fg.cuts(key))

    def expand(self, key: Key) -> Iterator[tuple[Move, Key]]:
        size = 1 + sum(map(len, key)) // 8  # segments: what generating a state costs
        for move, nxt in self.fg.expand(key):
            self.work.spend(size)
            yield move, nxt

    def dive(self) -> tuple[int, list[Move]]:
        """An incumbent: from each state, the first face whose state's bound is one less
        (never less: :mod:`dgraph.faces.bound`), else the one with the smallest; faces
        whose triple is in a cheapest bracketing of the state come first."""
        key, moves = self.fg.start(), []
        while (h := self.h(key)) > 0:
            guide = self.bound.triples(self.fg.cuts(key))
            best = None
            for move, nxt in sorted(self.expand(key), key=lambda c: self._rank(c[0], guide)):
                if best is None or self.h(nxt) < best[0]:
                    best = (self.h(nxt), move, nxt)
                if best[0] == h - 1:
                    break
            _, move, key = best
            moves.append(move)
        return len(moves), moves

    def _rank(self, move: Move, guide: frozenset[tuple[int, int, int]]) -> tuple[bool, int]:
        first, second = move
        s, r = self.fg.span(min(first))
        t = self.fg.span(min(second))[1]
        ends = {w: hi for w, _, hi in first}
        through = sum(ends.get(w) == lo for w, lo, _ in second)
        return (s, r, t) not in guide, -through

    def run(self, incumbent: tuple[int, list[Move]]) -> _Result:
        """A* from the start to the cheapest finished state, or until the work runs out
        (then the incumbent, with the smallest f left open as the lower bound)."""
        start = self.fg.start()
        best_cost, best_moves = incumbent
        g_best: dict[Key, int] = {start: 0}
        parent: dict[Key, tuple[Key, Move]] = {}
        tie = itertools.count()
        heap = [(self.h(start), 0, next(tie), start)]
        goal, stopped, expanded = None, False, 0
        while heap:
            f, neg_g, _, key = heapq.heappop(heap)
            g = -neg_g
            if f >= best_cost:  # nothing left can beat the incumbent: it is optimal
                break
            if g > g_best[key]:  # a stale entry
                continue
            if self.h(key) == 0:
                best_cost, goal = g, key
                break
            expanded += 1
            try:
                for move, nxt in self.expand(key):
                    g2 = g + 1
                    if g2 < g_best.get(nxt, g2 + 1):
                        f2 = max(g2 + self.h(nxt), f)
                        g_best[nxt] = g2
                        parent[nxt] = (key, move)
                        if f2 < best_cost:
                            heapq.heappush(heap, (f2, -g2, next(tie), nxt))
            except OutOfWork:
                heapq.heappush(heap, (f, neg_g, next(tie), key))
                stopped = True
                break
        if goal is not None:
            best_moves = []
            while goal != start:
                goal, move = parent[goal]
                best_moves.append(move)
            best_moves.reverse()
        lower = min(heap[0][0], best_cost) if stopped and heap else best_cost
        return _Result(best_moves, best_cost, not stopped, lower, len(g_best), expanded)


def _contents(state: FaceState) -> dict[int, Content]:
    out: dict[int, set[tuple[int, int, int]]] = {}
    for w, (vs, ivs) in enumerate(zip(state.seq, state.ivs, strict=True)):
        for v, (lo, hi) in zip(vs[1:-1], ivs[1:-1], strict=True):
            out.setdefault(v, set()).add((w, lo, hi))
    return {v: frozenset(c) for v, c in out.items()}


def _replay(graph: DGraph, moves: list[Move], info: dict) -> ExpressionSet:
    state = FaceState(graph)
    for first, second in moves:
        by_content = {c: v for v, c in _contents(state).items()}
        state.eliminate(by_content[first], by_content[second])
    return state.result("face-optimal", info)


def _as_faces(graph: DGraph, steps: list[Step]) -> tuple[int, list[Move]]:
    """A vertex or edge elimination sequence as face moves, and its cost."""
    state, moves = FaceState(graph, symbolic=False), []
    for step in steps:
        for i, j in state.step_faces(step.op, step.target):
            contents = _contents(state)
            moves.append((contents[i], contents[j]))
            state.eliminate(i, j)
    return state.mults, moves


def _solve(search: _Search, incumbent: tuple[int, list[Move]]) -> _Result:
    """The dive, then A*; where the work runs out before A* starts, the incumbent with
    the start's bound (the weak one if even that was not finished)."""
    start = search.fg.start()
    try:
        search.h(start)
        incumbent = min(search.dive(), incumbent, key=lambda c: c[0])
        return search.run(incumbent)
    except OutOfWork:
        lower = search.known_bound(start)
        return _Result(incumbent[1], incumbent[0], False, min(lower, incumbent[0]), 0, 0)


def face_optimal(
    graph: DGraph, budget: float | None = None, units_per_second: int = UNITS_PER_SECOND
) -> ExpressionSet:
    """The cheapest face elimination sequence, as an expression set (``info``: optimal,
    lower_bound, states, expanded, work; with a budget, cut_by_time).

    Without ``budget`` it is exact, and refuses graphs with more than ``FACE_LIMIT``
    intermediate faces; with one, edge-optimal gets half of it and the search stops after
    ``budget / 2 * units_per_second`` units of work (default :data:`UNITS_PER_SECOND`),
    returning the best found.

    >>> from dgraph.frontends import bundled
    >>> es = face_optimal(bundled("naumann_discrepancy.json"))
    >>> es.mults, es.info["optimal"]
    (13, True)
    """
    faces = len(intermediate_faces(line_graph(graph)))
    if faces > FACE_LIMIT and budget is None:
        raise SearchTooLarge(
            f"face-optimal: {graph.name or 'the graph'} has {faces} intermediate faces; it is"
            f" exact without a budget up to {FACE_LIMIT}: pass --budget SECONDS to search"
            " anyway for the best found"
        )
    check_path_limit(graph, "face-optimal")
    t0 = time.perf_counter()
    work = Work()
    incumbent = _as_faces(graph, [Step("vertex", v, 0) for v in markowitz_order(graph)])
    if budget is not None:
        ceiling = Deadline(ceiling_for(budget))
        with contextlib.suppress(SearchTooLarge):  # half the budget: edge-optimal's best
            edges = _as_faces(graph, edge_optimal(graph, budget=budget / 2).steps)
            incumbent = min(incumbent, edges, key=lambda c: c[0])
        work = Work(int(budget / 2 * units_per_second), ceiling)
    result = _solve(_Search(graph, work), incumbent)
    info = {
        "optimal": result.proven,
        "lower_bound": result.lower_bound,
        "states": result.states,
        "expanded": result.expanded,
        "work": work.spent,
        "search_seconds": round(time.perf_counter() - t0, 3),
        "bounds": (Bound(int(result.lower_bound), "face elimination"),),
    }
    if budget is not None:
        info["cut_by_time"] = work.by_time
        if work.cut_by is not None:
            info["cut_by"] = work.cut_by
    return _replay(graph, result.moves, info)
