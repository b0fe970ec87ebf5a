"""Array values evaluated with a running magnitude per entry: how large the numbers its
own computation went through were, so how large its rounding can be.

An entry computed as ``(a + b)² − a² − 2ab − b²`` is 0 up to the rounding of its
intermediates (≈ 2⁻⁵³ × their size), not of its final value: to tell its rounding from a
true value at a point, each entry carries a bound μ ≥ |value| propagated operation by
operation as a running error bound is (N. J. Higham, *Accuracy and Stability of
Numerical Algorithms*, 2nd ed., SIAM, 2002, §3.3): μ(a ± b) = μa + μb, μ(a·b) = μa·μb,
μ(a/b) = (μa + |a/b|·μb)/|b|; sums, products, gathers, scatters and reshapes of arrays
(``einsum``, ``sum``, ``take``, ...) apply to the bounds as to the values (nonnegative
numbers do not cancel); a function f(x) adds to |f(x)| the first-order effect of x's,
|f′(x)|·μx (taken as μx·(1 + |f(x)/x|) where f′ is not at hand). A number that is no
:class:`Bounded` is exact, its bound its magnitude. The values are the same operations
on the same arrays as :class:`~.evaluate.ArrayEvaluator`'s, so the same bits.

:class:`BoundEvaluator` evaluates a statement so; where a node is not taken (a NumPy
function not listed, a conversion to a plain array), :func:`run_bounded` evaluates the
statement plainly and bounds each entry by the largest bound and value it read or made.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from . import ir
from .evaluate import ArrayEvaluator

__all__ = [
    "BoundEvaluator",
    "Bounded",
    "bound_of",
    "filled",
    "plain",
    "run_bounded",
    "scattered",
    "scattered_add",
]


class Unbounded(TypeError):
    """An operation on :class:`Bounded` values that is not taken (evaluate plainly)."""


def plain(x: Any) -> Any:
    """A value without its bound."""
    return x.value if isinstance(x, Bounded) else x


def bound_of(x: Any) -> Any:
    """The bound of a value: its own, or, for an exact number, its magnitude."""
    if isinstance(x, Bounded):
        return x.bound
    if isinstance(x, (bool, np.bool_)) or (isinstance(x, np.ndarray) and x.dtype.kind == "b"):
        return np.abs(np.asarray(x, dtype=float))
    return np.abs(x)


def _floating(x: Any) -> bool:
    return isinstance(x, (float, np.floating)) or (
        isinstance(x, np.ndarray) and x.dtype.kind == "f"
    )


def _wrap(value: Any, bound: Any) -> Any:
    """``value`` with ``bound`` where it is a float (comparisons, integers: plain)."""
    return Bounded(value, bound) if _floating(value) else value


def _deep(x: Any, f) -> Any:
    if isinstance(x, (list, tuple)):
        return type(x)(_deep(i, f) for i in x)
    return f(x)


def _has_bounded(x: Any) -> bool:
    if isinstance(x, (list, tuple)):
        return any(_has_bounded(i) for i in x)
    return isinstance(x, Bounded)


def _bound_arg(x: Any) -> Any:
    """An argument as the bounds' call reads it: bounds for numbers that are floats."""
    return bound_of(x) if isinstance(x, Bounded) or _floating(x) else x


def _ratio(v: np.ndarray, x: Any) -> np.ndarray:
    """|v / x|, 0 where x is 0."""
    x = np.abs(plain(x))
    with np.errstate(all="ignore"):
        return np.where(x > 0, np.abs(v) / np.where(x > 0, x, 1.0), 0.0)


# ufuncs whose bound is the same ufunc of the operands' bounds (nonnegative: no cancelling)
_MULTILINEAR = {np.multiply, np.matmul, np.square}
_SUMS = {np.add, np.subtract}
_SAME = {np.negative, np.positive, np.absolute, np.fabs, np.conjugate}
_LARGER = {np.maximum, np.minimum, np.fmax, np.fmin}
_UNIT_SLOPE = {np.sin, np.cos, np.tanh, np.arctan, np.arcsinh}  # |f′| ≤ 1


def _ufunc_bound(ufunc: np.ufunc, v: Any, inputs: tuple) -> Any:
    """The bound of ``v = ufunc(*inputs)`` (the module docstring's rules)."""
    b = [bound_of(x) for x in inputs]
    if ufunc in _SUMS:
        return b[0] + b[1]
    if ufunc in _MULTILINEAR:
        return ufunc(*b)
    if ufunc in (np.true_divide, np.divide):  # as a product by 1/b: μa·(μb/|b|)/|b|
        with np.errstate(all="ignore"):
            return b[0] * b[1] / np.square(plain(inputs[1]))
    if ufunc in _SAME:
        return b[0]
    if ufunc in _LARGER:  # the operand taken
        return np.where(v == plain(inputs[0]), b[0], b[1])
    if ufunc is np.power and not isinstance(inputs[1], Bounded) and np.ndim(inputs[1]) == 0:
        k = float(plain(inputs[1]))
        if k.is_integer() and k >= 0:
            return b[0] ** k
        return np.abs(v) * (1.0 + abs(k) * np.maximum(_ratio(b[0], inputs[0]) - 1.0, 0.0))
    if ufunc is np.exp:
        return np.abs(v) * (1.0 + b[0])
    if ufunc is np.log:
        with np.errstate(all="ignore"):
            return np.abs(v) + b[0] / np.abs(plain(inputs[0]))
    if ufunc in _UNIT_SLOPE:
        return np.abs(v) + b[0]
    out = np.abs(v)
    for x, bx in zip(inputs, b, strict=True):
        if isinstance(x, Bounded):
            out = out + bx * (1.0 + _ratio(v, x))
    return out


# NumPy functions whose bound is the same call on the bounds (linear or multilinear in
# the float operands, or moving entries)
_SAME_CALL = {
    np.sum, np.einsum, np.dot, np.tensordot, np.inner, np.outer, np.kron, np.reshape,
    np.ravel, np.transpose, np.moveaxis, np.swapaxes, np.expand_dims, np.squeeze,
    np.broadcast_to, np.concatenate, np.stack, np.hstack, np.vstack, np.take,
    np.take_along_axis, np.repeat, np.tile, np.flip, np.fliplr, np.flipud, np.roll,
    np.rot90, np.diagonal, np.diag, np.trace, np.cumsum, np.atleast_1d, np.atleast_2d,
    np.copy, np.triu, np.tril, np.mean, np.prod, np.cumprod, np.bincount, np.where,
    np.select, np.zeros_like, np.ones_like, np.pad,
}  # fmt: skip
_LARGEST_CALL = {np.max, np.min, np.amax, np.amin}


class Bounded(np.lib.mixins.NDArrayOperatorsMixin):
    """A float array (or number) and a bound of the same shape on its entries'
    magnitudes and those of what they were computed from."""

    __slots__ = ("bound", "value")
    __array_priority__ = 100

    def __init__(self, value: Any, bound: Any) -> None:
        self.value, self.bound = value, bound

    @classmethod
    def exact(cls, value: Any) -> Bounded:
        """An exact number, its bound its magnitude."""
        return cls(value, np.abs(value))

    shape = property(lambda self: np.shape(self.value))
    ndim = property(lambda self: np.ndim(self.value))
    size = property(lambda self: np.size(self.value))
    dtype = property(lambda self: np.asarray(self.value).dtype)
    T = property(lambda self: Bounded(self.value.T, self.bound.T))

    def __len__(self) -> int:
        return len(self.value)

    def __array__(self, dtype=None, copy=None):
        raise Unbounded("a bounded value read as a plain array")

    def __getitem__(self, key: Any) -> Bounded:
        key = _deep(key, plain)
        return Bounded(self.value[key], np.broadcast_to(self.bound, np.shape(self.value))[key])

    def __setitem__(self, key: Any, item: Any) -> None:
        key = _deep(key, plain)
        self.value[key] = plain(item)
        self.bound[key] = bound_of(item)

    def astype(self, dtype: Any) -> Any:
        value = self.value.astype(dtype)
        return Bounded(value, self.bound) if _floating(value) else value

    def reshape(self, *shape: Any) -> Bounded:
        return Bounded(self.value.reshape(*shape), self.bound.reshape(*shape))

    def ravel(self) -> Bounded:
        return Bounded(np.ravel(self.value), np.ravel(self.bound))

    def copy(self) -> Bounded:
        return Bounded(np.copy(self.value), np.copy(self.bound))

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if kwargs.get("out") is not None or "where" in kwargs:
            raise Unbounded(f"{ufunc.__name__} with out= or where=")
        values = [plain(x) for x in inputs]
        if method == "__call__":
            v = ufunc(*values, **kwargs)
            if isinstance(v, tuple) or not _floating(v):
                return v
            return Bounded(v, _ufunc_bound(ufunc, v, inputs))
        if method in ("reduce", "accumulate") and ufunc in {np.add, np.multiply, *_LARGER}:
            v = getattr(ufunc, method)(*values, **kwargs)
            folded = np.maximum if ufunc in _LARGER else np.multiply if ufunc is np.multiply else np.add
            return _wrap(v, getattr(folded, method)(bound_of(inputs[0]), **kwargs))
        raise Unbounded(f"{ufunc.__name__}.{method}")

    def __array_function__(self, func, types, args, kwargs) -> Any:
        values = func(*_deep(args, plain), **{k: _deep(v, plain) for k, v in kwargs.items()})
        if not _floating(values):
            return values
        if func in _SAME_CALL:
            bound = func(*_deep(args, _bound_arg), **{k: _deep(v, _bound_arg) for k, v in kwargs.items()})
            return Bounded(values, bound)
        if func in _LARGEST_CALL:
            return Bounded(values, np.max(bound_of(args[0]), **kwargs))
        return Bounded(values, np.full(np.shape(values), _largest(values, [*args, *kwargs.values()])))


def _largest(value: Any, read: list) -> float:
    """The largest finite bound among ``read`` and magnitude of ``value`` (a bound for
    each entry of an operation not taken)."""
    found = [value, *(bound_of(x) for x in read if _has_bounded(x) or _floating(x))]
    top = 0.0
    for b in found:
        b = np.asarray(plain(b), dtype=float)
        if b.size:
            top = max(top, float(np.max(np.abs(b), where=np.isfinite(b), initial=0.0)))
    return top


def filled(size: int, one: Any) -> Any:
    """A vector of ``size`` copies of the number ``one``."""
    if isinstance(one, Bounded):
        return Bounded(np.full(size, one.value), np.full(size, one.bound))
    return np.full(size, one)


def scattered(size: int, at: Any, data: Any) -> Any:
    """A vector of ``size`` zeros with ``data`` at the positions ``at``."""
    out = np.zeros(size)
    out[at] = plain(data)
    if not isinstance(data, Bounded):
        return out
    bound = np.zeros(size)
    bound[at] = data.bound
    return Bounded(out, bound)


def scattered_add(base: Any, parts: list[tuple[Any, Any]]) -> Any:
    """A float copy of the vector ``base`` (a number: ``size`` copies, ``parts`` given
    as (positions, data)) with each part's data added at its positions, in order."""
    out = np.array(plain(base), dtype=float)
    bounded = isinstance(base, Bounded) or any(isinstance(d, Bounded) for _, d in parts)
    bound = np.array(bound_of(base), dtype=float) if bounded else None
    for at, data in parts:
        np.add.at(out, at, plain(data))
        if bound is not None:
            np.add.at(bound, at, bound_of(data))
    return Bounded(out, bound) if bounded else out


class BoundEvaluator(ArrayEvaluator):
    """:class:`~.evaluate.ArrayEvaluator` (NumPy) on :class:`Bounded` values: the nodes
    that write arrays (a scatter, a scatter-add, entries, a store) write the bounds
    beside the values; the rest reach the bounds through NumPy's dispatch."""

    def _eval_Call(self, node: ir.Call, values: list) -> Any:
        if node.func == "asarray" and values and isinstance(values[0], Bounded):
            return values[0].astype(float)
        return super()._eval_Call(node, values)

    def _eval_Scatter(self, node: ir.Scatter, values: list) -> Any:
        flat, data = values
        return scattered(node.size, flat, data)

    def _eval_ScatterAdd(self, node: ir.ScatterAdd, values: list) -> Any:
        base, rest = values[0], values[1:]
        return scattered_add(base, list(zip(rest[::2], rest[1::2], strict=True)))

    def _eval_Entries(self, node: ir.Entries, values: list) -> Any:
        if not any(isinstance(v, Bounded) for v in values):
            return super()._eval_Entries(node, values)
        value = np.reshape(np.array([plain(v) for v in values]), node.shape)
        bound = np.reshape(np.array([bound_of(v) for v in values]), node.shape)
        return Bounded(value, bound)


def run_bounded(
    ev: BoundEvaluator, plain_ev: ArrayEvaluator, s: ir.ArrayStatement, env: dict[str, Any]
) -> None:
    """Evaluate ``s`` into ``env`` with bounds (:class:`BoundEvaluator`); where an
    operation is not taken, plainly (``plain_ev``), each entry bounded by the largest
    bound and magnitude it read or made."""
    try:
        ev.run([s], env)
        return
    except Unbounded:
        pass
    except (TypeError, ValueError, AttributeError):  # a NumPy path that took no bounds
        pass
    read = [n for n in (ir.names_in(s.value) | {n for a in s.at for n in ir.names_in(a)})]
    if s.at:
        read.append(s.target)
    view = {n: plain(env[n]) for n in read if n in env}
    found = [env[n] for n in read if n in env]
    view = {**{n: v for n, v in env.items() if n not in view}, **view}
    if s.at and isinstance(env.get(s.target), Bounded):
        view[s.target] = np.copy(env[s.target].value)
    plain_ev.run([s], view)
    value = view[s.target]
    if _floating(value) or (isinstance(value, np.ndarray) and value.dtype.kind == "f"):
        env[s.target] = Bounded(value, np.full(np.shape(value), _largest(value, found)))
    else:
        env[s.target] = value


def unbounded(env: Mapping[str, Any]) -> dict[str, Any]:
    """``env`` without bounds."""
    return {n: plain(v) for n, v in env.items()}
