"""Real programs through dgraph's public API, a tenth survey beside ``real_programs.py`` …
``real_programs7.py``: NumPy/SciPy code as scipy.optimize, scikit-learn and statsmodels
users write it. scikit-learn's losses as it writes them (``_logistic_loss`` with
``np.logaddexp`` and sample weights, the multinomial loss with ``scipy.special.logsumexp``
over ``axis=1``, ``_huber_loss_and_gradient``'s boolean masks, a quantile (pinball) loss,
t-SNE's KL divergence with in-place ``/=``/``**=``), statsmodels' log-likelihoods (Poisson
and NB2 with ``gammaln``, probit with ``special.ndtr`` and ``special.log_ndtr``, an ordered
logit with ``±inf`` cut points and ``expit``), scipy.optimize's tutorial objectives
(Rosenbrock with the builtin ``sum`` after ``x = np.asarray(x)``, an SLSQP constraint
vector as ``np.array([...])`` of scalars, a Python loop appending to a list then
``np.array(list)``), ``functools.reduce``, ``math.fsum``, ``np.vectorize``, ``np.clip``,
``np.linalg.norm(axis=)``, ``np.einsum``, ``np.dot``/``x.dot``.

Each program's reference is its JAX twin (the same code with jax.numpy and
jax.scipy.special) or, where JAX cannot run the code (a boolean mask of a traced value,
``math.fsum``, in-place updates), a jnp transcription of the same formulas. Columns are
real_programs3's (``SizedSurvey`` of ``benchmarks/real_programs_harness.py``), every value
against ``jax.jacfwd`` / ``jax.hessian`` of the reference, relative 1e-8.

    python benchmarks/real_programs9.py [NAME ...] [--modes=jac,jvp,...] [--limit=SECONDS]
"""

from __future__ import annotations

import functools
import math
import operator
import sys
import types
import warnings
from collections.abc import Callable

import jax
import jax.numpy as jnp
import jax.scipy.special as jss
import numpy as np
from real_programs_harness import (
    MODES_SIZED,
    SizedSurvey,
    _JaxAsNumpy,
    data,
    np_case,
    registry,
    small_cases,
)
from scipy import special
from scipy.special import expit, gammaln, logsumexp

warnings.filterwarnings("ignore")
jax.config.update("jax_enable_x64", True)
rng = np.random.default_rng(29)


def _rng(n: int, salt: int = 0) -> np.random.Generator:
    return np.random.default_rng(1000 * n + salt + 9)


#: name -> (builder n -> Case, small n, medium n or None)
PROGRAMS: dict[str, tuple[Callable[[int], tuple], int, int | None]] = {}
program = registry(PROGRAMS)

#: the JAX twin's globals: jax.numpy and jax.scipy.special where the code calls NumPy/SciPy
_AS_JAX = {
    "np": _JaxAsNumpy(),
    "special": jss,
    "expit": jss.expit,
    "gammaln": jss.gammaln,
    "logsumexp": jss.logsumexp,
}


def twin(f: Callable) -> Callable:
    """The same code run with jax.numpy and jax.scipy.special, its NumPy constants JAX
    arrays (``X.dot(w)`` of a NumPy ``X``)."""
    cells = tuple(types.CellType(jnp.asarray(c.cell_contents))
                  if isinstance(c.cell_contents, np.ndarray) else c
                  for c in f.__closure__ or ())  # fmt: skip
    return types.FunctionType(f.__code__, {**f.__globals__, **_AS_JAX}, f.__name__,
                              f.__defaults__, cells or None)  # fmt: skip


def case(f, xs, scalar, ref=None):
    """A survey case whose reference is ``ref`` or :func:`twin` of ``f``."""
    return np_case(f, xs, scalar, ref or twin(f))


# ---------------------------------------------------------------- scikit-learn


@program(6, 200)
def sk_logistic_loss(n):
    """scikit-learn's ``_logistic_loss(w, X, y, alpha, sample_weight)``: ``w = [coef,
    intercept]``, ``yz = y·(X.dot(w) + c)``, ``log_logistic`` as ``-np.logaddexp(0, -yz)``,
    weighted, plus ``½α w·w`` by ``np.dot``; ``2n`` samples."""
    r = _rng(n)
    X = r.normal(size=(2 * n, n))
    y = np.sign(r.normal(size=2 * n))
    sample_weight = r.random(2 * n) + 0.5
    alpha = 0.1

    def f(w):
        w = np.asarray(w)
        c = w[-1]
        w = w[:-1]
        z = X.dot(w) + c
        yz = y * z
        out = -np.sum(sample_weight * -np.logaddexp(0, -yz))
        out += 0.5 * alpha * np.dot(w, w)
        return out

    return case(f, (data(r, n + 1, scale=0.5),), True)


@program(3, 20)
def sk_multinomial_loss(n):
    """scikit-learn's multinomial loss: ``w`` reshaped ``(n_classes, n_features + 1)``,
    ``p = safe_sparse_dot(X, w.T) + intercept``, ``p -= logsumexp(p, axis=1)[:, None]``,
    ``loss = -(sample_weight · Y · p).sum() + ½α‖w‖²``; ``n`` classes, ``2n`` features."""
    r = _rng(n)
    k, d, m = n, 2 * n, 6 * n
    X = r.normal(size=(m, d))
    labels = r.integers(0, k, size=m)
    Y = np.eye(k)[labels]
    sample_weight = r.random(m) + 0.5
    alpha = 0.05

    def f(coef):
        w = coef.reshape(k, -1)
        intercept = w[:, -1]
        w = w[:, :-1]
        p = np.dot(X, w.T)
        p += intercept
        p = p - logsumexp(p, axis=1)[:, np.newaxis]
        loss = -(sample_weight[:, None] * Y * p).sum()
        loss += 0.5 * alpha * np.sum(w * w)
        return loss

    def ref(coef):
        w = coef.reshape(k, -1)
        p = X @ w[:, :-1].T + w[:, -1]
        p = p - jss.logsumexp(p, axis=1)[:, None]
        return -(sample_weight[:, None] * Y * p).sum() + 0.5 * alpha * jnp.sum(w[:, :-1] ** 2)

    return case(f, (data(r, k * (d + 1), scale=0.3),), True, ref)


@program(5, 200)
def sk_huber_loss(n):
    """scikit-learn's ``_huber_loss_and_gradient`` loss: ``w = [coef, intercept, sigma]``,
    outliers by the boolean mask ``abs(linear_loss) > epsilon·sigma`` indexing the
    residuals and the sample weights, ``np.count_nonzero``, ``np.dot(a.T, b)``."""
    r = _rng(n)
    m = 3 * n
    X = r.normal(size=(m, n))
    y = X @ r.normal(size=n) + r.standard_t(2, size=m)
    sample_weight = r.random(m) + 0.5
    epsilon, alpha = 1.35, 1e-3

    def f(w):
        sigma = w[-1]
        coef = w[:-2]
        intercept = w[-2]
        linear_loss = y - np.dot(X, coef) - intercept
        abs_linear_loss = np.abs(linear_loss)
        outliers_mask = abs_linear_loss > epsilon * sigma
        outliers = abs_linear_loss[outliers_mask]
        outliers_sw = sample_weight[outliers_mask]
        n_sw_outliers = np.sum(outliers_sw)
        outlier_loss = (
            2.0 * epsilon * np.sum(outliers_sw * outliers) - sigma * n_sw_outliers * epsilon**2
        )
        non_outliers = linear_loss[~outliers_mask]
        weighted_non_outliers = sample_weight[~outliers_mask] * non_outliers
        weighted_loss = np.dot(weighted_non_outliers.T, non_outliers)
        squared_loss = weighted_loss / sigma
        return m * sigma + squared_loss + outlier_loss + alpha * np.dot(coef, coef)

    def ref(w):
        sigma, coef, c = w[-1], w[:-2], w[-2]
        e = y - X @ coef - c
        a = jnp.abs(e)
        out = a > epsilon * sigma
        lo = jnp.where(out, 2 * epsilon * a - sigma * epsilon**2, e * e / sigma)
        return m * sigma + jnp.sum(sample_weight * lo) + alpha * coef @ coef

    w0 = np.concatenate([data(r, n, scale=0.5), [0.1, 1.0]])
    return case(f, (w0,), True, ref)


@program(8, 400)
def quantile_pinball(n):
    """A quantile regression's pinball loss ``Σ max(q·r, (q−1)·r)`` by ``np.maximum`` on
    ``r = y − X.dot(w)``, plus a smooth elastic-net term with ``np.linalg.norm`` and an
    ``np.clip``-ed log barrier on the first coefficient."""
    r = _rng(n)
    m = 3 * n
    X = r.normal(size=(m, n))
    y = X @ r.normal(size=n) + r.normal(size=m)
    q = 0.3

    def f(w):
        res = y - X.dot(w)
        pin = np.maximum(q * res, (q - 1) * res)
        barrier = np.log(np.clip(w[0] + 3, 1e-8, None))
        return np.mean(pin) + 0.1 * np.linalg.norm(w) ** 2 - 0.01 * barrier

    return case(f, (data(r, n, scale=0.5),), True)


@program(5, 40)
def tsne_kl(n):
    """t-SNE's KL divergence as scikit-learn's ``_kl_divergence``: pairwise squared
    distances of the ``n × 2`` embedding (by ``np.triu_indices``, as ``pdist``), in place
    ``dist /= dof; dist += 1; dist **= (dof + 1) / -2``, ``Q = np.maximum(dist / (2 Σ dist),
    eps)``, ``2 np.dot(P, np.log(np.maximum(P, eps) / Q))``."""
    r = _rng(n)
    i, j = np.triu_indices(n, k=1)
    P = r.random(i.size)
    P /= P.sum()
    dof, eps = 1.0, np.finfo(np.double).eps

    def f(params):
        X_embedded = params.reshape(n, 2)
        diff = X_embedded[i] - X_embedded[j]
        dist = np.einsum("ij,ij->i", diff, diff)
        dist /= dof
        dist += 1.0
        dist **= (dof + 1.0) / -2.0
        Q = np.maximum(dist / (2.0 * np.sum(dist)), eps)
        return 2.0 * np.dot(P, np.log(np.maximum(P, eps) / Q))

    def ref(params):
        Y = params.reshape(n, 2)
        diff = Y[i] - Y[j]
        dist = ((jnp.einsum("ij,ij->i", diff, diff) / dof) + 1.0) ** ((dof + 1.0) / -2.0)
        Q = jnp.maximum(dist / (2.0 * jnp.sum(dist)), eps)
        return 2.0 * jnp.dot(P, jnp.log(jnp.maximum(P, eps) / Q))

    return case(f, (data(r, 2 * n),), True, ref)


# ---------------------------------------------------------------- statsmodels


@program(5, 200)
def sm_poisson_negbin(n):
    """statsmodels' Poisson ``loglike`` (``XB = np.dot(X, params) + offset``,
    ``-exp(XB) + y·XB - gammaln(y + 1)``) plus NB2's ``loglike_obs`` with ``alpha =
    exp(params[-1])``, ``gammaln(y + 1/α)``, ``prob = a1 / (a1 + mu)``; both summed."""
    r = _rng(n)
    m = 4 * n
    X = np.column_stack([np.ones(m), r.normal(size=(m, n - 1)) * 0.3])
    offset = 0.1 * r.normal(size=m)
    endog = r.poisson(2.0, size=m).astype(float)

    def f(params):
        beta = params[:-1]
        XB = np.dot(X, beta) + offset
        pois = np.sum(-np.exp(XB) + endog * XB - gammaln(endog + 1))
        alpha = np.exp(params[-1])
        a1 = 1 / alpha
        mu = np.exp(np.dot(X, beta))
        prob = a1 / (a1 + mu)
        llf = (
            gammaln(endog + a1) - gammaln(endog + 1) - gammaln(a1)
            + a1 * np.log(prob) + endog * np.log(1 - prob)
        )  # fmt: skip
        return -(pois + np.sum(llf))

    return case(f, (np.concatenate([data(r, n, scale=0.2), [-0.5]]),), True)


@program(6, 300)
def sm_probit(n):
    """statsmodels' Probit ``loglike``: ``q = 2y − 1``, ``Σ log(clip(ndtr(q·Xβ), eps, 1))``
    with ``special.ndtr`` and ``np.clip``, plus the same by ``special.log_ndtr`` (its
    ``loglikeobs`` spelled as newer code writes it)."""
    r = _rng(n)
    m = 4 * n
    X = r.normal(size=(m, n)) * 0.5
    endog = (r.random(m) < 0.5).astype(float)
    FLOAT_EPS = np.finfo(float).eps

    def f(params):
        q = 2 * endog - 1
        xb = np.dot(X, params)
        a = np.sum(np.log(np.clip(special.ndtr(q * xb), FLOAT_EPS, 1)))
        b = np.sum(special.log_ndtr(q * xb))
        return -(a + b)

    return case(f, (data(r, n, scale=0.5),), True)


@program(4, 100)
def sm_ordered_logit(n):
    """statsmodels' ``OrderedModel`` logit ``loglike``: cut points ``[-inf, t0, t0 +
    cumsum(exp(Δ)), inf]`` by ``np.concatenate``, ``low = thresh[y] − xb``, ``upp =
    thresh[y + 1] − xb``, ``prob = expit(upp) − expit(low)``, ``np.log(prob).sum()``;
    ``n`` regressors, four levels."""
    r = _rng(n)
    m, levels = 5 * n, 4
    X = r.normal(size=(m, n)) * 0.5
    yk = r.integers(0, levels, size=m)

    def f(params):
        beta = params[:n]
        th = params[n:]
        thresh = np.concatenate(([-np.inf], th[:1], th[0] + np.cumsum(np.exp(th[1:])), [np.inf]))
        xb = X.dot(beta)
        low = thresh[yk] - xb
        upp = thresh[yk + 1] - xb
        prob = expit(upp) - expit(low)
        return -np.log(prob).sum()

    p0 = np.concatenate([data(r, n, scale=0.3), [-0.5, 0.0, 0.2]])
    return case(f, (p0,), True)


# ---------------------------------------------------------------- scipy.optimize tutorial


@program(6, 500)
def rosen_builtin_sum(n):
    """The scipy.optimize tutorial's Rosenbrock, ``x = np.asarray(x)`` then the builtin
    ``sum(100.0*(x[1:]-x[:-1]**2.0)**2.0 + (1-x[:-1])**2.0)``."""

    def f(x):
        x = np.asarray(x)
        return sum(100.0 * (x[1:] - x[:-1] ** 2.0) ** 2.0 + (1 - x[:-1]) ** 2.0)

    def ref(x):
        return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2.0) ** 2.0 + (1 - x[:-1]) ** 2.0)

    return case(f, (data(_rng(n), n, scale=0.5) + 1.0,), True, ref)


@program(6, 300)
def slsqp_constraints(n):
    """An SLSQP problem's constraints as one vector function: ``np.array([...])`` of two
    traced scalars (the tutorial's ``cons_f``) and a Python loop appending each chained
    constraint ``x[i]² + x[i+1]² − 1`` to a list, ``np.array(list)``, then
    ``np.concatenate``."""

    def f(x):
        x = np.asarray(x, dtype=float)
        head = np.array([x[0] ** 2 + x[1], x[0] ** 2 - x[1]])
        cons = []
        for i in range(n - 1):
            cons.append(x[i] ** 2 + x[i + 1] ** 2 - 1.0)
        return np.concatenate([head, np.array(cons)])

    def ref(x):
        head = jnp.stack([x[0] ** 2 + x[1], x[0] ** 2 - x[1]])
        return jnp.concatenate([head, x[:-1] ** 2 + x[1:] ** 2 - 1.0])

    return case(f, (data(_rng(n), n),), False, ref)


@program(5, 60)
def reduce_fsum(n):
    """An objective summed by ``math.fsum`` of a list of per-term scalars, each the
    ``functools.reduce(operator.mul, ...)`` product of three neighbours and
    ``np.prod([...])`` of a list of traced scalars."""

    def f(x):
        terms = []
        for i in range(n - 2):
            p = functools.reduce(operator.mul, [x[i], x[i + 1], x[i + 2]])
            terms.append((p - 0.1) ** 2 + np.prod([x[i], x[i + 2]]) ** 2)
        return math.fsum(terms)

    def ref(x):
        p = x[:-2] * x[1:-1] * x[2:]
        return jnp.sum((p - 0.1) ** 2 + (x[:-2] * x[2:]) ** 2)

    return case(f, (data(_rng(n), n),), True, ref)


@program(8, 500)
def vectorized_loss(n):
    """A per-sample loss written for scalars and lifted by ``np.vectorize`` (a smooth
    ``log(1 + (r/c)²)`` Cauchy loss), summed over ``r = X.dot(w) − y``; then the rows'
    norms by ``np.linalg.norm(axis=1)`` of a reshaped weight matrix (a group penalty)."""
    r = _rng(n)
    m = 3 * n
    X = r.normal(size=(m, n))
    y = r.normal(size=m)
    c = 1.5

    def cauchy(t):
        return np.log1p((t / c) ** 2)

    loss = np.vectorize(cauchy)

    def f(w):
        res = X.dot(w) - y
        W = w.reshape(-1, 2)
        return np.sum(loss(res)) + 0.1 * np.sum(np.linalg.norm(W, axis=1))

    def ref(w):
        res = X @ w - y
        return jnp.sum(jnp.log1p((res / c) ** 2)) + 0.1 * jnp.sum(
            jnp.linalg.norm(w.reshape(-1, 2), axis=1)
        )

    return case(f, (data(r, n),), True, ref)


# ---------------------------------------------------------------- the survey


def main(argv: list[str]) -> None:
    SizedSurvey(PROGRAMS, CASES, __file__, rng, cell=7, modes=MODES_SIZED).main(argv)


#: each program at its small size, under its name (``dgraph codegen real_programs9.py:NAME``)
CASES = small_cases(PROGRAMS, globals())

if __name__ == "__main__":
    main(sys.argv[1:])
