"""Optimization objectives and Lagrangians as Newton / interior-point users write them, a
ninth survey beside ``benchmarks/real_programs.py`` … ``real_programs7.py`` and
``real_programs_hessian.py``, of kinds those do not hold: scipy.optimize's ``rosen_der`` as
written there (``np.zeros_like`` filled by slices; its Jacobian is ``rosen_hess``), a
logistic regression by ``log1p(exp)`` and one of sparse features by ``np.logaddexp`` of
gathered weights, a negative-binomial GLM whose dispersion is an unknown inside
``gammaln`` (in JAX, and in NumPy by ``scipy.special.gammaln`` with gathered weights), a
softmax regression by ``logsumexp(axis=1)`` (jax.scipy's with ``take_along_axis``, and
scipy.special's), a cross-entropy by scipy.special's ``xlogy`` and ``expit``, a Dirichlet
term by ``digamma``, a 2-D Gaussian mixture's negative log-likelihood in all its
parameters, an entropy-regularized optimal transport dual, an LP's log barrier
``t c·x − Σ log x − Σ log(b − A x)``, trust-constr constraints with ``np.prod`` (their
Lagrangian by ``weights=``), a PHR augmented Lagrangian with ``maximum``, a
bundle-adjustment reprojection residual (Rodrigues rotation, ``x / z``), Cauchy and
Tukey-biweight robust losses (``where``), a mean-variance portfolio ``x @ S @ x`` with
smoothed transaction costs, a Lennard-Jones cluster by broadcast distances indexed by
``np.triu_indices`` and one summed by ``np.triu``, Euler's rigid-body equations by
``np.cross``, a direct transcription by ``np.trapezoid``, an elastic net with
``sqrt(x² + ε²)`` and ``np.convolve``, and a Ginzburg–Landau energy by ``np.roll`` on both
axes.

The columns are ``real_programs_hessian.py``'s (``dense``, ``sparse``, ``tril``, ``hvp``,
``vgh``, ``jax``, ``c``, ``large`` at 10³–10⁴ unknowns) and ``jac``:
``make_function(f, "jacobian", point=[x])`` against ``jax.jacfwd`` of the reference (the
gradient of a scalar program). A NumPy program's reference is its JAX twin (the same code
with jax.numpy) or, for in-place code, a jnp transcription.

    python benchmarks/real_programs8.py [NAME ...] [--modes=jac,dense,...] [--limit=S]
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable

import jax
import jax.numpy as jnp
import jax.scipy as jsp
import numpy as np
import scipy.special as special
from real_programs_harness import Hang, compared, failed, jnp_twin, registry
from real_programs_hessian import HessianSurvey, Program
from scipy.special import logsumexp

warnings.filterwarnings("ignore")
jax.config.update("jax_enable_x64", True)

MODES = ("jac", "dense", "sparse", "tril", "hvp", "vgh", "jax", "c", "large")

#: name -> (builder n -> Program, small n, large n or None)
PROGRAMS: dict[str, tuple[Callable[[int], Program], int, int | None]] = {}
program = registry(PROGRAMS)


def _rng(n: int, salt: int = 0) -> np.random.Generator:
    return np.random.default_rng(1000 * n + salt + 8)


def np_program(f, x, vector=False, ref=None) -> Program:
    return Program(f, np.asarray(x, dtype=float), ref or jnp_twin(f), vector)


def jax_program(f, x, vector=False) -> Program:
    return Program(f, np.asarray(x, dtype=float), f, vector)


# ---------------------------------------------------------------- test functions


def _rosen_jnp(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2.0) ** 2.0 + (1 - x[:-1]) ** 2.0)


@program(10, 10_000)
def rosen_der_inplace_numpy(n):
    """scipy.optimize.rosen_der as written there: a vector program whose Jacobian is
    ``rosen_hess`` and whose ``weights=`` Hessian is ``Σ vᵢ ∇²∂ᵢf``."""

    def f(x):
        xm, xm_m1, xm_p1 = x[1:-1], x[:-2], x[2:]
        der = np.zeros_like(x)
        der[1:-1] = 200 * (xm - xm_m1**2) - 400 * (xm_p1 - xm**2) * xm - 2 * (1 - xm)
        der[0] = -400 * x[0] * (x[1] - x[0] ** 2) - 2 * (1 - x[0])
        der[-1] = 200 * (x[-1] - x[-2] ** 2)
        return der

    return np_program(f, np.linspace(-1.2, 1.0, n), True, jax.grad(_rosen_jnp))


# ---------------------------------------------------------------- statistics, learning


@program(8)
def logreg_log1p_exp_jax(n, lam=0.1):
    r = _rng(n, 1)
    X = r.normal(size=(30, n))
    y = np.where(X @ r.normal(size=n) + 0.3 * r.normal(size=30) > 0, 1.0, -1.0)

    def f(w):
        return jnp.mean(jnp.log1p(jnp.exp(-y * (X @ w)))) + 0.5 * lam * jnp.dot(w, w)

    return jax_program(f, 0.1 * r.normal(size=n))


@program(40, 4000)
def logreg_sparse_features_numpy(n, lam=1e-2):
    """A hashed-feature logistic regression: each of ``n`` samples has 3 active features of
    ``n`` by an index array; ``np.logaddexp(0, -z)`` of gathered weights."""
    r = _rng(n, 2)
    idx = r.integers(0, n, size=(n, 3))
    vals = r.normal(size=(n, 3))
    y = np.where(r.random(n) < 0.5, 1.0, -1.0)

    def f(w):
        z = np.sum(w[idx] * vals, axis=1)
        return np.sum(np.logaddexp(0.0, -y * z)) + 0.5 * lam * np.sum(w**2)

    return np_program(f, 0.1 * r.normal(size=n))


@program(6)
def negbin_dispersion_gammaln_jax(n):
    """A negative-binomial GLM's full negative log-likelihood in ``β`` (``n − 1``) and the
    log-dispersion ``log r``: ``gammaln(y + r) − gammaln(r)`` of an unknown."""
    gammaln = jsp.special.gammaln
    r_ = _rng(n, 3)
    X = 0.5 * r_.normal(size=(25, n - 1))
    y = r_.poisson(3.0, 25).astype(float)

    def f(theta):
        beta, r = theta[:-1], jnp.exp(theta[-1])
        mu = jnp.exp(X @ beta)
        ll = (gammaln(y + r) - gammaln(r) - gammaln(y + 1.0) + r * jnp.log(r / (r + mu))
              + y * jnp.log(mu / (r + mu)))  # fmt: skip
        return -jnp.sum(ll)

    return jax_program(f, np.concatenate([0.1 * r_.normal(size=n - 1), [0.5]]))


@program(12)
def softmax_logsumexp_axis1_jax(n):
    k = 4
    d = n // k
    r = _rng(n, 4)
    X, labels = r.normal(size=(20, d)), r.integers(0, k, 20)

    def f(theta):
        W = theta.reshape(d, k)
        Z = X @ W
        picked = jnp.take_along_axis(Z, labels[:, None], axis=1)[:, 0]
        return jnp.mean(jsp.special.logsumexp(Z, axis=1) - picked) + 1e-3 * jnp.sum(W**2)

    return jax_program(f, 0.1 * r.normal(size=d * k))


@program(15)
def gmm2d_nll_jax(n):
    """A 2-D diagonal Gaussian mixture of ``K = n // 5`` components: means (2K), log
    standard deviations (2K) and weight logits (K); ``logsumexp`` over components."""
    K = n // 5
    r = _rng(n, 5)
    P = np.concatenate([r.normal(size=(15, 2)) + c for c in ([0, 0], [3, 1], [-2, 2])])

    def f(theta):
        mu = theta[: 2 * K].reshape(K, 2)
        ls = theta[2 * K : 4 * K].reshape(K, 2)
        logw = jax.nn.log_softmax(theta[4 * K :])
        z = (P[:, None, :] - mu[None]) / jnp.exp(ls)[None]
        comp = -0.5 * jnp.sum(z**2, axis=2) - jnp.sum(ls, axis=1) - jnp.log(2 * jnp.pi)
        return -jnp.sum(jsp.special.logsumexp(comp + logw, axis=1))

    x = np.concatenate([r.normal(size=2 * K) * 2, 0.1 * r.normal(size=2 * K), np.zeros(K)])
    return jax_program(f, x)


@program(16)
def ot_entropic_dual_numpy(n, eps=0.5):
    """The entropic optimal-transport dual ``−a·u − b·v + ε Σ exp((uᵢ + vⱼ − Cᵢⱼ)/ε)``
    between two point clouds of ``n/2`` points (unknowns ``u, v``)."""
    k = n // 2
    r = _rng(n, 6)
    xs, ys = r.normal(size=(k, 2)), r.normal(size=(k, 2)) + 0.5
    C = np.sum((xs[:, None, :] - ys[None, :, :]) ** 2, axis=2)
    a = np.full(k, 1.0 / k)
    b = r.dirichlet(np.ones(k))

    def f(z):
        u, v = z[:k], z[k:]
        return -(a @ u) - (b @ v) + eps * np.sum(np.exp((u[:, None] + v[None, :] - C) / eps))

    return np_program(f, 0.1 * r.normal(size=2 * k))


@program(6, 2000)
def negbin_glm_scipy_gammaln_numpy(n):
    """The negative-binomial GLM as NumPy users write it: ``scipy.special.gammaln`` of the
    dispersion ``r = exp(θ₋₁)``, ``np.log``; at the medium size a banded design."""
    r_ = _rng(n, 14)
    k = min(n - 1, 5)
    rows = np.arange(3 * n) % (n - 1)
    cols = (rows[:, None] + np.arange(k)[None, :]) % (n - 1)
    vals = 0.5 * r_.normal(size=(3 * n, k))
    y = r_.poisson(3.0, 3 * n).astype(float)

    def f(theta):
        beta, r = theta[:-1], np.exp(theta[-1])
        mu = np.exp(np.sum(beta[cols] * vals, axis=1))
        ll = (special.gammaln(y + r) - special.gammaln(r) + r * np.log(r / (r + mu))
              + y * np.log(mu / (r + mu)))  # fmt: skip
        return -np.sum(ll)

    def ref(theta):
        beta, r = theta[:-1], jnp.exp(theta[-1])
        mu = jnp.exp(jnp.sum(beta[cols] * vals, axis=1))
        ll = (jsp.special.gammaln(y + r) - jsp.special.gammaln(r) + r * jnp.log(r / (r + mu))
              + y * jnp.log(mu / (r + mu)))  # fmt: skip
        return -jnp.sum(ll)

    return np_program(f, np.concatenate([0.1 * r_.normal(size=n - 1), [0.5]]), ref=ref)


@program(12)
def softmax_scipy_logsumexp_numpy(n):
    """A softmax regression by ``scipy.special.logsumexp(Z, axis=1)`` (imported from it)."""
    k = 3
    d = n // k
    r = _rng(n, 15)
    X, labels = r.normal(size=(20, d)), r.integers(0, k, 20)

    def f(theta):
        Z = X @ theta.reshape(d, k)
        return np.mean(logsumexp(Z, axis=1) - Z[np.arange(20), labels]) + 1e-3 * theta @ theta

    def ref(theta):
        Z = X @ theta.reshape(d, k)
        picked = Z[np.arange(20), labels]
        return jnp.mean(jsp.special.logsumexp(Z, axis=1) - picked) + 1e-3 * theta @ theta

    return np_program(f, 0.1 * r.normal(size=d * k), ref=ref)


@program(8)
def logreg_expit_xlogy_numpy(n):
    """A logistic regression's cross-entropy as ``xlogy(y, expit(z)) + xlogy(1 − y, 1 −
    expit(z))`` (scipy.special), labels in {0, 1}."""
    r = _rng(n, 16)
    X = r.normal(size=(30, n))
    y = (X @ r.normal(size=n) + 0.5 * r.normal(size=30) > 0).astype(float)

    def f(w):
        p = special.expit(X @ w)
        return -np.sum(special.xlogy(y, p) + special.xlogy(1 - y, 1 - p)) + 0.05 * w @ w

    def ref(w):
        p = jsp.special.expit(X @ w)
        return -jnp.sum(jsp.special.xlogy(y, p) + jsp.special.xlogy(1 - y, 1 - p)) + 0.05 * w @ w

    return np_program(f, 0.1 * r.normal(size=n), ref=ref)


@program(6)
def dirichlet_elbo_digamma_jax(n):
    """A Dirichlet variational term in log-concentrations: ``E[log θ] = ψ(α) − ψ(Σα)``
    (digamma: its Hessian calls polygamma of order 2), ``log B(α)`` by ``gammaln``."""
    counts = _rng(n, 17).poisson(4.0, n).astype(float) + 1.0

    def f(log_alpha):
        a = jnp.exp(log_alpha)
        e_log = jsp.special.digamma(a) - jsp.special.digamma(jnp.sum(a))
        log_b = jnp.sum(jsp.special.gammaln(a)) - jsp.special.gammaln(jnp.sum(a))
        return -(jnp.sum((counts - a) * e_log) + log_b)

    return jax_program(f, 0.2 * _rng(n).normal(size=n))


# ---------------------------------------------------------------- barriers, constraints


@program(10)
def lp_barrier_numpy(n, t=5.0):
    r = _rng(n, 7)
    A = r.uniform(0.0, 1.0, size=(8, n))
    b = A.sum(axis=1) + 1.0  # x = 1 strictly feasible
    c = r.normal(size=n)

    def f(x):
        return t * (c @ x) - np.sum(np.log(x)) - np.sum(np.log(b - A @ x))

    return np_program(f, 0.5 + 0.4 * r.random(n))


@program(8, 10_000)
def trust_constr_constraints_numpy(n):
    """trust-constr's nonlinear constraints of a chain: circles, the sum, a product by
    ``np.prod`` of the first three (their Lagrangian by ``weights=``)."""

    def f(x):
        return np.concatenate([x[:-1] ** 2 + x[1:] ** 2 - 1.0, [np.sum(x) - 1.0],
                               [np.prod(x[:3])]])  # fmt: skip

    return np_program(f, 0.5 + 0.3 * np.sin(np.arange(n)), vector=True)


@program(10, 10_000)
def augmented_lagrangian_jax(n, mu=10.0):
    """A PHR augmented Lagrangian: equalities ``xᵢ xᵢ₊₁ − 0.5`` and inequalities
    ``xᵢ² − 1 ≤ 0`` with fixed multipliers, ``maximum(0, λ + μ g)``."""
    lam_e = 0.3 * np.cos(np.arange(n - 1))
    lam_i = 0.5 * np.ones(n)

    def f(x):
        obj = jnp.sum((x - 2.0) ** 2) + jnp.sum(jnp.exp(0.1 * x))
        c = x[:-1] * x[1:] - 0.5
        g = x**2 - 1.0
        ineq = jnp.sum(jnp.maximum(0.0, lam_i + mu * g) ** 2 - lam_i**2) / (2 * mu)
        return obj + lam_e @ c + 0.5 * mu * jnp.sum(c**2) + ineq

    return jax_program(f, 0.8 + 0.3 * np.sin(np.arange(n)))


def _rodrigues(r, P):
    """Points ``P`` (m, 3) rotated by the rotation vectors ``r`` (m, 3), Rodrigues'
    formula written out with NumPy."""
    theta = np.sqrt(np.sum(r**2, axis=1, keepdims=True))
    k = r / theta
    cos, sin = np.cos(theta), np.sin(theta)
    kxp = np.stack([k[:, 1] * P[:, 2] - k[:, 2] * P[:, 1], k[:, 2] * P[:, 0] - k[:, 0] * P[:, 2],
                    k[:, 0] * P[:, 1] - k[:, 1] * P[:, 0]], axis=1)  # fmt: skip
    kdp = np.sum(k * P, axis=1, keepdims=True)
    return P * cos + kxp * sin + k * kdp * (1 - cos)


@program(2, 60)
def bundle_adjustment_numpy(n):
    """A bundle-adjustment reprojection residual of ``n`` cameras (rotation vector,
    translation, focal length: 7 each) and ``10 n`` points, each seen by 2 cameras:
    ``f · (x / z, y / z) − observed``."""
    r = _rng(n, 9)
    m = 10 * n
    cam = np.concatenate([np.arange(m) % n, (np.arange(m) + 1) % n])
    pt = np.concatenate([np.arange(m), np.arange(m)])
    obs = r.normal(size=(2 * m, 2))

    def f(x):
        C = x[: 7 * n].reshape(n, 7)
        X = x[7 * n :].reshape(m, 3)
        c = C[cam]
        Q = _rodrigues(c[:, :3], X[pt]) + c[:, 3:6]
        proj = c[:, 6:7] * Q[:, :2] / Q[:, 2:3]
        return (proj - obs).ravel()

    def ref(x):
        C = x[: 7 * n].reshape(n, 7)
        X = x[7 * n :].reshape(m, 3)
        c = C[cam]
        rv, P = c[:, :3], X[pt]
        theta = jnp.sqrt(jnp.sum(rv**2, axis=1, keepdims=True))
        k = rv / theta
        Q = (P * jnp.cos(theta) + jnp.cross(k, P) * jnp.sin(theta)
             + k * jnp.sum(k * P, axis=1, keepdims=True) * (1 - jnp.cos(theta)))  # fmt: skip
        Q = Q + c[:, 3:6]
        return (c[:, 6:7] * Q[:, :2] / Q[:, 2:3] - obs).ravel()

    cams = np.concatenate([0.1 * r.normal(size=(n, 3)), 0.1 * r.normal(size=(n, 2)),
                           np.full((n, 1), 5.0), np.ones((n, 1))], axis=1)  # fmt: skip
    pts = r.normal(size=(m, 3)) * [1.0, 1.0, 0.3]
    return np_program(f, np.concatenate([cams.ravel(), pts.ravel()]), True, ref)


@program(6)
def cauchy_regression_jax(n, c=1.0):
    r = _rng(n, 10)
    X = r.normal(size=(25, n))
    y = X @ r.normal(size=n) + np.where(r.random(25) < 0.2, 5.0, 0.1) * r.normal(size=25)

    def f(w):
        res = X @ w - y
        return jnp.sum(0.5 * c**2 * jnp.log1p((res / c) ** 2))

    return jax_program(f, 0.2 * r.normal(size=n))


@program(12, 10_000)
def tukey_smoothing_numpy(n, c=0.8):
    """Robust smoothing: a data term plus Tukey's biweight of the differences by
    ``np.where(|r| <= c, …, c²/6)``."""
    r = _rng(n, 11)
    y = np.sign(np.sin(np.arange(n) / 5.0)) + 0.1 * r.normal(size=n)

    def f(x):
        d = x[1:] - x[:-1]
        rho = np.where(np.abs(d) <= c, c**2 / 6 * (1 - (1 - (d / c) ** 2) ** 3), c**2 / 6)
        return 0.5 * np.sum((x - y) ** 2) + 2.0 * np.sum(rho)

    return np_program(f, y + 0.05 * r.normal(size=n))


@program(8)
def portfolio_mean_variance_tc_numpy(n, gamma=2.0, kappa=0.01, eps=1e-3):
    r = _rng(n, 12)
    F = r.normal(size=(n, 3))
    S = F @ F.T / 3 + np.diag(r.uniform(0.05, 0.2, n))
    mu = r.uniform(0.0, 0.1, n)
    x0 = np.full(n, 1.0 / n)

    def f(x):
        tc = kappa * np.sum(np.sqrt((x - x0) ** 2 + eps**2))
        return 0.5 * gamma * (x @ S @ x) - mu @ x + tc - 1e-3 * np.sum(np.log(x))

    return np_program(f, r.dirichlet(np.ones(n)))


@program(15, 150)
def lennard_jones_broadcast_numpy(n):
    """A Lennard-Jones cluster: all distances by broadcasting ``P[:, None] − P[None]``, the
    pairs picked by ``r2[np.triu_indices(k, 1)]``."""
    k = n // 3
    side = int(np.ceil(k ** (1 / 3)))
    grid = np.stack(np.meshgrid(*[np.arange(side)] * 3, indexing="ij"), -1).reshape(-1, 3)[:k]
    iu = np.triu_indices(k, 1)

    def f(x):
        P = x.reshape(k, 3)
        D = P[:, None, :] - P[None, :, :]
        r2 = np.sum(D**2, axis=-1)[iu]
        s6 = 1.0 / r2**3
        return 4.0 * np.sum(s6**2 - s6)

    return np_program(f, (1.12 * grid + 0.03 * _rng(n).normal(size=grid.shape)).ravel())


@program(15, 150)
def lennard_jones_triu_numpy(n):
    """A Lennard-Jones energy as a matrix of all pairs (the diagonal's distance set to 1)
    summed above the diagonal by ``np.sum(np.triu(E, 1))``."""
    k = n // 3
    side = int(np.ceil(k ** (1 / 3)))
    grid = np.stack(np.meshgrid(*[np.arange(side)] * 3, indexing="ij"), -1).reshape(-1, 3)[:k]

    def f(x):
        P = x.reshape(k, 3)
        r2 = np.sum((P[:, None, :] - P[None, :, :]) ** 2, axis=-1) + np.eye(k)
        s6 = 1.0 / r2**3
        return 4.0 * np.sum(np.triu(s6**2 - s6, 1))

    return np_program(f, (1.12 * grid + 0.03 * _rng(n).normal(size=grid.shape)).ravel())


@program(12, 3000)
def rigid_bodies_cross_numpy(n):
    """Euler's equations of ``n/6`` rigid bodies as residuals ``I ω̇ + ω × (I ω) − τ`` of
    angular velocities and torques (6 unknowns each), by ``np.cross``; the Lagrangian by
    ``weights=``."""
    k = n // 6
    r = _rng(n, 18)
    inertia = r.uniform(1.0, 3.0, size=(k, 3))
    wdot = r.normal(size=(k, 3))

    def f(z):
        Z = z.reshape(k, 6)
        w, tau = Z[:, :3], Z[:, 3:]
        return (inertia * wdot + np.cross(w, inertia * w) - tau).ravel()

    return np_program(f, r.normal(size=6 * k), vector=True)


@program(20, 4000)
def control_trapezoid_numpy(n, rho=10.0):
    """A direct transcription of ``min ∫ x² + u² dt`` subject to ``x' = −x³ + u``: the cost
    by ``np.trapezoid(…, t)`` and the trapezoidal defects as a quadratic penalty."""
    m = n // 2
    t = np.linspace(0.0, 2.0, m)
    dt = t[1] - t[0]

    def f(z):
        x, u = z[:m], z[m:]
        rhs = -(x**3) + u
        defect = np.diff(x) - 0.5 * dt * (rhs[1:] + rhs[:-1])
        return np.trapezoid(x**2 + u**2, t) + rho * np.sum(defect**2)

    return np_program(f, np.concatenate([np.cos(t), 0.1 * np.sin(3 * t)]))


@program(12, 5000)
def elastic_net_convolve_numpy(n, l1=0.1, l2=0.05, eps=1e-3):
    """A deblurring elastic net: ``½|k * x − b|²`` by ``np.convolve(…, "valid")``, ``l1 Σ
    sqrt(x² + ε²)``, ``l2/2 |x|²``."""
    r = _rng(n, 13)
    kernel = np.array([0.25, 0.5, 0.25])
    truth = np.where(r.random(n) < 0.2, r.normal(size=n), 0.0)
    b = np.convolve(truth, kernel, "valid") + 0.01 * r.normal(size=n - 2)

    def f(x):
        res = np.convolve(x, kernel, "valid") - b
        return 0.5 * np.sum(res**2) + l1 * np.sum(np.sqrt(x**2 + eps**2)) + 0.5 * l2 * x @ x

    return np_program(f, truth + 0.05 * r.normal(size=n))


@program(32, 5000)
def ginzburg_landau_roll_numpy(n, kappa=3.0):
    """A periodic 2-D Ginzburg–Landau energy, ``ψ`` as real and imaginary planes, forward
    differences by ``np.roll`` along both axes."""
    m = round(np.sqrt(n // 2))
    h = 1.0 / m

    def f(z):
        a, b = z[: m * m].reshape(m, m), z[m * m :].reshape(m, m)
        grad = 0.0
        for u in (a, b):
            grad = grad + np.sum((np.roll(u, -1, axis=0) - u) ** 2)
            grad = grad + np.sum((np.roll(u, -1, axis=1) - u) ** 2)
        mod2 = a**2 + b**2
        return 0.5 * grad + 0.25 * kappa**2 * h * h * np.sum((mod2 - 1.0) ** 2)

    return np_program(f, 0.7 + 0.1 * _rng(n).normal(size=2 * m * m))


# ---------------------------------------------------------------- the survey


class Survey8(HessianSurvey):
    """real_programs_hessian's columns and ``jac``."""

    def _run(self, name: str, mode: str) -> tuple[str, str]:
        if mode != "jac":
            return super()._run(name, mode)
        try:
            return self._jac(name)
        except Hang:
            raise
        except Exception as e:  # the survey records every failure
            return failed(e)

    def _jac(self, name: str) -> tuple[str, str]:
        import dgraph

        p = self.points(name)[0]
        made = dgraph.make_function(p.f, "jacobian", point=[p.x])
        want = jax.jacfwd(p.ref)(jnp.asarray(p.x))
        return compared(made(p.x), want)


def main(argv: list[str]) -> None:
    from real_programs_harness import Survey

    hs = Survey8(np.random.default_rng(8), PROGRAMS)
    survey = Survey(dict.fromkeys(PROGRAMS), __file__, hs.rng, cell=7, modes=MODES)
    survey._run = hs._run
    survey.main(argv)
    print("\n".join(hs.extra))


if __name__ == "__main__":
    main(sys.argv[1:])
