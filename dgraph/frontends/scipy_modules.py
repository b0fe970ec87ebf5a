"""scipy's linear algebra, quadrature, convolutions and distances on traced arrays, each a
few NumPy operations of the same value (so the tracer's operations and their derivative
rules are all there is), read where a function calls ``scipy.linalg``,
``scipy.integrate``, ``scipy.signal``, ``scipy.ndimage`` or ``scipy.spatial.distance``.

* ``scipy.linalg``: ``solve`` (``assume_a`` symmetric or positive: the matrix of the
  triangle scipy reads, ``lower``), ``inv``, ``det``, ``cholesky``, ``cho_factor`` /
  ``cho_solve`` (the factor's other triangle zero, not scipy's arbitrary entries),
  ``solve_triangular`` (``trans``, ``unit_diagonal``), ``lu_factor`` / ``lu_solve`` (the
  factors are held for ``lu_solve`` only: ``A x = b`` is solved, the pivots being values of
  the point); ``expm`` by scaling and squaring (Higham's [13/13] Padé approximant, the
  squarings selected by the 1-norm, as JAX's), ``norm`` (NumPy's), the structured matrices
  and solves of :mod:`~dgraph.frontends.scipy_structured` (``toeplitz``,
  ``solve_banded``, ...), ``eigvals`` and ``eig`` (``np.linalg``'s); ``sqrtm`` and
  ``logm`` of a real matrix are operations of the array tracer's (:mod:`dgraph.blocks.linalg`);
  ``funm`` and ``lu`` of a traced matrix are one line (their steps depend on the values).
* ``scipy.integrate``: ``trapezoid``, ``cumulative_trapezoid`` (sums of slices),
  ``simpson`` of constant abscissae (linear in ``y``: its weights are scipy's ``simpson``
  of the unit vectors), and of 1-D abscissae that depend on the inputs (scipy's formulas
  in them: a moving grid).
* ``scipy.signal``: ``convolve``, ``fftconvolve``, ``oaconvolve``, ``correlate`` of 1-d
  arrays (``np.convolve``'s full product, sliced as scipy's ``mode``); ``convolve2d`` and
  ``correlate2d`` of two matrices, either or both traced (ndimage's weighted shifts as
  windows of the image padded by ``boundary``); ``lfilter`` of traced taps ``b`` and a
  constant ``a`` of 1-d data (the FIR part by ``np.convolve``, then the IIR one; traced
  ``a``, ``zi`` or n-d data: the loop of :mod:`.scipy_iir`).
* ``scipy.signal``'s filters ``lfilter``, ``filtfilt``, ``sosfilt``, ``sosfiltfilt``,
  ``savgol_filter``, ``detrend``, ``decimate``, ``resample`` and ``scipy.ndimage``'s
  ``convolve1d``, ``correlate1d``, ``gaussian_filter1d``, ``uniform_filter1d``, with
  constant coefficients: affine along one axis, so the matrix and offset scipy's own
  filter gives the unit vectors and zero (every ``mode``), for axes of at most
  :data:`PROBED_MOST` entries; the n-d ``gaussian_filter`` and ``uniform_filter`` as
  scipy's sequence of them, axis by axis; ``sobel``, ``prewitt`` and ``laplace`` as
  scipy's ``correlate1d`` calls, and the n-d ``correlate`` and ``convolve`` of constant
  weights as a weighted sum of the array shifted along each axis, extended by ``mode``.
  Resampling (``map_coordinates``, ``shift``, ``zoom``, ``rotate``, ...) and rank filters
  (``median_filter``, ``maximum_filter``, ...) of traced arrays are refused in one line
  naming them.
* ``scipy.fft``: the FFTs as NumPy's, ``dct``/``idct``/``dst``/``idst`` probed as above.
* ``scipy.interpolate``: ``CubicSpline``, ``interp1d``, ``make_interp_spline``,
  ``BSpline`` of data from the inputs, at constant queries (:class:`Interpolant`);
  ``RegularGridInterpolator`` and ``interpn`` (linear, nearest) of values or queries from
  the inputs (:mod:`~dgraph.frontends.scipy_grid`).
* ``scipy.spatial.distance``: ``cdist`` and ``pdist`` with the metrics ``euclidean``,
  ``sqeuclidean``, ``cityblock``, ``chebyshev``, ``minkowski`` (``p``) and ``cosine``.

References
----------
Cartwright, K. V. (2017). Simpson's rule cumulative integration with MS Excel and
irregularly-spaced data. *J. Math. Sci. Math. Educ.* 12(2), 1–9.

Higham, N. J. (2005). The scaling and squaring method for the matrix exponential
revisited. *SIAM J. Matrix Anal. Appl.* 26(4), 1179–1193.

scipy authors, ``scipy/linalg/_basic.py``, ``scipy/integrate/_quadrature.py``,
``scipy/signal/_signaltools.py``, ``scipy/spatial/distance.py``: the definitions matched.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from ..errors import InputError
from . import scipy_structured

__all__ = [
    "DISTANCE",
    "FFT",
    "INTEGRATE",
    "INTERPOLATE",
    "LINALG",
    "MAX_SQUARINGS",
    "MOST_TERMS",
    "NDIMAGE",
    "PROBED_MOST",
    "SIGNAL",
    "Factored",
    "Interpolant",
]

PROBED_MOST = 2048
"""The longest axis an ``ndimage`` filter is read on (its matrix is dense)."""


def _refused(what: str, why: str) -> Callable[..., Any]:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise InputError(f"{what} of an array that depends on the inputs is not supported ({why})")

    return refuse


# -- scipy.linalg ----------------------------------------------------------------------------

_SYMMETRIC = {"sym", "her", "pos", "symmetric", "hermitian", "positive definite"}


def _symmetric_from(a: Any, lower: bool) -> Any:
    """The symmetric matrix of ``a``'s lower (or upper) triangle, the one scipy reads."""
    t = np.tril(a) if lower else np.triu(a)
    return t + np.swapaxes(t, -1, -2) - t * np.eye(np.shape(a)[-1])


def _solve(a: Any, b: Any, lower: bool = False, overwrite_a: bool = False,
           overwrite_b: bool = False, check_finite: bool = True, assume_a: Any = None,
           transposed: bool = False) -> Any:  # fmt: skip
    if assume_a in _SYMMETRIC:
        a = _symmetric_from(a, lower)
    elif assume_a not in (None, "gen", "general"):
        raise InputError(f"scipy.linalg.solve(assume_a={assume_a!r}) is not supported")
    return np.linalg.solve(np.swapaxes(a, -1, -2) if transposed else a, b)


def _cholesky(a: Any, lower: bool = False, overwrite_a: bool = False,
              check_finite: bool = True) -> Any:  # fmt: skip
    c = np.linalg.cholesky(_symmetric_from(a, lower))
    return c if lower else np.swapaxes(c, -1, -2)


def _cho_factor(a: Any, lower: bool = False, overwrite_a: bool = False,
                check_finite: bool = True) -> tuple[Any, bool]:  # fmt: skip
    return _cholesky(a, lower), lower


def _cho_solve(c_and_lower: Any, b: Any, overwrite_b: bool = False,
               check_finite: bool = True) -> Any:  # fmt: skip
    c, lower = c_and_lower
    low = np.tril(c) if lower else np.swapaxes(np.triu(c), -1, -2)
    return np.linalg.solve(np.swapaxes(low, -1, -2), np.linalg.solve(low, b))


def _solve_triangular(a: Any, b: Any, trans: Any = 0, lower: bool = False,
                      unit_diagonal: bool = False, overwrite_b: bool = False,
                      check_finite: bool = True) -> Any:  # fmt: skip
    t = np.tril(a) if lower else np.triu(a)
    if unit_diagonal:
        eye = np.eye(np.shape(a)[-1])
        t = t - t * eye + eye
    if trans in (1, 2, "T", "C"):
        t = np.swapaxes(t, -1, -2)
    elif trans not in (0, "N"):
        raise InputError(f"scipy.linalg.solve_triangular: trans must be 0, 1 or 2, not {trans!r}")
    return np.linalg.solve(t, b)


class Factored:
    """``scipy.linalg.lu_factor``'s factors of a traced matrix, held for ``lu_solve``:
    their entries (and the pivots) depend on the values, so any other reading is one line."""

    def __init__(self, a: Any) -> None:
        self.matrix = a

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise InputError(
            "scipy.linalg.lu_factor's factors of an array that depends on the inputs are read"
            " by scipy.linalg.lu_solve only"
        )

    __array__ = __getitem__ = __array_ufunc__ = __array_function__ = _refuse
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __matmul__ = _refuse


def _lu_factor(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> Any:
    return Factored(a), None


def _lu_solve(lu_and_piv: Any, b: Any, trans: int = 0, overwrite_b: bool = False,
              check_finite: bool = True) -> Any:  # fmt: skip
    lu, _ = lu_and_piv
    if not isinstance(lu, Factored):
        raise InputError("scipy.linalg.lu_solve of factors not made by lu_factor in the function")
    a = lu.matrix
    if trans not in (0, 1, 2):
        raise InputError(f"scipy.linalg.lu_solve: trans must be 0, 1 or 2, not {trans!r}")
    return np.linalg.solve(np.swapaxes(a, -1, -2) if trans else a, b)


_PADE = 13  # the degree of expm's Padé approximant, and the norm it is exact to (Higham, 2005)
_THETA = 5.371920351148152
MAX_SQUARINGS = 16
"""``expm``'s squarings are ``s = ⌈log₂(‖A‖₁/θ₁₃)⌉`` at most this many (JAX's bound):
each is taken where ``s`` reaches it, so the graph is one for every point."""


def _pade_coefficients(m: int) -> list[float]:
    """The [m/m] Padé approximant of e^x: ``N(x) = Σ c_j x^j``, ``D(x) = N(−x)``, with
    ``c_j = (2m − j)! m! / ((2m)! j! (m − j)!)``, normalized so that ``c_m = 1``."""
    f = math.factorial
    c = [Fraction(f(2 * m - j) * f(m), f(2 * m) * f(j) * f(m - j)) for j in range(m + 1)]
    return [float(cj / c[m]) for cj in c]


def _expm(a: Any) -> Any:
    """e^A by scaling and squaring with the [13/13] Padé approximant (Higham 2005): A
    scaled by 2^-s, ``s`` from its 1-norm (a step function: no derivative), the
    approximant ``(V − U)⁻¹(V + U)`` from six products and a solve, then squared where
    ``s`` reaches each of :data:`MAX_SQUARINGS` squarings (stacks of matrices too). Its
    derivative is the approximant's, which JAX's ``expm`` also differentiates."""
    if np.ndim(a) < 2 or np.shape(a)[-1] != np.shape(a)[-2]:
        raise InputError(f"scipy.linalg.expm needs square matrices, not shape {np.shape(a)}")
    b = _pade_coefficients(_PADE)
    norm = np.max(np.sum(np.abs(a), axis=-2), axis=-1)
    s = np.maximum(np.ceil(np.log2(np.maximum(norm, _THETA) / _THETA)), 0.0)
    a = a * np.exp2(-s)[..., None, None]
    eye = np.eye(np.shape(a)[-1])
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2
             + b[1] * eye)  # fmt: skip
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    r = np.linalg.solve(v - u, v + u)
    for k in range(MAX_SQUARINGS):
        r = np.where((s > k)[..., None, None], r @ r, r)
    return r


def _eigvals(a: Any, b: Any = None, overwrite_a: bool = False, check_finite: bool = True,
             homogeneous_eigvals: bool = False) -> Any:  # fmt: skip
    """``scipy.linalg.eigvals`` of one matrix: ``np.linalg.eigvals`` (LAPACK's ``geev``,
    the same order); a generalized problem (``b``) refused."""
    if b is not None or homogeneous_eigvals:
        raise InputError("scipy.linalg.eigvals with b= or homogeneous_eigvals= is not supported")
    return np.linalg.eigvals(a)


def _eig(a: Any, b: Any = None, left: bool = False, right: bool = True, overwrite_a: bool = False,
         overwrite_b: bool = False, check_finite: bool = True,
         homogeneous_eigvals: bool = False) -> Any:  # fmt: skip
    """``scipy.linalg.eig``: ``np.linalg.eig`` (its eigenvectors refused where read);
    the values alone where neither ``left`` nor ``right``."""
    w = _eigvals(a, b, homogeneous_eigvals=homogeneous_eigvals)
    if not left and not right:
        return w
    pair = np.linalg.eig(a)
    return (w, pair.eigenvectors, pair.eigenvectors) if left and right else (w, pair.eigenvectors)


_VALUED = "its steps depend on the values; jax.scipy.linalg's is read"
LINALG: dict[str, Callable[..., Any]] = {
    "solve": _solve,
    "inv": lambda a, overwrite_a=False, check_finite=True: np.linalg.inv(a),
    "det": lambda a, overwrite_a=False, check_finite=True: np.linalg.det(a),
    "cholesky": _cholesky,
    "cho_factor": _cho_factor,
    "cho_solve": _cho_solve,
    "solve_triangular": _solve_triangular,
    "lu_factor": _lu_factor,
    "lu_solve": _lu_solve,
    "expm": _expm,
    "eigvals": _eigvals,
    "eig": _eig,
    "norm": lambda a, ord=None, axis=None, keepdims=False, check_finite=True: np.linalg.norm(
        a, ord, axis, keepdims
    ),
    **{n: _refused(f"scipy.linalg.{n}", _VALUED) for n in ("funm", "lu")},
    # sqrtm, logm: one operation each of the array tracer's (array_tracer._root_or_log)
    **scipy_structured.LINALG,
}

# -- scipy.integrate -------------------------------------------------------------------------


def _trapezoid(y: Any, x: Any = None, dx: float = 1.0, axis: int = -1) -> Any:
    return np.trapezoid(y, x=x, dx=dx, axis=axis)


def _cumulative_trapezoid(y: Any, x: Any = None, dx: float = 1.0, axis: int = -1,
                          initial: Any = None) -> Any:  # fmt: skip
    """``Σ_{k≤i} d_k (y_k + y_{k+1})/2`` along ``axis``; ``initial`` (0) first."""
    y = np.moveaxis(y, axis, -1)
    d = dx if x is None else np.diff(x if np.ndim(x) == 1 else np.moveaxis(x, axis, -1))
    out = np.cumsum(d * (y[..., 1:] + y[..., :-1]) / 2.0, axis=-1)
    if initial is not None:
        if np.ndim(initial) != 0 or initial != 0:
            raise InputError("scipy.integrate.cumulative_trapezoid: initial must be 0 or None")
        out = np.concatenate([np.zeros((*np.shape(out)[:-1], 1)), out], axis=-1)
    return np.moveaxis(out, -1, axis)


def _simpson(y: Any, *, x: Any = None, dx: float = 1.0, axis: int = -1) -> Any:
    """Linear in ``y`` for constant abscissae: ``Σ w_k y_k`` with scipy's weights; at
    abscissae that depend on the inputs (a moving grid), scipy's formulas in them."""
    import scipy.integrate

    if x is not None and not isinstance(x, np.ndarray | list | tuple):
        if len(x.shape) != 1 or x.shape[0] != np.shape(y)[axis]:
            raise InputError(
                "scipy.integrate.simpson with abscissae that depend on the inputs takes them"
                " 1-D, as long as y along the axis"
            )
        return _simpson_moving(np.moveaxis(y, axis, -1), x)
    n = np.shape(y)[axis]
    w = scipy.integrate.simpson(np.eye(n), x=None if x is None else np.asarray(x), dx=dx, axis=-1)
    return np.sum(np.moveaxis(y, axis, -1) * w, axis=-1)


def _quotient(a: Any, b: Any) -> Any:
    """``a / b``, 0 where ``b`` is 0 (scipy's ``np.true_divide(..., where=b != 0)``)."""
    nonzero = b != 0
    return np.where(nonzero, a / np.where(nonzero, b, 1.0), 0.0)


def _simpson_moving(y: Any, x: Any) -> Any:
    """scipy's ``simpson(y, x=x)`` along ``y``'s last axis at 1-D traced abscissae: the
    composite rule for unequal spacings on pairs of intervals, and for an even count of
    points Cartwright's correction of the last interval (scipy's ``_basic_simpson`` and
    its ``N % 2 == 0`` branch, term by term; Cartwright 2017, eq. 8)."""
    n = y.shape[-1]
    h = np.diff(x)
    if n == 2:
        return 0.5 * h[0] * (y[..., 0] + y[..., 1])

    def pairs(stop: int) -> Any:
        h0, h1 = h[0:stop:2], h[1 : stop + 1 : 2]
        hsum, ratio = h0 + h1, _quotient(h0, h1)
        inner = hsum * _quotient(hsum, h0 * h1)
        terms = (
            hsum
            / 6.0
            * (
                y[..., 0:stop:2] * (2.0 - _quotient(1.0, ratio))
                + y[..., 1 : stop + 1 : 2] * inner
                + y[..., 2 : stop + 2 : 2] * (2.0 - ratio)
            )
        )
        return np.sum(terms, axis=-1)

    if n % 2:
        return pairs(n - 2)
    a, b = h[-2], h[-1]
    alpha = _quotient(2 * b**2 + 3 * a * b, 6 * (a + b))
    beta = _quotient(b**2 + 3.0 * a * b, 6 * a)
    eta = _quotient(b**3, 6 * a * (a + b))
    return pairs(n - 3) + alpha * y[..., -1] + beta * y[..., -2] - eta * y[..., -3]


INTEGRATE: dict[str, Callable[..., Any]] = {
    "trapezoid": _trapezoid,
    "cumulative_trapezoid": _cumulative_trapezoid,
    "simpson": _simpson,
}

# -- scipy.signal ----------------------------------------------------------------------------


def _sliced(full: Any, la: int, lb: int, mode: str, what: str) -> Any:
    """scipy's ``mode`` of a full 1-d convolution of lengths ``la`` and ``lb``."""
    if mode == "full":
        return full
    if mode == "same":
        start = (lb - 1) // 2
        return full[start : start + la]
    if mode == "valid":
        short = min(la, lb)
        return full[short - 1 : max(la, lb)]
    raise InputError(f"scipy.signal.{what}: mode must be 'full', 'same' or 'valid', not {mode!r}")


def _one_d(a: Any, b: Any, what: str) -> tuple[int, int]:
    if np.ndim(a) != 1 or np.ndim(b) != 1:
        raise InputError(f"scipy.signal.{what} of arrays other than two vectors is not supported")
    return np.shape(a)[0], np.shape(b)[0]


def _convolve(what: str) -> Callable[..., Any]:
    def convolve(in1: Any, in2: Any, mode: str = "full", method: str = "auto", **kw: Any) -> Any:
        la, lb = _one_d(in1, in2, what)
        return _sliced(np.convolve(in1, in2), la, lb, mode, what)

    return convolve


def _correlate(in1: Any, in2: Any, mode: str = "full", method: str = "auto") -> Any:
    la, lb = _one_d(in1, in2, "correlate")
    return _sliced(np.convolve(in1, in2[::-1]), la, lb, mode, "correlate")


#: scipy.signal's 2-d boundaries (and their other names) as ``np.pad``'s modes
_BOUNDARIES = {"fill": "constant", "pad": "constant", "wrap": "wrap", "circular": "wrap",
               "symm": "symmetric", "symmetric": "symmetric"}  # fmt: skip

MOST_TERMS = 4096
"""The most entries of ``in2`` a 2-d convolution is read with (a term each)."""


def _two_d(correlation: bool) -> Callable[..., Any]:
    """``scipy.signal.convolve2d`` / ``correlate2d`` of 2-d arrays, either or both traced:
    the sum over ``in2``'s entries ``b[p, q]`` of ``b[p, q]`` times a window of ``in1``
    extended by ``boundary`` (``np.pad``: ``fill`` with ``fillvalue``, ``wrap``,
    ``symm``), at ``(p, q)`` for a correlation, flipped for a convolution — ndimage's
    weighted shifts (:func:`_correlate_nd`), its weights free to be traced; the windows
    start where scipy's ``mode`` (``full``, ``same``, ``valid``) puts its output in the
    full one (``same``: ``(m - 1) // 2``, a correlation ``m // 2``, its kernel flipped;
    ``valid`` reads no boundary, as scipy's, also where ``in2`` is the larger)."""
    what = f"scipy.signal.{'correlate2d' if correlation else 'convolve2d'}"

    def apply(in1: Any, in2: Any, mode: str = "full", boundary: str = "fill",
              fillvalue: Any = 0) -> Any:  # fmt: skip
        if np.ndim(in1) != 2 or np.ndim(in2) != 2:
            raise InputError(f"{what} of arrays other than two matrices is not supported")
        if not isinstance(mode, str) or mode not in ("full", "same", "valid"):
            raise InputError(f"{what}: mode must be 'full', 'same' or 'valid', not {mode!r}")
        if not isinstance(boundary, str) or boundary not in _BOUNDARIES:
            raise InputError(f"{what}: boundary must be 'fill', 'wrap' or 'symm', not {boundary!r}")
        if not isinstance(fillvalue, (int, float, np.integer, np.floating)):
            raise InputError(f"{what}: fillvalue must be one constant real number")
        if isinstance(in2, (list, tuple, np.ndarray)):  # constant taps
            if np.iscomplexobj(in2):
                raise InputError(f"{what} of complex constants is not supported")
            in2 = np.asarray(in2, dtype=float)
        a, b = np.shape(in1), np.shape(in2)
        if np.size(in2) > MOST_TERMS:
            raise InputError(f"{what} with in2 of {np.size(in2)} > {MOST_TERMS} entries")
        smaller = [n < m for n, m in zip(a, b, strict=True)]
        if mode == "valid" and any(smaller) and not all(smaller):
            raise InputError(
                f"{what}: for 'valid' mode one array must be at least as large as the other"
                " in every dimension"
            )
        if mode == "full":
            starts, sizes = [0, 0], [n + m - 1 for n, m in zip(a, b, strict=True)]
        elif mode == "same":
            starts = [m // 2 if correlation else (m - 1) // 2 for m in b]
            sizes = list(a)
        else:
            starts = [min(n, m) - 1 for n, m in zip(a, b, strict=True)]
            sizes = [abs(n - m) + 1 for n, m in zip(a, b, strict=True)]
        padding = [(m - 1, m - 1) for m in b]
        pad = _BOUNDARIES[boundary] if mode != "valid" else "constant"  # scipy's valid
        fill = float(fillvalue) if mode != "valid" else 0.0  # reads no boundary, in2 larger too
        extra = {"constant_values": fill} if pad == "constant" else {}
        padded = np.pad(in1, padding, mode=pad, **extra)
        constant = isinstance(in2, np.ndarray)
        total = None
        for p, q in np.ndindex(*b):
            if constant and in2[p, q] == 0:
                continue
            r, c = (p, q) if correlation else (b[0] - 1 - p, b[1] - 1 - q)
            r, c = r + starts[0], c + starts[1]
            term = in2[p, q] * padded[r : r + sizes[0], c : c + sizes[1]]
            total = term if total is None else total + term
        return np.zeros(sizes) if total is None else total

    return apply


SIGNAL: dict[str, Callable[..., Any]] = {
    "convolve": _convolve("convolve"),
    "fftconvolve": _convolve("fftconvolve"),
    "oaconvolve": _convolve("oaconvolve"),
    "correlate": _correlate,
    "convolve2d": _two_d(False),
    "correlate2d": _two_d(True),
}

# -- scipy.ndimage ---------------------------------------------------------------------------


_CONSTANT = (int, float, str, bool, np.number, np.ndarray, list, tuple, type(None))


def _affine_along(
    module: str, function: str, data_at: int, name: str, default_axis: int = -1
) -> Callable[..., Any]:
    """``module.function`` (scipy's own, imported when called), affine along one ``axis``
    of its data (positional argument ``data_at``, or ``name=``) for constant other
    arguments: ``y = x W + c`` along that axis, ``W`` and ``c`` scipy's own of the unit
    vectors and of zero (the constant ``cval`` of ``mode='constant'``, a filter's padding).
    The matrix is dense: at most :data:`PROBED_MOST` entries along the axis."""
    what = f"{module}.{function}"

    def apply(*args: Any, axis: int = default_axis, **kwargs: Any) -> Any:
        import importlib

        own = getattr(importlib.import_module(module), function)
        args = list(args)
        if len(args) <= data_at:
            if name not in kwargs or len(args) < data_at:
                raise InputError(f"{what}: give its arguments up to {name} by position")
            args.append(kwargs.pop(name))
        data = args[data_at]
        others = [a for i, a in enumerate(args) if i != data_at] + list(kwargs.values())
        if kwargs.get("output") is not None or kwargs.get("zi") is not None:
            raise InputError(f"{what} with output= or zi= of an array that depends on the inputs")
        if any(not isinstance(a, _CONSTANT) for a in others):
            raise InputError(f"{what} with coefficients that depend on the inputs")
        n = np.shape(data)[axis]
        if n > PROBED_MOST:
            raise InputError(f"{what} along an axis of {n} > {PROBED_MOST} entries")

        def own_of(x: np.ndarray) -> np.ndarray:
            called = [*args[:data_at], x, *args[data_at + 1 :]]
            return np.asarray(own(*called, axis=-1, **kwargs), dtype=float)

        offset = own_of(np.zeros(n))
        matrix = own_of(np.eye(n)) - offset  # row i: unit vector i's
        if not (np.isfinite(matrix).all() and np.isfinite(offset).all()):
            raise InputError(f"{what}: not finite on the unit vectors (its matrix)")
        moved = np.moveaxis(data, axis, -1)
        return np.moveaxis(moved @ matrix + offset, -1, axis)

    return apply


def _probed(name: str) -> Callable[..., Any]:
    """``scipy.ndimage.<name>`` along one axis (:func:`_affine_along`)."""
    return _affine_along("scipy.ndimage", name, 0, "input")


_PER_AXIS = frozenset({"sigma", "size", "order", "mode", "radius", "origin"})


def _separable(name: str, one: str, width: str, default: float) -> Callable[..., Any]:
    """``scipy.ndimage.<name>`` of an n-d array as scipy computes it: ``<one>`` along each
    axis whose ``width`` (``sigma`` above 1e-15, ``size`` above 1) filters, an option
    given per axis read at that axis (scipy's ``gaussian_filter``, ``uniform_filter``)."""
    along = _probed(one)

    def apply(input: Any, *args: Any, **kwargs: Any) -> Any:
        import inspect

        import scipy.ndimage

        what = f"scipy.ndimage.{name}"
        signature = inspect.signature(getattr(scipy.ndimage, name))
        given = dict(signature.bind(input, *args, **kwargs).arguments)
        given.pop("input")
        if given.pop("output", None) is not None:
            raise InputError(f"{what}(output=...) writes into an array")
        axes = given.pop("axes", None)
        ndim = np.ndim(input)
        dims = list(range(ndim)) if axes is None else [int(a) % ndim for a in np.atleast_1d(axes)]
        given.setdefault(width, default)
        for i, d in enumerate(dims):
            options = {
                k: v[i] if k in _PER_AXIS and isinstance(v, list | tuple | np.ndarray) else v
                for k, v in given.items()
            }
            first = options.pop(width)
            if (first <= 1e-15) if width == "sigma" else (first <= 1):
                continue
            input = along(input, first, axis=d, **options)
        return input

    return apply


def _shifted(x: Any, shift: int, axis: int, mode: str, cval: float) -> Any:
    """``x`` read at ``i + shift`` along ``axis``, outside it as ``mode`` extends it: scipy's
    ``correlate1d`` with a one-hot kernel (:func:`_probed`)."""
    if shift == 0:
        return x
    kernel = np.zeros(2 * abs(shift) + 1)
    kernel[abs(shift) + shift] = 1.0
    return _probed("correlate1d")(x, kernel, axis=axis, mode=mode, cval=cval, origin=0)


def _correlate_nd(convolution: bool) -> Callable[..., Any]:
    """``scipy.ndimage.correlate`` / ``convolve`` of an n-d array with constant weights:
    ``y[i] = Σ_k w[k] x[i + k − c]`` (``c`` the weights' centre moved by ``origin``, ``x``
    extended by ``mode`` along each axis on its own, as ndimage does), a sum of the
    array shifted along each axis (:func:`_shifted`); ``convolve`` flips the weights and
    the origins (one more on an even axis), as scipy's ``_correlate_or_convolve``."""
    what = f"scipy.ndimage.{'convolve' if convolution else 'correlate'}"

    def apply(input: Any, weights: Any, output: Any = None, mode: str = "reflect",
              cval: float = 0.0, origin: Any = 0, *, axes: Any = None) -> Any:  # fmt: skip
        if output is not None or axes is not None:
            raise InputError(f"{what} with output= or axes= of an array that depends on the inputs")
        if not isinstance(weights, _CONSTANT) or not isinstance(mode, str):
            raise InputError(f"{what}: give constant weights and one mode (a string)")
        w = np.asarray(weights, dtype=float)
        ndim = np.ndim(input)
        if w.ndim != ndim or 0 in w.shape:
            raise InputError(f"{what}: weights of {w.ndim} axes for an array of {ndim}")
        origins = [int(o) for o in np.broadcast_to(np.asarray(origin), (ndim,))]
        if convolution:
            w = w[(slice(None, None, -1),) * ndim]
            origins = [-o - (1 - n % 2) for o, n in zip(origins, w.shape, strict=True)]
        if any(o < -(n // 2) or o > (n - 1) // 2 for o, n in zip(origins, w.shape, strict=True)):
            raise InputError(f"{what}: origin {origin} outside the weights")
        centre = [n // 2 + o for n, o in zip(w.shape, origins, strict=True)]
        total = None
        for k in zip(*np.nonzero(w), strict=True):
            term = input
            for axis, (kd, cd) in enumerate(zip(k, centre, strict=True)):
                term = _shifted(term, int(kd) - cd, axis, mode, cval)
            term = float(w[k]) * term
            total = term if total is None else total + term
        return input * 0.0 if total is None else total

    return apply


def _modes(mode: Any, count: int) -> list[str]:
    """One boundary mode per axis (a string for all, or one each), as ndimage reads it."""
    modes = [mode] * count if isinstance(mode, str) else list(mode)
    if len(modes) != count:
        raise InputError(f"scipy.ndimage: {len(modes)} modes for {count} axes")
    return modes


def _gradient(name: str, smooth: list[float]) -> Callable[..., Any]:
    """``scipy.ndimage.sobel`` / ``prewitt``: scipy's ``correlate1d`` of ``[-1, 0, 1]``
    along ``axis``, then of ``smooth`` along each other axis (:func:`_probed`)."""
    along = _probed("correlate1d")

    def apply(input: Any, axis: int = -1, output: Any = None, mode: Any = "reflect",
              cval: float = 0.0) -> Any:  # fmt: skip
        if output is not None:
            raise InputError(f"scipy.ndimage.{name}(output=...) writes into an array")
        ndim = np.ndim(input)
        axis = int(axis) % ndim
        modes = _modes(mode, ndim)
        out = along(input, [-1.0, 0.0, 1.0], axis=axis, mode=modes[axis], cval=cval, origin=0)
        for other in range(ndim):
            if other != axis:
                out = along(out, smooth, axis=other, mode=modes[other], cval=cval, origin=0)
        return out

    return apply


def _laplace(input: Any, output: Any = None, mode: Any = "reflect", cval: float = 0.0, *,
             axes: Any = None) -> Any:  # fmt: skip
    """``scipy.ndimage.laplace``: the sum over ``axes`` of ``correlate1d`` of ``[1, -2, 1]``."""
    if output is not None:
        raise InputError("scipy.ndimage.laplace(output=...) writes into an array")
    ndim = np.ndim(input)
    dims = list(range(ndim)) if axes is None else [int(a) % ndim for a in np.atleast_1d(axes)]
    modes = _modes(mode, len(dims))
    along = _probed("correlate1d")
    total = None
    for d, m in zip(dims, modes, strict=True):
        term = along(input, [1.0, -2.0, 1.0], axis=d, mode=m, cval=cval, origin=0)
        total = term if total is None else total + term
    return input if total is None else total


_MOVING = (
    "the positions it samples move with the inputs: write the interpolation with np.floor"
    " and gathers, or scipy.interpolate.RegularGridInterpolator"
)
_RANK = "a rank filter: np.max, np.min or np.sort over sliding_window_view of np.pad"
_RESAMPLING = (
    "map_coordinates affine_transform geometric_transform shift zoom rotate spline_filter"
    " spline_filter1d"
)
_RANK_FILTERS = (
    "median_filter maximum_filter minimum_filter maximum_filter1d minimum_filter1d"
    " percentile_filter rank_filter"
)

NDIMAGE: dict[str, Callable[..., Any]] = {
    **{
        n: _probed(n)
        for n in ("convolve1d", "correlate1d", "gaussian_filter1d", "uniform_filter1d")
    },
    "correlate": _correlate_nd(False),
    "convolve": _correlate_nd(True),
    "sobel": _gradient("sobel", [1.0, 2.0, 1.0]),
    "prewitt": _gradient("prewitt", [1.0, 1.0, 1.0]),
    "laplace": _laplace,
    **{n: _refused(f"scipy.ndimage.{n}", _MOVING) for n in _RESAMPLING.split()},
    **{n: _refused(f"scipy.ndimage.{n}", _RANK) for n in _RANK_FILTERS.split()},
    **{
        n: _refused(f"scipy.ndimage.{n}", "a Python callable per window is not read")
        for n in ("generic_filter", "generic_filter1d")
    },
}
NDIMAGE["gaussian_filter"] = _separable("gaussian_filter", "gaussian_filter1d", "sigma", 0.0)
NDIMAGE["uniform_filter"] = _separable("uniform_filter", "uniform_filter1d", "size", 3)

# scipy.signal's filters, affine along one axis of their data: (position, name) of the data
SIGNAL.update(
    {
        f: _affine_along("scipy.signal", f, at, data, 0 if f == "resample" else -1)
        for f, (at, data) in {
            "lfilter": (2, "x"),
            "filtfilt": (2, "x"),
            "sosfilt": (1, "x"),
            "sosfiltfilt": (1, "x"),
            "savgol_filter": (0, "x"),
            "detrend": (0, "data"),
            "decimate": (0, "x"),
            "resample": (0, "x"),
        }.items()
    }
)
_IIR = SIGNAL["lfilter"]


def _lfilter(b: Any, a: Any, x: Any, axis: int = -1, zi: Any = None) -> Any:
    """``scipy.signal.lfilter``: of constant coefficients, affine in ``x`` (probed); of
    taps ``b`` that depend on the inputs and a constant ``a`` (1-d, from rest), the same
    filter as the FIR part then the IIR one (both linear and time-invariant from rest, so
    they commute): ``np.convolve(b, x)``'s first ``len(x)`` entries filtered by ``1 / a``.
    The tracer reads the others as a loop (:mod:`.scipy_iir`)."""
    if isinstance(b, _CONSTANT):
        return _IIR(b, a, x, axis=axis, zi=zi)
    if zi is not None or not isinstance(a, _CONSTANT) or np.ndim(b) != 1 or np.ndim(x) != 1:
        raise InputError("scipy.signal.lfilter of taps b that depend on the inputs: 1-d b and x")
    return _IIR([1.0], a, np.convolve(b, x)[: np.shape(x)[0]])


SIGNAL["lfilter"] = _lfilter


# -- scipy.fft -------------------------------------------------------------------------------


def _numpy_fft(name: str) -> Callable[..., Any]:
    """``scipy.fft.<name>`` as ``numpy.fft.<name>`` (the same transform; scipy's
    ``overwrite_x``, ``workers`` and ``plan`` change how, not what, it computes)."""

    def apply(x: Any, *args: Any, overwrite_x: bool = False, workers: Any = None,
              plan: Any = None, **kwargs: Any) -> Any:  # fmt: skip
        if plan is not None:
            raise InputError(f"scipy.fft.{name}(plan=...) is not supported")
        return getattr(np.fft, name)(x, *args, **kwargs)

    return apply


_NUMPY_FFTS = ("fft", "ifft", "rfft", "irfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn",
               "rfftn", "irfftn", "hfft", "ihfft", "fftshift", "ifftshift")  # fmt: skip

_NUMPY_FFTS = "fft ifft rfft irfft fft2 ifft2 rfft2 irfft2 fftn ifftn rfftn irfftn hfft ihfft"

FFT: dict[str, Callable[..., Any]] = {
    **{n: _numpy_fft(n) for n in (*_NUMPY_FFTS.split(), "fftshift", "ifftshift")},
    **{n: _affine_along("scipy.fft", n, 0, "x") for n in ("dct", "idct", "dst", "idst")},
}

# -- scipy.spatial.distance ------------------------------------------------------------------


def _distances(a: Any, b: Any, metric: Any, p: float) -> Any:
    """The ``metric`` between the rows of ``a`` and ``b`` (broadcast), over the last axis."""
    d = a - b
    if metric == "euclidean":
        return np.sqrt(np.sum(d * d, axis=-1))
    if metric == "sqeuclidean":
        return np.sum(d * d, axis=-1)
    if metric == "cityblock":
        return np.sum(np.abs(d), axis=-1)
    if metric == "chebyshev":
        return np.max(np.abs(d), axis=-1)
    if metric == "minkowski":
        return np.sum(np.abs(d) ** p, axis=-1) ** (1.0 / p)
    if metric == "cosine":
        norms = np.sqrt(np.sum(a * a, axis=-1)) * np.sqrt(np.sum(b * b, axis=-1))
        return 1.0 - np.sum(a * b, axis=-1) / norms
    raise InputError(f"scipy.spatial.distance with metric={metric!r} is not supported")


def _cdist(XA: Any, XB: Any, metric: Any = "euclidean", *, p: float = 2.0, **kw: Any) -> Any:
    if kw or np.ndim(XA) != 2 or np.ndim(XB) != 2:
        raise InputError("scipy.spatial.distance.cdist: two 2-d arrays and a metric's name")
    return _distances(XA[:, None, :], XB[None, :, :], metric, p)


def _pdist(X: Any, metric: Any = "euclidean", *, p: float = 2.0, **kw: Any) -> Any:
    if kw or np.ndim(X) != 2:
        raise InputError("scipy.spatial.distance.pdist: one 2-d array and a metric's name")
    rows, cols = np.triu_indices(np.shape(X)[0], 1)
    return _distances(X[rows], X[cols], metric, p)


DISTANCE: dict[str, Callable[..., Any]] = {"cdist": _cdist, "pdist": _pdist}


# -- scipy.interpolate -----------------------------------------------------------------------


class Interpolant:
    """scipy's interpolant (``make(*args, **kwargs)``) of data from the inputs (its
    argument ``data_at``, along ``axis``) and constant knots: its values at constant
    queries (``__call__``, after any ``derivative``/``antiderivative``, and ``integrate``)
    are linear in the data, read as scipy's own basis: the images of the unit vectors,
    checked on one more vector (a construction that is not linear in its data, such as
    ``PchipInterpolator``'s slopes, is refused in one line)."""

    def __init__(self, what: str, make: Callable[..., Any], args: list, kwargs: dict,
                 data_at: int, axis: int, chain: tuple = ()) -> None:  # fmt: skip
        self._what, self._make, self._args, self._kwargs = what, make, args, kwargs
        self._data_at, self._axis, self._chain = data_at, axis, chain
        self.settle: Callable[[Any], Any] = lambda a: a  # the tracer's: constants as numbers

    def _built(self, data: np.ndarray) -> Any:
        called = [*self._args[: self._data_at], data, *self._args[self._data_at + 1 :]]
        built = self._make(*called, **self._kwargs)
        for method, args, kwargs in self._chain:
            built = getattr(built, method)(*args, **kwargs)
        return built

    def _settled(self, what: str, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        """The arguments of a method, constants as numbers; refused where one depends on
        the inputs (a query, an order)."""
        args = tuple(self.settle(a) for a in args)
        kwargs = {k: self.settle(v) for k, v in kwargs.items()}
        if any(not isinstance(a, _CONSTANT) for a in (*args, *kwargs.values())):
            raise InputError(f"{what} at queries that depend on the inputs is not supported")
        return args, kwargs

    def _chained(self, method: str) -> Callable[..., Interpolant]:
        def chained(*args: Any, **kwargs: Any) -> Interpolant:
            args, kwargs = self._settled(f"{self._what}.{method}", args, kwargs)
            link = ((method, args, kwargs),)
            found = Interpolant(self._what, self._make, self._args, self._kwargs,
                                self._data_at, self._axis, self._chain + link)  # fmt: skip
            found.settle = self.settle
            return found

        return chained

    def __getattr__(self, name: str) -> Any:
        if name in ("derivative", "antiderivative"):
            return self._chained(name)
        if name == "integrate":

            def integrate(*args: Any, **kwargs: Any) -> Any:
                args, kwargs = self._settled(f"{self._what}.integrate", args, kwargs)
                return self._read(lambda built: built.integrate(*args, **kwargs))

            return integrate
        raise InputError(f"{self._what}.{name} of data that depends on the inputs is not supported")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        args, kwargs = self._settled(self._what, args, kwargs)
        return self._read(lambda built: built(*args, **kwargs))

    def _read(self, evaluate: Callable[[Any], Any]) -> Any:
        what = self._what
        data = self._args[self._data_at]
        moved = np.moveaxis(data, self._axis, 0)
        n = np.shape(moved)[0]
        if n > PROBED_MOST:
            raise InputError(f"{what} of {n} > {PROBED_MOST} data points that depend on the inputs")
        with np.errstate(all="ignore"):
            offset = np.asarray(evaluate(self._built(np.zeros(n))), dtype=float)
            basis = np.stack(
                [np.asarray(evaluate(self._built(e)), float) - offset for e in np.eye(n)]
            )
            probe = np.linspace(-1.0, 2.0, n) ** 2
            again = np.asarray(evaluate(self._built(probe)), dtype=float)
        if not (np.isfinite(basis).all() and np.isfinite(offset).all()):
            raise InputError(f"{what}: not finite on the unit vectors (its basis)")
        if not np.allclose(again, offset + np.tensordot(probe, basis, 1), rtol=1e-9, atol=1e-9):
            raise InputError(
                f"{what} is not linear in data that depend on the inputs: not supported"
            )
        return np.tensordot(np.moveaxis(basis, 0, -1), moved, 1) + np.reshape(
            offset, np.shape(offset) + (1,) * (np.ndim(moved) - 1)
        )


def _interpolant(name: str, data_at: int, data_name: str, axis_name: str) -> Callable:
    """``scipy.interpolate.<name>`` of data from the inputs (:class:`Interpolant`)."""
    what = f"scipy.interpolate.{name}"

    def make(*args: Any, **kwargs: Any) -> Interpolant:
        import scipy.interpolate

        args = list(args)
        if len(args) <= data_at:
            if data_name not in kwargs or len(args) < data_at:
                raise InputError(f"{what}: give its arguments up to {data_name} by position")
            args.append(kwargs.pop(data_name))
        others = [a for i, a in enumerate(args) if i != data_at] + list(kwargs.values())
        if any(not isinstance(a, _CONSTANT) for a in others):
            raise InputError(f"{what} with knots or options that depend on the inputs")
        axis = kwargs.pop(axis_name, -1 if name == "interp1d" else 0)
        if int(axis) % np.ndim(args[data_at]) != 0:
            raise InputError(f"{what} along an axis other than the data's first: not supported")
        return Interpolant(what, getattr(scipy.interpolate, name), args, kwargs, data_at, 0)

    return make


INTERPOLATE: dict[str, Callable[..., Any]] = {
    "CubicSpline": _interpolant("CubicSpline", 1, "y", "axis"),
    "interp1d": _interpolant("interp1d", 1, "y", "axis"),
    "make_interp_spline": _interpolant("make_interp_spline", 1, "y", "axis"),
    "BSpline": _interpolant("BSpline", 1, "c", "axis"),
    "PchipInterpolator": _interpolant("PchipInterpolator", 1, "y", "axis"),
    "Akima1DInterpolator": _interpolant("Akima1DInterpolator", 1, "y", "axis"),
}
