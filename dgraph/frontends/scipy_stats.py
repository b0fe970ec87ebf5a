"""scipy.stats' distributions on traced arrays: ``norm.logpdf(x, loc, scale)`` in a NumPy
likelihood is read as the formula it is, written with NumPy's and scipy.special's functions
(which a traced array takes), each of a standardized ``z = (x − loc) / scale``: ``logpdf =
log f(z) − log scale``, ``pdf = exp(logpdf)``, ``cdf``/``sf`` and their logs where the
family has them in closed form, and the quantiles ``ppf``/``isf`` of ``norm``, ``expon``,
``laplace``, ``cauchy``, ``logistic``, ``lognorm``, ``halfnorm``, ``halfcauchy``,
``weibull_min``, ``uniform``, ``gumbel_r``, ``gumbel_l``, ``pareto``, ``rayleigh``,
``genpareto``, ``genextreme``, ``levy``, ``lomax``, ``johnsonsu``, ``burr``, ``triang``,
``kappa3`` and ``truncnorm`` (``loc + scale·Q(q)``); of any family read, the
quantile of constant ``q`` and shapes with a traced ``loc`` or ``scale`` (``t.ppf(0.975,
df, loc=m, scale=s)``) is ``loc + scale·Q`` with scipy's own ``Q``. A call on constants is scipy's
own; a method or family not listed here is refused in one line. Frozen distributions
(``norm(loc, scale).logpdf(x)``) take the same rules.

Families (standardized densities as scipy documents them): ``norm``, ``gamma`` and
``chi2`` (their CDFs the regularized incomplete gamma of a constant shape), ``t``,
``beta`` and ``f`` (their CDFs the regularized incomplete beta of constant shapes),
``expon``, ``laplace``, ``cauchy``, ``logistic``, ``lognorm``, ``halfcauchy``, ``halfnorm``,
``weibull_min``, ``uniform``, ``gumbel_r``, ``gumbel_l``, ``pareto``, ``rayleigh``,
``invgamma`` (its CDF ``Q(a, 1/z)``), ``genpareto`` and ``genextreme`` (scipy's sign of
``c``; smooth through ``c = 0``, their limits there), ``gennorm`` (its CDF of a constant
``beta``), ``skewnorm`` and ``truncnorm`` (``logpdf``, ``pdf``); ``poisson`` (``logpmf``,
``pmf``, and ``cdf``/``sf`` of a constant ``k``), ``binom`` (``logpmf``, ``pmf``, and
``cdf``/``sf`` of constant ``k`` and ``n``) and ``nbinom`` (``logpmf``, ``pmf``);
``multivariate_normal`` (``logpdf``, ``pdf``, rows of ``x`` each a point); ``dirichlet``
(``logpdf``, ``pdf`` of one point).
Session 53's, each scipy's own formula (scipy/stats/_continuous_distns.py): ``levy``,
``lomax``, ``maxwell``, ``invgauss`` (and ``wald``, its μ = 1), ``erlang`` (the gamma),
``nakagami``, ``johnsonsu``, ``loggamma``, ``burr``,
``triang``, ``exponnorm``, ``kappa3`` (their quantiles where closed: ``levy``, ``lomax``,
``johnsonsu``, ``burr``, ``triang``, ``kappa3``), ``vonmises`` and ``rice`` (``logpdf``,
``pdf``); ``lognorm``'s, ``cauchy``'s and ``laplace``'s tails, ``truncnorm``'s ``cdf``,
``sf``, ``ppf``, ``isf`` (constant ``a``, ``b``); ``geom`` and ``bernoulli``, and
``nbinom``'s ``cdf``/``sf`` of constant ``k`` and ``n``.

References: the scipy.stats documentation of each distribution (its ``pdf`` formula) and
JAX's ``jax.scipy.stats`` (the same formulas in ``xlogy``/``gammaln`` terms); Pickands, J.
(1975). Statistical inference using extreme order statistics. *Ann. Statist.* 3(1),
119–131 (the generalized Pareto law).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import InputError

__all__ = ["FAMILIES", "NAMES", "Distribution", "wrap"]

_LOG_2PI = math.log(2.0 * math.pi)


@functools.cache
def _special() -> Any:
    import scipy.special  # the caller's: a program that uses scipy.stats imported scipy

    return scipy.special


def _norm(z: Any) -> dict[str, Any]:
    sp = _special()
    return {
        "logpdf": lambda: -0.5 * z * z - 0.5 * _LOG_2PI,
        "cdf": lambda: sp.ndtr(z),
        "logcdf": lambda: sp.log_ndtr(z),
        "sf": lambda: sp.ndtr(-z),
        "logsf": lambda: sp.log_ndtr(-z),
    }


def _t(z: Any, df: Any) -> dict[str, Any]:
    """Student's t: its density, and its CDF and survival function SciPy's ``stdtr`` (the
    regularized incomplete beta of a constant ``df``: :mod:`.scipy_special`)."""
    sp = _special()
    return {
        "logpdf": lambda: (
            sp.gammaln(0.5 * (df + 1.0))
            - sp.gammaln(0.5 * df)
            - 0.5 * np.log(df * math.pi)
            - 0.5 * (df + 1.0) * np.log1p(z * z / df)
        ),
        "cdf": lambda: sp.stdtr(df, z),
        "sf": lambda: sp.stdtr(df, -z),
    }


def _gamma(z: Any, a: Any) -> dict[str, Any]:
    """Gamma's density and its CDF, the regularized incomplete gamma P(a, z) (the shape
    ``a`` a constant: :mod:`.scipy_special`); at z ≤ 0 the CDF is 0 and its operand reads
    1, whose density is finite (``inside``)."""
    sp = _special()
    inside = np.where(z > 0, z, 1.0)
    return {
        "logpdf": lambda: np.where(
            z > 0, sp.xlogy(a - 1.0, inside) - inside - sp.gammaln(a), -np.inf
        ),
        "cdf": lambda: np.where(z > 0, sp.gammainc(a, inside), 0.0),
        "sf": lambda: np.where(z > 0, sp.gammaincc(a, inside), 1.0),
    }


def _chi2(z: Any, df: Any) -> dict[str, Any]:
    """χ² with ``df`` degrees of freedom: the gamma of shape df/2 at z/2, halved."""
    found = _gamma(z / 2.0, df / 2.0)
    found["logpdf"] = functools.partial(lambda f: f() - math.log(2.0), found["logpdf"])
    return found


def _beta(z: Any, a: Any, b: Any) -> dict[str, Any]:
    """The beta density on (0, 1), its CDF I_z(a, b) and survival function I_(1−z)(b, a)
    (constant ``a``, ``b``), 0 and 1 outside, where the operand reads ½ (``inside``)."""
    sp = _special()
    within = (z > 0) & (z < 1)
    inside = np.where(within, z, 0.5)
    value = sp.xlogy(a - 1.0, inside) + sp.xlog1py(b - 1.0, -inside) - sp.betaln(a, b)
    return {
        "logpdf": lambda: np.where(within, value, -np.inf),
        "cdf": lambda: np.where(within, sp.betainc(a, b, inside), np.where(z <= 0, 0.0, 1.0)),
        "sf": lambda: np.where(within, sp.betaincc(a, b, inside), np.where(z <= 0, 1.0, 0.0)),
    }


def _f(z: Any, dfn: Any, dfd: Any) -> dict[str, Any]:
    """Snedecor's F with ``dfn`` and ``dfd`` degrees of freedom: its density for z > 0
    (``dfn^(dfn/2)·dfd^(dfd/2)·z^(dfn/2−1)/((dfd + dfn·z)^((dfn+dfd)/2)·B(dfn/2, dfd/2))``,
    scipy.stats.f's), its CDF and survival function SciPy's ``fdtr``/``fdtrc`` (constant
    degrees of freedom); z ≤ 0 reads 1 (``inside``)."""
    sp = _special()
    inside = np.where(z > 0, z, 1.0)
    value = (
        0.5 * dfn * np.log(dfn) + 0.5 * dfd * np.log(dfd) + sp.xlogy(0.5 * dfn - 1.0, inside)
        - 0.5 * (dfn + dfd) * np.log(dfd + dfn * inside) - sp.betaln(0.5 * dfn, 0.5 * dfd)
    )  # fmt: skip
    return {
        "logpdf": lambda: np.where(z > 0, value, -np.inf),
        "cdf": lambda: np.where(z > 0, sp.fdtr(dfn, dfd, inside), 0.0),
        "sf": lambda: np.where(z > 0, sp.fdtrc(dfn, dfd, inside), 1.0),
    }


def _expon(z: Any) -> dict[str, Any]:
    inside = np.where(z >= 0, z, 0.0)
    return {
        "logpdf": lambda: np.where(z >= 0, -inside, -np.inf),
        "cdf": lambda: np.where(z >= 0, -np.expm1(-inside), 0.0),
        "sf": lambda: np.where(z >= 0, np.exp(-inside), 1.0),
        "logsf": lambda: np.where(z >= 0, -inside, 0.0),
    }


def _laplace(z: Any) -> dict[str, Any]:
    """Laplace's ``exp(−|z|)/2``; its survival function the CDF at −z (``laplace_gen``)."""

    def cdf(t: Any) -> Any:
        return np.where(
            t < 0, 0.5 * np.exp(np.minimum(t, 0.0)), 1.0 - 0.5 * np.exp(-np.maximum(t, 0.0))
        )

    return {
        "logpdf": lambda: -np.abs(z) - math.log(2.0),
        "cdf": lambda: cdf(z),
        "sf": lambda: cdf(-z),
    }


def _cauchy(z: Any) -> dict[str, Any]:
    """Cauchy's ``1/(π(1 + z²))``; its survival function ``atan2(1, z)/π`` (scipy's
    ``cauchy_gen``: no cancellation in the right tail)."""
    return {
        "logpdf": lambda: -np.log(math.pi * (1.0 + z * z)),
        "cdf": lambda: 0.5 + np.arctan(z) / math.pi,
        "sf": lambda: np.arctan2(1.0, z) / math.pi,
    }


def _logistic(z: Any) -> dict[str, Any]:
    sp = _special()
    return {
        "logpdf": lambda: -z - 2.0 * np.logaddexp(0.0, -z),
        "cdf": lambda: sp.expit(z),
        "sf": lambda: sp.expit(-z),
    }


def _lognorm(z: Any, s: Any) -> dict[str, Any]:
    """The log-normal: the normal of ``log(z)/s`` (scipy's ``lognorm_gen``, its CDF and
    survival function ``Φ(±log(z)/s)``), 0 and 1 at z ≤ 0 (``inside`` reads 1)."""
    sp = _special()
    inside = np.where(z > 0, z, 1.0)
    log = np.log(inside)
    value = -0.5 * log * log / (s * s) - np.log(s * inside) - 0.5 * _LOG_2PI
    u = log / s
    return {
        "logpdf": lambda: np.where(z > 0, value, -np.inf),
        "cdf": lambda: np.where(z > 0, sp.ndtr(u), 0.0),
        "logcdf": lambda: np.where(z > 0, sp.log_ndtr(u), -np.inf),
        "sf": lambda: np.where(z > 0, sp.ndtr(-u), 1.0),
        "logsf": lambda: np.where(z > 0, sp.log_ndtr(-u), 0.0),
    }


def _halfcauchy(z: Any) -> dict[str, Any]:
    """The Cauchy folded at 0 (a scale's prior in hierarchical models, Gelman 2006)."""
    inside = np.where(z >= 0, z, 0.0)
    return {
        "logpdf": lambda: np.where(z >= 0, math.log(2.0 / math.pi) - np.log1p(inside**2), -np.inf),
        "cdf": lambda: np.where(z >= 0, 2.0 / math.pi * np.arctan(inside), 0.0),
    }


def _halfnorm(z: Any) -> dict[str, Any]:
    sp = _special()
    inside = np.where(z >= 0, z, 0.0)
    return {
        "logpdf": lambda: np.where(
            z >= 0, 0.5 * math.log(2.0 / math.pi) - 0.5 * inside * inside, -np.inf
        ),
        "cdf": lambda: np.where(z >= 0, sp.erf(inside / math.sqrt(2.0)), 0.0),
        "sf": lambda: np.where(z >= 0, sp.erfc(inside / math.sqrt(2.0)), 1.0),
    }


def _weibull_min(z: Any, c: Any) -> dict[str, Any]:
    """Weibull's density ``c z^(c−1) exp(−z^c)`` for z > 0 (0 below, and ``z^c`` read at
    1 there: ``inside``), its survival function ``exp(−z^c)``."""
    inside = np.where(z > 0, z, 1.0)
    power = inside**c
    return {
        "logpdf": lambda: np.where(z > 0, np.log(c) + (c - 1.0) * np.log(inside) - power, -np.inf),
        "cdf": lambda: np.where(z > 0, -np.expm1(-power), 0.0),
        "sf": lambda: np.where(z > 0, np.exp(-power), 1.0),
        "logsf": lambda: np.where(z > 0, -power, 0.0),
    }


def _uniform(z: Any) -> dict[str, Any]:
    within = (z >= 0) & (z <= 1)
    return {
        "logpdf": lambda: np.where(within, 0.0, -np.inf),
        "cdf": lambda: np.clip(z, 0.0, 1.0),
        "sf": lambda: 1.0 - np.clip(z, 0.0, 1.0),
    }


def _gumbel_r(z: Any) -> dict[str, Any]:
    return {
        "logpdf": lambda: -z - np.exp(-z),
        "cdf": lambda: np.exp(-np.exp(-z)),
        "logcdf": lambda: -np.exp(-z),
        "sf": lambda: -np.expm1(-np.exp(-z)),
    }


def _gumbel_l(z: Any) -> dict[str, Any]:
    return {
        "logpdf": lambda: z - np.exp(z),
        "cdf": lambda: -np.expm1(-np.exp(z)),
        "sf": lambda: np.exp(-np.exp(z)),
        "logsf": lambda: -np.exp(z),
    }


def _pareto(z: Any, b: Any) -> dict[str, Any]:
    """Pareto's ``b z^(−b−1)`` for z ≥ 1 (``inside`` reads 1 below)."""
    inside = np.where(z >= 1, z, 1.0)
    return {
        "logpdf": lambda: np.where(z >= 1, np.log(b) - (b + 1.0) * np.log(inside), -np.inf),
        "cdf": lambda: np.where(z >= 1, -np.expm1(-b * np.log(inside)), 0.0),
        "sf": lambda: np.where(z >= 1, inside**-b, 1.0),
        "logsf": lambda: np.where(z >= 1, -b * np.log(inside), 0.0),
    }


def _invgamma(z: Any, a: Any) -> dict[str, Any]:
    """The inverse gamma: ``−(a+1) log z − log Γ(a) − 1/z`` for z > 0, its CDF
    ``Q(a, 1/z)`` (a constant ``a``)."""
    sp = _special()
    inside = np.where(z > 0, z, 1.0)
    return {
        "logpdf": lambda: np.where(
            z > 0, -(a + 1.0) * np.log(inside) - sp.gammaln(a) - 1.0 / inside, -np.inf
        ),
        "cdf": lambda: np.where(z > 0, sp.gammaincc(a, 1.0 / inside), 0.0),
        "sf": lambda: np.where(z > 0, sp.gammainc(a, 1.0 / inside), 1.0),
    }


def _rayleigh(z: Any) -> dict[str, Any]:
    inside = np.where(z >= 0, z, 1.0)
    return {
        "logpdf": lambda: np.where(z >= 0, np.log(inside) - 0.5 * inside * inside, -np.inf),
        "cdf": lambda: np.where(z >= 0, -np.expm1(-0.5 * inside * inside), 0.0),
        "sf": lambda: np.where(z >= 0, np.exp(-0.5 * inside * inside), 1.0),
        "logsf": lambda: np.where(z >= 0, -0.5 * inside * inside, 0.0),
    }


def _log1p_ratio(u: Any) -> Any:
    """``log1p(u)/u``, 1 at 0: Taylor's series to u⁵ below |u| = 10⁻³ (as
    ``scipy_special._exprel``), so that it is smooth where the shape is 0."""
    small = np.abs(u) < 1e-3
    s = np.where(small, u, 0.0)  # each branch at values where it is finite
    near = 1.0 - s * (1 / 2 - s * (1 / 3 - s * (1 / 4 - s * (1 / 5 - s / 6))))
    inside = np.where(small, 1.0, u)
    return np.where(small, near, np.log1p(inside) / inside)


def _genpareto(z: Any, c: Any) -> dict[str, Any]:
    """The generalized Pareto law of exceedances (Pickands 1975): ``(1 + c z)^(−1/c)``
    survives, for z ≥ 0 (and ``z < −1/c`` where c < 0), written ``exp(−z·log1p(c z)/(c
    z))`` so that the exponential law at c = 0 (where a fit starts) is the same formula
    with its derivatives in c (a select of ``−z`` at c = 0 has derivative 0 there)."""
    inside = (z >= 0) & (1.0 + c * z > 0)
    zi = np.where(inside, z, 0.0)
    u = c * zi
    log_sf = -zi * _log1p_ratio(u)
    below = z < 0
    return {
        "logpdf": lambda: np.where(inside, log_sf - np.log1p(u), -np.inf),
        "cdf": lambda: np.where(inside, -np.expm1(log_sf), np.where(below, 0.0, 1.0)),
        "sf": lambda: np.where(inside, np.exp(log_sf), np.where(below, 1.0, 0.0)),
        "logsf": lambda: np.where(inside, log_sf, np.where(below, 0.0, -np.inf)),
    }


def _genextreme(z: Any, c: Any) -> dict[str, Any]:
    """The generalized extreme value (scipy's sign of ``c``): with ``t = log(1 − c z)/c``
    on ``1 − c z > 0``, written ``−z·log1p(u)/u`` (``u = −c z``: :func:`_log1p_ratio`) so
    that Gumbel's law at c = 0 is the same formula with its derivatives in c,
    ``log pdf = −exp(t) + t − log(1 − c z)`` and ``log cdf = −exp(t)``."""
    within = 1.0 - c * z > 0
    inside = np.where(within, z, 0.0)
    t = -inside * _log1p_ratio(-c * inside)
    logcdf = -np.exp(t)
    above = np.where(c > 0, 1.0, 0.0)  # beyond the upper end (c > 0): the CDF is 1
    return {
        "logpdf": lambda: np.where(within, logcdf + t - np.log1p(-c * inside), -np.inf),
        "cdf": lambda: np.where(within, np.exp(logcdf), above),
        "logcdf": lambda: np.where(within, logcdf, np.log(above)),
        "sf": lambda: np.where(within, -np.expm1(logcdf), 1.0 - above),
    }


def _skewnorm(z: Any, a: Any) -> dict[str, Any]:
    """The skew normal's density ``2 φ(z) Φ(a z)`` (its CDF needs Owen's T: not read)."""
    return {
        "logpdf": lambda: math.log(2.0) - 0.5 * z * z - 0.5 * _LOG_2PI + _special().log_ndtr(a * z)
    }


def _gennorm(z: Any, beta: Any) -> dict[str, Any]:
    """The generalized normal ``β/(2Γ(1/β))·exp(−|z|^β)``; its CDF by ``Q(1/β, |z|^β)``
    (a constant ``β``)."""
    sp = _special()
    power = np.abs(z) ** beta
    half = 0.5 * np.sign(z)
    return {
        "logpdf": lambda: np.log(0.5 * beta) - sp.gammaln(1.0 / beta) - power,
        "cdf": lambda: (0.5 + half) - half * sp.gammaincc(1.0 / beta, power),
        "sf": lambda: (0.5 - half) + half * sp.gammaincc(1.0 / beta, power),
    }


def _log_gauss_mass(a: Any, b: Any) -> Any:
    """``log(Φ(b) − Φ(a))`` from the nearer tail as scipy's ``_log_gauss_mass``
    (scipy/stats/_continuous_distns.py: ``log_ndtr`` of both ends where both lie on one
    side of 0), so far tails keep their digits."""
    sp = _special()
    # Φ(a) ≤ Φ(b): the difference at most 0 (a traced end's log_ndtr and a constant's,
    # scipy's, may differ in the last digit where a = b)
    left = sp.log_ndtr(b) + np.log1p(-np.exp(np.minimum(sp.log_ndtr(a) - sp.log_ndtr(b), 0.0)))
    right = sp.log_ndtr(-a) + np.log1p(-np.exp(np.minimum(sp.log_ndtr(-b) - sp.log_ndtr(-a), 0.0)))
    middle = np.log1p(-sp.ndtr(a) - sp.ndtr(-b))
    return np.where(b <= 0, left, np.where(a >= 0, right, middle))


def _truncnorm(z: Any, a: Any, b: Any) -> dict[str, Any]:
    """The normal truncated to [a, b]: ``φ(z)`` over the mass ``Φ(b) − Φ(a)``
    (:func:`_log_gauss_mass`); its log CDF and log survival function the masses of [a, z]
    and [z, b] over it, each from the other's complement where above −0.1 (scipy's
    ``truncnorm_gen``); outside (a, b) the masses read a point inside (``inside``)."""
    mass = _log_gauss_mass(a, b)
    within = (z >= a) & (z <= b)
    finite_a, finite_b = np.isfinite(a), np.isfinite(b)
    middle = np.where(
        finite_a & finite_b,
        0.5 * (np.where(finite_a, a, 0.0) + np.where(finite_b, b, 0.0)),
        np.where(finite_a, a + 1.0, np.where(finite_b, b - 1.0, 0.0)),
    )
    between = (z > a) & (z < b)  # scipy's CDF: 0 at a, 1 at b (its open support)
    inside = np.where(between, z, middle)
    lower = _log_gauss_mass(a, inside) - mass
    upper = _log_gauss_mass(inside, b) - mass
    logcdf = np.where(lower > -0.1, np.log1p(-np.exp(upper)), lower)
    logsf = np.where(upper > -0.1, np.log1p(-np.exp(lower)), upper)
    below = z <= a
    return {
        "logpdf": lambda: np.where(within, -0.5 * z * z - 0.5 * _LOG_2PI - mass, -np.inf),
        "cdf": lambda: np.where(between, np.exp(logcdf), np.where(below, 0.0, 1.0)),
        "logcdf": lambda: np.where(between, logcdf, np.where(below, -np.inf, 0.0)),
        "sf": lambda: np.where(between, np.exp(logsf), np.where(below, 1.0, 0.0)),
        "logsf": lambda: np.where(between, logsf, np.where(below, 0.0, -np.inf)),
    }


def _truncnorm_quantiles(q: Any, a: Any, b: Any) -> dict[str, Any]:
    """scipy's ``truncnorm_gen._ppf``/``_isf``: ``ndtri_exp`` of ``log Φ`` at the
    quantile, from the left end (``ppf`` where a < 0, ``isf`` where b < 0) or, by
    symmetry, the right."""
    sp = _special()
    mass = _log_gauss_mass(a, b)
    within = (q > 0) & (q < 1)
    p = np.where(within, q, 0.5)  # q = 0 and 1: the ends, as scipy's ppf gives them

    def log_diff(u: Any, r: Any) -> Any:
        return u + np.log1p(-np.exp(np.minimum(r - u, 0.0)))

    def ppf() -> Any:
        left = sp.ndtri_exp(np.logaddexp(sp.log_ndtr(a), np.log(p) + mass))
        right = -sp.ndtri_exp(np.logaddexp(sp.log_ndtr(-b), np.log1p(-p) + mass))
        return np.where(within, np.where(a < 0, left, right), np.where(q == 0, a, b))

    def isf() -> Any:
        left = sp.ndtri_exp(log_diff(sp.log_ndtr(b), np.log(p) + mass))
        right = -sp.ndtri_exp(log_diff(sp.log_ndtr(-a), np.log1p(-p) + mass))
        return np.where(within, np.where(b < 0, left, right), np.where(q == 0, b, a))

    return {"ppf": ppf, "isf": isf}


def _levy(z: Any) -> dict[str, Any]:
    """Lévy's ``exp(−1/(2z))/√(2π z³)`` for z > 0, its CDF ``erfc(√(1/(2z)))``
    (scipy/stats/_continuous_distns.py, ``levy_gen``); z ≤ 0 reads 1 (``inside``)."""
    sp = _special()
    inside = np.where(z > 0, z, 1.0)
    root = np.sqrt(0.5 / inside)
    return {
        "logpdf": lambda: np.where(
            z > 0, -0.5 * _LOG_2PI - 1.5 * np.log(inside) - 0.5 / inside, -np.inf
        ),
        "cdf": lambda: np.where(z > 0, sp.erfc(root), 0.0),
        "sf": lambda: np.where(z > 0, sp.erf(root), 1.0),
    }


def _lomax(z: Any, c: Any) -> dict[str, Any]:
    """Lomax's (Pareto II) ``c/(1 + z)^(c+1)`` for z > 0, its survival function
    ``exp(−c·log1p(z))`` (``lomax_gen``)."""
    inside = np.where(z > 0, z, 0.0)
    log_sf = -c * np.log1p(inside)
    return {  # the density at z = 0 is c, scipy's (its support closed there)
        "logpdf": lambda: np.where(z >= 0, np.log(c) - (c + 1.0) * np.log1p(inside), -np.inf),
        "cdf": lambda: np.where(z > 0, -np.expm1(log_sf), 0.0),
        "sf": lambda: np.where(z > 0, np.exp(log_sf), 1.0),
        "logsf": lambda: np.where(z > 0, log_sf, 0.0),
    }


def _maxwell(z: Any) -> dict[str, Any]:
    """Maxwell's ``√(2/π) z² exp(−z²/2)`` for z > 0, its CDF ``P(3/2, z²/2)``
    (``maxwell_gen``)."""
    sp = _special()
    inside = np.where(z > 0, z, 1.0)
    half = 0.5 * inside * inside
    return {
        "logpdf": lambda: np.where(
            z > 0, 0.5 * math.log(2.0 / math.pi) + 2.0 * np.log(inside) - half, -np.inf
        ),
        "cdf": lambda: np.where(z > 0, sp.gammainc(1.5, half), 0.0),
        "sf": lambda: np.where(z > 0, sp.gammaincc(1.5, half), 1.0),
    }


def _invgauss(z: Any, mu: Any) -> dict[str, Any]:
    """The inverse Gaussian (Wald) for z > 0: ``−log(2π)/2 − 3/2 log z − (z/μ − 1)²/(2z)``,
    its log CDF and log survival function ``a + log1p(±exp(b − a))`` of the normal's
    ``a = log Φ(±(z/μ − 1)/√z)`` and ``b = 2/μ + log Φ(−(z/μ + 1)/√z)`` (``invgauss_gen``)."""
    sp = _special()
    inside = np.where(z > 0, z, 1.0)
    root = 1.0 / np.sqrt(inside)
    b = 2.0 / mu + sp.log_ndtr(-root * (inside / mu + 1.0))
    low = sp.log_ndtr(root * (inside / mu - 1.0))
    high = sp.log_ndtr(-root * (inside / mu - 1.0))
    logcdf = low + np.log1p(np.exp(b - low))
    logsf = high + np.log1p(-np.exp(b - high))
    value = -0.5 * _LOG_2PI - 1.5 * np.log(inside) - (inside / mu - 1.0) ** 2 / (2.0 * inside)
    return {
        "logpdf": lambda: np.where(z > 0, value, -np.inf),
        "cdf": lambda: np.where(z > 0, np.exp(logcdf), 0.0),
        "logcdf": lambda: np.where(z > 0, logcdf, -np.inf),
        "sf": lambda: np.where(z > 0, np.exp(logsf), 1.0),
        "logsf": lambda: np.where(z > 0, logsf, 0.0),
    }


def _nakagami(z: Any, nu: Any) -> dict[str, Any]:
    """Nakagami's ``2ν^ν/Γ(ν)·z^(2ν−1)·exp(−ν z²)`` for z > 0, its CDF ``P(ν, ν z²)`` (a
    constant ``ν``: ``nakagami_gen``)."""
    sp = _special()
    inside = np.where(z > 0, z, 1.0)
    square = nu * inside * inside
    value = math.log(2.0) + sp.xlogy(nu, nu) - sp.gammaln(nu) + sp.xlogy(2.0 * nu - 1.0, inside)
    return {
        "logpdf": lambda: np.where(z > 0, value - square, -np.inf),
        "cdf": lambda: np.where(z > 0, sp.gammainc(nu, square), 0.0),
        "sf": lambda: np.where(z > 0, sp.gammaincc(nu, square), 1.0),
    }


def _johnsonsu(z: Any, a: Any, b: Any) -> dict[str, Any]:
    """Johnson's S_U: the normal of ``a + b·asinh(z)``, its density times ``b/√(z² + 1)``
    (``johnsonsu_gen``)."""
    sp = _special()
    u = a + b * np.arcsinh(z)
    return {
        "logpdf": lambda: np.log(b) - 0.5 * np.log(z * z + 1.0) - 0.5 * u * u - 0.5 * _LOG_2PI,
        "cdf": lambda: sp.ndtr(u),
        "logcdf": lambda: sp.log_ndtr(u),
        "sf": lambda: sp.ndtr(-u),
        "logsf": lambda: sp.log_ndtr(-u),
    }


_LOGXMIN = math.log(float(np.finfo(float).tiny))  # scipy's: where exp(z) underflows


def _loggamma(z: Any, c: Any) -> dict[str, Any]:
    """The log-gamma ``c z − eᶻ − log Γ(c)``, its CDF ``P(c, eᶻ)`` (a constant ``c``) and
    below log(tiny) ``exp(c z − log Γ(c + 1))`` as scipy's ``loggamma_gen``."""
    sp = _special()
    low = z < _LOGXMIN
    tail = c * np.where(low, z, _LOGXMIN) - sp.gammaln(c + 1.0)
    power = np.exp(np.where(low, _LOGXMIN, z))
    return {
        "logpdf": lambda: c * z - np.exp(z) - sp.gammaln(c),
        "cdf": lambda: np.where(low, np.exp(tail), sp.gammainc(c, power)),
        "sf": lambda: np.where(low, -np.expm1(tail), sp.gammaincc(c, power)),
    }


def _burr(z: Any, c: Any, d: Any) -> dict[str, Any]:
    """Burr (type III): ``c d z^(−c−1)/(1 + z^(−c))^(d+1)`` for z > 0, its log CDF
    ``−d·log1p(z^(−c))`` (``burr_gen``; at z = 0 scipy's ``c d z^(cd−1)`` form)."""
    sp = _special()
    inside = np.where(z > 0, z, 1.0)
    power = inside**-c
    logcdf = -d * np.log1p(power)
    value = np.log(c) + np.log(d) + sp.xlogy(-c - 1.0, inside) - sp.xlog1py(d + 1.0, power)
    cd = c * d
    at_zero = np.where(cd == 1.0, np.log(c * d), np.where(cd > 1.0, -np.inf, np.inf))
    logsf = np.log1p(-np.exp(logcdf))
    return {
        "logpdf": lambda: np.where(z > 0, value, np.where(z == 0, at_zero, -np.inf)),
        "cdf": lambda: np.where(z > 0, np.exp(logcdf), 0.0),
        "logcdf": lambda: np.where(z > 0, logcdf, -np.inf),
        "sf": lambda: np.where(z > 0, np.exp(logsf), 1.0),
        "logsf": lambda: np.where(z > 0, logsf, 0.0),
    }


def _triang(z: Any, c: Any) -> dict[str, Any]:
    """The triangular law on [0, 1] with its mode at ``c``: ``2z/c`` left of it,
    ``2(1 − z)/(1 − c)`` right (``triang_gen``'s branches, c = 0 and c = 1 among them);
    each denominator read 1 where its branch is not taken."""
    left = (z < c) | (c >= 1.0)
    within = (z >= 0) & (z <= 1)
    up = np.where(c > 0, c, 1.0)
    down = np.where(c < 1, 1.0 - c, 1.0)
    density = np.where(left, 2.0 * z / up, 2.0 * (1.0 - z) / down)
    cdf = np.where(left, z * z / up, (z * z - 2.0 * z + c) / -down)
    cdf = np.where(within, cdf, np.where(z < 0, 0.0, 1.0))
    return {
        "logpdf": lambda: np.where(within, np.log(np.where(within, density, 1.0)), -np.inf),
        "cdf": lambda: cdf,
        "sf": lambda: 1.0 - cdf,
    }


def _exponnorm(z: Any, k: Any) -> dict[str, Any]:
    """The exponentially modified normal: ``log(φ ∗ exp)`` as scipy's ``exponnorm_gen``,
    ``(1/K)(1/(2K) − z) + log Φ(z − 1/K) − log K``; its CDF ``Φ(z) − exp(…)``."""
    sp = _special()
    inv = 1.0 / k
    logprod = inv * (0.5 * inv - z) + sp.log_ndtr(z - inv)
    return {
        "logpdf": lambda: logprod - np.log(k),
        "cdf": lambda: sp.ndtr(z) - np.exp(logprod),
        "sf": lambda: sp.ndtr(-z) + np.exp(logprod),
    }


def _vonmises(z: Any, kappa: Any) -> dict[str, Any]:
    """von Mises' ``exp(κ cos z)/(2π I₀(κ))`` written with ``cosm1`` and ``i0e`` as
    scipy's ``vonmises_gen`` (its CDF, a series, is not read)."""
    sp = _special()
    return {"logpdf": lambda: kappa * sp.cosm1(z) - _LOG_2PI - np.log(sp.i0e(kappa))}


def _rice(z: Any, b: Any) -> dict[str, Any]:
    """Rice's ``z·exp(−(z − b)²/2)·i0e(z b)`` for z > 0 (``rice_gen``; its CDF, a
    noncentral χ², is not read)."""
    sp = _special()
    inside = np.where(z > 0, z, 1.0)
    value = np.log(inside) - 0.5 * (inside - b) ** 2 + np.log(sp.i0e(inside * b))
    return {"logpdf": lambda: np.where(z > 0, value, -np.inf)}


def _kappa3(z: Any, a: Any) -> dict[str, Any]:
    """Kappa 3: ``a (a + z^a)^(−1/a−1)`` for z > 0, its CDF ``z (a + z^a)^(−1/a)`` and its
    survival function ``−expm1(−log1p(a z^(−a))/a)`` (scipy's tail form, ``kappa3_gen``)."""
    sp = _special()
    inside = np.where(z > 0, z, 1.0)
    base = a + inside**a
    at_zero = -np.log(a) / a  # the density at z = 0, a^(−1/a), scipy's
    return {
        "logpdf": lambda: np.where(
            z > 0, np.log(a) - (1.0 / a + 1.0) * np.log(base), np.where(z == 0, at_zero, -np.inf)
        ),
        "cdf": lambda: np.where(z > 0, inside * base ** (-1.0 / a), 0.0),
        "sf": lambda: np.where(z > 0, -np.expm1(sp.xlog1py(-1.0 / a, a * inside**-a)), 1.0),
    }


#: family: (standardized rules, the names of its shape parameters)
FAMILIES: dict[str, tuple[Callable[..., dict[str, Any]], tuple[str, ...]]] = {
    "norm": (_norm, ()),
    "t": (_t, ("df",)),
    "gamma": (_gamma, ("a",)),
    "erlang": (_gamma, ("a",)),  # scipy's erlang_gen is gamma_gen (a whole shape)
    "chi2": (_chi2, ("df",)),
    "beta": (_beta, ("a", "b")),
    "f": (_f, ("dfn", "dfd")),
    "expon": (_expon, ()),
    "laplace": (_laplace, ()),
    "cauchy": (_cauchy, ()),
    "logistic": (_logistic, ()),
    "lognorm": (_lognorm, ("s",)),
    "halfcauchy": (_halfcauchy, ()),
    "halfnorm": (_halfnorm, ()),
    "weibull_min": (_weibull_min, ("c",)),
    "uniform": (_uniform, ()),
    "gumbel_r": (_gumbel_r, ()),
    "gumbel_l": (_gumbel_l, ()),
    "pareto": (_pareto, ("b",)),
    "invgamma": (_invgamma, ("a",)),
    "rayleigh": (_rayleigh, ()),
    "genpareto": (_genpareto, ("c",)),
    "genextreme": (_genextreme, ("c",)),
    "skewnorm": (_skewnorm, ("a",)),
    "gennorm": (_gennorm, ("beta",)),
    "truncnorm": (_truncnorm, ("a", "b")),
    "levy": (_levy, ()),
    "lomax": (_lomax, ("c",)),
    "maxwell": (_maxwell, ()),
    "invgauss": (_invgauss, ("mu",)),
    "wald": (functools.partial(_invgauss, mu=1.0), ()),  # scipy's: invgauss at mu = 1
    "nakagami": (_nakagami, ("nu",)),
    "johnsonsu": (_johnsonsu, ("a", "b")),
    "loggamma": (_loggamma, ("c",)),
    "burr": (_burr, ("c", "d")),
    "triang": (_triang, ("c",)),
    "exponnorm": (_exponnorm, ("K",)),
    "vonmises": (_vonmises, ("kappa",)),
    "rice": (_rice, ("b",)),
    "kappa3": (_kappa3, ("a",)),
}

_ONE_P = ("geom", "bernoulli")  # discrete families of one probability p

_CONTINUOUS = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")


def _gumbel_ppf(q: Any) -> Any:
    return -np.log(-np.log(q))


def _gumbel_isf(q: Any) -> Any:
    return -np.log(-np.log1p(-q))


def _triang_ppf(q: Any, c: Any) -> Any:
    """``√(c q)`` below the mode, ``1 − √((1 − c)(1 − q))`` above (``triang_gen``), each
    root's operand read 1 where its branch is not taken."""
    left = q < c
    low = np.sqrt(np.where(left, c * q, 1.0))
    return np.where(left, low, 1.0 - np.sqrt(np.where(left, 1.0, (1.0 - c) * (1.0 - q))))


def _quantiles(family: str, q: Any, *shapes: Any) -> dict[str, Any] | None:
    """The standardized quantile ``ppf(q)`` and its complement ``isf(q) = ppf(1 − q)``
    where the family has them in closed form (None where not): ``isf`` never forms
    ``1 − q``, and Cauchy's ``ppf`` is ``−cot(πq)`` from the nearer end (``halfcauchy``'s
    ``tan(πq/2)`` near q = 1 is scipy's formula, its digits scipy's)."""
    sp = _special()
    ndtri = sp.ndtri
    if family in ("norm", "laplace", "cauchy", "logistic"):  # symmetric: isf = −ppf
        ppf = {
            "norm": lambda: ndtri(q),
            "laplace": lambda: np.where(
                q < 0.5, np.log(2.0 * q), -np.log(2.0 - 2.0 * np.maximum(q, 0.5))
            ),
            # −cot(πq), by the nearer end: πq and π(1 − q) keep their digits
            "cauchy": lambda: np.where(
                q < 0.5, -1.0 / np.tan(math.pi * q), 1.0 / np.tan(math.pi * (1.0 - q))
            ),
            "logistic": lambda: sp.logit(q),
        }[family]
        return {"ppf": ppf, "isf": lambda: -ppf()}
    if family == "expon":
        return {"ppf": lambda: -np.log1p(-q), "isf": lambda: -np.log(q)}
    if family == "halfnorm":
        return {"ppf": lambda: ndtri(0.5 + 0.5 * q), "isf": lambda: -ndtri(0.5 * q)}
    if family == "halfcauchy":
        return {
            "ppf": lambda: np.tan(0.5 * math.pi * q),
            "isf": lambda: 1.0 / np.tan(0.5 * math.pi * q),
        }
    if family == "lognorm":
        (s,) = shapes
        return {"ppf": lambda: np.exp(s * ndtri(q)), "isf": lambda: np.exp(-s * ndtri(q))}
    if family == "uniform":
        return {"ppf": lambda: q * 1.0, "isf": lambda: 1.0 - q}
    if family == "gumbel_r":
        return {"ppf": lambda: _gumbel_ppf(q), "isf": lambda: _gumbel_isf(q)}
    if family == "gumbel_l":
        return {"ppf": lambda: np.log(-np.log1p(-q)), "isf": lambda: np.log(-np.log(q))}
    if family == "pareto":
        (b,) = shapes
        return {"ppf": lambda: (1.0 - q) ** (-1.0 / b), "isf": lambda: q ** (-1.0 / b)}
    if family == "rayleigh":
        return {
            "ppf": lambda: np.sqrt(-2.0 * np.log1p(-q)),
            "isf": lambda: np.sqrt(-2.0 * np.log(q)),
        }
    if family == "genpareto":
        (c,) = shapes
        return {"ppf": lambda: -sp.boxcox1p(-q, -c), "isf": lambda: -sp.boxcox(q, -c)}
    if family == "genextreme":  # −expm1(−c x)/c = x·exprel(−c x): smooth at c = 0
        (c,) = shapes
        return {
            "ppf": lambda: _gumbel_ppf(q) * sp.exprel(-c * _gumbel_ppf(q)),
            "isf": lambda: _gumbel_isf(q) * sp.exprel(-c * _gumbel_isf(q)),
        }
    if family == "levy":  # scipy's: 1/Φ⁻¹(1 − q/2)², 1/(2 erfinv(q)²)
        return {
            "ppf": lambda: 1.0 / ndtri(0.5 * q) ** 2,
            "isf": lambda: 0.5 / sp.erfinv(q) ** 2,
        }
    if family == "lomax":
        (c,) = shapes
        return {"ppf": lambda: np.expm1(-np.log1p(-q) / c), "isf": lambda: q ** (-1.0 / c) - 1.0}
    if family == "johnsonsu":
        a, b = shapes
        return {
            "ppf": lambda: np.sinh((ndtri(q) - a) / b),
            "isf": lambda: np.sinh((-ndtri(q) - a) / b),
        }
    if family == "burr":
        c, d = shapes
        return {
            "ppf": lambda: (q ** (-1.0 / d) - 1.0) ** (-1.0 / c),
            "isf": lambda: np.expm1(sp.xlog1py(-1.0 / d, -q)) ** (-1.0 / c),
        }
    if family == "kappa3":
        (a,) = shapes
        return {
            "ppf": lambda: (a / (q**-a - 1.0)) ** (1.0 / a),
            "isf": lambda: (a / np.expm1(sp.xlog1py(-a, -q))) ** (1.0 / a),
        }
    if family == "triang":  # scipy's branches; isf its generic ppf(1 − q)
        (c,) = shapes
        return {"ppf": lambda: _triang_ppf(q, c), "isf": lambda: _triang_ppf(1.0 - q, c)}
    if family == "truncnorm":
        return _truncnorm_quantiles(q, *shapes)
    if family == "weibull_min":
        (c,) = shapes
        return {
            "ppf": lambda: (-np.log1p(-q)) ** (1.0 / c),
            "isf": lambda: (-np.log(q)) ** (1.0 / c),
        }
    return None


class Distribution:
    """A scipy.stats distribution whose methods take traced arrays (``traced``: the
    tracer's test of a value): scipy's own where no argument is traced."""

    def __init__(self, original: Any, traced: Callable[[Any], bool]) -> None:
        self._original, self._traced = original, traced
        self.name = getattr(original, "name", None) or type(original).__name__.removesuffix("_gen")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """A frozen distribution: its parameters kept for each method."""
        return _Frozen(self, args, kwargs)

    def __getattr__(self, method: str) -> Any:
        original = getattr(self._original, method)
        if not callable(original):
            return original

        def call(*args: Any, **kwargs: Any) -> Any:
            if not any(self._traced(a) for a in (*args, *kwargs.values())):
                return original(*args, **kwargs)
            return _method(self.name, method, args, kwargs, self)

        return call


class _Frozen:
    """``family(*args, **kwargs)``: scipy's own frozen distribution where nothing is
    traced, else each method the family's with the parameters after its own."""

    def __init__(self, family: Distribution, args: tuple, kwargs: dict) -> None:
        self._family, self._args, self._kwargs = family, args, kwargs

    def __getattr__(self, method: str) -> Any:
        family, args, kwargs = self._family, self._args, self._kwargs
        constant = not any(family._traced(a) for a in (*args, *kwargs.values()))
        if constant and not callable(getattr(family._original, method, None)):
            return getattr(family._original(*args, **kwargs), method)

        def call(*xs: Any, **more: Any) -> Any:
            if constant and not any(family._traced(a) for a in (*xs, *more.values())):
                return getattr(family._original(*args, **kwargs), method)(*xs, **more)
            return getattr(family, method)(*xs, *args, **more, **kwargs)

        return call


def _method(
    family: str, method: str, args: tuple, kwargs: dict, owner: Distribution | None = None
) -> Any:
    what = f"scipy.stats.{family}.{method}"
    if family in ("poisson", "binom", "nbinom", "geom", "bernoulli"):
        return _discrete(family, method, args, kwargs, what)
    if family == "multivariate_normal":
        return _multivariate_normal(method, args, kwargs, what)
    if family == "dirichlet":
        return _dirichlet(method, args, kwargs, what)
    quantile = method in ("ppf", "isf")
    if family not in FAMILIES or not (method in _CONTINUOUS or quantile):
        raise InputError(f"{what} of an array that depends on the inputs is not supported")
    rules, shapes = FAMILIES[family]
    names = ("q" if quantile else "x", *shapes, "loc", "scale")
    given = dict(zip(names, args, strict=False))
    for key, value in kwargs.items():
        if key not in names or key in given:
            raise InputError(f"{what}: unexpected or repeated argument {key!r}")
        given[key] = value
    if names[0] not in given or any(s not in given for s in shapes):
        raise InputError(
            f"{what}: needs {names[0]} and the shape parameters {', '.join(shapes) or '(none)'}"
        )
    loc, scale = given.get("loc", 0.0), given.get("scale", 1.0)
    if quantile:
        found = _quantiles(family, given["q"], *(given[s] for s in shapes))
        if found is not None:
            return loc + scale * found[method]()
        standard = (given["q"], *(given[s] for s in shapes))
        if owner is None or any(owner._traced(a) for a in standard):
            raise InputError(f"{what} of an array that depends on the inputs is not supported")
        # constant probabilities and shapes: scipy's own standardized quantile, a constant
        return loc + scale * np.asarray(getattr(owner._original, method)(*standard), float)
    z = (given["x"] - loc) / scale
    found = rules(z, *(given[s] for s in shapes))
    if method in ("logpdf", "pdf"):
        value = found["logpdf"]() - np.log(scale)
        return value if method == "logpdf" else np.exp(value)
    if method in found:
        return found[method]()
    if method in ("logcdf", "logsf") and "cdf" in found:
        return _log_tail(method, z, found, _median(family, shapes, given, owner))
    if method == "sf" and "cdf" in found:
        return 1.0 - found["cdf"]()
    raise InputError(f"{what} of an array that depends on the inputs is not supported")


def _median(family: str, shapes: tuple, given: dict, owner: Distribution | None) -> Any:
    """The standardized median, where scipy's ``_logcdf``/``_logsf`` switch tails: the
    family's quantile at ½, or scipy's own of constant shapes; None where neither."""
    values = [given[s] for s in shapes]
    found = _quantiles(family, 0.5, *values)
    if found is not None:
        return found["ppf"]()
    if owner is None or any(owner._traced(v) for v in values):
        return None
    return np.asarray(owner._original.ppf(0.5, *values), float)


def _log_tail(method: str, z: Any, found: dict, median: Any) -> Any:
    """scipy's generic ``rv_continuous._logcdf`` (``log(cdf)`` below the median,
    ``log1p(−sf)`` above) and ``_logsf`` (the mirror), so that a tail near 1 keeps its
    digits; ``log`` of the one function where the median is not known."""
    cdf = found["cdf"]
    sf = found.get("sf", lambda: 1.0 - cdf())
    if method == "logcdf":
        if median is None:
            return np.log(cdf())
        return np.where(z < median, np.log(cdf()), np.log1p(-sf()))
    if median is None:
        return np.log(sf())
    return np.where(z > median, np.log(sf()), np.log1p(-cdf()))


def _discrete(family: str, method: str, args: tuple, kwargs: dict, what: str) -> Any:
    """``poisson.logpmf(k, mu)``, ``binom.logpmf(k, n, p)``, ``nbinom.logpmf(k, n, p)``
    (``k`` failures before the ``n``-th success, ``n`` real), ``geom.logpmf(k, p)`` and
    ``bernoulli.logpmf(k, p)`` and each ``pmf``, ``loc`` 0; Poisson's ``cdf``/``sf`` (and
    logs) of a constant ``k``: Q(⌊k⌋ + 1, mu) and P; the binomial's (and Bernoulli's, n =
    1) of constant ``k`` and ``n``: SciPy's ``bdtr``/``bdtrc`` (I_(1−p)(n − k, k + 1) and
    I_p(k + 1, n − k)), 0 and 1 beyond 0..n; the negative binomial's of constant ``k`` and
    ``n``: I_p(n, ⌊k⌋ + 1) (scipy's ``nbdtr``) and its complement; the geometric's
    ``−expm1(⌊k⌋·log1p(−p))`` and ``exp(⌊k⌋·log1p(−p))`` (scipy/stats/_discrete_distns.py)."""
    sp = _special()
    names = (
        ("k", "mu") if family == "poisson" else ("k", "p") if family in _ONE_P else ("k", "n", "p")
    )
    given = dict(zip(names, args, strict=False)) | kwargs
    tails = ("cdf", "sf", "logcdf", "logsf")
    if method not in ("logpmf", "pmf", *tails) or set(given) != set(names):
        raise InputError(f"{what} (arguments {', '.join(names)}) is not supported")
    k = given["k"]
    if family == "bernoulli" and method in tails:
        family, given = "binom", given | {"n": 1.0}
    if method in tails and family in ("nbinom", "geom"):
        return _nbinom_tail(family, method, k, given)
    if method in tails and family == "binom":
        n, upper = given["n"], method.endswith("sf")
        inside = np.clip(np.floor(k), 0.0, n)
        value = sp.bdtrc(inside, n, given["p"]) if upper else sp.bdtr(inside, n, given["p"])
        value = np.where(k < 0, 1.0 if upper else 0.0, value)
        return np.log(value) if method.startswith("log") else value
    if method in tails:
        shape, mu = np.floor(k) + 1.0, given["mu"]
        upper = method.endswith("cdf")  # Q(k + 1, mu): at most k events
        inside = np.where(k >= 0, shape, 1.0)
        value = sp.gammaincc(inside, mu) if upper else sp.gammainc(inside, mu)
        value = np.where(k >= 0, value, 0.0 if upper else 1.0)
        return np.log(value) if method.startswith("log") else value
    if family == "poisson":
        value = sp.xlogy(k, given["mu"]) - given["mu"] - sp.gammaln(k + 1.0)
    elif family in _ONE_P:  # SciPy's formulas, -inf off the support (k ≥ 1; k = 0, 1)
        p, one = given["p"], family == "bernoulli"
        on = (k == 0) | (k == 1) if one else k >= 1
        kk = np.where(on, k, 1.0)
        value = (
            sp.xlogy(kk, p) + sp.xlog1py(1.0 - kk, -p)
            if one
            else sp.xlog1py(kk - 1.0, -p) + np.log(p)
        )
        value = np.where(on, value, -np.inf)
    elif family == "nbinom":
        n, p = given["n"], given["p"]
        value = (
            sp.gammaln(n + k) - sp.gammaln(k + 1.0) - sp.gammaln(n)
            + sp.xlogy(n, p) + sp.xlog1py(k, -p)
        )  # fmt: skip
    else:
        n, p = given["n"], given["p"]
        value = (
            sp.gammaln(n + 1.0) - sp.gammaln(k + 1.0) - sp.gammaln(n - k + 1.0)
            + sp.xlogy(k, p) + sp.xlog1py(n - k, -p)
        )  # fmt: skip
    return value if method == "logpmf" else np.exp(value)


def _nbinom_tail(family: str, method: str, k: Any, given: dict) -> Any:
    """The negative binomial's CDF ``I_p(n, ⌊k⌋ + 1)`` and survival function
    ``I_(1−p)(⌊k⌋ + 1, n)`` (constant ``k``, ``n``: scipy's ``nbdtr``/``nbdtrc``), the
    geometric's ``−expm1(⌊k⌋·log1p(−p))`` and ``exp(⌊k⌋·log1p(−p))``; 0 and 1 below the
    support."""
    sp = _special()
    upper = method.endswith("sf")
    low = 0 if family == "nbinom" else 1
    count = np.floor(np.where(k >= low, k, low))
    p = given["p"]
    if family == "geom":
        log_sf = count * np.log1p(-p)
        value = np.exp(log_sf) if upper else -np.expm1(log_sf)
    elif upper:
        value = sp.betaincc(given["n"], count + 1.0, p)
    else:
        value = sp.betainc(given["n"], count + 1.0, p)
    value = np.where(k >= low, value, 1.0 if upper else 0.0)
    return np.log(value) if method.startswith("log") else value


def _multivariate_normal(method: str, args: tuple, kwargs: dict, what: str) -> Any:
    """``logpdf(x, mean, cov)``: ``−(k log 2π + log det cov + dᵀ cov⁻¹ d) / 2`` per point
    (a row of ``x``), ``d = x − mean``; ``entropy(mean, cov)``: ``(k (1 + log 2π) + log
    det cov) / 2``. ``allow_singular`` is taken; a constant singular ``cov`` (scipy's density on
    its support) is refused in one line, one from the inputs fails the check of values at
    the point."""
    singular = bool(kwargs.get("allow_singular", False))
    kwargs = {key: v for key, v in kwargs.items() if key != "allow_singular"}
    if method == "entropy":
        return _multivariate_normal_entropy(args, kwargs, what)
    names = ("x", "mean", "cov")
    given = dict(zip(names, args, strict=False)) | kwargs
    if method not in ("logpdf", "pdf") or not set(given) <= set(names) or "x" not in given:
        raise InputError(f"{what} (arguments x, mean, cov) is not supported")
    x = given["x"]
    k = np.shape(x)[-1] if np.ndim(x) else 1
    mean = given.get("mean", np.zeros(k))
    cov = given.get("cov", 1.0)
    cov = np.eye(k) * cov if np.ndim(cov) < 2 else cov
    if singular and isinstance(cov, np.ndarray) and np.linalg.matrix_rank(cov) < k:
        raise InputError(
            f"{what}: cov is singular (allow_singular=True): its density on the support is not read"
        )
    d = x - mean
    solved = np.linalg.solve(cov, np.transpose(np.reshape(d, (-1, k))))
    quadratic = np.sum(np.reshape(d, (-1, k)) * np.transpose(solved), axis=-1)
    logdet = np.linalg.slogdet(cov)[1]
    value = -0.5 * (k * _LOG_2PI + logdet + quadratic)
    value = value[0] if np.ndim(x) < 2 else value
    return value if method == "logpdf" else np.exp(value)


def _multivariate_normal_entropy(args: tuple, kwargs: dict, what: str) -> Any:
    given = dict(zip(("mean", "cov"), args, strict=False)) | kwargs
    if not set(given) <= {"mean", "cov"}:
        raise InputError(f"{what} (arguments mean, cov) is not supported")
    cov = given.get("cov", 1.0)
    k = np.shape(cov)[-1] if np.ndim(cov) == 2 else max(np.size(given.get("mean", 0.0)), 1)
    cov = np.eye(k) * cov if np.ndim(cov) < 2 else cov
    return 0.5 * (k * (1.0 + _LOG_2PI) + np.linalg.slogdet(cov)[1])


def _dirichlet(method: str, args: tuple, kwargs: dict, what: str) -> Any:
    """``logpdf(x, alpha)`` of one point ``x`` on the simplex (its ``K`` components, or the
    first ``K − 1``, the last ``1 − Σ``): ``log Γ(Σα) − Σ log Γ(α) + Σ (α − 1) log x``."""
    given = dict(zip(("x", "alpha"), args, strict=False)) | kwargs
    if method not in ("logpdf", "pdf") or set(given) != {"x", "alpha"}:
        raise InputError(f"{what} (arguments x, alpha) is not supported")
    x, alpha = given["x"], given["alpha"]
    k = np.shape(alpha)[0] if np.ndim(alpha) == 1 else -1
    if np.ndim(x) != 1 or np.shape(x)[0] not in (k, k - 1):
        raise InputError(f"{what}: x must be one point, a vector of len(alpha) components")
    if np.shape(x)[0] == k - 1:
        x = np.concatenate([x, np.reshape(1.0 - np.sum(x), (1,))])
    sp = _special()
    value = sp.gammaln(np.sum(alpha)) - np.sum(sp.gammaln(alpha)) + np.sum(sp.xlogy(alpha - 1.0, x))
    return value if method == "logpdf" else np.exp(value)


NAMES = (*FAMILIES, "poisson", "binom", "nbinom", *_ONE_P, "multivariate_normal", "dirichlet")


def wrap(original: Any, traced: Callable[[Any], bool]) -> Distribution | None:
    """``original`` (a scipy.stats distribution) taking traced arrays; one whose family is
    not read here is scipy's own on constants and refuses traced arrays in one line
    (naming its family and method). None for anything else."""
    import scipy.stats  # the caller's: ``original`` is one of its distributions

    name = getattr(original, "name", None)
    if type(original).__name__ in ("multivariate_normal_gen", "dirichlet_gen"):
        name = type(original).__name__.removesuffix("_gen")
    if name in NAMES or isinstance(original, scipy.stats.rv_continuous | scipy.stats.rv_discrete):
        return Distribution(original, traced)
    return None
