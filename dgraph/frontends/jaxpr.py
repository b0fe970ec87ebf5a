"""Graphs from JAX functions: one vertex per jaxpr equation (per element for small
arrays), edges labelled with each primitive's local partials.

``jax.make_jaxpr`` records what a JAX function computes as a list of equations over
primitives (``mul``, ``sin``, ``integer_pow``, ``select_n``, ...); each equation on
values that depend on the inputs becomes a vertex whose elemental function is the
primitive written in sympy over its operands' vertex symbols, so its local partials are
the primitive's derivatives. Literals fold into the functions, equations on constants are
evaluated, equations no output uses are dropped, and calls (``jit``/``pjit``,
``custom_jvp_call``, ``closed_call``) are inlined (the primal of a custom rule is
differentiated; where JAX's rule gives another ``J·v`` at the user's point the program is
refused in one line, and ``level="array"`` honours the rule). Moves that only rearrange elements
(``reshape``, ``slice``, ``squeeze``, ``broadcast_in_dim``, ``concatenate``, dtype
conversions) make no vertex.

Intermediates are named after their equation's place in the inlined equation list,
``v<k>`` (``v<k>_<i>`` for element ``i`` of an array), so that published elimination
orders over jaxpr equations can be replayed; inputs after the function's parameters
(``x``, or ``x0, x1, ...`` for the elements of an array ``x``), outputs after the
returned structure (``y``; ``y0, y1, ...``; a dict's keys).

References: the reinforcement-learning work on vertex elimination orders builds its
graphs from jaxprs in the same way (Lohoff and Neftci, "Optimizing automatic
differentiation with deep reinforcement learning", 2024).
"""

from __future__ import annotations

import inspect
import math
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy

from ..core.activity import dead_note
from ..core.graph import DGraph, vertex_symbol
from ..core.numeric import edge_values, vertex_values
from ..errors import InputError

__all__ = ["PRIMITIVES", "NotJax", "from_jax"]


def _jax():
    try:
        import jax
    except ImportError:
        raise InputError(
            "from_jax needs JAX: pip install 'jacobian-accumulation[jax]' (or jax[cpu])"
        ) from None
    return jax


class NotJax(InputError):
    """JAX could not trace the function because it turns a JAX value into a NumPy array or
    a Python number (``np.sin(x)``, ``float(x)``, ``if x > 0``): it is no JAX function,
    though its module may hold some; :func:`dgraph.frontends.load` traces it as NumPy
    instead."""


def _conversion_errors(jax) -> tuple[type, ...]:
    errors = jax.errors
    names = (
        "TracerArrayConversionError",
        "ConcretizationTypeError",
        "TracerBoolConversionError",
        "TracerIntegerConversionError",
    )
    return tuple(getattr(errors, n) for n in names if hasattr(errors, n))


def _first_line(exc: Exception, limit: int = 200) -> str:
    """An exception's message, first line only and at most ``limit`` characters (JAX's
    run to paragraphs)."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- what each primitive computes, over sympy operands --------------------------------------


def _logistic(x):
    return 1 / (1 + sympy.exp(-x))


def _select(pred, *cases):
    """``select_n(pred, *cases)``: case ``pred`` (a boolean picks case 1 when true)."""
    if len(cases) == 2:
        if pred is sympy.true or pred is sympy.false:
            return cases[1] if pred is sympy.true else cases[0]
        return sympy.Piecewise((cases[1], pred), (cases[0], True))
    if pred.is_Number:
        return cases[int(pred)]
    return sympy.Piecewise(
        *((c, sympy.Eq(pred, k)) for k, c in enumerate(cases[:-1])), (cases[-1], True)
    )


def _integer_pow(x, *, y):
    return x ** int(y)


def _erf_inv(x):
    return sympy.erfinv(x)


ELEMENTWISE: dict[str, Callable[..., sympy.Expr]] = {
    "add": lambda a, b: a + b,
    "add_any": lambda a, b: a + b,  # the sum of cotangents in a reverse-mode jaxpr
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "neg": lambda a: -a,
    "pow": lambda a, b: a**b,
    "integer_pow": _integer_pow,
    "square": lambda a: a**2,
    "sqrt": sympy.sqrt,
    "rsqrt": lambda a: 1 / sympy.sqrt(a),
    "cbrt": lambda a: sympy.cbrt(a),
    "exp": sympy.exp,
    "exp2": lambda a: 2**a,
    "expm1": lambda a: sympy.exp(a) - 1,
    "log": sympy.log,
    "log1p": lambda a: sympy.log(1 + a),
    "sin": sympy.sin,
    "cos": sympy.cos,
    "tan": sympy.tan,
    "asin": sympy.asin,
    "acos": sympy.acos,
    "atan": sympy.atan,
    "sinh": sympy.sinh,
    "cosh": sympy.cosh,
    "tanh": sympy.tanh,
    "asinh": sympy.asinh,
    "acosh": sympy.acosh,
    "atanh": sympy.atanh,
    "atan2": lambda a, b: sympy.atan2(a, b),
    "logistic": _logistic,
    "erf": sympy.erf,
    "erfc": sympy.erfc,
    "erf_inv": _erf_inv,
    "abs": sympy.Abs,
    "sign": sympy.sign,
    "max": lambda a, b: sympy.Max(a, b),
    "min": lambda a, b: sympy.Min(a, b),
    "select_n": _select,
    "floor": sympy.floor,
    "ceil": sympy.ceiling,
    "round": lambda a, **_: sympy.floor(a + sympy.S.Half),
    "gt": lambda a, b: sympy.Gt(a, b),
    "ge": lambda a, b: sympy.Ge(a, b),
    "lt": lambda a, b: sympy.Lt(a, b),
    "le": lambda a, b: sympy.Le(a, b),
    "eq": lambda a, b: sympy.Eq(a, b),
    "ne": lambda a, b: sympy.Ne(a, b),
    "and": lambda a, b: sympy.And(a, b),
    "or": lambda a, b: sympy.Or(a, b),
    "not": lambda a: sympy.Not(a),
}
# primitives whose value is a boolean: they make conditions, never vertices
_PREDICATES = {"gt", "ge", "lt", "le", "eq", "ne", "and", "or", "not"}
# params a primitive's sympy rule reads (the others are layout and precision)
_RULE_PARAMS = {"integer_pow": ("y",)}
# calls whose body is inlined: the param that holds it
_CALLS = {
    "pjit": "jaxpr",
    "jit": "jaxpr",
    "closed_call": "call_jaxpr",
    "core_call": "call_jaxpr",
    "custom_jvp_call": "call_jaxpr",
    "custom_vjp_call": "call_jaxpr",
    "custom_vjp_call_jaxpr": "fun_jaxpr",
    "remat": "jaxpr",
    "checkpoint": "jaxpr",
    "remat2": "jaxpr",  # jax.checkpoint's primitive in recent JAX
}
_MOVES = {
    "convert_element_type",
    "copy",
    "copy_p",
    "reshape",
    "squeeze",
    "expand_dims",
    "broadcast_in_dim",
    "slice",
    "concatenate",
    "transpose",
    "rev",
    "pad",
    "stop_gradient",
    "optimization_barrier",
    "reduce_precision",
}
PRIMITIVES = sorted(
    {
        "stack",
        "split",
        "iota",
        *ELEMENTWISE,
        *_CALLS,
        *_MOVES,
        "reduce_sum",
        "dot_general",
        "reduce_max",
        "reduce_min",
        "dynamic_slice",
        "squeeze",
    }
)


# -- interpreting a jaxpr -------------------------------------------------------------------


def called_jaxpr(eqn, where: str) -> tuple[Any, Any]:
    """The jaxpr a call equation (``pjit``, ``custom_jvp_call``, ...) runs, and its
    constants: calls are inlined, the primal computation is what is differentiated."""
    params = eqn.params
    inner = (
        params.get(_CALLS[eqn.primitive.name]) or params.get("jaxpr") or params.get("call_jaxpr")
    )
    if inner is None:
        raise InputError(f"{where}: cannot inline {eqn.primitive.name}: no jaxpr in its params")
    closed = getattr(inner, "jaxpr", inner)
    return closed, getattr(inner, "consts", getattr(inner, "literals", ()))


@dataclass
class _Record:
    """A vertex in the making: its elemental function over provisional symbols."""

    expr: sympy.Expr
    preds: list[int]


@dataclass
class _Interpreter:
    where: str
    records: list[_Record] = field(default_factory=list)
    symbols: list[sympy.Symbol] = field(default_factory=list)
    names: list[str] = field(default_factory=list)  # provisional names (v<k>[_i])
    folded: int = 0
    counter: int = 0  # equations seen, calls inlined
    every_equation: bool = False  # keep operations that simplify away (x * 1, 1 ** x)

    def vertex(self, expr: sympy.Expr, name: str, operands: frozenset = frozenset()) -> sympy.Expr:
        """A new vertex computing ``expr`` (over provisional vertex symbols); returns its
        symbol. Its operands are the provisional symbols ``expr`` reads and ``operands``."""
        preds = sorted(
            {self.index[s] for s in expr.free_symbols | operands if s in self.index},
        )
        k = len(self.records)
        sym = sympy.Symbol(f"_dg{k}", real=True)
        self.records.append(_Record(expr, preds))
        self.symbols.append(sym)
        self.names.append(name)
        self.index[sym] = k
        return sym

    def __post_init__(self) -> None:
        self.index: dict[sympy.Symbol, int] = {}

    def constant(self, value: Any) -> np.ndarray:
        """A literal or constant array as sympy numbers."""
        array = np.asarray(value)
        out = np.empty(array.shape, dtype=object)
        for i, v in np.ndenumerate(array):
            out[i] = _number(v)
        return out

    def run(self, jaxpr, consts, args: list[np.ndarray]) -> list[np.ndarray]:
        """The values of ``jaxpr``'s outputs (object arrays of sympy expressions)."""
        _jax()
        from jax.extend.core import Literal as literal

        env: dict[Any, np.ndarray] = {}
        for var, value in zip(jaxpr.constvars, consts, strict=True):
            env[var] = self.constant(value)
        for var, value in zip(jaxpr.invars, args, strict=True):
            env[var] = value

        def read(atom) -> np.ndarray:
            if isinstance(atom, literal):
                return self.constant(atom.val)
            return env[atom]

        for eqn in jaxpr.eqns:
            ins = [read(a) for a in eqn.invars]
            outs = self.equation(eqn, ins)
            for var, value in zip(eqn.outvars, outs, strict=True):
                env[var] = value
        return [read(v) for v in jaxpr.outvars]

    def equation(self, eqn, ins: list[np.ndarray]) -> list[np.ndarray]:
        name = eqn.primitive.name
        params = eqn.params
        if name in _CALLS:
            closed, consts = called_jaxpr(eqn, self.where)
            n = len(closed.invars)  # custom_jvp_call passes the jvp function's operands after
            return self.run(closed, consts, ins[:n])
        self.counter += 1
        k = self.counter
        if name in ELEMENTWISE:
            return [self.elementwise(name, params, ins, eqn.outvars[0].aval.shape, k)]
        if name == "convert_element_type" and not np.issubdtype(params["new_dtype"], np.bool_):
            return [_numbers(ins[0])]
        if name in _MOVES:
            return [_move(name, params, ins, eqn.outvars[0].aval.shape)]
        if name == "reduce_sum":
            return [self.reduce(ins[0], params["axes"], sympy.Add, k)]
        if name in ("reduce_max", "reduce_min"):
            func = sympy.Max if name == "reduce_max" else sympy.Min
            return [self.reduce(ins[0], params["axes"], func, k)]
        if name == "dot_general":
            return [self.dot(ins[0], ins[1], params["dimension_numbers"], k)]
        if name == "dynamic_slice":
            return [self.dynamic_slice(ins, params["slice_sizes"])]
        if name == "iota":  # 0, 1, 2, ... along one dimension: a constant
            shape, dim = tuple(params["shape"]), params["dimension"]
            return [self.constant(np.indices(shape)[dim] if shape else 0)]
        if name == "stack":
            return [np.stack(ins, axis=params["axis"])]
        if name == "split":
            cuts = np.cumsum([int(n) for n in params["sizes"]])[:-1]
            return list(np.split(ins[0], cuts, axis=params["axis"]))
        raise InputError(
            f"{self.where}: jaxpr primitive {name!r} is not supported (supported: elementwise"
            " arithmetic and functions, comparisons and select_n, reduce_sum/max/min,"
            " dot_general, slicing, reshaping and calls)"
        )

    def make(
        self, expr: sympy.Expr, k: int, index: tuple, size: int, operands: tuple = ()
    ) -> sympy.Expr:
        """``expr`` as a vertex when it reads a vertex, else folded to a number. With
        ``every_equation``, an operation whose ``operands`` read a vertex is a vertex with
        an edge from each of them even where sympy simplified it away: ``x * 1`` (partial
        1), ``1 ** x`` (partial 0)."""
        reads: frozenset = frozenset()
        if self.every_equation:
            reads = frozenset(
                s
                for a in operands
                if isinstance(a, sympy.Basic)
                for s in a.free_symbols
                if s in self.index
            )
        reads_vertex = bool(expr.free_symbols & self.index.keys())
        if not (reads_vertex or reads):
            self.folded += 1
            return _fold(expr, self.where)
        if expr in self.index and not reads:
            return expr  # the operation changed nothing (x * 1, x + 0)
        if not reads_vertex:
            expr = _fold(expr, self.where)  # 1 ** x: the value is constant, the edge stays
        suffix = "" if size == 1 else "_" + "_".join(map(str, index))
        return self.vertex(expr, f"v{k}{suffix}", reads)

    def elementwise(self, name: str, params, ins: list[np.ndarray], shape, k: int) -> np.ndarray:
        rule = ELEMENTWISE[name]
        keywords = {p: params[p] for p in _RULE_PARAMS.get(name, ())}
        ins = [np.broadcast_to(a, shape) for a in ins]
        out = np.empty(shape, dtype=object)
        size = int(np.prod(shape)) if shape else 1
        for index in np.ndindex(*shape) if shape else [()]:
            args = [a[index] for a in ins]
            try:
                value = rule(*args, **keywords)
            except (TypeError, ValueError) as exc:
                raise InputError(f"{self.where}: {name} on {args}: {exc}") from None
            if name in _PREDICATES or not isinstance(value, sympy.Expr):
                out[index] = value  # a condition: read by select_n, never a vertex
            else:
                out[index] = self.make(value, k, index, size, tuple(args))
        return out

    def reduce(self, a: np.ndarray, axes, func, k: int) -> np.ndarray:
        moved = np.moveaxis(a, list(axes), list(range(-len(axes), 0)))
        shape = moved.shape[: moved.ndim - len(axes)]
        flat = moved.reshape(*shape, -1) if shape else moved.reshape(-1)
        out = np.empty(shape, dtype=object)
        size = int(np.prod(shape)) if shape else 1
        for index in np.ndindex(*shape) if shape else [()]:
            terms = list(flat[index])
            out[index] = self.make(func(*terms), k, index, size, tuple(terms))
        return out

    def dot(self, a: np.ndarray, b: np.ndarray, numbers, k: int) -> np.ndarray:
        (ca, cb), (ba, bb) = numbers
        if ba or bb:
            raise InputError(f"{self.where}: dot_general with batch dimensions is not supported")
        product = np.tensordot(a, b, axes=(list(ca), list(cb))) if ca else np.multiply.outer(a, b)
        product = np.asarray(product, dtype=object)
        out = np.empty(product.shape, dtype=object)
        size = int(np.prod(product.shape)) if product.shape else 1
        for index in np.ndindex(*product.shape) if product.shape else [()]:
            out[index] = self.make(sympy.sympify(product[index]), k, index, size)
        return out

    def dynamic_slice(self, ins: list[np.ndarray], sizes) -> np.ndarray:
        a, *starts = ins
        offsets = []
        for s in starts:
            value = s[()] if s.shape == () else s
            if not (isinstance(value, sympy.Expr) and value.is_Integer):
                raise InputError(
                    f"{self.where}: an index that depends on the inputs (dynamic_slice) is"
                    " not supported: index with constants"
                )
            offsets.append(int(value) % a.shape[len(offsets)])
        window = tuple(slice(o, o + n) for o, n in zip(offsets, sizes, strict=True))
        return a[window]


def _is_condition(value: sympy.Basic) -> bool:
    """A truth value or relation (a vertex symbol is a sympy ``Boolean`` too, but a number)."""
    return isinstance(value, sympy.logic.boolalg.Boolean) and not value.is_Symbol


def _numbers(a: np.ndarray) -> np.ndarray:
    """Booleans as numbers (a dtype conversion): true 1, false 0, a condition 1 where it
    holds (derivative 0 everywhere else)."""
    out = np.empty(a.shape, dtype=object)
    for i, v in np.ndenumerate(a):
        if v is sympy.true or v is sympy.false:
            out[i] = sympy.Integer(int(v is sympy.true))
        elif _is_condition(v):
            out[i] = sympy.Piecewise((1, v), (0, True))
        else:
            out[i] = v
    return out


def _number(v: Any) -> sympy.Expr:
    """A literal as sympy: integers and halves exact, others as floats; booleans true/false."""
    if isinstance(v, (bool, np.bool_)):
        return sympy.true if v else sympy.false
    value = float(v)
    if not math.isfinite(value):
        raise InputError(f"a constant in the function is {value}")
    if value == int(value) and abs(value) < 2**53:
        return sympy.Integer(int(value))
    if (2 * value) == int(2 * value):
        return sympy.Rational(int(2 * value), 2)
    return sympy.Float(value)  # the double itself (53 bits), printed short


def _fold(expr: sympy.Expr, where: str) -> sympy.Expr:
    """A constant operation evaluated (to an exact number where it stays one)."""
    if expr.is_Number:
        return expr
    value = expr.evalf()
    if not value.is_Number or not value.is_finite:
        raise InputError(f"{where}: a constant expression evaluates to {value}")
    return value


def _move(name: str, params, ins: list[np.ndarray], shape) -> np.ndarray:
    """Operations that only rearrange elements."""
    a = ins[0]
    if name in (
        "convert_element_type",
        "copy",
        "copy_p",
        "stop_gradient",
        "optimization_barrier",
        "reduce_precision",
    ):
        if name == "stop_gradient":
            raise InputError(
                "stop_gradient is not supported: its derivative is not the primitive's"
            )
        return a
    if name in ("reshape", "squeeze", "expand_dims"):
        return a.reshape(shape)
    if name == "broadcast_in_dim":
        dims = params["broadcast_dimensions"]
        expanded = a.reshape(
            [a.shape[dims.index(d)] if d in dims else 1 for d in range(len(shape))]
        )
        return np.broadcast_to(expanded, shape).copy()
    if name == "slice":
        strides = params.get("strides") or (1,) * a.ndim
        window = tuple(
            slice(s, e, st)
            for s, e, st in zip(
                params["start_indices"], params["limit_indices"], strides, strict=True
            )
        )
        return a[window]
    if name == "concatenate":
        return np.concatenate(ins, axis=params["dimension"])
    if name == "transpose":
        return np.transpose(a, params["permutation"])
    if name == "rev":
        return np.flip(a, axis=tuple(params["dimensions"]))
    if name == "pad":  # the padding value (a constant or a vertex) fills the new places
        config = params["padding_config"]
        if any(interior or lo < 0 or hi < 0 for lo, hi, interior in config):
            raise InputError("pad: interior or negative padding is not supported")
        out = np.empty(shape, dtype=object)
        out[...] = ins[1].reshape(()).item() if ins[1].size == 1 else ins[1]
        out[tuple(slice(lo, lo + n) for (lo, _, _), n in zip(config, a.shape, strict=True))] = a
        return out
    raise InputError(f"jaxpr primitive {name!r} is not supported")


# -- names and the graph ----------------------------------------------------------------


def _parameter_names(f: Callable[..., Any], count: int) -> list[str]:
    try:
        params = list(inspect.signature(f).parameters)
    except (TypeError, ValueError):
        params = []
    return params[:count] if len(params) >= count else [f"x{k}" for k in range(count)]


def _element_names(base: str, shape: tuple, taken: set[str]) -> list[str]:
    """``x`` for a scalar; ``x0, x1, ...`` for a vector (``x_0`` where that is taken or
    ``base`` ends in a digit), ``x_0_1`` for higher ranks."""
    if not base.isidentifier():
        raise InputError(f"{base!r} cannot name a vertex: names must be identifiers")
    if shape == ():
        return [base]
    out = []
    for index in np.ndindex(*shape):
        name = base + "_" + "_".join(map(str, index))
        plain = base + str(index[0])
        if len(shape) == 1 and not base[-1].isdigit() and plain not in taken:
            name = plain
        out.append(name)
    return out


def from_jax(
    f: Callable[..., Any],
    *example_args: Any,
    name: str = "",
    every_equation: bool = False,
    level: str = "element",
) -> DGraph:
    """The differentiation graph of a JAX function at arguments shaped like
    ``example_args`` (scalars or small arrays), one vertex per jaxpr equation (per element
    of an array).

    ``level="array"`` keeps arrays whole instead: one tensor vertex per equation, its
    edges Jacobian blocks (:mod:`dgraph.frontends.jaxpr_arrays`; ``every_equation``
    does not apply there). The default ``level="element"`` is the element-by-element graph,
    as :func:`dgraph.frontends.from_function` names it.

    An operation that simplifies away is no vertex by default: ``x * 1`` is ``x``, and
    ``1 ** x`` the constant 1. With ``every_equation`` each elementwise operation and
    reduction on values that depend on the inputs is a vertex with an edge from each such
    operand, whatever it simplifies to (the edge of ``1 ** x`` has partial 0): the graph of
    the jaxpr as written, on which AlphaGrad (Lohoff and Neftci 2024) counts.

    >>> import jax.numpy as jnp
    >>> g = from_jax(lambda x, y: jnp.sin(x) * y + x, 1.0, 2.0)
    >>> g.inputs, g.intermediates, g.outputs
    (['x', 'y'], ['v1', 'v2'], ['f'])
    """
    if level == "array":
        from .jaxpr_arrays import from_jax_arrays

        return from_jax_arrays(f, *example_args, name=name)
    if level != "element":
        raise InputError(f"level {str(level)[:20]!r} is not one of 'element', 'array'")
    jax = _jax()
    label = name or getattr(f, "__name__", "function")
    label = "" if label == "<lambda>" else label
    where = label or "the function"
    args = [np.asarray(a, dtype=np.float64) for a in example_args]
    if not args:
        raise InputError(f"{where}: give example arguments (their shapes make the inputs)")
    try:
        with _x64(jax):  # literals as written, not rounded to float32
            closed, out_shape = jax.make_jaxpr(f, return_shape=True)(*args)
    except InputError:
        raise
    except Exception as exc:
        kind = NotJax if isinstance(exc, _conversion_errors(jax)) else InputError
        raise kind(
            f"{where}: tracing it with JAX failed: {type(exc).__name__}: {_first_line(exc)}"
        ) from None
    interpreter = _Interpreter(where, every_equation=every_equation)
    params = _parameter_names(f, len(args))
    taken: set[str] = set()
    inputs: list[tuple[str, sympy.Symbol]] = []
    arrays = []
    for base, a in zip(params, args, strict=True):
        names = _element_names(base, a.shape, taken)
        taken.update(names)
        array = np.empty(a.shape, dtype=object)
        for index, n in zip(np.ndindex(*a.shape) if a.shape else [()], names, strict=True):
            sym = sympy.Symbol(f"_in_{n}", real=True)
            interpreter.index[sym] = -1 - len(inputs)
            inputs.append((n, sym))
            array[index] = sym
        arrays.append(array)
    values = interpreter.run(closed.jaxpr, closed.consts, arrays)
    _, tree = jax.tree_util.tree_flatten(out_shape)
    out_names = _output_names(tree, [v.shape for v in values], set(n for n, _ in inputs), jax)
    elements = [e for v in values for e in (v.reshape(-1) if v.shape else [v[()]])]
    graph = _graph(interpreter, inputs, list(zip(out_names, elements, strict=True)), label, where)
    given = [float(c) for a in args for c in a.reshape(-1)]
    graph.set_point(dict(zip([n for n, _ in inputs], given, strict=True)))
    if _has_custom_rule(closed.jaxpr):
        _check_custom_rules(graph, f, params, args, len(values), out_names, where)
    return graph


CUSTOM_RULES = ("custom_jvp_call", "custom_vjp_call", "custom_vjp_call_jaxpr")


def _has_custom_rule(jaxpr) -> bool:
    """Whether ``jaxpr`` or a jaxpr nested in its equations calls a custom rule."""
    stack = [jaxpr]
    while stack:
        for eqn in stack.pop().eqns:
            if eqn.primitive.name in CUSTOM_RULES:
                return True
            for value in eqn.params.values():
                for inner in value if isinstance(value, (list, tuple)) else (value,):
                    inner = getattr(inner, "jaxpr", inner)
                    if hasattr(inner, "eqns"):
                        stack.append(inner)
    return False


def _check_custom_rules(
    graph: DGraph,
    f: Callable[..., Any],
    params: list[str],
    args: list,
    count: int,
    outputs: list,
    where: str,
) -> None:
    """The element level differentiates a custom rule's primal; JAX (``jax.jacfwd``)
    follows the rule. Where the two differ at the user's point (``J·v`` along a random
    direction, against |J|·|v|), refuse in one line rather than return the primal's
    derivative; the array level follows the rule."""
    if graph.parameters:
        return
    rng = np.random.default_rng(0)
    moves = [rng.standard_normal(a.shape) for a in args]
    leaves = [str(k) for k in range(count)]  # the returned arrays, in order
    at, along = dict(zip(params, args, strict=True)), dict(zip(params, moves, strict=True))
    reference = JaxJvp(f, params, leaves)(at, along)
    if reference is None:
        return
    expected = np.concatenate([np.ravel(reference[k]) for k in leaves])
    point = graph.point
    with np.errstate(all="ignore"):
        values = vertex_values(graph, np.array([point[x] for x in graph.inputs], dtype=float))
        labels = edge_values(graph, values)
    tangent = dict(zip(graph.inputs, np.concatenate([np.ravel(m) for m in moves]), strict=True))
    size = {x: abs(t) for x, t in tangent.items()}
    for v in graph.order():
        if v in tangent:
            continue
        preds = graph.predecessors(v)
        tangent[v] = sum(float(labels[graph.symbol(u, v)]) * tangent[u] for u in preds)
        size[v] = sum(abs(float(labels[graph.symbol(u, v)])) * size[u] for u in preds)
    names = [n for n in outputs if n in tangent]
    if len(names) != expected.size:
        return
    got = np.array([tangent[n] for n in names], dtype=float)
    unit = np.maximum(np.array([size[n] for n in names], dtype=float), 1e-300)
    error = np.abs(got - expected) / unit
    if not np.all(error <= 1e-8):
        raise InputError(
            f"{where}: a custom_jvp/custom_vjp rule differs from its primal's derivative at"
            " the given point; the element level differentiates the primal: use"
            " level='array', which follows the rule"
        )


class JaxJvp:
    """``J·v`` of a JAX function by JAX's own ``jvp``, in float64 as the builders trace:
    ``(inputs, tangents) -> {output: J·v}``, arguments and results by the graph's names
    (``inputs`` its parameters in order, ``outputs`` its returned leaves in order). The
    reference a tensor graph's values are checked against
    (:attr:`dgraph.core.graph.DGraph.jvp_reference`); picklable where ``f`` is. None in a
    forked child (JAX's threads do not survive a fork: the check then uses differences);
    unpickled in another process, it works there."""

    def __init__(self, f: Callable[..., Any], inputs: list[str], outputs: list[str]) -> None:
        self.f, self.inputs, self.outputs = f, list(inputs), list(outputs)
        self.pid = os.getpid()

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.pid = os.getpid()  # unpickled: JAX starts afresh in this process

    def __call__(self, inputs: dict, tangents: dict) -> dict[str, np.ndarray] | None:
        if os.getpid() != self.pid:
            return None
        jax = _jax()
        with _x64(jax):
            primals = tuple(jax.numpy.asarray(inputs[x], dtype=float) for x in self.inputs)
            moves = tuple(jax.numpy.asarray(tangents[x], dtype=float) for x in self.inputs)
            try:
                _, out = jax.jvp(self.f, primals, moves)
            except TypeError as exc:  # a custom_vjp inside: JAX has no forward mode for it
                if "custom_vjp" not in str(exc):
                    raise
                out = _transposed_pullback(jax, self.f, primals, moves)
            leaves = [np.asarray(leaf, dtype=float) for leaf in jax.tree_util.tree_leaves(out)]
        return dict(zip(self.outputs, leaves, strict=True))


def _transposed_pullback(jax, f: Callable[..., Any], primals: tuple, moves: tuple) -> Any:
    """``J·v`` where only reverse mode applies: the transpose of JAX's pullback
    ``w -> Jᵀw`` (linear in ``w``) applied to the tangents, as ``jax.jacrev`` reads J."""
    y, pullback = jax.vjp(f, *primals)
    (out,) = jax.linear_transpose(pullback, y)(moves)
    return out


def _x64(jax):
    if hasattr(jax, "enable_x64"):
        return jax.enable_x64(True)
    return jax.experimental.enable_x64()


def _output_names(tree, shapes, inputs: set[str], jax) -> list[str]:
    """``y`` for one scalar; ``y0, y1, ...`` for several; a dict's keys; the elements of
    an array output numbered after its name."""
    keys = _output_keys(tree, len(shapes), inputs, jax)
    out: list[str] = []
    for key, shape in zip(keys, shapes, strict=True):
        out += _element_names(key, shape, inputs | set(out))
    return out


def _output_keys(tree, count: int, inputs: set[str], jax) -> list[str]:
    """One name per returned array: ``y``, ``y0, y1, ...`` or a dict's keys."""
    keys = None
    try:
        paths = [
            p
            for p, _ in jax.tree_util.tree_flatten_with_path(
                jax.tree_util.tree_unflatten(tree, [0] * tree.num_leaves)
            )[0]
        ]
        if paths and all(len(p) == 1 and hasattr(p[0], "key") for p in paths):
            keys = [str(p[0].key) for p in paths]
    except Exception:
        keys = None
    base = "y" if "y" not in inputs else "f"
    if keys is None:
        keys = [base] if count == 1 else [f"{base}{k}" for k in range(count)]
    return keys


def _graph(interpreter: _Interpreter, inputs, outputs, label: str, where: str) -> DGraph:
    records = interpreter.records
    for out_name, value in outputs:
        if not isinstance(value, sympy.Expr) or not (value.free_symbols & interpreter.index.keys()):
            raise InputError(f"{where}: output {out_name!r} does not depend on the inputs")
    # live vertices: those some output reaches back to
    live: set[int] = set()
    stack = [interpreter.index[v] for _, v in outputs]
    while stack:
        k = stack.pop()
        if k < 0 or k in live:
            continue
        live.add(k)
        stack.extend(records[k].preds)
    dropped = len(records) - len(live)
    # names: an output names its vertex when that vertex is no other output's and has
    # no use but the outputs; else the output is a copy of it
    uses: dict[int, int] = {}
    for k in live:
        for p in records[k].preds:
            uses[p] = uses.get(p, 0) + 1
    fixed = {n for n, _ in inputs} | {n for n, _ in outputs}
    prefix = next(
        p
        for p in ("v", "t", "w", "u", "q", "e")
        if not any(p + interpreter.names[k][1:] in fixed for k in live)
    )
    names = {k: prefix + interpreter.names[k][1:] for k in live}
    for k, (n, _) in enumerate(inputs):
        names[-1 - k] = n
    copies: list[tuple[str, sympy.Symbol]] = []
    claimed: set[int] = set()
    returned = Counter(interpreter.index[value] for _, value in outputs)
    for out_name, value in outputs:
        k = interpreter.index[value]
        if k >= 0 and returned[k] == 1 and not uses.get(k):  # else each output a copy
            names[k] = out_name
            claimed.add(k)
        else:
            copies.append((out_name, value))
    symbol = {
        (interpreter.symbols[k] if k >= 0 else inputs[-1 - k][1]): vertex_symbol(n)
        for k, n in names.items()
    }
    g = DGraph(label)
    for n, _ in inputs:
        g._add_vertex(n, "input", None)
    # intermediates in equation order, then the outputs in the order returned
    for k in sorted(k for k in live if k not in claimed):
        g._add_vertex(names[k], "intermediate", records[k].expr.xreplace(symbol))
    copied = dict(copies)
    for out_name, value in outputs:
        if out_name in copied:
            g._add_vertex(out_name, "output", symbol[value])
        else:
            k = interpreter.index[value]
            g._add_vertex(out_name, "output", records[k].expr.xreplace(symbol))
    edges = []
    for k in sorted(live):
        reads = {s for s in records[k].expr.free_symbols if s in interpreter.index}
        reads |= {interpreter.symbols[p] if p >= 0 else inputs[-1 - p][1] for p in records[k].preds}
        edges += [(names[interpreter.index[s]], names[k]) for s in sorted(reads, key=str)]
    edges += [(names[interpreter.index[v]], n) for n, v in copies]
    g._add_edges(edges)
    notes = []
    if dropped:  # named as the equations' vertices would have been
        dead = [prefix + interpreter.names[k][1:] for k in range(len(records)) if k not in live]
        notes.append(f"{where}: {dead_note(dead)}")
    if interpreter.folded:
        notes.append(f"{where}: {interpreter.folded} operations on constants were folded")
    g.notes = notes
    g.traced_with = "jax"
    return g._validate(expressions=True)
