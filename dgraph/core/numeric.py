"""Numerical values: vertex values, local partials and expression sets at points.

Vertex expressions and partials are compiled once per graph into two Python functions
(one for the values, one for the labels), printed by sympy's SciPy printer over
``lambdify``'s namespace, so a batch of points evaluates in one vectorized pass.
"""

from __future__ import annotations

import functools
import importlib
import itertools
import linecache
import operator
import weakref
from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np
import sympy
from sympy.logic.boolalg import ITE
from sympy.printing.numpy import SciPyPrinter

from ..blocks.rounding import absolute_terms, sums_terms
from ..errors import GraphError, InputError
from . import extremes
from .algebra import fold
from .graph import DGraph, vertex_symbol

if TYPE_CHECKING:
    from .expression_data import ExpressionData

__all__ = ["edge_magnitudes", "edge_values", "evaluate_expression_set", "vertex_values"]

# Max and Min as NumPy's elementwise maximum and minimum: sympy prints them as nested
# ``select``s whose conditions, inside a Heaviside, are floats (NaN defaults), which
# ``numpy.select`` refuses (the partials of a max over more than three elements)
_EXTREMES = {
    "_dgraph_max": lambda *a: np.maximum.reduce(np.broadcast_arrays(*a)),
    "_dgraph_min": lambda *a: np.minimum.reduce(np.broadcast_arrays(*a)),
    "_dgraph_heaviside": lambda a, h: np.heaviside(a, h),
    "_dgraph_sum": lambda terms: functools.reduce(operator.add, terms),
    "_dgraph_product": lambda factors: functools.reduce(operator.mul, factors),
}
# Python's compiler recurses once per operator of a chain ``a + b + ...``: a few thousand
# terms exceed its depth. Larger sums and products are printed as the left-to-right
# reduction of a tuple (the same additions in the same order, as a flat display).
FLAT_TERMS = 500
_MODULES = [_EXTREMES, "scipy", "numpy"]  # SciPy's ufuncs for erf, gamma, ...: NumPy lacks them
_COUNTER = itertools.count()


def _ite_as_and_or(e: ITE) -> sympy.Basic:
    c, a, b = e.args
    return sympy.Or(sympy.And(c, a), sympy.And(sympy.Not(c), b))


class PlainConditions:
    """Mixin for sympy's NumPy-family printers: a Piecewise whose conditions hold an
    ``ITE(c, a, b)`` (sympy writes a comparison of a Piecewise so: ``log_ndtr``'s
    branches) printed with ``(c & a) | (~c & b)`` in its place, where sympy's printer
    runs ``simplify_logic`` on each such condition (8 of 20 profiled seconds of
    ``make_function`` of ``jax.scipy.stats.norm.logcdf`` at 2 entries)."""

    def _print_Piecewise(self, expr: sympy.Piecewise) -> str:
        if expr.has(ITE):
            expr = expr.replace(lambda e: isinstance(e, ITE), _ite_as_and_or)
        return super()._print_Piecewise(expr)  # type: ignore[misc]


class _Printer(PlainConditions, SciPyPrinter):
    """The printer ``lambdify`` takes for :data:`_MODULES`, printing each symbol of
    ``names`` by its given name: no renamed copy of an expression is built (rebuilding a
    Max or Min compares its arguments pairwise)."""

    def __init__(self, names: dict[sympy.Symbol, str]) -> None:
        super().__init__(
            {
                "fully_qualified_modules": False,
                "inline": True,
                "allow_unknown_functions": True,
                "user_functions": {k: k for k in _EXTREMES},
                "order": "none",  # terms as they are: sorting them dominates large sums
            }
        )
        self._names = names

    def _print_Symbol(self, expr: sympy.Symbol) -> str:
        name = self._names.get(expr)
        return super()._print_Symbol(expr) if name is None else name

    def value(self, expr: sympy.Expr) -> str:
        """``expr`` as code, with Max and Min as the functions of :data:`_EXTREMES`."""
        return self._print(expr)

    def _print_Integer(self, expr: sympy.Integer) -> str:
        """An integer past 2⁵³ (a double read exactly: ``nan_to_num``'s ``finfo.max``) as
        that double: Python's integer of 309 digits makes NumPy's arrays of objects."""
        if abs(int(expr)) > 2**53:
            return repr(float(expr))
        return super()._print_Integer(expr)

    def _print_Add(self, expr: sympy.Add) -> str:
        if len(expr.args) <= FLAT_TERMS:
            return super()._print_Add(expr)
        return f"_dgraph_sum(({', '.join(self._print(a) for a in expr.args)},))"

    def _print_Mul(self, expr: sympy.Mul) -> str:
        if len(expr.args) <= FLAT_TERMS:
            return super()._print_Mul(expr)
        return f"_dgraph_product(({', '.join(self._print(a) for a in expr.args)},))"

    def _print_Max(self, expr: sympy.Max) -> str:
        """``_dgraph_max`` of the arguments, printed as they are (where replacing each Max
        by an undefined function first rebuilt the whole expression: seconds for the ties
        of a max over a few hundred elements)."""
        return f"_dgraph_max({', '.join(self._print(a) for a in expr.args)})"

    def _print_Min(self, expr: sympy.Min) -> str:
        """``_dgraph_min`` of the arguments, as :meth:`_print_Max`."""
        return f"_dgraph_min({', '.join(self._print(a) for a in expr.args)})"

    def _print_Heaviside(self, expr: sympy.Expr) -> str:
        """NumPy's ``heaviside`` with sympy's H(0) (1/2 unless given), where SciPy's
        printer rewrites each step as a Piecewise first (2 ms a step: the tie counts of a
        max over 300 elements have 90,000)."""
        at_zero = self._print(expr.args[1]) if len(expr.args) > 1 else "0.5"
        return f"_dgraph_heaviside({self._print(expr.args[0])}, {at_zero})"

    def _print_re(self, expr: sympy.re) -> str:
        (arg,) = expr.args  # as the printers' ``doprint``: re of a real unevaluated value
        if isinstance(arg, sympy.UnevaluatedExpr) and arg.args[0].is_real:
            return self._print(arg)
        return super()._print_re(expr)


@functools.cache
def _namespace() -> dict:
    """The names ``lambdify`` gives a function for :data:`_MODULES`."""
    return dict(sympy.lambdify([], sympy.Integer(0), _MODULES).__globals__)


def _function(
    name: str,
    arguments: list[str],
    steps: list[tuple[str, sympy.Expr]],
    printer: _Printer,
    read: bool = True,
):
    """``name(values)``: unpacks ``values`` into ``arguments``, assigns each step's
    expression to its name, one line each, and returns the steps' values in order. An
    expression that equals an earlier step's is that step's value, printed once; where
    no step reads another's name (``read`` False: the labels), it is not assigned either
    (the return reads the first step's name: no line of its own to compile)."""
    lines = [f"def {name}(_values):", f"    [{', '.join(arguments)}] = _values"]
    first: dict[sympy.Expr, str] = {}
    returned = []
    for target, expr in steps:
        known = first.setdefault(expr, target)
        if known == target:
            lines.append(f"    {target} = {printer.value(expr)}")
        elif read:
            lines.append(f"    {target} = {known}")
        returned.append(target if read else known)
    lines.append(f"    return [{', '.join(returned)}]")
    namespace = dict(_namespace())
    for module, keys in printer.module_imports.items():
        for key in keys - namespace.keys():
            namespace[key] = getattr(importlib.import_module(module), key)
    source = "\n".join(lines) + "\n"
    filename = f"<dgraph-numeric-{next(_COUNTER)}>"
    exec(compile(source, filename, "exec"), namespace)  # printed from sympy, as lambdify
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    function = namespace[name]
    weakref.finalize(function, linecache.cache.pop, filename, None)
    return _known_names(function)


def _known_names(function):
    """``function``, whose NameError (a function sympy prints with no NumPy or SciPy
    counterpart: ``meijerg`` in the derivative of ``uppergamma``) is one line; caught
    where it is called, so that compiling a large graph's labels reads no name twice."""

    def run(values):
        try:
            return function(values)
        except NameError as exc:
            raise GraphError(
                f"cannot evaluate {exc.name}(...) numerically: sympy's function has no NumPy"
                " or SciPy counterpart (write the function without it)"
            ) from None

    return run


def _compiled(graph: DGraph) -> tuple[dict, dict]:
    if "numeric" not in graph.derived:
        graph.derived["numeric"] = _compile(graph)
    return graph.derived["numeric"]


def _compile(graph: DGraph) -> tuple[tuple, tuple]:
    """Two functions: every non-input vertex's value from the inputs and parameters, and
    every edge label's value from the vertex values and parameters. One function each,
    where one per vertex and per edge cost a call's overhead apiece
    (benchmarks/numeric_compile.py measures both); the graph's names are printed as
    variables ``_v0, _v1, ...`` so that no vertex shadows a NumPy function, and each value
    is a line of its own (a NumPy warning quotes one expression)."""
    vertices, edges, partials = [], [], []
    for v in graph.order():
        known: dict = {}  # shared by v's partials (:func:`_over_value`)
        if graph.role(v) != "input":
            if graph.expr(v) is None:
                raise GraphError(f"vertex {v!r} has no expression; it cannot be evaluated")
            vertices.append(v)
        for u in graph.predecessors(v):
            partial = graph.partial(u, v)
            if partial is None:
                raise GraphError(f"edge {u} -> {v} has no known local partial")
            edges.append((u, v))
            partials.append(_over_value(partial, graph.expr(v), v, known))
    names = {vertex_symbol(u): f"_v{k}" for k, u in enumerate([*graph.order(), *graph.parameters])}
    printer = _Printer(names)
    known = [names[vertex_symbol(u)] for u in [*graph.inputs, *graph.parameters]]
    steps = [(names[vertex_symbol(v)], graph.expr(v)) for v in vertices]
    values = _function("_vertex_values", known, steps, printer)
    each = [(f"_l{k}", p) for k, p in enumerate(partials)]
    labels = _function("_edge_labels", list(names.values()), each, printer, read=False)
    return (vertices, values), (edges, labels)


def _over_value(
    partial: sympy.Expr, expr: sympy.Expr | None, vertex: str, known: dict
) -> sympy.Expr:
    """A partial of a Max or Min vertex over the vertex's own value, the same number
    (:func:`~dgraph.core.extremes.over_value`, ``known`` shared by the vertex's
    partials): the count of the maximum's ties then prints n comparisons, where its
    value written in each printed n² arguments."""
    if isinstance(expr, (sympy.Max, sympy.Min)) and len(expr.args) > 2:
        return extremes.over_value(partial, {expr: vertex_symbol(vertex)}, known)
    return partial


def _broadcast(value, shape: tuple[int, ...]) -> np.ndarray:
    """A read-only float view of ``value`` with ``shape``."""
    value = np.asarray(value, dtype=float)
    if value.shape != shape:
        return np.broadcast_to(value, shape)
    view = value.view()  # as broadcast_to gives, without its cost per value
    view.flags.writeable = False
    return view


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


def edge_magnitudes(
    graph: DGraph, values: dict[str, np.ndarray], labels: dict[sympy.Symbol, np.ndarray]
) -> dict[sympy.Symbol, np.ndarray]:
    """Every edge label's magnitude as evaluated: its value with each sum's terms taken
    by their absolute values (:func:`dgraph.blocks.rounding.absolute_terms`), the scale
    of the rounding its evaluation can leave (Higham, *Accuracy and Stability of Numerical
    Algorithms*, 2nd ed., 2002, §3.3, running error analysis: ``|fl(e) - e| <= γ·Ã(e)``).
    Where terms cancel, as ``1 - tanh(v)**2`` at a large ``v`` (0 for ``tanh(v) == 1.0``
    in doubles, while its exact value is 1e-22), the label's value is rounding alone and
    its magnitude stays the terms' (2, not 0). A vertex the label reads whose value is
    such a sum counts as its terms too (:func:`_sums`): ``2·t`` of ``t**2`` at
    ``t = 1 - a/p`` with ``a == p`` is 0, its magnitude 2·(1 + |a/p|). ``|label|`` where
    neither has a sum of terms that are not all numbers (its rounding is relative to its
    value)."""
    _, (edges, _) = _compiled(graph)
    summed, function = _compiled_magnitudes(graph)
    shape = next(iter(values.values())).shape
    out = {e: np.abs(value) for e, value in labels.items()}
    if summed:
        found = function([values[u] for u in [*graph.order(), *graph.parameters]])
        for k, value in zip(summed, found, strict=True):
            u, v = edges[k]
            out[graph.symbol(u, v)] = np.maximum(out[graph.symbol(u, v)], _broadcast(value, shape))
    return out


def _compiled_magnitudes(graph: DGraph) -> tuple[list[int], object]:
    """The edges (their positions in :func:`_compile`'s order) whose labels' terms can
    cancel (:func:`~dgraph.blocks.rounding.sums_terms`), and one function of the vertex
    values giving their :func:`absolute_terms` values; compiled once per graph, where a
    check first asks."""
    if "numeric_magnitudes" not in graph.derived:
        _, (edges, _) = _compiled(graph)
        labels, sums = [graph.partial(u, v) for u, v in edges], _sums(graph)
        summed = [k for k, label in enumerate(labels) if sums_terms(label, sums)]
        function = None
        if summed:
            order = [*graph.order(), *graph.parameters]
            names = {vertex_symbol(u): f"_v{k}" for k, u in enumerate(order)}
            steps = [(f"_m{k}", absolute_terms(labels[k], sums)) for k in summed]
            function = _function(
                "_edge_magnitudes", list(names.values()), steps, _Printer(names), read=False
            )
        graph.derived["numeric_magnitudes"] = (summed, function)
    return graph.derived["numeric_magnitudes"]


def _sums(graph: DGraph) -> dict[sympy.Symbol, sympy.Expr]:
    """The vertices whose expressions sum terms (:func:`~dgraph.blocks.rounding.sums_terms`),
    by symbol: a label reading one counts its terms (:func:`absolute_terms`), as such a
    value carries the rounding of its terms, not of its value. Generated code may compute
    it otherwise (``a/p`` as ``a·(1/p)``, the reciprocal shared with the partial ``1/p``),
    so where the terms cancel exactly in the graph's evaluation (a drawdown
    ``1 - wealth/peak`` at a new peak) the code's value is their rounding."""
    sums: dict[sympy.Symbol, sympy.Expr] = {}
    for v in graph.order():
        expr = graph.expr(v) if graph.role(v) != "input" else None
        if expr is not None and sums_terms(expr):
            sums[vertex_symbol(v)] = expr
    return sums


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
        return functools.reduce(operator.mul, fs)

    for name, definition in es.references.items():
        labels[name] = fold(definition, labels.__getitem__, number, add, mul)
    rows = {y: i for i, y in enumerate(graph.outputs)}
    cols = {x: i for i, x in enumerate(graph.inputs)}
    jac = np.zeros((*shape, len(rows), len(cols)))
    for (y, x), entry in es.jacobian.items():
        jac[..., rows[y], cols[x]] = fold(entry, labels.__getitem__, number, add, mul)
    return jac
