"""Vertex elimination on a Hessian graph in mirrored pairs, and what it costs.

Dixon's Hessian graph is symmetric: the mirror map ``σ`` (``u ↔ ū``) sends every edge
``a -> b`` to ``σ(b) -> σ(a)`` with an equal label (:func:`dgraph.core.hessian_graph.mirror`).
Eliminating a forward vertex ``v`` and then its adjoint ``v̄`` keeps the graph symmetric,
and the products of the second step are the mirror images of those of the first, with
equal values, except where both halves meet (Bhowmick & Hovland 2008). With, before the
pair's step, ``P`` the predecessors of ``v`` (``p`` of them), ``s`` its forward
successors, ``t`` its adjoint successors other than ``v̄`` and ``d`` = 1 where the
nonlinear edge ``v -> v̄`` exists:

* eliminating ``v`` costs ``p·(s + t + d)``; eliminating ``v̄`` then costs ``q·p``, ``q``
  its predecessors by then, the ``s + t`` mirrors of ``v``'s successors and, where ``d``,
  ``v``'s ``p`` predecessors: at most ``(s + t + d·p)·p``, less where ``v`` has a nonlinear
  edge to the adjoint ``ū`` of one of its predecessors ``u`` (then ``u -> v̄`` is already
  an edge, and the fill ``u -> v -> v̄`` is added to it before it is multiplied). That is
  the count as written, each product spelled: what the expression set holds;
* the distinct values among them are ``p·(s + t)`` (the forward fill and the nonlinear
  edges pushed one level down; the second step's mirror images are equal), ``d·p`` for
  ``c(v→v̄)·c(i→v)`` and ``d·p(p+1)/2`` for the products of two of ``v``'s in-edges with
  it, one per unordered pair of predecessors (Gower & Mello 2012's diagonal push).

Summed over the pairs, the second count is the symmetric count (fill counted once): the
count of Gower and Mello's scheme, which pushes each nonlinear edge ``{v, u}`` onto each
predecessor of ``v`` and creates the pairs' products apart. It is at most the count as
written of the whole elimination (``q ≥ p`` where ``d``, and ``p·p ≥ p(p+1)/2``), but it
is *not* a lower bound, nor at most the lower triangle as written: where ``u ∈ P`` and
``v -> ū`` (``t`` counts it), the written elimination multiplies the merged weight of
``u -> v̄`` once per predecessor ``k`` of ``v``, for the entry ``(k̄, u)``, where the
scheme spends the push ``c(k→v)·w(v, u)`` and the created product beside it. In
``tests/test_hessian_methods.py``'s example (``t1 = x0 + x1 + x2``, ``sin(t1·x0)``) the
pair ``(t1, t1_bar)`` counts 12 with mirrored products once and 10 in the lower
triangle as written; the whole elimination 17 against 16 (proven lower bound: 6,
:mod:`dgraph.second_order.bound`).

References
----------
S. Bhowmick and P. D. Hovland, A polynomial-time algorithm for detecting directed axial
symmetry in Hessian computational graphs, in *Advances in Automatic Differentiation*,
Springer LNCSE 64, 2008, pp. 91-102. R. M. Gower and M. P. Mello, A new framework for the
computation of Hessians, Optim. Methods Softw. 27(2), 2012, pp. 251-273.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from ..core.graph import DGraph
from ..core.hessian_graph import mirror
from ..elimination.vertex import adjacency_sets, eliminate_in_sets

__all__ = ["PairCount", "Unit", "pair_count", "pair_units", "symmetric_cost", "vertex_order"]

Unit = tuple[str, str | None]  # a forward vertex and its adjoint, or one vertex alone


class PairCount(NamedTuple):
    """Multiplications of a pair elimination: as written and with mirror images once."""

    written: int
    symmetric: int
    unpaired: int  # vertices eliminated without their mirror (counted in full)


def pair_units(H: DGraph) -> list[Unit]:
    """The intermediates of ``H`` as pairs ``(v, v̄)`` in evaluation order of ``v``; a
    vertex whose mirror is no intermediate alone, ``(v, None)``."""
    sigma, adjoints = mirror(H)
    inter = set(H.intermediates)
    units: list[Unit] = []
    for v in H.intermediates:
        bar = sigma.get(v)
        if v in adjoints and bar in inter:
            continue  # taken with its forward vertex
        units.append((v, bar) if bar in inter else (v, None))
    return units


def vertex_order(units: Iterable[Unit]) -> list[str]:
    """The vertex order of ``units``: each forward vertex, then its adjoint."""
    return [v for unit in units for v in unit if v is not None]


def symmetric_cost(
    pred: dict[str, set[str]], succ: dict[str, set[str]], unit: Unit, adjoints: frozenset[str]
) -> int:
    """The distinct products of eliminating ``unit`` now (see the module)."""
    v, bar = unit
    p = len(pred[v])
    if bar is None:
        return p * len(succ[v])
    d = bar in succ[v]
    forward = sum(1 for k in succ[v] if k not in adjoints)
    t = len(succ[v]) - forward - d
    return p * (forward + t) + (p + p * (p + 1) // 2 if d else 0)


def pair_count(H: DGraph, units: Iterable[Unit]) -> PairCount:
    """Eliminate ``units`` structurally: the multiplications as written and symmetric."""
    _, adjoints = mirror(H)
    pred, succ = adjacency_sets(H)
    written = symmetric = unpaired = 0
    for unit in units:
        symmetric += symmetric_cost(pred, succ, unit, adjoints)
        unpaired += unit[1] is None
        for v in unit:
            if v is not None:
                written += eliminate_in_sets(pred, succ, v)
    return PairCount(written, symmetric, unpaired)
