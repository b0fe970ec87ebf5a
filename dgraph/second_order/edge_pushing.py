"""Edge pushing (Gower & Mello 2012): the Hessian in one reverse sweep over the vertices.

At each vertex ``v``, last to first, the nonlinear edges at ``v`` (symmetric weights
between ``v`` and other vertices, the second partials times the adjoints to begin with)
are pushed onto ``v``'s predecessors through its edge labels, and the weight of ``v``
with itself onto every pair of them. On Dixon's Hessian graph this is vertex elimination
of the pairs ``(v, v̄)`` in reverse evaluation order: ``v``'s forward successors and
``v̄``'s adjoint predecessors are gone by then, so only nonlinear edges are pushed and
no forward or adjoint fill arises; the weights left between inputs are the Hessian's
entries. The expression set spells both halves of every push that its entries need (Bauer's
formula checks each path), for the lower triangle ``i ≥ j`` by default;
``info["mults_written"]`` counts the whole elimination as spelled (every entry;
``info["mults_effective_written"]`` and ``info["adds_written"]`` its other counts) and
``info["mults_symmetric"]`` each push once, as Gower and Mello do
(:mod:`dgraph.second_order.pairs`). Neither bounds the other's lower triangle: sharing
mirrored products saves where the written set spells both, merging a pushed edge with a
created one before multiplying saves where the scheme pushes them apart (17 with mirrors
once against 16 as written, in that module's example); the proven bound is
:mod:`dgraph.second_order.bound`'s.

References
----------
R. M. Gower and M. P. Mello, A new framework for the computation of Hessians, Optim.
Methods Softw. 27(2), 2012, pp. 251-273.
"""

from __future__ import annotations

import dataclasses

from ..core.expressions import ExpressionSet
from ..core.graph import DGraph
from ..elimination.vertex import vertex_elimination
from .pairs import Unit, pair_count, pair_units, vertex_order
from .triangle import lower_triangle

__all__ = ["edge_pushing", "pair_result"]


def pair_result(H: DGraph, units: list[Unit], method: str, lower: bool = True) -> ExpressionSet:
    """Vertex elimination of ``units`` on ``H``, with both counts in its info (and the
    whole elimination's effective mults and adds, what a comparison needs to set a lower
    triangle beside every entry); with ``lower``, its lower triangle
    (:func:`~dgraph.second_order.triangle.lower_triangle`)."""
    order = vertex_order(units)
    count = pair_count(H, units)
    es = vertex_elimination(H, order, method)
    info = {
        **es.info,
        "pairs": [list(u) if u[1] is not None else [u[0]] for u in units],
        "mults_written": count.written,
        "mults_effective_written": es.mults_effective,
        "adds_written": es.adds,
        "mults_symmetric": count.symmetric,
        "unpaired": count.unpaired,
    }
    es = dataclasses.replace(es, info=info)
    return lower_triangle(es) if lower else es


def edge_pushing(H: DGraph, lower: bool = True) -> ExpressionSet:
    """The Hessian of the graph ``H`` is built from (``H = hessian_graph(g)``) by edge
    pushing: pairs ``(v, v̄)`` eliminated in reverse evaluation order; with ``lower``
    (default) the entries ``i ≥ j`` only, as Gower and Mello compute them."""
    return pair_result(H, pair_units(H)[::-1], "edge-pushing", lower)
