"""The accumulation methods by name, and :func:`accumulate`, which runs one and verifies
its result.

Every method is a function ``(graph, **options) -> ExpressionSet``; :func:`accumulate`
runs it, times it and verifies the result against Bauer's formula, so no result leaves
this module unchecked.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..core.expressions import ExpressionSet
from ..core.graph import DGraph
from ..dominance.dstar import dstar
from ..dominance.umbrella_method import umbrella
from ..elimination.labeled import replay
from ..elimination.metagraph import edge_optimal
from ..elimination.vertex import forward, markowitz, reverse, vertex_elimination
from ..elimination.vertex_optimal import vertex_optimal
from ..errors import DGraphError
from ..faces.greedy import greedy_faces
from ..faces.optimal import face_optimal
from ..search.best import best
from ..zhou.factorize import zhou
from ..zhou.layers import layers
from ..zhou.listing import list_paths

__all__ = [
    "COMPARED",
    "METHODS",
    "MethodSpec",
    "accumulate",
    "method_names",
    "register",
]


@dataclass(frozen=True)
class MethodSpec:
    """A named accumulation method; ``exact`` ones search and honour ``budget``."""

    name: str
    run: Callable[..., ExpressionSet]
    exact: bool = False
    summary: str = ""


METHODS: dict[str, MethodSpec] = {}


def register(name: str, run: Callable[..., ExpressionSet], exact: bool = False, summary: str = ""):
    METHODS[name] = MethodSpec(name, run, exact, summary)


def _vertex(graph: DGraph, order=None, **_: Any) -> ExpressionSet:
    if order is None:
        raise DGraphError("method 'vertex' needs an elimination order (--order v1,v2,...)")
    return vertex_elimination(graph, order)


def _edges(graph: DGraph, sequence=None, **_: Any) -> ExpressionSet:
    if sequence is None:
        raise DGraphError("method 'edges' needs a sequence (--order f:i>j,b:k>l,...)")
    return replay(graph, sequence, "edges")


register("forward", lambda g, **_: forward(g), summary="vertex elimination in evaluation order")
register("reverse", lambda g, **_: reverse(g), summary="vertex elimination in reverse order")
register("markowitz", lambda g, **_: markowitz(g), summary="greedy smallest Markowitz degree")
register(
    "vertex-optimal",
    lambda g, budget=None, **_: vertex_optimal(g, budget),
    exact=True,
    summary="optimal vertex elimination order (A* over eliminated sets)",
)
register(
    "edge-optimal",
    lambda g, budget=None, metagraph="full", **_: edge_optimal(g, metagraph, budget),
    exact=True,
    summary="shortest path in the edge-elimination metagraph",
)
register(
    "zhou",
    lambda g, strategy="auto", variant="best", pairs=None, **_: zhou(g, strategy, variant, pairs),
    summary="simple chains and blocks, then forward/backward factorization, pages",
)
register(
    "layers",
    lambda g, cuts=None, **_: layers(g, cuts),
    summary="local Jacobians between depth levels (or cuts), cheapest bracketing",
)
register(
    "dstar",
    lambda g, **_: dstar(g),
    summary="D*: factor subgraphs by dominators, most shared first (Guenter)",
)
register(
    "umbrella",
    lambda g, **_: umbrella(g),
    summary="umbrellas contracted inside out (dominator trees), then the rest",
)
register(
    "best",
    lambda g, budget=None, seed=0, candidates=(), **_: best(g, budget, seed, candidates),
    summary="the cheapest verified result of a portfolio of exact and heuristic searches",
)
register(
    "face-optimal",
    lambda g, budget=None, **_: face_optimal(g, budget),
    exact=True,
    summary="the cheapest face elimination (A* over line-graph states)",
)
register(
    "face-greedy",
    lambda g, **_: greedy_faces(g),
    summary="greedy face elimination: free products first, then absorbing ones",
)
register("paths", lambda g, **_: list_paths(g), summary="every path listed: Bauer's formula")
register("vertex", _vertex, summary="vertex elimination in a given order")
register("edges", _edges, summary="forward/backward edge elimination in a given sequence")

COMPARED = [
    "forward",
    "reverse",
    "markowitz",
    "zhou",
    "layers",
    "dstar",
    "umbrella",
    "vertex-optimal",
    "edge-optimal",
    "best",
]


def method_names() -> list[str]:
    return list(METHODS)


def accumulate(
    graph: DGraph, method: str = "markowitz", *, verify: bool = True, **options: Any
) -> ExpressionSet:
    """Accumulate the Jacobian of ``graph`` by ``method`` and verify the result.

    >>> from dgraph.core.builders import bundled
    >>> g = bundled("naumann_sin.trace")
    >>> es = accumulate(g, "reverse")
    >>> es.mults, es.verified
    (3, True)
    """
    spec = METHODS.get(method)
    if spec is None:
        raise DGraphError(f"unknown method {method!r}; available: {', '.join(METHODS)}")
    t0 = time.perf_counter()
    es = spec.run(graph, **options)
    seconds = round(time.perf_counter() - t0, 4)
    # the same expressions with their time; best's winner keeps the verification it got
    # within its budget
    es = es._relabeled(es.method, {**es.info, "seconds": seconds})
    if verify and not es.verified:
        es.verify()
    return es
