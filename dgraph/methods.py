"""The accumulation methods by name, and the two things users do with them: accumulate
one (verified) and compare them all.

Every method is a function ``(graph, **options) -> ExpressionSet``; :func:`accumulate`
runs it, times it and verifies the result against Bauer's formula, so no result leaves
this module unchecked.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .core.expressions import ExpressionSet, price
from .core.graph import DGraph
from .dominance.dstar import dstar
from .dominance.umbrella_method import umbrella
from .elimination.labeled import replay
from .elimination.metagraph import edge_optimal
from .elimination.vertex import forward, markowitz, reverse, vertex_elimination
from .elimination.vertex_optimal import vertex_optimal
from .errors import DGraphError, SearchTooLarge
from .faces.greedy import greedy_faces
from .faces.optimal import face_optimal
from .search.best import ANY_ELIMINATION, best
from .search.rank_bound import ANY_ACCUMULATION
from .zhou.factorize import zhou
from .zhou.layers import layers
from .zhou.listing import list_paths

__all__ = [
    "COMPARED",
    "METHODS",
    "Comparison",
    "MethodSpec",
    "accumulate",
    "compare",
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


@dataclass
class Comparison:
    """Every compared method's result (or why it was skipped) and the cheapest verified."""

    graph: DGraph
    results: dict[str, ExpressionSet] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)

    @property
    def cheapest(self) -> ExpressionSet | None:
        """The cheapest verified result, as ``best`` ranks: fewest effective, then
        structural multiplications, then the earliest in the table."""
        verified = [es for es in self.results.values() if es.verified]
        return min(verified, key=price) if verified else None

    @property
    def best(self) -> str | None:
        """The method of :attr:`cheapest`."""
        cheapest = self.cheapest
        return None if cheapest is None else cheapest.method

    @property
    def lower_bound(self) -> tuple[int, str] | None:
        """The lower bound of the most general search that ran, and what it bounds: an
        edge-elimination bound also bounds vertex elimination, not the other way round."""
        families = {
            "best": None,
            "edge-optimal": "edge elimination (structural mults)",
            "vertex-optimal": "vertex elimination (structural mults)",
        }
        for method, family in families.items():
            es = self.results.get(method)
            if es is not None and es.info.get("lower_bound"):
                return es.info["lower_bound"], es.info.get("lower_bound_for") or family
        return None

    @property
    def effective_lower_bound(self) -> int | None:
        """Effective multiplications every accumulation needs (``best``'s rank bound)."""
        es = self.results.get("best")
        return None if es is None else es.info["lower_bounds"].get(ANY_ACCUMULATION)

    @property
    def elimination_lower_bound(self) -> int | None:
        """Effective multiplications every elimination — every method here — needs
        (``best``'s junction bound: :mod:`dgraph.search.junction_bounds`)."""
        es = self.results.get("best")
        return None if es is None else es.info["lower_bounds"].get(ANY_ELIMINATION)

    def rows(self) -> list[dict[str, Any]]:
        """Per method: its summary, ``gap``, its structural mults minus those of the
        cheapest verified result (:attr:`cheapest`; negative: fewer structural but more
        effective multiplications), and ``to_bound``, its distance from the lower bound
        (negative: a method outside the family the bound covers, such as D* below a
        vertex-elimination bound)."""
        cheapest = self.cheapest
        bound = self.lower_bound
        rows = [
            {
                **es.summary(),
                "gap": es.mults - cheapest.mults if cheapest is not None else None,
                "to_bound": es.mults - bound[0] if bound else None,
            }
            for es in self.results.values()
        ]
        rows += [{"method": m, "skipped": why} for m, why in self.skipped.items()]
        return rows

    def to_dict(self) -> dict[str, Any]:
        from .core.paths import naive_cost

        bound = self.lower_bound
        return {
            "methods": self.rows(),
            "best": self.best,
            "naive_mults": naive_cost(self.graph),
            "lower_bound": bound[0] if bound else None,
            "lower_bound_for": bound[1] if bound else None,
            "effective_lower_bound": self.effective_lower_bound,
            "elimination_lower_bound": self.elimination_lower_bound,
        }

    def _repr_html_(self) -> str:
        from .render.notebook import comparison_html

        return comparison_html(self)

    def _repr_markdown_(self) -> str:
        from .render.notebook import comparison_markdown

        return comparison_markdown(self)


def compare(
    graph: DGraph,
    methods: list[str] | None = None,
    budget: float | None = None,
    seed: int = 0,
) -> Comparison:
    """Run ``methods`` (default: :data:`COMPARED`); exact ones too large are skipped.
    ``best`` runs last, the other results among its candidates, so it is never more
    expensive than any of them; the rows keep the order of ``methods``."""
    names = list(dict.fromkeys(methods or COMPARED))
    comparison = Comparison(graph)
    for name in sorted(names, key=lambda name: name == "best"):
        options: dict[str, Any] = {"budget": budget}
        if name == "best":
            options.update(seed=seed, candidates=list(comparison.results.values()))
        try:
            comparison.results[name] = accumulate(graph, name, **options)
        except SearchTooLarge as exc:
            comparison.skipped[name] = str(exc)
    comparison.results = {n: comparison.results[n] for n in names if n in comparison.results}
    comparison.skipped = {n: comparison.skipped[n] for n in names if n in comparison.skipped}
    return comparison
