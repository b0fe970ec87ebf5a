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
    chain or whose terms run between different vertices. Bottom up without recursion
    (a running value's sums nest as deep as the program), references followed."""
    graph = es.graph
    done: dict[int, tuple[str, str]] = {}

    def parts(e: sympy.Expr) -> list[sympy.Expr]:
        if e.is_Symbol:
            return [es.references[e]] if e in es.references else []
        return list(e.args) if e.is_Add else _factors(e) if e.is_Mul else []

    stack = [(expr, False)]
    while stack:
        e, ready = stack.pop()
        if id(e) in done:
            continue
        if not ready:
            stack.append((e, True))
            stack.extend((p, False) for p in reversed(parts(e)) if id(p) not in done)
            continue
        done[id(e)] = _span_of(graph, e, [done[id(p)] for p in parts(e)], parts(e))
    return done[id(expr)]


def _span_of(
    graph: DGraph, e: sympy.Expr, spans: list[tuple[str, str]], parts: list[sympy.Expr]
) -> tuple[str, str]:
    """``e``'s span from its parts' (a reference's definition, a sum's terms, a
    product's factors)."""
    if e.is_Symbol:
        if spans:  # a reference
            return spans[0]
        try:
            source, target = graph.edge_of(e)
        except KeyError:
            raise DGraphError(f"{e} is neither an edge symbol nor a reference") from None
        return target, source
    if e.is_Add:
        if len(set(spans)) != 1:
            raise DGraphError(f"the terms of {e} run between different vertices")
        return spans[0]
    if e.is_Mul:
        for k in range(len(parts) - 1):
            low, high = spans[k][1], spans[k + 1][0]
            if low != high:
                f, g = parts[k], parts[k + 1]
                raise DGraphError(
                    f"{f}*{g} does not chain: {f} ends at {low}, {g} starts at {high}"
                )
        return spans[0][0], spans[-1][1]
    raise DGraphError(f"{e} cannot be drawn as a graph")


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
        """Each term and factor laid out in turn, as a recursion would, from a stack
        (a product's next factor waits, with its upper vertex, below the factor before)."""
        stack: list[tuple[sympy.Expr, str, str] | tuple[list, int, str, str]] = [
            (expr, top, bottom)
        ]
        while stack:
            item = stack.pop()
            if len(item) == 4:  # factor k of a product, from ``upper`` down
                factors, k, upper, low = item  # type: ignore[misc]
                if k == len(factors) - 1:
                    stack.append((factors[k], upper, low))
                    continue
                lower = vertex(span(es, factors[k])[1])
                stack.append((factors, k + 1, lower, low))
                stack.append((factors[k], upper, lower))
                continue
            e, high, low = item  # type: ignore[misc]
            if e.is_Symbol and e in es.references:
                stack.append((es.references[e], high, low))
            elif e.is_Symbol:
                edges.append((low, high, e))
            elif e.is_Add:
                stack.extend((term, high, low) for term in reversed(e.args))
            else:
                stack.append((_factors(e), 0, high, low))

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
