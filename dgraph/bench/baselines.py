"""What users would otherwise do: sympy's ``jacobian`` followed by ``cse``.

The count covers everything the resulting formulas evaluate (primal subexpressions,
derivatives, products), counted by :func:`dgraph.codegen.counting.count_ops`: the rule
generated code is counted by.
"""

from __future__ import annotations

import time

import sympy

from ..codegen.counting import Ops, count_ops
from ..core.graph import DGraph, vertex_symbol

__all__ = ["local_partials_ops", "sympy_jacobian_cse"]


def sympy_jacobian_cse(graph: DGraph) -> tuple[Ops, float]:
    """Operations in ``cse(Matrix(outputs).jacobian(inputs))``, and the seconds it took."""
    t0 = time.perf_counter()
    values = graph.values()
    outputs = sympy.Matrix([values[y] for y in graph.outputs])
    jacobian = outputs.jacobian([vertex_symbol(x) for x in graph.inputs])
    replacements, reduced = sympy.cse([e for e in jacobian if e != 0])
    seconds = time.perf_counter() - t0
    return count_ops([r for _, r in replacements] + list(reduced)), seconds


def local_partials_ops(graph: DGraph) -> Ops:
    """Operations to compute the vertex values and local partials an accumulation needs
    (``cse`` across them); add an expression set's effective mults for a total."""
    partials = [p for p in (graph.partial(u, v) for u, v in graph.edges()) if not p.is_Number]
    needed = {str(s) for p in partials for s in p.free_symbols}
    for v in reversed(graph.order()):  # values the needed values are computed from
        if v in needed:
            needed.update(graph.predecessors(v))
    exprs = [graph.expr(v) for v in graph.order() if v in needed and graph.role(v) != "input"]
    replacements, reduced = sympy.cse(exprs + partials)
    return count_ops([r for _, r in replacements] + list(reduced))
