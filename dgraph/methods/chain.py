"""The Jacobian chain optimum of a graph cut into stages beside the elimination methods
run on the same graph (Naumann, *Matrix-free Jacobian chaining*).

>>> from dgraph.frontends import bundled
>>> got = compare_with_elimination(bundled("naumann_sin.trace"))
>>> [row["method"] for row in got["methods"]]
['forward', 'reverse', 'markowitz', 'layers']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..chain.bridge import stages
from ..chain.dynamic import homogeneous_adjoint, homogeneous_tangent, preaccumulation, solve
from ..core.graph import DGraph
from .registry import METHODS, accumulate, methods

__all__ = ["ELIMINATION_METHODS", "compare_with_elimination"]

# The registered methods a chain's bracketing competes with: vertex elimination by a rule
# and local Jacobians between the same cuts (no search, no given order).
ELIMINATION_METHODS = tuple(
    name
    for name in methods(exact=False, needs=(), deterministic=True)
    if METHODS[name].family in ("vertex elimination", "bracketing")
)


def compare_with_elimination(
    graph: DGraph,
    cuts: Sequence[Sequence[str]] | None = None,
    memory: int | None = None,
    methods: Sequence[str] = ELIMINATION_METHODS,
) -> dict[str, Any]:
    """The Jacobian chain optimum (dense local Jacobians, fma) beside the elimination
    methods' verified multiplication counts on the same graph.

    Parameters
    ----------
    graph
        The differentiation graph.
    cuts
        The vertex sets the chain is cut at, outputs down; default its depth levels
        (``layers`` uses the same cuts).
    memory
        The tape bound of the chain's bracketing (None: unbounded).
    methods
        The registered methods run beside it.

    Returns
    -------
    dict
        ``stages`` (the chain problem), ``solution`` (its optimal bracketing), ``chain``
        (the optimum beside homogeneous tangent and adjoint and preaccumulation) and
        ``methods`` (per method: ``mults``, ``mults_effective``, ``verified``).

    Raises
    ------
    DGraphError
        For malformed cuts (empty, an unknown vertex, one in two cuts, an input or an
        output) or an unknown method.
    """
    cut = stages(graph, cuts)
    solution = solve(cut.problem, memory)
    rows = []
    for method in methods:
        options = {"cuts": [list(c) for c in cuts]} if method == "layers" and cuts else {}
        es = accumulate(graph, method, **options)
        rows.append(
            {
                "method": method,
                "mults": es.mults,
                "mults_effective": es.mults_effective,
                "verified": es.verified,
            }
        )
    return {
        "stages": cut,
        "solution": solution,
        "chain": {
            "optimal": solution.cost,
            "tangent": homogeneous_tangent(cut.problem),
            "adjoint": homogeneous_adjoint(cut.problem),
            "preaccumulation": preaccumulation(cut.problem, memory).cost,
        },
        "methods": rows,
    }
