"""The lower triangle of a Hessian's expression set: what a symmetric consumer reads.

A Hessian is symmetric, so code for it needs the entries ``(x̄_i, x_j)`` with ``i ≥ j``
only and mirrors the rest (IPOPT reads the lower triangle alone). :func:`lower_triangle`
keeps those entries and the references they use, and selects them as the set's
``pairs``, so that verification checks exactly what is kept, path by path, and the count
is what the kept entries cost.
"""

from __future__ import annotations

import sympy

from ..core.expressions import ExpressionSet, make_expression_set

__all__ = ["lower_triangle"]


def lower_triangle(es: ExpressionSet) -> ExpressionSet:
    """``es`` (on a Hessian graph: rows ``x̄_i``, columns ``x_j`` in input order) with
    the entries ``i ≥ j`` only and the references they use; unverified."""
    graph = es.graph
    row = {y: k for k, y in enumerate(graph.outputs)}
    col = {x: k for k, x in enumerate(graph.inputs)}
    kept = {(y, x): e for (y, x), e in es.jacobian.items() if row[y] >= col[x]}
    used: set[sympy.Symbol] = set()
    todo = [s for e in kept.values() for s in e.free_symbols if s in es.references]
    while todo:
        s = todo.pop()
        if s not in used:
            used.add(s)
            todo.extend(t for t in es.references[s].free_symbols if t in es.references)
    references = {name: d for name, d in es.references.items() if name in used}
    info = {**es.info, "triangle": "lower"}
    return make_expression_set(graph, references, kept, es.steps, es.method, info, pairs=list(kept))
