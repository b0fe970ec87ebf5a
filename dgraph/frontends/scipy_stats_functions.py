"""scipy.stats' summary statistics of traced arrays, each the few NumPy and scipy.special
operations scipy itself computes (so the tracer's operations and their derivative rules
are all there is): ``entropy`` (``entr``, and ``rel_entr`` against ``qk``: a
Kullback–Leibler divergence), ``zscore``, ``gmean``, ``hmean``, ``pmean``, ``skew`` and
``kurtosis`` (``bias``, ``fisher``), ``moment``, ``sem``, ``variation``, ``trim_mean``,
``iqr`` and ``median_abs_deviation``. Each takes scipy's ``axis`` (None: the flattened
array) and ``keepdims``; ``nan_policy`` other than ``"propagate"`` is refused in one line,
as is every other scipy.stats function of an array that depends on the inputs
(:func:`refusal`).

The values are scipy's: its moments (``_moment``, the mean subtracted), its NaN where the
variance is within rounding of zero (``skew``, ``kurtosis``, ``zscore``), its NaN for the
negative entries of ``hmean``/``pmean``; ``trim_mean`` sorts where scipy partitions (the
same entries are kept, so the same mean). ``median_abs_deviation``'s ``center`` is the
user's callable, called on the traced array.

References: scipy's ``scipy/stats/_stats_py.py``, ``_entropy.py`` and ``_variation.py``
(scipy 1.17) define the values these reproduce.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import InputError

__all__ = ["FUNCTIONS", "refusal"]

_EPS = float(np.finfo(float).eps)
_IQR_NORMAL = 1.3489795003921634  # scipy's _scale_conversions["normal"]: 2·√2·erfinv(½)
_MAD_NORMAL = 0.6744897501960817  # scipy's: ndtri(¾)


def _special() -> Any:
    import scipy.special  # the caller's: a program that uses scipy.stats imported scipy

    return scipy.special


def _statistic(what: str, default_axis: Any = 0) -> Callable[[Callable], Callable]:
    """The options scipy's ``_axis_nan_policy`` decorator adds to ``what``: ``axis``
    (None flattens), ``keepdims`` and ``nan_policy`` (``"propagate"`` alone)."""

    def decorate(body: Callable[..., Any]) -> Callable[..., Any]:
        def statistic(a: Any, *args: Any, axis: Any = default_axis, keepdims: bool = False,
                      nan_policy: str = "propagate", **kwargs: Any) -> Any:  # fmt: skip
            if nan_policy != "propagate":
                raise InputError(
                    f"scipy.stats.{what}(nan_policy={nan_policy!r}) of an array that depends on"
                    " the inputs is not supported (the default 'propagate' is)"
                )
            shape = np.shape(a)
            if axis is None:
                a, d = np.reshape(a, (-1,)), 0
                if kwargs.get("weights") is not None:  # scipy's paired sample: raveled too
                    kwargs["weights"] = np.reshape(kwargs["weights"], (-1,))
            elif isinstance(axis, numbers.Integral) and -len(shape) <= axis < len(shape):
                d = int(axis) % len(shape)
            else:
                raise InputError(f"scipy.stats.{what}: axis {axis!r} of an array of {shape}")
            found = body(a, *args, axis=d, **kwargs)
            if not keepdims:
                return found
            kept = (1,) * len(shape) if axis is None else (*shape[:d], 1, *shape[d + 1 :])
            return np.reshape(found, kept)

        statistic.__name__ = what
        return statistic

    return decorate


def _moment_about(a: Any, order: int, axis: int, center: Any) -> Any:
    """scipy's ``_moment``: the mean of ``(a − center)^order`` along ``axis``."""
    return np.mean((a - center) ** order, axis=axis)


def _shape_moments(a: Any, axis: int, order: int) -> tuple[Any, Any, Any, int]:
    """The second and ``order``-th central moments, whether the variance is within
    rounding of zero (scipy's ``m2 <= (eps·mean)²``) and the count along ``axis``."""
    mean = np.mean(a, axis=axis, keepdims=True)
    m2 = _moment_about(a, 2, axis, mean)
    mk = _moment_about(a, order, axis, mean)
    zero = m2 <= (_EPS * np.squeeze(mean, axis=axis)) ** 2
    return m2, mk, zero, np.shape(a)[axis]


@_statistic("skew")
def _skew(a: Any, axis: int = 0, bias: bool = True) -> Any:
    m2, m3, zero, n = _shape_moments(a, axis, 3)
    ratio = m3 / m2**1.5
    if not bias and n > 2:
        ratio = ((n - 1.0) * n) ** 0.5 / (n - 2.0) * ratio
    return np.where(zero, np.nan, ratio)


@_statistic("kurtosis")
def _kurtosis(a: Any, axis: int = 0, fisher: bool = True, bias: bool = True) -> Any:
    m2, m4, zero, n = _shape_moments(a, axis, 4)
    vals = m4 / m2**2.0
    if not bias and n > 3:
        vals = 1.0 / (n - 2) / (n - 3) * ((n**2 - 1.0) * m4 / m2**2.0 - 3 * (n - 1) ** 2.0) + 3.0
    vals = np.where(zero, np.nan, vals)
    return vals - 3 if fisher else vals


@_statistic("moment")
def _moment(a: Any, order: Any = 1, axis: int = 0, *, center: Any = None) -> Any:
    if not isinstance(order, numbers.Integral) or order < 0:
        raise InputError(f"scipy.stats.moment: order must be a whole number, not {order!r}")
    if order == 0 or (order == 1 and center is None):  # by definition: constants
        reduced = np.shape(a)[:axis] + np.shape(a)[axis + 1 :]
        return np.full(reduced, 1.0 if order == 0 else 0.0)[()]
    middle = np.mean(a, axis=axis, keepdims=True) if center is None else center
    return _moment_about(a, int(order), axis, middle)


@_statistic("zscore")
def _zscore(a: Any, axis: int = 0, ddof: int = 0) -> Any:
    mean = np.mean(a, axis=axis, keepdims=True)
    std = np.std(a, axis=axis, ddof=ddof, keepdims=True)
    z = (a - mean) / std
    return np.where(std <= np.abs(_EPS * mean), np.nan, z)


def _weighted_mean(a: Any, axis: int, weights: Any) -> Any:
    if weights is None:
        return np.mean(a, axis=axis)
    return np.sum(weights * a, axis=axis) / np.sum(np.broadcast_to(weights, np.shape(a)), axis=axis)


@_statistic("gmean")
def _gmean(a: Any, axis: int = 0, dtype: Any = None, weights: Any = None) -> Any:
    return np.exp(_weighted_mean(np.log(a), axis, weights))


@_statistic("hmean")
def _hmean(a: Any, axis: int = 0, dtype: Any = None, *, weights: Any = None) -> Any:
    a = np.where(a < 0, np.nan, a)
    return 1.0 / _weighted_mean(1.0 / a, axis, weights)


@_statistic("pmean")
def _pmean(a: Any, p: Any, *, axis: int = 0, dtype: Any = None, weights: Any = None) -> Any:
    if isinstance(p, bool) or not isinstance(p, int | float) or math.isinf(p):
        raise InputError(f"scipy.stats.pmean: p must be a finite number, not {p!r}")
    if p == 0:
        return np.exp(_weighted_mean(np.log(a), axis, weights))
    a = np.where(a < 0, np.nan, a)
    return _weighted_mean(a ** float(p), axis, weights) ** (1 / p)


@_statistic("sem")
def _sem(a: Any, axis: int = 0, ddof: int = 1) -> Any:
    return np.std(a, axis=axis, ddof=ddof) / np.shape(a)[axis] ** 0.5


@_statistic("variation")
def _variation(a: Any, axis: int = 0, ddof: int = 0) -> Any:
    return np.std(a, axis=axis, ddof=ddof) / np.mean(a, axis=axis)


@_statistic("trim_mean")
def _trim_mean(a: Any, proportiontocut: float, axis: int = 0) -> Any:
    n = np.shape(a)[axis]
    low = int(proportiontocut * n)
    if low > n - low:
        raise InputError("scipy.stats.trim_mean: proportion too big")
    kept = [slice(None)] * np.ndim(a)
    kept[axis] = slice(low, n - low)
    return np.mean(np.sort(a, axis=axis)[tuple(kept)], axis=axis)


@_statistic("iqr", default_axis=None)
def _iqr(x: Any, axis: int = 0, rng: Any = (25, 75), scale: Any = 1.0,
         interpolation: str = "linear") -> Any:  # fmt: skip
    if isinstance(scale, str):
        if scale.lower() != "normal":
            raise InputError(f"scipy.stats.iqr: {scale} not a valid scale")
        scale = _IQR_NORMAL
    if len(rng) != 2 or not all(0 <= r <= 100 for r in rng):
        raise InputError(f"scipy.stats.iqr: rng must be two percentages in [0, 100], not {rng}")
    low, high = sorted(rng)
    spread = np.percentile(x, high, axis=axis, method=interpolation) - np.percentile(
        x, low, axis=axis, method=interpolation
    )
    return spread if scale == 1.0 else spread / scale


@_statistic("median_abs_deviation")
def _median_abs_deviation(x: Any, axis: int = 0, center: Any = None, scale: Any = 1.0) -> Any:
    if isinstance(scale, str):
        if scale.lower() != "normal":
            raise InputError(f"scipy.stats.median_abs_deviation: {scale} is not a valid scale")
        scale = _MAD_NORMAL
    middle = np.median if center is None else center
    if not callable(middle):
        raise InputError("scipy.stats.median_abs_deviation: center must be callable")
    med = np.expand_dims(middle(x, axis=axis), axis)
    return np.median(np.abs(x - med), axis=axis) / scale


def _entropy(pk: Any, qk: Any = None, base: Any = None, axis: Any = 0, *,
             keepdims: bool = False, nan_policy: str = "propagate") -> Any:  # fmt: skip
    """``entropy(pk)``: ``Σ entr(p)`` of ``pk`` normalized along ``axis``; with ``qk``:
    ``Σ rel_entr(p, q)``, the Kullback–Leibler divergence; over ``log(base)``."""
    if base is not None and not base > 0:
        raise InputError("scipy.stats.entropy: base must be a positive number or None")
    if qk is not None and np.shape(pk) != np.shape(qk):
        shape = np.broadcast_shapes(np.shape(pk), np.shape(qk))
        pk, qk = np.broadcast_to(pk, shape), np.broadcast_to(qk, shape)
    if qk is not None and axis is None:  # scipy's paired samples: both raveled
        pk, qk, axis = np.reshape(pk, (-1,)), np.reshape(qk, (-1,)), 0
    return _entropy_of(pk, qk, base, axis=axis, keepdims=keepdims, nan_policy=nan_policy)


@_statistic("entropy")
def _entropy_of(pk: Any, qk: Any, base: Any, axis: int = 0) -> Any:
    p = pk / np.sum(pk, axis=axis, keepdims=True)
    if qk is None:
        vec = _special().entr(p)
    else:
        vec = _special().rel_entr(p, qk / np.sum(qk, axis=axis, keepdims=True))
    total = np.sum(vec, axis=axis)
    return total if base is None else total / math.log(base)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "entropy": _entropy,
    "zscore": _zscore,
    "gmean": _gmean,
    "hmean": _hmean,
    "pmean": _pmean,
    "skew": _skew,
    "kurtosis": _kurtosis,
    "moment": _moment,
    "sem": _sem,
    "variation": _variation,
    "trim_mean": _trim_mean,
    "iqr": _iqr,
    "median_abs_deviation": _median_abs_deviation,
}


def refusal(name: str) -> Callable[..., Any]:
    """A scipy.stats function not in :data:`FUNCTIONS`, called on an array that depends on
    the inputs: refused in one line (scipy would convert the traced array first)."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise InputError(
            f"scipy.stats.{name} of an array that depends on the inputs is not supported;"
            f" supported: the distributions' methods and {', '.join(sorted(FUNCTIONS))}"
        )

    refuse.__name__ = name
    return refuse
