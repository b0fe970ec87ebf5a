"""scipy.special's functions on traced arrays, as JAX defines them (``jax.scipy.special``).

A NumPy objective for ``scipy.optimize`` calls ``expit``, ``gammaln``, ``xlogy`` or
``logsumexp`` as often as ``np.exp``. Most of scipy.special's functions are ufuncs: a traced
array receives them through ``__array_ufunc__`` by name, like NumPy's own, and each is
one array operation (:data:`UFUNCS`) or a few (:data:`COMPOSITE_UFUNCS`). ``logsumexp``,
``softmax``, ``log_softmax``, ``multigammaln`` and ``zeta`` are Python functions that
convert their argument with ``np.asarray``; the tracer's proxy of ``scipy.special`` calls
:data:`FUNCTIONS` instead (``zeta``, :data:`OPERATIONS`, with ``op`` as its first argument).
Each composite is written with NumPy's functions, which a traced array takes, and its
derivatives of every order are those of JAX's definition: ``xlogy(x, y)`` at ``x = 0``
has the partial ``log(y)`` (JAX's custom rule), the value 0 where ``y <= 0`` or is infinite.
A function not named here stays refused in one line, as do the Bessel functions' orders
:data:`COMPOSITE_UFUNCS` does not read (``jv`` beyond ±1, a fractional order).

References
----------
JAX authors, ``jax/_src/scipy/special.py`` (``xlogy``, ``xlog1py``, ``entr``, ``ndtr``,
``logit``, ``betaln``, ``log_ndtr``, ``rel_entr``, ``kl_div``): the values and derivative
rules matched here; scipy's ``huber``, ``pseudo_huber``, ``boxcox``, ``erfcx``, their
definitions (W. J. Cody, "Rational Chebyshev approximation for the error function",
Math. Comp. 23, 1969, for ``erfcx``'s asymptotic series).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import InputError

__all__ = ["COMPOSITE_UFUNCS", "FUNCTIONS", "OPERATIONS", "UFUNCS"]

# ufunc name: the elementwise array operation (dgraph.blocks.arrays.ELEMENTWISE) it is
UFUNCS: dict[str, str] = {
    "expit": "logistic",
    "gammaln": "lgamma",
    "psi": "digamma",
    "digamma": "digamma",
    "erfc": "erfc",
    "erfinv": "erf_inv",
    "ndtri": "ndtri",
    "exp1": "exp1",
    "expi": "expi",
    "dawsn": "dawsn",
    "i0e": "bessel_i0e",
    "i1e": "bessel_i1e",
    **{name: name for name in ("j0", "j1", "y0", "y1", "k0", "k1", "k0e", "k1e")},
    **{name: name for name in ("spence", "ellipk", "ellipe")},
}


Op = Callable[..., Any]  # op(name, *operands): one elementwise array operation


def _xlogy(op: Op, x: Any, y: Any) -> Any:
    """``x·log(y)``, 0 where ``x == 0`` and ``y`` is not a positive finite number (NaN
    stays NaN): there the logarithm reads 1, so both partials are JAX's, ``log(y)`` and
    ``x / y``, wherever ``y > 0``."""
    return x * np.log(np.where(np.logical_and(x == 0, np.logical_or(y <= 0, y == np.inf)), 1.0, y))


def _xlog1py(op: Op, x: Any, y: Any) -> Any:
    """``x·log1p(y)``, as :func:`_xlogy` with ``1 + y``."""
    return x * np.log1p(
        np.where(np.logical_and(x == 0, np.logical_or(y <= -1, y == np.inf)), 0.0, y)
    )


def _entr(op: Op, x: Any) -> Any:
    """``-x·log(x)`` for ``x > 0``, 0 at 0, ``-inf`` below (JAX's ``entr``)."""
    return np.where(x < 0, -np.inf, -_xlogy(op, x, x))


def _ndtr(op: Op, x: Any) -> Any:
    """The standard normal CDF, ``erfc(-x/√2) / 2``: no cancellation in either tail."""
    return 0.5 * op("erfc", -x / math.sqrt(2.0))


def _log_ndtr(op: Op, x: Any) -> Any:
    """``log(ndtr(x))`` in JAX's three pieces (float64): ``-ndtr(-x)`` above 8, the
    asymptotic series below -20 (``-x²/2 - log(-x) - log(2π)/2 + log(1 - 1/x² + 3/x⁴ -
    …)``), each branch's argument moved by ``np.where`` (no tie at -20 or 8) so that no
    branch is infinite, the logarithm's too: above 8 it reads 1, not ``ndtr(-x)``, whose
    logarithm is ``-inf`` past 38 and whose square (in the Hessian's ``-a/b²``) is 0 past
    27, both a NaN where JAX's Hessian is finite (statsmodels' probit at 300 regressors).
    Ten terms of the series, not JAX's three: the first two derivatives are those of
    ``log Φ`` to 2e-15 at -20.5 (mpmath), where JAX's second is off by 1.4e-6."""
    upper, middle = x > 8.0, x > -20.0
    p = _ndtr(op, np.where(upper, -x, np.where(middle, x, -20.0)))
    low = np.where(middle, -20.0, x)
    x2 = low * low
    series, term = 1.0, 1.0
    for n in range(1, 11):
        term = -term * (2 * n - 1) / x2
        series = series + term
    tail = -0.5 * x2 - np.log(-low) - 0.5 * math.log(2.0 * math.pi) + np.log(series)
    inside = np.where(upper, 1.0, p)  # above 8, p = ndtr(-x) underflows to 0 past 38
    return np.where(upper, -p, np.where(middle, np.log(inside), tail))


def _gamma_sign(x: Any) -> Any:
    """The sign of Γ(x): 1 above 0, below it -1 on the intervals (-1, 0), (-3, -2), …
    (``floor(x)`` odd); a constant of the point (no derivative)."""
    return np.where(x > 0, 1.0, np.where(np.mod(np.floor(x), 2.0) == 1.0, -1.0, 1.0))


def _gamma(op: Op, x: Any) -> Any:
    """Γ(x) = sign · exp(log|Γ(x)|) (JAX's ``gamma``: ``gammasgn · exp(gammaln)``)."""
    return _gamma_sign(x) * np.exp(op("lgamma", x))


def _beta(op: Op, a: Any, b: Any) -> Any:
    """B(a, b) = Γ(a)Γ(b)/Γ(a + b) by its logarithm and the three signs."""
    sign = _gamma_sign(a) * _gamma_sign(b) * _gamma_sign(a + b)
    return sign * np.exp(op("lgamma", a) + op("lgamma", b) - op("lgamma", a + b))


def _erfcinv(op: Op, y: Any) -> Any:
    """``erfcinv(y) = −ndtri(y/2)/√2``: ``y/2`` is exact, so the tail near ``y = 0``
    keeps its digits (``erfinv(1 − y)`` would round ``1 − y`` first)."""
    return -op("ndtri", 0.5 * y) / math.sqrt(2.0)


def _ndtri_exp(op: Op, y: Any) -> Any:
    """``ndtri(exp(y))`` of a log-probability: below log ½ the quantile of ``exp(y)``,
    above it ``−ndtri(−expm1(y))`` (``1 − exp(y)`` kept exact); NaN where ``exp(y)``
    underflows (y < −700), which scipy still resolves."""
    low = y < -math.log(2.0)
    far = np.where(y < -700.0, np.nan, np.exp(np.where(low, y, -1.0)))
    near = -op("ndtri", -np.expm1(np.where(low, -0.5, y)))
    return np.where(low, op("ndtri", far), near)


def _exprel(op: Op, x: Any) -> Any:
    """``(eˣ − 1)/x``, 1 at 0: Taylor's series to x⁵ below |x| = 10⁻³ (its error 10⁻²²
    there; its derivative ½ at 0, where ``expm1(x)/x`` is 0/0)."""
    small = np.abs(x) < 1e-3
    series = 1.0 + x * (1 / 2 + x * (1 / 6 + x * (1 / 24 + x * (1 / 120 + x / 720))))
    inside = np.where(small, 1.0, x)
    return np.where(small, series, np.expm1(inside) / inside)


def _poch(op: Op, z: Any, m: Any) -> Any:
    """Pochhammer's ``(z)_m = Γ(z + m)/Γ(z)`` by logarithms and the two signs."""
    sign = _gamma_sign(z + m) * _gamma_sign(z)
    return sign * np.exp(op("lgamma", z + m) - op("lgamma", z))


def _rgamma(op: Op, x: Any) -> Any:
    """``1/Γ(x)``: 0 at the poles, where ``lgamma`` is infinite."""
    return _gamma_sign(x) * np.exp(-op("lgamma", x))


def _loggamma(op: Op, x: Any) -> Any:
    """scipy's ``loggamma`` of a real argument: ``lgamma`` above 0, NaN at and below it."""
    inside = np.where(x > 0, x, 1.0)
    return np.where(x > 0, op("lgamma", inside), np.nan)


def _gammasgn(op: Op, x: Any) -> Any:
    """The sign of Γ(x), scipy's: NaN at the poles (the negative integers, −inf), the sign
    of zero at ±0; a constant of the point (no derivative)."""
    pole = (x < 0) & (x == np.floor(x))
    zero = np.where(np.arctan2(x, -1.0) < 0, -1.0, 1.0)  # -0.0: Γ(-0) = -inf
    return np.where(pole, np.nan, np.where(x == 0, zero, _gamma_sign(x)))


def _powm1(op: Op, x: Any, y: Any) -> Any:
    """``x**y − 1``: ``expm1(y·log x)`` for a positive ``x`` (no cancellation near
    ``x**y = 1``), the power itself at and below 0 (NaN there but for whole ``y``)."""
    positive = x > 0
    inside = np.where(positive, x, 1.0)
    return np.where(positive, np.expm1(y * np.log(inside)), np.power(x, y) - 1.0)


def _inverse_boxcox(of: Callable[[Any], Any]) -> Callable[..., Any]:
    """scipy's ``inv_boxcox`` (``of = exp``) or ``inv_boxcox1p`` (``expm1``):
    ``of(log1p(λ·y)/λ)``, its argument ``y·log1p(u)/u`` (``u = λ·y``) by Taylor's series to
    u⁵ below ``|u| = 10⁻³``, so that it is smooth at ``λ = 0`` (derivative ``-y²/2`` there,
    as :func:`_boxcox_of`); ``of(y)`` where ``|λ| < 1e-19`` and ``u`` is not small (scipy's
    cut, an infinite ``y``)."""

    def inverse(op: Op, y: Any, lmbda: Any) -> Any:
        u = lmbda * y
        small = np.abs(u) < 1e-3
        s = np.where(small, u, 0.0)
        near = y * (1.0 - s * (1 / 2 - s * (1 / 3 - s * (1 / 4 - s * (1 / 5 - s / 6)))))
        lam = np.where(small, 1.0, lmbda)
        far = np.log1p(lam * np.where(small, 0.0, y)) / lam
        return of(np.where(small, near, np.where(np.abs(lmbda) < 1e-19, y, far)))

    return inverse


def _degree(name: str, n: Any) -> int:
    """The polynomial's degree: a constant whole number (scipy's other orders are
    hypergeometric functions, not read here)."""
    if not isinstance(n, int | float | np.integer | np.floating | np.ndarray):
        raise InputError(f"scipy.special.{name} with a degree that depends on the inputs")
    values = np.unique(np.asarray(n, dtype=float))
    if values.size != 1 or values[0] < 0 or values[0] != np.floor(values[0]):
        shown = np.array2string(np.asarray(n), threshold=6)  # a constant's own repr may be a view's
        raise InputError(f"scipy.special.{name}: give one whole degree n >= 0, not {shown}")
    return int(values[0])


# the three-term recurrences p_(k+1) = a_k(x)·p_k − b_k·p_(k−1), from p_0 = 1 and p_1
# (Abramowitz and Stegun 22.7): each (p_1(x), a_k(x), b_k)
_RECURRENCES: dict[str, tuple[Callable, Callable, Callable]] = {
    "eval_legendre": (
        lambda x: x,
        lambda k, x: (2 * k + 1) / (k + 1) * x,
        lambda k: k / (k + 1),
    ),
    "eval_chebyt": (lambda x: x, lambda k, x: 2.0 * x, lambda k: 1.0),
    "eval_chebyu": (lambda x: 2.0 * x, lambda k, x: 2.0 * x, lambda k: 1.0),
    "eval_hermite": (lambda x: 2.0 * x, lambda k, x: 2.0 * x, lambda k: 2.0 * k),
    "eval_hermitenorm": (lambda x: x, lambda k, x: x, lambda k: float(k)),
    "eval_laguerre": (
        lambda x: 1.0 - x,
        lambda k, x: (2 * k + 1 - x) / (k + 1),
        lambda k: k / (k + 1),
    ),
}


def _orthogonal(name: str) -> Callable[..., Any]:
    """The classical orthogonal polynomial ``name(n, x)`` of a constant degree, by its
    recurrence (scipy evaluates the same polynomials)."""
    first, a, b = _RECURRENCES[name]

    def evaluate(op: Op, n: Any, x: Any) -> Any:
        degree = _degree(name, n)
        if degree == 0:
            return np.ones_like(x)
        before, current = 1.0, first(x)
        for k in range(1, degree):
            before, current = current, a(k, x) * current - b(k) * before
        return current

    return evaluate


def _constant(name: str, what: str, a: Any, operand: bool = False) -> Any:
    """``a``, refused in one line where it depends on the inputs (``what`` of ``name``
    takes no derivative here, see :data:`dgraph.blocks.array_extra.EXTRA_ELEMENTWISE`);
    where it is an ``operand`` of the operation as it is (the incomplete gammas' and
    beta's shapes), also a traced array computed from the parameters alone (``params=``:
    no input's derivative reaches it)."""
    tape = getattr(a, "tape", None)  # a module's NumPy constant has one too (its view's)
    if operand and tape is not None and getattr(a, "name", None) in tape.fixed:
        return a
    if not isinstance(a, int | float | np.ndarray | np.generic):
        raise InputError(
            f"scipy.special.{name} with {what} that depends on the inputs is not supported:"
            " give a constant"
        )
    return a


def _whole_order(name: str, v: Any) -> int:
    """A Bessel function's order: one constant whole number (SciPy's fractional orders
    are not read here)."""
    if not isinstance(v, int | float | np.integer | np.floating | np.ndarray):
        raise InputError(f"scipy.special.{name} with an order that depends on the inputs")
    values = np.unique(np.asarray(v, dtype=float))
    if values.size != 1 or not np.isfinite(values[0]) or values[0] != np.floor(values[0]):
        shown = np.array2string(np.asarray(v), threshold=6)
        raise InputError(f"scipy.special.{name}: give one whole order n, not {shown}")
    return int(values[0])


# each Bessel function of a whole order: its operations of order 0 and 1, the sign s of
# the upward recurrence f_(k+1) = (2k/x)·f_k + s·f_(k−1) (A&S 9.1.27, 9.6.26: −1 for Y,
# +1 for K; None for J and I, whose upward recurrence loses their digits where n > |x|:
# orders 0 and ±1 only), and whether f_(−n) = (−1)ⁿ·f_n (J, Y) or f_n (K, I; 9.1.5, 9.6.6)
_ORDERS: dict[str, tuple[str, str, int | None, bool]] = {
    "jv": ("j0", "j1", None, True),
    "yv": ("y0", "y1", -1, True),
    "yn": ("y0", "y1", -1, True),
    "kv": ("k0", "k1", 1, False),
    "kn": ("k0", "k1", 1, False),
    "kve": ("k0e", "k1e", 1, False),
    "ive": ("bessel_i0e", "bessel_i1e", None, False),
}


def _bessel_of_order(name: str) -> Callable[..., Any]:
    """``name(v, x)`` of a constant whole order: its order-0 or order-1 operation, or the
    upward recurrence from both (stable for Y and K, which grow with the order)."""
    zero, one, sign, odd = _ORDERS[name]

    def evaluate(op: Op, v: Any, x: Any) -> Any:
        n = _whole_order(name, v)
        m = abs(n)
        if sign is None and m > 1:
            raise InputError(
                f"scipy.special.{name} of order {n}: only the orders 0 and ±1 are read (the"
                " upward recurrence loses its digits where the order exceeds |x|)"
            )
        if m == 0:
            return op(zero, x)
        before, current = op(zero, x), op(one, x)
        for k in range(1, m):
            before, current = current, 2.0 * k / x * current + sign * before
        return -current if odd and n < 0 and m % 2 else current

    return evaluate


def _iv(op: Op, v: Any, x: Any) -> Any:
    """I_n(x) of the orders 0 and ±1: ``ive``'s times e^|x|."""
    return _bessel_of_order("ive")(op, v, x) * np.exp(np.abs(x))


def _expn(op: Op, n: Any, x: Any) -> Any:
    """``E_n(x)`` of a constant whole order ``n ≥ 0`` (SciPy truncates a fractional one,
    with a warning, and gives NaN for a negative one: refused in one line): the
    operation ``expn`` from order 2 on, ``exp1`` at 1 and ``e^(-x)/x`` at 0, so that no
    derivative asks for a negative order."""
    n = np.asarray(_constant("expn", "an order", n), dtype=float)
    if not np.all((n == np.floor(n)) & (n >= 0)):
        raise InputError("scipy.special.expn of an order that is not a whole number >= 0")
    if np.all(n >= 2):
        return op("expn", n, x)
    if np.all(n == 1):
        return op("exp1", x)
    if np.all(n == 0):
        return np.exp(-x) / x
    low = np.where(n == 0, np.exp(-x) / x, op("exp1", x))
    return np.where(n >= 2, op("expn", np.maximum(n, 2.0), x), low)


def _incomplete_gamma(name: str, lower: bool, shape: Callable[..., Any], x: Callable) -> Any:
    """A composite of one regularized incomplete gamma, P (``lower``) or Q, whose shape
    ``shape(*args)`` must be a constant and whose argument is ``x(*args)``."""

    def composite(op: Op, *args: Any) -> Any:
        a = _constant(name, "a shape parameter", shape(*args), operand=True)
        return op("igamma" if lower else "igammac", a, x(*args))

    return composite


def _incomplete_beta(name: str, a: Callable, b: Callable, x: Callable) -> Any:
    """A composite of one regularized incomplete beta I_x(a, b), its parameters
    ``a(*args)`` and ``b(*args)`` constants and its argument ``x(*args)``."""

    def composite(op: Op, *args: Any) -> Any:
        shapes = [_constant(name, "a shape parameter", f(*args), operand=True) for f in (a, b)]
        return op("betainc", *shapes, x(*args))

    return composite


def _binomial_tail(name: str, upper: bool) -> Any:
    """``bdtr(k, n, p)``, the binomial's P(K ≤ ⌊k⌋) = I_(1−p)(n − k, k + 1), and ``bdtrc``
    (``upper``), P(K > ⌊k⌋) = I_p(k + 1, n − k) (Abramowitz and Stegun 26.5.24), of
    constant ``k`` and ``n``: ``k = n`` is the certain event; a ``k`` outside 0..n (NaN in
    SciPy but bdtrc's below 0) is refused in one line."""

    def composite(op: Op, k: Any, n: Any, p: Any) -> Any:
        k = np.floor(_constant(name, "a count k", k))
        n = np.asarray(_constant(name, "a count n", n), dtype=float)
        if not np.all((k >= 0) & (k <= n)):
            raise InputError(f"scipy.special.{name} with k outside 0..n is not supported")
        whole = k == n
        a, b = np.where(whole, 1.0, n - k), k + 1.0  # I(1, ·) where k = n: not used
        value = op("betainc", b, a, p) if upper else op("betainc", a, b, 1.0 - p)
        return np.where(whole, 0.0 if upper else 1.0, value) if np.any(whole) else value

    return composite


_T_TERMS = 16  # the series' terms near t = 0: below 1e-18 of its sum (see _stdtr)


def _stdtr(op: Op, df: Any, t: Any) -> Any:
    """Student's t CDF with ``df`` (a constant) degrees of freedom: in the tails, where
    t² ≥ df, half of I_(df/(df+t²))(df/2, 1/2) (Abramowitz and Stegun 26.7.1: the mass
    beyond |t|), else ½ ± ½·I_(t²/(df+t²))(1/2, df/2) (the mass within), each argument
    the small one, whose digits are kept (as Boost's ``students_t`` CDF); each branch's
    operand held in its range (``np.where``: the other's derivative, infinite at x = 0
    or 1, is never read). Near 0 the second's derivatives are sums of terms that grow
    like 1/t and cancel (0·∞ at t = 0): below |t| = min(1, √df/10) the CDF is the
    density's binomial series integrated, ½ + f(0)·Σ C(−(df+1)/2, k)·t^(2k+1)/((2k+1)·dfᵏ),
    f(0) = Γ((df+1)/2)/(√(dfπ)·Γ(df/2)), whose ratio t²/df ≤ 1/100 (or 1/df, its
    coefficients then below 2⁻ᵏ/k!) leaves 16 terms below 1e-18 of the sum."""
    df = np.asarray(_constant("stdtr", "degrees of freedom", df), dtype=float)
    import scipy.special as sps  # of the constant df only

    near = np.abs(t) < np.minimum(1.0, 0.1 * np.sqrt(df))
    far = (t * t >= df) & ~near
    tail = 0.5 * op("betainc", 0.5 * df, 0.5, df / (df + np.where(far, t * t, df)))
    inside = np.where(far | near, df, t * t)
    within = 0.5 * op("betainc", 0.5, 0.5 * df, inside / (df + inside))
    value = np.where(far, np.where(t < 0, tail, 1.0 - tail), 0.5 + np.sign(t) * within)
    c, coefficients = 1.0, []
    for k in range(_T_TERMS):
        coefficients.append(c / (2 * k + 1))
        c = c * (-0.5 * (df + 1.0) - k) / ((k + 1) * df)
    u = np.where(near, t, 0.0)
    w, series = u * u, coefficients[-1]
    for a in reversed(coefficients[:-1]):
        series = series * w + a
    density = np.exp(sps.gammaln(0.5 * (df + 1.0)) - sps.gammaln(0.5 * df)) / np.sqrt(df * math.pi)
    return np.where(near, 0.5 + density * u * series, value)


def _erfcx(op: Op, x: Any) -> Any:
    """The scaled complementary error function ``exp(x²)·erfc(x)``; above 25, where
    ``erfc`` underflows, its asymptotic series ``1/(x√π) Σ (−1)ⁿ (2n−1)!!/(2x²)ⁿ`` (ten
    terms: below 1e-40 relative there), each branch's argument moved by ``np.where``."""
    big = x > 25.0
    near = np.where(big, 0.0, x)
    far = np.where(big, x, 25.0)
    series, term = 1.0, 1.0
    for n in range(1, 11):
        term = -term * (2 * n - 1) / (2.0 * far * far)
        series = series + term
    return np.where(
        big, series / (far * math.sqrt(math.pi)), np.exp(near * near) * op("erfc", near)
    )


def _both_positive(x: Any, y: Any) -> tuple[Any, Any, Any]:
    """Where ``x > 0`` and ``y > 0``, and ``x``, ``y`` moved to 1 elsewhere (no branch's
    logarithm is infinite)."""
    both = np.logical_and(x > 0, y > 0)
    return both, np.where(both, x, 1.0), np.where(both, y, 1.0)


def _rel_entr(op: Op, x: Any, y: Any) -> Any:
    """``x·log(x/y)`` for ``x, y > 0``; 0 at ``x = 0, y ≥ 0``; ``inf`` elsewhere."""
    both, sx, sy = _both_positive(x, y)
    zero = np.logical_and(x == 0, y >= 0)
    return np.where(both, sx * np.log(sx / sy), np.where(zero, 0.0, np.inf))


def _kl_div(op: Op, x: Any, y: Any) -> Any:
    """``x·log(x/y) − x + y`` for ``x, y > 0``; ``y`` at ``x = 0, y ≥ 0``; ``inf`` elsewhere."""
    both, sx, sy = _both_positive(x, y)
    zero = np.logical_and(x == 0, y >= 0)
    return np.where(both, sx * np.log(sx / sy) - sx + sy, np.where(zero, y, np.inf))


def _huber(op: Op, delta: Any, r: Any) -> Any:
    """``r²/2`` where ``|r| ≤ δ``, ``δ(|r| − δ/2)`` beyond; ``inf`` for ``δ < 0``."""
    inside = np.abs(r) <= delta
    return np.where(
        delta < 0, np.inf, np.where(inside, 0.5 * r * r, delta * (np.abs(r) - 0.5 * delta))
    )


def _pseudo_huber(op: Op, delta: Any, r: Any) -> Any:
    """``δ²(√(1 + (r/δ)²) − 1)``; 0 for ``δ = 0``, ``inf`` for ``δ < 0``."""
    d = np.where(delta == 0, 1.0, delta)
    q = r / d
    return np.where(
        delta < 0, np.inf, np.where(delta == 0, 0.0, d * d * (np.sqrt(1.0 + q * q) - 1.0))
    )


def _boxcox_of(log_x: Any, lmbda: Any) -> Any:
    """``expm1(λ·log x)/λ``: ``log x · exprel(λ·log x)`` by Taylor's series to (λ·log x)⁵
    below ``|λ·log x| = 10⁻³`` (as :func:`_exprel`), so that it is smooth at ``λ = 0``, where
    the Box-Cox transform is ``log x`` and its derivatives in ``λ`` are ``(log x)²/2``,
    ``(log x)³/3``: a select of ``log x`` there (scipy's cut, ``|λ| < 1e-19``) has derivative
    0. The cut remains for an infinite ``log x`` (``x = 0``)."""
    t = lmbda * log_x
    small = np.abs(t) < 1e-3
    s = np.where(small, t, 0.0)  # each branch at values where it is finite
    near = log_x * (1.0 + s * (1 / 2 + s * (1 / 6 + s * (1 / 24 + s * (1 / 120 + s / 720)))))
    lam = np.where(small, 1.0, lmbda)
    far = np.expm1(lam * np.where(small, 0.0, log_x)) / lam
    return np.where(small, near, np.where(np.abs(lmbda) < 1e-19, log_x, far))


def _lambertw(op: Op, z: Any, k: Any = 0, tol: Any = 1e-8) -> Any:
    """``scipy.special.lambertw(z, k)`` (its private ufunc ``_lambertw(z, k, tol)``, which
    it calls): the principal branch ``k = 0`` of a real argument as the real operation
    ``lambertw`` (what ``.real`` or ``np.real`` of it reads; NaN below −1/e, where W is
    complex); another branch, or a traced branch number, refused in one line."""
    if not isinstance(k, (int, np.integer, np.ndarray)) or np.any(np.asarray(k) != 0):
        raise InputError(
            "scipy.special.lambertw(z, k) of a branch k other than 0 is not supported (the"
            " principal branch, real for z >= -1/e, is)"
        )
    return op("lambertw", z)


# ufunc name: the array operations it is, recorded by ``op``
COMPOSITE_UFUNCS: dict[str, Callable[..., Any]] = {
    "_lambertw": _lambertw,
    "logit": lambda op, p: np.log(p / (1.0 - p)),
    "log_expit": lambda op, x: -np.logaddexp(0.0, -x),
    "xlogy": _xlogy,
    "xlog1py": _xlog1py,
    "entr": _entr,
    "ndtr": _ndtr,
    "betaln": lambda op, a, b: op("lgamma", a) + op("lgamma", b) - op("lgamma", a + b),
    "log_ndtr": _log_ndtr,
    "gamma": _gamma,
    "beta": _beta,
    "erfcinv": _erfcinv,
    "ndtri_exp": _ndtri_exp,
    "exprel": _exprel,
    "poch": _poch,
    "rgamma": _rgamma,
    "loggamma": _loggamma,
    "binom": lambda op, n, k: 1.0 / ((n + 1.0) * _beta(op, n - k + 1.0, k + 1.0)),
    "gammasgn": _gammasgn,
    "powm1": _powm1,
    "cosm1": lambda op, x: -2.0 * np.sin(0.5 * x) ** 2,  # cos x − 1 without cancellation
    "exp10": lambda op, x: np.power(10.0, x),
    "inv_boxcox": _inverse_boxcox(np.exp),
    "inv_boxcox1p": _inverse_boxcox(np.expm1),
    "radian": lambda op, d, m, s: (d + m / 60.0 + s / 3600.0) * (math.pi / 180.0),
    **{name: _orthogonal(name) for name in _RECURRENCES},
    "i0": lambda op, x: op("bessel_i0e", x) * np.exp(np.abs(x)),
    "i1": lambda op, x: op("bessel_i1e", x) * np.exp(np.abs(x)),
    **{name: _bessel_of_order(name) for name in _ORDERS},  # jv (= jn), yv, yn, kv, kn, …
    "iv": _iv,
    "expn": _expn,
    "gammainc": _incomplete_gamma("gammainc", True, lambda a, x: a, lambda a, x: x),
    "gammaincc": _incomplete_gamma("gammaincc", False, lambda a, x: a, lambda a, x: x),
    # the chi-squared, Poisson and gamma distributions' CDFs and their complements
    "chdtr": _incomplete_gamma("chdtr", True, lambda v, x: v / 2.0, lambda v, x: x / 2.0),
    "chdtrc": _incomplete_gamma("chdtrc", False, lambda v, x: v / 2.0, lambda v, x: x / 2.0),
    "pdtr": _incomplete_gamma("pdtr", False, lambda k, m: np.floor(k) + 1.0, lambda k, m: m),
    "pdtrc": _incomplete_gamma("pdtrc", True, lambda k, m: np.floor(k) + 1.0, lambda k, m: m),
    "gdtr": _incomplete_gamma("gdtr", True, lambda a, b, x: b, lambda a, b, x: a * x),
    "gdtrc": _incomplete_gamma("gdtrc", False, lambda a, b, x: b, lambda a, b, x: a * x),
    # the regularized incomplete beta and the beta, binomial, F and Student's t CDFs
    "betainc": _incomplete_beta("betainc", lambda a, b, x: a, lambda a, b, x: b, lambda a, b, x: x),
    "betaincc": _incomplete_beta(  # I_(1-x)(b, a): no 1 - I_x(a, b) losing the upper tail
        "betaincc", lambda a, b, x: b, lambda a, b, x: a, lambda a, b, x: 1.0 - x
    ),
    "bdtr": _binomial_tail("bdtr", False),
    "bdtrc": _binomial_tail("bdtrc", True),
    "fdtr": _incomplete_beta(  # 26.6.2: I_(dfn·x/(dfd + dfn·x))(dfn/2, dfd/2)
        "fdtr",
        lambda m, n, x: 0.5 * m,
        lambda m, n, x: 0.5 * n,
        lambda m, n, x: m * x / (n + m * x),
    ),
    "fdtrc": _incomplete_beta(
        "fdtrc", lambda m, n, x: 0.5 * n, lambda m, n, x: 0.5 * m, lambda m, n, x: n / (n + m * x)
    ),
    "stdtr": _stdtr,
    "erfcx": _erfcx,
    "rel_entr": _rel_entr,
    "kl_div": _kl_div,
    "huber": _huber,
    "pseudo_huber": _pseudo_huber,
    "boxcox": lambda op, x, lmbda: _boxcox_of(np.log(x), lmbda),
    "boxcox1p": lambda op, x, lmbda: _boxcox_of(np.log1p(x), lmbda),
    # trigonometric functions of degrees, and round (to even, as rint): scipy's definitions
    "sindg": lambda op, x: np.sin(x * (math.pi / 180.0)),
    "cosdg": lambda op, x: np.cos(x * (math.pi / 180.0)),
    "tandg": lambda op, x: np.tan(x * (math.pi / 180.0)),
    "cotdg": lambda op, x: 1.0 / np.tan(x * (math.pi / 180.0)),
    "round": lambda op, x: np.rint(x),
    # erfi(x) = 2/√π · e^(x²) · D(x), D Dawson's integral (A&S 7.1.17 with 7.1.3)
    "erfi": lambda op, x: (2.0 / math.sqrt(math.pi)) * np.exp(x * x) * op("dawsn", x),
}


def _reduced(axis: Any, keepdims: bool, value: Any, ndim: int) -> Any:
    """``value`` (reduced over ``axis`` with kept dimensions) without them unless
    ``keepdims``."""
    if keepdims:
        return value
    axes = range(ndim) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    return np.squeeze(value, axis=tuple(a % max(ndim, 1) for a in axes)) if ndim else value


def logsumexp(
    a: Any, axis: Any = None, b: Any = None, keepdims: bool = False, return_sign: bool = False
) -> Any:
    """``log(Σ b·exp(a))`` over ``axis``, shifted by the maximum (whose partials cancel
    identically, as in ``np.logaddexp``'s reading); ``return_sign``: ``log|Σ b·exp(a)|``
    and the sum's sign (a constant of the point, as scipy's and JAX's)."""
    ndim = len(np.shape(a))
    m = np.max(a, axis=axis, keepdims=True) if ndim else a
    e = np.exp(a - m)
    if b is not None:
        e = e * b
    total = np.sum(e, axis=axis, keepdims=True) if ndim else e
    if not return_sign:
        return _reduced(axis, keepdims, np.log(total) + m, ndim)
    total = _reduced(axis, keepdims, total, ndim)  # a sign is not reshaped: taken after
    return np.log(np.abs(total)) + _reduced(axis, keepdims, m, ndim), np.sign(total)


def softmax(x: Any, axis: Any = None) -> Any:
    """``exp(x) / Σ exp(x)`` over ``axis``, shifted by the maximum."""
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def log_softmax(x: Any, axis: Any = None) -> Any:
    """``x - logsumexp(x)`` over ``axis``."""
    return x - logsumexp(x, axis=axis, keepdims=True)


def multigammaln(a: Any, d: int) -> Any:
    """The log of the multivariate Γ of dimension ``d``: ``d(d−1)/4·log π + Σ_j
    gammaln(a + (1 − j)/2)``, j = 1 … d (scipy's definition)."""
    if not isinstance(d, int | np.integer) or d < 1:
        raise InputError(f"scipy.special.multigammaln: d must be a positive integer, not {d!r}")
    import scipy.special  # the caller's (``import dgraph`` stays without scipy)

    terms = sum(scipy.special.gammaln(a + (1 - j) / 2.0) for j in range(1, int(d) + 1))
    return d * (d - 1) / 4.0 * math.log(math.pi) + terms


def zeta(op: Op, x: Any, q: Any = None) -> Any:
    """Hurwitz's ``zeta(x, q)`` of a constant exponent ``x`` (Riemann's, ``q = 1``, when
    ``q`` is not given)."""
    x = _constant("zeta", "an exponent", x)
    return op("zeta", x, 1.0 if q is None else q)


# Python functions of scipy.special made of array operations, ``op`` their first argument
OPERATIONS: dict[str, Callable[..., Any]] = {"zeta": zeta}

FUNCTIONS: dict[str, Callable[..., Any]] = {
    "multigammaln": multigammaln,
    "logsumexp": logsumexp,
    "softmax": softmax,
    "log_softmax": log_softmax,
}
