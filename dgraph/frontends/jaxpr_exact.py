"""Equations on constants whose value NumPy gives bit for bit as XLA does.

The jaxpr reader folds the equations that read only constants by JAX itself
(:meth:`~.jaxpr_arrays._Reader.fold`, :meth:`~.jaxpr_arrays._Reader.prefold`): XLA
contracts a product and a sum into one fused multiply-add and divides by a constant as a
product with its reciprocal, so NumPy's arithmetic would round differently. Some
equations do no rounding at all: they move, repeat or number entries (``broadcast_in_dim``,
``reshape``, ``squeeze``, ``transpose``, ``rev``, ``slice``, ``concatenate``, ``iota``,
``copy``), convert where every value is representable (an integer to a wider integer or
to a float that holds it, a float to a wider float), or multiply by exactly one. For
those :func:`exact_fold` gives NumPy's value, the one XLA computes, without compiling a
program (some 0.04 to 0.1 CPU s each: the minimal surface's gradient compiled two such
programs, the Rosenbrock function's one). Anything else, and any operand that is not a
plain array (a PRNG key) or holds a subnormal float (which a processor flushing them to
zero would not keep), returns None: JAX folds it.

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

__all__ = ["exact_fold"]


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


def exact_fold(eqn: Any, ins: Sequence[np.ndarray]) -> list[np.ndarray] | None:
    """The value of ``eqn`` (on the constants ``ins``) as XLA computes it, by NumPy, for
    the equations of the module docstring; None for any other (JAX folds it)."""
    name = eqn.primitive.name
    if eqn.primitive.multiple_results or len(eqn.outvars) != 1:
        return None
    if name not in _UNARY and name not in ("concatenate", "iota", "mul"):
        return None
    aval = eqn.outvars[0].aval
    dtype, shape = np.dtype(aval.dtype), tuple(aval.shape)
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
        if name == "iota":
            value = _iota(eqn.params, dtype) if not args else None
        elif name == "concatenate":
            value = np.concatenate(args, axis=int(eqn.params["dimension"])) if args else None
        elif name == "mul":
            value = _times_one(args[0], args[1], shape) if len(args) == 2 else None
        else:
            value = _UNARY[name](eqn.params, args[0], dtype, shape) if len(args) == 1 else None
    except (KeyError, TypeError, ValueError, IndexError):
        return None
    if value is None or value.dtype != dtype or value.shape != shape:
        return None
    value = np.array(value)  # its own memory, read-only as JAX's arrays read as NumPy are
    value.flags.writeable = False
    return [value]
