"""NumPy's statistics, rounding and comparison functions of traced arrays as a few other
NumPy operations of equal value (NumPy's own definitions, numpy/lib and numpy/_core):
``np.cov`` and ``np.corrcoef`` (centred products, scaled by the standard deviations and
clipped to [-1, 1] as NumPy does), ``np.ptp`` (max − min), ``np.nansum``, ``np.nanmean``,
``np.nanmax``, ``np.nanmin``, ``np.nanprod``, ``np.nancumsum``, ``np.nancumprod``,
``np.nanargmax``, ``np.nanargmin`` (NaN replaced by the reduction's identity; a mean divided by
the count of the numbers, which carries no derivative), ``np.nanvar``, ``np.nanstd``,
``np.nanquantile``, ``np.nanpercentile`` and ``np.nanmedian`` (the sorted numbers read at
a position set by their count, NumPy's ``linear`` method), ``np.round``/``np.around``
(``rint`` of the scaled value, as NumPy rounds: half to even; derivative zero),
``np.isclose`` (a comparison), ``np.select`` (nested ``np.where``), ``np.digitize`` (by
``np.searchsorted``), ``np.histogram`` and ``np.histogram_bin_edges`` (equal bins
between the data's extremes or a constant range, or constant edges: the sorted data
searched at each edge, NumPy's own count for given edges; the counts carry no derivative,
the edges, the weighted counts and the density do), ``np.linalg.cond`` and
``np.linalg.lstsq`` (of a constant matrix its
pseudo-inverse, the cutoff NumPy's; of a matrix from the inputs the solution alone, as
``jnp.linalg.lstsq`` computes it). Each calls NumPy on the traced values, so the
tracer's operations and their derivative rules are all there is.

References: NumPy's ``numpy/lib/_function_base_impl.py`` (``cov``, ``corrcoef``),
``numpy/lib/_histograms_impl.py`` (``histogram``: ``_get_outer_edges``,
``_search_sorted_inclusive``),
``numpy/lib/_nanfunctions_impl.py`` and ``numpy/linalg/_linalg.py`` (``lstsq``) define
the values these reproduce.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import InputError

__all__ = ["FUNCTIONS"]


def _ptp(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> Any:
    if out is not None:
        raise InputError("numpy.ptp(..., out=...) writes into an array: not supported")
    return np.max(a, axis=axis, keepdims=keepdims) - np.min(a, axis=axis, keepdims=keepdims)


def _round(a: Any, decimals: int = 0, out: Any = None) -> Any:
    """NumPy's rule: ``rint(a·10^d) / 10^d`` (``d < 0``: ``rint(a / 10^-d) · 10^-d``)."""
    if out is not None:
        raise InputError("numpy.round(..., out=...) writes into an array: not supported")
    if not isinstance(decimals, int | np.integer):
        raise InputError(f"numpy.round: decimals must be an integer, not {decimals!r}")
    if decimals == 0:
        return np.rint(a)
    if decimals > 0:
        scale = 10.0**decimals
        return np.rint(a * scale) / scale
    scale = 10.0**-decimals
    return np.rint(a / scale) * scale


def _isclose(a: Any, b: Any, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False):
    """``|a − b| ≤ atol + rtol·|b|``, or equal (infinities of one sign); NaNs close to each
    other with ``equal_nan``."""
    close = (np.abs(a - b) <= atol + rtol * np.abs(b)) | (a == b)
    if equal_nan:
        close = close | (np.isnan(a) & np.isnan(b))
    return close


def _nan_reduction(name: str, fill: float) -> Callable[..., Any]:
    """``np.nansum``/``nanmax``/``nanmin``/``nanprod``: NaN replaced by ``fill``, the
    reduction's identity, then reduced."""
    reduce = {"nansum": np.sum, "nanmax": np.max, "nanmin": np.min, "nanprod": np.prod}[name]

    def reduction(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
                  keepdims: bool = False, **kwargs: Any) -> Any:  # fmt: skip
        if out is not None or kwargs or dtype is not None:
            raise InputError(f"numpy.{name} with out=, dtype= or initial=/where= is not supported")
        return reduce(np.where(np.isnan(a), fill, a), axis=axis, keepdims=keepdims)

    return reduction


def _nan_arg_extreme(name: str, fill: float) -> Callable[..., Any]:
    """``np.nanargmax``/``nanargmin``: the position of the extreme number, NaN replaced
    by the identity (a position: no derivative)."""
    extreme = {"nanargmax": np.argmax, "nanargmin": np.argmin}[name]

    def position(a: Any, axis: Any = None, out: Any = None, *, keepdims: bool = False) -> Any:
        if out is not None or keepdims:
            raise InputError(f"numpy.{name} with out= or keepdims= is not supported")
        return extreme(np.where(np.isnan(a), fill, a), axis=axis)

    return position


def _nan_cumulation(name: str, fill: float) -> Callable[..., Any]:
    """``np.nancumsum``/``nancumprod``: NaN replaced by ``fill`` (0, 1), then cumulated."""
    cumulate = {"nancumsum": np.cumsum, "nancumprod": np.cumprod}[name]

    def cumulation(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
        if out is not None or dtype is not None:
            raise InputError(f"numpy.{name} with out= or dtype= is not supported")
        return cumulate(np.where(np.isnan(a), fill, a), axis=axis)

    return cumulation


def _nanmean(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
             keepdims: bool = False, **kwargs: Any) -> Any:  # fmt: skip
    """The sum of the numbers over their count (a count: no derivative)."""
    if out is not None or kwargs or dtype is not None:
        raise InputError("numpy.nanmean with out=, dtype= or where= is not supported")
    numbers = ~np.isnan(a)
    total = np.sum(np.where(numbers, a, 0.0), axis=axis, keepdims=keepdims)
    return total / np.sum(numbers, axis=axis, keepdims=keepdims)


def _nanvar(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0,
            keepdims: bool = False, **kwargs: Any) -> Any:  # fmt: skip
    """The numbers' squared deviations from their mean over their count less ``ddof``
    (NaN where that is not positive, as NumPy gives)."""
    if out is not None or kwargs or dtype is not None:
        raise InputError("numpy.nanvar/nanstd with out=, dtype=, where= or mean= is not supported")
    numbers = ~np.isnan(a)
    mean = _nanmean(a, axis=axis, keepdims=True)
    centred = np.where(numbers, a - mean, 0.0)
    dof = np.sum(numbers, axis=axis, keepdims=keepdims) - ddof
    return np.where(dof > 0, np.sum(centred * centred, axis=axis, keepdims=keepdims) / dof, np.nan)


def _nanstd(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0,
            keepdims: bool = False, **kwargs: Any) -> Any:  # fmt: skip
    return np.sqrt(_nanvar(a, axis, dtype, out, ddof, keepdims, **kwargs))


def _nanquantile(a: Any, q: Any, axis: Any = None, out: Any = None,
                 overwrite_input: bool = False, method: str = "linear",
                 keepdims: bool = False, *, what: str = "numpy.nanquantile") -> Any:  # fmt: skip
    """The ``q`` quantiles of the numbers along ``axis`` (NumPy's ``linear`` method, Hyndman
    and Fan's type 7): the sorted axis (NaN last) read at ``q·(c − 1)``, ``c`` the count of
    numbers, by weights on the two entries around it (the count carries no derivative, so
    neither do the weights); NaN where a slice has no number."""
    if out is not None:
        raise InputError(f"{what}(..., out=...) writes into an array: not supported")
    if method != "linear":
        raise InputError(f"{what}(method={method!r}) is not supported (the default 'linear' is)")
    if not isinstance(q, int | float | np.ndarray | list | tuple | np.number):
        raise InputError(f"{what} of probabilities that depend on the inputs is not supported")
    probabilities = np.asarray(q, dtype=float)
    if not np.all((probabilities >= 0) & (probabilities <= 1)):
        raise InputError(f"{what}: probabilities must be in [0, 1] (percentages in [0, 100])")
    shape = np.shape(a)
    if axis is None:
        a, d = np.reshape(a, (-1,)), 0
    elif isinstance(axis, int | np.integer) and -len(shape) <= axis < len(shape):
        d = int(axis) % len(shape)
    else:
        raise InputError(f"{what}: axis {axis!r} of an array of shape {shape}")
    count = np.sum(~np.isnan(a), axis=d, keepdims=True)
    ordered = np.sort(a, axis=d)
    along = [1] * np.ndim(a)
    along[d] = np.shape(a)[d]
    k = np.reshape(np.arange(np.shape(a)[d], dtype=float), along)
    kept = (1,) * len(shape) if axis is None else (*shape[:d], 1, *shape[d + 1 :])
    found = []
    for p in probabilities.flat:
        at = float(p) * (count - 1)
        low = np.floor(at)
        t = at - low
        w = np.where(k == low, 1.0 - t, 0.0) + np.where(k == low + 1, t, 0.0)
        value = np.sum(np.where(w != 0, ordered, 0.0) * w, axis=d, keepdims=True)
        value = np.where(count > 0, value, np.nan)
        found.append(np.reshape(value, kept) if keepdims else np.squeeze(value, axis=d))
    if probabilities.ndim == 0:
        return found[0]
    return np.reshape(np.stack(found), probabilities.shape + np.shape(found[0]))


def _nanpercentile(a: Any, q: Any, axis: Any = None, out: Any = None,
                   overwrite_input: bool = False, method: str = "linear",
                   keepdims: bool = False) -> Any:  # fmt: skip
    """:func:`_nanquantile` of ``q / 100``."""
    if not isinstance(q, int | float | np.ndarray | list | tuple | np.number):
        raise InputError("numpy.nanpercentile of percentages that depend on the inputs")
    return _nanquantile(a, np.asarray(q, dtype=float) / 100.0, axis, out, overwrite_input,
                        method, keepdims, what="numpy.nanpercentile")  # fmt: skip


def _nanmedian(a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
               keepdims: bool = False) -> Any:  # fmt: skip
    """:func:`_nanquantile` at ½: the mean of the two middle numbers of an even count."""
    return _nanquantile(a, 0.5, axis, out, overwrite_input, "linear", keepdims,
                        what="numpy.nanmedian")  # fmt: skip


def _cov(m: Any, y: Any = None, rowvar: bool = True, bias: bool = False, ddof: Any = None,
         fweights: Any = None, aweights: Any = None, *, dtype: Any = None) -> Any:  # fmt: skip
    """Each row a variable (``rowvar``; else each column), its observations centred; the
    products summed over ``N - ddof`` (``ddof`` 1, or 0 with ``bias``)."""
    if fweights is not None or aweights is not None or dtype is not None:
        raise InputError("numpy.cov with fweights=, aweights= or dtype= is not supported")
    if np.ndim(m) > 2:
        raise InputError(f"numpy.cov: m has {np.ndim(m)} axes, at most 2")
    x = np.reshape(m, (1, -1)) if np.ndim(m) < 2 else m
    if not rowvar and np.ndim(m) == 2:
        x = np.transpose(x)
    if y is not None:
        other = np.reshape(y, (1, -1)) if np.ndim(y) < 2 else y
        x = np.concatenate([x, other if rowvar or np.ndim(y) < 2 else np.transpose(other)], 0)
    ddof = (0 if bias else 1) if ddof is None else int(ddof)
    count = np.shape(x)[1] - ddof
    centred = x - np.mean(x, axis=1, keepdims=True)
    c = (centred @ np.transpose(centred)) * (1.0 / count)
    return c[0, 0] if np.shape(c) == (1, 1) else c


def _corrcoef(x: Any, y: Any = None, rowvar: bool = True, *, dtype: Any = None) -> Any:
    """The covariance divided by the standard deviations on either side, clipped to
    [-1, 1] (NumPy's order of operations)."""
    c = _cov(x, y, rowvar, dtype=dtype)
    if np.ndim(c) == 0:
        return c / c
    d = np.sqrt(np.diag(c))
    c = c / np.reshape(d, (-1, 1))
    c = c / np.reshape(d, (1, -1))
    return np.clip(c, -1.0, 1.0)


def _lstsq(a: Any, b: Any, rcond: Any = None) -> Any:
    """Of a constant matrix: ``pinv(a) @ b`` with NumPy's cutoff (``rcond`` times the
    largest singular value; None: machine precision times the larger side), the sum of
    the squared residuals per column where the rank is full and there are more rows, the
    rank and the singular values (constants). Of a matrix from the inputs: the solution
    alone (:func:`_lstsq_solution`)."""
    constant = isinstance(a, np.ndarray | list | tuple) and np.asarray(a).dtype.kind in "biuf"
    m, n = np.shape(a) if np.ndim(a) == 2 else (0, 0)
    if np.ndim(a) != 2 or np.ndim(b) not in (1, 2) or np.shape(b)[0] != m:
        raise InputError(f"numpy.linalg.lstsq: a of shape {np.shape(a)} and b of {np.shape(b)}")
    cutoff = np.finfo(float).eps * max(m, n) if rcond is None or rcond < 0 else float(rcond)
    if not constant:
        return _Solution((_lstsq_solution(a, b, cutoff), None, None, None))
    a = np.asarray(a, dtype=float)
    s = np.linalg.svd(a, compute_uv=False)
    rank = int(np.count_nonzero(s > cutoff * (s[0] if s.size else 0.0)))
    solution = np.linalg.pinv(a, rcond=cutoff) @ b
    if rank == n and m > n:
        residuals = np.sum((a @ solution - b) ** 2, axis=0)
        residuals = np.reshape(residuals, (1,)) if np.ndim(b) == 1 else residuals
    else:
        residuals = np.empty((0,))
    return solution, residuals, rank, s


def _lstsq_solution(a: Any, b: Any, cutoff: float) -> Any:
    """The least-squares solution of a matrix that depends on the inputs as
    ``jnp.linalg.lstsq`` computes it: ``V·diag(1/s)·Uᵀ·b`` of the reduced SVD (the
    operations JAX's reader makes of ``jnp.linalg.svd``), the values at or below
    ``cutoff·s[0]`` dropped (NumPy's cutoff: its values at every point). Where ``a`` has
    full column rank this is the solution and its derivative; where the rank falls the
    dropped values are held, as JAX's derivative holds them."""
    u, s, vt = np.linalg.svd(a, full_matrices=False)
    large = s > cutoff * s[0]  # the values descend
    inverse = np.where(large, 1.0 / np.where(large, s, 1.0), 0.0)
    ub = np.matmul(np.transpose(u), b)
    scaled = inverse * ub if np.ndim(b) == 1 else np.reshape(inverse, (-1, 1)) * ub
    return np.matmul(np.transpose(vt), scaled)


_ONLY_SOLUTION = (
    "numpy.linalg.lstsq of a matrix that depends on the inputs: its solution [0] is read;"
    " the residuals, rank and singular values are not (use b - a @ x, np.linalg.svd)"
)


class _UnreadLstsqEntry:
    """An entry of :class:`_Solution` other than the solution: unpacking it is allowed
    (``x, res, rank, sv = np.linalg.lstsq(A, b, rcond=None)``, the usual idiom); using it
    is refused in one line."""

    __slots__ = ()
    __array_ufunc__ = None  # NumPy defers to the refusing operators below

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise InputError(_ONLY_SOLUTION)

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _refuse
    __truediv__ = __rtruediv__ = __pow__ = __rpow__ = __matmul__ = __rmatmul__ = _refuse
    __neg__ = __abs__ = __float__ = __int__ = __index__ = __bool__ = __len__ = _refuse
    __getitem__ = __iter__ = __array__ = __lt__ = __le__ = __gt__ = __ge__ = _refuse
    __array_function__ = _refuse

    def __getattr__(self, name: str) -> Any:
        raise InputError(_ONLY_SOLUTION)


class _Solution(tuple):
    """``lstsq``'s ``(x, residuals, rank, s)`` of a matrix from the inputs: ``[0]`` is read,
    and unpacked the other entries are :class:`_UnreadLstsqEntry` (the rank, and the residuals'
    shape with it, would depend on the inputs): indexing or using them is refused in one
    line."""

    __slots__ = ()

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, int) and key in (0, -4):
            return tuple.__getitem__(self, 0)
        raise InputError(_ONLY_SOLUTION)

    def __iter__(self) -> Any:
        return iter(
            (
                tuple.__getitem__(self, 0),
                _UnreadLstsqEntry(),
                _UnreadLstsqEntry(),
                _UnreadLstsqEntry(),
            )
        )


def _select(condlist: Any, choicelist: Any, default: Any = 0) -> Any:
    """The first choice whose condition holds, else ``default``: nested ``np.where`` from
    the last condition to the first."""
    if len(condlist) != len(choicelist):
        raise InputError("numpy.select: list of cases must be same length as list of conditions")
    found = default
    for condition, choice in zip(reversed(condlist), reversed(choicelist), strict=True):
        found = np.where(condition, choice, found)
    return found


def _digitize(x: Any, bins: Any, right: bool = False) -> Any:
    """The bin of each entry of ``x`` among constant increasing ``bins`` (decreasing:
    reversed), by ``np.searchsorted``: positions, no derivative."""
    edges = np.asarray(bins, dtype=float)
    if edges.ndim != 1:
        raise InputError("numpy.digitize: bins must be a constant 1-D array")
    if edges.size > 1 and edges[0] > edges[-1]:
        return edges.size - np.searchsorted(edges[::-1], x, side="left" if right else "right")
    return np.searchsorted(edges, x, side="left" if right else "right")


def _histogram_bin_edges(a: Any, bins: Any = 10, range: Any = None, weights: Any = None) -> Any:
    """The edges ``np.histogram`` uses: ``bins`` + 1 equal steps from the data's minimum
    to its maximum (or over a constant ``range``; extremes that are equal widened by 0.5
    each way, as NumPy's ``_get_outer_edges``), ``np.linspace``'s arithmetic (``k·step +
    first``, the last edge ``last`` itself); or the constant edges ``bins``."""
    what = "numpy.histogram"
    if isinstance(bins, str):
        raise InputError(f"{what}(bins={bins!r}): an estimator's bins are not supported")
    if np.ndim(bins) == 1:
        if not _constant(bins):
            raise InputError(
                f"{what}: bins from the inputs are not supported (a count or constant edges)"
            )
        edges = np.asarray(bins, dtype=float)
        if edges.size < 2 or (np.diff(edges) < 0).any():
            raise InputError(f"{what}: bins must increase monotonically")
        return edges
    count = int(bins) if isinstance(bins, int | np.integer) else 0
    if count < 1:
        raise InputError(f"{what}: bins must be a positive integer or 1-D edges, not {bins!r}")
    if range is not None:
        first, last = (float(e) for e in range)
        if not (np.isfinite(first) and np.isfinite(last)) or first > last:
            raise InputError(f"{what}: range must be finite with min <= max, not {range!r}")
    elif _constant(a):
        first, last = float(np.min(a)), float(np.max(a))
    else:
        flat = np.ravel(a)
        first, last = np.min(flat), np.max(flat)
        same = first == last
        first, last = np.where(same, first - 0.5, first), np.where(same, last + 0.5, last)
        steps = np.arange(count) * ((last - first) / count) + first
        return np.concatenate([steps, np.reshape(last, (1,))])
    if first == last:
        first, last = first - 0.5, last + 0.5
    return np.linspace(first, last, count + 1)


def _histogram(
    a: Any, bins: Any = 10, range: Any = None, density: Any = None, weights: Any = None
) -> tuple[Any, Any]:
    """``np.histogram``: per bin ``[e_k, e_k+1)`` (the last closed) the count of the
    entries of ``a`` in it, or their ``weights``' sum, or (``density``) the count over
    the total and the bin's width. NumPy's own way for given edges: ``a`` sorted, searched
    at each edge (the last from the right), the counts differences of the positions and
    the weighted counts of the sorted weights' running sums there; the positions carry no
    derivative."""
    flat = np.ravel(a)
    if weights is not None and np.shape(weights) != np.shape(a):
        raise InputError("numpy.histogram: weights should have the same shape as a")
    edges = _histogram_bin_edges(a, bins, range)
    order = np.argsort(flat, kind="stable")
    ordered = flat[order]
    below = np.searchsorted(ordered, edges[:-1], "left")
    up_to = np.searchsorted(ordered, edges[-1:], "right")
    if weights is None:
        cut = np.concatenate([below, up_to])
        counts = cut[1:] - cut[:-1]
    else:
        running = np.concatenate([np.zeros(1), np.cumsum(np.ravel(weights)[order])])
        at = np.concatenate([running[np.clip(p, 0, flat.size)] for p in (below, up_to)])
        counts = at[1:] - at[:-1]  # (each position in 0 … n already: clipped to say so)
    if density:
        return counts / np.diff(edges) / np.sum(counts), edges
    return counts, edges


def _constant(v: Any) -> bool:
    return isinstance(v, np.ndarray | list | tuple | float | int | np.number)


def _cond(x: Any, p: Any = None) -> Any:
    """The condition number: the ratio of the largest to the smallest singular value
    (``p`` None, 2, -2), else ``norm(x, p) · norm(inv(x), p)``."""
    if p is None or p in (2, -2):
        s = np.linalg.svd(x, compute_uv=False)
        return s[0] / s[-1] if p != -2 else s[-1] / s[0]
    return np.linalg.norm(x, p) * np.linalg.norm(np.linalg.inv(x), p)


FUNCTIONS: dict[Callable[..., Any], Callable[..., Any]] = {
    np.select: _select,
    np.digitize: _digitize,
    np.histogram: _histogram,
    np.histogram_bin_edges: _histogram_bin_edges,
    np.linalg.cond: _cond,
    np.ptp: _ptp,
    np.round: _round,
    np.around: _round,
    np.isclose: _isclose,
    np.nansum: _nan_reduction("nansum", 0.0),
    np.nanmax: _nan_reduction("nanmax", -np.inf),
    np.nanmin: _nan_reduction("nanmin", np.inf),
    np.nanprod: _nan_reduction("nanprod", 1.0),
    np.nancumsum: _nan_cumulation("nancumsum", 0.0),
    np.nancumprod: _nan_cumulation("nancumprod", 1.0),
    np.nanargmax: _nan_arg_extreme("nanargmax", -np.inf),
    np.nanargmin: _nan_arg_extreme("nanargmin", np.inf),
    np.nanmean: _nanmean,
    np.nanvar: _nanvar,
    np.nanstd: _nanstd,
    np.nanquantile: _nanquantile,
    np.nanpercentile: _nanpercentile,
    np.nanmedian: _nanmedian,
    np.cov: _cov,
    np.corrcoef: _corrcoef,
    np.linalg.lstsq: _lstsq,
}
