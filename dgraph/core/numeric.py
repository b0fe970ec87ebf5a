"""Numerical values: vertex values, local partials and expression sets at points.

Vertex expressions and partials are compiled once per graph with ``sympy.lambdify``
(NumPy backend), so a batch of points evaluates in one vectorized pass.
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
    from .expressions import ExpressionSet

__all__ = ["edge_values", "evaluate_expression_set", "vertex_values"]

_MODULES = ["scipy", "numpy"]  # SciPy's ufuncs for erf, gamma, ...: NumPy lacks them


def _compiled(graph: DGraph) -> tuple[dict, dict]:
    if "numeric" not in graph.derived:
        graph.derived["numeric"] = _compile(graph)
    return graph.derived["numeric"]


def _compile(graph: DGraph) -> tuple[dict, dict]:
    vertex_fns, edge_fns = {}, {}
    for v in graph.order():
        names = [*graph.predecessors(v), *graph.parameters]  # parameters: every function's last
        preds = [vertex_symbol(u) for u in names]
        if graph.role(v) != "input":
            expr = graph.expr(v)
            if expr is None:
                raise GraphError(f"vertex {v!r} has no expression; it cannot be evaluated")
            vertex_fns[v] = (names, sympy.lambdify(preds, expr, _MODULES))
        for u in graph.predecessors(v):
            partial = graph.partial(u, v)
            if partial is None:
                raise GraphError(f"edge {u} -> {v} has no known local partial")
            edge_fns[u, v] = (names, sympy.lambdify(preds, partial, _MODULES))
    return vertex_fns, edge_fns


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
    for v in graph.order():
        if v not in values:
            preds, fn = vertex_fns[v]
            values[v] = _broadcast(fn(*(values[u] for u in preds)), shape)
    return values


def edge_values(graph: DGraph, values: dict[str, np.ndarray]) -> dict[sympy.Symbol, np.ndarray]:
    """Every edge label's value, keyed by edge symbol."""
    _, edge_fns = _compiled(graph)
    shape = next(iter(values.values())).shape
    return {
        graph.symbol(u, v): _broadcast(fn(*(values[w] for w in preds)), shape)
        for (u, v), (preds, fn) in edge_fns.items()
    }


def evaluate_expression_set(
    es: ExpressionSet, point: Iterable[float], params: Iterable[float] | None = None
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
