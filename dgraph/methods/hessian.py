"""Hessians by name: :func:`accumulate_hessian` and :func:`compare_hessian` run the Hessian
methods (:mod:`dgraph.second_order`) and any Jacobian method on Dixon's Hessian graph
(:func:`dgraph.core.hessian_graph.hessian_graph`), whose Jacobian is the Hessian, and
verify every result as :func:`dgraph.accumulate` does.

Counts: ``mults`` is what the expression set spells (Bauer's formula checks every
product of it): the lower triangle for edge pushing and symmetric elimination, every
entry for forward-over-reverse and the Jacobian methods; the pair eliminations also give
``info["mults_symmetric"]``, each pair of mirrored products once (the papers' count).
A lower bound that a search reports (``best``, ``vertex-optimal``) bounds the counts as
written of vertex elimination on the Hessian graph, not the symmetric counts; no lower
bound is known for those here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..core.expressions import ExpressionSet
from ..core.graph import DGraph
from ..core.hessian_graph import hessian_graph
from ..second_order import HESSIAN_METHODS
from .compare import Comparison, compare
from .registry import accumulate

__all__ = ["COMPARED_HESSIAN", "accumulate_hessian", "compare_hessian"]

COMPARED_HESSIAN = ("forward-over-reverse", "edge-pushing", "symmetric", "reverse", "markowitz")


def accumulate_hessian(
    g: DGraph,
    method: str = "symmetric",
    weights: Mapping[str, float] | None = None,
    **options: Any,
) -> ExpressionSet:
    """The Hessian of ``g`` (of ``λᵀy`` for several outputs), accumulated and verified.

    Parameters
    ----------
    g
        A scalar graph.
    method
        ``"forward-over-reverse"``, ``"edge-pushing"``, ``"symmetric"``, or any Jacobian
        method's name (:data:`dgraph.METHODS`), run on the Hessian graph.
    weights
        The outputs' weights (:func:`~dgraph.core.hessian_graph.hessian_graph`).
    **options
        A Jacobian method's options (``budget``, ...).

    Returns
    -------
    ExpressionSet
        On ``hessian_graph(g, weights)``: entries ``(x̄_i, x_j)`` = ``∂²(λᵀy)/∂x_i∂x_j``;
        edge pushing and symmetric elimination give those with ``i ≥ j`` only
        (``info["triangle"] == "lower"``; ``lower=False`` for all).

    Examples
    --------
    >>> import sympy
    >>> from dgraph.frontends import from_sympy
    >>> x, y = sympy.symbols("x y")
    >>> g = from_sympy(x * y + sympy.sin(x), [x, y])
    >>> accumulate_hessian(g, "forward-over-reverse").evaluate([0.5, 0.3]).round(4).tolist()
    [[-0.4794, 1.0], [1.0, 0.0]]
    >>> es = accumulate_hessian(g, "edge-pushing")  # the lower triangle, for a mirror
    >>> es.evaluate([0.5, 0.3]).round(4).tolist(), es.info["triangle"]
    ([[-0.4794, 0.0], [1.0, 0.0]], 'lower')
    """
    H = hessian_graph(g, weights)
    return _run(H, method, options)


def _run(H: DGraph, method: str, options: dict[str, Any]) -> ExpressionSet:
    if method in HESSIAN_METHODS:
        return accumulate(H, HESSIAN_METHODS[method], **options)
    return accumulate(H, method, **options)


def compare_hessian(
    g: DGraph,
    methods: Sequence[str] | None = None,
    weights: Mapping[str, float] | None = None,
    **options: Any,
) -> Comparison:
    """Run Hessian and Jacobian methods on the Hessian graph of ``g`` and rank them.

    Parameters
    ----------
    g
        A scalar graph.
    methods
        Method names (default :data:`COMPARED_HESSIAN`); Jacobian ones run through
        :func:`dgraph.compare` with ``options``.
    weights
        The outputs' weights.

    Returns
    -------
    Comparison
        On the Hessian graph, the results in the order of ``methods``, ranked by their
        counts as written.
    """
    names = list(dict.fromkeys(methods or COMPARED_HESSIAN))
    H = hessian_graph(g, weights)
    jacobian = [m for m in names if m not in HESSIAN_METHODS]
    result = compare(H, jacobian, **options) if jacobian else Comparison(H, **_objective(options))
    results = {m: _run(H, m, {}) for m in names if m in HESSIAN_METHODS}
    results.update(result.results)
    result.results = {m: results[m] for m in names if m in results}
    return result


def _objective(options: Mapping[str, Any]) -> dict[str, Any]:
    return {"objective": options["objective"]} if "objective" in options else {}
