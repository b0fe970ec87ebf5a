"""NumPy-style functions traced at the array level: each array argument is one
:class:`TracedArray`, and each NumPy operation on it records one array operation
(:class:`~dgraph.blocks.arrays.ArrayOp`, jax.lax's vocabulary) — one tensor vertex, however
large the arrays (Naumann's vector c-graphs, RR-3659).

A traced array takes NumPy's two protocols (``__array_ufunc__``: ``np.exp(u)``,
``u + W``; ``__array_function__``: ``np.sum``, ``np.pad``, ``np.where``,
``np.concatenate``) and Python's operators, indexing with integers and basic slices,
``.T``, ``.shape``, ``.reshape``, ``.sum(axis)``, ``.mean``, ``len``; :mod:`math`'s and
sympy's elementwise functions and ``max``/``min`` take it too, as the NumPy operation of
the same meaning (:func:`libraries_traced`), and a list holding traced values is one
array where ``np.array`` or ``np.concatenate`` reads it. A scalar is an array of shape
``()``. Broadcasting is explicit in the graph (``broadcast_in_dim``, then the
operation), as in a jaxpr. Python numbers and NumPy arrays are constants
(:class:`~dgraph.blocks.arrays.Const`); NumPy computes operations on constants only
itself, so they are folded. A comparison is a
:class:`Passive` value: a nested operation no derivative flows through, which
``np.where`` reads (``select_n``) and arithmetic may use as a constant (``np.argmax``'s
positions also index: ``take_dynamic``). ``np.einsum`` (and ``np.tensordot``), ``np.median``,
``np.linalg.matrix_power``, ``np.searchsorted``, ``np.interp``, ``np.add.reduceat``,
``np.bincount(weights=)``, ``np.convolve``, ``np.correlate`` and the functions of
:mod:`~dgraph.frontends.numpy_composites`, :mod:`~dgraph.frontends.numpy_selections` and
:mod:`~dgraph.frontends.numpy_array_api` (NumPy 2's array-API names) are built of these
operations, and so is a constant
``scipy.sparse`` matrix's product with a traced array (:mod:`~dgraph.frontends.scipy_sparse`).
Complex values (``np.fft``, ``1j * x``, complex constants) are pairs of real traced arrays
(:mod:`~dgraph.frontends.array_complex`). What has no array
operation (most of ``np.linalg``, indexing with other traced values, assignment into an
array, a branch on a traced value) is one :class:`~dgraph.errors.InputError` line naming
it.
"""

from __future__ import annotations

import builtins
import contextlib
import dis
import functools
import importlib
import inspect
import keyword
import math
import numbers
import operator
import sys
import threading
import traceback
import types
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import sympy

from ..blocks import linalg as _linalg
from ..blocks.arrays import ELEMENTWISE, NONDIFFERENTIABLE, ArrayOp, Const, with_leaves
from ..blocks.dynamic_scatter import DYNAMIC_ADD
from ..blocks.dynamic_take import DYNAMIC_TAKE
from ..blocks.sorted_search import SEARCHSORTED, searchsorted_op
from ..core.constant_entries import known_entries
from ..core.graph import DGraph
from ..core.parse import RESERVED
from ..core.regions import Body, Region
from ..core.untaken import guard_untaken_branches
from ..errors import GraphError, InputError
from . import (
    array_complex,
    array_prefix_sums,
    array_signal,
    numpy_array_api,
    numpy_composites,
    numpy_index_tricks,
    numpy_selections,
    numpy_series,
    numpy_statistics,
    scipy_grid,
    scipy_iir,
    scipy_modules,
    scipy_rotation,
    scipy_sparse,
    scipy_special,
    scipy_splines,
    scipy_stats,
    scipy_stats_functions,
)
from .frames import call_keeping_locals
from .integer_arguments import INT_OF_TRACED
from .integer_casts import is_toward_zero, is_wrapped, structural_hint, toward_zero, wrapped
from .mask_positions import MaskPositions, as_mask, of_mask
from .reached import is_library, reached
from .remembered import Remembered

__all__ = [
    "MAX_AXES",
    "MAX_ELEMENTS",
    "CallsJax",
    "DataDependentIndex",
    "Passive",
    "TracedArray",
    "check_shape",
    "scan",
    "trace_arrays",
]

MAX_AXES = 8  # axes of one input
MAX_ELEMENTS = 10**8  # elements of one input

Shape = tuple[int, ...]


def check_shape(shape: Sequence[Any], what: str) -> Shape:
    """``shape`` as a tuple of positive integers, at most :data:`MAX_AXES` of them and
    :data:`MAX_ELEMENTS` elements; one clear line otherwise.

    >>> check_shape([3, 4], "u")
    (3, 4)
    """
    if len(shape) > MAX_AXES:
        raise InputError(f"{what}: {len(shape)} axes, more than {MAX_AXES}")
    for n in shape:
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
            raise InputError(f"{what}: the shape's lengths must be positive integers, not {n!r}")
    if math.prod(shape) > MAX_ELEMENTS:
        raise InputError(f"{what}: {math.prod(shape):,} elements, more than {MAX_ELEMENTS:,}")
    return tuple(int(n) for n in shape)


# -- the tape ------------------------------------------------------------------------------


class _Tape:
    """The operations of one trace, in order: (temporary name, op or None, shape). The
    temporary names (``%k``) are no identifiers, so no parameter's; vertices get their
    names when the graph is built."""

    def __init__(self) -> None:
        self.entries: list[tuple[str, ArrayOp | None, Shape]] = []
        self.constants: dict[str, np.ndarray] = {}  # fresh arrays not yet written with a
        # value that depends on the inputs (np.zeros_like(u)): their numbers
        self.viewed: set[str] = set()  # held arrays read as NumPy arrays (never written)
        self.views: dict[int, tuple[weakref.ref, frozenset[str]]] = {}  # each view, while
        # an object holds it (by id), and the arrays it is a view of
        self.arguments: list[TracedArray] = []  # the function's arguments
        self.fixed: set[str] = set()  # the parameters' arrays and those computed from
        # them alone (no input's derivative reaches them): positions they give are data
        self.parameter_names: dict[str, str] = {}  # the parameters' arrays: their names

    def new(self, op: ArrayOp | None, shape: Shape) -> TracedArray:
        name = f"%{len(self.entries)}"
        self.entries.append((name, op, tuple(shape)))
        if op is not None and self.fixed and self.reads_fixed_only(op):
            self.fixed.add(name)
        return TracedArray(self, name, tuple(shape))

    def parameters_of(self, name: str) -> list[str]:
        """The parameters (by argument name) that the array ``name``, computed from the
        parameters alone, is computed from; [] for one an input reaches."""
        if name not in self.fixed:
            return []
        ops = {entry: op for entry, op, _ in self.entries}
        found, seen, pending = [], set(), [name]
        while pending:
            entry = pending.pop()
            if entry in seen:
                continue
            seen.add(entry)
            if entry in self.parameter_names:
                found.append(self.parameter_names[entry])
            elif ops.get(entry) is not None:
                pending.extend(ops[entry].vertices())
        return sorted(found)

    def reads_fixed_only(self, op: ArrayOp) -> bool:
        """Whether ``op`` reads arrays, each computed from the parameters alone."""
        read = op.vertices()
        return bool(read) and all(u in self.fixed for u in read)


_RUNNING = threading.local()


def _tracing() -> list[_Tape]:
    """The tapes of the traces running in this thread, the innermost last."""
    if not hasattr(_RUNNING, "tapes"):
        _RUNNING.tapes = []
    return _RUNNING.tapes


class CallsJax(InputError):
    """The function called JAX with traced arrays: JAX code, for its jaxpr's reader."""


class DataDependentIndex(InputError):
    """An index (a boolean mask, a position) computed from the inputs where none is read:
    final, since no other reading reads it either (sympy's symbols compare to no truth
    value), and a symbolic reading of a large function would take minutes to find so."""


def _parameters_of(value: Any) -> list[str]:
    """The parameters a traced ``value`` is computed from, where it is computed from
    them alone (:meth:`_Tape.parameters_of`; a comparison's, ``t <= 5``, those its
    operands are computed from); [] otherwise."""
    if isinstance(value, Passive) and _tracing():
        tape, read = _tracing()[-1], value.op.vertices()
        if not read or not all(v in tape.fixed for v in read):
            return []
        return sorted({n for v in read for n in tape.parameters_of(v)})
    tape = getattr(value, "tape", None)
    if not isinstance(tape, _Tape) or getattr(value, "_writes", None):
        return []  # entries written since: reading its name would put them in
    return tape.parameters_of(value._name)


def _unsupported(what: str) -> InputError:
    return InputError(f"{what} on an array that depends on the inputs is not supported")


def _unsupported_call(what: str) -> Any:
    raise _unsupported(f"{what} with these arguments")


_BRANCH = (
    "a branch on a value that depends on the inputs (if, elif, while, and, or, bool()) takes"
    " one path per input, so no one formula holds for every input: write it with numpy.where"
    " (a while loop: a fixed count of steps, for _ in range(n))"
)
_CONVERT = (
    "converting an array that depends on the inputs to a NumPy array or a number (np.array,"
    " np.asarray, float(), assignment into a NumPy array) is not supported: build arrays with"
    " np.stack, np.concatenate, np.pad or np.where, or write into an array made inside the"
    " function (np.zeros(shape), np.zeros_like(u))"
)


class _Value:
    """What traced and passive arrays share: shape, operators, comparisons."""

    shape: Shape
    __array_priority__ = 1000
    __hash__ = object.__hash__

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(float)

    def __len__(self) -> int:
        if not self.shape:
            raise InputError("len() of a 0-d array")
        return self.shape[0]

    def __bool__(self) -> bool:
        names = _parameters_of(self)
        if names:  # if flag: of a parameter flag
            hint = structural_hint(names, branch=True)
            raise InputError(f"a branch on a value of the parameters alone{hint}")
        raise InputError(_BRANCH)

    def __float__(self) -> float:
        names = _parameters_of(self)
        if names:  # range(n), np.zeros(n), x[:n] of a parameter n: a number to the tracer
            hint = structural_hint(names)
            raise InputError(f"int() of a value of the parameters alone (read as numbers){hint}")
        raise InputError(f"float() of a value that depends on the inputs: {_CONVERT}")

    def __int__(self) -> int:
        if _parameters_of(self):
            return self.__float__()
        raise InputError(
            f"{INT_OF_TRACED} (a whole number, constant between"
            " the integers: no derivative to trace); write np.floor(u) where u >= 0 if the"
            " whole number is meant"
        )

    __index__ = __int__
    __complex__ = __float__

    def __array__(self, *args, **kwargs):
        if _held(self):  # its numbers, shared as a view is
            self.tape.viewed.add(self.name)
            return self.tape.constants[self.name]
        raise InputError(_CONVERT)

    # arithmetic
    def __add__(self, o):
        return _elementwise("add", (self, o))

    def __radd__(self, o):
        return _elementwise("add", (o, self))

    def __sub__(self, o):
        return _elementwise("sub", (self, o))

    def __rsub__(self, o):
        return _elementwise("sub", (o, self))

    def __mul__(self, o):
        return _elementwise("mul", (self, o))

    def __rmul__(self, o):
        return _elementwise("mul", (o, self))

    def __truediv__(self, o):
        return _elementwise("div", (self, o))

    def __rtruediv__(self, o):
        return _elementwise("div", (o, self))

    def __mod__(self, o):  # Python's (and NumPy's) modulo: the sign of the divisor
        return np.remainder(self, o)

    def __rmod__(self, o):
        return np.remainder(o, self)

    def __pow__(self, o):
        return _power(self, o)

    def __rpow__(self, o):
        return _power(o, self)

    def __matmul__(self, o):
        return _matmul(self, o)

    def __rmatmul__(self, o):
        return _matmul(o, self)

    def __neg__(self):
        return _elementwise("neg", (self,))

    def __pos__(self):
        return self

    def __abs__(self):
        return _elementwise("abs", (self,))

    def __round__(self, ndigits=None):  # round(x, 2): NumPy's rounding (derivative zero)
        return numpy_statistics.FUNCTIONS[np.round](self, ndigits or 0)

    def __lt__(self, o):
        return _elementwise("lt", (self, o))

    def __le__(self, o):
        return _elementwise("le", (self, o))

    def __gt__(self, o):
        return _elementwise("gt", (self, o))

    def __ge__(self, o):
        return _elementwise("ge", (self, o))

    def __eq__(self, o):  # type: ignore[override]
        return _elementwise("eq", (self, o))

    def __ne__(self, o):  # type: ignore[override]
        return _elementwise("ne", (self, o))

    def __and__(self, o):
        return _elementwise("and", (self, o))

    __rand__ = __and__

    def __or__(self, o):
        return _elementwise("or", (self, o))

    __ror__ = __or__

    def __invert__(self):
        return _elementwise("not", (self,))

    def __xor__(self, o):
        return _xor(self, o, "bitwise_xor")

    __rxor__ = __xor__

    # NumPy's protocols
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return _ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        if any(issubclass(t, array_complex.ComplexArray) for t in types):
            return NotImplemented  # a complex value's (array_complex)
        handler = _FUNCTIONS.get(func)
        values = [*args, *kwargs.values()]
        if handler is None and not _any_of(_is_traced, values):
            return _of_constants(self.tape, func, args, kwargs)
        if handler is None:
            module = getattr(func, "__module__", "numpy") or "numpy"
            module = "numpy" if module.startswith("numpy") and module.count(".") == 0 else module
            raise _unsupported(f"{module}.{func.__name__}")
        if _any_of(_held, values) and _any_of(_is_traced, values):  # held: constants here
            written = args[:1] if func in numpy_selections.IN_PLACE else ()  # np.copyto's dst
            args = (*written, *(_unheld_in(a) for a in args[len(written) :]))
            kwargs = {k: _unheld_in(a) for k, a in kwargs.items()}
        return handler(*args, **kwargs)


def _of_constants(tape: _Tape, func: Callable, args: tuple, kwargs: dict) -> Any:
    """A NumPy function no handler reads, on fresh arrays that still hold constants
    (``np.histogram_bin_edges(np.array([0.0, 1.0]), bins=4)``): NumPy computes it, and a
    floating array it returns is fresh again (it may be assigned into)."""
    out = func(*(_unheld_in(a) for a in args), **{k: _unheld_in(a) for k, a in kwargs.items()})

    def fresh(r: Any) -> Any:
        if isinstance(r, np.ndarray) and r.dtype.kind == "f":
            return _fresh(tape, r)
        return r

    return type(out)(fresh(r) for r in out) if type(out) is tuple else fresh(out)


def _advanced(key: Any) -> bool:
    """Whether ``key`` indexes with an array or a list (NumPy's advanced indexing: the
    result is a copy, never a view)."""
    parts = key if isinstance(key, tuple) else (key,)
    return any(isinstance(k, np.ndarray | list) and np.ndim(k) > 0 for k in parts)


class TracedArray(_Value):
    """An array that depends on the inputs: the vertex (named ``name`` on its tape) that
    computes it, of ``shape``."""

    __slots__ = ("_name", "_writes", "shape", "tape")

    def __init__(self, tape: _Tape, name: str, shape: Shape) -> None:
        self.tape, self._name, self.shape, self._writes = tape, name, shape, None

    @property
    def name(self) -> str:
        """The vertex; single entries written since (:func:`_write_entry`) put in first."""
        if self._writes:
            _put_entries(self)
        return self._name

    @name.setter
    def name(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return f"TracedArray({self.name}, shape={self.shape})"

    @property
    def T(self) -> TracedArray:
        return _transpose(self)

    def __getitem__(self, key):
        if self._writes and (at := _entry(self, key)) is not None:
            if at in self._writes:
                return TracedArray(self.tape, self._writes[at], ())
            return _unwritten(self, key)
        if _held(self):
            if _advanced(key):  # NumPy's copy: a fresh array (K[np.ix_(d, d)] += traced)
                return _fresh(self.tape, self.tape.constants[self.name][key])
            entry = self.tape.constants[self.name][key]
            if np.ndim(entry) and np.shares_memory(entry, self.tape.constants[self.name]):
                _viewing(entry, self)  # a view (y[i] of a y written later): while it lives
            return entry
        return _index(self, key)

    def __setitem__(self, key, value):
        _assign(self, key, value)

    def __iter__(self):
        return (self[k] for k in range(len(self)))

    def reshape(self, *shape, order: str | None = "C"):
        return _reshape(self, shape[0] if len(shape) == 1 else shape, order)

    def transpose(self, *axes):
        return _transpose(self, axes[0] if len(axes) == 1 else (axes or None))

    def ravel(self, order: str | None = "C"):
        return _reshape(self, (-1,), order)

    flatten = ravel

    def squeeze(self, axis=None):
        return _squeeze(self, axis)

    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        return _sum(self, axis, dtype, out, keepdims)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        return _mean(self, axis, dtype, out, keepdims)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        return _var(self, axis, dtype, out, ddof, keepdims)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        return _std(self, axis, dtype, out, ddof, keepdims)

    def swapaxes(self, axis1, axis2):
        return _swapaxes(self, axis1, axis2)

    def argmax(self, axis=None, out=None, keepdims=False):
        return _FUNCTIONS[np.argmax](self, axis, out, keepdims=keepdims)

    def argmin(self, axis=None, out=None, keepdims=False):
        return _FUNCTIONS[np.argmin](self, axis, out, keepdims=keepdims)

    def argsort(self, axis=-1, kind=None, order=None):
        given = {"kind": kind, "order": order}
        return _FUNCTIONS[np.argsort](self, axis, **{k: v for k, v in given.items() if v})

    def diagonal(self, offset=0, axis1=0, axis2=1):
        return _FUNCTIONS[np.diagonal](self, offset, axis1, axis2)

    def trace(self, offset=0, axis1=0, axis2=1):
        return _trace(self, offset, axis1, axis2)

    def take(self, indices, axis=None, out=None, mode="raise"):
        return _np_take(self, indices, axis, out, mode)

    def repeat(self, repeats, axis=None):
        return _repeat(self, repeats, axis)

    def max(self, axis=None, out=None, keepdims=False):
        return _extreme("reduce_max", self, axis, out, keepdims)

    def min(self, axis=None, out=None, keepdims=False):
        return _extreme("reduce_min", self, axis, out, keepdims)

    def cumsum(self, axis=None, dtype=None, out=None):
        return _cumsum(self, axis, dtype, out)

    def cumprod(self, axis=None, dtype=None, out=None):
        return _cumprod(self, axis, dtype, out)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False):
        return _prod(self, axis, dtype, out, keepdims)

    def dot(self, other):
        return _matmul(self, other)

    def clip(self, min=None, max=None, out=None, **kwargs):  # ndarray.clip's names
        return _clip(self, min, max, out, **kwargs)

    def round(self, decimals=0, out=None):
        return numpy_statistics.FUNCTIONS[np.round](self, decimals, out)

    def astype(self, dtype, *args, **kwargs):
        """Itself as floats; as integers toward zero, as NumPy casts (``x[i.astype(int)]``
        with ``i`` index data, a table's cell ``(t * n).astype(int)``): a passive value
        read at run time, no derivative through it (JAX's ``convert_element_type`` read
        the same); any other cast is refused. A fresh array that still holds constants
        (``P / dt`` of a module's ``P``) casts its numbers, as NumPy: constant positions."""
        kind = np.dtype(dtype).kind
        if kind in "biu" and _held(self):
            return self.tape.constants[self.name].astype(dtype)
        if kind == "i":
            return Passive(toward_zero(self.name, self.shape))
        if kind != "f":
            raise _unsupported(f"astype({np.dtype(dtype)})")
        return _copied(self)

    def copy(self, order: str = "C"):
        return _copied(self)

    @property
    def real(self) -> TracedArray:
        return self

    @property
    def imag(self) -> np.ndarray:
        return np.zeros(self.shape)

    def conj(self) -> TracedArray:
        return self

    conjugate = conj


class Passive(_Value):
    """A value that depends on the inputs but carries no derivative (a comparison, a
    ``sign``): a nested operation that ``select_n`` reads as its predicate and other
    operations as a constant."""

    __slots__ = ("op", "shape")

    def __init__(self, op: ArrayOp) -> None:
        self.op, self.shape = op, tuple(op.shape)

    def __repr__(self) -> str:
        return f"Passive({self.op.primitive}, shape={self.shape})"

    def __getitem__(self, key):
        basic = key if isinstance(key, tuple) else (key,)
        if all(isinstance(k, (slice, numbers.Integral)) or k is None or k is Ellipsis
               for k in basic):  # fmt: skip
            return _index(self, key)  # type: ignore[arg-type]  # a nested slice
        raise _unsupported("indexing a comparison or positions (x > 0, np.argsort(x))[...]")

    @property
    def T(self) -> Any:
        return _transpose(self)

    @property
    def boolean(self) -> bool:
        """Whether NumPy types it boolean (:func:`is_mask`): what the composites ask."""
        return is_mask(self.op)

    def reshape(self, *shape: Any, order: str | None = "C") -> Any:
        return _reshape(self, shape[0] if len(shape) == 1 else shape, order)

    def ravel(self, order: str | None = "C") -> Any:
        return _reshape(self, (-1,), order)

    flatten = ravel

    def transpose(self, *axes: Any) -> Any:
        return _transpose(self, (axes[0] if len(axes) == 1 else axes) or None)

    def astype(self, dtype: Any, *args: Any, **kwargs: Any) -> Passive:
        """Itself as floats, or as integers where its values are whole numbers already
        (``np.floor(x).astype(int)``: a cell's index), else rounded toward zero as NumPy
        casts (``(np.sign(x) * 1.5).astype(int)``); a mask as booleans itself, as integers
        its 0 and 1 (positions, no longer a mask: ``K[(e > 0).astype(int)]``); any other
        cast is refused."""
        kind = np.dtype(dtype).kind
        if kind == "b" and is_mask(self.op):
            return self
        if kind == "i" and is_mask(self.op):  # 0 and 1, positions (K[m.astype(int)])
            zeros, ones = Const.of(np.zeros(self.shape)), Const.of(np.ones(self.shape))
            return Passive(ArrayOp("select_n", (self.op, zeros, ones), (), self.shape))
        if kind == "f" or (kind == "i" and self.op.primitive in _WHOLE):
            return self
        if kind == "i" and is_toward_zero(self.op):  # an integer argument's cast, again
            return self
        if kind == "i" and whole_range(self.op) is not None:  # np.clip(np.floor(x), 0, 4)
            return self
        if kind == "i":
            return Passive(toward_zero(self.op, self.shape))
        raise _unsupported(f"astype({np.dtype(dtype)}) of {self.op.primitive}(...)")


#: the passive operations whose values are whole numbers (``astype(int)`` keeps them)
_WHOLE = frozenset({"floor", "ceil", "round", "sign", "eq", "ne", "lt", "le", "gt", "ge",
                    "and", "or", "not", "is_finite", "argmax", "argmin", "argsort",
                    "searchsorted", "frexp_exponent"})  # fmt: skip


# -- operands ------------------------------------------------------------------------------


def _is_traced(x: Any) -> bool:
    return isinstance(x, _Value) and not _held(x)


def _held(x: Any) -> bool:
    """Whether ``x`` is a fresh array that still holds constants (:func:`_fresh`)."""
    return isinstance(x, TracedArray) and x.name in x.tape.constants


def _live(x: Any) -> bool:
    """Whether ``x`` is a traced array that depends on the inputs."""
    return isinstance(x, TracedArray) and x.name not in x.tape.constants


def _constant(x: Any) -> np.ndarray:
    array = np.asarray(x)  # a traced array inside says so (__array__)
    if array.dtype.kind not in "biuf":
        raise InputError(f"a constant of type {type(x).__name__} ({array.dtype}) is not a number")
    return array


def _tape_of(args: Sequence[Any]) -> _Tape | None:
    tapes = {id(a.tape): a.tape for a in args if isinstance(a, TracedArray)}
    if len(tapes) > 1:
        raise InputError("arrays from two different traces are mixed")
    return next(iter(tapes.values()), None)


def _shape_of(x: Any) -> Shape:
    return x.shape if _is_traced(x) else tuple(np.shape(_constant(x)))


def _broadcast_shape(shapes: Sequence[Shape], what: str) -> Shape:
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise InputError(
            f"{what}: shapes {', '.join(map(str, shapes))} do not broadcast together"
        ) from None


def _broadcast_op(operand: Any, shape: Shape, out: Shape) -> ArrayOp:
    dims = tuple(range(len(out) - len(shape), len(out)))
    return ArrayOp(
        "broadcast_in_dim",
        (operand,),
        (("shape", out), ("broadcast_dimensions", dims), ("sharding", None)),
        out,
    )


def _operand(x: Any, out: Shape, tape: _Tape | None) -> Any:
    """``x`` as an operand of an operation of result ``out``: a vertex's name (broadcast
    first by its own vertex), a nested operation, or a constant (a scalar, or an array of
    shape ``out``)."""
    if _live(x):
        if x.shape == out:
            return x.name
        return x.tape.new(_broadcast_op(x.name, x.shape, out), out).name
    if isinstance(x, Passive):
        return x.op if x.shape == out else _broadcast_op(x.op, x.shape, out)
    array = _constant(x)
    if array.shape not in ((), out):
        array = np.ascontiguousarray(np.broadcast_to(array, out))
    return Const.of(array)


def _result(op: ArrayOp, tape: _Tape | None) -> _Value:
    """The value ``op`` computes: a new vertex where a derivative flows through it, a
    passive value otherwise."""
    if tape is None or not op.differentiable():
        return Passive(op)
    return tape.new(op, op.shape)


def _elementwise(name: str, args: Sequence[Any], params: tuple = ()) -> Any:
    """``name`` (jax.lax's) of ``args``, broadcast against each other; constants only: NumPy
    computes it (folded). A complex operand makes it :mod:`~.array_complex`'s; the square
    of ``|z|`` is ``re² + im²`` (:func:`~.array_complex.squared_norm_of`)."""
    if any(array_complex.is_complex(a) for a in args) and any(
        isinstance(a, array_complex.ComplexArray) or _is_traced(a) for a in args
    ):  # a complex value that depends on the inputs (constants: NumPy's, below)
        return array_complex.elementwise(name, args)
    if name == "square" and (squared := array_complex.squared_norm_of(args[0])) is not None:
        return squared
    if name == "square" and (inner := _abs_operand(args[0])) is not None:
        return _elementwise("square", (inner,))
    if name in ("mul", "add") and len(args) == 2 and _both_masks(args):
        name = "and" if name == "mul" else "or"  # NumPy's bool * bool, bool + bool
    if not any(_is_traced(a) for a in args):
        function = ELEMENTWISE[name][0] if name in ELEMENTWISE else NONDIFFERENTIABLE[name]
        value = function(*[_numbers(a) for a in args])
        fresh = next((a for a in args if _held(a)), None)
        if fresh is not None and np.ndim(value) and np.asarray(value).dtype.kind == "f":
            return _fresh(fresh.tape, value)  # a new array (np.eye(3) * 2): writable too
        return value
    if name == "sub" and (windowed := _window_sums(args)) is not None:
        return windowed
    out = _broadcast_shape([_shape_of(a) for a in args], name)
    tape = _tape_of(args)
    same = _trivial(name, args, out)
    if same is not None:
        return same
    if name in ELEMENTWISE:  # arithmetic reads a constant mask as 0 and 1, as NumPy does
        args = [a if _is_traced(a) else _as_number(a) for a in args]
    operands = tuple(_operand(a, out, tape) for a in args)
    result = _result(ArrayOp(name, operands, params, out), tape)
    if name == "abs" and _is_traced(args[0]):
        _ABS_OPERANDS.remember(result, args[0])
    return result


_ABS_OPERANDS = Remembered()  # |u| -> u, of a real traced u (:func:`_abs_operand`)


def _abs_operand(x: Any) -> Any:
    """``u`` where ``x`` is ``|u|`` of a real traced ``u``, else None: an even power of
    ``|u|`` (``np.abs(r) ** 2`` in a Huber or smooth-L1 loss) is read as that power of
    ``u``, the same numbers, smooth where ``u = 0``; ``|u|``'s rule there (``sign(0) =
    0``) would make its second derivative 0 instead of 2."""
    return _ABS_OPERANDS.recall(x)


def _any_of(test: Callable[[Any], bool], values: Sequence[Any]) -> bool:
    """Whether ``test`` holds of a value, or of one in a list or tuple among them."""
    return any(test(v) or (isinstance(v, list | tuple) and any(test(w) for w in v)) for v in values)


def _unheld_in(a: Any) -> Any:
    """:func:`_unheld` of ``a``, or of each value of a list or tuple ``a``."""
    if type(a) in (list, tuple):
        return type(a)(_unheld(v) for v in a)
    return _unheld(a)


def _unheld(a: Any) -> Any:
    """A fresh array that holds constants as its numbers (a library's function reads it as
    a constant: ``gammaincc(np.array([0.7, 1.5]), x)``'s shape); anything else as it is."""
    return a.tape.constants[a.name] if _held(a) else a


def _numbers(a: Any) -> Any:
    """A constant operand's numbers: a fresh array's, a complex one's as it is (``1j * k``
    of ``k = np.arange(3.0)``), any other's as :func:`_constant` reads it."""
    if _held(a) or array_complex.is_complex(a):
        return _unheld(a)
    return _constant(a)


def _as_number(x: Any) -> Any:
    """A boolean constant as floats (``u * mask``); any other constant as it is."""
    array = _constant(x)
    return array.astype(float) if array.dtype.kind == "b" else x


def _trivial(name: str, args: Sequence[Any], out: Shape) -> Any:
    """``x + 0``, ``x - 0``, ``0 + x``, ``x * 1``, ``1 * x``, ``x / 1``: ``x`` itself
    (``sum(list)`` starts at 0)."""
    if len(args) != 2:
        return None
    neutral = {"add": (0, 0), "sub": (None, 0), "mul": (1, 1), "div": (None, 1)}.get(name)
    if neutral is None:
        return None
    for k, other in ((0, 1), (1, 0)):
        x, c = args[k], args[other]
        unit = neutral[other]
        if (
            _live(x)
            and x.shape == out
            and unit is not None
            and not _is_traced(c)
            and np.shape(c) == ()
            and _constant(c) == unit
        ):
            return x
    return None


def _power(a: Any, b: Any) -> Any:
    if array_complex.is_complex(a) or array_complex.is_complex(b):
        return array_complex.power(a, b)
    if not _is_traced(b):
        y = _constant(b)
        if y.shape == () and np.isfinite(y) and float(y) == int(y) and abs(int(y)) <= 64:
            if not _is_traced(a):
                return _constant(a) ** y
            if int(y) == 1:
                return a
            squared = array_complex.squared_norm_of(a)  # |z|**(2k): (re² + im²)**k
            if squared is not None and int(y) > 0 and int(y) % 2 == 0:
                return squared if int(y) == 2 else _power(squared, int(y) // 2)
            inner = _abs_operand(a)  # |u|**(2k): u**(2k)
            if inner is not None and int(y) > 0 and int(y) % 2 == 0:
                return _elementwise_pow(inner, int(y))
            return _elementwise_pow(a, int(y))
    return _elementwise("pow", (a, b))


def _window_sums(args: Sequence[Any]) -> Any:
    """``a - b`` of two selections of one running sum as its window sums
    (:mod:`.array_prefix_sums`: the windows' entries taken from the running sum's
    operand, signed, summed into their places); None for any other difference."""
    a, b = args
    if not (type(a) is TracedArray and type(b) is TracedArray and a.shape == b.shape):
        return None
    windows = array_prefix_sums.windows_of(a, b)
    if windows is None:
        return None
    _, _, shape = a.tape.entries[int(windows.operand[1:])]  # the running sum's operand
    taken = _take(_reshape(TracedArray(a.tape, windows.operand, shape), (-1,)), windows.index)
    if windows.sign is not None:
        taken = _elementwise("mul", (taken, windows.sign))
    size = math.prod(windows.shape)
    pairs = np.stack([np.arange(windows.index.size), windows.segment])
    return _reshape(_segment_sums(taken, pairs, size, 0, "a window sum"), windows.shape)


def _elementwise_pow(a: Any, y: int) -> Any:
    if isinstance(a, Passive):
        return Passive(ArrayOp("integer_pow", (a.op,), (("y", y),), a.shape))
    return a.tape.new(ArrayOp("integer_pow", (a.name,), (("y", y),), a.shape), a.shape)


# -- ufuncs --------------------------------------------------------------------------------

_UFUNCS: dict[str, str] = {
    "add": "add",
    "subtract": "sub",
    "multiply": "mul",
    "divide": "div",
    "true_divide": "div",
    "maximum": "max",
    "minimum": "min",
    "arctan2": "atan2",
    "negative": "neg",
    "exp": "exp",
    "exp2": "exp2",
    "log": "log",
    "log1p": "log1p",
    "expm1": "expm1",
    "sin": "sin",
    "cos": "cos",
    "tan": "tan",
    "arcsin": "asin",
    "arccos": "acos",
    "arctan": "atan",
    "sinh": "sinh",
    "cosh": "cosh",
    "tanh": "tanh",
    "arcsinh": "asinh",
    "arccosh": "acosh",
    "arctanh": "atanh",
    "sqrt": "sqrt",
    "cbrt": "cbrt",
    "absolute": "abs",
    "fabs": "abs",
    "square": "square",
    "erf": "erf",
    "less": "lt",
    "less_equal": "le",
    "greater": "gt",
    "greater_equal": "ge",
    "equal": "eq",
    "not_equal": "ne",
    "logical_and": "and",
    "logical_or": "or",
    "logical_not": "not",
    # a NumPy boolean array's ``&``, ``|``, ``~`` with a comparison: as the operators
    "bitwise_and": "and",
    "bitwise_or": "or",
    "invert": "not",
    "sign": "sign",
    "floor": "floor",
    "ceil": "ceil",
    "rint": "round",
    "fmod": "rem",
    "isfinite": "is_finite",
}


@functools.cache  # built once, on the first ufunc call (its entries are defined below)
def _composite_ufuncs() -> dict[str, Callable[..., Any]]:
    return {
        "power": _power,
        "float_power": _power,
        "matmul": _matmul,
        "positive": lambda a: a,
        "conjugate": lambda a: a,  # of a real array
        "reciprocal": lambda a: _elementwise("div", (1.0, a)),
        "log2": lambda a: _elementwise("log", (a,)) * (1 / math.log(2)),
        "log10": lambda a: _elementwise("log", (a,)) * (1 / math.log(10)),
        "hypot": lambda a, b: _elementwise(
            "sqrt", (_elementwise("square", (a,)) + _elementwise("square", (b,)),)
        ),
        "logaddexp": _logaddexp,
        "isnan": lambda a: _elementwise("ne", (a, a)),
        "logical_xor": _xor,
        "bitwise_xor": lambda a, b: _xor(a, b, "bitwise_xor"),
        "isinf": lambda a: _elementwise("eq", (_elementwise("abs", (a,)), math.inf)),
    }


def _xor(a: Any, b: Any, name: str = "logical_xor") -> Any:
    """``np.logical_xor(a, b)``: whether exactly one holds, ``(a != 0) != (b != 0)``, a
    mask (NumPy's bool result); ``^`` and ``np.bitwise_xor`` of booleans the same (of
    integers, bit by bit: refused)."""
    parts = []
    for x in (a, b):
        boolean = x.boolean if isinstance(x, Passive) else _constant(x).dtype.kind == "b"
        if name != "logical_xor" and not boolean:
            raise _unsupported(f"numpy.{name} of other than booleans (masks)")
        parts.append(x if boolean else _elementwise("ne", (x, 0.0)))
    if not any(_is_traced(x) for x in parts):
        return np.logical_xor(*map(_constant, parts))
    if not all(_is_traced(x) for x in parts):  # c ^ m with c constant: m where not c
        m, c = parts if _is_traced(parts[0]) else parts[::-1]
        return (m & ~_constant(c)) | (~m & _constant(c))
    return _elementwise("ne", tuple(parts))


def _logaddexp(a: Any, b: Any) -> Any:
    """``log(exp(a) + exp(b))`` as ``m + log(exp(a - m) + exp(b - m))``, ``m = max(a, b)``,
    where ``|a - b| < 1``: no overflow, and ``m``'s partials cancel identically, so the
    derivatives of every order are those of the smooth function also where ``a == b``
    (``logaddexp(0, z)`` at ``z = 0``). Farther apart, NumPy's ``m + log1p(exp(-|a - b|))``:
    there ``1 + exp(-|a - b|)`` would round the smaller term away (``logaddexp(1e-10, -40)``
    lost its 4e-18). Where the larger is infinite it is the result, as NumPy's, and the
    formulas read 0 there (``a - b`` is NaN where both are, and so would their
    derivatives be: a CTC's ``logaddexp(-inf, -inf)``, log 0 of unreachable states, is
    -inf; ``max``'s derivative, ``H(a - b)``, too: the larger is picked by a select)."""
    larger = _where(a >= b, a, b)
    infinite = _elementwise("eq", (_elementwise("abs", (larger,)), math.inf))
    a, b = _where(infinite, 0.0, a), _where(infinite, 0.0, b)
    m = _elementwise("max", (a, b))
    gap = _elementwise("abs", (a - b,))
    exps = _elementwise("exp", (a - m,)) + _elementwise("exp", (b - m,))
    near = m + _elementwise("log", (exps,))
    far = m + _elementwise("log1p", (_elementwise("exp", (-gap,)),))
    return _where(infinite, larger, _where(gap < 1.0, near, far))


def _ufunc(ufunc, method: str, inputs: tuple, kwargs: Mapping[str, Any]) -> Any:
    name = ufunc.__name__
    if any(array_complex.is_complex(a) for a in inputs):
        return array_complex.ufunc(ufunc, method, inputs, dict(kwargs))
    if method == "at" and name in _AT:
        return _assign_at(name, *inputs)
    if method == "reduceat" and name == "add":
        return _add_reduceat(*inputs, **kwargs)
    if method == "outer" and ufunc.nin == 2 and not kwargs:
        return _ufunc_outer(ufunc, *inputs)
    if method == "accumulate" and (name in _ACCUMULATED or name == "logaddexp"):
        return _accumulate(ufunc, *inputs, **kwargs)
    if method == "reduce" and (name in _ACCUMULATED or name == "logaddexp"):
        return _reduce(name, *inputs, **kwargs)
    if method == "reduce" and name in ("logical_and", "logical_or"):  # np.all, np.any
        what = "all" if name == "logical_and" else "any"
        axis, keepdims = kwargs.get("axis", 0), kwargs.get("keepdims", False)
        rest = {k: v for k, v in kwargs.items() if k not in ("axis", "keepdims")}
        stacked = inputs[0] if isinstance(inputs[0], _Value) else _stack(inputs[0])
        return _any_all(what, stacked, axis, keepdims=keepdims, **rest)
    if method != "__call__":
        raise _unsupported(f"{_ufunc_module(name)}.{name}.{method}")
    if kwargs.get("out") is not None:
        if not _stored_back(kwargs["out"], inputs):
            raise InputError(
                f"numpy.{name}(..., out=...) writes into an array: not supported when tracing"
            )
        kwargs = {k: v for k, v in kwargs.items() if k != "out"}
    if name in numpy_array_api.GUFUNCS:  # np.vecdot's axis=
        return numpy_array_api.GUFUNCS[name](*map(_unheld, inputs), **kwargs)
    if set(kwargs) - {"out", "dtype", "casting", "order", "subok"}:
        raise _unsupported(f"numpy.{name}({', '.join(sorted(kwargs))}=...)")
    composite = (
        _composite_ufuncs().get(name)
        or numpy_composites.UFUNCS.get(name)
        or numpy_selections.UFUNCS.get(name)
    )
    if composite is not None:
        return composite(*map(_unheld, inputs))
    special = scipy_special.COMPOSITE_UFUNCS.get(name)
    if special is not None:
        return special(lambda op, *args: _elementwise(op, args), *map(_unheld, inputs))
    op = _UFUNCS.get(name) or scipy_special.UFUNCS.get(name)
    if op is None:
        raise _unsupported(f"{_ufunc_module(name)}.{name}")
    return _elementwise(op, inputs)


def _stored_back(out: Any, inputs: tuple) -> bool:
    """Whether ``out`` is NumPy's array written in place by an augmented assignment to a
    subscript, ``y[1:] += v`` (``np.add(t, v, out=t)`` of the temporary ``t = y[1:]``,
    which Python then stores back, ``y[1:] = t``): the result may then be a new value, and
    the store writes it into ``y`` (a fresh array: its first traced write, ``y =
    np.zeros(n); y[1:] += v``). The user's code is read at its current instruction: an
    in-place binary operation whose next step is that store. Any other ``out=`` (a named
    view ``t += v``, whose base NumPy would change too) is refused."""
    out = out if isinstance(out, tuple) else (out,)
    if len(out) != 1 or type(out[0]) is not np.ndarray or not inputs or inputs[0] is not out[0]:
        return False
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__", "").startswith("dgraph."):
        frame = frame.f_back
    return frame is not None and frame.f_lasti in _store_points(frame.f_code)


@functools.lru_cache(maxsize=256)
def _store_points(code: types.CodeType) -> frozenset[int]:
    """The offsets of ``code``'s in-place binary operations whose result is stored into a
    subscript next (``y[k] op= v``)."""
    found = []
    instructions = list(dis.get_instructions(code))
    for k, ins in enumerate(instructions):
        inplace = ins.opname.startswith("INPLACE_") or (
            ins.opname == "BINARY_OP" and ins.argrepr.endswith("=")
        )
        if not inplace:
            continue
        after = (i.opname for i in instructions[k + 1 :] if i.opname not in _STACK_MOVES)
        if next(after, None) in ("STORE_SUBSCR", "STORE_SLICE"):  # y[a:b] from Python 3.12
            found.append(ins.offset)
    return frozenset(found)


_STACK_MOVES = frozenset({"SWAP", "COPY", "ROT_TWO", "ROT_THREE", "CACHE", "EXTENDED_ARG", "NOP"})


_ACCUMULATED = frozenset({"add", "multiply", "maximum", "minimum"})


def _accumulate(ufunc, x: Any, axis: int = 0, dtype=None, out=None) -> Any:
    """``ufunc.accumulate(x, axis)`` (add, multiply, maximum, minimum, logaddexp): ``np.add``
    is ``np.cumsum``, ``np.multiply`` ``np.cumprod``, ``np.logaddexp`` JAX's
    ``cumlogsumexp`` (a running log-sum-exp: ListMLE's and the Cox model's risk-set sums
    reversed, ``np.logaddexp.accumulate(s[::-1])[::-1]``); ``maximum`` and ``minimum`` a running
    extreme by ⌈log₂ n⌉ rounds of ``ufunc`` of the array and itself shifted by 1, 2, 4, …
    along the axis (Hillis and Steele, *Data parallel algorithms*, CACM 29(12), 1986):
    2⌈log₂ n⌉ operations, not a slice and an operation per position (a drawdown's
    gradient at 1,000 entries took 9.9 CPU-s). The first positions of a round take
    ``ufunc`` of an entry and itself, whose derivative splits in two halves of one (the
    ties' convention) and sums to 1; the two windows of a round are disjoint, so no
    other entry ties with itself."""
    _reduction_args(f"numpy.{ufunc.__name__}.accumulate", dtype, out)
    if ufunc is np.add:
        return _cumsum(x, axis)
    if ufunc is np.multiply:
        return _cumprod(x, axis)
    d = _axis(axis, np.ndim(x), f"numpy.{ufunc.__name__}.accumulate")
    if ufunc is np.logaddexp:
        return _move(x, "cumlogsumexp", (("axis", d), ("reverse", False)), np.shape(x))
    n, y, step = np.shape(x)[d], x, 1
    while step < n:  # y_i = ufunc(x_{i-2·step+1}, …, x_i) after each round
        head = y[(slice(None),) * d + (slice(0, step),)]  # ufunc(y_i, y_i) = y_i there
        tail = y[(slice(None),) * d + (slice(0, n - step),)]
        y = ufunc(y, _concatenate([head, tail], d))
        step *= 2
    return y


def _reduce(name: str, x: Any, axis: Any = 0, dtype=None, out=None, keepdims=False,
            **kwargs: Any) -> Any:  # fmt: skip
    """``ufunc.reduce(x, axis)`` (add, multiply, maximum, minimum, logaddexp; ``axis`` 0
    unless given, as NumPy's): ``np.sum``, ``np.prod``, ``np.max``, ``np.min``,
    ``scipy.special.logsumexp`` over it."""
    if name == "logaddexp":
        _reduction_args("numpy.logaddexp.reduce", dtype, out, **kwargs)
        return scipy_special.logsumexp(x, axis=axis, keepdims=keepdims)
    if name == "add":
        return _sum(x, axis, dtype, out, keepdims, **kwargs)
    if name == "multiply":
        return _prod(x, axis, dtype, out, keepdims, **kwargs)
    _reduction_args(f"numpy.{name}.reduce", dtype, out, **kwargs)
    return _extreme("reduce_max" if name == "maximum" else "reduce_min", x, axis, out, keepdims)


def _ufunc_module(name: str) -> str:
    """Where a ufunc of this name comes from, for a message: NumPy's or scipy.special's."""
    return "numpy" if isinstance(getattr(np, name, None), np.ufunc) else "scipy.special"


def _ufunc_outer(ufunc, a: Any, b: Any) -> Any:
    """``ufunc.outer(a, b)``: ``ufunc`` of ``a`` with ``b.ndim`` axes of length 1 appended,
    broadcast against ``b``."""
    shape = np.shape(a) + (1,) * len(np.shape(b))
    return ufunc(np.reshape(a, shape), b)


# -- assignment into fresh arrays ----------------------------------------------------------
# ``r = np.zeros_like(u); r[1:-1] = ...``: ``r`` holds its numbers until a value that
# depends on the inputs is written into it; from then on it is the vertex of the last
# write (a ``scatter``, or ``scatter_add`` for ``np.add.at``), the same Python object
# renamed. Where NumPy would share memory (an input, a view, an array a view was taken of)
# a write is refused in one line rather than traced with other semantics.

_AT = {"add": "scatter_add", "subtract": "scatter_add", "multiply": "scatter_mul",
       "maximum": "scatter_max", "minimum": "scatter_min"}  # fmt: skip


def _unaliased(method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` whose result, where it is one of its traced arguments itself (``x + 0``,
    ``np.concatenate([x])``), is a new object of the same vertex, neither then written."""

    def call(*args: Any, **kwargs: Any) -> Any:
        result = method(*args, **kwargs)
        if isinstance(result, TracedArray) and _given(result, args, kwargs):
            alias = TracedArray(result.tape, result.name, result.shape)
            if method.__name__ not in _COPIES:  # x[:], x.reshape(x.shape): NumPy's views
                _viewing(alias, result)
            return alias
        return result

    call.__name__, call.__doc__ = method.__name__, method.__doc__
    return call


_COPIES = frozenset({"__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
                     "__truediv__", "__rtruediv__", "__pos__", "__pow__", "__array_ufunc__",
                     "sum", "max", "min", "mean", "prod", "clip", "astype", "copy"})  # fmt: skip


def _given(result: Any, args: tuple, kwargs: Mapping[str, Any]) -> bool:
    stack = [*args, *kwargs.values()]
    while stack:
        a = stack.pop()
        if a is result:
            return True
        if isinstance(a, (list, tuple)):
            stack.extend(a)
    return False


def _fresh(tape: _Tape, array: np.ndarray) -> TracedArray:
    """A new array of ``array``'s numbers that may be assigned into. Its numbers are held
    in ``tape.constants`` (read there while it holds only constants; the first write of a
    value that depends on the inputs makes a vertex of them), and let go with the array:
    a loop's arrays of constants (``np.linspace(0, 1, n) * i``) are not kept to the end
    of the trace. Its vertex only names it, a broadcast zero."""
    held = np.array(array, dtype=float)
    y = tape.new(_broadcast_op(_ZERO, (), held.shape), held.shape)
    tape.constants[y.name] = held
    weakref.finalize(y, tape.constants.pop, y.name, None)
    return y


_ZERO = Const.of(0.0)


def _copied(x: Any) -> Any:
    """``x.copy()``: a new object (writes into it leave ``x`` as it was)."""
    if _held(x):
        return _fresh(x.tape, x.tape.constants[x.name])
    if isinstance(x, TracedArray):
        return TracedArray(x.tape, x.name, x.shape)
    return x if isinstance(x, Passive) else np.array(_constant(x), dtype=float)


_INTO_NUMPY = (
    "{what} into a NumPy array (or a view of one) of a value that depends on the inputs is"
    " not supported: make the array inside the function (np.zeros(shape), np.zeros_like(u))"
    " and write into it, not into a view (or build it with np.concatenate, np.pad or"
    " np.where)"
)


def _writable(x: Any, what: str) -> TracedArray:
    if not isinstance(x, TracedArray):
        raise InputError(_INTO_NUMPY.format(what=what))
    if any(x is a for a in x.tape.arguments):
        raise InputError(f"{what} into an argument of the function: write into a copy (u.copy())")
    views = [(ref(), of) for ref, of in list(x.tape.views.values())]
    if any(v is x for v, _ in views):
        raise InputError(f"{what} into a view (a slice, reshape or .T) of an array: not supported")
    if x.name in x.tape.viewed or any(v is not None and x.name in of for v, of in views):
        raise InputError(
            f"{what} into an array after a view of it was taken (a slice, reshape, .T or"
            " a read as a NumPy array) is not supported: write first, or copy it"
        )
    return x


def _positions(x: TracedArray, key: Any, what: str) -> np.ndarray:
    """The flat positions of ``x`` that ``x[key]`` selects, in the shape it has."""
    parts = key if isinstance(key, tuple) else (key,)
    if any(isinstance(k, _Value) for k in parts):
        raise InputError(f"{what} at positions that depend on the inputs is not supported")
    try:
        return np.arange(math.prod(x.shape)).reshape(x.shape)[key]
    except (IndexError, TypeError, ValueError) as exc:
        raise InputError(f"{what}: {str(exc).splitlines()[0][:160]}") from None


def _updates(value: Any, shape: Shape, tape: _Tape, what: str) -> Any:
    if isinstance(value, Passive):
        raise InputError(f"{what} of a comparison is not supported: use np.where")
    if _broadcast_shape([_shape_of(value), shape], what) != shape:
        raise InputError(f"{what}: a value of shape {_shape_of(value)} into {shape} entries")
    if _is_traced(value):
        return _operand(value, shape, tape)
    # a constant at every position written (y[0] = 5.0 into a row): the scatter reads one
    # update per position
    return Const.of(np.ascontiguousarray(np.broadcast_to(_as_number(value), shape), float))


def _entry(x: TracedArray, key: Any) -> int | None:
    """The flat position of the one entry ``x[key]`` names by integers, else None."""
    parts = key if isinstance(key, tuple) else (key,)
    if len(parts) != len(x.shape) or not all(
        isinstance(k, numbers.Integral) and not isinstance(k, (bool, np.bool_)) for k in parts
    ):
        return None
    if any(not -n <= k < n for k, n in zip(parts, x.shape, strict=True)):
        return None
    flat = tuple(int(k) % n for k, n in zip(parts, x.shape, strict=True))
    return int(np.ravel_multi_index(flat, x.shape)) if flat else 0


def _write_entry(x: TracedArray, key: Any, value: Any) -> bool:
    """``x[i] = v`` of one entry and a traced scalar, kept aside (the entry's vertex by
    position) rather than a ``scatter`` over all of ``x``: a read of a written entry is
    its vertex, any other use of ``x`` reads ``x.name``, which puts the entries written so
    far in as one ``scatter`` (:func:`_put_entries`). A Python loop filling ``x`` entry by
    entry so makes one scatter of n entries, not n scatters of n (O(n²) positions, and
    a chain of n blocks over all of ``x`` to eliminate). False where it does not apply."""
    if not (isinstance(value, TracedArray) and value.shape == () and _is_traced(value)):
        return False
    at = _entry(x, key)
    if at is None:
        return False
    if not x._writes:
        _writable(x, "assignment x[...] = ...")
        x._writes = {}
    x._writes[at] = value.name
    return True


def _unwritten(x: TracedArray, key: Any) -> Any:
    """``x[key]`` of one entry not among the writes :func:`_write_entry` kept aside: that
    entry of ``x`` before them (its number where ``x`` still holds numbers), so a read
    between single-entry writes puts nothing in. An assembly ``r[e] -= f; r[e + 1] += f``
    over n elements so makes one scatter of n + 1 entries, not a scatter over all of
    ``r`` per element (O(n²) positions)."""
    if x._name in x.tape.constants:
        return x.tape.constants[x._name][key]
    return _index(TracedArray(x.tape, x._name, x.shape), key)


def _put_entries(x: TracedArray) -> None:
    """The entries :func:`_write_entry` kept aside written into ``x``: one ``scatter``."""
    writes, x._writes = x._writes, None
    at = np.array(sorted(writes), dtype=np.int64)
    entries = [TracedArray(x.tape, writes[int(p)], ()) for p in at]
    _assign(x, np.unravel_index(at, x.shape), _stacked(entries))


_WIDEST = 64  # operands of one concatenate :func:`_stacked` makes


def _stacked(entries: list[TracedArray]) -> TracedArray:
    """The scalars as one vector: stacks of at most :data:`_WIDEST`, concatenated so again
    (an operation's rules read all its operands for each one's block: n of them in one
    operation would cost n² there)."""
    if len(entries) == 1:
        return entries[0]
    parts = [_stack(entries[i : i + _WIDEST]) for i in range(0, len(entries), _WIDEST)]
    while len(parts) > 1:
        parts = [_concatenate(parts[i : i + _WIDEST], 0) for i in range(0, len(parts), _WIDEST)]
    return parts[0]


def _assign(x: TracedArray, key: Any, value: Any) -> None:
    """``x[key] = value``."""
    what = "assignment x[...] = ..."
    key = as_mask(key) if as_mask(key) is not None else key  # y[np.nonzero(m)] = v
    if _write_entry(x, key, value):
        return
    if isinstance(key, Passive) and is_mask(key.op):
        _assign_masked(x, key, value, what)
        return
    if _held(x) and not _is_traced(value) and not isinstance(value, Passive):
        try:  # numbers into numbers, as NumPy writes them
            x.tape.constants[x.name][key] = _constant(value)
        except (IndexError, TypeError, ValueError) as exc:
            raise InputError(f"{what}: {str(exc).splitlines()[0][:160]}") from None
        return
    _writable(x, what)
    at = _positions(x, key, what)
    sources = np.full(math.prod(x.shape), -1)
    sources[at.reshape(-1)] = np.arange(at.size)  # repeated positions: the last write
    base = Const.of(x.tape.constants[x.name].copy()) if _held(x) else x.name
    op = ArrayOp(
        "scatter",
        (base, _updates(value, at.shape, x.tape, what)),
        (("sources", tuple(sources.tolist())),),
        x.shape,
    )
    x.name = x.tape.new(op, x.shape).name


def _assign_masked(x: TracedArray, mask: Passive, value: Any, what: str) -> None:
    """``x[mask] = value`` by a mask of ``x``'s shape computed from the inputs: a number
    (or a 0-d array) at every selected entry, or a :class:`MaskedSelection` by the same
    mask (``x[m] = z[m]``, ``x[m] *= 2``): ``x`` becomes ``np.where(mask, value, x)``."""
    if mask.shape != x.shape:
        raise DataDependentIndex(
            f"{what} by a mask of shape {mask.shape} into {x.shape}: {_MASKED}"
        )
    if isinstance(value, MaskedSelection):
        (value,) = MaskedSelection(x, mask)._values([value])
    elif np.ndim(value) != 0 or isinstance(value, Passive):
        raise DataDependentIndex(
            "assignment x[mask] = value by a mask computed from the inputs takes a number or"
            " a selection by the same mask (x[m] = z[m]), not an array whose length must"
            " match the mask's count: use np.where(mask, value, x)"
        )
    _writable(x, what)
    x.name = _where(mask, value, x).name


def _fill_diagonal(a: Any, val: Any, wrap: bool = False) -> None:
    """``np.fill_diagonal(a, val, wrap)`` in place (a leave-one-out kernel matrix's
    diagonal set to 0): ``a`` becomes ``np.where(diagonal, val, a)``, the diagonal NumPy's
    own ``fill_diagonal`` marks on a mask of ``a``'s shape; ``val`` a constant (a number
    or NumPy's cycled array) or a traced number."""
    what = "numpy.fill_diagonal"
    if isinstance(val, Passive):
        raise _unsupported(f"{what} of a comparison")
    if _held(a) and not _is_traced(val):
        np.fill_diagonal(a.tape.constants[a.name], _constant(val), wrap)
        return
    _writable(a, what)
    mask = np.zeros(a.shape, dtype=bool)
    try:
        np.fill_diagonal(mask, True, wrap)
    except ValueError as exc:
        raise InputError(f"{what}: {exc}") from None
    if _is_traced(val):
        if val.shape != ():
            raise _unsupported(f"{what} of an array of values that depends on the inputs")
        filled: Any = val
    else:
        filled = np.zeros(a.shape)
        np.fill_diagonal(filled, _constant(val), wrap)
    a.name = _where(mask, filled, a).name


def _assign_at(name: str, x: Any, indices: Any, value: Any = None) -> None:
    """``np.add.at(x, indices, value)`` (and subtract, multiply, maximum, minimum)."""
    what = f"numpy.{name}.at"
    if value is None:
        raise _unsupported(f"{what} without values")
    if _held(x) and not _is_traced(value) and not isinstance(value, Passive):
        getattr(np, name).at(x.tape.constants[x.name], indices, _constant(value))
        return
    _writable(x, what)
    if name == "subtract":
        value = -value
    base = Const.of(x.tape.constants[x.name].copy()) if _held(x) else x.name
    if isinstance(indices, Passive) and name in ("add", "subtract"):
        x.name = _add_computed(x.tape, x.shape, base, indices, value, what).name
        return
    at = _positions(x, indices, what)
    op = ArrayOp(
        _AT[name],
        (base, _updates(value, at.shape, x.tape, what)),
        (("targets", tuple(at.reshape(-1).tolist())),),
        x.shape,
    )
    x.name = x.tape.new(op, x.shape).name


def _add_computed(
    tape: _Tape,
    shape: Shape,
    base: Any,
    index: Passive,
    value: Any,
    what: str,
    labels: bool = False,
) -> Any:
    """``np.add.at(x, i.astype(int), v)`` with ``i`` index data (a parameter, of any
    rank: a mesh's triangles in FEM assembly): the transpose of :func:`_take_computed`,
    one ``scatter_add_dynamic`` along the first axis at ``i``'s flat positions (a negative
    one from the end, then clipped into the axis, as JAX's ``x.at[i].add(v)``), ``v``
    laid flat to match (Griewank & Walther 2008, §3.2: a gather's adjoint). ``labels``:
    ``np.bincount``'s, each in ``0 .. minlength - 1`` at the point (checked there:
    :func:`~.integer_casts.check_wrapped_in_range`)."""
    if not shape or not tape.reads_fixed_only(index.op):
        raise DataDependentIndex(
            f"{what} at positions computed from the inputs is supported at index data"
            " (an integer cast of the parameters, i.astype(int)) along the first axis"
        )
    size, rest = index.size, shape[1:]
    laid = (*index.shape, *rest)
    if isinstance(value, Passive):
        raise InputError(f"{what} of a comparison is not supported: use np.where")
    if _broadcast_shape([_shape_of(value), laid], what) != laid:
        raise InputError(f"{what}: a value of shape {_shape_of(value)} into {laid} entries")
    if _live(value):
        updates: Any = _reshape(_broadcast_to(value, laid), (size, *rest)).name
    else:
        flat = np.broadcast_to(_as_number(value), laid).reshape(size, *rest)
        updates = Const.of(np.ascontiguousarray(flat, dtype=float))
    positions = ArrayOp(
        "reshape", (index.op,), (("new_sizes", (size,)), ("dimensions", None)), (size,)
    )
    params = (("axis", 0), ("mode", "clip"), ("size", size), ("length", shape[0]),
              ("fill", float("nan")), *((("labels", True),) if labels else ()))  # fmt: skip
    op = ArrayOp(DYNAMIC_ADD, (base, wrapped(positions, shape[0]), updates), params, shape)
    return tape.new(op, shape)


def _segment_sums(x: Any, pairs: np.ndarray, k: int, axis: int, what: str) -> Any:
    """Sums along ``axis`` of ``x`` into ``k`` places: entry ``pairs[0, j]`` along the axis
    added into place ``pairs[1, j]``; a ``take`` of the sources where they are not each
    entry once in order, then one ``scatter_add`` into zeros (``np.add.at``'s operation)."""
    sources, targets = pairs
    if not np.array_equal(sources, np.arange(x.shape[axis])):
        x = _take(x, sources, axis)
    shape = (*x.shape[:axis], k, *x.shape[axis + 1 :])
    at = np.take(np.arange(math.prod(shape)).reshape(shape), targets, axis=axis)
    op = ArrayOp(
        "scatter_add",
        (Const.of(np.zeros(shape)), _updates(x, x.shape, x.tape, what)),
        (("targets", tuple(at.reshape(-1).tolist())),),
        shape,
    )
    return x.tape.new(op, shape)


def _integers(indices: Any, what: str) -> np.ndarray:
    if _is_traced(indices) or isinstance(indices, Passive):
        raise InputError(f"{what} with indices that depend on the inputs is not supported")
    idx = np.asarray(indices)
    if idx.ndim != 1 or idx.dtype.kind not in "iu":
        raise InputError(f"{what}: the indices must be a 1-D array of integers")
    return idx.astype(np.int64)


def _add_reduceat(a: Any, indices: Any, axis: Any = 0, dtype=None, out=None) -> Any:
    """``np.add.reduceat(a, indices, axis)``: place ``i`` the sum of
    ``a[indices[i]:indices[i + 1]]`` along the axis (to the end for the last), or
    ``a[indices[i]]`` where ``indices[i + 1] <= indices[i]``, as NumPy defines it."""
    what = "numpy.add.reduceat"
    _reduction_args(what, dtype, out)
    if _traced(a, what) is None:
        raise InputError(f"{what} with indices that depend on the inputs is not supported")
    d = _axis(axis, a.ndim, what)
    idx, n = _integers(indices, what), a.shape[d]
    if idx.size == 0 or ((idx < 0) | (idx >= n)).any():
        raise InputError(f"{what}: an index is out of bounds for axis {d} of length {n}")
    stops = np.append(idx[1:], n)
    pairs = [
        (p, i)
        for i, (start, stop) in enumerate(zip(idx.tolist(), stops.tolist(), strict=True))
        for p in (range(start, stop) if start < stop else (start,))
    ]
    return _segment_sums(a, np.array(pairs).T, idx.size, d, what)


def _bincount(x: Any, weights: Any = None, minlength: int = 0) -> Any:
    """``np.bincount(labels, weights=w, minlength)`` with constant labels and traced
    weights: each weight added into its label's place."""
    what = "numpy.bincount"
    if isinstance(x, Passive) and _live(weights):  # labels from index data (segment sums)
        if x.ndim != 1 or weights.shape != x.shape or minlength < 1:
            raise InputError(
                f"{what} at labels computed from the parameters takes 1-D labels, weights"
                " of their shape and minlength (the bins, each label below it)"
            )
        zeros = Const.of(np.zeros(int(minlength)))
        return _add_computed(weights.tape, (int(minlength),), zeros, x, weights, what, True)
    if isinstance(x, Passive) and not _is_traced(weights) and not isinstance(weights, Passive):
        return _passive_counts(x, weights, minlength, what)
    if not _live(weights):
        w = None if weights is None else _constant(weights)
        return np.bincount(_integers(x, what), w, minlength=minlength)
    labels = _integers(x, what)
    if weights.shape != labels.shape:
        raise InputError(f"{what}: weights of shape {weights.shape} for {labels.size} labels")
    if (labels < 0).any():
        raise InputError(f"{what}: the labels must be non-negative")
    k = max(int(labels.max(initial=-1)) + 1, int(minlength))
    if labels.size == 0:
        return np.zeros(k)
    return _segment_sums(weights, np.stack([np.arange(labels.size), labels]), k, 0, what)


def _passive_counts(labels: Passive, weights: Any, minlength: int, what: str) -> Passive:
    """``np.bincount(g.astype(int), minlength=k)`` (and constant weights) at labels from
    index data: each group's count, a passive value (no derivative: it changes only where
    the labels do), the same ``scatter_add_dynamic`` into zeros as the traced weights'
    segment sums, of constant updates, its labels checked at the point as theirs."""
    running = _tracing()
    tape = running[-1] if running else None
    if labels.ndim != 1 or minlength < 1 or tape is None or not tape.reads_fixed_only(labels.op):
        raise InputError(
            f"{what} at labels computed from the parameters takes 1-D labels of index data"
            " (an integer cast of the parameters) and minlength (the bins, each label"
            " below it)"
        )
    ones = np.ones(labels.shape) if weights is None else _constant(weights).astype(float)
    if ones.shape != labels.shape:
        raise InputError(f"{what}: weights of shape {ones.shape} for {labels.size} labels")
    size, k = labels.size, int(minlength)
    positions = ArrayOp(
        "reshape", (labels.op,), (("new_sizes", (size,)), ("dimensions", None)), (size,)
    )
    params = (("axis", 0), ("mode", "clip"), ("size", size), ("length", k),
              ("fill", float("nan")), ("labels", True))  # fmt: skip
    operands = (Const.of(np.zeros(k)), wrapped(positions, k), Const.of(ones))
    return Passive(ArrayOp(DYNAMIC_ADD, operands, params, (k,)))


# -- moves ---------------------------------------------------------------------------------


def _traced(x: Any, what: str) -> TracedArray | None:
    """``x`` where it is a traced array, None where it is constant; a passive value is
    refused (moves of comparisons are not traced) but by the moves of :data:`_PASSIVE_MOVES`,
    which move it as a nested operation (:func:`_move`)."""
    if isinstance(x, Passive):
        if what in _PASSIVE_MOVES:
            return x  # type: ignore[return-value]
        raise _unsupported(f"{what} of a comparison")
    return x if _live(x) else None


#: moves that take a passive value (``np.sign(x).reshape(2, 3)``, ``np.flip(np.floor(x))``):
#: the result passive too, the move nested in it
_PASSIVE_MOVES = frozenset({"reshape", "transpose", "squeeze", "expand_dims", "numpy.flip",
                            "numpy.roll", "numpy.swapaxes", "numpy.moveaxis"})  # fmt: skip


_VIEWS = frozenset({"slice", "reshape", "transpose", "squeeze", "expand_dims", "rev"})


def _move(x: TracedArray, primitive: str, params: tuple, shape: Shape) -> TracedArray:
    if isinstance(x, Passive):  # no derivative flows: a nested move, passive too
        return Passive(ArrayOp(primitive, (x.op,), params, shape))  # type: ignore[return-value]
    y = x.tape.new(ArrayOp(primitive, (x.name,), params, shape), shape)
    if primitive in _VIEWS and shape:  # NumPy's result is a view: x not written while it lives
        _viewing(y, x)
    return y


def _viewing(view: TracedArray | np.ndarray, base: TracedArray) -> None:
    """Record ``view`` as a view of ``base`` (and of what ``base`` is a view of) while it
    lives: a NumPy view of a fresh array's numbers too (``y[i] + …`` then ``y[i + 1] =
    …``: the temporary row is gone before the write)."""
    views = base.tape.views
    known = views.get(id(base))
    roots = frozenset({base.name, *(known[1] if known and known[0]() is base else ())})
    key = id(view)
    views[key] = (weakref.ref(view, lambda _, key=key: views.pop(key, None)), roots)


def _reshape(x: Any, shape: Any, order: str | None = "C") -> Any:
    if order == "F" and _is_traced(x):  # Fortran order: C order of the axes reversed
        shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
        new = np.empty(x.shape, dtype=np.bool_).reshape(shape, order="F").shape
        return _transpose(_reshape(_transpose(x), new[::-1]))
    if order not in ("C", None):  # NumPy reads None as "C"
        raise _unsupported(f"reshape(order={order!r})")
    if _traced(x, "reshape") is None:
        return np.reshape(_constant(x), shape, order=order or "C")
    shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
    try:
        new = np.empty(x.shape, dtype=np.bool_).reshape(shape).shape  # -1 resolved by NumPy
    except ValueError:
        raise InputError(f"cannot reshape an array of shape {x.shape} into {shape}") from None
    if new == x.shape:
        return x
    return _move(x, "reshape", (("new_sizes", new), ("dimensions", None)), new)


def _axis(axis: int, ndim: int, what: str) -> int:
    if not isinstance(axis, numbers.Integral) or not -ndim <= axis < max(ndim, 1):
        raise InputError(f"{what}: axis {axis!r} is out of range for {ndim} axes")
    return int(axis) % max(ndim, 1)


def _axes(axis: Any, ndim: int, what: str) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, numbers.Integral):
        axis = (axis,)
    found = tuple(sorted({_axis(a, ndim, what) for a in axis}))
    return found


def _transpose(x: Any, axes: Any = None) -> Any:
    if _traced(x, "transpose") is None:
        return np.transpose(_constant(x), axes)
    n = x.ndim
    perm = (
        tuple(reversed(range(n))) if axes is None else tuple(_axis(a, n, "transpose") for a in axes)
    )
    if sorted(perm) != list(range(n)):
        raise InputError(f"transpose: {perm} is not a permutation of {n} axes")
    if perm == tuple(range(n)):
        return x
    shape = tuple(x.shape[p] for p in perm)
    return _move(x, "transpose", (("permutation", perm),), shape)


def _squeeze(x: Any, axis: Any = None) -> Any:
    if _traced(x, "squeeze") is None:
        return np.squeeze(_constant(x), axis)
    dims = (
        tuple(k for k, n in enumerate(x.shape) if n == 1)
        if axis is None
        else _axes(axis, x.ndim, "squeeze")
    )
    if any(x.shape[d] != 1 for d in dims):
        raise InputError(f"squeeze: an axis of {x.shape} to remove has length above 1")
    if not dims:
        return x
    shape = tuple(n for k, n in enumerate(x.shape) if k not in dims)
    return _move(x, "squeeze", (("dimensions", dims),), shape)


def _expand_dims(x: Any, axis: Any) -> Any:
    if _traced(x, "expand_dims") is None:
        return np.expand_dims(_constant(x), axis)
    n = x.ndim + (1 if isinstance(axis, numbers.Integral) else len(axis))
    where = _axes(axis, n, "expand_dims")
    it = iter(x.shape)
    shape = tuple(1 if k in where else next(it) for k in range(n))
    return _reshape(x, shape)


def _whole_axis(k: Any) -> bool:
    """``k`` is ``:`` (a whole axis); an index array or a traced index never is (a traced
    one compared with ``==`` would trace the comparison)."""
    return isinstance(k, slice) and k == slice(None)


def _index(x: TracedArray, key: Any) -> Any:
    """Basic indexing: integers and slices (one ``slice``, ``rev`` for negative steps),
    ``None`` and ``...``; constant arrays: a ``take`` along one axis, else a
    ``gather_flat``; traced values as indices are refused."""
    mask = as_mask(key)  # x[np.where(c)] is x[c]
    key = (mask,) if mask is not None else key if isinstance(key, tuple) else (key,)
    key = tuple(k.tape.constants[k.name] if _held(k) else k for k in key)  # fresh: numbers
    picked = [j for j, k in enumerate(key) if isinstance(k, (list, np.ndarray))]
    if len(picked) == 1 and all(_whole_axis(k) for j, k in enumerate(key) if j != picked[0]):
        return _take(x, key[picked[0]], picked[0])  # constant indices along one axis
    computed = [j for j, k in enumerate(key) if isinstance(k, Passive)]
    if len(computed) == 1 and all(_whole_axis(k) for j, k in enumerate(key) if j != computed[0]):
        return _take_computed(x, key[computed[0]], computed[0])
    at = computed[0] if len(computed) == 1 else 0
    if (
        at
        and all(isinstance(k, numbers.Integral) for k in key[:at])
        and all(_whole_axis(k) for k in key[at + 1 :])
    ):  # c[0, i]: NumPy's advanced indices side by side, as c[0][i]
        return _take_computed(_index(x, key[:at]), key[at], 0)
    flat = _cell_positions(x.shape, key, x.tape) if computed else None
    if flat is not None:  # img[i, j]: the flat array at i·n + j
        return _take_computed(_reshape(x, (-1,)), flat, 0)
    if computed:  # x[i, j] at cells found from the inputs (np.floor(u).astype(int))
        raise DataDependentIndex(
            "indexing at positions computed from the inputs is supported along one axis"
            " (x[i], x[:, i], positions from np.argmax, np.argmin, np.argsort), not at"
            " several (x[i, j]) or beside other indices unless every axis has one, bounded"
            " to it (np.floor(np.clip(u, 0, n - 1))): else use np.where"
        )
    for k in key:
        if _is_traced(k):
            raise DataDependentIndex(
                "indexing with a value that depends on the inputs is not supported"
                " (a data-dependent index): use np.where"
            )
    if picked:
        return _gather(x, key)
    for k in key:
        if isinstance(k, (list, np.ndarray)) or (
            not isinstance(k, (slice, numbers.Integral)) and k is not None and k is not Ellipsis
        ):
            raise InputError(
                f"indexing with {type(k).__name__} (fancy or boolean indexing) is not"
                " supported: use slices"
            )
    if sum(k is Ellipsis for k in key) > 1:
        raise InputError("an index can only have a single ellipsis ('...')")
    used = sum(k is not None and k is not Ellipsis for k in key)
    if used > x.ndim:
        raise InputError(f"too many indices for an array of {x.ndim} axes")
    if any(k is Ellipsis for k in key):
        at = next(j for j, k in enumerate(key) if k is Ellipsis)
        key = key[:at] + (slice(None),) * (x.ndim - used) + key[at + 1 :]
    else:
        key = key + (slice(None),) * (x.ndim - used)
    starts, limits, strides, reverse, drop, shape = [], [], [], [], [], []
    axis = 0
    for k in key:
        if k is None:
            continue
        n = x.shape[axis]
        if isinstance(k, numbers.Integral):
            if not -n <= k < n:
                raise InputError(f"index {k} is out of bounds for axis {axis} of length {n}")
            i = int(k) % n
            starts.append(i), limits.append(i + 1), strides.append(1), drop.append(axis)
            shape.append(1)
        else:
            start, stop, step = k.indices(n)
            count = len(range(start, stop, step))
            if count == 0:
                raise InputError(f"the slice {_shown(k)} of axis {axis} (length {n}) is empty")
            if step < 0:
                reverse.append(axis)
                start, step = n - 1 - start, -step
            starts.append(start), limits.append(start + (count - 1) * step + 1)
            strides.append(step), shape.append(count)
        axis += 1
    y: TracedArray = x
    if reverse:
        y = _move(y, "rev", (("dimensions", tuple(reverse)),), y.shape)
    if tuple(shape) != x.shape:
        params = (
            ("start_indices", tuple(starts)),
            ("limit_indices", tuple(limits)),
            ("strides", None if all(s == 1 for s in strides) else tuple(strides)),
        )
        y = _move(y, "slice", params, tuple(shape))
    if drop:
        y = _squeeze(y, tuple(drop))
    if any(k is None for k in key):
        it = iter(y.shape)
        kept = [k for k in key if not isinstance(k, numbers.Integral)]
        y = _reshape(y, tuple(1 if k is None else next(it) for k in kept))
    return y


_POSITIONS = frozenset({"argmax", "argmin", "argsort"})  # passive values that are positions


def _are_positions(op: ArrayOp) -> bool:
    """Whether ``op`` is :data:`_POSITIONS`' value or a slice or reversal of it (a top-k:
    ``x[np.argsort(-x)[:k]]``, ``np.argsort(x)[::-1][:k]``): positions along the axis
    still, each bounded as a take's (clip)."""
    while op.primitive in ("slice", "rev") and len(op.operands) == 1:
        inner = op.operands[0]
        if not isinstance(inner, ArrayOp):
            return False
        op = inner
    return op.primitive in _POSITIONS


_ROUNDED = frozenset({"floor", "ceil", "round"})  # whole numbers, of any size
_SAME_ENTRIES = frozenset(
    {"copy", "reshape", "broadcast_in_dim", "transpose", "squeeze", "expand_dims", "slice", "rev"}
)  # whole_range: a layout of its operand's entries (np.sum(..., keepdims=True))


def whole_range(operand: Any, tape: _Tape | None = None) -> tuple[float, float] | None:
    """The range ``(lo, hi)`` of a passive value's entries where they are whole numbers
    (``np.searchsorted``'s counts, ``np.floor``, constants, and sums, differences,
    products, ``min``/``max`` and selections of them; ``±inf`` where unbounded, as
    ``np.floor(x)``'s, unless ``x`` is bounded on ``tape``: :func:`real_range`); None where
    they may not be whole (a traced value, a quotient). Positions that index an array
    must lie in ``0 .. n-1`` (``np.clip`` bounds them, before or after the floor)."""
    if isinstance(operand, Const):
        value = np.asarray(operand.value, dtype=float)
        finite = value.size and np.isfinite(value).all() and (value == np.round(value)).all()
        return (float(value.min()), float(value.max())) if finite else None
    if not isinstance(operand, ArrayOp):
        return None  # a traced vertex: any real number
    op = operand.primitive
    if op in _ROUNDED:
        return _rounded(op, real_range(operand.operands[0], tape))
    if op in _MASKS:
        return (0.0, 1.0)
    if op == "sign":  # toward_zero's sign(x)·floor(|x|), an integer cast of a traced value
        return real_range(operand, tape)
    if op in _POSITIONS:  # np.argmax's: whole, from 0 (the axis' length not kept here)
        return (0.0, math.inf)
    if op == SEARCHSORTED:  # a count of the table's entries
        return (0.0, float(operand.param["length"]))
    branches = operand.operands[1:] if op == "select_n" else operand.operands  # not its mask
    parts = [whole_range(u, tape) for u in branches]
    if op == "select_n" and is_wrapped(operand) and parts[0] is not None:  # NumPy's i + n
        n = float(np.asarray(operand.operands[2].operands[1].value))  # where i < 0
        lo, hi = parts[0]
        if lo >= -n and hi <= n - 1:
            return (min(max(lo, 0.0), lo + n) if lo < 0 else lo, n - 1 if lo < 0 else hi)
    if not parts or any(p is None for p in parts):
        return None
    (lo, hi), rest = parts[0], parts[1:]
    if op in _COMBINED:
        return _combined(op, parts)
    if op == "neg" and not rest:
        return (-hi, lo)
    if op in _SAME_ENTRIES and not rest:  # the same entries, laid out anew
        return (lo, hi)
    if op == "reduce_sum" and not rest:
        count = math.prod(operand.operands[0].shape) // max(math.prod(operand.shape), 1)
        return (lo * count, hi * count)
    return None


_UNBOUNDED = (-math.inf, math.inf)

#: the operations whose operands' bounds :func:`_combined` folds
_COMBINED = frozenset({"select_n", "max", "min", "add", "sub", "mul"})


def _combined(op: str, parts: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """The bounds of ``op`` (one of :data:`_COMBINED`; ``select_n`` of its branches)
    applied to values within ``parts``, folded from the first operand's."""
    (lo, hi), rest = parts[0], parts[1:]
    for a, b in rest:
        if op == "select_n":
            lo, hi = min(lo, a), max(hi, b)
        elif op == "max":
            lo, hi = max(lo, a), max(hi, b)
        elif op == "min":
            lo, hi = min(lo, a), min(hi, b)
        elif op == "add":
            lo, hi = lo + a, hi + b
        elif op == "sub":
            lo, hi = lo - b, hi - a
        else:
            with np.errstate(invalid="ignore"):
                corners = [c for c in (lo * a, lo * b, hi * a, hi * b) if not math.isnan(c)]
            lo, hi = (min(corners), max(corners)) if corners else _UNBOUNDED
    return (lo, hi)


#: the operations a traced value's bounds are followed through (:func:`real_range`)
_BOUNDING = frozenset({"max", "min", "add", "sub", "neg", "abs", "sign"}) | _SAME_ENTRIES | _ROUNDED

REAL_RANGE_STEPS = 64
"""The most operations :func:`real_range` looks at for one value."""


def _rounded(op: str, bounds: tuple[float, float]) -> tuple[float, float]:
    """``np.floor``/``ceil``/``round`` of values within ``bounds`` (monotone: the bounds'
    own; an infinite bound stays)."""
    rounding = {"floor": math.floor, "ceil": math.ceil, "round": round}[op]
    return tuple(float(rounding(b)) if math.isfinite(b) else b for b in bounds)  # type: ignore[return-value]


def _signs(bounds: tuple[float, float]) -> tuple[float, float]:
    """``np.sign`` of values within ``bounds`` (monotone)."""
    return (float(np.sign(bounds[0])), float(np.sign(bounds[1])))


def real_range(
    operand: Any, tape: _Tape | None, steps: list[int] | None = None
) -> tuple[float, float]:
    """Bounds ``(lo, hi)`` that every entry of ``operand`` lies within for any input (a
    NaN aside, which no bound holds): a constant's, and through ``np.maximum`` and
    ``np.minimum`` (``np.clip``), sums, differences, layouts and roundings of bounded
    values, a traced value's own operation read on ``tape``; ``±inf`` where not known
    (an input, any other operation, a fresh array's held numbers, past
    :data:`REAL_RANGE_STEPS` operations)."""
    steps = [REAL_RANGE_STEPS] if steps is None else steps
    steps[0] -= 1
    if steps[0] < 0:
        return _UNBOUNDED
    if isinstance(operand, Const):
        value = np.asarray(operand.value, dtype=float)
        if not value.size or np.isnan(value).any():
            return _UNBOUNDED
        return (float(value.min()), float(value.max()))
    if isinstance(operand, str) and tape is not None and operand not in tape.constants:
        at = int(operand[1:]) if operand[1:].isdigit() else -1
        entry = tape.entries[at] if 0 <= at < len(tape.entries) else None
        operand = entry[1] if entry is not None and entry[0] == operand else None
        if operand is not None and all(isinstance(u, Const) for u in operand.operands):
            return _UNBOUNDED  # a fresh array's vertex (its numbers held apart), let go
    if not isinstance(operand, ArrayOp) or operand.primitive not in _BOUNDING:
        return _UNBOUNDED
    op = operand.primitive
    parts = [real_range(u, tape, steps) for u in operand.operands]
    if op in _ROUNDED or op in _SAME_ENTRIES:
        return _rounded(op, parts[0]) if op in _ROUNDED else parts[0]
    if op == "neg":
        return (-parts[0][1], -parts[0][0])
    if op == "sign":
        return _signs(parts[0])
    if op == "abs":
        lo, hi = parts[0]
        return (lo, hi) if lo >= 0 else (-hi, -lo) if hi <= 0 else (0.0, max(-lo, hi))
    lo, hi = _combined(op, parts)
    return (lo, hi) if not (math.isnan(lo) or math.isnan(hi)) else _UNBOUNDED


#: the operations whose values are a boolean mask
_MASKS = frozenset({"lt", "le", "gt", "ge", "eq", "ne", "and", "or", "not"})
_MOVES_OF_ONE = frozenset({"slice", "rev", "transpose", "reshape", "broadcast_in_dim", "squeeze"})


def _boolean(op: ArrayOp) -> bool:
    """A comparison, logical operation or ``np.isfinite`` itself (not moved): what a
    product (@) refuses, its element form a relational, not a number."""
    return op.primitive in _MASKS or op.primitive == "is_finite"


def is_mask(op: ArrayOp) -> bool:
    """``op`` is boolean as NumPy types it: a comparison, a logical operation or
    ``np.isfinite`` (:func:`_boolean`), or one moved (sliced, reversed, transposed,
    reshaped: ``m.T``, ``m[1:]``), so that an index by it selects where it holds rather
    than reading 0 and 1 as positions."""
    while op.primitive in _MOVES_OF_ONE and isinstance(op.operands[0], ArrayOp):
        op = op.operands[0]
    if op.primitive == "concatenate":  # masks stacked (np.stack([m1, m2])), read by np.all
        return all(isinstance(u, ArrayOp) and is_mask(u) for u in op.operands)
    return _boolean(op)


def _both_masks(args: Sequence[Any]) -> bool:
    """Every operand a boolean value computed from the inputs (``m1 * m2`` is NumPy's
    logical and of them, ``m1 + m2`` its or)."""
    return all(isinstance(a, Passive) and a.boolean for a in args)


_MASKED = (
    "a boolean mask computed from the inputs (x[mask], a data-dependent index) selects"
    " a number of entries that depends on them: use np.where(mask, x, 0)"
)


class MaskedSelection:
    """``x[mask]`` with a mask of ``x``'s shape computed from the inputs (``y[y < 0]``):
    an array whose length depends on the inputs, so it is kept as ``x`` beside its mask
    and read only where that length does not matter, as NumPy programs read it (Griewank
    and Walther, *Evaluating Derivatives*, 2nd ed., 2008, §14.2: a branch is the
    derivative of the branch taken):

    * written back, ``y[mask] = v`` (a number, or a selection by the same mask, as in
      ``y[m] = z[m]`` and ``y[m] *= 2``): ``np.where(mask, v, y)``;
    * elementwise with numbers and selections by the same mask: a selection again;
    * reduced over all of it, ``np.sum``/``np.mean``/``np.max``/``np.min``/``np.var``/
      ``np.std`` (and the methods), ``np.dot``/``np.vdot``/``np.inner`` of two selections by
      it, ``np.linalg.norm``: of ``np.where(mask, x, 0)`` (±inf for the extremes), a mean
      divided by the count of the mask.

    Anything else (its length, an index, another function) is refused in one line."""

    __array_priority__ = 2000  # above a traced array's: its operators are asked first
    __hash__ = object.__hash__

    def __init__(self, array: Any, mask: Passive) -> None:
        self.array, self.mask = array, mask

    def __repr__(self) -> str:
        return f"MaskedSelection({self.array!r}, {self.mask!r})"

    def _values(self, others: Sequence[Any]) -> list[Any]:
        """The arrays behind ``others``: numbers as they are, selections by this mask
        as their whole arrays; anything else refused."""
        found = []
        for o in others:
            if isinstance(o, MaskedSelection):
                if o.mask is not self.mask and o.mask.op != self.mask.op:
                    raise DataDependentIndex(_MASKED + " (two different masks)")
                found.append(o.array)
            elif np.ndim(o) == 0 and not isinstance(o, Passive):
                found.append(o)
            else:
                raise DataDependentIndex(_MASKED)
        return found

    def _apply(self, f: Callable[..., Any], *operands: Any) -> MaskedSelection:
        result = f(*self._values(operands))
        if not isinstance(result, TracedArray | np.ndarray) or np.shape(result) != self.mask.shape:
            raise DataDependentIndex(_MASKED)
        return MaskedSelection(result, self.mask)

    def __add__(self, o):
        return self._apply(operator.add, self, o)

    def __radd__(self, o):
        return self._apply(operator.add, o, self)

    def __sub__(self, o):
        return self._apply(operator.sub, self, o)

    def __rsub__(self, o):
        return self._apply(operator.sub, o, self)

    def __mul__(self, o):
        return self._apply(operator.mul, self, o)

    def __rmul__(self, o):
        return self._apply(operator.mul, o, self)

    def __truediv__(self, o):
        return self._apply(operator.truediv, self, o)

    def __rtruediv__(self, o):
        return self._apply(operator.truediv, o, self)

    def __pow__(self, o):
        return self._apply(operator.pow, self, o)

    def __rpow__(self, o):
        return self._apply(operator.pow, o, self)

    def __neg__(self):
        return self._apply(operator.neg, self)

    def __abs__(self):
        return self._apply(operator.abs, self)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method != "__call__" or kwargs:
            raise DataDependentIndex(_MASKED)
        return self._apply(ufunc, *inputs)

    def __array_function__(self, func, types, args, kwargs):
        if func in (np.sum, np.mean, np.max, np.min, np.var, np.std):
            return getattr(self, func.__name__)(*args[1:], **kwargs)
        if func in (np.dot, np.vdot, np.inner) and len(args) == 2 and not kwargs:
            a, b = self._values(args)  # the same mask: the sum of the products
            return _sum(_where(self.mask, a * b, 0.0))
        if func is np.linalg.norm and len(args) == 1 and not kwargs:
            return np.sqrt((self * self).sum())
        raise DataDependentIndex(_MASKED)

    def _whole(self, axis, out, keepdims) -> None:
        if axis is not None or out is not None or keepdims:
            raise DataDependentIndex(_MASKED + " (over all its entries, it is read)")

    def max(self, axis=None, out=None, keepdims=False, **kwargs: Any) -> Any:
        self._whole(axis, out, keepdims or kwargs)
        return np.max(_where(self.mask, self.array, -np.inf))

    def min(self, axis=None, out=None, keepdims=False, **kwargs: Any) -> Any:
        self._whole(axis, out, keepdims or kwargs)
        return np.min(_where(self.mask, self.array, np.inf))

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False) -> Any:
        self._whole(axis, out, keepdims)
        count = _passive_sum(self.mask, None, False)
        centred = self - self.mean()
        return (centred * centred).sum() / (count - ddof)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False) -> Any:
        return np.sqrt(self.var(axis, dtype, out, ddof, keepdims))

    def sum(self, axis=None, dtype=None, out=None, keepdims=False) -> Any:
        self._whole(axis, out, keepdims)
        return _sum(_where(self.mask, self.array, 0.0))

    def mean(self, axis=None, dtype=None, out=None, keepdims=False) -> Any:
        total = self.sum(axis, dtype, out, keepdims)
        return total / _passive_sum(self.mask, None, False)  # a count: no derivative

    def __array__(self, *args, **kwargs):
        raise DataDependentIndex(_MASKED)

    def __len__(self) -> int:
        raise DataDependentIndex(_MASKED)

    def __getitem__(self, key):
        raise DataDependentIndex(_MASKED)

    def __bool__(self) -> bool:
        raise InputError(_BRANCH)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # NumPy's and Python's probes (__array_interface__)
            raise AttributeError(name)
        raise DataDependentIndex(f"{_MASKED} (.{name} of it is not read)")


def _cell_positions(shape: tuple[int, ...], key: tuple, tape: _Tape | None) -> Any:
    """``x[i, j]``'s flat positions ``i·n + j`` (a passive value) where every axis has an
    index, each an integer, a constant integer array (``p[np.arange(n), k]``: one entry
    a row), positions from ``np.argmax``/``argmin`` or whole numbers bounded to its axis
    (:func:`whole_range` on ``tape``), the computed ones and the arrays of one shape (of
    any rank: ``img[y0, x0]`` of a bilinear warp's cells); else None."""
    if len(key) != len(shape):
        return None
    key = tuple(np.asarray(k) if isinstance(k, list) else k for k in key)
    if not all(isinstance(k, (Passive, numbers.Integral, np.ndarray)) for k in key):
        return None
    computed = [k for k in key if isinstance(k, Passive)]
    arrays = [k for k in key if isinstance(k, np.ndarray)]
    if len({k.shape for k in computed}) != 1:
        return None
    if any(a.dtype.kind not in "iu" or a.shape != computed[0].shape for a in arrays):
        return None
    if any(is_mask(k.op) for k in computed):  # x[mask, mask2]: NumPy's nonzero
        return None
    flat: Any = 0
    fixed: Any = 0  # the integers' and the constant arrays' part, added last
    for k, n, stride in zip(key, shape, np.cumprod((1, *shape[:0:-1]))[::-1], strict=True):
        if isinstance(k, Passive):
            found = whole_range(k.op, tape)
            if _are_positions(k.op):  # np.argmax's, bounded as a take's (clip)
                k = np.clip(k, 0, n - 1)
            elif found is None or found[0] < 0 or found[1] > n - 1:
                return None
            flat = flat + k * int(stride)
        elif isinstance(k, np.ndarray):
            if k.size and (k.min() < -n or k.max() >= n):
                return None
            fixed = fixed + (k.astype(np.int64) % n) * int(stride)
        elif not -n <= k < n:
            return None
        else:
            fixed = fixed + (k % n) * int(stride)
    return flat + fixed if isinstance(fixed, np.ndarray) or fixed else flat


def _constant_at(table: np.ndarray, key: Any) -> Any:
    """A constant array at positions computed from the inputs: one such index along one
    axis, after integers (``table[0, i]``) and before full slices (``table[i, :]``), or
    one on every axis (``table[i, j]``)."""
    key = key if isinstance(key, tuple) else (key,)
    running = _tracing()
    flat = _cell_positions(table.shape, key, running[-1] if running else None)
    if flat is not None:
        return _take_computed(Const.of(np.ravel(table).astype(float)), flat, 0)
    at = [j for j, k in enumerate(key) if isinstance(k, Passive)]
    if (
        len(at) != 1
        or not all(isinstance(k, numbers.Integral) for k in key[: at[0]])
        or not all(_whole_axis(k) for k in key[at[0] + 1 :])
    ):
        raise DataDependentIndex(
            "a NumPy array indexed at positions computed from the inputs is supported along"
            " one axis (table[i], table[0, i], table[i, :]): use np.where"
        )
    rows = np.asarray(table[key[: at[0]]], dtype=float)
    return _take_computed(Const.of(rows), key[at[0]], 0)


def _take_computed(x: TracedArray | Const, index: Passive, axis: int) -> Any:
    """``x[i]`` (and ``x[:, i]``) at positions computed from the inputs (``np.argmax``,
    ``np.argsort`` of a 1-D array, bounded whole numbers): a ``take_dynamic`` along the
    axis; one position drops the axis, as NumPy's integer index does, positions of rank 2
    or more (``E[T.astype(int)]``, a mesh's triangles as data) are taken flat and their
    axes laid back by a reshape. A constant table (``np.take(knots, i)``): a passive
    value."""
    if isinstance(x, Const) and is_mask(index.op):
        raise DataDependentIndex(_MASKED)
    if is_mask(index.op):
        if index.shape == x.shape:  # NumPy's copy: x's vertex now, not x written later
            return MaskedSelection(TracedArray(x.tape, x.name, x.shape), index)
        raise DataDependentIndex(_MASKED)
    running = _tracing()
    tape = x.tape if isinstance(x, TracedArray) else running[-1] if running else None
    found = whole_range(index.op, tape)
    n = x.shape[axis] if axis < len(x.shape) else 0
    inside = found is not None and found[0] >= 0 and found[1] <= n - 1
    from_end = (  # NumPy's negative positions, from the end (sparsemax's k - 1 of a count)
        not inside and found is not None and found[0] >= -n and found[1] <= n - 1
    )
    given = (  # positions from the parameters alone (index data): any integers
        not inside and not from_end and tape is not None and tape.reads_fixed_only(index.op)
    )
    if axis >= len(x.shape) or not (_are_positions(index.op) or inside or from_end or given):
        raise DataDependentIndex(
            "indexing with a value that depends on the inputs (a data-dependent index) is"
            " supported at positions from np.argmax, np.argmin or np.argsort (a 1-D one),"
            " or whole numbers bounded to the axis (np.clip(np.searchsorted(xp, x) - 1, 0,"
            " n - 1), np.clip(np.floor(x), 0, n - 1)), along one axis: else use np.where"
        )
    size = index.size
    positions = ArrayOp(
        "reshape", (index.op,), (("new_sizes", (size,)), ("dimensions", None)), (size,)
    )
    if given or from_end:  # a negative one from the end (then clipped into the axis: JAX's x[i])
        positions = wrapped(positions, x.shape[axis])
    params = (("axis", axis), ("mode", "clip"), ("size", size), ("length", x.shape[axis]),
              ("fill", float("nan")))  # fmt: skip
    shape = tuple(size if j == axis else n for j, n in enumerate(x.shape))
    if isinstance(x, Const):
        taken: Any = Passive(ArrayOp(DYNAMIC_TAKE, (x, positions), params, shape))
    else:
        taken = x.tape.new(ArrayOp(DYNAMIC_TAKE, (x.name, positions), params, shape), shape)
    if index.ndim == 0:
        return _squeeze(taken, (axis,))
    if index.ndim > 1:  # E[T], T (m, 3): the take at T's flat positions, T's axes laid back
        return _reshape(taken, (*x.shape[:axis], *index.shape, *x.shape[axis + 1 :]))
    return taken


def _gather(x: TracedArray, key: tuple) -> TracedArray:
    """Any other indexing with constant arrays (``u[rows, cols]``, a mask beside an
    integer): NumPy's own indexing of the flat positions, a ``gather_flat``."""
    try:
        at = np.arange(math.prod(x.shape)).reshape(x.shape)[key]
    except (IndexError, TypeError, ValueError) as exc:
        raise InputError(f"indexing: {str(exc).splitlines()[0][:200]}") from None
    if at.size == 0:
        raise InputError("indexing with arrays that select no entry is not supported")
    params = (("sources", tuple(int(i) for i in at.reshape(-1))),)
    return _move(x, "gather_flat", params, tuple(at.shape))


def _gathered_as(x: TracedArray, positions: np.ndarray) -> TracedArray:
    """``x`` read at ``positions`` (an integer array of flat positions of ``x``, computed by
    NumPy's own function on ``arange``): a ``gather_flat`` of that shape."""
    if positions.size == 0:
        raise InputError("indexing with arrays that select no entry is not supported")
    params = (("sources", tuple(int(i) for i in positions.reshape(-1))),)
    return _move(x, "gather_flat", params, tuple(positions.shape))


def _take_along_computed(x: TracedArray, indices: Passive, d: int, what: str) -> Any:
    """``numpy.take_along_axis(x, indices, d)`` of an n-d ``x`` at whole-number positions
    computed from the inputs (a count of a sorted row's support, sparsemax's ``k - 1``;
    ``np.argsort`` of another array along the same axis):
    the flat positions, each entry's own at coordinate 0 along the axis (NumPy's own
    function of ``arange``, broadcast as NumPy's) plus the index (wrapped from the end
    where it may be negative) times the axis' stride, a ``take_dynamic`` of the flat
    array (:func:`_take_computed`)."""
    n = x.shape[d]
    op = indices.op
    found = whole_range(op, x.tape)
    if op.primitive == "argsort" and dict(op.params).get("dimension") == d and op.shape[d] == n:
        shape = tuple(op.shape)  # another array's order along the same axis (X by Y's
        op = ArrayOp("max", (op, Const.of(np.asarray(0))), (), shape)  # order): its bounds
        op = ArrayOp("min", (op, Const.of(np.asarray(n - 1))), (), shape)  # said, as a clip
        indices, found = Passive(op), (0.0, n - 1.0)
    if found is None or found[0] < -n or found[1] > n - 1:
        raise DataDependentIndex(
            f"{what} at positions computed from the inputs: they must be whole numbers"
            f" bounded to the axis (-{n} .. {n - 1}: np.clip them)"
        )
    at = np.arange(math.prod(x.shape)).reshape(x.shape)
    try:
        base = np.take_along_axis(at, np.zeros(indices.shape, dtype=int), d)
    except (IndexError, TypeError, ValueError) as exc:
        raise InputError(f"{what}: {str(exc).splitlines()[0][:200]}") from None
    index = indices if found[0] >= 0 else Passive(wrapped(indices.op, n))
    flat = index * math.prod(x.shape[d + 1 :]) + base
    return _take_computed(_reshape(x, (-1,)), flat, 0)


def _take_along_axis(arr: Any, indices: Any, axis: Any = -1) -> Any:
    """``numpy.take_along_axis`` with constant indices: NumPy's own function of the flat
    positions, a gather; with positions ``np.argsort(arr, axis)`` of the same array along
    the same axis, ``numpy.sort`` (the same values); other computed positions, a
    ``take_dynamic`` (:func:`_take_computed`; of an n-d array by its flat positions,
    :func:`_take_along_computed`)."""
    what = "numpy.take_along_axis"
    if isinstance(indices, Passive):
        x = _traced(arr, what)
        if x is None:
            raise _unsupported(f"{what} of a constant at positions computed from the inputs")
        if axis is None:
            x, axis = _reshape(x, (-1,)), 0
        d = _axis(axis, x.ndim, what)
        op = indices.op
        if (
            op.primitive == "argsort"
            and op.operands == (x.name,)
            and dict(op.params).get("dimension") == d
        ):
            return _sorted("sort", x, d)
        if x.ndim == 1 and indices.ndim == 1:
            return _take_computed(x, indices, 0)
        if indices.ndim == x.ndim:
            return _take_along_computed(x, indices, d, what)
        raise DataDependentIndex(
            f"{what} at positions computed from the inputs is supported for np.argsort of"
            " the same array along the same axis (np.sort) or for indices of the array's"
            " number of dimensions"
        )
    if _is_traced(indices):
        raise DataDependentIndex(f"{what} with indices that depend on the inputs")
    x = _traced(arr, what)
    if x is None:
        return np.take_along_axis(_constant(arr), np.asarray(indices), axis)
    idx = np.asarray(indices)
    if idx.dtype.kind not in "iu":
        raise InputError(f"{what}: indices must be integers, not {idx.dtype}")
    at = np.arange(math.prod(x.shape)).reshape(x.shape)
    try:
        positions = np.take_along_axis(at, idx, axis)
    except (IndexError, TypeError, ValueError) as exc:
        raise InputError(f"{what}: {str(exc).splitlines()[0][:200]}") from None
    return _gathered_as(x, positions)


def _sliding_window_view(x: Any, window_shape: Any, axis: Any = None, *,
                         subok: bool = False, writeable: bool = False) -> Any:  # fmt: skip
    """``numpy.lib.stride_tricks.sliding_window_view``: NumPy's own windows of the flat
    positions, a gather (a copy where NumPy's is a read-only view; ``writeable=True``,
    a view to write through, is refused)."""
    what = "numpy.lib.stride_tricks.sliding_window_view"
    t = _traced(x, what)
    if t is None:
        return np.lib.stride_tricks.sliding_window_view(_constant(x), window_shape, axis)
    if writeable:
        raise _unsupported(f"{what}(writeable=True)")
    at = np.arange(math.prod(t.shape)).reshape(t.shape)
    try:
        positions = np.lib.stride_tricks.sliding_window_view(at, window_shape, axis)
    except (IndexError, TypeError, ValueError) as exc:
        raise InputError(f"{what}: {str(exc).splitlines()[0][:200]}") from None
    return _gathered_as(t, np.ascontiguousarray(positions))


def _np_take(x: Any, indices: Any, axis: Any, out: Any, mode: str) -> Any:
    """``np.take``'s ``mode``: constant positions wrapped or clipped into the axis first."""
    if out is not None:
        raise InputError("numpy.take with out= is not supported")
    if mode == "raise":
        return _take(x, indices, axis)
    if mode not in ("wrap", "clip") or not isinstance(indices, (int, np.integer, list, np.ndarray)):
        raise InputError(f"numpy.take(mode={mode!r}) needs constant positions and wrap or clip")
    n = math.prod(np.shape(x)) if axis is None else np.shape(x)[axis]
    idx = np.asarray(indices)
    idx = idx % n if mode == "wrap" else np.clip(idx, 0, n - 1)
    return _take(x, idx, axis)


def _take(x: Any, indices: Any, axis: Any = None) -> Any:
    """``x[..., indices, ...]`` and ``np.take`` with constant integer (or boolean mask)
    indices along one axis: a ``take``, whose block is a selection pattern."""
    if isinstance(indices, Passive) and not isinstance(x, Passive):  # positions from the inputs
        if axis is None:
            x, axis = (_reshape(x, (-1,)) if _is_traced(x) else np.ravel(_constant(x))), 0
        axis = _axes(axis, np.ndim(x), "take")[0]
        if _is_traced(x):
            return _take_computed(x, indices, axis)
        return _take_computed(Const.of(np.asarray(_constant(x), dtype=float)), indices, axis)
    if _traced(x, "take") is None:
        return np.take(_constant(x), indices, axis=axis)
    if _is_traced(indices):
        raise DataDependentIndex(
            "indexing with a value that depends on the inputs is not supported"
            " (a data-dependent index): use np.where"
        )
    if axis is None:  # NumPy's take of the flattened array
        x, axis = _reshape(x, (-1,)), 0
    axis = _axes(axis, x.ndim, "take")[0]
    n = x.shape[axis]
    idx = np.asarray(indices)
    if idx.dtype == bool:
        if idx.shape != (n,):
            raise InputError(f"a boolean index of shape {idx.shape} for an axis of length {n}")
        idx = np.nonzero(idx)[0]
    if idx.ndim == 0 or idx.size == 0 or idx.dtype.kind not in "iu":
        raise InputError("indexing with an array needs a non-empty array of integers")
    if ((idx < -n) | (idx >= n)).any():
        raise InputError(f"an index is out of bounds for axis {axis} of length {n}")
    flat = np.where(idx < 0, idx + n, idx).reshape(-1)
    shape = (*x.shape[:axis], flat.size, *x.shape[axis + 1 :])
    params = (("indices", tuple(int(i) for i in flat)), ("axis", axis))
    taken = _move(x, "take", params, shape)
    if idx.ndim == 1:
        return taken
    # an n-d index array: NumPy's result has the index's axes where the axis was
    return _reshape(taken, (*x.shape[:axis], *idx.shape, *x.shape[axis + 1 :]))


def _shown(k: slice) -> str:
    parts = ["" if v is None else str(v) for v in (k.start, k.stop, k.step)]
    return ":".join(parts[:2] if k.step is None else parts)


def _pad(x: Any, pad_width: Any, mode: str = "constant", **kwargs: Any) -> Any:
    if _traced(x, "numpy.pad") is None:
        return np.pad(_constant(x), pad_width, mode, **kwargs)
    if mode in _PAD_MODES:
        return _pad_copying(x, pad_width, mode, kwargs)
    if mode != "constant":
        raise _unsupported(f"numpy.pad(mode={mode!r})")
    extra = set(kwargs) - {"constant_values"}
    if extra:
        raise _unsupported(f"numpy.pad({sorted(extra)[0]}=...)")
    value = kwargs.get("constant_values", 0)
    if _is_traced(value) or np.shape(value) != ():
        raise _unsupported("numpy.pad with constant_values other than one number")
    widths = np.broadcast_to(np.asarray(pad_width), (x.ndim, 2))
    if widths.dtype.kind not in "iu" or (widths < 0).any():
        raise InputError("numpy.pad: the widths must be non-negative integers")
    config = tuple((int(lo), int(hi), 0) for lo, hi in widths)
    if not any(lo or hi for lo, hi, _ in config):
        return x
    shape = tuple(n + lo + hi for n, (lo, hi, _) in zip(x.shape, config, strict=True))
    check_shape(shape, "numpy.pad")
    op = ArrayOp("pad", (x.name, Const.of(float(value))), (("padding_config", config),), shape)
    return x.tape.new(op, shape)


_PAD_MODES = ("edge", "reflect", "symmetric", "wrap")


def _pad_copying(x: TracedArray, pad_width: Any, mode: str, kwargs: Mapping[str, Any]) -> Any:
    """``numpy.pad`` with ``mode`` edge, reflect, symmetric or wrap: each axis in turn the
    slices NumPy copies concatenated around it; a width past the axis's length (less one
    for reflect), where NumPy reflects or wraps again and again, the gather at the
    positions NumPy's own ``pad`` of the axis's positions gives."""
    if kwargs.get("reflect_type", "even") != "even" or set(kwargs) - {"reflect_type"}:
        raise _unsupported(f"numpy.pad(mode={mode!r}) with {sorted(kwargs)[0]}=")
    widths = np.broadcast_to(np.asarray(pad_width), (x.ndim, 2))
    if widths.dtype.kind not in "iu" or (widths < 0).any():
        raise InputError("numpy.pad: the widths must be non-negative integers")
    y: Any = x
    for d, (lo, hi) in enumerate(widths.tolist()):
        n = x.shape[d]
        most = n - 1 if mode == "reflect" else n
        if max(lo, hi) > most and mode != "edge":
            positions = np.pad(np.arange(n), (lo, hi), mode=mode)
            y = y[(slice(None),) * d + (positions,)]
            continue
        pieces = [_pad_piece(y, d, lo, mode, True), y, _pad_piece(y, d, hi, mode, False)]
        y = _concatenate([p for p in pieces if p is not None], d)
    check_shape(_shape_of(y), "numpy.pad")
    return y


def _pad_piece(x: Any, d: int, width: int, mode: str, before: bool) -> Any:
    """The ``width`` entries ``mode`` puts before (or after) ``x`` along axis ``d``."""
    if not width:
        return None
    n = x.shape[d]
    if mode == "edge":
        edge = x[(slice(None),) * d + (slice(0, 1) if before else slice(n - 1, n),)]
        shape = tuple(width if j == d else m for j, m in enumerate(x.shape))
        return _broadcast_to(edge, shape)
    part = {
        ("reflect", True): slice(width, 0, -1),
        ("reflect", False): slice(n - 2, n - 2 - width, -1),
        ("symmetric", True): slice(width - 1, None, -1),
        ("symmetric", False): slice(n - 1, n - 1 - width, -1),
        ("wrap", True): slice(n - width, n),
        ("wrap", False): slice(0, width),
    }[mode, before]
    if part.step == -1 and part.stop is not None and part.stop < 0:
        part = slice(part.start, None, -1)
    return x[(slice(None),) * d + (part,)]


def _concatenate(arrays: Sequence[Any], axis: Any = 0, out=None, dtype=None, casting=None):
    if out is not None:
        raise InputError("numpy.concatenate(..., out=...) writes into an array: not supported")
    arrays = [gathered(a) for a in arrays]
    if not arrays:
        raise InputError("numpy.concatenate: nothing to concatenate")
    if any(isinstance(a, Passive) and a.op.primitive in _MASKS for a in arrays):
        raise _unsupported("numpy.concatenate of a comparison")
    if not any(_is_traced(a) for a in arrays):
        return np.concatenate([_constant(a) for a in arrays], axis)
    if axis is None:
        arrays, axis = [_reshape(a, (-1,)) for a in arrays], 0
    ndim = len(_shape_of(arrays[0]))
    if ndim == 0:
        raise InputError("numpy.concatenate: 0-d arrays cannot be concatenated")
    d = _axis(axis, ndim, "numpy.concatenate")
    shapes = [_shape_of(a) for a in arrays]
    for s in shapes:
        if len(s) != ndim or any(s[j] != shapes[0][j] for j in range(ndim) if j != d):
            raise InputError(
                f"numpy.concatenate: shapes {shapes[0]} and {s} do not match off axis {d}"
            )
    if len(arrays) == 1:
        return arrays[0]
    shape = tuple(sum(s[d] for s in shapes) if j == d else shapes[0][j] for j in range(ndim))
    tape = _tape_of(arrays)
    operands = tuple(a.name if _live(a) else a.op if isinstance(a, Passive)
                     else Const.of(_constant(a)) for a in arrays)  # fmt: skip
    return _result(ArrayOp("concatenate", operands, (("dimension", d),), shape), tape)


def _holds_traced(value: Any) -> bool:
    """Whether a (nested) list or tuple holds a traced or passive value."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, _Value):
            return True
        if isinstance(v, (list, tuple)):
            stack.extend(v)
    return False


def gathered(value: Any) -> Any:
    """A (nested) list or tuple that holds traced values as one array (``np.stack`` of
    its items, as ``np.array`` would make it); anything else as it is."""
    if not isinstance(value, (list, tuple)) or not _holds_traced(value):
        return value
    return _stack([gathered(v) for v in value])


def _stack(arrays: Sequence[Any], axis: int = 0, out=None, dtype=None, casting=None):
    arrays = list(arrays)
    if not any(_is_traced(a) for a in arrays):
        return np.stack([_constant(a) for a in arrays], axis)
    if len({_shape_of(a) for a in arrays}) > 1:
        raise InputError("numpy.stack: the arrays must have one shape")
    d = _axis(axis, len(_shape_of(arrays[0])) + 1, "numpy.stack")
    return _concatenate([_expand_dims(a, d) for a in arrays], d, out)


def _hstack(arrays, dtype=None, casting=None):
    arrays = [_atleast_1d(a) for a in arrays]
    return _concatenate(arrays, 0 if len(_shape_of(arrays[0])) == 1 else 1)


def _vstack(arrays, dtype=None, casting=None):
    return _concatenate([_atleast_2d(a) for a in arrays], 0)


def _atleast_1d(a: Any) -> Any:
    return _reshape(a, (1,)) if _shape_of(a) == () else a


def _atleast_2d(a: Any) -> Any:
    a = _atleast_1d(a)
    return _reshape(a, (1, *_shape_of(a))) if len(_shape_of(a)) == 1 else a


def _broadcast_to(x: Any, shape: Any, subok: bool = False) -> Any:
    if _traced(x, "numpy.broadcast_to") is None:
        return np.broadcast_to(_constant(x), shape)
    shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
    out = _broadcast_shape([x.shape, shape], "numpy.broadcast_to")
    if out != shape:
        raise InputError(f"numpy.broadcast_to: {x.shape} does not broadcast to {shape}")
    if out == x.shape:
        return x
    y = x.tape.new(_broadcast_op(x.name, x.shape, out), out)
    _viewing(y, x)  # NumPy's broadcast_to is a view of x
    return y


def _roll(x: Any, shift: Any, axis: Any = None) -> Any:
    if _traced(x, "numpy.roll") is None:
        return np.roll(_constant(x), shift, axis)
    if axis is None:
        return _reshape(_roll(_reshape(x, (-1,)), shift, 0), x.shape)
    if not isinstance(axis, numbers.Integral) or not isinstance(shift, numbers.Integral):
        return _roll_axes(x, shift, axis)
    d = _axis(axis, x.ndim, "numpy.roll")
    s = int(shift) % x.shape[d]
    if s == 0:
        return x
    head = [slice(None)] * x.ndim
    tail = [slice(None)] * x.ndim
    head[d], tail[d] = slice(-s, None), slice(None, -s)
    return _concatenate([x[tuple(head)], x[tuple(tail)]], d)


def _roll_axes(x: Any, shift: Any, axis: Any) -> Any:
    """``np.roll(x, (1, -1), axis=(0, 1))`` (a 2-D periodic stencil): one roll per pair of
    NumPy's broadcast shifts and axes, in turn (shifts along one axis add up, as NumPy's)."""
    try:
        shifts, axes = np.broadcast_arrays(np.asarray(shift), np.asarray(axis))
    except ValueError:
        raise InputError("numpy.roll: shift and axis do not broadcast together") from None
    if shifts.ndim > 1 or shifts.dtype.kind not in "iu" or axes.dtype.kind not in "iu":
        raise _unsupported("numpy.roll with shifts or axes that are not integers")
    for s, d in zip(shifts.reshape(-1).tolist(), axes.reshape(-1).tolist(), strict=True):
        x = _roll(x, int(s), int(d))
    return x


def _flip(x: Any, axis: Any = None) -> Any:
    if _traced(x, "numpy.flip") is None:
        return np.flip(_constant(x), axis)
    dims = _axes(axis, x.ndim, "numpy.flip")
    return _move(x, "rev", (("dimensions", dims),), x.shape) if dims else x


def _flip_axis(x: Any, axis: int, what: str) -> Any:
    """``np.flipud`` (axis 0) and ``np.fliplr`` (axis 1, of an array of 2 axes or more)."""
    if _traced(x, what) is None:
        return (np.flipud if axis == 0 else np.fliplr)(_constant(x))
    if x.ndim <= axis:
        raise InputError(f"{what} of an array of {x.ndim} axes")
    return _flip(x, axis)


def _linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, retstep: bool = False,
              dtype: Any = None, axis: int = 0) -> Any:  # fmt: skip
    """``np.linspace`` between ends that depend on the inputs (a domain's length):
    ``start + (stop − start)·k/div`` for ``k = 0 … num−1`` (``div`` = ``num − 1`` with the
    end, else ``num``), the last entry ``stop`` itself where the end is in, as NumPy's;
    the new axis first (``axis=0``), ``start`` and ``stop`` broadcast behind it."""
    what = "numpy.linspace"
    if not _is_traced(start) and not _is_traced(stop):  # NumPy's own, every option
        return np.linspace(_constant(start), _constant(stop), num, endpoint, retstep, dtype, axis)
    if dtype is not None and np.dtype(dtype).kind != "f":
        raise _unsupported(f"{what} of dtype {np.dtype(dtype)}")
    if axis != 0:
        raise _unsupported(f"{what} with axis={axis}")
    num = operator.index(num)
    if num < 0:
        raise InputError(f"{what}: number of samples, {num}, must be non-negative")
    div = (num - 1) if endpoint else num
    delta = stop - start
    shape = _broadcast_shape([_shape_of(start), _shape_of(stop)], what)
    fractions = (np.arange(num) / div if div > 0 else np.zeros(num)).reshape(num, *[1] * len(shape))
    y = start + delta * fractions
    if endpoint and num > 1:
        y = _concatenate([y[:-1], _broadcast_to(stop, shape)[None]], 0)
    if retstep:
        return y, (delta / div if div > 0 else np.nan * delta)
    return y


def _diff(a: Any, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None) -> Any:
    """``np.diff`` by slices; ``prepend``/``append`` (traced or not) joined to ``a`` along
    ``axis`` first, a number broadcast to one slice, as NumPy does."""
    ends = [e for e in (prepend, append) if e is not None]
    if all(_traced(x, "numpy.diff") is None for x in (a, *ends)):
        ends_given = (("prepend", prepend), ("append", append))
        kw = {k: _constant(v) for k, v in ends_given if v is not None}
        return np.diff(_constant(a), n, axis, **kw)
    a = a if _is_traced(a) else _constant(a)
    if n == 0:  # NumPy gives ``a`` back, its ends not joined
        return a
    d = _axis(axis, a.ndim, "numpy.diff")
    if ends:
        one = (*a.shape[:d], 1, *a.shape[d + 1 :])

        def end(e: Any) -> list[Any]:
            if e is None:
                return []
            return [e if len(_shape_of(e)) else _broadcast_to(e, one)]

        a = _concatenate([*end(prepend), a, *end(append)], d)
    for _ in range(n):
        hi = [slice(None)] * a.ndim
        lo = [slice(None)] * a.ndim
        hi[d], lo[d] = slice(1, None), slice(None, -1)
        a = a[tuple(hi)] - a[tuple(lo)]
    return a


def _gradient(f: Any, *varargs: Any, axis: Any = None, edge_order: int = 1) -> Any:
    """``np.gradient`` with uniform spacings (none, one number, or one number an axis) or
    constant coordinate arrays: central differences inside, one-sided ones of
    ``edge_order`` 1 or 2 at the ends (Fornberg 1988, the second-order stencils; on
    coordinates NumPy's three-point weights, :func:`_gradient_weights`), each from slices
    of ``f``; traced spacings refused in one line."""
    if _traced(f, "numpy.gradient") is None:
        return np.gradient(_constant(f), *varargs, axis=axis, edge_order=edge_order)
    dims = _axes(axis, f.ndim, "numpy.gradient")
    if len(varargs) not in (0, 1, len(dims)):
        raise InputError(f"numpy.gradient: {len(varargs)} spacings for {len(dims)} axes")
    if edge_order not in (1, 2):
        raise InputError(f"numpy.gradient: edge_order must be 1 or 2, not {edge_order!r}")
    spacings = list(varargs) or [1.0]
    spacings = spacings * len(dims) if len(spacings) == 1 else spacings
    out = []
    for d, h in zip(dims, spacings, strict=True):
        if _live(h):
            raise _unsupported("numpy.gradient with traced spacings")
        if f.shape[d] < edge_order + 1:
            raise InputError(f"numpy.gradient: axis {d} of length {f.shape[d]} is too short"
                             f" for edge_order={edge_order}")  # fmt: skip

        def at(piece: slice, d: int = d) -> Any:
            index = [slice(None)] * f.ndim
            index[d] = piece
            return f[tuple(index)]

        if np.ndim(h) != 0:
            out.append(_gradient_on(at, _coordinates(h, f.shape[d]), edge_order, d, f.ndim))
            continue
        h = float(h)
        inside = (at(slice(2, None)) - at(slice(None, -2))) / (2 * h)
        if edge_order == 1:
            first = (at(slice(1, 2)) - at(slice(0, 1))) / h
            last = (at(slice(-1, None)) - at(slice(-2, -1))) / h
        else:
            first = (-3 * at(slice(0, 1)) + 4 * at(slice(1, 2)) - at(slice(2, 3))) / (2 * h)
            last = (3 * at(slice(-1, None)) - 4 * at(slice(-2, -1)) + at(slice(-3, -2))) / (2 * h)
        out.append(_concatenate([first, inside, last], d))
    return out[0] if len(out) == 1 else tuple(out)


def _coordinates(h: Any, n: int) -> np.ndarray:
    """``np.gradient``'s coordinate array of an axis of length ``n``: 1-d, ``n`` entries."""
    x = np.asarray(_constant(h), dtype=float)
    if x.shape != (n,):
        raise InputError(f"numpy.gradient: coordinates of shape {x.shape} for an axis of {n}")
    return x


def _gradient_weights(x: np.ndarray, edge_order: int) -> list[np.ndarray]:
    """NumPy's weights of ``np.gradient`` on coordinates ``x`` (its three-point formulas,
    second-order accurate inside, of ``edge_order`` at the ends): rows (first, inside...,
    last) of the weights of ``f`` at the three points each uses, as three columns."""
    dx = np.diff(x)
    a, b = dx[:-1], dx[1:]  # inside: the steps below and above each point
    inside = np.stack([-b / (a * (a + b)), (b - a) / (a * b), a / (b * (a + b))], axis=1)
    if edge_order == 1:
        first = np.array([[-1.0, 1.0, 0.0]]) / dx[0]
        last = np.array([[0.0, -1.0, 1.0]]) / dx[-1]
    else:
        a, b = dx[0], dx[1]
        first = np.array([[-(2 * a + b) / (a * (a + b)), (a + b) / (a * b), -a / (b * (a + b))]])
        a, b = dx[-2], dx[-1]
        last = np.array([[b / (a * (a + b)), -(a + b) / (a * b), (2 * b + a) / (b * (a + b))]])
    return [first, inside, last]


def _gradient_on(at: Callable[[slice], Any], x: np.ndarray, edge_order: int, d: int,
                 ndim: int) -> Any:  # fmt: skip
    """``np.gradient`` along axis ``d`` on coordinates ``x``: each piece a sum of three
    slices of ``f`` (``at``) times constant weights (:func:`_gradient_weights`)."""
    if x.size == 2:  # one step: both ends its difference
        step = (at(slice(1, 2)) - at(slice(0, 1))) / float(x[1] - x[0])
        return _concatenate([step, step], d)
    first, inside, last = _gradient_weights(x, edge_order)

    def along(w: np.ndarray) -> np.ndarray:
        shape = [1] * ndim
        shape[d] = w.size
        return w.reshape(shape)

    out = []
    for w, start in [(first, 0), (inside, 0), (last, x.size - 3)]:
        terms = [along(w[:, k]) * at(slice(start + k, start + k + w.shape[0])) for k in range(3)
                 if np.any(w[:, k])]  # fmt: skip
        total = terms[0]
        for t in terms[1:]:
            total = total + t
        out.append(total)
    return _concatenate(out, d)


# -- reductions and products ---------------------------------------------------------------


def _reduction_args(what: str, dtype=None, out=None, **kwargs: Any) -> None:
    if out is not None:
        raise InputError(f"{what}(..., out=...) writes into an array: not supported")
    # ``is``, not ``in``: a mask compared with ``==`` has no single truth value
    where = kwargs.get("where")
    if not (where is None or where is True) or kwargs.get("initial") is not None:
        raise _unsupported(f"{what}(where=/initial=...)")
    if dtype is not None and np.dtype(dtype).kind != "f":
        raise _unsupported(f"{what}(dtype={np.dtype(dtype)})")


def _kept(x: TracedArray, reduced: TracedArray, axes: tuple[int, ...], keepdims: bool) -> Any:
    if not keepdims:
        return reduced
    return _reshape(reduced, tuple(1 if k in axes else n for k, n in enumerate(x.shape)))


def _sum_mask(x: Any, where: Any) -> Any:
    """``numpy.sum(x, where=mask)``'s mask, a constant that broadcasts to ``x``'s shape
    (``None``: every entry summed)."""
    if where is None or where is True:
        return None
    if _is_traced(where):
        raise _unsupported("numpy.sum(where=) of a mask that")
    mask = np.asarray(where, dtype=bool)
    try:
        shape = np.broadcast_shapes(mask.shape, np.shape(x))
    except ValueError:
        shape = None
    if shape != np.shape(x):
        raise InputError(f"numpy.sum: where= of shape {mask.shape} does not broadcast to "
                         f"the array's {np.shape(x)}")  # fmt: skip
    return mask


def _sum(x: Any, axis=None, dtype=None, out=None, keepdims=False, **kwargs: Any) -> Any:
    """``numpy.sum``; ``where=`` a constant mask: the sum of ``np.where(mask, x, 0)``; of a
    passive value (a comparison: ``np.sum(x > 0)``, a count) a passive sum."""
    if isinstance(x, Passive) and not kwargs:
        _reduction_args("numpy.sum", dtype, out)
        return _passive_sum(x, axis, keepdims)
    mask = _sum_mask(x, kwargs.pop("where", None))
    _reduction_args("numpy.sum", dtype, out, **kwargs)
    if _traced(x, "numpy.sum") is None:
        return np.sum(_constant(x), axis, keepdims=keepdims, where=True if mask is None else mask)
    if mask is not None:
        x = _where(mask, x, 0.0)
    axes = _axes(axis, x.ndim, "numpy.sum")
    if not axes:
        return x
    shape = tuple(n for k, n in enumerate(x.shape) if k not in axes)
    return _kept(x, _move(x, "reduce_sum", (("axes", axes),), shape), axes, keepdims)


def _passive_sum(x: Passive, axis: Any, keepdims: bool) -> Passive:
    """The sum of a passive value (booleans as 0 and 1) over ``axis``: passive too, a
    count that carries no derivative (``np.sum(x > 0)``, ``np.mean(mask)``)."""
    axes = _axes(axis, x.ndim, "numpy.sum")
    values = x.op
    if is_mask(x.op):  # booleans as 0.0 and 1.0
        zeros, ones = Const.of(np.zeros(x.shape)), Const.of(np.ones(x.shape))
        values = ArrayOp("select_n", (x.op, zeros, ones), (), x.shape)
    shape = tuple(n for k, n in enumerate(x.shape) if k not in axes)
    summed = Passive(ArrayOp("reduce_sum", (values,), (("axes", axes),), shape))
    if not keepdims:
        return summed
    kept = tuple(1 if k in axes else n for k, n in enumerate(x.shape))
    params = (("new_sizes", kept), ("dimensions", None))
    return Passive(ArrayOp("reshape", (summed.op,), params, kept))


def _any_all(what: str, x: Any, axis=None, out=None, keepdims=False, **kwargs: Any) -> Any:
    """``numpy.any``/``numpy.all`` of a mask (of a traced array: of ``x != 0``): its count
    over ``axis`` above 0, or equal to the entries counted; passive (no derivative)."""
    _reduction_args(f"numpy.{what}", None, out, **kwargs)
    if not _is_traced(x):
        return getattr(np, what)(_constant(x), axis, keepdims=keepdims)
    mask = x if isinstance(x, Passive) and x.boolean else _elementwise("ne", (x, 0.0))
    count = _passive_sum(mask, axis, keepdims)
    if what == "any":
        return _elementwise("gt", (count, 0.0))
    entries = math.prod(x.shape[k] for k in _axes(axis, x.ndim, f"numpy.{what}"))
    return _elementwise("eq", (count, float(entries)))


def _mean(x: Any, axis=None, dtype=None, out=None, keepdims=False, **kwargs: Any) -> Any:
    where = kwargs.pop("where", None)
    _reduction_args("numpy.mean", dtype, out, **kwargs)
    if not (where is None or where is True):  # ``is``: a mask has no single truth value
        if isinstance(x, Passive):
            raise _unsupported("numpy.mean(where=/initial=...)")  # a mask's mean
        return _masked_mean(x, axis, keepdims, where)
    if isinstance(x, Passive):  # the fraction of a mask
        count = math.prod(x.shape[k] for k in _axes(axis, x.ndim, "numpy.mean"))
        return _passive_sum(x, axis, keepdims) * (1.0 / count)
    if _traced(x, "numpy.mean") is None:
        return np.mean(_constant(x), axis, keepdims=keepdims)
    axes = _axes(axis, x.ndim, "numpy.mean")
    count = math.prod(x.shape[k] for k in axes)
    return _sum(x, axis, dtype, out, keepdims, **kwargs) * (1.0 / count)


def _masked_mean(x: Any, axis: Any, keepdims: bool, where: Any) -> Any:
    """``numpy.mean(x, where=mask)`` of a constant mask: the sum of the entries the mask
    keeps (:func:`_sum`) over their count, each output entry its own count."""
    mask = _sum_mask(x, where)
    counts = np.sum(np.broadcast_to(mask, np.shape(x)), axis, keepdims=keepdims)
    if np.any(counts == 0):  # NumPy: nan and a warning, a number no derivative has
        raise InputError("numpy.mean: where= keeps no entry of a mean (NumPy's nan)")
    if _traced(x, "numpy.mean") is None:
        return np.mean(_constant(x), axis, keepdims=keepdims, where=mask)
    scale = 1.0 / counts.astype(float)
    return _sum(x, axis, keepdims=keepdims, where=mask) * (
        float(scale) if scale.ndim == 0 else scale
    )


def _var(x: Any, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kwargs: Any) -> Any:
    """``numpy.var``: the mean of the squared deviations from the mean over ``axis``,
    divided by ``N - ddof`` in place of ``N``."""
    if _traced(x, "numpy.var") is None:
        return np.var(_constant(x), axis, ddof=ddof, keepdims=keepdims)
    _reduction_args("numpy.var", dtype, out, **kwargs)
    axes = _axes(axis, x.ndim, "numpy.var")
    count = math.prod(x.shape[k] for k in axes)
    if count - ddof <= 0:  # NumPy: nan or inf and a warning; a number no derivative has
        raise InputError(
            f"numpy.var/std: ddof={ddof} leaves no degrees of freedom over {count} entries"
        )
    deviation = x - _mean(x, axis, keepdims=True)
    return _sum(deviation * deviation, axis, keepdims=keepdims) * (1.0 / (count - ddof))


def _std(x: Any, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kwargs: Any) -> Any:
    """``numpy.std``: the square root of :func:`_var`."""
    if _traced(x, "numpy.std") is None:
        return np.std(_constant(x), axis, ddof=ddof, keepdims=keepdims)
    return np.sqrt(_var(x, axis, dtype, out, ddof, keepdims, **kwargs))


def _swapaxes(x: Any, axis1: int, axis2: int) -> Any:
    if _traced(x, "numpy.swapaxes") is None:
        return np.swapaxes(_constant(x), axis1, axis2)
    perm = list(range(x.ndim))
    i, j = _axis(axis1, x.ndim, "numpy.swapaxes"), _axis(axis2, x.ndim, "numpy.swapaxes")
    perm[i], perm[j] = perm[j], perm[i]
    return _transpose(x, tuple(perm))


def _moveaxis(x: Any, source: Any, destination: Any) -> Any:
    """``np.moveaxis``: the transpose that puts axes ``source`` at ``destination``."""
    if _traced(x, "numpy.moveaxis") is None:
        return np.moveaxis(_constant(x), source, destination)
    src, dst = ([_axis(a, x.ndim, "numpy.moveaxis") for a in np.atleast_1d(v)]
                for v in (source, destination))  # fmt: skip
    if len(src) != len(dst) or len(set(src)) < len(src) or len(set(dst)) < len(dst):
        raise InputError("numpy.moveaxis: source and destination must be as many distinct axes")
    rest = [a for a in range(x.ndim) if a not in src]
    for d, a in sorted(zip(dst, src, strict=True)):
        rest.insert(d, a)
    return _transpose(x, tuple(rest))


def _extreme(primitive: str, x: Any, axis=None, out=None, keepdims=False, **kwargs: Any) -> Any:
    what = "numpy.max" if primitive == "reduce_max" else "numpy.min"
    _reduction_args(what, None, out, **kwargs)
    if _traced(x, what) is None:
        return (np.max if primitive == "reduce_max" else np.min)(_constant(x), axis)
    axes = _axes(axis, x.ndim, what)
    if not axes:
        return x
    shape = tuple(n for k, n in enumerate(x.shape) if k not in axes)
    return _kept(x, _move(x, primitive, (("axes", axes),), shape), axes, keepdims)


def _cumsum(x: Any, axis=None, dtype=None, out=None) -> Any:
    _reduction_args("numpy.cumsum", dtype, out)
    if _traced(x, "numpy.cumsum") is None:
        return np.cumsum(_constant(x), axis)
    if axis is None:
        x, axis = _reshape(x, (-1,)), 0
    d = _axis(axis, x.ndim, "numpy.cumsum")
    return _move(x, "cumsum", (("axis", d), ("reverse", False)), x.shape)


def _cumprod(x: Any, axis=None, dtype=None, out=None) -> Any:
    _reduction_args("numpy.cumprod", dtype, out)
    if _traced(x, "numpy.cumprod") is None:
        return np.cumprod(_constant(x), axis)
    if axis is None:
        x, axis = _reshape(x, (-1,)), 0
    d = _axis(axis, x.ndim, "numpy.cumprod")
    return _move(x, "cumprod", (("axis", d), ("reverse", False)), x.shape)


def _prod(x: Any, axis=None, dtype=None, out=None, keepdims=False, **kwargs: Any) -> Any:
    _reduction_args("numpy.prod", dtype, out, **kwargs)
    if _traced(x, "numpy.prod") is None:
        return np.prod(_constant(x), axis, keepdims=keepdims)
    axes = _axes(axis, x.ndim, "numpy.prod")
    if not axes:
        return x
    shape = tuple(n for k, n in enumerate(x.shape) if k not in axes)
    return _kept(x, _move(x, "reduce_prod", (("axes", axes),), shape), axes, keepdims)


def _sorted(what: str, x: Any, axis: Any = -1, **kwargs: Any) -> Any:
    """``numpy.sort`` (a ``sort`` vertex) or ``numpy.argsort`` (positions: a passive value)
    along one axis; the whole array flattened for ``axis=None``."""
    if set(kwargs) - {"kind", "stable"}:
        raise _unsupported(f"numpy.{what}({', '.join(sorted(kwargs))}=...)")
    if _traced(x, f"numpy.{what}") is None:
        return getattr(np, what)(_constant(x), axis)
    if axis is None:
        x, axis = _reshape(x, (-1,)), 0
    params = (("dimension", _axis(axis, x.ndim, f"numpy.{what}")),)
    if what == "sort":
        return _move(x, "sort", params, x.shape)
    return Passive(ArrayOp("argsort", (x.name,), params, x.shape))


def _partitioned(what: str, x: Any, kth: Any, axis: Any = -1, kind: str = "introselect",
                 order: Any = None) -> Any:  # fmt: skip
    """``numpy.partition``/``argpartition`` as ``numpy.sort``/``argsort``: a sorted axis is
    a partition at every ``kth`` (NumPy leaves the order on either side unspecified, so a
    program that reads the sides' entries in NumPy's order reads them sorted here)."""
    if order is not None:
        raise _unsupported(f"numpy.{what}(order=...)")
    if _traced(x, f"numpy.{what}") is None:
        return getattr(np, what)(_constant(x), kth, axis)
    if _is_traced(kth):
        raise DataDependentIndex(f"numpy.{what} at a kth that depends on the inputs")
    n = x.size if axis is None else x.shape[_axis(axis, x.ndim, f"numpy.{what}")]
    ks = np.asarray(kth)
    if ks.dtype.kind not in "iu" or ks.ndim > 1 or not np.all((-n <= ks) & (ks < n)):
        raise InputError(f"numpy.{what}: kth {kth!r} out of bounds for an axis of {n}")
    return _sorted("sort" if what == "partition" else "argsort", x, axis)


def _arg_extreme(what: str, x: Any, axis: Any = None, out=None, keepdims=False) -> Any:
    """``numpy.argmax``/``argmin``: positions, a passive value (no derivative)."""
    if out is not None or keepdims:
        raise _unsupported(f"numpy.{what} with out= or keepdims=")
    if isinstance(x, Passive) and is_mask(x.op):
        return _arg_of_mask(what, x, axis)
    if _traced(x, f"numpy.{what}") is None:
        return getattr(np, what)(_constant(x), axis)
    if axis is None:
        x, axis = _reshape(x, (-1,)), 0
    d = _axis(axis, x.ndim, f"numpy.{what}")
    shape = tuple(n for j, n in enumerate(x.shape) if j != d)
    return Passive(ArrayOp(what, (x.name,), (("axes", (d,)),), shape))


def _arg_of_mask(what: str, mask: Passive, axis: Any) -> Passive:
    """``np.argmax(ys < 0)``: the first entry where a comparison holds (``argmin``: where
    it fails), the positions of its 0/1 values, bounded to the axis (``0 .. n - 1``, as a
    clip: ``ys[i - 1]`` is then NumPy's from the end at i = 0)."""
    if axis is None:
        mask, axis = _reshape(mask, (-1,)), 0
    d = _axis(axis, mask.ndim, f"numpy.{what}")
    shape = tuple(n for j, n in enumerate(mask.shape) if j != d)
    zeros, ones = (Const.of(np.full(mask.shape, v)) for v in (0.0, 1.0))
    values = ArrayOp("select_n", (mask.op, zeros, ones), (), mask.shape)
    found = ArrayOp(what, (values,), (("axes", (d,)),), shape)
    found = ArrayOp("max", (found, Const.of(np.asarray(0))), (), shape)
    return Passive(ArrayOp("min", (found, Const.of(np.asarray(mask.shape[d] - 1))), (), shape))


def _tile(x: Any, reps: Any) -> Any:
    """``numpy.tile``: a broadcast to (reps, shape) pairs, then a reshape."""
    if _traced(x, "numpy.tile") is None:
        return np.tile(_constant(x), reps)
    reps = (int(reps),) if np.ndim(reps) == 0 else tuple(int(r) for r in reps)
    if any(r < 1 for r in reps):
        raise _unsupported("numpy.tile with a repeat below 1")
    lead = max(len(reps), x.ndim)
    x = _reshape(x, (1,) * (lead - x.ndim) + x.shape)
    reps = (1,) * (lead - len(reps)) + reps
    spread = tuple(n for pair in zip(reps, x.shape, strict=True) for n in pair)
    dims = tuple(range(1, 2 * lead, 2))
    wide = _move(x, "broadcast_in_dim", (("broadcast_dimensions", dims),), spread)
    return _reshape(wide, tuple(r * n for r, n in zip(reps, x.shape, strict=True)))


def _repeat(x: Any, repeats: Any, axis: Any = None) -> Any:
    """``numpy.repeat`` with constant counts (one number, or one per entry of the axis):
    a ``take`` of each position as often as its count (a selection block)."""
    if _traced(x, "numpy.repeat") is None:
        return np.repeat(_constant(x), repeats, axis=axis)
    if _is_traced(repeats):
        raise InputError("numpy.repeat: counts that depend on the inputs are not supported")
    if axis is None:  # NumPy repeats the flattened array
        x, axis = _reshape(x, (-1,)), 0
    d = _axis(axis, x.ndim, "numpy.repeat")
    counts = np.asarray(repeats)
    n = x.shape[d]
    if counts.dtype.kind not in "iu" or counts.ndim > 1 or counts.size not in (1, n):
        raise InputError(
            f"numpy.repeat: repeats must be one integer or one per entry of the axis ({n})"
        )
    if (counts < 0).any():
        raise InputError("numpy.repeat: a negative repeat count")
    return _take(x, np.repeat(np.arange(n), counts.reshape(-1)), d)


def _dot(lhs: Any, rhs: Any, contract: tuple, shape: Shape) -> Any:
    return _contracted(lhs, rhs, (contract, ((), ())), shape)


def _contracted(a: Any, b: Any, dims: tuple, shape: Shape) -> Any:
    """``dot_general`` of ``a`` and ``b``; with a constant of zeros, the zeros it is (its
    block has no entry: the vertex would have no edge, as ``0 @ x`` has no derivative;
    ``np.fft.fft2`` of a real array so multiplies the imaginary part's zeros)."""
    for x in (a, b):
        if not _is_traced(x) and not np.any(_constant(x)):
            return np.zeros(shape)
    tape = _tape_of([a, b])
    operands = tuple(x.name if _live(x) else x.op if isinstance(x, Passive)
                     else Const.of(_constant(x)) for x in (a, b))  # fmt: skip
    return tape.new(ArrayOp("dot_general", operands, (("dimension_numbers", dims),), shape), shape)


def _matmul(a: Any, b: Any, **kwargs: Any) -> Any:
    """``a @ b`` as ``dot_general``: vectors and matrices contract their last and first
    (second to last) axes; a stack of matrices times one matrix contracts without batch
    axes (a Kronecker factor with an identity); stacks of equal batch shapes batch."""
    if kwargs:
        raise _unsupported(f"numpy.matmul({', '.join(sorted(kwargs))}=...)")
    if any(isinstance(x, Passive) and (_boolean(x.op) or not _live(y))
           for x, y in ((a, b), (b, a))):  # fmt: skip
        raise _unsupported("a product (@) with a comparison")
    if scipy_sparse.is_sparse(b):  # u @ A: the traced operand's method runs first
        return scipy_sparse.product(b, a, left=True)
    if not (_is_traced(a) or _is_traced(b)):
        return np.matmul(_constant(a), _constant(b))
    sa, sb = _shape_of(a), _shape_of(b)
    if not sa or not sb:
        raise InputError("matmul: an operand is a scalar (use *)")
    ka = len(sa) - 1
    kb = 0 if len(sb) == 1 else len(sb) - 2
    if sa[ka] != sb[kb]:
        raise InputError(f"matmul: shapes {sa} and {sb} do not match ({sa[ka]} != {sb[kb]})")
    if len(sb) <= 2:  # no batch axes: a's leading axes are free
        shape = sa[:-1] + sb[1:]
        return _dot(a, b, ((ka,), (kb,)), shape)
    if len(sa) == 1:  # a vector times a stack
        shape = sb[:-2] + sb[-1:]
        return _dot(a, b, ((0,), (kb,)), shape)
    if len(sa) == 2:  # a matrix times a stack: dot, then the stack's axes first
        y = _dot(a, b, ((1,), (kb,)), sa[:1] + sb[:-2] + sb[-1:])
        n = len(sb) - 2
        return _transpose(y, (*range(1, n + 1), 0, n + 1))
    batch = _broadcast_shape([sa[:-2], sb[:-2]], "matmul")
    a, b = (_broadcast_to(x, batch + s[-2:]) for x, s in ((a, sa), (b, sb)))
    n = len(batch)
    dims = (((n + 1,), (n,)), (tuple(range(n)), tuple(range(n))))
    return _contracted(a, b, dims, (*batch, sa[-2], sb[-1]))


def _np_dot(a: Any, b: Any, out=None) -> Any:
    if out is not None:
        raise InputError("numpy.dot(..., out=...) writes into an array: not supported")
    if not _shape_of(a) or not _shape_of(b):
        return _elementwise("mul", (a, b))
    if len(_shape_of(b)) > 2:  # a's last axis with b's second-to-last, NumPy's N-d rule
        return _tensordot(a, b, ([len(_shape_of(a)) - 1], [len(_shape_of(b)) - 2]))
    return _matmul(a, b)


def _outer(a: Any, b: Any, out=None) -> Any:
    return _elementwise("mul", (_reshape(a, (-1, 1)), _reshape(b, (-1,))))


def _nonzero(a: Any) -> tuple[MaskPositions, ...]:
    """``np.nonzero(a)`` (``np.where(a)``) of a traced ``a``: its mask's positions, read
    only as an index (:mod:`~dgraph.frontends.mask_positions`)."""
    mask = _elementwise("ne", (a, 0.0)) if _live(a) else a
    if not isinstance(mask, Passive) or not np.ndim(mask):
        raise _unsupported("numpy.nonzero of a 0-d array")
    return of_mask(mask, np.ndim(mask))


def _flatnonzero(a: Any) -> MaskPositions:
    if np.ndim(a) != 1:
        raise _unsupported("numpy.flatnonzero of an array of other than one axis")
    return _nonzero(a)[0]


def _where(condition: Any, x: Any = None, y: Any = None) -> Any:
    """``np.where(c, x, y)`` as ``select_n(c, y, x)``: the predicate a nested operation
    (a comparison, or ``c != 0`` of a traced ``c``) or a constant."""
    if x is None and y is None:  # the positions where it holds: read as an index only
        return _nonzero(condition)
    if x is None or y is None:
        raise InputError("numpy.where needs both x and y, or neither")
    if _live(condition):
        condition = _elementwise("ne", (condition, 0.0))
    if not _is_traced(condition):
        condition = _constant(condition).astype(bool)
    if _both_masks((condition,)) and all(
        not _is_traced(v) and np.asarray(v).dtype == bool for v in (x, y)
    ):  # booleans chosen by a mask: a mask again, as NumPy's bool result
        return (condition & np.asarray(x)) | (~condition & np.asarray(y))
    if not (_is_traced(x) or _is_traced(y)) and not _is_traced(condition):
        return np.where(condition, _constant(x), _constant(y))
    out = _broadcast_shape([_shape_of(condition), _shape_of(x), _shape_of(y)], "numpy.where")
    tape = _tape_of([condition, x, y])
    which = _operand(condition, out, tape)
    op = ArrayOp("select_n", (which, _operand(y, out, tape), _operand(x, out, tape)), (), out)
    return _result(op, tape)


def _nan_to_num(x: Any, copy: bool = True, nan: float = 0.0, posinf=None, neginf=None) -> Any:
    """``np.nan_to_num``: NaN, +inf and -inf replaced (by 0 and the largest doubles unless
    given) by three ``np.where``, in JAX's order; IEEE's tests ``x != x``, ``x == ±inf``."""
    if not _is_traced(x):
        return np.nan_to_num(_constant(x), copy=copy, nan=nan, posinf=posinf, neginf=neginf)
    big = float(np.finfo(float).max)
    x = _where(_elementwise("ne", (x, x)), nan, x)
    x = _where(_elementwise("eq", (x, math.inf)), big if posinf is None else posinf, x)
    return _where(_elementwise("eq", (x, -math.inf)), -big if neginf is None else neginf, x)


def _clip(x: Any, a_min: Any = None, a_max: Any = None, out=None, **kwargs: Any) -> Any:
    """``numpy.clip``, its bounds also by NumPy 2.1's keywords ``min=``/``max=``."""
    bounds = {k: kwargs.pop(k) for k in ("min", "max") if k in kwargs}
    if out is not None or kwargs:
        raise _unsupported("numpy.clip(out=...)")
    if ("min" in bounds and a_min is not None) or ("max" in bounds and a_max is not None):
        raise InputError("numpy.clip: a bound given both by position and by min=/max=")
    a_min, a_max = bounds.get("min", a_min), bounds.get("max", a_max)
    if a_min is not None:
        x = _elementwise("max", (x, a_min))
    if a_max is not None:
        x = _elementwise("min", (x, a_max))
    return x


def _like(fill: float) -> Callable[..., np.ndarray]:
    def make(a: Any, dtype=None, order="K", subok=True, shape=None, **kwargs: Any) -> Any:
        array = np.full(_shape_of(a) if shape is None else shape, fill, dtype=dtype or float)
        tape = _tape_of([a])
        return array if tape is None or array.dtype.kind != "f" else _fresh(tape, array)

    return make


def _full_like(a: Any, fill_value: Any, dtype=None, order="K", subok=True, shape=None):
    if _is_traced(fill_value):
        return _broadcast_to(fill_value, _shape_of(a) if shape is None else shape)
    return np.full(_shape_of(a) if shape is None else shape, fill_value, dtype=dtype or float)


def _norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:
    """``np.linalg.norm``: the 2-norm of vectors (``axis`` one axis, or a vector) and the
    Frobenius norm (``ord`` None or ``"fro"``), the 1- and max-norms of vectors, as sums
    and maxima of the entries; a matrix's ``2``, ``-2`` and ``"nuc"`` by its singular
    values; a matrix's other norms refused in one line."""
    if _traced(x, "numpy.linalg.norm") is None:
        return np.linalg.norm(_constant(x), ord, axis, keepdims)
    axes = _axes(axis, x.ndim, "numpy.linalg.norm")
    vector = len(axes) == 1
    if ord is None or (ord == "fro" and not vector):
        return _sum(x * x, axes, keepdims=keepdims) ** 0.5
    if vector:
        return _vector_norm_over(x, ord, axes, keepdims, "numpy.linalg.norm")
    if not vector and ord in (1, -1, np.inf, -np.inf):  # the largest (smallest) column sum
        rows, cols = axes
        summed, over = (rows, cols) if ord in (1, -1) else (cols, rows)
        sums = _sum(abs(x), summed, keepdims=True)
        picked = _extreme("reduce_max" if ord > 0 else "reduce_min", sums, over, None, True)
        return (
            picked
            if keepdims
            else _reshape(picked, tuple(n for j, n in enumerate(x.shape) if j not in axes))
        )
    if not vector and x.ndim == 2 and (ord in (2, -2) or ord == "nuc"):
        return _singular_norm(x, ord, keepdims)
    raise _unsupported(f"numpy.linalg.norm(ord={ord!r}) of {'a vector' if vector else 'a matrix'}")


def _vector_norm_over(x: Any, ord: Any, axes: tuple, keepdims: bool, what: str) -> Any:
    """The ``ord``-norm of the entries over ``axes`` read as one vector: sums and extremes
    of ``|x|`` (``ord`` 0, the count of nonzeros, has no derivative: refused)."""
    if ord == 2:
        return _sum(x * x, axes, keepdims=keepdims) ** 0.5
    if ord == 1:
        return _sum(abs(x), axes, keepdims=keepdims)
    if ord == np.inf:
        return _extreme("reduce_max", abs(x), axes, None, keepdims)
    if ord == -np.inf:
        return _extreme("reduce_min", abs(x), axes, None, keepdims)
    if isinstance(ord, (int, float, np.integer, np.floating)) and ord != 0:
        return _sum(abs(x) ** ord, axes, keepdims=keepdims) ** (1.0 / ord)
    raise _unsupported(f"{what}(ord={ord!r}) of a vector")


def _vector_norm(x: Any, /, *, axis: Any = None, keepdims: bool = False, ord: Any = 2) -> Any:
    """``np.linalg.vector_norm`` (NumPy 2, the array API): the entries over ``axis`` (every
    axis when None) as one vector."""
    if _traced(x, "numpy.linalg.vector_norm") is None:
        return np.linalg.vector_norm(_constant(x), axis=axis, keepdims=keepdims, ord=ord)
    axes = tuple(range(x.ndim)) if axis is None else _axes(axis, x.ndim, "numpy.linalg.vector_norm")
    return _vector_norm_over(x, ord, axes, keepdims, "numpy.linalg.vector_norm")


def _matrix_norm(x: Any, /, *, keepdims: bool = False, ord: Any = "fro") -> Any:
    """``np.linalg.matrix_norm`` (NumPy 2): ``np.linalg.norm`` over the last two axes."""
    if _traced(x, "numpy.linalg.matrix_norm") is None:
        return np.linalg.matrix_norm(_constant(x), keepdims=keepdims, ord=ord)
    return _norm(x, ord, (x.ndim - 2, x.ndim - 1), keepdims)


def _count_nonzero(x: Any, axis: Any = None, *, keepdims: bool = False) -> Any:
    """``np.count_nonzero``: a count, passive (no derivative) where ``x`` depends on the
    inputs (``np.count_nonzero(x > 1)``)."""
    if not _is_traced(x):
        return np.count_nonzero(_constant(x), axis, keepdims=keepdims)
    masked = isinstance(x, Passive) and is_mask(x.op)
    return _passive_sum(x if masked else _elementwise("ne", (x, 0.0)), axis, keepdims)


def _singular_norm(x: TracedArray, ord: Any, keepdims: bool) -> Any:
    """A matrix's spectral norm (``ord=2``: the largest singular value), its smallest
    singular value (``ord=-2``) or its nuclear norm (``"nuc"``: their sum), of the values
    ``np.linalg.svd`` gives in descending order."""
    s = _svd(x, compute_uv=False)
    value = _sum(s) if ord == "nuc" else s[0 if ord == 2 else -1]
    return _reshape(value, (1, 1)) if keepdims else value


def _square(a: Any, what: str, stack: bool = False) -> Any:
    """``a``, one square matrix (or, with ``stack``, a stack of them: ``(..., n, n)``)."""
    shape = _shape_of(a)
    if len(shape) < 2 or (len(shape) > 2 and not stack) or shape[-1] != shape[-2]:
        one = "one square matrix, or a stack of them," if stack else "one square matrix"
        raise InputError(f"{what}: {one} is supported, not shape {shape}")
    return a


def _linalg_op(primitive: str, operands: Sequence[Any], params: tuple, shape: Shape) -> Any:
    tape = _tape_of(operands)
    names = tuple(a.name if _live(a) else Const.of(_constant(a)) for a in operands)
    return _result(ArrayOp(primitive, names, params, shape), tape)


def _cholesky(a: Any, upper: bool = False) -> Any:
    """``np.linalg.cholesky``: of the symmetric matrix its lower triangle spells (the
    entries NumPy reads), so that a derivative is a symmetric one."""
    if upper:
        raise _unsupported("numpy.linalg.cholesky(upper=True)")
    shape = _shape_of(a)
    if len(shape) > 2 and shape[-1] == shape[-2] and not _linalg.batched(shape[-2:], shape[-2:]):
        one = lambda k: _cholesky(_batch_entry(a, k, 2))  # noqa: E731
        return _per_matrix("numpy.linalg.cholesky", shape[:-2], one)
    symmetric = _spelled(a, "L", "numpy.linalg.cholesky")
    return _linalg_op("cholesky", [symmetric], (), _shape_of(symmetric))


def _spelled(a: Any, uplo: str, what: str) -> Any:
    """The symmetric matrix the lower (``uplo="L"``) or upper triangle of ``a`` spells:
    the entries LAPACK reads, so that a derivative is a symmetric one."""
    if uplo not in ("L", "U"):
        raise InputError(f"{what}: UPLO must be 'L' or 'U', not {str(uplo)[:20]!r}")
    n = _shape_of(_square(a, what, stack=True))[-1]
    mask = np.tril(np.ones((n, n))) if uplo == "L" else np.triu(np.ones((n, n)))
    return a * mask + _swapaxes(a * (mask - np.eye(n)), -1, -2)


_EIGH = type(np.linalg.eigh(np.eye(1)))  # NumPy's named pair (eigenvalues, eigenvectors)


def _eigh(a: Any, UPLO: str = "L") -> Any:
    """``np.linalg.eigh`` of one traced matrix: the eigenvalues (ascending) and vectors
    of the symmetric matrix its ``UPLO`` triangle spells, the operations JAX's reader
    makes of ``jnp.linalg.eigh`` (:mod:`dgraph.blocks.linalg`: derivatives only where the
    eigenvalues are distinct); of a stack ``(..., n, n)`` one pair over the stack (of
    larger matrices one per matrix: :func:`dgraph.blocks.linalg.batched`)."""
    shape = _shape_of(a)
    if len(shape) > 2 and shape[-1] == shape[-2] and not _linalg.batched(shape[-2:], shape[-2:]):
        one = lambda k: _eigh(_batch_entry(a, k, 2), UPLO)  # noqa: E731
        return _per_matrix("numpy.linalg.eigh", shape[:-2], one)
    m = _spelled(a, UPLO, "numpy.linalg.eigh")
    *batch, n = _shape_of(m)[:-1]
    upper = (("lower", False),) if UPLO == "U" else ()  # LAPACK's signs for that triangle
    return _EIGH(
        _linalg_op("eigh_values", [m], (), (*batch, n)),
        _linalg_op("eigh_vectors", [m], upper, (*batch, n, n)),
    )


def _eigvalsh(a: Any, UPLO: str = "L") -> Any:
    """``np.linalg.eigvalsh``: the eigenvalues of :func:`_eigh`."""
    shape = _shape_of(a)
    if len(shape) > 2 and shape[-1] == shape[-2] and not _linalg.batched(shape[-1:], shape[-2:]):
        one = lambda k: _eigvalsh(_batch_entry(a, k, 2), UPLO)  # noqa: E731
        return _per_matrix("numpy.linalg.eigvalsh", shape[:-2], one)
    m = _spelled(a, UPLO, "numpy.linalg.eigvalsh")
    return _linalg_op("eigh_values", [m], (), _shape_of(m)[:-1])


def _eigvals(a: Any) -> Any:
    """``np.linalg.eigvals`` of a traced real matrix (a stack ``(..., n, n)`` too): the
    eigenvalues, in LAPACK's order, as a complex value whose parts are the operations
    ``eig_real`` and ``eig_imag`` (:mod:`dgraph.blocks.linalg`: ``dλ = diag(V⁻¹·dA·V)``,
    NaN at a repeated eigenvalue), the operations JAX's reader makes of
    ``jnp.linalg.eigvals``; of a stack of larger matrices one pair per matrix."""
    shape = _shape_of(_square(a, "numpy.linalg.eigvals", stack=True))
    *batch, n = shape[:-1]
    if batch and not _linalg.batched((n,), (n, n)):
        parts = [
            _per_matrix(
                "numpy.linalg.eigvals",
                tuple(batch),
                lambda k, p=p: _linalg_op(p, [_batch_entry(a, k, 2)], (), (n,)),
            )
            for p in ("eig_real", "eig_imag")
        ]
    else:
        parts = [_linalg_op(p, [a], (), (*batch, n)) for p in ("eig_real", "eig_imag")]
    return array_complex.ComplexArray(parts[0], parts[1], (*batch, n))


def _root_or_log(name: str, a: Any, args: tuple, kwargs: dict) -> Any:
    """``scipy.linalg.sqrtm`` or ``logm`` of one traced real matrix: the operation of that
    name (:mod:`dgraph.blocks.linalg`: SciPy's values; ``X·dX + dX·X = dA``, the divided
    differences of log; NaN where a real eigenvalue is 0 or negative: no real root or
    logarithm). ``disp=False`` (SciPy then returns a pair with an error estimate) is
    refused; ``blocksize`` changes only how SciPy computes the root."""
    given = dict(zip(("disp", "blocksize"), args, strict=False)) | kwargs
    if name == "sqrtm":
        given.pop("blocksize", None)
    if given.get("disp", True) is True:
        given.pop("disp", None)
    if len(args) > 2 or given:
        raise InputError(
            f"scipy.linalg.{name} is read of its matrix alone (disp=True, as by default):"
            f" {', '.join(f'{k}={v!r}'[:30] for k, v in given.items()) or 'a third argument'}"
            " is not read"
        )
    shape = _shape_of(_square(a, f"scipy.linalg.{name}"))
    return _linalg_op(name, [a], (), shape)


_EIG = type(np.linalg.eig(np.eye(1)))  # NumPy's named pair (eigenvalues, eigenvectors)


class RefusedVectors:
    """``np.linalg.eig``'s eigenvectors of a traced matrix: any use of them is one
    :class:`~dgraph.errors.InputError` line (their scale and phase are LAPACK's choice:
    no derivative is defined), so that ``w, v = np.linalg.eig(A)`` reading ``w`` only
    reads."""

    __array_priority__ = 3000  # above a traced array's and a complex value's

    def __init__(self, what: str) -> None:
        self._what = what

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise InputError(
            f"{self._what}: the eigenvectors of a nonsymmetric matrix are not differentiated"
            " (their scale and phase are LAPACK's choice): use its eigenvalues only"
        )

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "_what":
            raise AttributeError(name)
        return self._refuse()

    __array__ = __array_ufunc__ = __array_function__ = __getitem__ = __iter__ = _refuse
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _refuse
    __truediv__ = __rtruediv__ = __matmul__ = __rmatmul__ = __neg__ = __pow__ = _refuse
    __len__ = __float__ = __abs__ = _refuse


def _eig(a: Any) -> Any:
    """``np.linalg.eig``: its eigenvalues (:func:`_eigvals`) and eigenvectors that refuse
    any use (:class:`RefusedVectors`)."""
    return _EIG(_eigvals(a), RefusedVectors("numpy.linalg.eig"))


def _solve(a: Any, b: Any) -> Any:
    """``np.linalg.solve(a, b)``, ``b`` a vector or a matrix of columns; of a stack of
    matrices ``(..., n, n)`` (NumPy 2's rule: ``b`` a vector if 1-d, else ``(..., n,
    m)``, the stacks' axes broadcast, one matrix against a stack of ``b`` too) one solve
    over the stack (:func:`_solve_stack`; of
    larger matrices one per matrix, :func:`_per_matrix`)."""
    shape, sb = _shape_of(a), _shape_of(b)
    if (len(shape) > 2 or (len(shape) == 2 and len(sb) > 2)) and shape[-1] == shape[-2]:
        n, vector = shape[-1], len(sb) == 1
        if (vector and sb[0] != n) or (not vector and (len(sb) < 2 or sb[-2] != n)):
            raise InputError(f"numpy.linalg.solve: a right-hand side of shape {sb} for {shape}")
        batch = _broadcast_shape([shape[:-2], () if vector else sb[:-2]], "numpy.linalg.solve")
        columns = (n, 1) if vector else (n, sb[-1])
        if _linalg.batched(columns, (n, n), columns):
            return _solve_stack(a, b, batch)
        return _per_matrix(
            "numpy.linalg.solve",
            batch,
            lambda k: _solve(_batch_entry(a, k, 2), b if vector else _batch_entry(b, k, 2)),
        )
    n = _shape_of(_square(a, "numpy.linalg.solve"))[0]
    if len(sb) not in (1, 2) or sb[0] != n:
        raise InputError(f"numpy.linalg.solve: a right-hand side of shape {sb} for ({n}, {n})")
    return _linalg_op("linear_solve", [a, b], (("rows", False),), sb)


def _solve_stack(a: Any, b: Any, batch: Shape) -> Any:
    """``np.linalg.solve`` of a stack as one ``linear_solve``: ``a`` broadcast to the
    stack, ``b`` a matrix of columns shared by every matrix or broadcast to the stack (a
    vector as one column)."""
    n, sb = _shape_of(a)[-1], _shape_of(b)
    a = _broadcast_to(a, (*batch, n, n))
    if len(sb) == 1:
        solved = _solve_stack(a, _reshape(b, (n, 1)), batch)
        return solved[..., 0]
    if len(sb) > 2:
        b = _broadcast_to(b, (*batch, *sb[-2:]))
    return _linalg_op("linear_solve", [a, b], (("rows", False),), (*batch, n, sb[-1]))


STACK_MOST = 4096
"""Matrices a stack given to ``np.linalg.solve``, ``inv``, ``slogdet``, ``det``,
``cholesky``, ``eigh``, ``eigvalsh``, ``svd`` or ``qr`` may hold: each is an operation of
its own (:func:`_per_matrix`: a stack of matrices too large for one operation,
:func:`dgraph.blocks.linalg.batched`)."""


def _per_matrix(what: str, batch: Shape, one: Callable[[tuple[int, ...]], Any]) -> Any:
    """``one(k)`` for each index ``k`` of the stack's axes ``batch``, stacked into them
    (each part of a named tuple, such as ``eigh``'s pair, stacked on its own): one
    operation per matrix, as JAX's reader reads a ``vmap``'d solve."""
    count = math.prod(batch)
    if count > STACK_MOST:
        raise InputError(
            f"{what}: a stack of {count:,} matrices (at most {STACK_MOST:,}: one operation each)"
        )
    if count == 0:
        raise InputError(f"{what}: a stack of no matrices (batch axes {batch})")
    parts = [one(k) for k in np.ndindex(*batch)]
    if isinstance(parts[0], tuple):
        return type(parts[0])(*(_restacked(list(p), batch) for p in zip(*parts, strict=True)))
    return _restacked(parts, batch)


def _restacked(parts: list[Any], batch: Shape) -> Any:
    if not any(_is_traced(p) for p in parts):
        return np.stack([_constant(p) for p in parts]).reshape(batch + np.shape(parts[0]))
    return _reshape(_stack(parts), batch + _shape_of(parts[0]))


def _batch_entry(x: Any, k: tuple[int, ...], core: int) -> Any:
    """``x``'s matrix (its last ``core`` axes) at the stack index ``k``, its stack axes
    broadcast against ``k``'s (aligned right, a length 1 read at 0)."""
    shape = _shape_of(x)
    own = shape[: len(shape) - core]
    index = tuple(0 if m == 1 else i for m, i in zip(own, k[len(k) - len(own) :], strict=True))
    return x[index] if index else x


def _diag(v: Any, k: int = 0) -> Any:
    """``np.diag``: a matrix's diagonal (a gather), a vector's diagonal matrix (of a
    passive vector too: Kabsch's ``np.diag([1, 1, np.sign(np.linalg.det(R))])``)."""
    if isinstance(v, Passive) and len(v.shape) == 1 and k == 0:
        return v[:, None] * np.eye(v.shape[0])
    x = _traced(v, "numpy.diag")
    if x is None:
        return np.diag(_constant(v), k)
    if x.ndim == 1 and k == 0:
        return x[:, None] * np.eye(x.shape[0])
    if x.ndim == 2:
        rows = np.arange(max(0, -k), min(x.shape[0], x.shape[1] - k))
        if rows.size:
            diagonal = x[rows, rows + k]
            _viewing(diagonal, x)  # NumPy's diagonal is a view of x
            return diagonal
    raise _unsupported(f"numpy.diag(k={k}) of shape {x.shape}")


def _diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    """``np.diagonal``: entries ``[i, i + offset]`` of the axes ``axis1``, ``axis2``, the
    diagonal last (a stack of matrices' diagonals: ``np.trace(A, axis1=1, axis2=2)``), a
    gather of the two axes moved last."""
    x = _traced(a, "numpy.diagonal")
    if x is None:
        return np.diagonal(_constant(a), offset, axis1, axis2)
    if x.ndim < 2:
        raise InputError(f"numpy.diagonal needs at least 2 axes; the array has shape {x.shape}")
    d1, d2 = _axis(axis1, x.ndim, "numpy.diagonal"), _axis(axis2, x.ndim, "numpy.diagonal")
    if d1 == d2:
        raise InputError("numpy.diagonal: axis1 and axis2 cannot be the same")
    if x.ndim == 2 and (d1, d2) == (0, 1):
        return _diag(x, int(offset))
    rest = [j for j in range(x.ndim) if j not in (d1, d2)]
    moved = _transpose(x, (*rest, d1, d2))
    k = int(offset)
    rows = np.arange(max(0, -k), min(x.shape[d1], x.shape[d2] - k))
    if not rows.size:
        raise InputError(f"numpy.diagonal(offset={k}) of shape {x.shape} has no entries")
    return moved[..., rows, rows + k]


def _trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype=None, out=None) -> Any:
    """``np.trace``: the sum of :func:`_diagonal` over its last axis."""
    if dtype is not None or out is not None:
        raise _unsupported("numpy.trace(dtype=/out=...)")
    if _traced(a, "numpy.trace") is None:
        return np.trace(_constant(a), offset, axis1, axis2)
    return _sum(_diagonal(a, offset, axis1, axis2), axis=-1)


def _inv(a: Any) -> Any:
    shape = _shape_of(a)
    if len(shape) > 2 and shape[-1] == shape[-2]:  # a stack: a solve per matrix
        return _solve(a, np.eye(shape[-1]))
    n = _shape_of(_square(a, "numpy.linalg.inv"))[0]
    return _solve(a, np.eye(n))


# -- einsum --------------------------------------------------------------------------------
# ``np.einsum`` from the pieces above: each operand's repeated labels read as its diagonal
# (a ``gather_flat``), labels no other operand nor the output has summed out first
# (``reduce_sum``), then the operands contracted pairwise left to right (``dot_general``:
# shared labels still wanted later are batch axes, the others contracted), the result
# transposed to the output's order. ``optimize=`` chooses an order only: ignored.

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _einsum(*operands: Any, out=None, dtype=None, order="K", casting="safe", optimize=False):
    if out is not None:
        raise InputError("numpy.einsum(..., out=...) writes into an array: not supported")
    if dtype is not None and np.dtype(dtype).kind != "f":
        raise _unsupported(f"numpy.einsum(dtype={np.dtype(dtype)})")
    subscripts, arrays = _einsum_spec(operands)
    if any(isinstance(a, Passive) for a in arrays):
        raise _unsupported("numpy.einsum of a comparison")
    if not any(_is_traced(a) for a in arrays):
        return np.einsum(subscripts, *[_constant(a) for a in arrays])
    inputs, output = _einsum_labels(subscripts, [_shape_of(a) for a in arrays])
    sizes = _einsum_sizes(inputs, [_shape_of(a) for a in arrays])
    terms = []
    for k, (labels, a) in enumerate(zip(inputs, arrays, strict=True)):
        wanted = set(output).union(*(inputs[j] for j in range(len(inputs)) if j != k))
        terms.append(_einsum_own(a, labels, wanted, sizes))
    value, labels = terms[0]
    for k in range(1, len(terms)):
        wanted = set(output).union(*(t[1] for t in terms[k + 1 :]))
        value, labels = _einsum_pair((value, labels), terms[k], wanted, sizes)
    value, labels = _einsum_own(value, labels, set(output), sizes)
    return _transpose(value, tuple(labels.index(c) for c in output)) if labels else value


def _tensordot(a: Any, b: Any, axes: Any = 2) -> Any:
    """``np.tensordot`` as the einsum it is: ``a``'s axes ``axes[0]`` contracted with
    ``b``'s ``axes[1]`` (an integer ``k``: ``a``'s last ``k`` with ``b``'s first ``k``)."""
    ra, rb = len(_shape_of(a)), len(_shape_of(b))
    if isinstance(axes, numbers.Integral):
        pairs = list(zip(range(ra - int(axes), ra), range(int(axes)), strict=True))
    else:
        first, second = (np.atleast_1d(np.asarray(x)).tolist() for x in axes)
        if len(first) != len(second):
            raise InputError("numpy.tensordot: the two lists of axes differ in length")
        pairs = [(i % ra, j % rb) for i, j in zip(first, second, strict=True)]
    if ra + rb > len(_LETTERS):
        raise _unsupported("numpy.tensordot with these axes")
    la = _LETTERS[:ra]
    lb = list(_LETTERS[ra : ra + rb])
    for i, j in pairs:
        lb[j] = la[i]
    kept = [c for k, c in enumerate(la) if k not in {i for i, _ in pairs}]
    kept += [c for k, c in enumerate(lb) if k not in {j for _, j in pairs}]
    return _einsum(f"{la},{''.join(lb)}->{''.join(kept)}", a, b)


def _einsum_spec(operands: Sequence[Any]) -> tuple[str, list[Any]]:
    """The subscripts and the arrays: ``einsum("ij,jk", a, b)`` or NumPy's interleaved
    form ``einsum(a, [0, 1], b, [1, 2], [0, 2])``."""
    if not operands:
        raise InputError("numpy.einsum: no operands")
    if isinstance(operands[0], str):
        return operands[0].replace(" ", ""), list(operands[1:])
    output = list(operands[-1]) if len(operands) % 2 else None
    pairs = operands[: len(operands) - len(operands) % 2]
    arrays, parts = list(pairs[0::2]), [list(s) for s in pairs[1::2]]

    def spelled(labels: list[Any]) -> str:
        if any(
            not (s is Ellipsis or (isinstance(s, numbers.Integral) and 0 <= s < len(_LETTERS)))
            for s in labels
        ):
            raise InputError("numpy.einsum: interleaved labels must be integers 0..51 or ...")
        return "".join("..." if s is Ellipsis else _LETTERS[s] for s in labels)

    text = ",".join(spelled(p) for p in parts)
    return (text if output is None else f"{text}->{spelled(output)}"), arrays


def _einsum_labels(subscripts: str, shapes: list[Shape]) -> tuple[list[str], str]:
    """Each operand's labels, one letter per axis (``...`` spelled with letters the
    subscripts do not use, right-aligned as broadcasting aligns), and the output's
    (implicit: the labels used once, in alphabetical order, after the ``...`` axes)."""
    what = "numpy.einsum"
    lhs, arrow, rhs = subscripts.partition("->")
    parts = lhs.split(",")
    if len(parts) != len(shapes):
        raise InputError(f"{what}: {len(parts)} subscripts for {len(shapes)} operands")
    for text in [*parts, rhs]:
        letters = text.replace("...", "")
        if not all(c in _LETTERS for c in letters) or text.count("...") > 1:
            raise InputError(f"{what}: the subscripts {subscripts!r} are not letters and one ...")
    spare = [c for c in reversed(_LETTERS) if c not in subscripts]
    dots = max(
        (
            len(s) - len(p.replace("...", ""))
            for p, s in zip(parts, shapes, strict=True)
            if "..." in p
        ),
        default=0,
    )
    if dots < 0:
        raise InputError(f"{what}: more labels than axes in {subscripts!r}")
    ellipsis = "".join(spare[:dots][::-1])
    inputs = []
    for p, s in zip(parts, shapes, strict=True):
        n = len(s) - len(p.replace("...", ""))
        labels = (
            p.replace("...", ellipsis[len(ellipsis) - n :] if n > 0 else "") if "..." in p else p
        )
        if n < 0 or len(labels) != len(s):
            raise InputError(f"{what}: the subscripts {p!r} do not fit an operand of shape {s}")
        inputs.append(labels)
    if arrow:
        output = rhs.replace("...", ellipsis)
        if len(set(output)) != len(output):
            raise InputError(f"{what}: an output label repeats in {subscripts!r}")
        unknown = set(output) - set("".join(inputs))
        if unknown:
            raise InputError(f"{what}: the output label {sorted(unknown)[0]!r} is in no operand")
    else:
        counts = {c: "".join(parts).count(c) for c in set("".join(parts).replace(".", ""))}
        output = ellipsis + "".join(sorted(c for c, n in counts.items() if n == 1))
    return inputs, output


def _einsum_sizes(inputs: list[str], shapes: list[Shape]) -> dict[str, int]:
    """Each label's length; one line where two axes of a label differ (1 broadcasts)."""
    sizes: dict[str, int] = {}
    for labels, shape in zip(inputs, shapes, strict=True):
        for c, n in zip(labels, shape, strict=True):
            if sizes.get(c, 1) not in (1, n) and n != 1:
                raise InputError(f"numpy.einsum: the label {c!r} has lengths {sizes[c]} and {n}")
            sizes[c] = max(sizes.get(c, 1), n)
    return sizes


def _einsum_own(a: Any, labels: str, wanted: set[str], sizes: dict[str, int]) -> tuple[Any, str]:
    """One operand on its own: a repeated label's diagonal, axes of length 1 broadcast to
    their label's length, labels not ``wanted`` summed out."""
    if len(set(labels)) < len(labels):
        a, labels = _einsum_diagonal(a, labels)
    shape = tuple(sizes[c] for c in labels)
    if _shape_of(a) != shape:
        a = _broadcast_to(a, shape) if _is_traced(a) else np.broadcast_to(_constant(a), shape)
    gone = tuple(k for k, c in enumerate(labels) if c not in wanted)
    if gone:
        a = _sum(a, gone)
        labels = "".join(c for c in labels if c in wanted)
    return a, labels


def _einsum_diagonal(a: Any, labels: str) -> tuple[Any, str]:
    """``a``'s entries where its repeated labels agree, each label once (first place)."""
    once = "".join(dict.fromkeys(labels))
    if not _is_traced(a):
        return np.einsum(f"{labels}->{once}", _constant(a)), once
    at = np.einsum(f"{labels}->{once}", np.arange(a.size).reshape(a.shape))
    params = (("sources", tuple(int(i) for i in at.reshape(-1))),)
    return _move(a, "gather_flat", params, tuple(at.shape)), once


def _einsum_pair(
    left: tuple[Any, str], right: tuple[Any, str], wanted: set[str], sizes: dict[str, int]
) -> tuple[Any, str]:
    """Two operands contracted: shared labels ``wanted`` later are batch axes, the other
    shared ones contracted; the result's labels in ``dot_general``'s order (batch, the
    left's free, the right's free)."""
    (a, la), (b, lb) = left, right
    shared = [c for c in la if c in lb]
    batch = [c for c in shared if c in wanted]
    contract = [c for c in shared if c not in wanted]
    free_a = [c for c in la if c not in lb]
    free_b = [c for c in lb if c not in la]
    labels = "".join(batch + free_a + free_b)
    if not la or not lb:  # a scalar: a product
        return _elementwise("mul", (a, b)), labels
    if not (_is_traced(a) or _is_traced(b)):
        return np.einsum(f"{la},{lb}->{labels}", _constant(a), _constant(b)), labels
    dims = (
        (tuple(la.index(c) for c in contract), tuple(lb.index(c) for c in contract)),
        (tuple(la.index(c) for c in batch), tuple(lb.index(c) for c in batch)),
    )
    return _contracted(a, b, dims, tuple(sizes[c] for c in labels)), labels


# -- median, matrix_power ------------------------------------------------------------------


def _median(a: Any, axis: Any = None, out=None, overwrite_input: bool = False, keepdims=False):
    """``numpy.median``: the middle of the sorted axis; of an even length the mean of the
    two middle entries (JAX's rule, ``quantile(method="midpoint")``)."""
    if out is not None:
        raise InputError("numpy.median(..., out=...) writes into an array: not supported")
    if _traced(a, "numpy.median") is None:
        return np.median(_constant(a), axis, keepdims=keepdims)
    return _quantile_of(a, 0.5, axis, "midpoint", keepdims, "numpy.median")


_QUANTILE_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(a: Any, q: Any, axis: Any = None, out=None, overwrite_input: bool = False,
              method: str = "linear", keepdims: bool = False, *,
              what: str = "numpy.quantile", **kwargs: Any) -> Any:  # fmt: skip
    """``numpy.quantile`` of the constant probabilities ``q`` (a number or an array, its
    axes first in the result, as NumPy puts them) along ``axis``: the sorted axis read at
    the virtual position ``q·(n - 1)`` by ``method`` (Hyndman and Fan's type 7, NumPy's
    default ``linear``: the two entries around it weighted by the fraction; ``lower``,
    ``higher``, ``nearest``, ``midpoint``); the derivative is that of the entries read."""
    if out is not None:
        raise InputError(f"{what}(..., out=...) writes into an array: not supported")
    if kwargs:
        raise _unsupported(f"{what}({', '.join(sorted(kwargs))}=...)")
    if _is_traced(q):
        raise DataDependentIndex(f"{what} of probabilities that depend on the inputs")
    probabilities = _constant(q).astype(float)
    if _traced(a, what) is None:
        return np.quantile(_constant(a), probabilities, axis, method=method, keepdims=keepdims)
    if method not in _QUANTILE_METHODS:
        raise _unsupported(f"{what}(method={method!r})")
    if not np.all((probabilities >= 0) & (probabilities <= 1)):
        raise InputError(f"{what}: probabilities must be in [0, 1] (percentages in [0, 100])")
    found = [_quantile_of(a, float(p), axis, method, keepdims, what) for p in probabilities.flat]
    if probabilities.ndim == 0:
        return found[0]
    return _reshape(_stack(found), probabilities.shape + np.shape(found[0]))


def _percentile(a: Any, q: Any, axis: Any = None, out=None, overwrite_input: bool = False,
                method: str = "linear", keepdims: bool = False, **kwargs: Any) -> Any:  # fmt: skip
    """``numpy.percentile``: :func:`_quantile` of ``q / 100``."""
    if _is_traced(q):
        raise DataDependentIndex("numpy.percentile of percentages that depend on the inputs")
    return _quantile(a, _constant(q) / 100.0, axis, out, overwrite_input, method, keepdims,
                     what="numpy.percentile", **kwargs)  # fmt: skip


def _quantile_of(a: Any, p: float, axis: Any, method: str, keepdims: bool, what: str) -> Any:
    """The ``p`` quantile of traced ``a`` along ``axis`` (None: all of it) by ``method``."""
    shape = a.shape
    if axis is None:
        a, d = _reshape(a, (-1,)), 0
    elif isinstance(axis, numbers.Integral):
        d = _axis(axis, a.ndim, what)
    else:
        raise _unsupported(f"{what} over several axes (a tuple axis=)")
    s = _sorted("sort", a, d)
    n = s.shape[d]

    def entry(k: int) -> Any:
        return s[(slice(None),) * d + (k,)]

    at = p * (n - 1)
    lo = math.floor(at)
    t = at - lo  # 0 at the last entry: lo + 1 is read only where t > 0
    if t == 0 or method == "lower":
        found = entry(lo)
    elif method == "higher":
        found = entry(lo + 1)
    elif method == "midpoint":
        found = (entry(lo) + entry(lo + 1)) * 0.5
    elif method == "nearest":  # NumPy rounds half to even
        found = entry(int(np.around(at)))
    else:  # NumPy's lerp, from the nearer end
        below, above = entry(lo), entry(lo + 1)
        found = below + (above - below) * t if t < 0.5 else above - (above - below) * (1 - t)
    if not keepdims:
        return found
    kept = (
        (1,) * len(shape)
        if axis is None
        else tuple(1 if j == d else m for j, m in enumerate(shape))
    )
    return _reshape(found, kept)


def _matrix_power(a: Any, n: Any) -> Any:
    """``numpy.linalg.matrix_power``: ``a`` (square, or a stack of them) to an integer
    power by repeated squaring (JAX's order of products); a negative one of ``inv(a)``."""
    what = "numpy.linalg.matrix_power"
    if _traced(a, what) is None:
        return np.linalg.matrix_power(_constant(a), n)
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise InputError(f"{what}: the power must be an integer, not {n!r}")
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise InputError(f"{what}: square matrices are supported, not shape {a.shape}")
    if n == 0:
        return np.broadcast_to(np.eye(a.shape[-1]), a.shape).copy()
    if n < 0:
        a, n = _inv(a), -int(n)
    result, z, n = None, None, int(n)
    while n > 0:
        z = a if z is None else _matmul(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else _matmul(result, z)
    return result


# -- searchsorted, interp -------------------------------------------------------------------


def _searchsorted(a: Any, v: Any, side: str = "left", sorter: Any = None) -> Any:
    """``numpy.searchsorted`` of a sorted 1-D ``a``: per query the count of entries below it
    (``side="right"``: at most it), NaN after every number: one ``searchsorted`` operation
    (:mod:`~dgraph.blocks.sorted_search`, a binary search per query), a passive value (no
    derivative); of passive queries too (``np.floor(x)``'s: refused before)."""
    what = "numpy.searchsorted"
    if sorter is not None or side not in ("left", "right"):
        raise _unsupported(f"{what}(sorter=..., or side other than 'left'/'right')")
    if not (_is_traced(a) or _is_traced(v)):
        return np.searchsorted(_constant(a), _constant(v), side)
    table, query = _shape_of(a), _shape_of(v)
    if len(table) != 1:
        raise InputError(f"{what}: a sorted 1-D array is supported, not shape {table}")
    tape = _tape_of((a, v))
    operands = (_operand(a, table, tape), _operand(v, query, tape))
    return Passive(searchsorted_op(*operands, table[0], query, side == "right"))


def _interp_values(x: np.ndarray, xp: np.ndarray, fp: Any, left: Any, right: Any,
                   period: Any) -> Any:  # fmt: skip
    """``numpy.interp`` at constant ``x`` of traced values ``fp``: affine in ``fp``,
    ``W·fp + c``, ``W``'s column k NumPy's own interpolation of the k-th unit vector
    (``left``/``right`` 0 where given) and ``c`` that of zeros (the given ``left``/``right``
    alone): NumPy's value, the weights constants."""
    what = "numpy.interp"
    if fp.ndim != 1 or xp.ndim != 1 or fp.shape[0] != xp.shape[0] or xp.size < 1:
        raise InputError(f"{what}: xp and fp must be 1-D of one length")
    zero = (None if left is None else 0.0, None if right is None else 0.0)
    columns = [np.interp(x, xp, e, *zero, period) for e in np.eye(xp.shape[0])]
    weights = np.stack(columns, axis=-1)
    shift = np.interp(x, xp, np.zeros(xp.shape[0]), left, right, period)
    out = np.tensordot(weights, fp, axes=([weights.ndim - 1], [0]))
    return out + shift if np.any(shift) else out


def _interp_table(x: Any, xp: Any, fp: Any, left: Any, right: Any) -> Any:
    """``numpy.interp`` of a table ``xp`` that depends on the inputs (an inverse CDF by
    ``np.cumsum``) as ``jnp.interp`` computes it: the segment ``i = clip(searchsorted(xp,
    x, "right"), 1, n - 1)`` (positions, no derivative), ``fp[i - 1] + (x - xp[i - 1]) /
    (xp[i] - xp[i - 1]) · (fp[i] - fp[i - 1])`` read by takes at those positions (a segment
    of length 0 its left value), ``left``/``right`` (default ``fp[0]``/``fp[-1]``) outside
    ``[xp[0], xp[-1]]``: JAX's values and derivative, ``xp``'s included."""
    what = "numpy.interp"
    fs = fp if _is_traced(fp) else np.asarray(_constant(fp), float)
    n = _shape_of(xp)
    if len(n) != 1 or _shape_of(fs) != n or n[0] < 2:
        raise InputError(f"{what}: xp and fp must be 1-D of one length (at least 2)")
    i = _clip(_searchsorted(xp, x, side="right"), 1, n[0] - 1)
    below = i - 1
    f0, f1 = _take(fs, below, axis=0), _take(fs, i, axis=0)
    x0, x1 = _take(xp, below, axis=0), _take(xp, i, axis=0)
    dx = x1 - x0
    flat = _elementwise("abs", (dx,)) <= np.spacing(np.finfo(float).eps)
    f = _where(flat, f0, f0 + ((x - x0) / _where(flat, 1.0, dx)) * (f1 - f0))
    f = _where(x < xp[0], fs[0] if left is None else left, f)
    return _where(x > xp[-1], fs[-1] if right is None else right, f)


def _interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None, period: Any = None):
    """``numpy.interp`` at traced ``x`` of constant ``xp`` (``fp`` traced too): JAX's rule (the
    segment ``searchsorted(xp, x, "right")`` picks, clipped to the first and last; a
    segment of length 0 its left value; ``left``/``right`` outside ``xp``), the segment's
    start, value and slope read by takes at it: a binary search and three takes per
    query, not a ``select_n`` per segment (a NaN query: NaN, NumPy's). A traced ``xp``:
    :func:`_interp_table`."""
    what = "numpy.interp"
    table = _is_traced(xp) and not any(isinstance(v, Passive) for v in (xp, fp))
    if table and period is None and not (_is_traced(left) or _is_traced(right)):
        return _interp_table(x, xp, fp, left, right)  # xp from the inputs: jnp.interp's way
    if not _is_traced(x):
        if _is_traced(xp) or isinstance(fp, Passive) or _is_traced(left) or _is_traced(right):
            raise _unsupported(
                f"{what} with left or right that depend on the inputs, or period= of an xp"
                " that does"
            )
        if _is_traced(fp):
            return _interp_values(_constant(x), _constant(xp), fp, left, right, period)
        return np.interp(_constant(x), xp, fp, left, right, period)
    if period is not None or isinstance(fp, Passive) or any(map(_is_traced, (xp, left, right))):
        raise _unsupported(
            f"{what} with period=, or left or right that depend on the inputs (an xp from the"
            " inputs is read without period=)"
        )
    xs = np.asarray(_constant(xp), float)
    fs = fp if _is_traced(fp) else np.asarray(_constant(fp), float)  # a learned table: traced
    if xs.ndim != 1 or _shape_of(fs) != xs.shape or xs.size < 2:
        raise InputError(f"{what}: xp and fp must be 1-D of one length (at least 2)")
    dx = np.diff(xs)
    flat = np.abs(dx) <= np.spacing(np.finfo(float).eps)
    if _is_traced(fs):  # each segment's slope, affine in fp (0 on a segment of length 0)
        slope = (fs[1:] - fs[:-1]) * np.where(flat, 0.0, 1.0 / np.where(flat, 1.0, dx))
    else:
        slope = np.where(flat, 0.0, np.diff(fs) / np.where(flat, 1.0, dx))
    k = _clip(_searchsorted(xs, x, side="right") - 1, 0, xs.size - 2)  # each query's segment
    x0, f0 = _take(xs[:-1], k, axis=0), _take(fs[:-1], k, axis=0)
    f = f0 + (x - x0) * _take(slope, k, axis=0)
    f = _where(x < xs[0], fs[0] if left is None else left, f)
    return _where(x > xs[-1], fs[-1] if right is None else right, f)


def _det(a: Any) -> Any:
    """``np.linalg.det``: of one square matrix the ``det`` operation; of a stack of 1×1,
    2×2 or 3×3 matrices (``(..., n, n)``: a mesh's elements) each determinant written
    out by its cofactor expansion, a polynomial of the entries (exact derivatives)."""
    shape = _shape_of(a)
    if len(shape) > 2 and shape[-1] == shape[-2] and shape[-1] in (1, 2, 3):
        e = [[a[..., i, j] for j in range(shape[-1])] for i in range(shape[-1])]
        if shape[-1] == 1:
            return e[0][0]
        if shape[-1] == 2:
            return e[0][0] * e[1][1] - e[0][1] * e[1][0]
        return (
            e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1])
            - e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0])
            + e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0])
        )
    if len(shape) > 2 and shape[-1] == shape[-2] and not _linalg.batched((), shape[-2:]):
        return _per_matrix("numpy.linalg.det", shape[:-2], lambda k: _det(_batch_entry(a, k, 2)))
    return _linalg_op("det", [_square(a, "numpy.linalg.det", stack=True)], (), shape[:-2])


_SLOGDET = type(np.linalg.slogdet(np.eye(1)))  # NumPy's named pair (sign, logabsdet)


def _slogdet(a: Any) -> Any:
    """``np.linalg.slogdet``: ``sign(det a)`` (derivative 0) and ``log|det a|``, the pair
    JAX's reader makes of ``jnp.linalg.slogdet``."""
    shape = _shape_of(a)
    if len(shape) > 2 and shape[-1] == shape[-2] and not _linalg.batched((), shape[-2:]):

        def each(name: str) -> Any:
            one = lambda k: _linalg_op(name, [_batch_entry(a, k, 2)], (), ())  # noqa: E731
            return _per_matrix("numpy.linalg.slogdet", shape[:-2], one)

        return _SLOGDET(_elementwise("sign", (each("det"),)), each("logabsdet"))
    square = _square(a, "numpy.linalg.slogdet", stack=True)
    sign = _elementwise("sign", (_linalg_op("det", [square], (), shape[:-2]),))
    return _SLOGDET(sign, _linalg_op("logabsdet", [square], (), shape[:-2]))


_SVD = type(np.linalg.svd(np.eye(1)))  # NumPy's named triple (U, S, Vh)


def _svd(a: Any, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False):
    """``np.linalg.svd`` of one traced matrix: its values (``compute_uv=False``) or the
    reduced triple (``full_matrices=False``, or a square matrix), the operations JAX's
    reader makes of ``jnp.linalg.svd`` (:mod:`dgraph.blocks.decompositions`); of a stack
    ``(..., m, n)`` one each over the stack (of larger matrices one per matrix)."""
    what = "numpy.linalg.svd"
    x = _traced(a, what)
    if x is None:
        return np.linalg.svd(_constant(a), full_matrices, compute_uv, hermitian)
    if x.ndim > 2 and not hermitian and not _svd_batched(x.shape[-2:], compute_uv):
        one = lambda k: _svd(_batch_entry(x, k, 2), full_matrices, compute_uv)  # noqa: E731
        return _per_matrix(what, x.shape[:-2], one)
    full = x.ndim < 2 or (compute_uv and full_matrices and x.shape[-1] != x.shape[-2])
    if hermitian or full:
        raise _unsupported(
            f"{what} of shape {x.shape}{' (hermitian=True)' if hermitian else ''}: values"
            " only, or reduced (full_matrices=False), of a matrix or a stack of them is"
        )
    *batch, m, n = x.shape
    k = min(m, n)
    s = _linalg_op("svd_values", [x], (), (*batch, k))
    if not compute_uv:
        return s
    u = _linalg_op("svd_u", [x], (), (*batch, m, k))
    return _SVD(u, s, _linalg_op("svd_vt", [x], (), (*batch, k, n)))


def _svd_batched(matrix: Shape, vectors: bool) -> bool:
    """Whether a stack of ``matrix``-shaped SVDs is one operation each part."""
    m, n = matrix
    k = min(m, n)
    return _linalg.batched((m, k) if vectors else (k,), matrix) and _linalg.batched((k, n), matrix)


_QR = type(np.linalg.qr(np.eye(1)))  # NumPy's named pair (Q, R)


def _qr(a: Any, mode: str = "reduced") -> Any:
    """``np.linalg.qr`` of one traced matrix with at least as many rows as columns: the
    reduced ``(Q, R)`` (``mode="r"``: R; ``"complete"`` of a square matrix: the same), the
    operations JAX's reader makes of ``jnp.linalg.qr`` (:mod:`dgraph.blocks.decompositions`:
    R must be invertible); of a stack ``(..., m, n)`` one each over the stack (of larger
    matrices one per matrix)."""
    what = "numpy.linalg.qr"
    x = _traced(a, what)
    if x is None:
        return np.linalg.qr(_constant(a), mode)
    if x.ndim > 2 and not _linalg.batched(x.shape[-2:], x.shape[-2:]):
        return _per_matrix(what, x.shape[:-2], lambda k: _qr(_batch_entry(x, k, 2), mode))
    square = x.ndim >= 2 and x.shape[-1] == x.shape[-2]
    if x.ndim < 2 or x.shape[-2] < x.shape[-1] or mode not in ("reduced", "r", "complete"):
        raise InputError(
            f"{what}(mode={mode!r}) of shape {x.shape}: read of matrices with at least as"
            " many rows as columns, mode 'reduced' or 'r' (or 'complete' of square ones)"
        )
    if mode == "complete" and not square:
        raise InputError(f"{what}(mode='complete') of shape {x.shape}: read of square matrices")
    *batch, m, n = x.shape
    r = _linalg_op("qr_r", [x], (), (*batch, n, n))
    return r if mode == "r" else _QR(_linalg_op("qr_q", [x], (), (*batch, m, n)), r)


_FUNCTIONS: dict[Callable[..., Any], Callable[..., Any]] = {
    np.linalg.norm: _norm,
    np.count_nonzero: _count_nonzero,
    **{
        f: h
        for f, h in (
            (getattr(np.linalg, "vector_norm", None), _vector_norm),
            (getattr(np.linalg, "matrix_norm", None), _matrix_norm),
        )
        if f is not None  # NumPy 2's
    },
    np.linalg.slogdet: _slogdet,
    np.linalg.svd: _svd,
    np.linalg.qr: _qr,
    np.linalg.eigh: _eigh,
    np.linalg.eigvalsh: _eigvalsh,
    np.linalg.eigvals: _eigvals,
    np.linalg.eig: _eig,
    np.linalg.cholesky: _cholesky,
    np.linalg.solve: _solve,
    np.linalg.inv: _inv,
    np.diag: _diag,
    np.diagonal: lambda a, offset=0, axis1=0, axis2=1: _diagonal(a, offset, axis1, axis2),
    np.trace: _trace,
    np.linalg.det: lambda a: _det(a),
    np.sum: _sum,
    np.mean: _mean,
    np.var: _var,
    np.std: _std,
    np.swapaxes: _swapaxes,
    np.moveaxis: _moveaxis,
    np.max: lambda x, axis=None, out=None, keepdims=False, **k: _extreme(
        "reduce_max", x, axis, out, keepdims, **k
    ),
    np.min: lambda x, axis=None, out=None, keepdims=False, **k: _extreme(
        "reduce_min", x, axis, out, keepdims, **k
    ),
    np.amax: lambda x, axis=None, out=None, keepdims=False, **k: _extreme(
        "reduce_max", x, axis, out, keepdims, **k
    ),
    np.amin: lambda x, axis=None, out=None, keepdims=False, **k: _extreme(
        "reduce_min", x, axis, out, keepdims, **k
    ),
    np.cumsum: _cumsum,
    np.cumprod: _cumprod,
    np.prod: _prod,
    np.sort: lambda a, axis=-1, **k: _sorted("sort", a, axis, **k),
    np.argsort: lambda a, axis=-1, **k: _sorted("argsort", a, axis, **k),
    np.partition: lambda a, kth, *r, **k: _partitioned("partition", a, kth, *r, **k),
    np.argpartition: lambda a, kth, *r, **k: _partitioned("argpartition", a, kth, *r, **k),
    np.argmax: lambda a, axis=None, out=None, **k: _arg_extreme("argmax", a, axis, out, **k),
    np.argmin: lambda a, axis=None, out=None, **k: _arg_extreme("argmin", a, axis, out, **k),
    np.tile: _tile,
    np.repeat: _repeat,
    np.reshape: lambda a, shape=None, order="C", **k: _reshape(a, k.get("newshape", shape), order),
    np.ravel: lambda a, order="C": _reshape(a, (-1,), order),
    np.transpose: _transpose,
    np.squeeze: _squeeze,
    np.expand_dims: _expand_dims,
    np.broadcast_to: _broadcast_to,
    np.pad: _pad,
    np.take: lambda a, indices, axis=None, out=None, mode="raise": _np_take(
        a, indices, axis, out, mode
    ),
    np.take_along_axis: _take_along_axis,
    np.lib.stride_tricks.sliding_window_view: _sliding_window_view,
    np.bincount: _bincount,
    np.fill_diagonal: _fill_diagonal,
    np.concatenate: _concatenate,
    np.stack: _stack,
    np.hstack: _hstack,
    np.vstack: _vstack,
    np.where: _where,
    np.nonzero: _nonzero,
    np.flatnonzero: _flatnonzero,
    np.dot: _np_dot,
    np.einsum: _einsum,
    np.tensordot: _tensordot,
    np.median: _median,
    np.any: lambda x, axis=None, out=None, keepdims=False, **k: _any_all(
        "any", x, axis, out, keepdims, **k
    ),
    np.all: lambda x, axis=None, out=None, keepdims=False, **k: _any_all(
        "all", x, axis, out, keepdims, **k
    ),
    np.quantile: _quantile,
    np.percentile: _percentile,
    np.searchsorted: _searchsorted,
    np.interp: _interp,
    np.linalg.matrix_power: _matrix_power,
    np.outer: _outer,
    np.clip: _clip,
    np.nan_to_num: _nan_to_num,
    np.isposinf: lambda x, out=None: _elementwise("eq", (x, math.inf)),
    np.isneginf: lambda x, out=None: _elementwise("eq", (x, -math.inf)),
    np.roll: _roll,
    np.flip: _flip,
    np.flipud: lambda m: _flip_axis(m, 0, "numpy.flipud"),
    np.fliplr: lambda m: _flip_axis(m, 1, "numpy.fliplr"),
    np.linspace: _linspace,
    np.diff: _diff,
    np.gradient: _gradient,
    **array_complex.REAL_FUNCTIONS,
    np.convolve: array_signal.convolve,
    np.correlate: array_signal.correlate,
    **numpy_composites.FUNCTIONS,
    **numpy_array_api.FUNCTIONS,
    **numpy_selections.FUNCTIONS,
    **numpy_statistics.FUNCTIONS,
    np.zeros_like: _like(0.0),
    np.ones_like: _like(1.0),
    np.empty_like: _like(0.0),
    np.full_like: _full_like,
    np.shape: _shape_of,
    np.ndim: lambda a: len(_shape_of(a)),
    np.size: lambda a, axis=None: math.prod(_shape_of(a)) if axis is None else _shape_of(a)[axis],
    np.copy: lambda a, order="K", subok=False: _copied(a),
    np.atleast_1d: lambda *a: _atleast_1d(a[0]) if len(a) == 1 else [_atleast_1d(x) for x in a],
    np.atleast_2d: lambda *a: _atleast_2d(a[0]) if len(a) == 1 else [_atleast_2d(x) for x in a],
}


# -- math and sympy --------------------------------------------------------------------------


def _n_ary(combine: Callable[[Any, Any], Any]) -> Callable[..., Any]:
    def apply(*args: Any, **kwargs: Any) -> Any:
        if kwargs or not args:
            raise _unsupported("Max/Min with keywords or no arguments")
        out = args[0]
        for a in args[1:]:
            out = combine(out, a)
        return out

    return apply


def _log(a: Any, base: Any = None) -> Any:
    return np.log(a) if base is None else np.log(a) / np.log(base)


def _piecewise(*pieces: Any) -> Any:
    """``sympy.Piecewise((a, cond), ..., (b, True))`` as nested ``np.where``."""
    *conditional, (last, otherwise) = pieces
    if otherwise is not True and otherwise is not sympy.true:
        raise _unsupported("sympy.Piecewise without a last (value, True) piece")
    out = last
    for value, condition in reversed(conditional):
        out = _where(condition, value, out)
    return out


def _erf(a: Any) -> Any:
    return _elementwise("erf", (a,))


def _erfc(a: Any) -> Any:
    return _elementwise("erfc", (a,))


def _gathered_sum(items: Sequence[Any]) -> Any:
    """``math.fsum`` of numbers some of which are traced: their sum (exactly rounded in
    NumPy, a sum of reals in the graph)."""
    return _sum(_stack([np.asarray(v, dtype=float) if not isinstance(v, _Value) else v
                        for v in items]))  # fmt: skip


def _gathered_prod(items: Sequence[Any]) -> Any:
    """``math.prod`` of numbers some of which are traced, multiplied in order."""
    out = items[0]
    for v in items[1:]:
        out = out * v
    return out


_NUMPY_NAMED = ("sin", "cos", "tan", "sinh", "cosh", "tanh", "exp", "expm1", "log1p", "log2")
_NUMPY_NAMED += ("log10", "sqrt", "cbrt", "floor")
_SHARED = ("sin", "cos", "tan", "sinh", "cosh", "tanh", "exp", "sqrt", "cbrt", "floor", "asin")
_SHARED += ("acos", "atan", "asinh", "acosh", "atanh", "atan2", "log", "erf", "erfc")
# math's and sympy's elementwise functions, by name, and the array operation each is
_MATH: dict[str, Callable[..., Any]] = {
    **{n: getattr(np, n) for n in _NUMPY_NAMED},
    "asin": np.arcsin,
    "acos": np.arccos,
    "atan": np.arctan,
    "asinh": np.arcsinh,
    "acosh": np.arccosh,
    "atanh": np.arctanh,
    "atan2": np.arctan2,
    "ceil": np.ceil,
    "fabs": np.abs,
    "pow": np.power,
    "hypot": np.hypot,
    "log": _log,
    "erf": _erf,
    "erfc": _erfc,
    "fsum": _gathered_sum,
    "prod": _gathered_prod,
}
_SYMPY: dict[str, Callable[..., Any]] = {
    **{n: _MATH[n] for n in _SHARED},
    "cot": lambda a: 1 / np.tan(a),
    "sec": lambda a: 1 / np.cos(a),
    "csc": lambda a: 1 / np.sin(a),
    "acot": lambda a: np.arctan(1 / a),
    "ceiling": np.ceil,
    "Abs": np.abs,
    "sign": np.sign,
    "Max": _n_ary(np.maximum),
    "Min": _n_ary(np.minimum),
    "Heaviside": lambda a, h0=0.5: np.where(a > 0, 1.0, np.where(a < 0, 0.0, h0)),
    "root": lambda a, n: a ** (1 / n),
    "Piecewise": _piecewise,
}


_AS_ARRAY = ("array", "asarray", "asanyarray", "ascontiguousarray", "asfortranarray",
             "asarray_chkfinite", "require")  # fmt: skip


def _array_of(original: Callable[..., Any]) -> Callable[..., Any]:
    """``np.array`` or ``np.asarray`` (``asanyarray``, ``ascontiguousarray``) that makes a
    list holding traced values one array, and takes a traced array as it is (``np.array``:
    a copy), in a float dtype: ``x = np.asarray(x, dtype=float)`` opens many objectives."""

    def make(obj: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(obj, (list, tuple)) and _holds_traced(obj):
            return gathered(obj)
        if isinstance(obj, _Value):
            dtype = args[0] if args else kwargs.get("dtype")
            if dtype is not None and np.dtype(dtype).kind != "f":
                raise _unsupported(f"numpy.{original.__name__}(dtype={np.dtype(dtype)})")
            copies = original is np.array and kwargs.get("copy", True) is True
            return _copied(obj) if copies else obj
        return original(obj, *args, **kwargs)

    return make


#: NumPy's functions whose dispatch looks inside a sequence argument (a list of arrays)
_SEQUENCES = frozenset({"concatenate", "stack", "hstack", "vstack", "dstack", "column_stack",
                        "row_stack", "block", "einsum", "select", "piecewise", "broadcast_arrays",
                        "meshgrid", "ix_", "vectorize", "frompyfunc", "choose"})  # fmt: skip


def _lists_gathered(original: Callable[..., Any]) -> Callable[..., Any]:
    """A NumPy function whose list (or tuple) arguments holding traced values are one
    traced array each (:func:`gathered`), as NumPy would convert them before dispatch:
    ``np.prod([x[0], x[2]])``."""

    def call(*args: Any, **kwargs: Any) -> Any:
        if any(isinstance(a, (list, tuple)) and _holds_traced(a) for a in args):
            args = tuple(gathered(a) for a in args)
        return original(*args, **kwargs)

    call.__name__, call.__doc__ = getattr(original, "__name__", "call"), original.__doc__
    return call


class _Ufunc:
    """A NumPy ufunc inside a trace (``np.maximum`` of the traced module): called, or its
    methods (``reduce``, ``accumulate``, ``outer``, ``at``, ...), with list arguments
    holding traced values as one traced array each (:func:`_lists_gathered`), as NumPy
    converts them: ``np.maximum.reduce([a, b, c])``."""

    def __init__(self, ufunc: np.ufunc) -> None:
        self._ufunc = ufunc
        self.__name__, self.__doc__ = ufunc.__name__, ufunc.__doc__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _lists_gathered(self._ufunc)(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._ufunc, name)
        return _lists_gathered(found) if callable(found) else found


class _FloatType(type):
    """``isinstance(v, float)`` and ``float.fromhex`` inside the trace as outside
    (:class:`_Float`; ``np.float64`` and the other NumPy float types likewise, their
    ``base``)."""

    base: type = float

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, cls.base)

    def __subclasscheck__(cls, sub: type) -> bool:
        return issubclass(sub, cls.base)

    def __getattr__(cls, name: str) -> Any:
        return getattr(cls.base, name)


class _Float(metaclass=_FloatType):
    """The builtin ``float`` while ``f`` runs: ``float(v)`` of a traced value of one entry
    is that value as a scalar (``return float(loss)`` ends many scipy.optimize
    objectives; the number is the same); of other values Python's ``float``. As a dtype
    (``np.asarray(x, dtype=float)``) it is float64, read from ``dtype``."""

    base = float
    dtype = np.dtype(np.float64)

    def __new__(cls, x: Any = 0.0) -> Any:
        if isinstance(x, _Value):
            if x.size != 1:
                raise InputError(f"float() of an array of shape {x.shape}: one entry is needed")
            return _reshape(x, ())
        return float(x)


def _numpy_float(scalar_type: type) -> type:
    """``np.float64`` (or another NumPy float type) while ``f`` runs: of a traced value of
    one entry that value as a scalar, as ``float()`` is (``return np.float64(loss)``; the
    trace computes in float64 whatever the cast, as ``astype`` does); of other values
    NumPy's own scalar; as a dtype, in ``isinstance`` and its attributes NumPy's type."""

    def new(cls: type, x: Any = 0.0) -> Any:
        return _Float(x) if isinstance(x, _Value) else scalar_type(x)

    namespace = {"base": scalar_type, "dtype": np.dtype(scalar_type), "__new__": new,
                 "__doc__": scalar_type.__doc__}  # fmt: skip
    return _FloatType(scalar_type.__name__, (), namespace)


#: NumPy's float types as the user's code sees them while traced (:func:`_numpy_float`)
_NUMPY_FLOATS = {
    name: _numpy_float(getattr(np, name))
    for name in ("float64", "float32", "float16", "double", "single", "half", "longdouble")
}


def _builtin_sum(x: Any, start: Any = 0) -> Any:
    """The builtin ``sum`` of a traced array: its entries along the first axis added
    (``np.sum(x, axis=0)``, one reduction), not one addition per entry as iterating
    would (``sum(100*(x[1:] - x[:-1]**2)**2 + ...)``, scipy's tutorial Rosenbrock)."""
    if not isinstance(x, _Value):
        return sum(x, start)
    if not x.shape:
        raise InputError("sum() of a 0-d array: iteration over a 0-d array")
    total = _sum(x, 0)
    return total if isinstance(start, int) and start == 0 else total + start


_BUILTINS: dict[str, Callable[..., Any]] = {
    "max": np.maximum,
    "min": np.minimum,
    "sum": _builtin_sum,
}
#: functions of one iterable: called with its items as a list where one is traced
_ITERABLE = {max: "items", min: "items", math.fsum: "list", math.prod: "list"}


def _taking_arrays(original: Callable[..., Any], traced: Callable[..., Any]) -> Callable:
    """``original``, except that a call with a traced or passive array (also inside a
    sympy ``Piecewise``'s pieces or ``max``'s one iterable) is ``traced``'s."""

    def function(*args: Any, **kwargs: Any) -> Any:
        if _any_of(_held, (*args, *kwargs.values())):  # a fresh array's numbers
            args = tuple(_unheld_in(a) for a in args)
            kwargs = {k: _unheld_in(a) for k, a in kwargs.items()}
        if original in _ITERABLE and len(args) == 1 and not kwargs and _is_vector(args[0]):
            args = (list(args[0]),)  # max(u) of a traced vector: Python's, over its entries
        listed = tuple if original in _ITERABLE else (tuple, list)  # map_coordinates(u, [y, x])
        flat = [a for x in args for a in (x if isinstance(x, listed) else (x,))]
        flat += kwargs.values()  # lfilter(b, a, x, zi=zi): a keyword's array too
        if any(isinstance(a, _Value | scipy_modules.Factored) for a in flat):
            if _ITERABLE.get(original) == "items" and len(args) > 2 and not kwargs:
                return _n_ary(traced)(*args)  # max(a, b, c, d) (scipy's Zimmerman)
            found = traced(*args, **kwargs)
            if isinstance(found, scipy_modules.Interpolant):  # its queries: numbers too
                found.settle = _unheld_in
            return found
        if original in _ITERABLE and len(args) == 1 and not kwargs:
            items = list(args[0])
            if any(isinstance(a, _Value) for a in items):
                return _n_ary(traced)(*items) if _ITERABLE[original] == "items" else traced(items)
            return original(items)
        out = original(*args, **kwargs)  # CubicSpline(xk, yk) of constants: its queries traced
        spline = scipy_splines.traced_spline(out, _is_traced, _TRACED_NUMPY)
        return spline or scipy_grid.traced_grid(out, _TRACED_NUMPY) or out

    return function


def _is_vector(a: Any) -> bool:
    """Whether ``a`` is a traced array of one axis (Python iterates it entry by entry)."""
    return isinstance(a, _Value) and len(getattr(a, "shape", ())) == 1


_NUMPY: dict[str, Callable[..., Any]] = {}  # filled below: np.array, np.asarray


_NEW_ARRAYS = frozenset({"zeros", "ones", "empty", "full", "eye", "identity"})


def _new_array(original: Callable[..., Any], tape: _Tape) -> Callable[..., Any]:
    """``np.zeros``, ``np.ones``, ``np.empty``, ``np.full``, ``np.eye`` or ``np.identity``
    inside a trace: a float array
    is a fresh one of ``tape`` (:func:`_fresh`: its numbers, until a value that depends on
    the inputs is written into it, ``K = np.zeros((n, n)); np.add.at(K, idx, ke)``); other
    dtypes are NumPy's arrays. ``np.empty`` holds zeros (NumPy's are arbitrary)."""

    def make(*args: Any, **kwargs: Any) -> Any:
        if original is np.full and len(args) > 1 and _is_traced(args[1]):
            return _broadcast_to(args[1], args[0])
        array = (np.zeros if original is np.empty else original)(*args, **kwargs)
        if array.dtype.kind != "f" or kwargs.get("like") is not None:
            return array
        return _fresh(tape, array)

    make.__name__, make.__doc__ = original.__name__, original.__doc__
    return make


def _made_fresh(call: Callable[..., Any], tape: _Tape | None) -> Callable[..., Any]:
    """``call`` (a NumPy function) whose new float array of constants is a fresh one of
    ``tape`` (:func:`_fresh`): ``M = np.array([[2.0, 1.0], [1.0, 3.0]]); M[0, 0] = x[0]``,
    ``np.diag(d)``, ``np.arange(3.0)``, ``np.linspace`` are written into as ``np.zeros``'s
    arrays are. A view of an argument (``np.asarray(a)`` of an array, ``np.diag`` of a
    matrix) stays NumPy's: writing into it would write into the argument."""
    if tape is None:
        return call

    def made(*args: Any, **kwargs: Any) -> Any:
        result = call(*args, **kwargs)
        if type(result) is not np.ndarray or result.dtype.kind != "f" or not result.ndim:
            return result
        if not result.flags.writeable or _shares_an_argument(result, (*args, *kwargs.values())):
            return result
        return _fresh(tape, result)

    made.__name__, made.__doc__ = getattr(call, "__name__", "call"), call.__doc__
    return made


def _shares_an_argument(result: np.ndarray, arguments: Sequence[Any]) -> bool:
    """Whether ``result`` may share memory with an array among ``arguments`` (or in a list
    or tuple of them)."""
    stack = list(arguments)
    while stack:
        a = stack.pop()
        if isinstance(a, (list, tuple)):
            stack.extend(a)
        elif isinstance(a, np.ndarray) and np.may_share_memory(result, a):
            return True
    return False


def _take_positions(call: Callable[..., Any]) -> Callable[..., Any]:
    """``np.take`` that reads a constant array at positions computed from the inputs
    (``np.take(knots, i)``: NumPy dispatches on the array only) as :func:`_take`."""

    def take(a: Any, indices: Any, axis: Any = None, *args: Any, **kwargs: Any) -> Any:
        if isinstance(indices, Passive) and not args and not kwargs:
            return _take(a, indices, axis)
        return call(a, indices, axis, *args, **kwargs)

    take.__name__, take.__doc__ = "take", np.take.__doc__
    return take


class _Proxy:
    """A module whose functions named in ``table`` take traced arrays too; NumPy's, with
    the tape of the trace, also makes fresh arrays (:func:`_new_array`)."""

    def __init__(self, module: Any, table: Mapping[str, Any], tape: _Tape | None = None) -> None:
        self._module, self._table, self._tape = module, table, tape

    def __getattr__(self, name: str) -> Any:
        original = getattr(self._module, name)
        if self._table is _NUMPY:
            if name in _NEW_ARRAYS and self._tape is not None:
                return _new_array(original, self._tape)
            if name in _AS_ARRAY:
                return _made_fresh(_array_of(original), self._tape)
            if name == "vectorize":
                return lambda *a, **k: _Vectorized(np.vectorize(*a, **k))
            if name in ("r_", "c_"):  # np.r_[0.0, x]: index tricks that call np.array
                return numpy_index_tricks.concatenator(name, _is_traced)
            if name == "polynomial":  # np.polynomial.polynomial.polyval(x, c), .chebyshev
                series = {
                    kind: _Proxy(getattr(original, kind), table)
                    for kind, table in _POLYNOMIAL_MODULES.items()
                }
                return _Proxy(original, series)
            if isinstance(original, np.ufunc):
                return _Ufunc(original)
            if name == "take":  # positions from the inputs are no dispatched argument
                return _take_positions(_made_fresh(_lists_gathered(original), self._tape))
            if callable(original) and not isinstance(original, (np.ufunc, type)):
                call = original if name in _SEQUENCES else _lists_gathered(original)
                return _made_fresh(call, self._tape)
            return _NUMPY_FLOATS.get(name, original)
        traced = self._table.get(name)
        if traced is None or isinstance(traced, (_Proxy, scipy_stats.Distribution)):
            return original if traced is None else traced  # a submodule's proxy: itself
        if scipy_rotation.is_rotation(original):  # refusing traced arguments itself
            return traced
        return _taking_arrays(original, traced)


# NumPy as the user's code sees it while traced, without a tape (it makes no fresh arrays):
# what a spline's traced call reads with (:mod:`.scipy_splines`)
_TRACED_NUMPY = _Proxy(np, _NUMPY)


class _Dotting(np.ndarray):
    """A view of a NumPy array that ``f`` reaches (a closure's or its module's) whose
    ``dot`` of a traced array is ``np.dot``'s: ``ndarray.dot`` converts its argument
    without NumPy's dispatch, so ``X.dot(w)`` would be refused. Slices and transposes stay
    such views (``X[:, 1:].dot(w)``, ``X.T.dot(r)``); arithmetic gives plain arrays."""

    tape: _Tape | None = None  # the trace's: a copy is a fresh array of it

    def __array_finalize__(self, obj: Any) -> None:
        self.tape = getattr(obj, "tape", None)

    def dot(self, b: Any, out: Any = None) -> Any:
        if isinstance(b, _Value) and out is None:
            return np.dot(self.view(np.ndarray), b)
        return np.ndarray.dot(self.view(np.ndarray), b, out)

    def __getitem__(self, key: Any) -> Any:
        """NumPy's indexing; at positions computed from the inputs (``knots[i]``, ``i``
        from ``np.searchsorted``), a passive value (:func:`_take_computed`)."""
        if any(isinstance(k, Passive) for k in (key if isinstance(key, tuple) else (key,))):
            return _constant_at(self.view(np.ndarray), key)
        return np.ndarray.__getitem__(self, key)

    def __array_wrap__(self, array: Any, context: Any = None, return_scalar: bool = False):
        array = array.view(np.ndarray)
        return array[()] if return_scalar else self._new(array)

    def _new(self, array: np.ndarray) -> Any:
        """A new array of ``array``'s numbers (a copy, arithmetic): a fresh one of the
        trace where it is of floats, written into as ``np.zeros``'s (``A = A0.copy();
        A[0, 0] = x[0]``, the module's template matrix filled in)."""
        if self.tape is None or array.dtype.kind != "f" or not array.ndim:
            return array
        return _fresh(self.tape, array)

    def copy(self, order: str = "C") -> Any:
        return self._new(np.ndarray.copy(self.view(np.ndarray), order))

    def __copy__(self) -> Any:
        return self.copy()

    def __deepcopy__(self, memo: Any) -> Any:
        return self.copy()

    def astype(self, dtype: Any, order: str = "K", casting: str = "unsafe", subok: bool = True,
               copy: bool = True) -> Any:  # fmt: skip
        plain = self.view(np.ndarray)
        array = plain.astype(dtype, order=order, casting=casting, copy=copy)
        return array if array is plain or np.shares_memory(array, plain) else self._new(array)


#: array operations a function ``np.vectorize`` lifts may record: elementwise ones
_PER_ENTRY = frozenset({*ELEMENTWISE, *NONDIFFERENTIABLE, "integer_pow", "select_n",
                        "broadcast_in_dim"})  # fmt: skip


class _Vectorized:
    """``np.vectorize(pyfunc)`` while ``f`` runs: called with traced arrays, ``pyfunc`` of
    the arrays broadcast together, once, where it records elementwise operations only
    (then the same numbers as one call per entry, as NumPy makes); otherwise NumPy's."""

    def __init__(self, vectorized: np.vectorize) -> None:
        self._vectorized = vectorized

    def __getattr__(self, name: str) -> Any:
        return getattr(self._vectorized, name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        v = self._vectorized
        if not any(isinstance(a, _Value) for a in (*args, *kwargs.values())):
            return v(*args, **kwargs)
        name = getattr(v.pyfunc, "__name__", "pyfunc")
        if v.signature is not None or v.excluded:
            raise _unsupported(f"numpy.vectorize({name}, signature= or excluded=)")
        tape = _tape_of([*args, *kwargs.values()])
        shape = _broadcast_shape([_shape_of(a) for a in (*args, *kwargs.values())],
                                 "numpy.vectorize")  # fmt: skip
        start = len(tape.entries)
        out = v.pyfunc(*(_broadcast_to(a, shape) if _is_traced(a) else a for a in args),
                       **{k: _broadcast_to(a, shape) if _is_traced(a) else a
                          for k, a in kwargs.items()})  # fmt: skip
        other = [op.primitive for _, op, _ in tape.entries[start:]
                 if op is not None and op.primitive not in _PER_ENTRY]  # fmt: skip
        if other or isinstance(out, (tuple, list)):
            why = f"it calls {other[0]}" if other else "it returns several values"
            raise InputError(
                f"numpy.vectorize({name}) of an array that depends on the inputs: {name} is"
                f" read once on the whole array, which needs elementwise operations ({why})"
            )
        return _broadcast_to(out, shape) if _shape_of(out) != shape else out


def _dotting(value: Any, tape: _Tape | None) -> Any:
    """``value`` as a :class:`_Dotting` view (of ``tape``) where it is a numeric NumPy
    array, as a :class:`_Vectorized` where it is an ``np.vectorize``, else None."""
    if type(value) is np.ndarray and value.dtype.kind in "biuf" and value.ndim:
        view = value.view(_Dotting)
        view.tape = tape
        return view
    if type(value) is np.vectorize:
        return _Vectorized(value)
    return None


@contextlib.contextmanager
def _constants_dotting(
    f: Callable[..., Any], namespaces: Sequence[dict[str, Any]], tape: _Tape | None
) -> Iterator[None]:
    """While ``f`` runs, the NumPy arrays of its closure, of ``namespaces`` (its module's
    and those of the user's functions it calls: a helper's ``K_TEMPLATE.copy()``) and of
    its instance (a bound method's ``self.K``) are :class:`_Dotting` views of themselves,
    its ``np.vectorize`` objects :class:`_Vectorized`."""
    cells = [(c, v) for c in getattr(f, "__closure__", None) or ()
             if (v := _dotting(_cell(c), tape)) is not None]  # fmt: skip
    held = [*namespaces, _instance_dict(f)]
    replaced = [
        {k: v for k, value in namespace.items() if (v := _dotting(value, tape)) is not None}
        for namespace in held
    ]
    saved_cells = [(c, c.cell_contents) for c, _ in cells]
    saved = [{k: namespace[k] for k in new} for namespace, new in zip(held, replaced, strict=True)]
    for c, v in cells:
        c.cell_contents = v
    try:
        for namespace, new in zip(held, replaced, strict=True):
            namespace.update(new)
        yield
    finally:
        for c, value in saved_cells:
            c.cell_contents = value
        for namespace, old in zip(held, saved, strict=True):
            namespace.update(old)


@contextlib.contextmanager
def _partials_dotting(f: Callable[..., Any], tape: _Tape | None) -> Iterator[None]:
    """While ``f`` runs, the NumPy arrays a ``functools.partial`` (and the partials it
    wraps) holds as arguments are :class:`_Dotting` views, as a module's are: ``K =
    K0.copy()`` of ``partial(energy, K0=K0)`` may be written into."""
    saved: list[tuple[functools.partial, tuple]] = []
    try:
        for _ in range(REACHED_PARTIALS):
            if not isinstance(f, functools.partial):
                break
            state = f.__reduce__()[2]
            args = tuple(v if (d := _dotting(v, tape)) is None else d for v in f.args)
            keywords = {k: v if (d := _dotting(v, tape)) is None else d
                        for k, v in f.keywords.items()}  # fmt: skip
            pairs = [*zip(args, f.args, strict=True)]
            pairs += [(keywords[k], v) for k, v in f.keywords.items()]
            if any(new is not old for new, old in pairs):
                saved.append((f, state))
                f.__setstate__((state[0], args, keywords, state[3]))
            f = f.func
        yield
    finally:
        for partial, state in reversed(saved):
            partial.__setstate__(state)


def _instance_dict(f: Callable[..., Any]) -> dict[str, Any]:
    """The attributes of a bound method's instance (an empty dict for anything else: a
    function, a module's, a class's)."""
    owner = getattr(f, "__self__", None)
    if owner is None or inspect.ismodule(owner) or isinstance(owner, type):
        return {}
    found = getattr(owner, "__dict__", None)
    return found if type(found) is dict else {}


def _cell(cell: Any) -> Any:
    try:
        return cell.cell_contents
    except ValueError:  # a cell not yet filled
        return None


@contextlib.contextmanager
def libraries_traced(f: Callable[..., Any], tape: _Tape | None = None) -> Iterator[None]:
    """While ``f`` runs, :mod:`math` and sympy in ``f``'s module (the modules, and
    functions imported from them) and the builtins ``max`` and ``min`` where the
    module does not define its own take traced arrays: each elementwise function is the
    NumPy operation of the same meaning (``math.exp(x[0])`` is ``np.exp(x[0])``); with
    ``tape``, NumPy's ``zeros``, ``ones``, ``empty`` and ``full`` (as ``np.zeros`` or
    imported) make its fresh arrays, which may be written into. So too in the modules of
    the functions ``f`` calls (:func:`called_namespaces`: a helper imported from another
    file, a ``sympy.lambdify``-ed function whose namespace is NumPy's own names)."""
    given, f = f, _python_function(f)
    namespaces = called_namespaces(f)
    saved: list[dict[str, Any]] = []
    added: list[list[str]] = []
    try:
        for namespace in namespaces:
            saved.append({})
            added.append([])
            _patch_namespace(namespace, tape, saved[-1], added[-1])
        scipy_sparse.import_named(f)  # ``import scipy.sparse`` in f's body
        with (
            _constants_dotting(f, namespaces, tape),
            scipy_sparse.traced_products(_is_traced),
            _held_patched(f, tape),
            _imports_traced(namespaces, tape),
            _partials_dotting(given, tape),
        ):
            yield
    finally:
        for namespace, kept, names in zip(namespaces, saved, added, strict=False):
            namespace.update(kept)
            for name in names:
                namespace.pop(name, None)


@contextlib.contextmanager
def _imports_traced(namespaces: Sequence[dict[str, Any]], tape: _Tape | None) -> Iterator[None]:
    """An ``import`` in the body of a function of ``namespaces`` (``import numpy as np``,
    ``from scipy.special import logsumexp``, ``import math``) binds what a module-level
    import of the user's file binds while the trace runs (:func:`_replacement`): NumPy's
    arrays made there are fresh, math's and SciPy's functions take traced arrays. Other
    code's imports (a library's, run meanwhile) are Python's own: ``__import__`` is given
    the importing code's globals, and only the user's are among ``namespaces``."""
    if not namespaces:
        yield
        return
    ours = {id(namespace) for namespace in namespaces}
    original = builtins.__import__

    def traced_import(name, globals=None, locals=None, fromlist=(), level=0):
        module = original(name, globals, locals, fromlist, level)
        if globals is None or id(globals) not in ours or level:
            return module
        found = _replacement(name.partition(".")[0] if not fromlist else name, module, tape)
        return module if found is None else found

    builtins.__import__ = traced_import
    try:
        yield
    finally:
        builtins.__import__ = original


def _python_function(f: Callable[..., Any]) -> Callable[..., Any]:
    """The Python function or bound method a callable runs: a ``functools.partial``'s
    function, a callable instance's ``__call__`` (bound: its attributes are the
    instance's), else ``f``; the modules it reads are then patched as a plain function's."""
    for _ in range(REACHED_PARTIALS):
        if isinstance(f, functools.partial):
            f = f.func
        elif inspect.isfunction(f) or inspect.ismethod(f):
            return f
        elif inspect.isfunction(inspect.getattr_static(type(f), "__call__", None)):
            return f.__call__
        else:
            return f
    return f


REACHED_PARTIALS = 16  # partials of partials looked through


def called_namespaces(f: Callable[..., Any]) -> list[dict[str, Any]]:
    """The global namespaces of ``f``, of the Python functions it may call and of the
    user's modules it holds (``helpers.bump(x)``), each once
    (:func:`~dgraph.frontends.reached.reached`). The modules of installed libraries
    (:func:`~dgraph.frontends.reached.is_library`) are left out:
    only the user's code is read with traced arrays. ``f``'s own namespace comes first
    (none: an empty list)."""
    first = getattr(f, "__globals__", None)
    if first is None:
        return []
    found, seen = [first], {id(first)}
    for _, _, values, _ in reached(f, is_library):
        for v in values:
            if not (inspect.ismodule(v) or inspect.isfunction(v)) or is_library(v):
                continue
            namespace = vars(v) if inspect.ismodule(v) else v.__globals__
            if id(namespace) not in seen:
                seen.add(id(namespace))
                found.append(namespace)
    return found


def _patch_namespace(
    namespace: dict[str, Any], tape: _Tape | None, saved: dict[str, Any], added: list[str]
) -> None:
    """:func:`libraries_traced`'s replacements in one namespace, the originals kept in
    ``saved`` and the names it adds in ``added``."""
    for key, value in list(namespace.items()):
        found = _replacement(key, value, tape)
        if found is not None:
            saved[key], namespace[key] = value, found
    for name, traced in _BUILTINS.items():
        if name not in namespace:
            namespace[name] = _taking_arrays(getattr(builtins, name), traced)
            added.append(name)
    if "float" not in namespace:
        namespace["float"] = _Float
        added.append("float")


def _replacement(key: str, value: Any, tape: _Tape | None) -> Any:
    """What a module or library function named ``key`` is while a function runs (a proxy
    whose functions take traced arrays), None where it stays."""
    mirrored = _autograd_mirror(value)
    if mirrored is not None:
        return _replacement(key, mirrored, tape) or mirrored
    module = getattr(value, "__name__", "") if inspect.ismodule(value) else ""
    if module in _MODULE_TABLES:
        return _Proxy(value, _MODULE_TABLES[module]())
    if module == "numpy":
        return _Proxy(value, _NUMPY, tape)
    if module == "scipy.spatial":
        return _spatial_proxy(value)
    if module == "scipy.spatial.transform" or scipy_rotation.is_rotation(value):
        return _rotation_proxy(value)
    if module == "scipy":  # scipy.special.logsumexp(...) after import scipy.special
        return _scipy_proxy(value)
    if module == "scipy.stats":
        return _stats_proxy(value)
    if type(value).__module__.startswith("scipy.stats"):  # from scipy.stats import norm
        return scipy_stats.wrap(value, _is_traced)
    method = _stats_method(value)  # pdf = norm.pdf, or norm.pdf passed to a function
    if method is not None:
        return method
    spline = scipy_splines.traced_spline(value, _is_traced, _TRACED_NUMPY)
    if spline is not None:
        return spline
    if module == "scipy.sparse" and "scipy.sparse.linalg" in sys.modules:
        return _sparse_proxy(value)
    name = getattr(value, "__name__", None)
    if callable(value) and isinstance(name, str) and getattr(np, name, None) is value:
        return _Proxy(np, _NUMPY, tape).__getattr__(name)  # from numpy import array: np.array
    if callable(value) and not inspect.ismodule(value):
        table = _library_of(value)
        name = getattr(value, "__name__", key)
        if table is not None and name in table:
            return _taking_arrays(value, table[name])
    return None


#: autograd's modules of its own code, not NumPy's or SciPy's functions wrapped
_AUTOGRAD_OWN = frozenset({"autograd.scipy.signal", "autograd.scipy.misc"})


def _autograd_mirror(value: Any) -> Any:
    """The NumPy or SciPy module (or scipy.stats distribution) that an autograd module
    wraps (``autograd.numpy``, ``autograd.scipy.special``, ``autograd.scipy.stats.norm``),
    or the function that an autograd primitive wraps (``from autograd.scipy.special import
    logsumexp``), None for any other value. autograd's functions are NumPy's and SciPy's
    called as they are where no argument is autograd's own box (Maclaurin, Duvenaud & Adams
    2015), so a traced array reads them as NumPy's and SciPy's."""
    if inspect.isfunction(value) and getattr(value, "_is_autograd_primitive", False):
        raw = getattr(value, "fun", None)
        return _stats_method(raw) or raw  # scipy.stats.norm.logpdf: a bound method
    if not inspect.ismodule(value):
        return None
    name = value.__name__
    if not name.startswith(("autograd.numpy", "autograd.scipy")) or name in _AUTOGRAD_OWN:
        return None
    mirrored = name.removeprefix("autograd.")
    if mirrored in sys.modules:
        return sys.modules[mirrored]
    parent, _, last = mirrored.rpartition(".")
    if parent == "scipy.stats" and parent in sys.modules:  # autograd.scipy.stats.norm
        return getattr(sys.modules[parent], last, None)
    return None


def _stats_method(value: Any) -> Any:
    """A scipy.stats distribution's bound method (``norm.logpdf``) taking traced arrays,
    None for any other value."""
    owner = getattr(value, "__self__", None) if inspect.ismethod(value) else None
    if owner is None or not type(owner).__module__.startswith("scipy.stats"):
        return None
    wrapped = scipy_stats.wrap(owner, _is_traced)
    return None if wrapped is None else getattr(wrapped, value.__name__)


def _scipy_proxy(value: Any) -> _Proxy:
    """``scipy`` whose submodules take traced arrays, each read when the code names it."""
    return _Proxy(value, _ScipySubmodules(value))


class _ScipySubmodules(Mapping[str, Any]):
    """``scipy``'s submodules as :class:`_Proxy` reads them: looked up when named, after
    ``getattr(scipy, name)`` (SciPy's lazy loader) imported the submodule, so that
    ``import scipy`` then ``scipy.signal.convolve(...)`` takes traced arrays on the first
    trace too (it ran SciPy's own function, which refuses them, until a second)."""

    def __init__(self, scipy: Any) -> None:
        self._scipy = scipy

    def __getitem__(self, name: str) -> Any:
        value = self._scipy
        if name == "special":
            return _Proxy(value.special, _SCIPY_SPECIAL)
        table = _SCIPY_MODULES.get(f"scipy.{name}")
        if table is not None and f"scipy.{name}" in sys.modules:  # scipy.linalg.solve(...)
            return _Proxy(sys.modules[f"scipy.{name}"], table)
        if name == "spatial" and "scipy.spatial.distance" in sys.modules:
            return _spatial_proxy(value.spatial)
        if name == "sparse":
            importlib.import_module("scipy.sparse.linalg")  # scipy.sparse.linalg.spsolve
            return _sparse_proxy(value.sparse)
        if name == "stats" and "scipy.stats" in sys.modules:
            return _stats_proxy(value.stats)
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


@contextlib.contextmanager
def _held_patched(f: Callable[..., Any], tape: _Tape | None) -> Iterator[None]:
    """While ``f`` runs, the modules and library functions that the user's functions it
    reaches hold in closure cells and default arguments (``def f(x, xp=np)``, array-API
    style) replaced as in their modules (:func:`_replacement`)."""
    cells: list[tuple[Any, Any]] = []
    defaults: list[tuple[Any, str, Any]] = []
    try:
        for g, _, _, _ in reached(f, is_library):
            g = getattr(g, "__func__", g)  # a bound method's function
            if not inspect.isfunction(g) or is_library(g):
                continue
            for c in g.__closure__ or ():
                found = _replacement("", _cell(c), tape)
                if found is not None:
                    cells.append((c, c.cell_contents))
                    c.cell_contents = found
            _patch_defaults(g, tape, defaults)
        yield
    finally:
        for c, value in cells:
            c.cell_contents = value
        for g, attribute, value in defaults:
            setattr(g, attribute, value)


def _patch_defaults(g: Any, tape: _Tape | None, saved: list[tuple[Any, str, Any]]) -> None:
    """``g``'s default arguments replaced (:func:`_held_patched`), the originals in ``saved``."""
    if g.__defaults__:
        new = tuple(_replacement("", v, tape) for v in g.__defaults__)
        if any(v is not None for v in new):
            saved.append((g, "__defaults__", g.__defaults__))
            g.__defaults__ = tuple(
                v if n is None else n for v, n in zip(g.__defaults__, new, strict=True)
            )
    if g.__kwdefaults__:
        new_kw = {k: _replacement(k, v, tape) for k, v in g.__kwdefaults__.items()}
        if any(v is not None for v in new_kw.values()):
            saved.append((g, "__kwdefaults__", g.__kwdefaults__))
            g.__kwdefaults__ = {
                k: v if new_kw[k] is None else new_kw[k] for k, v in g.__kwdefaults__.items()
            }


def _polygamma(n: Any, x: Any) -> Any:
    """``scipy.special.polygamma(n, x)`` of a constant order (an integer, or an array of
    them broadcast against ``x``): ``digamma`` for order 0, else the ``polygamma``
    operation JAX's reader makes (its derivative the next order's)."""
    if _is_traced(n):
        raise InputError(
            "scipy.special.polygamma of an order that depends on the inputs has no derivative"
        )
    order = _constant(n)
    if not np.all(order == np.floor(order)) or np.any(order < 0):
        raise InputError("scipy.special.polygamma: the order must be a non-negative integer")
    if not _is_traced(x):
        import scipy.special  # the caller's: it called scipy.special

        return scipy.special.polygamma(order, _constant(x))
    if order.shape == () and order == 0:
        return _elementwise("digamma", (x,))
    return _elementwise("polygamma", (order.astype(float), x))


#: scipy.special's Python functions the tracer reads (its ufuncs arrive by dispatch)
_SCIPY_SPECIAL = {
    **scipy_special.FUNCTIONS,
    **{
        name: functools.partial(function, lambda op, *args: _elementwise(op, args))
        for name, function in scipy_special.OPERATIONS.items()
    },
    "polygamma": _polygamma,
}


def scan(
    step: Callable[..., tuple[list[Any], list[Any]]],
    consts: Sequence[Any],
    init: Sequence[Any],
    xs: Sequence[Any],
    where: str,
) -> tuple[list[Any], list[Any]]:
    """``jax.lax.scan``'s twin for the tracer: ``step(*consts, *carries, *x_t)`` returns
    ``(carries, ys_t)``; the final carries and the stacked ``ys`` are the outputs of one
    loop region (:class:`~dgraph.core.regions.Region`) whose body is ``step`` traced once
    (:func:`_build`), as the JAX reader reads a ``scan`` (:mod:`.jaxpr_loops`): the graph
    does not grow with the steps. A constant in ``consts`` is closed over; the carries
    and the slices of ``xs`` (along their first axis) are the body's inputs."""
    values = [*consts, *init, *xs]
    tape = _tape_of(values)
    if tape is None or any(isinstance(v, Passive) for v in values):
        raise InputError(f"{where}: a loop over values no derivative flows through")
    length = _shape_of(xs[0])[0]
    live = [k for k, c in enumerate(consts) if _live(c)]
    shapes = [_shape_of(consts[k]) for k in live]
    shapes += [_shape_of(c) for c in init] + [_shape_of(x)[1:] for x in xs]
    names = [f"k{k}" for k in live]
    names += [f"c{i}" for i in range(len(init))] + [f"x{i}" for i in range(len(xs))]
    body_tape = _Tape()
    args = [body_tape.new(None, s) for s in shapes]
    body_tape.arguments = list(args)
    given = [c if _live(c) else _constant(c) for c in consts]
    for k, arg in zip(live, args, strict=False):
        given[k] = arg
    _tracing().append(body_tape)
    try:
        carries, ys = step(*given, *args[len(live) :])
    finally:
        _tracing().pop()
    out_shapes = [_shape_of(c) for c in carries]
    if out_shapes != [_shape_of(c) for c in init]:
        raise InputError(f"{where}: a step changes its carries' shapes")
    results = [*carries, *ys]
    outputs = [(f"out{o}", r) for o, r in enumerate(results)]
    graph = _build(body_tape, args, names, outputs, {}, where)
    out_shapes += [_shape_of(y) for y in ys]
    body = Body(graph, names, shapes, [True] * len(names), [o for o, _ in outputs], out_shapes)
    operands = [consts[k] for k in live] + list(init) + list(xs)
    region = Region(
        kind="scan",
        body=body,
        n_consts=len(live),
        n_carry=len(init),
        operand_shapes=[_shape_of(v) for v in operands],
        out_shapes=[*out_shapes[: len(init)], *((length, *s) for s in out_shapes[len(init) :])],
        active=[_live(v) for v in operands],
        length=length,
        name=where,
    )
    ops = tuple(_operand(v, _shape_of(v), tape) for v in operands)
    found = [
        tape.new(ArrayOp("loop", ops, (("region", region), ("output", j)), shape), shape)
        for j, shape in enumerate(region.out_shapes)
    ]
    return found[: len(init)], found[len(init) :]


#: scipy's modules whose functions in :mod:`.scipy_modules` take traced arrays
_SCIPY_MODULES = {
    "scipy.linalg": {
        **scipy_modules.LINALG,
        "sqrtm": lambda A, *args, **kwargs: _root_or_log("sqrtm", A, args, kwargs),
        "logm": lambda A, *args, **kwargs: _root_or_log("logm", A, args, kwargs),
    },
    "scipy.integrate": scipy_modules.INTEGRATE,
    "scipy.signal": {**scipy_modules.SIGNAL, **scipy_iir.functions(scan)},
    "scipy.ndimage": scipy_modules.NDIMAGE,
    "scipy.spatial.distance": scipy_modules.DISTANCE,
    "scipy.fft": scipy_modules.FFT,
    "scipy.interpolate": {**scipy_modules.INTERPOLATE, **scipy_grid.functions(_TRACED_NUMPY)},
}


#: ``numpy.polynomial``'s modules whose functions take traced arrays, by module name
_POLYNOMIAL_MODULES: dict[str, Mapping[str, Any]] = {
    "polynomial": numpy_composites.POLYNOMIAL,
    **{name.removeprefix("numpy.polynomial."): t for name, t in numpy_series.SERIES.items()},
}

#: the modules whose proxies take a table (made when needed: the tables refer to one another)
_MODULE_TABLES: dict[str, Callable[[], Mapping[str, Any]]] = {
    "math": lambda: _MATH,
    "sympy": lambda: _SYMPY,
    "scipy.special": lambda: _SCIPY_SPECIAL,
    **{
        f"numpy.polynomial.{kind}": (lambda table=table: table)
        for kind, table in _POLYNOMIAL_MODULES.items()
    },
    "scipy.sparse.linalg": lambda: scipy_sparse.LINALG,
    **{name: (lambda table=table: table) for name, table in _SCIPY_MODULES.items()},
}


def _spatial_proxy(module: Any) -> _Proxy:
    """``scipy.spatial`` whose ``distance`` takes traced arrays (and whose ``transform``'s
    ``Rotation`` refuses them in one line naming it)."""
    table: dict[str, Any] = {}
    if "scipy.spatial.transform" in sys.modules:
        table["transform"] = _rotation_proxy(module.transform)
    if "scipy.spatial.distance" in sys.modules:
        table["distance"] = _Proxy(module.distance, scipy_modules.DISTANCE)
    return _Proxy(module, table)


def _rotation_proxy(value: Any) -> Any:
    """``scipy.spatial.transform`` (its ``Rotation`` replaced), or ``Rotation`` itself or a
    rotation, refusing traced arguments in one line naming it (:mod:`.scipy_rotation`)."""
    if not inspect.ismodule(value):
        return scipy_rotation.traced_rotation(value, _is_traced)
    return _Proxy(value, {"Rotation": scipy_rotation.traced_rotation(value.Rotation, _is_traced)})


def _stats_proxy(module: Any) -> _Proxy:
    """scipy.stats with the distributions :mod:`.scipy_stats` reads and the statistics
    :mod:`.scipy_stats_functions` reads taking traced arrays, its other functions refusing
    them in one line."""
    found = {  # every family (vars: no lazy submodule imported); those not read refuse
        name: scipy_stats.wrap(value, _is_traced)
        for name, value in vars(module).items()
        if not name.startswith("_") and isinstance(value, module.rv_continuous | module.rv_discrete)
    }
    found.update(
        {name: scipy_stats.wrap(getattr(module, name), _is_traced) for name in scipy_stats.NAMES}
    )
    distributions = {name: d for name, d in found.items() if d is not None}
    return _Proxy(module, _StatsFunctions({**scipy_stats_functions.FUNCTIONS, **distributions}))


class _StatsFunctions(dict):
    """scipy.stats' functions of traced arrays: :data:`.scipy_stats_functions.FUNCTIONS`,
    and for any other function's name its refusal."""

    def __missing__(self, name: str) -> Callable[..., Any]:
        return scipy_stats_functions.refusal(name)

    def get(self, name: str, default: Any = None) -> Any:
        if name in self:  # this class's __contains__ and __missing__, not dict's
            return self[name]
        return default

    def __contains__(self, name: object) -> bool:
        return dict.__contains__(self, name) or _stats_function(name)


def _stats_function(name: object) -> bool:
    """Whether scipy.stats has a public function ``name`` (not a distribution)."""
    stats = sys.modules.get("scipy.stats")
    value = getattr(stats, name, None) if isinstance(name, str) and stats else None
    return inspect.isfunction(value) and not name.startswith("_")


_STATS_FUNCTIONS = _StatsFunctions(scipy_stats_functions.FUNCTIONS)


def _library_of(value: Any) -> Mapping[str, Callable[..., Any]] | None:
    """The table for a function imported from math, sympy, scipy.special,
    numpy.polynomial.polynomial or scipy.sparse.linalg, None for any other."""
    module = getattr(value, "__module__", None) or ""
    if module == "math" or (
        isinstance(value, types.BuiltinFunctionType)
        and getattr(math, getattr(value, "__name__", ""), None) is value
    ):
        return _MATH
    if module.startswith("sympy."):
        return _SYMPY
    if module.startswith("scipy.special"):
        return _SCIPY_SPECIAL
    if module.startswith("scipy.stats._") and not inspect.ismethod(value):
        return _STATS_FUNCTIONS  # from scipy.stats import entropy
    for name, table in _SCIPY_MODULES.items():  # scipy.linalg._basic's solve, ...
        if module == name or module.startswith(f"{name}._"):
            return table
    if module.startswith("numpy.polynomial."):
        return _POLYNOMIAL_MODULES.get(module.removeprefix("numpy.polynomial."))
    if module.startswith("scipy.sparse.linalg"):
        return scipy_sparse.LINALG
    return None


def _sparse_proxy(module: Any) -> _Proxy:
    """``scipy.sparse`` whose ``linalg.spsolve`` takes a traced right-hand side."""
    return _Proxy(module, {"linalg": _Proxy(module.linalg, scipy_sparse.LINALG)})


# -- the graph -----------------------------------------------------------------------------


def trace_arrays(
    f: Callable[..., Any],
    shapes: Sequence[Shape],
    names: Sequence[str],
    label: str,
    output_names: Callable[[int, set[str]], list[str]],
    params: Sequence[str] = (),
    data: Sequence[str] = (),
) -> DGraph:
    """The tensor graph of ``f`` called with one traced array per parameter (``names``,
    of ``shapes``; ``()`` a scalar): a vertex per operation whose derivative reaches an
    output from an input, intermediates named after ``f``'s local variables where one
    holds them (else ``t1, t2, ...``), outputs ``output_names(count, taken)`` or a dict's
    keys. ``params``: names that are not differentiated, the graph's array parameters
    (the operations that read only them folded into those that read them); ``data``:
    names traced as inputs whose integer casts are positions as a parameter's are."""
    tape = _Tape()
    args = [tape.new(None, tuple(s)) for s in shapes]
    tape.arguments = list(args)
    fixed = set(params) | set(data)
    tape.fixed = {a.name for a, n in zip(args, names, strict=True) if n in fixed}
    tape.parameter_names = {a.name: n for a, n in zip(args, names, strict=True) if n in fixed}
    _tracing().append(tape)  # a constant table read at index data finds it
    try:
        result, local = _call(f, args, label)
    finally:
        _tracing().pop()
    outputs = _outputs(result, label, output_names, set(names))
    return _build(tape, args, list(names), outputs, local, label, set(params))


def _call(f: Callable[..., Any], args: list[Any], label: str) -> tuple[Any, dict[str, Any]]:
    """``f(*args)`` and its local variables as it returned (see
    :func:`~dgraph.frontends.frames.call_keeping_locals`), :mod:`math`'s and sympy's
    elementwise functions taking traced arrays (:func:`libraries_traced`)."""
    try:
        with libraries_traced(f, args[0].tape if args else None):
            return call_keeping_locals(f, args)
    except Exception as exc:
        if _in_autograd_differentiation(exc):
            raise InputError(f"{label}: {_AUTOGRAD_INSIDE}") from None
        raise _reworded(exc, label) from None


#: the refusal of autograd's own differentiation inside a traced function
_AUTOGRAD_INSIDE = (
    "autograd's own differentiation inside the function (grad, elementwise_grad, make_vjp,"
    " flatten's unflatten) does not take traced arrays: differentiate the function with"
    " dgraph, or write the derivative it needs with NumPy"
)

#: autograd's functions that differentiate (its tracer and reverse pass)
_AUTOGRAD_DIFFERENTIATES = frozenset({"trace", "new_box", "backward_pass", "make_vjp"})


def _in_autograd_differentiation(exc: BaseException) -> bool:
    """Whether ``exc`` was raised while autograd traced or ran a reverse pass."""
    return any(
        frame.f_globals.get("__name__", "").startswith("autograd.")
        and frame.f_code.co_name in _AUTOGRAD_DIFFERENTIATES
        for frame, _ in traceback.walk_tb(exc.__traceback__)
    )


def _reworded(exc: Exception, label: str) -> InputError | GraphError:
    """:func:`_call`'s failure ``exc`` as one line naming ``label``: dgraph's own error
    with the label before it, any other an :class:`InputError`."""
    if isinstance(exc, (InputError, GraphError)):
        text = str(exc)
        return type(exc)(text if text.startswith(f"{label}: ") else f"{label}: {text}")
    if isinstance(exc, RecursionError):
        return InputError(f"{label}: calling it with traced arrays recursed too deep")
    if isinstance(exc, ValueError) and "setting an array element" in str(exc):
        # NumPy's, writing a traced value into one of its arrays
        return InputError(f"{label}: {_INTO_NUMPY.format(what='assignment x[...] = ...')}")
    if isinstance(exc, TypeError) and "valid JAX type" in str(exc):  # JAX given traced arrays
        return CallsJax(
            f"{label}: it calls JAX, which the NumPy tracer cannot call: JAX code is read"
            " from its jaxpr (dgraph.from_jax(f, *example_args); dgraph.jacobian,"
            " make_function and hessian pick that reader themselves)"
        )
    why = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
    return InputError(f"{label}: calling it with traced arrays failed: {why}")


def _outputs(
    result: Any, label: str, output_names: Callable[[int, set[str]], list[str]], taken: set[str]
) -> list[tuple[str, Any]]:
    if isinstance(result, Mapping):
        items = [(str(k), v) for k, v in result.items()]
    else:
        values = list(result) if isinstance(result, (list, tuple)) else [result]
        items = list(zip(output_names(len(values), taken), values, strict=True))
    items = [(k, np.array(v) if _held(v) else v) for k, v in items]
    if not items:
        raise InputError(f"{label}: returned no outputs")
    for key, value in items:
        if isinstance(value, MaskedSelection):
            raise DataDependentIndex(f"{label}: output {key!r} is x[mask]: {_MASKED}")
        if array_complex.is_complex(value):
            raise InputError(
                f"{label}: output {key!r} is complex: the derivatives are of real outputs"
                " (return np.real(z) and np.imag(z) instead)"
            )
        if value is None or not (
            _is_traced(value) or isinstance(value, (numbers.Real, np.ndarray))
        ):
            raise InputError(
                f"{label}: returned {type(value).__name__} as output {key!r}, not an array"
            )
    return items


def _renamed(op: ArrayOp, names: Mapping[str, Any]) -> ArrayOp:
    """``op`` with every vertex operand (nested ones too) replaced as ``names`` says: by
    a name, or by a nested operation (a vertex folded into a passive predicate). An
    explicit stack, bottom-up."""
    return with_leaves(op, lambda x: names.get(x, x) if isinstance(x, str) else x)


def _build(
    tape: _Tape,
    args: list[TracedArray],
    names: list[str],
    outputs: list[tuple[str, Any]],
    local: Mapping[str, Any],
    label: str,
    params: set[str] | None = None,
) -> DGraph:
    params = params or set()
    # outputs are maximal: one used by another operation, an input, or returned twice is
    # copied; a constant or passive output computes from no vertex (a zero block row)
    operand_of = {u for _, op, _ in tape.entries if op is not None for u in op.vertices()}
    inputs = {a.name for a in args}
    returned: list[tuple[str, str]] = []
    seen: set[str] = set()
    for out_name, value in outputs:
        if isinstance(value, TracedArray) and not (
            value.name in operand_of or value.name in inputs or value.name in seen
        ):
            returned.append((out_name, value.name))
            seen.add(value.name)
            continue
        if isinstance(value, TracedArray):
            source: Any = value.name
        elif isinstance(value, Passive):
            source = value.op
        else:
            source = Const.of(_constant(value))
        shape = source.shape if isinstance(source, Const) else _shape_of(value)
        copy = ArrayOp("copy", (source,), (), shape)
        returned.append((out_name, tape.new(copy, shape).name))
    entries = {name: (op, shape) for name, op, shape in tape.entries}
    order = {name: k for k, (name, _, _) in enumerate(tape.entries)}

    # vertices a derivative flows from into an output: the graph's; others that an output
    # still reads (through a predicate) are folded into it as nested operations
    fixed = {a.name for a, n in zip(args, names, strict=True) if n in params}
    # what a derivative reaches from a differentiated input: through differentiable
    # operands only (``where(x > 0, 1.0, p)`` with ``p`` a parameter reads ``x`` in its
    # predicate alone: passive, folded into its reader, never a vertex no input reaches)
    varies = inputs - fixed
    for name, op, _ in tape.entries:
        if op is not None and any(op.operands[k] in varies for k in op.differentiable()):
            varies.add(name)
    active = {name for _, name in returned}
    for name, op, _ in reversed(tape.entries):
        if name in active and op is not None:
            active.update(u for k in op.differentiable() if (u := op.operands[k]) in varies)
    needed = {name for _, name in returned}
    for name, op, _ in reversed(tape.entries):
        if name in needed and op is not None:
            needed.update(op.vertices())
    folded: dict[str, Any] = {}
    for name, op, _ in tape.entries:
        if name in needed and name not in active and op is not None:
            folded[name] = _renamed(op, folded)

    final = dict(zip((a.name for a in args), names, strict=True))
    taken = set(names)
    output_set = {name for _, name in returned}
    for out_name, name in returned:
        base = out_name
        if base in taken:
            base = f"{out_name}_out"
            k = 1
            while base in taken:
                base, k = f"{out_name}_out{k}", k + 1
        final[name] = base
        taken.add(base)
    by_value: dict[str, str] = {}
    for variable, value in local.items():
        if isinstance(value, TracedArray) and value.tape is tape and value.name not in by_value:
            by_value[value.name] = variable
    counter = 0
    for name, op, _ in tape.entries:
        if op is None or name not in active or name in final:
            continue
        wanted = by_value.get(name)
        if wanted in RESERVED or (wanted and keyword.iskeyword(wanted)):
            wanted = None  # a local ``E`` or ``pi`` would read back as the constant
        if wanted is None or wanted in taken or not wanted.isidentifier():
            counter += 1
            while f"t{counter}" in taken:
                counter += 1
            wanted = f"t{counter}"
        final[name] = wanted
        taken.add(wanted)

    graph = DGraph(label if label != "<lambda>" else "")

    def renamed(op: ArrayOp) -> ArrayOp:
        return _renamed(_renamed(op, folded), final)

    for a, name in zip(args, names, strict=True):
        if name in params:
            graph.add_parameter(name, a.shape)
    for a, name in zip(args, names, strict=True):
        if name not in params:
            graph.add_array_vertex(name, "input", a.shape)
    for name, op, shape in sorted(
        ((n, *entries[n]) for n in active - inputs - output_set), key=lambda e: order[e[0]]
    ):
        graph.add_array_vertex(final[name], "intermediate", shape, renamed(op))
    for _, name in returned:
        op, shape = entries[name]
        graph.add_array_vertex(final[name], "output", shape, renamed(op))
    graph.traced_with = "numpy"
    return known_entries(guard_untaken_branches(graph._validate(expressions=False)))


_OWN = {"__init__", "__setitem__", "__array__", "__len__", "__bool__", "__float__",
        "__iter__", "__repr__", "__int__", "__index__", "__complex__", "__hash__"}  # fmt: skip
for _cls in (_Value, TracedArray):
    for _name, _member in list(vars(_cls).items()):
        if _name not in _OWN and inspect.isfunction(_member):
            setattr(_cls, _name, _unaliased(_member))
    if isinstance(vars(_cls).get("T"), property):
        _cls.T = property(_unaliased(vars(_cls)["T"].fget))
