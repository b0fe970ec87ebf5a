"""Numerical values: vertex values, local partials and expression sets at points.

Vertex expressions and partials are compiled once per graph with ``sympy.lambdify``
(NumPy backend; one function for the values, one for the labels), so a batch of points
evaluates in one vectorized pass.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np
import sympy

from ..errors import GraphError, InputError
from .algebra import fold
from .graph import DGraph, vertex_symbol

if TYPE_CHECKING:
    from .expression_data import ExpressionData

__all__ = ["edge_values", "evaluate_expression_set", "vertex_values"]

# Max and Min as NumPy's elementwise maximum and minimum: sympy prints them as nested
# ``select``s whose conditions, inside a Heaviside, are floats (NaN defaults), which
# ``numpy.select`` refuses (the partials of a max over more than three elements)
_EXTREMES = {
    "_dgraph_max": lambda *a: np.maximum.reduce(np.broadcast_arrays(*a)),
    "_dgraph_min": lambda *a: np.minimum.reduce(np.broadcast_arrays(*a)),
}
_MODULES = [_EXTREMES, "scipy", "numpy"]  # SciPy's ufuncs for erf, gamma, ...: NumPy lacks them


def _elementwise_extremes(expr: sympy.Expr) -> sympy.Expr:
    """``expr`` with Max and Min as the functions of :data:`_EXTREMES`."""
    return expr.replace(sympy.Max, sympy.Function("_dgraph_max")).replace(
        sympy.Min, sympy.Function("_dgraph_min")
    )


def _compiled(graph: DGraph) -> tuple[dict, dict]:
    if "numeric" not in graph.derived:
        graph.derived["numeric"] = _compile(graph)
    return graph.derived["numeric"]


def _compile(graph: DGraph) -> tuple[tuple, tuple]:
    """Two functions: every non-input vertex's value from the inputs and parameters, and
    every edge label's value from the vertex values and parameters. One ``lambdify`` each,
    where one per vertex and per edge cost a call's overhead apiece
    (benchmarks/numeric_compile.py measures both); the
    graph's names become variables ``_v0, _v1, ...`` so that no vertex shadows a NumPy
    function, and each value is a line of its own (a NumPy warning quotes one
    expression)."""
    vertices, edges, partials = [], [], []
    for v in graph.order():
        if graph.role(v) != "input":
            if graph.expr(v) is None:
                raise GraphError(f"vertex {v!r} has no expression; it cannot be evaluated")
            vertices.append(v)
        for u in graph.predecessors(v):
            partial = graph.partial(u, v)
            if partial is None:
                raise GraphError(f"edge {u} -> {v} has no known local partial")
            edges.append((u, v))
            partials.append(partial)
    names = [*graph.order(), *graph.parameters]
    safe = {vertex_symbol(u): sympy.Symbol(f"_v{k}") for k, u in enumerate(names)}
    known = [safe[vertex_symbol(u)] for u in [*graph.inputs, *graph.parameters]]
    steps = [
        (safe[vertex_symbol(v)], _elementwise_extremes(graph.expr(v).xreplace(safe)))
        for v in vertices
    ]
    values = sympy.lambdify(
        [known],
        [s for s, _ in steps],
        _MODULES,
        cse=lambda exprs: (steps, exprs),
    )
    everything = [safe[vertex_symbol(u)] for u in names]
    each = [
        (sympy.Symbol(f"_l{k}"), _elementwise_extremes(p.xreplace(safe)))
        for k, p in enumerate(partials)
    ]
    labels = sympy.lambdify(
        [everything], [s for s, _ in each], _MODULES, cse=lambda exprs: (each, exprs)
    )
    return (vertices, values), (edges, labels)


def _broadcast(value, shape: tuple[int, ...]) -> np.ndarray:
    return np.broadcast_to(np.asarray(value, dtype=float), shape)


def vertex_values(
    graph: DGraph, point: np.ndarray, params: np.ndarray | None = None
) -> dict[str, np.ndarray]:
    """Every vertex's value (and each parameter's); ``point`` has shape (n,) or (B, n),
    ``params`` the values of the graph's parameters, (k,) or (B, k)."""
    vertex_fns, _ = _compiled(graph)
    point = np.asarray(point, dtype=float)
    values = {x: point[..., i] for i, x in enumerate(graph.inputs)}
    if graph.parameters:
        if params is None:
            raise InputError(
                f"the graph has parameters ({', '.join(graph.parameters)}): give their values"
            )
        params = np.asarray(params, dtype=float)
        if params.ndim == 0 or params.shape[-1] != len(graph.parameters):
            raise InputError(
                f"params has shape {params.shape}; the graph has"
                f" {len(graph.parameters)} parameters ({', '.join(graph.parameters)})"
            )
        values.update({p: params[..., k] for k, p in enumerate(graph.parameters)})
    shape = np.broadcast_shapes(*(np.shape(v) for v in values.values()))
    values = {k: _broadcast(v, shape) for k, v in values.items()}
    vertices, fn = vertex_fns
    known = [values[u] for u in [*graph.inputs, *graph.parameters]]
    for v, value in zip(vertices, fn(known), strict=True):
        values[v] = _broadcast(value, shape)
    return values


def edge_values(graph: DGraph, values: dict[str, np.ndarray]) -> dict[sympy.Symbol, np.ndarray]:
    """Every edge label's value, keyed by edge symbol."""
    _, (edges, fn) = _compiled(graph)
    shape = next(iter(values.values())).shape
    labels = fn([values[u] for u in [*graph.order(), *graph.parameters]])
    return {
        graph.symbol(u, v): _broadcast(label, shape)
        for (u, v), label in zip(edges, labels, strict=True)
    }


def evaluate_expression_set(
    es: ExpressionData, point: Iterable[float], params: Iterable[float] | None = None
) -> np.ndarray:
    """The Jacobian at ``point``: shape (m, n), or (B, m, n) for a batch (B, n);
    ``params``: the graph's parameter values."""
    graph = es.graph
    point = np.asarray(point, dtype=float)
    if point.shape[-1] != len(graph.inputs):
        raise InputError(
            f"point has {point.shape[-1]} values; the graph has {len(graph.inputs)} inputs"
        )
    values = vertex_values(graph, point, None if params is None else np.asarray(params, float))
    labels = edge_values(graph, values)
    shape = np.broadcast_shapes(*(np.shape(v) for v in values.values()))

    def number(n: sympy.Number) -> np.ndarray:
        return np.full(shape, float(n))

    def add(ts: list[np.ndarray]) -> np.ndarray:
        return sum(ts[1:], ts[0])

    def mul(fs: list[np.ndarray]) -> np.ndarray:
        return np.prod(np.stack(fs), axis=0)

    for name, definition in es.references.items():
        labels[name] = fold(definition, labels.__getitem__, number, add, mul)
    rows = {y: i for i, y in enumerate(graph.outputs)}
    cols = {x: i for i, x in enumerate(graph.inputs)}
    jac = np.zeros((*shape, len(rows), len(cols)))
    for (y, x), entry in es.jacobian.items():
        jac[..., rows[y], cols[x]] = fold(entry, labels.__getitem__, number, add, mul)
    return jac
