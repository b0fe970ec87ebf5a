"""Equations on constants whose value NumPy gives bit for bit as JAX does.

The jaxpr reader folds the equations that read only constants
(:meth:`~.jaxpr_arrays._Reader.fold`, :meth:`~.jaxpr_arrays._Reader.prefold`). JAX binds
each primitive on its own there, and each rounds once: NumPy's value is JAX's where the
operation is exact or correctly rounded (IEEE 754), and :func:`exact_fold` gives it
without compiling a program (lowering and compiling even a small one costs 0.04 to
0.1 CPU s). Taken:

- moves, repetitions and numberings (``broadcast_in_dim``, ``reshape``, ``squeeze``,
  ``transpose``, ``rev``, ``slice``, ``pad``, ``concatenate``, ``split``, ``iota``,
  ``copy``, ``empty2``: XLA's zeros) and ``select_n``;
- integer and boolean arithmetic, which wraps alike in two's complement: ``add``,
  ``sub``, ``mul``, ``neg``, ``abs``, ``sign``, ``max``, ``min``, ``clamp``, ``div`` and
  ``rem`` (toward zero, as C; not by zero, nor the lowest integer by -1, whose results
  are XLA's own), ``integer_pow``, the comparisons, ``and``/``or``/``xor``/``not``, and
  their sums, products, extremes and running sums (the order of a wrapping sum does not
  change it): a loop's counter, an index, a mask;
- float arithmetic each operation of which IEEE 754 rounds correctly: ``add``, ``sub``,
  ``mul``, ``div``, ``sqrt``, ``square``, ``rem``, ``floor``, ``ceil``, ``round``,
  ``nextafter``, the comparisons, ``integer_pow`` as JAX lowers it (the same squarings and
  products in the same order), exact extremes (``max``, ``min``, ``reduce_max``,
  ``argmax``, ``cummax``, ...), and conversions: exact ones, a float to a narrower one (to
  nearest), to an integer in range (toward zero), to a boolean.

Left to JAX: every transcendental function (``exp``, ``log``, ``sin``, ``tanh``, ``pow``
...: XLA's own approximations, which differ from NumPy's in the last bit at 15 % of
random doubles for ``exp``, 59 % for ``tanh``; JAX's ``log1p`` even differs between its
eager and jitted forms), float sums and products of arrays and ``dot_general`` (XLA sums
in its own order), a NaN or a ``-0.0`` where XLA orders them its own way (``max(-0.0,
0.0)``), any operand that is not a plain array (a PRNG key), an operand holding a
subnormal float and a computed result below twice the smallest normal (XLA on this
processor flushes subnormals to zero: ``1e-310 > 0`` is false in a jitted program).

Each value is the one JAX computes binding the equation alone (eagerly). A jitted
program of several may round otherwise: XLA contracts ``a * b + c`` into one fused
multiply-add and divides by a constant as a product with its reciprocal (a third of
random doubles ``a / 3`` differ by an ulp); NumPy's fold is the eager one, whatever
equations are folded together.

>>> import jax
>>> closed = jax.make_jaxpr(lambda: jax.numpy.ones(3, dtype="float32"))()
>>> eqn = closed.jaxpr.eqns[0]
>>> eqn.primitive.name, exact_fold(eqn, [np.float32(1.0)])
('broadcast_in_dim', [array([1., 1., 1.], dtype=float32)])
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from .jaxpr_numpy import ANY_DTYPE, INLINED_CALLS, numpy_pad

__all__ = ["exact_fold", "exact_program", "lax_round"]


def _subnormal(x: np.ndarray) -> bool:
    if x.dtype.kind != "f" or x.size == 0:
        return False
    size = np.abs(x)
    return bool(((size > 0) & (size < np.finfo(x.dtype).tiny)).any())


def _fits(x: np.ndarray, dtype: np.dtype) -> bool:
    """Whether every value of ``x`` (integers or booleans) is exactly a value of ``dtype``."""
    if x.size == 0:
        return True
    low, high = int(x.min()), int(x.max())
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.min <= low and high <= info.max
    if dtype.kind == "f":
        limit = 2 ** (np.finfo(dtype).nmant + 1)
        return -limit <= low and high <= limit
    return False


def _operand(x: np.ndarray, dtype: np.dtype) -> np.ndarray | None:
    """``x`` as ``dtype`` where that changes no value (a literal's Python int read as
    int64 for an int32 operand); None otherwise."""
    if x.dtype == dtype:
        return x
    if x.dtype.kind in "iub" and dtype.kind in "iu" and _fits(x, dtype):
        return x.astype(dtype)
    if x.dtype.kind == "f" and dtype.kind == "f" and x.ndim == 0:  # a float literal
        narrow = x.astype(dtype)
        return narrow if narrow == x and not _subnormal(narrow) else None
    return None


def _convert(params: Mapping, x: np.ndarray, dtype: np.dtype) -> np.ndarray | None:
    source = x.dtype
    if source == dtype:
        return x
    if source.kind == "b" and dtype.kind in "iuf":
        return x.astype(dtype)
    if source.kind in "iu" and dtype.kind in "iuf" and _fits(x, dtype):
        return x.astype(dtype)
    if source.kind == "f" and dtype.kind == "f" and dtype.itemsize >= source.itemsize:
        return None if _subnormal(x) else x.astype(dtype)
    return None


def _broadcast(params: Mapping, x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    shape = tuple(params["shape"])
    placed = [1] * len(shape)
    for k, d in enumerate(params["broadcast_dimensions"]):
        placed[d] = x.shape[k]
    return np.broadcast_to(x.reshape(placed), shape)


def _iota(params: Mapping, dtype: np.dtype) -> np.ndarray | None:
    shape, axis = tuple(params["shape"]), int(params["dimension"])
    count = np.arange(shape[axis])
    if not _fits(count, dtype):
        return None
    placed = [1] * len(shape)
    placed[axis] = shape[axis]
    return np.broadcast_to(count.astype(dtype).reshape(placed), shape)


def _times_one(a: np.ndarray, b: np.ndarray, shape: tuple[int, ...]) -> np.ndarray | None:
    """``a * b`` where one of them is all ones: the other, as it is."""
    for one, other in ((a, b), (b, a)):
        if one.dtype.kind in "iuf" and one.size and (one == 1).all() and not _subnormal(other):
            return np.broadcast_to(other, shape)
    return None


_UNARY: dict[str, Callable[[Mapping, np.ndarray, np.ndarray, tuple], np.ndarray | None]] = {
    "broadcast_in_dim": lambda p, x, d, s: _broadcast(p, x, d),
    "reshape": lambda p, x, d, s: x.reshape(s) if p.get("dimensions") is None else None,
    "squeeze": lambda p, x, d, s: x.reshape(s),
    "transpose": lambda p, x, d, s: np.transpose(x, tuple(p["permutation"])),
    "rev": lambda p, x, d, s: np.flip(x, axis=tuple(p["dimensions"])),
    "slice": lambda p, x, d, s: x[
        tuple(
            slice(b, e, t)
            for b, e, t in zip(
                p["start_indices"],
                p["limit_indices"],
                p.get("strides") or (1,) * x.ndim,
                strict=True,
            )
        )
    ],
    "convert_element_type": lambda p, x, d, s: _convert(p, x, d),
    "copy": lambda p, x, d, s: x,
    "copy_p": lambda p, x, d, s: x,
}


# -- arithmetic: each operation rounded on its own, as JAX binds it outside a jit -----------


def _signed_zero_or_nan(x: np.ndarray) -> bool:
    """Whether ``x`` (floats) holds a NaN or a ``-0.0``: where NumPy's ``max``/``min``/
    ``sign`` and XLA's part (``max(-0.0, 0.0)`` is ``0.0`` in XLA, ``-0.0`` in NumPy)."""
    if x.dtype.kind != "f" or x.size == 0:
        return False
    return bool(np.isnan(x).any() or ((x == 0) & np.signbit(x)).any())


def _int_div(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """``lax.div`` of integers: the quotient rounded toward zero (C's); None where XLA's
    answer is its own (a zero divisor, the most negative integer over -1)."""
    if (b == 0).any():
        return None
    if a.dtype.kind == "i" and ((a == np.iinfo(a.dtype).min) & (b == -1)).any():
        return None
    q = np.floor_divide(a, b)
    if a.dtype.kind == "i":
        q = q + ((np.remainder(a, b) != 0) & ((a < 0) != (b < 0))).astype(a.dtype)
    return q


def _int_rem(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """``lax.rem`` of integers: the sign of the dividend (C's ``%``, NumPy's ``fmod``)."""
    if (b == 0).any():
        return None
    if a.dtype.kind == "i" and ((a == np.iinfo(a.dtype).min) & (b == -1)).any():
        return None
    return np.fmod(a, b)


def _integer_pow(x: np.ndarray, y: int) -> np.ndarray | None:
    """``lax.integer_pow``: the products XLA computes, in its order (JAX lowers ``x**y``
    to squarings and products, and a reciprocal where ``y < 0``), so every rounding is
    the same one."""
    if y == 0:
        return np.ones_like(x)
    if y < 0 and x.dtype.kind != "f":
        return None
    n, acc = abs(y), None
    while n > 0:
        if n & 1:
            acc = x if acc is None else np.multiply(acc, x)
        n >>= 1
        if n > 0:
            x = np.multiply(x, x)
    return np.divide(np.ones_like(acc), acc) if y < 0 else acc


def lax_round(x: np.ndarray, method: Any) -> np.ndarray | None:
    """``lax.round``: to the nearest integer, halves away from zero (method 0) or to even
    (method 1), each exact (``|x| - floor(|x|)`` is)."""
    if int(method) == 1:
        return np.rint(x)
    if int(method) != 0:
        return None
    size = np.abs(x)
    whole = np.floor(size)
    return np.copysign(whole + (size - whole >= 0.5), x)


def _to_int(x: np.ndarray, dtype: np.dtype) -> np.ndarray | None:
    """A float converted to an integer toward zero where every value is in range (XLA
    saturates or leaves out of range and NaN its own)."""
    if not np.isfinite(x).all():
        return None
    whole = np.trunc(x)
    bits = 8 * dtype.itemsize
    low, high = (-(2.0 ** (bits - 1)), 2.0 ** (bits - 1)) if dtype.kind == "i" else (0.0, 2.0**bits)
    if not ((whole >= low) & (whole < high)).all():
        return None
    return whole.astype(dtype)


def _convert_any(params: Mapping, x: np.ndarray, dtype: np.dtype) -> np.ndarray | None:
    """``convert_element_type``: exact conversions (:func:`_convert`), and the ones both
    round alike: a float to a narrower float (to nearest, ties to even), an integer to a
    narrower one (its low bits), a float to an integer in range (toward zero), anything
    to a boolean (``x != 0``)."""
    exact = _convert(params, x, dtype)
    if exact is not None:
        return exact
    if dtype.kind == "b":
        return None if _signed_zero_or_nan(x) else x != 0
    if x.dtype.kind == "f" and dtype.kind == "f":
        narrow = x.astype(dtype)
        return None if np.isnan(x).any() or _unsettled(narrow) else narrow
    if x.dtype.kind in "iu" and dtype.kind in "iu":
        return x.astype(dtype)
    if x.dtype.kind == "f" and dtype.kind in "iu":
        return _to_int(x, dtype)
    return None


def _reduced(function: Callable[..., np.ndarray]) -> Callable[..., np.ndarray | None]:
    """A reduction over ``params["axes"]`` in the operand's dtype (integers wrap alike in
    any order)."""

    def reduce(p: Mapping, x: np.ndarray) -> np.ndarray | None:
        return function(x, axis=tuple(p["axes"]), dtype=x.dtype)

    return reduce


def _extreme(function: Callable[..., np.ndarray]) -> Callable[..., np.ndarray | None]:
    def reduce(p: Mapping, x: np.ndarray) -> np.ndarray | None:
        axes = tuple(p["axes"])
        if any(x.shape[a] == 0 for a in axes) or _signed_zero_or_nan(x):
            return None  # an empty max is XLA's -inf or lowest integer
        return function(x, axis=axes)

    return reduce


def _arg(function: Callable[..., np.ndarray]) -> Callable[..., np.ndarray | None]:
    """``argmax``/``argmin`` along one axis: the first of ties, in both."""

    def reduce(p: Mapping, x: np.ndarray) -> np.ndarray | None:
        (axis,) = p["axes"]
        if x.shape[axis] == 0 or _signed_zero_or_nan(x):
            return None
        return function(x, axis=axis).astype(p["index_dtype"])

    return reduce


def _cumulative(function: Callable[..., np.ndarray], floats: bool) -> Callable[..., Any]:
    """``cumsum``/``cumprod`` of integers (wrapping alike in any order), ``cummax``/
    ``cummin`` of any numbers."""

    def scan(p: Mapping, x: np.ndarray) -> np.ndarray | None:
        if (x.dtype.kind == "f" and not floats) or _signed_zero_or_nan(x):
            return None
        axis = int(p["axis"])
        if p.get("reverse"):
            return np.flip(function(np.flip(x, axis), axis=axis), axis)
        return function(x, axis=axis)

    return scan


def _with_dtype(ufunc: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    return lambda x, axis: ufunc.accumulate(x, axis=axis, dtype=x.dtype)


_ORDERED: dict[str, Callable[..., np.ndarray | None]] = {
    name: ANY_DTYPE[name] for name in ("max", "min", "sign", "clamp")
}
"""Exact, except on a NaN or a ``-0.0``, which XLA orders its own way (left to JAX)."""

_ELEMENTWISE: dict[str, Callable[..., np.ndarray | None]] = {
    name: f for name, f in ANY_DTYPE.items() if name not in _ORDERED
}
"""Operations exact or correctly rounded (IEEE 754) for every dtype, each on its own."""

_FLOAT_ONLY: dict[str, Callable[..., np.ndarray | None]] = {
    "div": np.divide,
    "sqrt": np.sqrt,
    "floor": np.floor,
    "ceil": np.ceil,
    "rem": np.fmod,
    "nextafter": np.nextafter,
    "is_finite": np.isfinite,
}
"""Correctly rounded or exact on floats (integers: :func:`_int_div`, :func:`_int_rem`)."""


_REDUCTIONS: dict[str, Callable[..., np.ndarray | None]] = {
    "reduce_max": _extreme(np.max),
    "reduce_min": _extreme(np.min),
    "argmax": _arg(np.argmax),
    "argmin": _arg(np.argmin),
    "cummax": _cumulative(np.maximum.accumulate, True),
    "cummin": _cumulative(np.minimum.accumulate, True),
}
_INTEGER_REDUCTIONS: dict[str, Callable[..., np.ndarray | None]] = {
    "reduce_sum": _reduced(np.sum),
    "reduce_prod": _reduced(np.prod),
    "reduce_and": lambda p, x: np.bitwise_and.reduce(x, axis=tuple(p["axes"])),
    "reduce_or": lambda p, x: np.bitwise_or.reduce(x, axis=tuple(p["axes"])),
    "reduce_xor": lambda p, x: np.bitwise_xor.reduce(x, axis=tuple(p["axes"])),
    "cumsum": _cumulative(_with_dtype(np.add), False),
    "cumprod": _cumulative(_with_dtype(np.multiply), False),
}
"""Integers and booleans only: a float sum's value depends on its order (XLA's is its own)."""


def _unsettled(x: np.ndarray) -> bool:
    """A computed float XLA might not give: a NaN (its payload), or a magnitude below
    twice the smallest normal (XLA flushes subnormal results to zero, and whether it
    calls one tiny before or after rounding is the processor's)."""
    if x.dtype.kind != "f" or x.size == 0:
        return False
    size = np.abs(x)
    return bool(np.isnan(x).any() or ((size > 0) & (size < 2 * np.finfo(x.dtype).tiny)).any())


def _arithmetic(name: str, params: Mapping, args: list[np.ndarray]) -> np.ndarray | None:
    """An equation that computes (module docstring), by NumPy; None where not taken."""
    floats = any(a.dtype.kind == "f" for a in args)
    if floats and any(np.isnan(a).any() for a in args if a.dtype.kind == "f"):
        return None
    if name in _ELEMENTWISE:
        return _ELEMENTWISE[name](*args)
    if name in _ORDERED:
        return None if any(_signed_zero_or_nan(a) for a in args) else _ORDERED[name](*args)
    if name == "select_n":
        return _select(args)
    if name == "integer_pow" and len(args) == 1:
        return _integer_pow(args[0], int(params["y"]))
    if name == "round" and floats:
        return lax_round(args[0], params.get("rounding_method", 0))
    if name in _FLOAT_ONLY and floats:
        return _FLOAT_ONLY[name](*args)
    if name == "div" and not floats:
        return _int_div(*args)
    if name == "rem" and not floats:
        return _int_rem(*args)
    if name in _REDUCTIONS and len(args) == 1:
        return _REDUCTIONS[name](params, args[0])
    if name in _INTEGER_REDUCTIONS and len(args) == 1 and not floats:
        return _INTEGER_REDUCTIONS[name](params, args[0])
    return None


def _select(args: list[np.ndarray]) -> np.ndarray | None:
    """``select_n``: case ``k`` where the predicate is ``k`` (``False``/``True``: 0/1)."""
    which, cases = args[0], args[1:]
    if which.dtype.kind not in "biu" or not cases:
        return None
    index = which.astype(np.int64)
    if ((index < 0) | (index >= len(cases))).any():
        return None
    return np.choose(index, np.broadcast_arrays(*cases))


_MOVES = frozenset(_UNARY) | {"concatenate", "iota", "pad", "split", "empty2"}


def exact_fold(eqn: Any, ins: Sequence[np.ndarray]) -> list[np.ndarray] | None:
    """The value of ``eqn`` (on the constants ``ins``) as JAX computes it, by NumPy, for
    the equations of the module docstring; None for any other (JAX folds it)."""
    name = eqn.primitive.name
    if name not in _MOVES and not _arithmetic_name(name):
        return None
    if (eqn.primitive.multiple_results or len(eqn.outvars) != 1) and name != "split":
        return None
    args = []
    for var, x in zip(eqn.invars, ins, strict=True):
        x = np.asarray(x) if isinstance(x, np.ndarray | np.generic | int | float | bool) else None
        if x is None or x.dtype.hasobject or _subnormal(x):
            return None
        x = _operand(x, np.dtype(var.aval.dtype))
        if x is None or x.shape != tuple(var.aval.shape):
            return None
        args.append(x)
    try:
        with np.errstate(all="ignore"):  # integers wrap, floats overflow, as in XLA
            values = _values(eqn, name, args)
    except (KeyError, TypeError, ValueError, IndexError, OverflowError):
        return None
    if values is None or len(values) != len(eqn.outvars):
        return None
    found = []
    for value, var in zip(values, eqn.outvars, strict=True):
        if value is None:
            return None
        value = np.asarray(value)
        aval = var.aval
        if value.dtype != np.dtype(aval.dtype) or value.shape != tuple(aval.shape):
            return None
        if name not in _MOVES and _unsettled(value):
            return None
        value = np.array(value)  # its own memory, read-only as JAX's arrays read as NumPy are
        value.flags.writeable = False
        found.append(value)
    return found


def _arithmetic_name(name: str) -> bool:
    return (
        name in _ELEMENTWISE
        or name in _ORDERED
        or name in _FLOAT_ONLY
        or name in _REDUCTIONS
        or name in _INTEGER_REDUCTIONS
        or name in ("select_n", "integer_pow", "round")
    )


def _values(eqn: Any, name: str, args: list[np.ndarray]) -> list[np.ndarray] | None:
    """The results of ``eqn`` on ``args`` (already its operands' dtypes and shapes)."""
    params = eqn.params
    aval = eqn.outvars[0].aval
    dtype, shape = np.dtype(aval.dtype), tuple(aval.shape)
    if name == "split" and len(args) == 1:
        at = np.cumsum(params["sizes"])[:-1]
        return list(np.split(args[0], at, axis=int(params["axis"])))
    if name == "iota":
        return [_iota(params, dtype) if not args else None]
    if name == "empty2":  # a scan's buffer for its stacked results: XLA's zeros
        return [np.zeros(shape, dtype) if not args else None]
    if name == "concatenate":
        return [np.concatenate(args, axis=int(params["dimension"])) if args else None]
    if name == "pad" and len(args) == 2:
        return [numpy_pad(args[0], args[1], params)]
    if name == "convert_element_type" and len(args) == 1:
        return [_convert_any(params, args[0], dtype)]
    if name in _UNARY:
        return [_UNARY[name](params, args[0], dtype, shape) if len(args) == 1 else None]
    return [_arithmetic(name, params, args)]


def exact_program(
    jaxpr: Any, consts: Sequence[Any], args: Sequence[Any]
) -> list[np.ndarray] | None:
    """``jaxpr``'s outputs at the constants ``args``, every equation by :func:`exact_fold`
    (calls inlined: :data:`~.jaxpr_numpy.INLINED_CALLS`); None where one is not taken
    there (then JAX evaluates the whole)."""
    from jax.extend.core import Literal

    env: dict[Any, Any] = dict(zip(jaxpr.constvars, consts, strict=True))
    env.update(zip(jaxpr.invars, args, strict=True))

    def read(v: Any) -> Any:
        return v.val if isinstance(v, Literal) else env[v]

    for eqn in jaxpr.eqns:
        ins = [read(v) for v in eqn.invars]
        if eqn.primitive.name in INLINED_CALLS:
            inner = eqn.params.get("jaxpr") or eqn.params.get("call_jaxpr")
            closed = getattr(inner, "jaxpr", inner)
            outs = exact_program(closed, getattr(inner, "consts", ()), ins)
        else:
            outs = exact_fold(eqn, [np.asarray(x) if _plain(x) else x for x in ins])
        if outs is None:
            return None
        env.update(zip(eqn.outvars, outs, strict=True))
    return [read(v) for v in jaxpr.outvars]


def _plain(x: Any) -> bool:
    """A number, a NumPy array, or a JAX array of a NumPy dtype (not a PRNG key)."""
    return isinstance(getattr(x, "dtype", None), np.dtype) or isinstance(x, int | float | bool)
