"""NumPy-style Python functions traced: a value that depends on the inputs is a
:class:`Traced` sympy expression that NumPy's ufuncs, :mod:`math`'s functions and Python's
operators accept, so ``np.sin(x[0]) * math.exp(y)`` builds the expression the graph is
made of. Vector parameters are NumPy object arrays of traced elements (indexing, slicing,
``np.sum``, ``@`` work element by element). What cannot be traced says so in one line: a
branch on a traced value (``if x > 0``: use ``np.where``), ``float()`` of one, a function
without a sympy counterpart.

The tracer keeps a tape, so that the graph has about one vertex per traced operation
and tracing takes time linear in the operations: an operand that is not an atom is
replaced by a symbol standing for it (the tape maps the symbols to their expressions, in
order; each becomes one vertex), except where sympy merges it into the result (a sum into
a sum, a product or power into a product, a sum scaled by a number) and it is short and
used once. Those still flatten as before (``a*b*c`` is one product), but a long operand
(:data:`LONG` terms) or one used again (:data:`REUSED` terms or more) is a symbol too:
otherwise a running sum whose partial sums are also used (``t = sin(y); y = y + t``,
n steps) makes n sums of up to n terms, O(n^2) edges and tracing time. A function whose
tape has at most :data:`WRITTEN_OUT` entries is written out again (sympy rebuilds each
expression as it was), so that small functions keep the graphs and vertex names they had.
A traced value that sympy converts (``sympy.sin(y)``, ``t * y`` for a sympy ``t``) is an
operand too, put on the tape unless it is an atom: sympy's functions of scalars trace as
NumPy's do (issue 40), and a function that works on expressions' structure (``diff``,
``subs``) is called with plain symbols instead
(:func:`dgraph.frontends.functions.inspects_expressions`).
"""

from __future__ import annotations

import contextlib
import math
import numbers
import operator
import types
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import sympy

from ..errors import InputError
from .frames import call_keeping_locals

__all__ = ["Branch", "Traced", "tape_symbol", "traced_call"]

LONG = 32  # terms or factors: an operand this long is put on the tape before it merges
REUSED = 4  # ... and one this long that was used before
WRITTEN_OUT = 50  # tape entries: a tape this short is substituted back


def tape_symbol(k: int) -> sympy.Symbol:
    """The ``k``-th symbol of a trace's tape (``#1``, ``#2``, ...: no Python name, so no
    input's)."""
    symbol = sympy.Expr.__new__(sympy.Symbol)  # real_symbol's facts, not deduced again
    symbol.name = f"#{k}"
    symbol._assumptions = _REAL._assumptions
    symbol._assumptions_orig = _REAL._assumptions_orig
    symbol._assumptions0 = _REAL._assumptions0
    return symbol


_REAL = sympy.Symbol("_real", real=True)


_TAPE: list[dict[sympy.Expr, sympy.Symbol]] = []  # the tape of the trace running now


def _taped(e: sympy.Expr) -> sympy.Symbol:
    """The tape symbol of ``e`` (one per distinct expression: ``x*y - y*x`` still cancels)."""
    tape = _TAPE[-1]
    symbol = tape.get(e)
    if symbol is None:
        symbol = tape[e] = tape_symbol(len(tape) + 1)
    return symbol


class Branch(TypeError):
    """A value that depends on the inputs used where Python needs a bool or a float.
    (A TypeError, so that ``max``/``min`` fall back to ``sympy.Max``/``Min``.)"""


def _sym(value: Any) -> sympy.Expr:
    if isinstance(value, Traced):
        return value.operand()
    if isinstance(value, (bool, np.bool_)):
        raise Branch("a boolean cannot be a number in a traced expression")
    if isinstance(value, numbers.Integral):
        return sympy.Integer(int(value))
    if isinstance(value, numbers.Real):
        return sympy.Float(float(value))
    if isinstance(value, sympy.Basic):
        return value
    raise TypeError(f"cannot trace a {type(value).__name__}")


def _wrap(expr: sympy.Expr) -> Any:
    """The result of an operation on a traced value: traced unless it came out a number
    (``x - x``). Not ``free_symbols``: that walks the whole expression at every step."""
    return _number(expr) if expr.is_Number else Traced(expr)


def _number(expr: sympy.Expr) -> float | int:
    return int(expr) if expr.is_Integer else float(expr)


_UNARY: dict[str, Callable[[sympy.Expr], sympy.Expr]] = {
    "sin": sympy.sin,
    "cos": sympy.cos,
    "tan": sympy.tan,
    "arcsin": sympy.asin,
    "arccos": sympy.acos,
    "arctan": sympy.atan,
    "sinh": sympy.sinh,
    "cosh": sympy.cosh,
    "tanh": sympy.tanh,
    "arcsinh": sympy.asinh,
    "arccosh": sympy.acosh,
    "arctanh": sympy.atanh,
    "exp": sympy.exp,
    "exp2": lambda a: 2**a,
    "expm1": lambda a: sympy.exp(a) - 1,
    "log": sympy.log,
    "log2": lambda a: sympy.log(a, 2),
    "log10": lambda a: sympy.log(a, 10),
    "log1p": lambda a: sympy.log(1 + a),
    "sqrt": sympy.sqrt,
    "cbrt": sympy.cbrt,
    "square": lambda a: a**2,
    "absolute": sympy.Abs,
    "fabs": sympy.Abs,
    "sign": sympy.sign,
    "negative": lambda a: -a,
    "positive": lambda a: a,
    "reciprocal": lambda a: 1 / a,
    "conjugate": lambda a: a,
    "erf": sympy.erf,
    "erfc": sympy.erfc,
    "gamma": sympy.gamma,
    "lgamma": sympy.loggamma,
    "floor": sympy.floor,
    "ceil": sympy.ceiling,
    # math's names
    "asin": sympy.asin,
    "acos": sympy.acos,
    "atan": sympy.atan,
    "asinh": sympy.asinh,
    "acosh": sympy.acosh,
    "atanh": sympy.atanh,
}
_BINARY: dict[str, Callable[[sympy.Expr, sympy.Expr], sympy.Expr]] = {
    "add": lambda a, b: a + b,
    "subtract": lambda a, b: a - b,
    "multiply": lambda a, b: a * b,
    "divide": lambda a, b: a / b,
    "true_divide": lambda a, b: a / b,
    "power": lambda a, b: a**b,
    "float_power": lambda a, b: a**b,
    "pow": lambda a, b: a**b,
    "arctan2": sympy.atan2,
    "atan2": sympy.atan2,
    "hypot": lambda a, b: sympy.sqrt(a**2 + b**2),
    "maximum": sympy.Max,
    "minimum": sympy.Min,
    "fmax": sympy.Max,
    "fmin": sympy.Min,
}


class Traced:
    """A value that depends on the inputs: a sympy expression with Python's and NumPy's
    arithmetic."""

    __slots__ = ("expr", "symbol", "used")
    __array_priority__ = 1000

    def __init__(self, expr: sympy.Expr) -> None:
        self.expr = expr
        self.used = False  # an operand of some operation already
        self.symbol: sympy.Symbol | None = None  # its tape symbol, once it has one

    def __repr__(self) -> str:
        return f"Traced({self.expr})"

    def _sympy_(self) -> sympy.Expr:  # sympy's own functions take it too, as an operand
        return self.operand()

    def operand(self, merges: bool = False) -> sympy.Expr:
        """The expression to build on: the value itself where it is an atom, or where
        sympy would merge it into the result (``merges``) and it is short and used once;
        else its tape symbol (see the module's note)."""
        if self.symbol is not None:
            return self.symbol
        e = self.expr
        if e.is_Atom or not _TAPE:
            return e
        if merges and len(e.args) < (REUSED if self.used else LONG):
            self.used = True
            return e
        self.symbol = _taped(e)
        return self.symbol

    # arithmetic: sums merge into sums, products into products, a sum into a product
    # by a number (sympy distributes the number)
    def __add__(self, o):
        return _wrap(_merging(self, sympy.Add) + _merging(o, sympy.Add))

    def __radd__(self, o):
        return _wrap(_merging(o, sympy.Add) + _merging(self, sympy.Add))

    def __sub__(self, o):
        return _wrap(_merging(self, sympy.Add) - _merging(o, sympy.Add, True))

    def __rsub__(self, o):
        return _wrap(_merging(o, sympy.Add) - _merging(self, sympy.Add, True))

    def __mul__(self, o):
        return _wrap(_product(self, o))

    def __rmul__(self, o):
        return _wrap(_product(o, self))

    def __truediv__(self, o):
        return _wrap(_merging(self, sympy.Mul, _is_number(o)) / _merging(o, sympy.Mul))

    def __rtruediv__(self, o):
        return _wrap(_merging(o, sympy.Mul, _is_number(self)) / _sym(self))

    def __pow__(self, o):
        return _wrap(_merging(self, sympy.Mul) ** _sym(o))

    def __rpow__(self, o):
        return _wrap(_sym(o) ** _sym(self))

    def __neg__(self):
        return _wrap(-_merging(self, sympy.Mul, True))

    def __pos__(self):
        return self

    def __abs__(self):
        return _wrap(sympy.Abs(_sym(self)))

    # comparisons make conditions, which np.where reads
    def __lt__(self, o):
        return Condition(sympy.Lt(_sym(self), _sym(o)))

    def __le__(self, o):
        return Condition(sympy.Le(_sym(self), _sym(o)))

    def __gt__(self, o):
        return Condition(sympy.Gt(_sym(self), _sym(o)))

    def __ge__(self, o):
        return Condition(sympy.Ge(_sym(self), _sym(o)))

    def __bool__(self):
        raise Branch(_BRANCH)

    def __float__(self):
        raise Branch(
            "float() of a value that depends on the inputs (a function dgraph does not know"
            " converted it: use numpy or math functions)"
        )

    __int__ = __index__ = __float__
    __hash__ = object.__hash__

    # NumPy: ufuncs called on a traced value, and the methods object arrays call
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method != "__call__" or kwargs.get("out") is not None:
            return NotImplemented
        return _apply(ufunc.__name__, inputs)

    def __array_function__(self, func, types, args, kwargs):
        if func is np.where and len(args) == 3 and not kwargs:
            return _where(*args)
        return NotImplemented


def _is_number(value: Any) -> bool:
    return not isinstance(value, Traced)


def _merging(value: Any, into: type, scaled: bool = False) -> sympy.Expr:
    """``value`` as an operand of an ``into`` (Add or Mul) operation: a traced value of
    that class merges into the result (a power into a product: powers of one base
    combine), and so does a sum that is ``scaled`` (negated, or multiplied or divided by
    a number)."""
    if not isinstance(value, Traced):
        return _sym(value)
    e = value.expr
    merges = isinstance(e, into) or (into is sympy.Mul and e.is_Pow) or (scaled and e.is_Add)
    return value.operand(merges)


def _product(a: Any, b: Any) -> sympy.Expr:
    return _merging(a, sympy.Mul, _is_number(b)) * _merging(b, sympy.Mul, _is_number(a))


_OPERATORS: dict[str, Callable[..., Any]] = {
    "add": operator.add,
    "subtract": operator.sub,
    "multiply": operator.mul,
    "divide": operator.truediv,
    "true_divide": operator.truediv,
    "negative": operator.neg,
}


def _apply(name: str, inputs) -> Any:
    if any(isinstance(i, np.ndarray) for i in inputs):
        return np.frompyfunc(lambda *a: _apply(name, a), len(inputs), 1)(*inputs)
    if name in _OPERATORS:  # as Python's operators, which keep the tape
        return _OPERATORS[name](*[i.item() if isinstance(i, np.generic) else i for i in inputs])
    if len(inputs) == 1 and name in _UNARY:
        return _wrap(_UNARY[name](_sym(inputs[0])))
    if len(inputs) == 2 and name in _BINARY:
        return _wrap(_BINARY[name](_sym(inputs[0]), _sym(inputs[1])))
    raise InputError(f"numpy.{name} on a value that depends on the inputs is not supported")


for _name in _UNARY:
    setattr(Traced, _name, lambda self, _n=_name: _apply(_n, (self,)))
for _name in ("arctan2", "hypot"):
    setattr(Traced, _name, lambda self, o, _n=_name: _apply(_n, (self, o)))

_BRANCH = (
    "a branch on a value that depends on the inputs (if, while, and, or, bool()): write it"
    " with numpy.where"
)


class Condition:
    """A comparison of traced values: ``np.where`` reads it, Python cannot branch on it."""

    __slots__ = ("expr",)

    def __init__(self, expr) -> None:
        self.expr = expr

    def _sympy_(self):
        return self.expr

    def __bool__(self):
        raise Branch(_BRANCH)

    def __array_function__(self, func, types, args, kwargs):
        if func is np.where and len(args) == 3 and not kwargs:
            return _where(*args)
        return NotImplemented


def _where(condition, a, b):
    if not isinstance(condition, Condition):
        return a if bool(condition) else b
    return _wrap(sympy.Piecewise((_sym(a), condition.expr), (_sym(b), True)))


class _Math(types.ModuleType):
    """:mod:`math` whose functions take traced values too."""

    def __getattr__(self, name: str) -> Any:
        original = getattr(math, name)
        if name not in _UNARY and name not in _BINARY and name != "pow":
            return original

        def function(*args):
            if any(isinstance(a, Traced) for a in args):
                return _apply(name, args)
            return original(*args)

        return function


_MATH = _Math("math")


@contextlib.contextmanager
def _math_traced(f: Callable[..., Any]) -> Iterator[None]:
    """While ``f`` runs, the ``math`` module and functions imported from it in ``f``'s
    module take traced values."""
    namespace = getattr(f, "__globals__", None)
    if namespace is None:
        yield
        return
    saved = {}
    for key, value in list(namespace.items()):
        if value is math:
            saved[key] = value
            namespace[key] = _MATH
        elif getattr(value, "__module__", None) == "math" or (
            isinstance(value, types.BuiltinFunctionType) and getattr(math, key, None) is value
        ):
            saved[key] = value
            namespace[key] = getattr(_MATH, key)
    try:
        yield
    finally:
        namespace.update(saved)


def traced_call(
    f: Callable[..., Any], args: list[Any], where: str
) -> tuple[Any, dict[str, Any], dict[sympy.Symbol, sympy.Expr]]:
    """``f(*args)`` traced (one call), the values its local variables held when it returned
    (to name the vertices that compute them: see
    :func:`~dgraph.frontends.frames.call_keeping_locals`), and the tape: the symbols
    standing for subexpressions in the result, each with its expression, in order."""
    tape: dict[sympy.Expr, sympy.Symbol] = {}
    _TAPE.append(tape)
    try:
        with _math_traced(f):
            result, captured = call_keeping_locals(f, args)
    except InputError:
        raise
    except Branch as exc:
        raise InputError(f"{where}: {exc}") from None
    finally:
        _TAPE.pop()
    return _finished(result, captured, {symbol: e for e, symbol in tape.items()})


def _finished(result: Any, captured: dict[str, Any], tape: dict[sympy.Symbol, sympy.Expr]):
    if len(tape) <= WRITTEN_OUT:
        return _written_out(result, tape), _written_out(captured, tape), {}
    return result, captured, tape


def _written_out(value: Any, tape: dict[sympy.Symbol, sympy.Expr]) -> Any:
    """``value`` (traced values, in arrays, lists, tuples and dicts) with every tape
    symbol replaced by its expression, written out."""
    full: dict[sympy.Symbol, sympy.Expr] = {}
    for symbol, e in tape.items():  # an entry refers to earlier ones only
        full[symbol] = e.xreplace(full)

    def out(v: Any) -> Any:
        if isinstance(v, Traced):
            return _wrap(v.expr.xreplace(full))
        if isinstance(v, Condition):
            return Condition(v.expr.xreplace(full))
        if isinstance(v, np.ndarray) and v.dtype == object:
            return np.frompyfunc(out, 1, 1)(v) if v.size else v
        if isinstance(v, sympy.Basic):  # sympy's own functions (Max) of traced values
            return v.xreplace(full)
        if isinstance(v, list):
            return [out(u) for u in v]
        if isinstance(v, tuple):
            return tuple(out(u) for u in v)
        if isinstance(v, dict):
            return {k: out(u) for k, u in v.items()}
        return v

    return out(value)
