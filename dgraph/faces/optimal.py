"""``face-optimal``: the cheapest face elimination, by A* over line-graph states.

Vertex and edge eliminations are face eliminations in chunks, so the optimum found here
is at most ``edge-optimal`` and ``vertex-optimal`` (Naumann 2003; Griewank–Walther
§9.2). States are compared by the segments every vertex holds, so two orders reaching
the same line graph meet. Every face elimination costs one multiplication; each graph
vertex at which some face is left needs at least one more, and so does every cut left
on a path: the larger count is the admissible (and consistent) bound. It is weak, so
the search is exact only for small line graphs (``FACE_LIMIT`` faces); beyond that,
with ``--budget``, it starts from the cheaper of Markowitz and edge-optimal and returns
the best found with its lower bound.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

from ..core.expressions import ExpressionSet, Step
from ..core.graph import DGraph
from ..elimination.metagraph import edge_optimal
from ..elimination.search import astar
from ..elimination.vertex import markowitz_order
from ..errors import SearchTooLarge
from .elimination import FaceState
from .line_graph import intermediate_faces, line_graph

__all__ = ["FACE_LIMIT", "face_optimal"]

FACE_LIMIT = 8  # intermediate faces beyond which face-optimal refuses without a budget

Content = frozenset[tuple[int, int, int]]
Move = tuple[Content, Content]


class _Node:
    """A search state: a structural face state, equal to another with the same key."""

    __slots__ = ("key", "state")

    def __init__(self, state: FaceState) -> None:
        self.state, self.key = state, state.key()

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Node) and self.key == other.key


def _contents(state: FaceState) -> dict[int, Content]:
    out: dict[int, set[tuple[int, int, int]]] = {}
    for w, (vs, ivs) in enumerate(zip(state.seq, state.ivs, strict=True)):
        for v, (lo, hi) in zip(vs[1:-1], ivs[1:-1], strict=True):
            out.setdefault(v, set()).add((w, lo, hi))
    return {v: frozenset(c) for v, c in out.items()}


def _expand(node: _Node) -> Iterator[tuple[Move, int, _Node]]:
    contents = _contents(node.state)
    for i, j in node.state.faces():
        nxt = node.state.copy()
        nxt.eliminate(i, j)
        yield (contents[i], contents[j]), 1, _Node(nxt)


def _bound(node: _Node) -> int:
    """Each vertex with faces left needs an elimination there; each path needs one per
    cut left, and an elimination removes at most one cut from a path."""
    state = node.state
    junctions = len({state.span[i][1] for i, _ in state.faces()})
    cuts = max((len(s) - 3 for s in state.seq), default=0)
    return max(junctions, cuts)


def _replay(graph: DGraph, moves: list[Move], info: dict) -> ExpressionSet:
    state = FaceState(graph)
    for first, second in moves:
        by_content = {c: v for v, c in _contents(state).items()}
        state.eliminate(by_content[first], by_content[second])
    es = state.result("face-optimal", info)
    return es


def _as_faces(graph: DGraph, steps: list[Step]) -> tuple[int, list[Move]]:
    """A vertex or edge elimination sequence as face moves, and its cost."""
    state, moves = FaceState(graph, symbolic=False), []
    for step in steps:
        for i, j in state.step_faces(step.op, step.target):
            contents = _contents(state)
            moves.append((contents[i], contents[j]))
            state.eliminate(i, j)
    return state.mults, moves


def _incumbent(graph: DGraph, budget: float | None) -> tuple[int, list[Move]]:
    """The cheaper of Markowitz and edge-optimal (within half the budget), as faces."""
    candidates = [_as_faces(graph, [Step("vertex", v, 0) for v in markowitz_order(graph)])]
    with contextlib.suppress(SearchTooLarge):
        share = None if budget is None else budget / 2
        candidates.append(_as_faces(graph, edge_optimal(graph, budget=share).steps))
    return min(candidates, key=lambda c: c[0])


def face_optimal(graph: DGraph, budget: float | None = None) -> ExpressionSet:
    """The cheapest face elimination sequence, as an expression set (``info``: optimal,
    lower_bound, states).

    >>> from dgraph.core.builders import bundled
    >>> es = face_optimal(bundled("naumann_sin.trace"))
    >>> es.mults, es.info["optimal"]
    (3, True)
    """
    faces = len(intermediate_faces(line_graph(graph)))
    if faces > FACE_LIMIT and budget is None:
        raise SearchTooLarge(
            f"face-optimal: {graph.name or 'the graph'} has {faces} intermediate faces, more"
            f" than {FACE_LIMIT}; pass --budget SECONDS to search anyway for the best found"
        )
    t0 = time.perf_counter()
    incumbent = _incumbent(graph, budget)
    left = None if budget is None else max(0.0, budget - (time.perf_counter() - t0))
    start = _Node(FaceState(graph, symbolic=False))
    result = astar(
        start, _expand, lambda n: not n.state.faces(), _bound, incumbent=incumbent, budget=left
    )
    es = _replay(graph, result.moves, result.info("face elimination"))
    return es
