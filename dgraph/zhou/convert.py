"""Expressions -> graph: lay an expression set out as a differentiation graph (Zhou §4).

A product is a chain, a sum a block (its terms side by side between the same two
vertices), an edge symbol an edge, and a reference the graph of its definition. The
vertex at the junction of two factors is known from the factors' symbols: ``d_v_u`` runs
from u up to v, so ``A*B`` joins A's lower end to B's upper end — and a product written
in the wrong (commuted) order does not chain and is refused. Each junction occurrence is
a vertex of its own (named after the vertex it copies; later copies get a suffix), so a
simple graph comes back as itself, and a factorized complex graph comes back split, as
Zhou draws it (Fig. 4.2).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy

from ..core.expressions import ExpressionSet
from ..core.graph import DGraph
from ..errors import DGraphError

__all__ = ["ExpressionGraph", "expression_graph", "span"]


def span(es: ExpressionSet, expr: sympy.Expr) -> tuple[str, str]:
    """The (upper, lower) vertices an expression runs between; refuses one that does not
    chain or whose terms run between different vertices."""
    graph = es.graph
    if expr.is_Symbol:
        if expr in es.references:
            return span(es, es.references[expr])
        try:
            source, target = graph.edge_of(expr)
        except KeyError:
            raise DGraphError(f"{expr} is neither an edge symbol nor a reference") from None
        return target, source
    if expr.is_Add:
        spans = {span(es, t) for t in expr.args}
        if len(spans) != 1:
            raise DGraphError(f"the terms of {expr} run between different vertices")
        return spans.pop()
    if expr.is_Mul:
        factors = _factors(expr)
        spans = [span(es, f) for f in factors]
        for k in range(len(factors) - 1):
            low, high = spans[k][1], spans[k + 1][0]
            if low != high:
                f, g = factors[k], factors[k + 1]
                raise DGraphError(
                    f"{f}*{g} does not chain: {f} ends at {low}, {g} starts at {high}"
                )
        return spans[0][0], spans[-1][1]
    raise DGraphError(f"{expr} cannot be drawn as a graph")


def _factors(expr: sympy.Expr) -> list[sympy.Expr]:
    factors = []
    for f in expr.args:
        if f.is_Number:
            if f != 1:
                raise DGraphError(f"the coefficient {f} in {expr} cannot be drawn as a graph")
        elif f.is_Pow and f.exp.is_Integer and f.exp > 0:
            factors.extend([f.base] * int(f.exp))
        else:
            factors.append(f)
    return factors


@dataclass
class ExpressionGraph:
    """The laid-out graph, each of its vertices' original vertex, and each edge's label."""

    graph: DGraph
    origin: dict[str, str] = field(default_factory=dict)
    label: dict[tuple[str, str], sympy.Symbol] = field(default_factory=dict)


def expression_graph(es: ExpressionSet) -> ExpressionGraph:
    """Lay every Jacobian entry out between its output and its input.

    >>> from dgraph.frontends import bundled
    >>> from dgraph.zhou.factorize import zhou
    >>> g = bundled("zhou_two_blocks.json")
    >>> expression_graph(zhou(g)).graph == g
    True
    """
    source = es.graph
    origin: dict[str, str] = {v: v for v in [*source.inputs, *source.outputs]}
    edges: list[tuple[str, str, sympy.Symbol]] = []
    order: list[str] = []

    def vertex(original: str) -> str:
        name, k = original, 1
        while name in origin:
            k += 1
            name = f"{original}_{k}"
        origin[name] = original
        order.append(name)
        return name

    def lay(expr: sympy.Expr, top: str, bottom: str) -> None:
        if expr.is_Symbol and expr in es.references:
            lay(es.references[expr], top, bottom)
        elif expr.is_Symbol:
            edges.append((bottom, top, expr))
        elif expr.is_Add:
            for term in expr.args:
                lay(term, top, bottom)
        else:
            factors = _factors(expr)
            upper = top
            for f in factors[:-1]:
                lower = vertex(span(es, f)[1])
                lay(f, upper, lower)
                upper = lower
            lay(factors[-1], upper, bottom)

    for (y, x), entry in es.jacobian.items():
        if span(es, entry) != (y, x):
            raise DGraphError(f"entry ({y}, {x}) runs between {span(es, entry)}")
        lay(entry, y, x)

    out = DGraph(f"{source.name}-expressions" if source.name else "expressions")
    for p in source.parameters:
        out.add_parameter(p)
    for x in source.inputs:
        out.add_vertex(x, "input")
    for v in order:
        out.add_vertex(v, "intermediate")
    for y in source.outputs:
        out.add_vertex(y, "output")
    labels: dict[tuple[str, str], sympy.Symbol] = {}
    for u, v, sym in edges:
        if (u, v) in labels:
            raise DGraphError(f"{sym} is laid out twice between {u} and {v}")
        labels[u, v] = sym
        out.add_edge(u, v, source.partial(*source.edge_of(sym)))
    for v in out.order():  # keep a vertex's function where it kept its original inputs
        same_inputs = v in source and set(out.predecessors(v)) == set(source.predecessors(v))
        if same_inputs and source.expr(v) is not None:
            out.set_expr(v, source.expr(v))
    return ExpressionGraph(out, origin, labels)
