"""Symmetric vertex elimination on Dixon's Hessian graph (Dixon 1991; Bhowmick & Hovland
2008): each forward vertex eliminated together with its adjoint, so the graph stays
symmetric and the fill of the second half mirrors the first's (counted once in
``info["mults_symmetric"]``, :mod:`dgraph.second_order.pairs`). The order is Markowitz's over
the pairs: at each step the pair whose symmetric cost is smallest now, ties to the
earliest in evaluation order.

References
----------
L. C. W. Dixon, Use of automatic differentiation for calculating Hessians and Newton
steps, in *Automatic Differentiation of Algorithms*, SIAM, 1991, pp. 114-125.
S. Bhowmick and P. D. Hovland, A polynomial-time algorithm for detecting directed axial
symmetry in Hessian computational graphs, in *Advances in Automatic Differentiation*,
Springer LNCSE 64, 2008, pp. 91-102.
"""

from __future__ import annotations

from ..core.expressions import ExpressionSet
from ..core.graph import DGraph
from ..core.hessian_graph import mirror
from ..elimination.vertex import adjacency_sets, eliminate_in_sets
from .edge_pushing import pair_result
from .pairs import Unit, pair_units, symmetric_cost

__all__ = ["symmetric", "symmetric_order"]


def symmetric_order(H: DGraph) -> list[Unit]:
    """The pairs of ``H`` in Markowitz order of their symmetric cost."""
    _, adjoints = mirror(H)
    pred, succ = adjacency_sets(H)
    left = pair_units(H)
    order = []
    while left:
        k = min(range(len(left)), key=lambda i: symmetric_cost(pred, succ, left[i], adjoints))
        unit = left.pop(k)
        for v in unit:
            if v is not None:
                eliminate_in_sets(pred, succ, v)
        order.append(unit)
    return order


def symmetric(H: DGraph, lower: bool = True) -> ExpressionSet:
    """The Hessian of the graph ``H`` is built from by symmetric pair elimination in
    Markowitz order over the pairs; with ``lower`` (default) the entries ``i ≥ j`` only."""
    return pair_result(H, symmetric_order(H), "symmetric", lower)
