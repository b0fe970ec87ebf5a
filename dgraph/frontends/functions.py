"""Graphs from sympy expressions and from Python functions traced with sympy symbols."""

from __future__ import annotations

import builtins
import contextlib
import importlib.util
import inspect
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import sympy
from sympy.core.function import AppliedUndef

from ..core.algebra import real_symbol
from ..core.expand import EDGE_LIMIT, NoElementLevel, expand
from ..core.graph import DGraph
from ..core.parse import parse_expression, vertex_names
from ..errors import GraphError, InputError
from .array_tracer import DataDependentIndex, check_shape, trace_arrays
from .elemental import ExprGraphBuilder, gc_paused, replace_shared
from .fixed_parameters import Fixed, marked_closed, read_fixing
from .frames import call_keeping_locals
from .point_values import check_point_values
from .pytrees import flat_arguments
from .reached import reached

Level = Literal["element", "array"]
LEVELS: tuple[str, ...] = ("element", "array")  # as from_jax's level=

__all__ = [
    "LEVELS",
    "from_function",
    "from_sympy",
    "inspects_expressions",
    "load_function",
    "sizes_of",
    "uses_jax",
]


def _output_names(count: int, avoid: set[str]) -> list[str]:
    """``y`` or ``y0, y1, ...``; the first of y, f, g, h, out whose names and whose
    letter itself are no input's (``dy0/dy`` would read as a derivative by ``y``)."""

    def names(base: str) -> list[str]:
        return [base] if count == 1 else [f"{base}{k}" for k in range(count)]

    for base in ("y", "f", "g", "h", "out"):
        if base not in avoid and not avoid.intersection(names(base)):
            return names(base)
    base = "out"
    while base in avoid or avoid.intersection(names(base)):
        base += "_"
    return names(base)


def from_sympy(
    outputs: sympy.Expr | Iterable[sympy.Expr] | Mapping[str, sympy.Expr],
    inputs: Iterable[sympy.Symbol | str],
    name: str = "",
    binary: bool = False,
    variables: Mapping[str, sympy.Expr] | None = None,
    params: Iterable[sympy.Symbol | str] = (),
) -> DGraph:
    """The elemental differentiation graph of sympy expressions with respect to ``inputs``.

    Parameters
    ----------
    outputs
        One expression, several, or a mapping from output names to expressions. Outputs
        are named by a mapping's keys (``{"f1": f1, "f2": f2}``), else ``y`` (one) or
        ``y0, y1, ...`` (``f0, f1, ...`` where an input is ``y``).
    inputs
        The symbols differentiated. Functions of time from
        :mod:`sympy.physics.mechanics` (``q1(t)``) are read as plain symbols (``q1``).
    name
        The graph's name.
    binary
        n-ary sums and products as chains of two-operand vertices.
    variables
        Names for the vertices that compute some subexpressions (a traced function's
        local variables).
    params
        Symbols the outputs use whose values are fixed when the function runs (masses,
        lengths, ``g``): they stay in the labels, and the Jacobian has no column for them.

    Returns
    -------
    DGraph

    Raises
    ------
    InputError
        An input that is not a symbol, a name used twice, or an output that is not a
        sympy expression.

    Examples
    --------
    >>> a, b = sympy.symbols("a b")
    >>> g = from_sympy([a * sympy.sin(b), sympy.sin(b)], [a, b])
    >>> g.outputs, g.intermediates
    (['y0', 'y1'], ['t1'])
    >>> x, k = sympy.symbols("x k")
    >>> g = from_sympy(k * sympy.sin(x), [x], params=[k])
    >>> g.parameters, g.partial("t1", "y")
    (('k',), k)
    """
    inputs, params = list(inputs), list(params)
    plain = _plain_functions_of_time([*inputs, *params])
    symbols = [_input_symbol(s, plain) for s in inputs]
    input_names = [str(s) for s in symbols]
    parameters = tuple(str(_input_symbol(p, plain)) for p in params)
    clash = set(input_names) & set(parameters)
    if clash:
        raise InputError(f"{sorted(clash)[0]!r} is both an input and a parameter")
    if len(set(parameters)) != len(parameters):
        raise InputError("a parameter is given twice")
    if isinstance(outputs, Mapping):
        names, exprs = list(outputs), list(outputs.values())
    else:
        single = isinstance(outputs, (sympy.Basic, int, float, str))
        exprs = [outputs] if single and not isinstance(outputs, sympy.MatrixBase) else list(outputs)
        names = _output_names(len(exprs), set(input_names) | set(parameters))
    if plain:
        exprs = [_without_time(e, plain, n) for n, e in zip(names, exprs, strict=True)]
    builder = ExprGraphBuilder(input_names, name or "<sympy>", binary, parameters)
    env = {s: i for s, i in zip(symbols, builder.inputs, strict=False)}
    env.update({real_symbol(str(s)): i for s, i in zip(symbols, builder.inputs, strict=False)})
    with gc_paused():
        return _build(builder, env, names, exprs, input_names, name, variables)


SUMMED_MOST = 10_000  # terms a finite Sum or Product is written out with


def _written_out(e: sympy.Basic, name: str) -> sympy.Expr:
    """A finite ``Sum``/``Product`` of at most :data:`SUMMED_MOST` terms, done."""
    counts = [hi - lo + 1 for _, lo, hi in e.limits]
    if not all(c.is_Integer and 0 <= c <= SUMMED_MOST for c in counts):
        raise InputError(
            f"output {name!r}: {type(e).__name__} over {sympy.sstr(e.limits)[:60]} is not a"
            f" finite range of at most {SUMMED_MOST:,} terms: write it out"
        )
    return e.doit()


# functions sympy differentiates or prints only in another form: that form
_REWRITES: dict[type, Callable[..., sympy.Expr]] = {
    sympy.factorial: lambda a: sympy.gamma(a + 1),
    sympy.RisingFactorial: lambda a, k: sympy.gamma(a + k) / sympy.gamma(a),
    sympy.FallingFactorial: lambda a, k: sympy.gamma(a + 1) / sympy.gamma(a - k + 1),
    sympy.frac: lambda a: a - sympy.floor(a),
}


def elementary(expr: sympy.Expr, name: str) -> sympy.Expr:
    """``expr`` with ``factorial``, the rising and falling factorials and ``frac`` in
    terms of ``gamma`` and ``floor`` (whose derivatives sympy gives; ``factorial(x)``
    printed ``math.factorial``, which takes integers only), and finite ``Sum``s and
    ``Product``s written out."""
    kinds = (*_REWRITES, sympy.Sum, sympy.Product)
    for _ in range(8):  # a rewrite's arguments may hold more (factorial(factorial(x)))
        found = [e for e in _subexpressions(expr) if isinstance(e, kinds)]
        if not found:
            return expr
        expr = replace_shared(
            expr,
            {
                e: _written_out(e, name) if isinstance(e, (sympy.Sum, sympy.Product))
                else _REWRITES[type(e)](*e.args)
                for e in found
            },
        )  # fmt: skip
    return expr


def _plain_functions_of_time(given: list[Any]) -> dict[sympy.Expr, sympy.Symbol]:
    """Each function of one symbol among ``given`` (``dynamicsymbols('q1')`` is
    ``q1(t)``) and the plain real symbol that stands for it."""
    return {
        e: real_symbol(e.func.__name__)
        for e in given
        if isinstance(e, AppliedUndef) and len(e.args) == 1 and e.args[0].is_Symbol
    }


def _input_symbol(s: Any, plain: Mapping[sympy.Expr, sympy.Symbol]) -> sympy.Symbol:
    if isinstance(s, str):
        return real_symbol(s)
    if s in plain:
        return plain[s]
    if not isinstance(s, sympy.Symbol):
        raise InputError(f"{sympy.sstr(s)[:60]!r} is not a symbol: inputs and parameters must be")
    return s


def _without_time(expr: Any, plain: Mapping[sympy.Expr, sympy.Symbol], name: str) -> Any:
    """``expr`` with the given functions of time as plain symbols; a derivative left over
    (``Derivative(q1(t), t)``) is refused: the graph has no vertex for it."""
    if not isinstance(expr, sympy.Basic):
        return expr
    left = next((e for e in _subexpressions(expr) if isinstance(e, sympy.Derivative)), None)
    if left is not None:
        raise InputError(
            f"output {name!r} contains the derivative {sympy.sstr(left)[:60]}: write it in"
            " terms of the inputs (e.g. with the generalized speeds, kane.rhs()) or give it"
            " a symbol"
        )
    return replace_shared(expr, dict(plain))


def _subexpressions(expr: sympy.Basic) -> Iterator[sympy.Basic]:
    """Every distinct subexpression of ``expr``, each once (no recursion)."""
    seen = {expr}
    stack = [expr]
    while stack:
        e = stack.pop()
        yield e
        for a in e.args:
            if a not in seen:
                seen.add(a)
                stack.append(a)


def _build(
    builder: ExprGraphBuilder,
    env: dict[sympy.Symbol, int],
    names: list[str],
    exprs: list,
    input_names: list[str],
    name: str,
    variables: Mapping[str, sympy.Expr] | None = None,
) -> DGraph:
    values = []
    for out_name, expr in zip(names, exprs, strict=False):
        if isinstance(expr, str):  # text is parsed, never evaluated
            expr = parse_expression(
                expr, [*input_names, *builder.parameters], f"output {out_name!r}"
            )
        elif isinstance(expr, (int, float)) and not isinstance(expr, bool):
            expr = sympy.sympify(expr)
        if not isinstance(expr, sympy.Expr):
            raise InputError(f"output {out_name!r} is not a sympy expression: {expr!r}")
        expr = elementary(expr, out_name)
        value = builder.elemental(expr, env)
        values.append((out_name, value))
    live = builder._live([v for _, v in values if isinstance(v, int)])
    built = {id(expr): value for expr, (_, value) in zip(exprs, values, strict=False)}
    for variable, expr in (variables or {}).items():  # the function's own names
        # an output's expression is built already (building one walks all of it again)
        value = built[id(expr)] if id(expr) in built else builder.elemental(expr, env)
        if isinstance(value, int) and value in live:
            builder.prefer_name(value, variable)
    return builder.build(values, name)


def from_function(
    f: Callable[..., Any],
    name: str = "",
    n_inputs: int | None = None,
    binary: bool = False,
    sizes: list[int] | list[int | tuple[int, ...]] | None = None,
    params: Iterable[str] = (),
    level: Level = "element",
    point: Sequence[Any] | None = None,
    limit: int | None = EDGE_LIMIT,
) -> DGraph:
    """The differentiation graph of the Python function ``f``, traced.

    ``f`` is called once with one traced array per parameter
    (:mod:`dgraph.frontends.array_tracer`): NumPy's ufuncs and array functions, Python's
    operators, and :mod:`math`'s and sympy's elementwise functions (``math.exp(x[0])``,
    ``sympy.sin(a)``) each record one array operation. At ``level="array"`` that is the
    graph; at the default ``level="element"`` it is expanded into scalars
    (:func:`~dgraph.core.expand.expand`), so both levels read the same programs. A
    function of scalars whose code works on the structure of sympy expressions
    (:func:`inspects_expressions`: ``diff``, ``subs``, ``Matrix``), or that the array
    tracer cannot read, is called with plain sympy symbols instead and read by
    :func:`from_sympy` (sympy's own reader); ``graph.traced_with`` says which route
    (``"numpy"`` or ``"sympy"``). Vertices are named after ``f``'s local variables where
    one holds their value.

    Parameters
    ----------
    f
        Returns an array, a number, a tuple or list of them, or a dict of them (its keys
        name the outputs).
    name
        The graph's name (default: ``f``'s).
    n_inputs
        ``f`` takes one sequence argument of this length (elements ``x0, x1, ...``).
    binary
        Sums and products of more than two vertices become chains of two-operand vertices.
    sizes
        Each parameter's shape: a tuple, or an int for a vector; 0 or ``()`` a scalar
        (default: all scalars). A vector's elements are ``x0, x1, ...``.
    params
        Parameters of ``f`` that are not differentiated (masses, lengths): the graph's
        :attr:`~dgraph.core.graph.DGraph.parameters`, symbols in its labels, at the
        element level.
    level
        ``"element"`` (a vertex per scalar operation) or ``"array"`` (a vertex per array
        operation, whose size does not grow with the arrays').
    point
        One value per differentiated parameter, arrays of their shapes: where the user
        means to evaluate ``f``, kept as the graph's
        :attr:`~dgraph.core.graph.DGraph.point` (values and generated code are checked
        there first). With ``params``, one value per argument instead (the parameters'
        among them, as :func:`dgraph.jacobian` takes them): their values are the graph's
        :attr:`~dgraph.core.graph.DGraph.parameter_point`, and one given as one integer
        that fixes the structure (``range(n)``, a shape), where reading it as a number
        fails, is closed over at that value (:mod:`.fixed_parameters`).
    limit
        The most scalar edges the element level may make (above it: one line naming
        ``level="array"``); None for no limit.

    Raises
    ------
    InputError
        What cannot be traced, in one line: a branch on a traced value (use
        ``np.where``), ``float()`` of one, an operation with no array form.

    >>> g = from_function(lambda a, b: a * b + sympy.sin(a))
    >>> g.inputs, g.outputs
    (['a', 'b'], ['y'])
    >>> import numpy as np, math
    >>> def f(x, k):
    ...     area = x[0] * x[1]
    ...     return k * np.sin(area) + math.exp(x[0])
    >>> g = from_function(f, sizes=[2, 0])
    >>> g.inputs, g.intermediates
    (['x0', 'x1', 'k'], ['area', 't5', 't6', 't9'])
    >>> g = from_function(lambda u: np.tanh(u @ np.ones((3, 2))), sizes=[(4, 3)], level="array")
    >>> [(v, g.shape(v), g.op(v) and g.op(v).primitive) for v in g.order()]
    [('u', (4, 3), None), ('t1', (4, 2), 'dot_general'), ('y', (4, 2), 'tanh')]
    """
    graph = _read_function(f, name, n_inputs, binary, sizes, params, level, point, limit)
    return marked_closed(graph, f)  # closed over at values that fix its structure: said


def _read_function(
    f: Callable[..., Any],
    name: str,
    n_inputs: int | None,
    binary: bool,
    sizes: list[int] | list[int | tuple[int, ...]] | None,
    params: Iterable[str],
    level: Level,
    point: Sequence[Any] | None,
    limit: int | None,
) -> DGraph:
    """:func:`from_function`'s reading."""
    label = name or getattr(f, "__name__", "function")
    params = list(params)
    if level not in LEVELS:
        raise InputError(f"{label}: level={level!r}; use {' or '.join(map(repr, LEVELS))}")
    if point is not None and params and n_inputs is None:
        names = [p.name for p in _positional_parameters(f, label)]
        if len(point) == len(names) and set(params) & set(names):  # every argument's
            return _with_parameter_values(f, name, binary, sizes, params, level, point, limit)
    if point is not None:
        trees = None
        if not params:  # pytree arguments: the function of their leaves
            f, point, _, trees = flat_arguments(f, point, params, sizes)
            sizes = sizes if trees is None else trees.shapes
        if sizes is None and n_inputs is None and any(np.ndim(v) for v in point):
            sizes = sizes_of(point)  # (scalars alone: the default, and its point's check)
        graph = from_function(f, name, n_inputs, binary, sizes, params, level, limit=limit)
        graph = at_point(graph, f, point, label)
        if trees is not None:
            trees.add_note(graph)
        return graph
    if level == "array":
        return _from_arrays(f, label, n_inputs, sizes, params)
    if n_inputs is not None and params:
        raise InputError(f"{label}: params= needs named parameters, not n_inputs=")
    routes = [_by_arrays, _by_sympy]
    if inspects_expressions(f):  # sympy's reader: f works on expressions
        routes.reverse()
    failures = []
    for route in routes:
        try:
            return route(f, label, n_inputs, sizes, params, binary, limit)
        except (NoElementLevel, DataDependentIndex):
            raise
        except _Final as exc:  # traced, but refused: no other route may read it
            raise InputError(str(exc)) from None
        except InputError as exc:
            failures.append(exc)
    raise _named_failure(f, failures)


def sizes_of(point: Sequence[Any]) -> list[int | tuple[int, ...]]:
    """The ``sizes=`` that example arguments ``point`` give (a vector its length, a
    scalar 0, any other array its shape)."""
    shapes = [np.shape(v) for v in point]
    return [s[0] if len(s) == 1 else (s or 0) for s in shapes]


def _with_parameter_values(
    f: Callable[..., Any],
    name: str,
    binary: bool,
    sizes: Sequence[Any] | None,
    params: list[str],
    level: Level,
    point: Sequence[Any],
    limit: int | None,
) -> DGraph:
    """:func:`from_function` with ``point`` one value per argument, the ``params``'
    among them: read with the others as the point, the parameters' values kept
    (:func:`keep_parameter_values`), an integer one that fixes the structure closed over
    where reading it as a number fails (:func:`~.fixed_parameters.read_fixing`)."""
    names = [p.name for p in _positional_parameters(f, name or getattr(f, "__name__", ""))]
    values = {n: v for n, v in zip(names, point, strict=True) if n in params}
    given = [v for n, v in zip(names, point, strict=True) if n not in params]
    if sizes is None:  # the shapes of the values: 0 a scalar, a vector its length
        sizes = [np.shape(v)[0] if np.ndim(v) == 1 else np.shape(v) or 0 for v in point]

    def read(fixed: Fixed | None) -> DGraph:
        g, kept, rest = (f, params, values) if fixed is None else (fixed.f, fixed.kept(params),
                                                                   fixed.rest(values))  # fmt: skip
        shapes = sizes if fixed is None else fixed.drop(sizes)
        graph = from_function(g, name, None, binary, shapes, kept, level, given, limit)
        keep_parameter_values(graph, g, kept, rest or {})
        return graph

    graph, fixed = read_fixing(read, f, values)
    return graph if fixed is None else fixed.mark(graph)


class _SymbolsFailed(InputError):
    """``f`` raised when called with plain sympy symbols (:func:`_by_sympy`)."""


def _named_failure(f: Callable[..., Any], failures: list[InputError]) -> InputError:
    """The failure that names what to change: the first route's, except where sympy's
    route came first only by a method's name (``spl.integrate(a, x)``: ``f`` refers to
    nothing of sympy) and failed calling ``f`` with symbols, where the array tracer's
    refusal says what it could not read."""
    first = failures[0]
    if isinstance(first, _SymbolsFailed) and len(failures) > 1 and not _reaches_sympy(f):
        return failures[1]
    return first


class _Final(InputError):
    """A route's refusal after it read ``f`` (the expansion's limit): final."""


def _by_arrays(
    f: Callable[..., Any],
    label: str,
    n_inputs: int | None,
    sizes: Sequence[Any] | None,
    params: list[str],
    binary: bool,
    limit: int | None,
) -> DGraph:
    """The element level as the array trace expanded (:func:`~dgraph.core.expand.expand`):
    scalars are arrays of shape ``()``, ``params`` inputs whose elements become the
    graph's parameters."""
    given = list(params)
    if n_inputs is None:
        names = _checked_parameters(f, label, sizes, params)
        sizes = list(sizes or [0] * len(names))
        renamed = vertex_names(names)  # as _from_arrays names the vertices
        params = [renamed[p] for p in params]
    try:
        array = _from_arrays(f, label, n_inputs, sizes, [], given)
    except InputError as exc:
        if n_inputs is None and not any(sizes) and _scalar_refusal(exc):
            raise InputError(f"{exc}{_SIZES_HINT}") from None
        raise
    try:
        graph = expand(array, limit, parameters=params, binary=binary)
    except NoElementLevel as exc:
        # the array level as from_function(level="array") reads it (the same trace,
        # with no parameters): a reader that falls back to it need not trace f again
        exc.array = None if params else array
        raise
    except InputError as exc:
        raise _Final(str(exc)) from None
    graph.traced_with = "numpy"
    return graph


_SIZES_HINT = (
    "; every argument is a scalar unless its length is given: sizes= (or point=, an"
    " example; hessian(f, x) an example argument), --inputs NAME:N on the command line"
)


def _scalar_refusal(exc: InputError) -> bool:
    """Whether ``exc`` is a scalar argument indexed or iterated: traced without sizes,
    a vector argument."""
    return any(w in str(exc) for w in ("0 axes", "0-d", "iteration over"))


def _element_names(name: str, n: int, taken: set[str]) -> list[str]:
    """``name`` for a scalar (``n`` 0), else ``name0, name1, ...`` (``name_k`` where that
    is another parameter's name)."""
    if not n:
        return [name]
    return [f"{name}{k}" if f"{name}{k}" not in taken else f"{name}_{k}" for k in range(n)]


def _positional_parameters(f: Callable[..., Any], label: str) -> list[inspect.Parameter]:
    """``f``'s positional parameters, the arguments it is traced with; keyword-only ones
    with defaults (``def f(x, *, alpha=0.5)``) and ``**kwargs`` keep their defaults, and
    ``*args`` after them is given nothing (SciPy's objectives, ``fun(x, *args)``). One
    line for ``*args`` alone, a keyword-only parameter without a default, or none at
    all."""
    try:
        signature = list(inspect.signature(f).parameters.values())
    except (TypeError, ValueError):
        raise InputError(f"{label}: cannot read the function's parameters") from None
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    for p in signature:
        if p.kind == inspect.Parameter.KEYWORD_ONLY and p.default is inspect.Parameter.empty:
            raise InputError(
                f"{label}: the keyword-only parameter {p.name!r} has no default: give it"
                " one, or make it positional"
            )
    positional = [p for p in signature if p.kind in kinds]
    if not positional:
        raise InputError(
            f"{label}: needs plain positional parameters, one per input: write them out,"
            " def f(x, y, z) (in Python, or give n_inputs=)"
        )
    return positional


def _checked_parameters(
    f: Callable[..., Any], label: str, sizes: Sequence[Any] | None, params: list[str]
) -> list[str]:
    """``f``'s parameters' names: plain positional ones, one size each, ``params`` among
    them and not all of them."""
    signature = _positional_parameters(f, label)
    rest = signature[len(sizes) :] if sizes is not None else []
    if rest and all(p.default is not inspect.Parameter.empty for p in rest):
        signature = signature[: len(sizes)]  # the rest keep their defaults
    if sizes is not None and len(sizes) != len(signature):
        raise InputError(f"{label}: {len(sizes)} sizes for {len(signature)} parameters")
    taken = [p.name for p in signature]
    unknown = [p for p in params if p not in taken]
    if unknown:
        raise InputError(
            f"{label}: the function has no parameter {unknown[0]!r} to take as a"
            f" parameter (it has {', '.join(sorted(taken))})"
        )
    if len(set(params)) >= len(signature):
        raise InputError(f"{label}: every parameter is in params: nothing to differentiate")
    return taken


def _by_sympy(
    f: Callable[..., Any],
    label: str,
    n_inputs: int | None,
    sizes: Sequence[Any] | None,
    params: list[str],
    binary: bool,
    limit: int | None,
) -> DGraph:
    """``f`` called with plain sympy symbols (a vector: an object array of them, elements
    ``x0, x1, ...``), its result read by :func:`from_sympy`: sympy's own reader, for a
    function that works on the structure of expressions (``diff``, ``subs``, ``Matrix``)
    or that the array tracer cannot read."""
    if n_inputs is not None:
        inputs = [real_symbol(f"x{k}") for k in range(n_inputs)]
        args: list[Any] = [inputs]
        parameters: list[sympy.Symbol] = []
    else:
        names = _checked_parameters(f, label, sizes, params)
        args, inputs, parameters = [], [], []
        for name, n in zip(names, sizes or [0] * len(names), strict=True):
            if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
                raise InputError(f"{label}: plain sympy symbols stand for scalars and vectors")
            part = [real_symbol(e) for e in _element_names(name, int(n), set(names))]
            (parameters if name in params else inputs).extend(part)
            args.append(np.array(part, dtype=object) if n else part[0])
    try:
        with _symbolic_max_min(f):
            result, local = call_keeping_locals(f, args)
    except InputError:
        raise
    except Exception as exc:
        why = f"{exc}".splitlines()[0][:200] if str(exc) else type(exc).__name__
        raise _SymbolsFailed(f"{label}: calling it with symbols failed: {why}") from None
    outputs = _outputs(result, label)
    variables = _variables(local, set(map(str, [*inputs, *parameters])))
    graph = from_sympy(
        outputs,
        inputs,
        name=label if label != "<lambda>" else "",
        binary=binary,
        variables=variables,
        params=parameters,
    )
    graph.traced_with = "sympy"
    return graph


def keep_parameter_values(
    graph: DGraph, f, params: Sequence[str], values: Mapping[str, object]
) -> None:
    """The ``params``' values as ``graph``'s parameter point: a tensor graph's arrays by
    name; a scalar graph's parameters are the arrays' entries, the arrays in the order of
    ``f``'s signature, each flattened in C order (as the readers name them). Left unset
    where they do not fit (the check then draws them)."""
    try:
        if graph.is_tensor:
            renamed = vertex_names(list(inspect.signature(f).parameters))  # E: vertex E_
            by_vertex = {renamed.get(p, p): value for p, value in values.items()}
            graph.set_parameter_point({p: by_vertex[p] for p in graph.parameter_shapes})
            return
        ordered = [p for p in graph.parameters if p not in graph.solved]
        arrays = [p for p in inspect.signature(f).parameters if p in params]
        flat = np.concatenate([np.ravel(np.asarray(values[p], dtype=float)) for p in arrays])
        if flat.size == len(ordered):
            graph.set_parameter_point(dict(zip(ordered, flat, strict=True)))
    except (KeyError, GraphError, TypeError, ValueError):
        pass


def at_point(graph: DGraph, f: Callable[..., Any], point: Sequence[Any], label: str) -> DGraph:
    """``graph`` with ``point`` (one array per differentiated parameter) as its
    :attr:`~dgraph.core.graph.DGraph.point`, checked against ``f``'s own values there."""
    values = [np.asarray(v, dtype=float).reshape(-1) for v in point]
    graph.set_point(graph.point_from(np.concatenate(values) if values else [], "point="))
    check_point_values(graph, f, point, label)
    return graph


def _from_arrays(
    f: Callable[..., Any],
    label: str,
    n_inputs: int | None,
    sizes: list[int] | list[int | tuple[int, ...]] | None,
    params: list[str],
    data: Sequence[str] = (),
) -> DGraph:
    """:func:`from_function` at the array level: one traced array per parameter
    (``params``: the graph's array parameters, not differentiated; ``data``: parameters
    traced as inputs whose integer casts are still positions read at run time, as a
    parameter's: the element level's trace, which its expansion refuses)."""
    if n_inputs is not None and params:
        raise InputError(f"{label}: params= needs named parameters, not n_inputs=")
    guessed = n_inputs is None and not sizes  # every argument a scalar
    if n_inputs is not None:
        names, sizes = ["x"], [(n_inputs,)]
    else:
        signature = _positional_parameters(f, label)
        names = [p.name for p in signature]
        required = sum(p.default is inspect.Parameter.empty for p in signature)
        sizes = list(sizes or [()] * required)
        if required <= len(sizes) < len(names):  # the rest keep their defaults
            names = names[: len(sizes)]
        if len(sizes) != len(names):
            raise InputError(f"{label}: {len(sizes)} shapes for {len(names)} parameters")
    shapes = []
    for name, size in zip(names, sizes, strict=True):
        if isinstance(size, (int, np.integer)) and not isinstance(size, bool):
            size = (size,) if size else ()
        if not isinstance(size, (tuple, list)):
            raise InputError(f"{label}: the shape of {name!r} is not a tuple of lengths")
        shapes.append(check_shape(tuple(size), f"{label}: the shape of {name!r}"))
    unknown = [p for p in params if p not in names]
    if unknown:
        shown = ", ".join(names)
        raise InputError(
            f"{label}: the function has no parameter {unknown[0]!r} to take as a"
            f" parameter (it has {shown})"
        )
    if params and set(params) >= set(names):
        raise InputError(f"{label}: every parameter is in params: nothing to differentiate")
    renamed = vertex_names(names)  # a parameter E or pi: vertex E_, pi_
    names, params = [renamed[n] for n in names], [renamed[p] for p in params]
    data = [renamed[p] for p in data if p in renamed]
    try:
        return trace_arrays(f, shapes, names, label, _output_names, params, data)
    except InputError as exc:
        if guessed and _scalar_refusal(exc):
            raise InputError(f"{exc}{_SIZES_HINT}") from None
        raise


def _plain(value: Any) -> Any:
    """A traced value, array or number as a sympy expression (arrays: lists)."""
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.reshape(-1)]
    if isinstance(value, np.generic):
        return value.item()
    return value


def _outputs(result: Any, label: str) -> Any:
    if isinstance(result, np.ndarray):
        result = list(result.reshape(-1))
    if isinstance(result, Mapping):
        out = {}
        for key, value in result.items():
            value = _plain(value)
            if isinstance(value, list):
                out.update({f"{key}{k}": v for k, v in enumerate(value)})
            else:
                out[key] = value
        result = out
    elif isinstance(result, (list, tuple)):
        flat = []
        for value in map(_plain, result):
            flat += value if isinstance(value, list) else [value]
        result = flat
    else:
        result = _plain(result)
    if isinstance(result, (list, tuple, Mapping, sympy.MatrixBase)) and not len(result):
        raise InputError(f"{label}: returned no outputs")
    if not isinstance(result, (list, tuple, Mapping, sympy.MatrixBase, sympy.Basic, int, float)):
        raise InputError(
            f"{label}: returned {type(result).__name__}, not an expression or a list of them"
        )
    return result


def _variables(local: Mapping[str, Any], inputs: set[str]) -> dict[str, sympy.Expr]:
    """The function's local variables that hold a scalar expression of the inputs."""
    out = {}
    for key, value in local.items():
        value = _plain(value)
        # no free_symbols here: it recurses through the whole (deep, shared) expression;
        # a constant is no vertex, and the builder skips it
        if (
            key.isidentifier()
            and key not in inputs
            and isinstance(value, sympy.Expr)
            and not value.is_Atom
        ):
            out[key] = value
    return out


@contextlib.contextmanager
def _symbolic_max_min(f: Callable[..., Any]) -> Iterator[None]:
    """While ``f`` is traced, Python's ``max`` and ``min`` (where its module does not define
    its own) fall back to ``sympy.Max`` and ``sympy.Min`` when they cannot compare symbols."""
    namespace = getattr(f, "__globals__", None)
    names = [n for n in ("max", "min") if namespace is not None and n not in namespace]
    for name in names:
        namespace[name] = _falling_back(getattr(builtins, name), getattr(sympy, name.title()))
    try:
        yield
    finally:
        for name in names:
            namespace.pop(name, None)


def _falling_back(builtin: Callable[..., Any], symbolic: Callable[..., Any]) -> Callable:
    def choose(*args: Any, **kwargs: Any) -> Any:
        try:
            return builtin(*args, **kwargs)
        except TypeError:  # "cannot determine truth value of Relational"
            if kwargs:
                raise
            values = list(args[0]) if len(args) == 1 else list(args)
            return symbolic(*values)

    return choose


def load_function(spec: str) -> Callable[..., Any]:
    """Load ``path/to/file.py:function``."""
    path_text, _, func_name = spec.rpartition(":")
    path = Path(path_text)
    if not path.is_file():
        raise InputError(f"{path}: file not found")
    module_spec = importlib.util.spec_from_file_location(path.stem, path)
    if module_spec is None or module_spec.loader is None:
        raise InputError(f"{path}: cannot load as a Python module")
    module = importlib.util.module_from_spec(module_spec)
    # it runs registered, as ``import`` runs it (``@dataclass`` looks its module up there),
    # unless the name is taken (a file ``numpy.py`` still imports NumPy)
    registered = sys.modules.setdefault(module.__name__, module) is module
    try:
        with _beside(path):
            module_spec.loader.exec_module(module)
    except Exception as exc:
        raise InputError(f"{path}: importing it failed: {type(exc).__name__}: {exc}") from None
    finally:
        if registered:
            sys.modules.pop(module.__name__, None)
    f = getattr(module, func_name, None)
    if not callable(f):
        raise InputError(f"{path}: {_no_function(module, func_name)}")
    return _lifted(f) if type(f) is np.vectorize else f


def _lifted(vectorized: np.vectorize) -> Callable[..., Any]:
    """``@np.vectorize def f(x, y)`` as a function of ``f``'s parameters (the object's
    own are ``*args``) that calls it, so that the tracers read it as they read an
    ``np.vectorize`` a function calls (from its closure)."""

    def lifted(*args: Any) -> Any:
        return vectorized(*args)

    pyfunc = vectorized.pyfunc
    lifted.__signature__ = inspect.signature(pyfunc)  # type: ignore[attr-defined]
    lifted.__name__ = lifted.__qualname__ = getattr(pyfunc, "__name__", "f")
    return lifted


@contextlib.contextmanager
def _beside(path: Path) -> Iterator[None]:
    """While ``path`` is imported, its folder first on ``sys.path``, as ``python path``
    runs a script: ``from helpers import g`` finds the ``helpers.py`` beside it. The
    files beside it imported so are taken out of ``sys.modules`` again (the functions
    keep them), so that another folder's ``helpers.py`` is read as its own."""
    folder = path.resolve().parent
    before = set(sys.modules)
    sys.path.insert(0, str(folder))
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(str(folder))
        for name in set(sys.modules) - before:
            origin = getattr(sys.modules[name], "__file__", None)
            if "." not in name and origin and Path(origin).resolve().parent == folder:
                sys.modules.pop(name, None)


def _no_function(module: Any, name: str) -> str:
    """Why ``file.py:name`` names no function, with the functions the file defines (what
    a user who misspelled one, or left it out, needs to know)."""
    own = [
        k
        for k, v in vars(module).items()
        if callable(v) and not k.startswith("_") and getattr(v, "__module__", "") == module.__name__
    ]
    more = ", ..." if len(own) > 10 else ""
    defines = f" (it defines {', '.join(own[:10])}{more})" if own else ""
    if not name:
        return f"name a function after ':', path/to/file.py:function{defines}"
    if hasattr(module, name):
        return f"{name!r} is a {type(getattr(module, name)).__name__}, not a function{defines}"
    return f"has no function {name!r}{defines}"


def _is_jax(value: Any) -> bool:
    """Whether ``value`` comes from JAX: a ``jax`` module, a function from one, a jitted
    function or a JAX array."""
    module = value.__name__ if inspect.ismodule(value) else getattr(value, "__module__", "")
    kind = getattr(type(value), "__module__", "")
    return any(
        isinstance(m, str) and (m == "jax" or m.startswith(("jax.", "jaxlib")))
        for m in (module, kind)
    )


# names whose use means a function works on the structure of sympy expressions (methods
# and functions that differentiate, substitute, simplify, solve, or read an expression's
# parts): such a function is called with plain sympy symbols first, since a traced array
# is no sympy expression these could work on
_STRUCTURAL_NAMES = """diff Derivative subs xreplace replace doit simplify expand factor
collect cancel together apart trigsimp nsimplify powsimp radsimp solve linsolve nonlinsolve
solve_linear_system series integrate Integral limit jacobian hessian Matrix ImmutableMatrix
MutableDenseMatrix LUsolve inv det lambdify free_symbols atoms has coeff as_coefficients_dict
as_coeff_Mul as_coeff_Add as_independent args func count_ops rewrite evalf is_zero
is_constant equals dynamicsymbols KanesMethod LagrangesMethod"""
STRUCTURAL = frozenset(_STRUCTURAL_NAMES.split())
NUMPY_TOO = frozenset({"diff", "solve", "inv", "det"})  # NumPy's too (np.linalg.solve, np.diff):
# structural only in a function that reaches sympy

# sympy's names that take a traced array (elementwise functions: the array tracer maps
# them to NumPy's) and constants
_ELEMENTWISE_NAMES = """sin cos tan cot sec csc asin acos atan acot atan2 sinh cosh tanh
asinh acosh atanh exp log sqrt cbrt root Abs sign Max Min Piecewise Heaviside erf erfc gamma
loggamma floor ceiling pi E Rational Float Integer S"""
ELEMENTWISE = frozenset(_ELEMENTWISE_NAMES.split())


def _reached(f: Callable[..., Any]) -> Iterator[tuple[set[str], list[Any], dict[str, Any]]]:
    """For ``f`` and each function it refers to (or holds in a closure; not NumPy's or
    SciPy's), the names its code uses, the values they have and its module's namespace,
    each function once (:func:`~dgraph.frontends.reached.reached`)."""
    for _, names, values, namespace in reached(f, _numeric_library):
        yield names, values, namespace


def _numeric_library(g: Any) -> bool:
    """Whether ``g`` (a function or a module) is NumPy's or SciPy's own
    (``scipy.sparse.linalg.spsolve``): not looked into, its code's names (``has``,
    ``solve``) no sign of sympy."""
    module = (g.__name__ if inspect.ismodule(g) else getattr(g, "__module__", None)) or ""
    return module.split(".")[0] in ("numpy", "scipy")


def uses_jax(f: Callable[..., Any]) -> bool:
    """Whether ``f`` itself works with JAX, decided per function (issue 40): it is a JAX
    transformation's result (``jax.jit(g)``), or its code, or that of a function it calls
    from its module (or holds in a closure), refers to a JAX module, function or array.
    Such a function is read from its jaxpr; a NumPy function beside it in the same module
    is traced (:func:`from_function`)."""
    return any(_is_jax(v) for _, values, _ in _reached(f) for v in values)


def _from_sympy(value: Any) -> bool:
    module = value.__name__ if inspect.ismodule(value) else getattr(value, "__module__", "")
    return isinstance(module, str) and (module == "sympy" or module.startswith("sympy."))


def _reaches_sympy(f: Callable[..., Any]) -> bool:
    """Whether ``f``, or a function it refers to, refers to a sympy module or object."""
    return any(_from_sympy(v) for _, values, _ in _reached(f) for v in values)


def inspects_expressions(f: Callable[..., Any]) -> bool:
    """Whether ``f`` (or a function it calls) may work on the structure of sympy
    expressions, so that it is called with plain sympy symbols before traced arrays (the
    array trace is one vertex per operation; with plain symbols a loop's running sum is a
    new flattened sum at every step, quadratic): its code uses one of the
    :data:`STRUCTURAL` names, or it refers to sympy and uses a sympy name, or an
    attribute, other than the elementwise functions and constants of :data:`ELEMENTWISE`."""
    for names, values, namespace in _reached(f):
        sympy_reached = any(_from_sympy(v) for v in values)
        if names & (STRUCTURAL if sympy_reached else STRUCTURAL - NUMPY_TOO):
            return True
        if not sympy_reached:
            continue
        for name in names - ELEMENTWISE:
            if name in namespace:
                value = namespace[name]
                if _from_sympy(value) and not inspect.ismodule(value):
                    return True  # a sympy name imported: Matrix, Poly, ...
            elif not hasattr(builtins, name):
                return True  # an attribute: sympy.Matrix, expr.coeff, ...
    return False
