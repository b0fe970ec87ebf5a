"""NumPy functions of traced arrays that are a few other NumPy operations of equal value
(NumPy's own definitions, numpy/lib): ``np.triu``/``np.tril`` (a constant mask by
``np.where``), ``np.cross`` of 3-vectors (of 2-vectors: the z component), ``np.kron`` of
vectors or matrices, ``np.append``, ``np.column_stack``, ``np.ediff1d``, ``np.trapezoid``,
``np.average(weights=)``, ``np.vdot``, ``np.inner``, ``np.polyval`` (Horner's rule),
``np.polyder``, ``np.polyint``, ``np.sinc``, ``np.i0`` (``i0e(x)·e^|x|``), ``np.polyfit`` (``lstsq``
of a constant abscissa's Vandermonde matrix), ``np.rot90``, ``np.meshgrid``,
``np.piecewise`` (nested ``np.where``), ``np.vander``, ``np.block`` (nested
concatenations), ``np.insert`` at one position, ``np.apply_along_axis`` (a loop over the slices),
``np.split`` (``array_split``, ``hsplit``, ``vsplit``, ``dsplit``: slices),
``np.polynomial.polynomial.polyval`` and ``.polyder``, ``np.unwrap``, ``np.linalg.pinv`` (by
``np.linalg.svd``) and the ufuncs
``heaviside``, ``logaddexp2``, ``deg2rad``/``radians``, ``rad2deg``/``degrees``, ``trunc``
and ``floor_divide`` (float ``//``, as NumPy rounds it). Each
calls NumPy on the traced values, so the tracer's operations and their derivative rules
are all there is; what these do not cover is one line.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import InputError

__all__ = ["FUNCTIONS", "POLYNOMIAL", "UFUNCS"]


def _triangle(lower: bool) -> Callable[..., Any]:
    name = "numpy.tril" if lower else "numpy.triu"

    def triangle(m: Any, k: int = 0) -> Any:
        if np.ndim(m) < 2:
            raise InputError(f"{name} of an array of fewer than 2 axes is not supported")
        ones = np.ones(np.shape(m)[-2:], dtype=bool)
        kept = np.tril(ones, k) if lower else np.triu(ones, k)
        if getattr(m, "boolean", False):  # a traced mask stays one, as NumPy's bool
            return m & kept
        return np.where(kept, m, 0.0)

    return triangle


def _cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis=None) -> Any:
    """``a × b`` of 3-vectors along ``axisa`` and ``axisb`` (``axis`` both, and the
    result's ``axisc``; broadcast over the others), as NumPy moves them last; of two
    2-vectors, its z component ``a0·b1 − a1·b0`` (NumPy's, deprecated since 2.0 but kept:
    a signed area)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = np.moveaxis(a, axisa, -1), np.moveaxis(b, axisb, -1)
    if np.shape(a)[-1:] == np.shape(b)[-1:] == (2,):
        return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    if np.shape(a)[-1:] != (3,) or np.shape(b)[-1:] != (3,):
        raise InputError(
            "numpy.cross of other than two 3-vectors or two 2-vectors is not supported"
        )
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    c = np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
    return np.moveaxis(c, -1, axisc)


def _kron(a: Any, b: Any) -> Any:
    """NumPy's ``kron``: the shapes padded with leading 1s to one length, each axis of
    ``a`` interleaved with ``b``'s (``a[i]·b[j]`` at ``i·len_b + j``)."""
    n = max(np.ndim(a), np.ndim(b))
    sa = (1,) * (n - np.ndim(a)) + tuple(np.shape(a))
    sb = (1,) * (n - np.ndim(b)) + tuple(np.shape(b))
    spread_a = tuple(d for k in sa for d in (k, 1))
    spread_b = tuple(d for k in sb for d in (1, k))
    blocks = np.reshape(a, spread_a) * np.reshape(b, spread_b)
    return np.reshape(blocks, tuple(p * q for p, q in zip(sa, sb, strict=True)))


def _append(arr: Any, values: Any, axis: Any = None) -> Any:
    if axis is None:
        return np.concatenate([np.ravel(arr), np.ravel(values)])
    return np.concatenate([arr, values], axis=axis)


def _column_stack(tup: Any) -> Any:
    columns = [np.reshape(a, (-1, 1)) if np.ndim(a) < 2 else a for a in tup]
    return np.concatenate(columns, axis=1)


def _ediff1d(ary: Any, to_end: Any = None, to_begin: Any = None) -> Any:
    flat = np.ravel(ary)
    parts = [np.diff(flat)] if np.shape(flat)[0] > 1 else []
    if to_begin is not None:
        parts.insert(0, np.ravel(to_begin))
    if to_end is not None:
        parts.append(np.ravel(to_end))
    if not parts:
        raise InputError("numpy.ediff1d of one entry and nothing to add is empty")
    return np.concatenate(parts) if len(parts) > 1 else parts[0]


def _trapezoid(y: Any, x: Any = None, dx: float = 1.0, axis: int = -1) -> Any:
    """``Σ d·(y[1:] + y[:-1]) / 2`` along ``axis``, ``d`` the steps of ``x`` or ``dx``."""
    n = np.ndim(y)
    axis = axis % n
    last = (*(k for k in range(n) if k != axis), axis)  # the axis moved last
    y = np.transpose(y, last)
    if x is None:
        d = dx
    elif np.ndim(x) == 1:
        d = np.diff(x)
    else:
        d = np.transpose(np.diff(x, axis=axis), last)
    return np.sum(d * (y[..., 1:] + y[..., :-1]) / 2.0, axis=-1)


def _average(a: Any, axis: Any = None, weights: Any = None, returned: bool = False,
             *, keepdims: bool = False) -> Any:  # fmt: skip
    if returned:
        raise InputError("numpy.average(returned=True) is not supported")
    if weights is None:
        return np.mean(a, axis=axis, keepdims=keepdims)
    w = weights
    if np.shape(w) != np.shape(a):
        if axis is None or np.ndim(w) != 1 or not isinstance(axis, int):
            raise InputError("numpy.average: weights of another shape need one axis")
        shape = [1] * np.ndim(a)
        shape[axis] = np.shape(w)[0]
        w = np.reshape(w, tuple(shape))
    total = np.sum(a * w, axis=axis, keepdims=keepdims)
    return total / np.sum(w * np.ones(np.shape(a)), axis=axis, keepdims=keepdims)


def _vdot(a: Any, b: Any) -> Any:
    return np.sum(np.ravel(a) * np.ravel(b))


def _inner(a: Any, b: Any) -> Any:
    """The sum over the last axes (a scalar operand: the product)."""
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return a * b
    return np.tensordot(a, b, axes=([np.ndim(a) - 1], [np.ndim(b) - 1]))


def _polyval(p: Any, x: Any) -> Any:
    """Horner's rule, as NumPy's ``polyval``: ``y = y·x + pᵢ``."""
    if np.ndim(p) != 1:
        raise InputError("numpy.polyval needs 1-D coefficients")
    y = np.zeros_like(x) if not hasattr(x, "tape") else 0.0 * x
    for i in range(np.shape(p)[0]):
        y = y * x + p[i]
    return y


def _polynomial_polyval(x: Any, c: Any, tensor: bool = True) -> Any:
    """``numpy.polynomial.polynomial.polyval``: Horner's rule, lowest degree first, as
    NumPy writes it (``c0 = c[-1] + x·0``, then ``c0 = c[-i] + c0·x``); ``c`` of several
    axes with ``tensor`` is reshaped to broadcast against every ``x``'s entry. NumPy's own
    converts ``c`` with ``np.array``, which a traced array refuses."""
    if np.ndim(c) == 0:
        c = np.reshape(c, (1,))
    if isinstance(x, (tuple, list)):
        x = np.asarray(x)
    if tensor and np.ndim(x) and np.ndim(c) > 1:
        c = np.reshape(c, np.shape(c) + (1,) * np.ndim(x))
    c0 = c[-1] + x * 0
    for i in range(2, np.shape(c)[0] + 1):
        c0 = c[-i] + c0 * x
    return c0


def _polyder(p: Any, m: int = 1) -> Any:
    """``np.polyder(p, m)`` of 1-D coefficients (highest degree first), as NumPy's:
    ``p[:-1] · (n, n − 1, …, 1)``, ``m`` times. NumPy's own converts ``p`` with
    ``np.asarray``, which a traced array refuses."""
    m = int(m)
    if np.ndim(p) != 1 or m < 0:
        raise InputError("numpy.polyder needs 1-D coefficients and an order m >= 0")
    if m >= np.shape(p)[0]:
        raise InputError(
            f"numpy.polyder: order {m} of {np.shape(p)[0]} coefficients leaves none"
            " (the derivative is 0)"
        )
    for _ in range(m):
        n = np.shape(p)[0] - 1
        p = p[:-1] * np.arange(n, 0, -1, dtype=float)
    return p


def _polyint(p: Any, m: int = 1, k: Any = None) -> Any:
    """``np.polyint(p, m, k)`` of 1-D coefficients (highest degree first), as NumPy's:
    ``p / (n, n − 1, …, 1)`` and the constant ``k`` appended, ``m`` times (linear in
    ``p`` and ``k``)."""
    m = int(m)
    if np.ndim(p) != 1 or m < 0:
        raise InputError("numpy.polyint needs 1-D coefficients and an order m >= 0")
    constants = (
        [0.0] * m if k is None else list(np.broadcast_to(k, (m,))) if np.ndim(k) == 0 else list(k)
    )
    if len(constants) != m:
        raise InputError(f"numpy.polyint: k gives {len(constants)} constants for order {m}")
    for j in range(m):
        n = np.shape(p)[0]
        p = np.concatenate([p / np.arange(n, 0, -1, dtype=float), np.reshape(constants[j], (1,))])
    return p


def _polynomial_polyder(c: Any, m: int = 1, scl: Any = 1, axis: int = 0) -> Any:
    """``numpy.polynomial.polynomial.polyder(c, m, scl)`` along axis 0 (lowest degree
    first), as NumPy's: ``c[1:] · (1, 2, …, n − 1) · scl``, ``m`` times; zeros of
    ``c[:1]``'s shape where ``m`` reaches the length."""
    m = int(m)
    if np.ndim(c) == 0 or axis != 0 or m < 0:
        raise InputError(
            "numpy.polynomial.polynomial.polyder: coefficients along axis 0 and m >= 0"
        )
    if m >= np.shape(c)[0]:
        return np.zeros((1, *np.shape(c)[1:]))
    for _ in range(m):
        n = np.shape(c)[0]
        j = np.arange(1, n, dtype=float).reshape((-1,) + (1,) * (np.ndim(c) - 1))
        c = c[1:] * (j * scl)
    return c


def _unwrap(p: Any, discont: Any = None, axis: int = -1, *, period: float = 2 * np.pi) -> Any:
    """``numpy.unwrap`` of floats as NumPy writes it: each step ``dd`` brought into
    ``[-period/2, period/2]`` by ``mod`` (a step of exactly half the period kept at its
    sign), the correction ``ddmod - dd`` where ``|dd| >= discont``, summed along the
    axis. The correction is a whole number of periods, locally constant: the derivative
    passes through, as ``jnp.unwrap``'s."""
    axis = axis % np.ndim(p)
    n = np.shape(p)[axis]
    dd = np.diff(p, axis=axis)
    discont = period / 2 if discont is None else discont
    high = period / 2
    ddmod = np.mod(dd + high, period) - high
    ddmod = np.where((ddmod == -high) & (dd > 0), high, ddmod)
    correct = np.where(np.abs(dd) < discont, 0.0, ddmod - dd)
    first = np.take(p, np.arange(1), axis=axis)
    rest = np.take(p, np.arange(1, n), axis=axis) + np.cumsum(correct, axis=axis)
    return np.concatenate([first, rest], axis=axis)


def _sinc(x: Any) -> Any:
    """``sin(πx)/(πx)``, 1 at 0: near 0 (``|πx| < 10⁻³``) its Maclaurin polynomial
    ``1 − y²/6 + y⁴/120`` (``y = πx``; the rest, y⁶/5040, and its first two derivatives
    stay under 10⁻¹⁴), so that every derivative is right at 0, as JAX's ``sinc`` is."""
    y = np.pi * x
    near = np.abs(y) < 1e-3
    safe = np.where(near, 1.0, y)
    return np.where(near, 1.0 - y**2 / 6.0 + y**4 / 120.0, np.sin(safe) / safe)


def _pinv(a: Any, rcond: Any = None, hermitian: bool = False, *, rtol: Any = np._NoValue) -> Any:
    """NumPy's ``pinv``: ``V·diag(1/s)·Uᵀ`` of the reduced SVD, the values at or below
    ``rcond·max(s)`` (NumPy's default ``rcond``) dropped; of a stack ``(..., m, n)`` one
    per matrix (``rcond`` broadcast over the stack, as NumPy's)."""
    if hermitian or np.ndim(a) < 2:
        raise InputError(
            "numpy.linalg.pinv of a matrix (or a stack), hermitian=False, is supported"
        )
    if rcond is None:
        rcond = 1e-15 if rtol is np._NoValue else rtol
        if rcond is None:
            rcond = max(np.shape(a)[-2:]) * np.finfo(float).eps
    u, s, vt = np.linalg.svd(a, full_matrices=False)
    large = s > np.asarray(rcond)[..., None] * s[..., :1]  # the values descend
    inverse = np.where(large, 1.0 / np.where(large, s, 1.0), 0.0)
    return np.matmul(np.swapaxes(vt, -1, -2), inverse[..., :, None] * np.swapaxes(u, -1, -2))


def _heaviside(x1: Any, x2: Any) -> Any:
    """0 below 0, ``x2`` at 0, 1 above, NaN at NaN."""
    return np.where(x1 != x1, np.nan, np.where(x1 > 0, 1.0, np.where(x1 < 0, 0.0, x2)))


def _fmax(x1: Any, x2: Any) -> Any:
    """``x1`` where it is larger or ``x2`` is NaN, else ``x2`` (NaN only where both are):
    JAX's ``jnp.fmax``, whose derivative at a tie is ``x2``'s (``fmax(0, 1 - m)²``, a
    squared hinge, has second derivative 2 there, not ``maximum``'s ½ of each side)."""
    return np.where(x2 != x2, x1, np.where(x1 > x2, x1, x2))


def _fmin(x1: Any, x2: Any) -> Any:
    """``x1`` where it is smaller or ``x2`` is NaN, else ``x2``: JAX's ``jnp.fmin``."""
    return np.where(x2 != x2, x1, np.where(x1 < x2, x1, x2))


def _rot90(m: Any, k: int = 1, axes: tuple[int, int] = (0, 1)) -> Any:
    """NumPy's ``rot90``: flips and a swap of the two axes."""
    ndim = np.ndim(m)
    a, b = (int(x) % max(ndim, 1) for x in axes)
    if ndim < 2 or a == b:
        raise InputError("numpy.rot90 needs two different axes of an array of 2 or more")
    order = list(range(ndim))
    order[a], order[b] = order[b], order[a]
    k %= 4
    if k == 0:
        return m
    if k == 2:
        return np.flip(np.flip(m, a), b)
    if k == 1:
        return np.transpose(np.flip(m, b), order)
    return np.flip(np.transpose(m, order), b)


def _meshgrid(*xi: Any, copy: bool = True, sparse: bool = False, indexing: str = "xy") -> Any:
    """NumPy's ``meshgrid``: each 1-D input along its own axis (the first two swapped for
    ``indexing="xy"``), broadcast to the full grid unless ``sparse``."""
    if indexing not in ("xy", "ij"):
        raise InputError(f"numpy.meshgrid(indexing={indexing!r}): use 'xy' or 'ij'")
    n = len(xi)
    sizes = [int(np.size(x)) for x in xi]
    place = list(range(n))
    if indexing == "xy" and n > 1:
        place[0], place[1] = 1, 0
    full = [1] * n
    for i, axis in enumerate(place):
        full[axis] = sizes[i]
    out = []
    for i, x in enumerate(xi):
        shape = [1] * n
        shape[place[i]] = sizes[i]
        grid = np.reshape(x, shape)
        out.append(grid if sparse else np.broadcast_to(grid, full))
    return tuple(out)


def _piecewise(x: Any, condlist: Any, funclist: Any, *args: Any, **kw: Any) -> Any:
    """``numpy.piecewise``: each piece ``np.where(cond, f(x), y)`` in NumPy's order (a
    later condition wins; one function more than conditions: where none holds). Each
    function is called on the whole ``x`` (elementwise functions, as ``jnp.piecewise``
    wants them; NumPy calls it on ``x[cond]``), a constant piece is its value."""
    what = "numpy.piecewise"
    if not isinstance(condlist, list | tuple):
        condlist = [condlist]
    conditions, functions = list(condlist), list(funclist)
    if len(functions) not in (len(conditions), len(conditions) + 1):
        raise InputError(
            f"{what}: {len(conditions)} conditions take {len(conditions)} or"
            f" {len(conditions) + 1} functions, not {len(functions)}"
        )
    if len(functions) == len(conditions) + 1:
        held = conditions[0]
        for c in conditions[1:]:
            held = held | c
        conditions.append(~held)
    shape = np.shape(x)
    y: Any = np.zeros(shape)
    for cond, f in zip(conditions, functions, strict=True):
        if np.shape(cond) not in ((), shape):
            raise InputError(f"{what}: a condition of shape {np.shape(cond)} for x of {shape}")
        value = f(x, *args, **kw) if callable(f) else f
        reduced = callable(f) and shape and not np.shape(value) and not _is_number(value)
        if reduced or np.shape(value) not in ((), shape):
            raise InputError(
                f"{what}: a piece of shape {np.shape(value)} for x of shape {shape} (each"
                " function is called on the whole x: elementwise functions are supported)"
            )
        y = np.where(cond, value, y)
    return y


def _is_number(value: Any) -> bool:
    """Whether ``value`` is a constant number (not a traced value of shape ``()``)."""
    return isinstance(value, numbers.Number | np.number | np.ndarray)


def _apply_along_axis(func1d: Callable[..., Any], axis: int, arr: Any, *args: Any,
                      **kwargs: Any) -> Any:  # fmt: skip
    """``numpy.apply_along_axis``: ``func1d`` of each 1-D slice along ``axis`` (a Python
    loop over the other axes, as NumPy's), the results stacked and their axes put where
    ``axis`` was."""
    n = np.ndim(arr)
    if n == 0:
        raise InputError("numpy.apply_along_axis of a scalar: it needs an axis")
    axis = int(axis)
    if not -n <= axis < n:
        raise InputError(f"numpy.apply_along_axis: axis {axis} of an array of {n} axes")
    axis %= n
    moved = np.transpose(arr, (*(k for k in range(n) if k != axis), axis))
    outer = np.shape(moved)[:-1]
    results = [func1d(moved[index], *args, **kwargs) for index in np.ndindex(*outer)]
    if not results:
        raise InputError("numpy.apply_along_axis over an empty axis is not supported")
    inner = np.shape(results[0])
    if any(np.shape(r) != inner for r in results):
        raise InputError("numpy.apply_along_axis: func1d returned results of several shapes")
    out = np.reshape(np.stack(results), (*outer, *inner))
    if not inner:
        return out
    k, m = len(outer), len(inner)
    return np.transpose(out, (*range(axis), *range(k, k + m), *range(axis, k)))


def _split_of(original: Callable[..., Any]) -> Callable[..., Any]:
    """``numpy.split`` (``array_split``, ``hsplit``, ``vsplit``, ``dsplit``): slices of
    the traced array, their bounds those NumPy gives an array of zeros of its shape (so
    its checks and its rule for uneven sections are NumPy's own)."""

    def split(ary: Any, *args: Any, **kwargs: Any) -> list[Any]:
        shape = tuple(np.shape(ary))
        try:
            pieces = original(np.broadcast_to(0.0, shape), *args, **kwargs)
        except (ValueError, TypeError, IndexError) as exc:
            raise InputError(f"numpy.{original.__name__}: {exc}") from None
        moved = [d for d in range(len(shape)) if any(p.shape[d] != shape[d] for p in pieces)]
        if not moved:  # one piece: the whole array
            return [np.copy(ary) for _ in pieces]
        axis, start, out = moved[0], 0, []
        for piece in pieces:
            stop = start + piece.shape[axis]
            out.append(ary[(slice(None),) * axis + (slice(start, stop),)])
            start = stop
        return out

    split.__name__ = original.__name__
    return split


def _i0(x: Any) -> Any:
    """The modified Bessel function I₀: ``i0e(x)·e^|x|`` (scipy's ``i0e``, one operation)."""
    import scipy.special

    return scipy.special.i0e(x) * np.exp(np.abs(x))


def _polyfit(x: Any, y: Any, deg: int, rcond: Any = None, full: bool = False, w: Any = None,
             cov: bool = False) -> Any:  # fmt: skip
    """The least-squares polynomial: ``lstsq`` of Vandermonde's matrix (linear in ``y``;
    NumPy scales its columns first, which changes rounding only); of a traced ``x`` (the
    abscissae as a parameter or an input) the traced matrix's."""
    if np.ndim(x) != 1:
        raise InputError("numpy.polyfit: x must be a vector")
    if full or cov or w is not None:
        raise InputError("numpy.polyfit with full=, cov= or w= is not supported")
    if isinstance(x, list | tuple):
        x = np.asarray(x, dtype=float)
    return np.linalg.lstsq(np.vander(x, int(deg) + 1), y, rcond=rcond)[0]


def _vander(x: Any, N: int | None = None, increasing: bool = False) -> Any:
    """Vandermonde's matrix of a vector: its columns ``x**(N-1)``, …, ``x**0`` (NumPy's
    order; ``increasing`` the other way)."""
    if np.ndim(x) != 1:
        raise InputError("numpy.vander of an array other than a vector is not supported")
    n = np.shape(x)[0] if N is None else int(N)
    powers = range(n) if increasing else range(n - 1, -1, -1)
    return np.stack([np.ones(np.shape(x)) if k == 0 else x**k for k in powers], axis=1)


def _block(arrays: Any) -> Any:
    """``np.block``: nested lists concatenated innermost along the last axis, each level
    out along the axis before (NumPy's definition), each array first given the result's
    axes in front."""

    def depth(a: Any) -> int:
        if isinstance(a, tuple):
            raise InputError("numpy.block of tuples: NumPy takes lists only")
        if not isinstance(a, list):
            return 0
        if not a:
            raise InputError("numpy.block of an empty list")
        found = {depth(b) for b in a}
        if len(found) != 1:
            raise InputError("numpy.block: list depths are mismatched")
        return 1 + found.pop()

    levels = depth(arrays)

    def leaves(a: Any) -> list:
        return [x for b in a for x in leaves(b)] if isinstance(a, list) else [a]

    ndim = max(levels, *(np.ndim(a) for a in leaves(arrays)))

    def built(a: Any, level: int) -> Any:
        if isinstance(a, list):
            return np.concatenate([built(b, level + 1) for b in a], axis=level - levels)
        return np.reshape(a, (1,) * (ndim - np.ndim(a)) + np.shape(a))

    return built(arrays, 0)


def _insert(arr: Any, obj: Any, values: Any, axis: int | None = None) -> Any:
    """``np.insert`` at one integer position: the array (flattened where ``axis`` is None)
    cut there and ``values`` concatenated between (all of a vector's values, or one
    number a slice's width along another axis)."""
    if not isinstance(obj, numbers.Integral) or isinstance(obj, bool):
        raise InputError("numpy.insert at positions other than one integer is not supported")
    if axis is None:
        arr, axis = np.ravel(arr), 0
    axis = axis + np.ndim(arr) if axis < 0 else axis
    n = np.shape(arr)[axis]
    at = obj + n if obj < 0 else obj
    if not 0 <= at <= n:
        raise InputError(f"numpy.insert: index {obj} is out of bounds for size {n}")
    if np.ndim(arr) == 1:
        piece = np.ravel(values)
    elif np.ndim(values) == 0:
        shape = list(np.shape(arr))
        shape[axis] = 1
        piece = np.broadcast_to(values, tuple(shape))
    else:
        raise InputError("numpy.insert of an array into a matrix is not supported")
    before = tuple(slice(None) if k != axis else slice(0, at) for k in range(np.ndim(arr)))
    after = tuple(slice(None) if k != axis else slice(at, None) for k in range(np.ndim(arr)))
    return np.concatenate([arr[before], piece, arr[after]], axis=axis)


_LN2 = math.log(2.0)

FUNCTIONS: dict[Callable[..., Any], Callable[..., Any]] = {
    np.triu: _triangle(False),
    np.tril: _triangle(True),
    np.cross: _cross,
    np.kron: _kron,
    np.append: _append,
    np.column_stack: _column_stack,
    np.ediff1d: _ediff1d,
    np.average: _average,
    np.vdot: _vdot,
    np.inner: _inner,
    np.polyval: _polyval,
    np.polyder: _polyder,
    np.polyint: _polyint,
    np.sinc: _sinc,
    np.i0: _i0,
    np.polyfit: _polyfit,
    np.linalg.pinv: _pinv,
    np.rot90: _rot90,
    np.meshgrid: _meshgrid,
    np.vander: _vander,
    np.block: _block,
    np.insert: _insert,
    np.unwrap: _unwrap,
    np.piecewise: _piecewise,
    np.apply_along_axis: _apply_along_axis,
    **{f: _split_of(f) for f in (np.split, np.array_split, np.hsplit, np.vsplit, np.dsplit)},
    **({np.trapezoid: _trapezoid} if hasattr(np, "trapezoid") else {}),
}

#: ``numpy.polynomial.polynomial``'s functions, by name
POLYNOMIAL: dict[str, Callable[..., Any]] = {
    "polyval": _polynomial_polyval,
    "polyder": _polynomial_polyder,
}


def _copysign(x1: Any, x2: Any) -> Any:
    """``|x1|`` with the sign of ``x2`` (``-0.0`` negative: ``arctan2(-0.0, -1) = -π``)."""
    negative = (x2 < 0) | ((x2 == 0) & (np.arctan2(x2, -1.0) < 0))
    return np.where(negative, -np.abs(x1), np.abs(x1))


def _remainder(x1: Any, x2: Any) -> Any:
    """Python's modulo (the sign of ``x2``): C's ``fmod``, plus ``x2`` where it is nonzero
    and its sign differs from ``x2``'s (JAX's ``remainder``: derivatives 1 and
    ``-floor(x1 / x2)``)."""
    r = np.fmod(x1, x2)
    return np.where((r != 0) & ((r < 0) != (x2 < 0)), r + x2, r)


def _floor_divide(x1: Any, x2: Any) -> Any:
    """NumPy's float ``//``: ``(x1 - remainder(x1, x2)) / x2`` rounded to the nearest whole
    number (``npy_divmod``; not ``floor(x1 / x2)``, which a rounded quotient can lift)."""
    return np.rint((x1 - _remainder(x1, x2)) / x2)


UFUNCS: dict[str, Callable[..., Any]] = {
    "copysign": _copysign,
    "remainder": _remainder,
    "floor_divide": _floor_divide,
    "trunc": lambda x: np.where(x < 0, np.ceil(x), np.floor(x)),
    "heaviside": _heaviside,
    "fmax": _fmax,
    "fmin": _fmin,
    "logaddexp2": lambda a, b: np.logaddexp(a * _LN2, b * _LN2) / _LN2,
    "ldexp": lambda a, k: a * np.exp2(np.asarray(k, dtype=float)),  # k: integers, constant
    "deg2rad": lambda a: a * (math.pi / 180.0),
    "radians": lambda a: a * (math.pi / 180.0),
    "rad2deg": lambda a: a * (180.0 / math.pi),
    "degrees": lambda a: a * (180.0 / math.pi),
}
