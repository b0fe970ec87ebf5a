"""Array values evaluated with a running error bound per entry: how large the rounding
its own computation can have left is, from the sizes of the numbers it went through.

An entry computed as ``(a + b)² − a² − 2ab − b²`` is 0 up to the rounding of its
intermediates (≈ 2⁻⁵³ × their size), not of its final value: to tell its rounding from a
true value at a point, each entry carries a bound e, in units of the unit roundoff, on
its rounding error, propagated operation by operation to first order as a running error
bound is (N. J. Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., SIAM,
2002, §3.3): each operation adds its own rounding, |v|, to its operands' errors carried
through: e(a ± b) = |v| + ea + eb, e(a·b) = |v| + |b|·ea + |a|·eb, e(a/b) = |v| +
(ea + |v|·eb)/|b|, e(f(x)) = |v| + |f′(x)|·ex (f′ from a table, else a difference
quotient); a sum or product of arrays (``einsum``, ``sum``, ``bincount``) the same call
on the errors, operand by operand, plus the call on the magnitudes; a gather, a scatter,
a reshape moves the errors with the values. A number that is no :class:`Bounded` is
exact (e = 0). The values are the same operations on the same arrays as
:class:`~.evaluate.ArrayEvaluator`'s, so the same bits.

:class:`BoundEvaluator` evaluates a statement so; where a node is not taken (a NumPy
function not listed, a conversion to a plain array), :func:`run_bounded` evaluates the
statement plainly and bounds each entry by the largest value and error it read or made.

:class:`Scalar` is the cheaper tier: one bound for all of an array's entries, a number
not below any entry's bound by the rules above (each rule's terms, nonnegative and
nondecreasing in the operands' errors, bounded by their largest: e(a·b) ≤ max|v| +
max|b|·ea + max|a|·eb; a sum of products its rounding, the call on the magnitudes, plus
Σ_k e_k·Π_{j≠k} max|x_j| × the most products an entry sums; a scatter-add the most times
a position is given × its parts' error and magnitude). It costs a reduction where the
per-entry bound costs an array: an entry whose value is far above its statement's scalar
bound is far above its own, and only the rest need the per-entry bound
(:mod:`.tensor.cancel`). A store updates the scalar bounds of the arrays that share its
memory (a per-entry bound shares it with the view).

One bound is loose where a product's error is carried by a multiplier whose magnitudes
spread widely (max|x|·e far above most entries' |x_i|·e), and what reads the product
sums many of its entries on (a scatter-add, a cumulative sum): such a product of
:class:`Scalar` operands gets each entry's bound instead (:func:`_spread_product`, from
its operands' one bound each, at least its per-entry bound), and what reads it follows
per entry, in the same pass: the point is evaluated once, with per-entry bounds only
from the loose statements on. So does a quotient whose divisor's magnitudes spread
(:func:`_spread_quotient`: one bound divides by the smallest |b|; the minimal surface's
1/sqrt(1 + |∇u|²) on 316² unknowns put the one bound of its Hessian's values 10¹⁰
above most entries' own, and left 216,216 of 398,161 entries undecided).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import ir
from .evaluate import ArrayEvaluator

__all__ = [
    "BoundEvaluator",
    "Bounded",
    "Scalar",
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
    """The error bound of a value: its own, or 0 for an exact number."""
    return x.bound if isinstance(x, Bounded) else 0.0


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


def _error_arg(x: Any) -> Any:
    """An argument as the errors' call reads it: the error of a float (0: exact)."""
    if isinstance(x, Bounded):
        return x.bound
    return np.zeros_like(x) if _floating(x) else x


def _magnitude_arg(x: Any) -> Any:
    """An argument as the magnitudes' call reads it: |value| of a float."""
    x = plain(x)
    return np.abs(x) if _floating(x) else x


def _gathered(base: Any, key: Any) -> bool:
    """Whether ``base[key]`` reads a vector at an integer array (``numpy.take``)."""
    return (
        isinstance(base, np.ndarray)
        and base.ndim == 1
        and isinstance(key, np.ndarray)
        and key.ndim > 0
        and key.dtype.kind in "iu"
    )


def _ratio(v: Any, x: Any) -> np.ndarray:
    """|v / x|, 0 where x is 0."""
    x = np.abs(plain(x))
    with np.errstate(all="ignore"):
        return np.where(x > 0, np.abs(v) / np.where(x > 0, x, 1.0), 0.0)


def _top(x: Any) -> float:
    """max |x| over the entries (0 for none; NaN where one is NaN); a :class:`Scalar`'s
    found once."""
    if isinstance(x, Scalar):
        if x.top is None:
            x.top = _top(x.value)
        return x.top
    x = plain(x)
    if isinstance(x, np.ndarray):
        if x.size == 0:
            return 0.0
        return float(max(x.max(), -x.min()))
    return float(abs(x))


def _low(x: Any) -> float:
    """min |x| over the entries (inf for none; NaN where one is NaN)."""
    x = np.abs(plain(x))
    return float(np.min(x)) if np.size(x) else math.inf


def _worst(*bounds: float) -> float:
    """The largest of scalar bounds, NaN where one is (no number: every entry asked)."""
    out = 0.0
    for b in bounds:
        if b != b:
            return math.nan
        out = max(out, b)
    return out


def _over(a: float, b: float) -> float:
    """a / b for a ≥ 0, b ≥ 0, as NumPy divides (a/0: inf, 0/0: NaN)."""
    if b:
        return a / b
    return math.inf if a > 0 else math.nan


def _scalar_bounds(xs: Any) -> bool:
    """Whether every :class:`Bounded` among ``xs`` (in lists too) is a :class:`Scalar`."""
    if isinstance(xs, (list, tuple)):
        return all(_scalar_bounds(i) for i in xs)
    return not isinstance(xs, Bounded) or isinstance(xs, Scalar)


def _entrywise(x: Any) -> Any:
    """A :class:`Scalar` as a :class:`Bounded` of its bound at every entry."""
    if isinstance(x, Scalar):
        return Bounded(x.value, np.full(np.shape(x.value), x.bound))
    return x


_SAME = {np.negative, np.positive, np.absolute, np.fabs, np.conjugate}  # exact
_LARGER = {np.maximum, np.minimum, np.fmax, np.fmin}
# |f′(x)| from x and v = f(x)
_SLOPES = {
    np.exp: lambda x, v: np.abs(v),
    np.expm1: lambda x, v: np.abs(v + 1.0),
    np.log: lambda x, v: 1.0 / np.abs(x),
    np.log1p: lambda x, v: 1.0 / np.abs(1.0 + x),
    np.sqrt: lambda x, v: 0.5 / np.abs(v),
    np.sin: lambda x, v: np.abs(np.cos(x)),
    np.cos: lambda x, v: np.abs(np.sin(x)),
    np.tanh: lambda x, v: 1.0 - v * v,
    np.arctan: lambda x, v: 1.0 / (1.0 + x * x),
    np.reciprocal: lambda x, v: v * v,
}


def _slope(ufunc: np.ufunc, inputs: list, k: int, v: Any) -> Any:
    """|∂v/∂input k| at the point: by :data:`_SLOPES`, else a difference quotient."""
    x = [plain(i) for i in inputs]
    if len(x) == 1 and ufunc in _SLOPES:
        return _SLOPES[ufunc](x[0], v)
    step = np.abs(x[k]) * 2.0**-20 + (x[k] == 0) * 2.0**-20
    moved = list(x)
    moved[k] = x[k] + step
    return np.abs(ufunc(*moved) - v) / step


def _scaled(x: Any, e: Any) -> Any:
    """|x|·e, in place of |x| where it has e's shape (an exact factor ±1: e itself)."""
    if np.ndim(x) == 0:
        c = abs(float(x))
        return e if c == 1.0 else c * e
    t = np.abs(x)
    if t.dtype.kind == "f" and t.shape == np.shape(e):
        return np.multiply(t, e, out=t)
    return t * e


def _ufunc_bound(ufunc: np.ufunc, v: Any, inputs: tuple) -> Any:
    """The error bound of ``v = ufunc(*inputs)`` (the module docstring's rules), summed
    in place (the arrays are the program's: 10⁶ entries a statement)."""
    x = [plain(i) for i in inputs]
    bounded = [k for k, i in enumerate(inputs) if isinstance(i, Bounded)]
    e = {k: inputs[k].bound for k in bounded}
    if ufunc in _SAME:
        return e[0]
    if ufunc in _LARGER:  # the operand taken
        return np.where(v == x[0], e.get(0, 0.0), e.get(1, 0.0))
    out = np.abs(v)
    if not isinstance(out, np.ndarray):
        out = np.asarray(out)
    if ufunc in (np.add, np.subtract):
        terms = [e[k] for k in bounded]
    elif ufunc is np.multiply:
        terms = [_scaled(x[1 - k], e[k]) for k in bounded]
    elif ufunc in (np.true_divide, np.divide):
        carried = e.get(0, 0.0) + (out * e[1] if 1 in e else 0.0)
        terms = [carried / np.abs(x[1])]
    elif ufunc is np.matmul:
        magnitudes = np.abs(x[0]) @ np.abs(x[1])
        terms = [
            magnitudes,
            *(e[0] @ np.abs(x[1]) if k == 0 else np.abs(x[0]) @ e[1] for k in bounded),
        ]
    elif ufunc is np.square:
        terms = [2.0 * np.abs(x[0]) * e[0]]
    elif ufunc is np.power and 1 not in e and np.ndim(x[1]) == 0:
        terms = [abs(float(x[1])) * _ratio(v, x[0]) * e[0]]
    else:
        terms = [_slope(ufunc, inputs, k, v) * e[k] for k in bounded]
    for t in terms:
        if out.shape == np.shape(t) or np.ndim(t) == 0:
            out += t
        else:
            out = out + t
    return out


# an upper bound of max |f′(x)| from (x, max |v|): cheap, by the same table's formulas
_SLOPE_TOPS = {
    np.exp: lambda x, v, top: top,
    np.expm1: lambda x, v, top: top + 1.0,
    np.log: lambda x, v, top: _over(1.0, _low(x)),
    np.log1p: lambda x, v, top: _over(1.0, _low(1.0 + x)),
    np.sqrt: lambda x, v, top: _over(0.5, _low(v)),
    np.sin: lambda x, v, top: 1.0,
    np.cos: lambda x, v, top: 1.0,
    np.tanh: lambda x, v, top: 1.0,
    np.arctan: lambda x, v, top: 1.0,
    np.reciprocal: lambda x, v, top: top * top,
}


def _ufunc_scalar(ufunc: np.ufunc, out: Scalar, inputs: tuple) -> float:
    """A bound on every entry's error of ``v = ufunc(*inputs)``, the operands'
    :class:`Scalar` (the module docstring): :func:`_ufunc_bound`'s rule with each array
    replaced by its largest magnitude, or that rule's array and its largest entry
    (``out``: the value, its bound to be set)."""
    v = out.value
    x = [plain(i) for i in inputs]
    e = {k: float(i.bound) for k, i in enumerate(inputs) if isinstance(i, Bounded)}
    if ufunc in _SAME:
        return e[0]
    if ufunc in _LARGER:
        return _worst(*e.values())
    top = _top(out)
    if ufunc in (np.add, np.subtract):
        return top + sum(e.values())
    if ufunc is np.multiply:
        return top + sum(_top(inputs[1 - k]) * ek for k, ek in e.items())
    if ufunc is np.square:
        return top + 2.0 * _top(inputs[0]) * e[0]
    if ufunc in _SLOPE_TOPS:
        return top + _SLOPE_TOPS[ufunc](x[0], v, top) * e[0]
    if ufunc in (np.true_divide, np.divide):
        low = abs(float(x[1])) if np.ndim(x[1]) == 0 else _low(x[1])
        return top + _over(e.get(0, 0.0) + top * e.get(1, 0.0), low)
    return _top(_ufunc_bound(ufunc, v, tuple(_entrywise(i) for i in inputs)))


_SPREAD = 64.0  # a multiplier's largest magnitude over this × its mean: the product per entry
_SAMPLE = 4096  # a multiplier's mean magnitude from about this many of its entries


def _spread_product(inputs: tuple) -> bool:
    """Whether a product of :class:`Scalar` operands carries an error ``e_k > 0`` times
    a multiplier whose largest magnitude is over :data:`_SPREAD` × its mean (over about
    :data:`_SAMPLE` entries evenly taken; those all 0 beside a nonzero largest: spread):
    one bound, max|x|·e_k, is then that far above most entries' own |x_i|·e_k, and what
    reads the product (a sum of many of its entries: a cumulative sum, a scatter-add)
    would carry the gap on. Only the cost depends on it: either bound is at least each
    entry's own."""
    if len(inputs) != 2:
        return False
    for k in (0, 1):
        other = plain(inputs[1 - k])
        if not (bound_of(inputs[k]) > 0 and isinstance(other, np.ndarray) and other.size > 1):
            continue
        flat = other.reshape(-1)
        sample = np.abs(flat[:: max(1, flat.size // _SAMPLE)])
        if _top(inputs[1 - k]) > _SPREAD * float(np.mean(sample)):  # (all 0 taken: spread)
            return True
    return False


def _spread(ufunc: np.ufunc, inputs: tuple, v: Any) -> bool:
    """Whether ``v = ufunc(*inputs)`` of :class:`Scalar` operands gets each entry's
    bound instead of one (:func:`_spread_product`, :func:`_spread_quotient`)."""
    if ufunc is np.multiply:
        return _spread_product(inputs)
    if ufunc in (np.true_divide, np.divide):
        return _spread_quotient(inputs, v)
    return False


def _spread_quotient(inputs: tuple, v: Any) -> bool:
    """Whether a quotient ``v = a / b`` of :class:`Scalar` operands carries an error
    through a multiplier whose one bound is over :data:`_SPREAD` × its mean (about
    :data:`_SAMPLE` entries evenly taken): a's error through 1/|b| (one bound:
    1/min|b|), b's through |v|/|b| (one bound: max|v|/min|b|). Where the divisor's
    magnitudes spread (1/(1 + |∇u|²) over a grid), one bound is that far above most
    entries' own, and every product and sum after it carries the gap on; as for
    :func:`_spread_product`, only the cost depends on it."""
    if len(inputs) != 2:
        return False
    a_error, b_error = bound_of(inputs[0]) > 0, bound_of(inputs[1]) > 0
    b = plain(inputs[1])
    if not (a_error or b_error) or not (isinstance(b, np.ndarray) and b.size > 1):
        return False
    flat = b.reshape(-1)
    step = max(1, flat.size // _SAMPLE)
    divisor = np.abs(flat[::step])
    low = _low(b)
    with np.errstate(all="ignore"):
        if a_error and _over(1.0, low) > _SPREAD * float(np.mean(1.0 / divisor)):
            return True
        if b_error and np.shape(v) == np.shape(b):
            quotient = np.abs(np.reshape(v, -1)[::step]) / divisor
            return _over(_top(v), low) > _SPREAD * float(np.mean(quotient))
    return False


# NumPy functions that move entries (no arithmetic): the errors move with the values
_MOVES = {
    np.reshape, np.ravel, np.transpose, np.moveaxis, np.swapaxes, np.expand_dims,
    np.squeeze, np.broadcast_to, np.concatenate, np.stack, np.hstack, np.vstack, np.take,
    np.take_along_axis, np.repeat, np.tile, np.flip, np.fliplr, np.flipud, np.roll,
    np.rot90, np.diagonal, np.diag, np.atleast_1d, np.atleast_2d, np.copy, np.triu,
    np.tril, np.where, np.select, np.pad,
}  # fmt: skip
_FRESH = {np.zeros_like, np.ones_like, np.full_like}  # exact numbers
# sums of products of the float operands: each operand's errors through the call, plus
# the call on the magnitudes (the rounding of the products and the sums)
_MULTILINEAR = {
    np.sum, np.einsum, np.dot, np.tensordot, np.inner, np.outer, np.kron, np.cumsum,
    np.mean, np.trace, np.bincount,
}  # fmt: skip
_LARGEST_CALL = {np.max, np.min, np.amax, np.amin}


class Bounded(np.lib.mixins.NDArrayOperatorsMixin):
    """A float array (or number) and a bound of the same shape on its entries' rounding
    errors, in units of the unit roundoff (the module docstring)."""

    __slots__ = ("bound", "value")
    __array_priority__ = 100

    def __init__(self, value: Any, bound: Any) -> None:
        self.value, self.bound = value, bound

    @classmethod
    def exact(cls, value: Any) -> Bounded:
        """An exact number: no error."""
        return cls(value, np.zeros(np.shape(value)))

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
        value, bound = self.value, self.bound
        if np.shape(bound) != np.shape(value):
            bound = np.broadcast_to(bound, np.shape(value))
        if _gathered(value, key):  # as the evaluator reads it: the same entries, faster
            return Bounded(np.take(value, key), np.take(bound, key))
        return Bounded(value[key], bound[key])

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
        scalar = _scalar_bounds(inputs)
        if not scalar:  # a Scalar beside per-entry bounds: its bound at every entry
            inputs = tuple(_entrywise(x) for x in inputs)
        if method == "__call__":
            v = ufunc(*values, **kwargs)
            if isinstance(v, tuple) or not _floating(v):
                return v
            if kwargs:
                raise Unbounded(f"{ufunc.__name__} with keywords")
            if scalar and not _spread(ufunc, inputs, v):
                out = Scalar(v, 0.0)
                out.bound = _ufunc_scalar(ufunc, out, inputs)
                return out
            if scalar:  # one bound would be loose: each entry's, from the operands' one
                inputs = tuple(_entrywise(x) for x in inputs)
            return Bounded(v, _ufunc_bound(ufunc, v, inputs))
        if method in ("reduce", "accumulate") and ufunc in {np.add, *_LARGER}:
            v = getattr(ufunc, method)(*values, **kwargs)
            if scalar:
                return _reduced_scalar(ufunc, method, v, inputs[0], kwargs)
            if ufunc is np.add:
                run = getattr(np.add, method)
                e = run(bound_of(inputs[0]), **kwargs) + run(np.abs(values[0]), **kwargs)
            else:
                e = getattr(np.maximum, method)(bound_of(inputs[0]), **kwargs)
            return _wrap(v, e)
        raise Unbounded(f"{ufunc.__name__}.{method}")

    def __array_function__(self, func, types, args, kwargs) -> Any:
        def call(f) -> Any:
            return func(*_deep(args, f), **{k: _deep(v, f) for k, v in kwargs.items()})

        values = call(plain)
        if not _floating(values):
            return values
        if _scalar_bounds(args) and _scalar_bounds(tuple(kwargs.values())):
            return Scalar(values, _function_scalar(func, call, values, args, kwargs))
        args = _deep(args, _entrywise)
        kwargs = {k: _deep(v, _entrywise) for k, v in kwargs.items()}
        if func in _MOVES:
            return Bounded(values, call(_error_arg))
        if func in _FRESH:
            return Bounded(values, np.zeros(np.shape(values)))
        if func in _MULTILINEAR:
            return Bounded(values, _multilinear_error(call, args, kwargs))
        if func in _LARGEST_CALL:
            return Bounded(values, np.max(bound_of(args[0]), **kwargs))
        return Bounded(
            values, np.full(np.shape(values), _largest(values, [*args, *kwargs.values()]))
        )


class Scalar(Bounded):
    """A float array (or number) and one bound, a float, on every entry's rounding error
    (units of the unit roundoff): the cheaper tier (the module docstring)."""

    __slots__ = ("top",)  # max |value|, found where first asked

    def __init__(self, value: Any, bound: Any, top: float | None = None) -> None:
        super().__init__(value, bound)
        self.top = top

    @classmethod
    def exact(cls, value: Any) -> Scalar:
        """An exact number: no error."""
        return cls(value, 0.0)

    T = property(lambda self: Scalar(self.value.T, self.bound, self.top))

    def __getitem__(self, key: Any) -> Scalar:
        key = _deep(key, plain)
        if _gathered(self.value, key):
            return Scalar(np.take(self.value, key), self.bound)
        return Scalar(self.value[key], self.bound)

    def __setitem__(self, key: Any, item: Any) -> None:
        key = _deep(key, plain)
        self.value[key] = plain(item)
        self.bound = _worst(self.bound, _top(bound_of(item)))
        self.top = None

    def astype(self, dtype: Any) -> Any:
        value = self.value.astype(dtype)
        return Scalar(value, self.bound) if _floating(value) else value

    def reshape(self, *shape: Any) -> Scalar:
        return Scalar(self.value.reshape(*shape), self.bound, self.top)

    def ravel(self) -> Scalar:
        return Scalar(np.ravel(self.value), self.bound, self.top)

    def copy(self) -> Scalar:
        return Scalar(np.copy(self.value), self.bound, self.top)


def _reduced_scalar(ufunc: np.ufunc, method: str, v: Any, x: Scalar, kwargs: dict) -> Any:
    """``v``, a sum (or largest) of ``x``'s entries along an axis, with its
    :class:`Scalar`: as many times x's bound as entries summed, plus the largest sum of
    the magnitudes (an entry's: the sum of its terms' errors and magnitudes)."""
    if not _floating(v):
        return v
    if ufunc is not np.add:
        return Scalar(v, x.bound)
    values = plain(x)
    if method == "reduce":
        count = np.size(values) // max(np.size(v), 1)
    else:
        count = np.shape(values)[kwargs.get("axis", 0)]
    summed = getattr(np.add, method)(np.abs(values), **kwargs)
    return Scalar(v, count * x.bound + _top(summed))


def _bounds_in(xs: Any) -> list[float]:
    found: list = []
    _deep(xs, lambda x: found.append(x.bound) if isinstance(x, Bounded) else None)
    return found


def _function_scalar(func, call, values: Any, args: tuple, kwargs: dict) -> float:
    """The :class:`Scalar` of ``values = func(*args, **kwargs)`` (its operands'
    Scalar): what :meth:`Bounded.__array_function__` gives each entry, at most."""
    if func in _MOVES:
        return _worst(*_bounds_in(args), *_bounds_in(tuple(kwargs.values())))
    if func in _FRESH:
        return 0.0
    if func in _MULTILINEAR:
        return _multilinear_scalar(func, call, args, kwargs)
    if func in _LARGEST_CALL:
        return float(bound_of(args[0]))
    return _largest(values, [*args, *kwargs.values()])


def _multilinear_scalar(func, call, args: tuple, kwargs: dict) -> float:
    """The :class:`Scalar` of a sum of products of the float operands x_k: an entry's
    error is the call on the magnitudes (the rounding) plus, for each k, the call on
    x_k's errors and the others' magnitudes (first order, as :func:`_multilinear_error`),
    at most e_k × Π_{j≠k} max|x_j| × the most products an entry sums."""
    floats: list = []
    _deep((args, tuple(kwargs.values())), lambda x: floats.append(x) if _floating(plain(x)) else x)
    rounding = _top(call(_magnitude_arg))
    errors = [(k, float(x.bound)) for k, x in enumerate(floats) if bound_of(x) != 0.0]
    if not errors:
        return rounding
    tops = [_top(x) for x in floats]  # (a Scalar's kept)
    carried = 0.0
    for k, e in errors:
        carried += e * math.prod(t for j, t in enumerate(tops) if j != k)
    return rounding + _terms_per_entry(func, call, args) * carried


def _terms_per_entry(func, call, args: tuple) -> float:
    """The most products one entry of a sum of products sums: for an ``einsum`` with its
    output named, the sizes of the indices summed over; else the call on ones."""
    if func is np.einsum and isinstance(args[0], str) and "->" in args[0] and "." not in args[0]:
        inputs, out = args[0].replace(" ", "").split("->")
        terms, operands = inputs.split(","), args[1:]
        sizes: dict[str, int] = {}
        if len(terms) == len(operands) and all(
            len(t) == np.ndim(plain(x)) for t, x in zip(terms, operands, strict=True)
        ):
            for t, x in zip(terms, operands, strict=True):
                sizes.update(zip(t, np.shape(plain(x)), strict=True))
            return float(math.prod(n for i, n in sizes.items() if i not in out))
    return _top(call(lambda x: np.ones(np.shape(plain(x))) if _floating(plain(x)) else x))


def _multilinear_error(call, args: tuple, kwargs: dict) -> Any:
    """The error of a sum of products of the float arguments: for each bounded one, the
    call with its errors and the others' magnitudes; plus the call on the magnitudes."""
    slots: list = []  # each Bounded argument, found in order (in lists too)

    def find(x: Any) -> Any:
        if isinstance(x, Bounded):
            slots.append(x)
        return x

    _deep(args, find)
    _deep(tuple(kwargs.values()), find)
    if not slots:
        return call(_magnitude_arg)
    error = call(_kth_errors(0))  # the first one's errors and magnitudes together
    for k in range(1, len(slots)):
        error += call(_kth_errors(k))
    return error


def _kth_errors(k: int):
    """An argument map: the k-th bounded argument met as its errors (the first: its
    errors plus its magnitudes, the call on the magnitudes folded in), the rest as their
    magnitudes."""
    seen = [-1]

    def one(x: Any) -> Any:
        if isinstance(x, Bounded):
            seen[0] += 1
            if seen[0] == k:
                return x.bound + np.abs(x.value) if k == 0 else x.bound
        return _magnitude_arg(x)

    return one


def _largest(value: Any, read: list) -> float:
    """The largest finite magnitude and error among ``read`` and ``value`` (the error
    bound of each entry of an operation not taken)."""
    found: list = [value]
    _deep(read, lambda x: found.extend((plain(x), bound_of(x))) if _floating(plain(x)) else None)
    top = 0.0
    for b in found:
        b = np.asarray(b, dtype=float)
        if b.size:
            top = max(top, float(np.max(np.abs(b), where=np.isfinite(b), initial=0.0)))
    return top


def filled(size: int, one: Any) -> Any:
    """A vector of ``size`` copies of the number ``one``."""
    if isinstance(one, Scalar):
        return Scalar(np.full(size, one.value), one.bound)
    if isinstance(one, Bounded):
        return Bounded(np.full(size, one.value), np.full(size, one.bound))
    return np.full(size, one)


def scattered(size: int, at: Any, data: Any) -> Any:
    """A vector of ``size`` zeros with ``data`` at the positions ``at``."""
    out = np.zeros(size)
    out[at] = plain(data)
    if not isinstance(data, Bounded):
        return out
    if isinstance(data, Scalar):
        return Scalar(out, data.bound)
    bound = np.zeros(size)
    bound[at] = data.bound
    return Bounded(out, bound)


def scattered_add(base: Any, parts: list[tuple[Any, Any]]) -> Any:
    """A float copy of the vector ``base`` (a number: ``size`` copies, ``parts`` given
    as (positions, data)) with each part's data added at its positions, in order."""
    out = np.array(plain(base), dtype=float)
    bounded = isinstance(base, Bounded) or any(isinstance(d, Bounded) for _, d in parts)
    if not bounded:
        for at, data in parts:
            np.add.at(out, at, plain(data))
        return out
    if _scalar_bounds([base, *(d for _, d in parts)]):
        # an entry gets at most (the most a position is given) × (error + magnitude) of
        # each part, and the base's error and magnitude
        bound = bound_of(base) + _top(base)
        for at, data in parts:
            np.add.at(out, at, plain(data))
            bound += _most_often(at) * (bound_of(data) + _top(data))
        return Scalar(out, bound)
    base = _entrywise(base)
    parts = [(at, _entrywise(data)) for at, data in parts]
    # Σ (error + |data|) a position: its parts' errors and its additions' rounding, in one
    # scatter a part (the base's |value| where any is given: at least where a |data| is)
    carried = np.zeros(out.shape)
    for at, data in parts:
        value = plain(data)
        np.add.at(out, at, value)
        np.add.at(carried, at, np.abs(value) + bound_of(data))
    carried += np.where(carried > 0, np.abs(plain(base)), 0.0)
    return Bounded(out, carried + bound_of(base))


def _most_often(at: Any) -> int:
    """The most times one position occurs among the positions ``at``."""
    at = np.asarray(at)
    if at.size == 0:
        return 0
    if at.dtype.kind in "iu" and at.min() >= 0:
        return int(np.bincount(at.ravel()).max())
    return int(at.size)


class BoundEvaluator(ArrayEvaluator):
    """:class:`~.evaluate.ArrayEvaluator` (NumPy) on :class:`Bounded` values: the nodes
    that write arrays (a scatter, a scatter-add, entries, a store) write the bounds
    beside the values; the rest reach the bounds through NumPy's dispatch. ``scalar``:
    what is evaluated plainly (:func:`run_bounded`) gets a :class:`Scalar` (the values
    read: Scalar, the cheaper tier)."""

    def __init__(self, *args: Any, scalar: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.scalar = scalar

    def _eval_Call(self, node: ir.Call, values: list) -> Any:
        if node.func == "asarray" and values and isinstance(values[0], Bounded):
            return values[0]  # a float array already (no copy, as asarray makes none)
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
        if _scalar_bounds(values):
            value = np.reshape(np.array([plain(v) for v in values]), node.shape)
            return Scalar(value, _worst(*_bounds_in(values)))
        values = [_entrywise(v) for v in values]
        value = np.reshape(np.array([plain(v) for v in values]), node.shape)
        bounds = [np.broadcast_to(bound_of(v), np.shape(plain(v))) for v in values]
        bound = np.reshape(np.array(bounds), node.shape)
        return Bounded(value, bound)


def _stored(env: dict[str, Any], target: str) -> None:
    """After a store into ``target``'s array, each :class:`Scalar` whose array may share
    its memory (a view of it, or it of one) takes its bound (the entries written), its
    largest magnitude found again."""
    stored = env[target]
    for value in env.values():
        if (
            isinstance(value, Scalar)
            and value is not stored
            and np.may_share_memory(value.value, stored.value)
        ):
            value.bound, value.top = _worst(value.bound, stored.bound), None


def run_bounded(
    ev: BoundEvaluator, plain_ev: ArrayEvaluator, s: ir.ArrayStatement, env: dict[str, Any]
) -> None:
    """Evaluate ``s`` into ``env`` with bounds (:class:`BoundEvaluator`); where an
    operation is not taken, plainly (``plain_ev``: an error it raises is the
    statement's), each entry's bound the largest magnitude and error it read or made."""
    try:
        ev.run([s], env)
        if s.at and isinstance(env[s.target], Scalar):
            _stored(env, s.target)
        return
    except (TypeError, ValueError, AttributeError):  # Unbounded, or NumPy refusing one
        pass
    read = set(ir.names_in(s.value)).union(*(ir.names_in(a) for a in s.at))
    if s.at:
        read.add(s.target)
    found = [env[n] for n in read if n in env]
    view = dict(env)
    view.update(
        (n, np.copy(plain(env[n])) if n == s.target else plain(env[n])) for n in read if n in env
    )
    plain_ev.run([s], view)
    value = view[s.target]
    if ev.scalar:
        env[s.target] = Scalar(value, _largest(value, found)) if _floating(value) else value
    else:
        env[s.target] = _wrap(value, np.full(np.shape(value), _largest(value, found)))
