"""scipy.interpolate's splines made outside a function (constant knots and coefficients)
evaluated at queries that depend on the inputs: ``spl = CubicSpline(xk, yk)`` at module
level, then ``spl(x)``, ``spl(x, 1)`` or ``spl.derivative()(x)`` inside the function.

scipy's ``__call__`` converts the queries to a NumPy array, which a traced array refuses.
While the function runs, each such spline it reaches is a :class:`TracedSpline`: at
constant queries scipy's own call, at traced ones the piecewise polynomial written with
NumPy's operations, which the tracer reads like any other code: the interval by
``searchsorted`` over the breaks (a position, no derivative), the local coordinate
``t = x - x_i``, and the interval's polynomial by Horner's rule in ``t`` from its
coefficients taken at that position, so the derivative in ``x`` is the polynomial's.

* :class:`~scipy.interpolate.PPoly` and its subclasses (``CubicSpline``,
  ``PchipInterpolator``, ``Akima1DInterpolator``, ``CubicHermiteSpline``): their breaks
  and coefficients, right-continuous as scipy's ``find_interval``, the end intervals
  extended (``extrapolate=True``), NaN outside (``False``) or the queries wrapped into
  the base interval (``'periodic'``); ``nu`` (derivative order) as scipy's ``derivative``.
* :class:`~scipy.interpolate.BSpline` (``make_interp_spline``, ``make_lsq_spline``): its
  piecewise-polynomial form (``PPoly.from_spline``, column by column), periodic ones
  wrapped into ``[t[k], t[n]]`` first, as ``BSpline`` does.
* :class:`~scipy.interpolate.UnivariateSpline` (FITPACK's): its knots and coefficients
  as a ``BSpline``, ``ext`` as scipy's (0 extends, 1 zero, 2 NaN where scipy raises, 3
  the boundary value).
* :class:`~scipy.interpolate.interp1d`: ``kind='linear'`` by scipy's own segments (the
  one on the left at a knot: ``searchsorted(x, q)``), the spline kinds by their spline
  (``_spline``), ``fill_value`` below and above, or ``'extrapolate'``; where scipy would
  raise (``bounds_error``) the value is NaN. ``'nearest'``, ``'previous'`` and ``'next'``
  are refused in one line.

``integrate(a, b)`` with bounds from the inputs is the antiderivative's difference
(scipy's rules where the spline does not extrapolate: a ``PPoly``'s NaN beyond its
breaks, a ``BSpline``'s bounds clipped). A spline made inside the function from
constants is read the same way. The output's axes are scipy's: the queries' shape
inserted at the spline's ``axis`` among the values' own axes. Decreasing breaks are
refused in one line.

References
----------
de Boor, C. (1978). *A Practical Guide to Splines*. Springer. (The piecewise-polynomial
form of a B-spline; Horner's rule within an interval.)

scipy authors, ``scipy/interpolate/_interpolate.py`` (``PPoly``, ``interp1d``) and
``_bsplines.py`` (``BSpline``): the definitions matched.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import InputError

__all__ = ["TracedSpline", "traced_spline"]


def traced_spline(value: Any, is_traced: Callable[[Any], bool], xp: Any) -> TracedSpline | None:
    """``value`` as a :class:`TracedSpline` where it is one of scipy's splines (scipy's
    interpolate module already imported by the user), None otherwise. ``is_traced`` tells
    a traced array; ``xp`` is NumPy as the tracer gives it to the user's code (its
    ``take`` reads positions that depend on the inputs)."""
    interpolate = sys.modules.get("scipy.interpolate")
    if interpolate is None or isinstance(value, type):
        return None
    kinds = (interpolate.PPoly, interpolate.BSpline, interpolate.interp1d,
             interpolate.UnivariateSpline)  # fmt: skip
    return TracedSpline(value, is_traced, xp) if isinstance(value, kinds) else None


class TracedSpline:
    """A scipy spline whose call takes traced queries (see the module's docstring); its
    other attributes are the spline's, a spline they return (``derivative()``,
    ``antiderivative()``) wrapped again."""

    def __init__(self, spline: Any, is_traced: Callable[[Any], bool], xp: Any) -> None:
        self._spline, self._is_traced, self._xp = spline, is_traced, xp

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._spline, name)
        if not callable(value):
            return value

        def wrapped(*args: Any, **kwargs: Any) -> Any:
            out = value(*args, **kwargs)
            return traced_spline(out, self._is_traced, self._xp) or out

        return wrapped

    def __call__(self, x: Any, *args: Any, **kwargs: Any) -> Any:
        if not self._is_traced(x):
            return self._spline(x, *args, **kwargs)
        interpolate = sys.modules["scipy.interpolate"]
        spline = self._spline
        if isinstance(spline, interpolate.interp1d):
            if args or kwargs:
                raise InputError("scipy.interpolate.interp1d takes the queries alone")
            return _interp1d(spline, x, interpolate, self._xp)
        if isinstance(spline, interpolate.UnivariateSpline):
            return _univariate(spline, x, args, kwargs, interpolate, self._xp)
        nu, extrapolate = _call_arguments(type(spline).__name__, args, kwargs)
        if extrapolate is None:
            extrapolate = spline.extrapolate
        if isinstance(spline, interpolate.BSpline):
            return _bspline(spline, x, nu, extrapolate, interpolate, self._xp)
        ppoly = spline.derivative(nu) if nu > 0 else spline.antiderivative(-nu) if nu else spline
        return _evaluated(ppoly.x, ppoly.c, x, extrapolate, spline.axis, self._xp)

    def integrate(self, a: Any, b: Any, *args: Any, **kwargs: Any) -> Any:
        """``integrate(a, b)``; with bounds from the inputs, the antiderivative at ``b``
        less that at ``a``: the extended polynomials' integral where the spline
        extrapolates, NaN for a bound outside a ``PPoly`` that does not, the bounds
        clipped to the base interval for a ``BSpline`` that does not (scipy's rules)."""
        spline = self._spline
        if not (self._is_traced(a) or self._is_traced(b)):
            return spline.integrate(a, b, *args, **kwargs)
        what = f"scipy.interpolate.{type(spline).__name__}.integrate"
        given = dict(zip(("extrapolate",), args, strict=False)) | kwargs
        extrapolate = given.get("extrapolate", getattr(spline, "extrapolate", None))
        others = sorted(set(given) - {"extrapolate"})
        if others or extrapolate not in (True, False):
            given_here = ", ".join(others) if others else f"extrapolate={extrapolate!r}"
            raise InputError(
                f"{what} with bounds that depend on the inputs is supported with extrapolate"
                f" True or False, not {given_here}"
            )
        interpolate = sys.modules["scipy.interpolate"]
        antiderivative = TracedSpline(spline.antiderivative(), self._is_traced, self._xp)
        if isinstance(spline, interpolate.BSpline):
            if not extrapolate:
                n = len(spline.t) - spline.k - 1
                lo, hi = spline.t[spline.k], spline.t[n]
                a, b = self._xp.clip(a, lo, hi), self._xp.clip(b, lo, hi)
            return antiderivative(b, 0, True) - antiderivative(a, 0, True)
        return antiderivative(b, 0, extrapolate) - antiderivative(a, 0, extrapolate)


def _call_arguments(what: str, args: tuple, kwargs: dict) -> tuple[int, Any]:
    """``nu`` and ``extrapolate`` of a ``PPoly``/``BSpline`` call: constants."""
    names = ("nu", "extrapolate")
    if len(args) > 2 or set(kwargs) - set(names):
        raise InputError(f"scipy.interpolate.{what} takes (x, nu=0, extrapolate=None)")
    given = dict(zip(names, args, strict=False)) | kwargs
    nu, extrapolate = given.get("nu", 0), given.get("extrapolate")
    if not isinstance(nu, (int, np.integer)) or isinstance(nu, bool):
        raise InputError(f"scipy.interpolate.{what}: nu must be an integer, not {nu!r}")
    return int(nu), extrapolate


def _bspline(spline: Any, x: Any, nu: int, extrapolate: Any, interpolate: Any, xp: Any) -> Any:
    """A ``BSpline`` at traced ``x``: its piecewise-polynomial form, column by column
    (``PPoly.from_spline`` takes one), periodic queries wrapped into ``[t[k], t[n]]``."""
    t, c, k = spline.t, np.asarray(spline.c), spline.k
    if nu:
        spline = spline.derivative(nu) if nu > 0 else spline.antiderivative(-nu)
        t, c, k = spline.t, np.asarray(spline.c), spline.k
    trailing = c.shape[1:]
    columns = c.reshape(c.shape[0], -1)
    forms = [interpolate.PPoly.from_spline((t, col, k), extrapolate=True) for col in columns.T]
    coefficients = np.stack([f.c for f in forms], axis=-1).reshape((*forms[0].c.shape, *trailing))
    breaks = forms[0].x
    if extrapolate == "periodic":
        n = len(t) - k - 1
        x = _wrapped(x, t[k], t[n], xp)
        extrapolate = True
    return _evaluated(breaks, coefficients, x, bool(extrapolate), spline.axis, xp)


def _univariate(spline: Any, x: Any, args: tuple, kwargs: dict, interpolate: Any,
                xp: Any) -> Any:  # fmt: skip
    """A FITPACK ``UnivariateSpline`` at traced ``x``: its knots and coefficients as a
    ``BSpline``; ``ext`` 0 extends the end polynomials, 1 is 0 outside the knots, 2 NaN
    (scipy raises), 3 the boundary value (the queries clipped)."""
    names = ("nu", "ext")
    if len(args) > 2 or set(kwargs) - set(names):
        raise InputError("scipy.interpolate.UnivariateSpline takes (x, nu=0, ext=None)")
    given = dict(zip(names, args, strict=False)) | kwargs
    nu, ext = given.get("nu", 0), given.get("ext")
    ext = (
        spline.ext
        if ext is None
        else {"extrapolate": 0, "zeros": 1, "raise": 2, "const": 3}.get(ext, ext)
    )
    t, c, k = spline._eval_args
    lo, hi = t[0], t[-1]
    if ext == 3:
        x = xp.clip(x, lo, hi)
    value = _bspline(interpolate.BSpline(t, c[: len(t) - k - 1], k), x, nu, True, interpolate, xp)
    if ext in (1, 2):
        value = xp.where((x < lo) | (x > hi), 0.0 if ext == 1 else np.nan, value)
    return value


def _interp1d(spline: Any, x: Any, interpolate: Any, xp: Any) -> Any:
    """An ``interp1d`` at traced ``x``: linear by scipy's segments, the spline kinds by
    their ``_spline``; outside ``[x[0], x[-1]]`` its fill values (NaN where scipy would
    raise) unless it extrapolates."""
    kind = spline._kind if hasattr(spline, "_kind") else None
    ys = np.moveaxis(np.asarray(spline.y, float), spline.axis, 0)
    xs = np.asarray(spline.x, float)
    if kind == "linear":
        slopes = np.diff(ys, axis=0) / np.diff(xs).reshape((-1,) + (1,) * (ys.ndim - 1))
        coefficients = np.stack([slopes, ys[:-1]])
        value = _evaluated(xs, coefficients, x, True, spline.axis, xp, side="left")
    elif hasattr(spline, "_spline"):
        inner = interpolate.make_interp_spline(xs, ys, k=spline._spline.k, axis=0)
        value = _bspline(inner, x, 0, True, interpolate, xp)
        value = _moved(value, len(_shape(x)), ys.ndim - 1, spline.axis, xp)
    else:
        raise InputError(
            f"scipy.interpolate.interp1d of kind {kind!r} at queries that depend on the inputs"
            " is not supported: use 'linear', 'slinear', 'quadratic', 'cubic' or a spline order"
        )
    if spline._extrapolate:
        return value
    trailing = ys.shape[1:]
    below = np.asarray(spline._fill_value_below, float).reshape(trailing)
    above = np.asarray(spline._fill_value_above, float).reshape(trailing)
    if spline.bounds_error:  # scipy raises there: no value
        below, above = np.full(trailing, np.nan), np.full(trailing, np.nan)
    n, r = len(_shape(x)), len(trailing)
    q = _moved(_expanded(x, r, 0, xp), n, r, spline.axis, xp)
    below, above = (_moved(_expanded(v, 0, n), n, r, spline.axis) for v in (below, above))
    value = xp.where(q < xs[0], below, value)
    return xp.where(q > xs[-1], above, value)


def _evaluated(breaks: Any, coefficients: Any, x: Any, extrapolate: Any, axis: int, xp: Any,
               side: str = "right") -> Any:  # fmt: skip
    """The piecewise polynomial with ``breaks`` and ``coefficients`` (scipy's ``PPoly.c``:
    ``(k + 1, m, *trailing)``, highest power first) at traced ``x``: the interval from
    ``searchsorted`` (``side='right'``: right-continuous, as scipy's ``find_interval``),
    clipped to the first and last, then Horner's rule in ``x - breaks[i]``."""
    breaks, coefficients = np.asarray(breaks, float), np.asarray(coefficients, float)
    if np.any(np.diff(breaks) < 0):
        raise InputError(
            "a scipy.interpolate spline with decreasing breakpoints at queries that depend on"
            " the inputs is not supported"
        )
    lo, hi = breaks[0], breaks[-1]
    if extrapolate == "periodic":
        x, extrapolate = _wrapped(x, lo, hi, xp), True
    m = len(breaks) - 1
    i = xp.clip(xp.searchsorted(breaks, x, side=side) - 1, 0, m - 1)
    trailing = coefficients.ndim - 2
    t = _expanded(x - xp.take(breaks, i), trailing, 0, xp)
    value = xp.take(coefficients[0], i, axis=0)
    for row in coefficients[1:]:
        value = value * t + xp.take(row, i, axis=0)
    if not extrapolate:
        q = _expanded(x, trailing, 0, xp)
        value = xp.where((q < lo) | (q > hi), np.nan, value)
    return _moved(value, len(_shape(x)), trailing, axis, xp)


def _wrapped(x: Any, lo: float, hi: float, xp: Any) -> Any:
    """``x`` wrapped into ``[lo, hi)`` (derivative 1)."""
    return lo + xp.mod(x - lo, hi - lo)


def _shape(x: Any) -> tuple[int, ...]:
    return tuple(np.shape(x)) if not hasattr(x, "shape") else tuple(x.shape)


def _expanded(x: Any, trailing: int, leading: int = 0, xp: Any = np) -> Any:
    """``x`` with ``leading`` axes of length 1 before and ``trailing`` after its own."""
    shape = _shape(x)
    if not trailing and not leading:
        return x
    return xp.reshape(x, (1,) * leading + shape + (1,) * trailing)


def _moved(value: Any, queried: int, trailing: int, axis: int, xp: Any = np) -> Any:
    """Axes ``(*queries, *trailing)`` in scipy's order: the queries' axes at ``axis``
    among the trailing ones."""
    if not axis or not queried:
        return value
    order = [
        *range(queried, queried + axis),
        *range(queried),
        *range(queried + axis, queried + trailing),
    ]
    return xp.transpose(value, order)
