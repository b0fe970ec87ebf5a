"""Greedy face elimination: the cheapest face first, by effective multiplications.

Face elimination (Naumann 2003) is finer than vertex and edge elimination: one product
at a time, wherever the line graph allows it. The greedy rule takes, at every step, the
face whose product is free (a unit factor) over one that costs a multiplication, then a
face whose product goes into an existing vertex (absorption, no fill-in), then one whose
elimination removes a vertex, ties by evaluation order or at random. ``best`` runs it
with both tie-breaks and random restarts.
"""

from __future__ import annotations

import random

from ..core.expressions import ExpressionSet
from ..core.graph import DGraph
from .elimination import Face, FaceState, check_path_limit

__all__ = ["greedy_faces"]


def _score(state: FaceState, face: Face) -> tuple[int, bool, int]:
    i, j = face
    removed = (len(state.succ[i]) == 1) + (len(state.pred[j]) == 1)
    return state.effective_cost(i, j), not state.absorbs(i, j), -removed


def greedy_faces(
    graph: DGraph, tie: str = "forward", rng: random.Random | None = None
) -> ExpressionSet:
    """Face elimination by the greedy rule until no intermediate face is left.

    >>> from dgraph.frontends import bundled
    >>> es = greedy_faces(bundled("naumann_sin.trace"), "reverse")
    >>> es.mults, bool(es.verify())
    (3, True)
    """
    check_path_limit(graph, "face-greedy")
    state = FaceState(graph)
    position = {v: k for k, v in enumerate(graph.order())}
    sign = 1 if tie == "forward" else -1

    def key(face: Face) -> tuple:
        jitter = rng.random() if rng is not None else 0.0
        return (*_score(state, face), jitter, sign * position[state.span[face[0]][1]])

    while faces := state.faces():
        state.eliminate(*min(faces, key=key))
    info = {"tie": tie if rng is None else "random", "effective_faces": state.mults_effective}
    return state.result("face-greedy", info)
