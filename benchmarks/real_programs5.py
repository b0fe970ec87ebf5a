"""Real programs through dgraph's public API, a sixth survey beside
``benchmarks/real_programs.py``, ``real_programs2.py``, ``real_programs_hessian.py``,
``real_programs3.py`` and ``real_programs4.py``, of kinds those do not hold: max and
average pooling by ``lax.reduce_window`` in a small CNN loss, likelihoods with
``jax.scipy.special`` (a Dirichlet's ``gammaln``, a Student-t's ``gammaln``/``xlogy``/
``log1p``, a Beta-binomial's ``betaln`` and ``digamma``), a nuclear norm by
``jnp.linalg.svd`` and a least-squares fit by ``jnp.linalg.qr``, an empirical CDF by
``jnp.sort`` + ``jnp.searchsorted`` + a gather, ``lax.cond`` inside a ``lax.scan`` body,
``jax.checkpoint`` around a residual block, ``lax.map`` over rows, a 1-D matched filter by
``jnp.correlate``, a SiLU/softplus MLP with a ``jnp.logaddexp`` cross-entropy, NumPy
segment sums by ``np.add.reduceat`` and ``np.bincount(weights=)``, NumPy
``np.einsum(optimize=True)`` with ``np.hypot``/``np.log1p``/``np.expm1``, ``jax.vmap`` over
a ``lax.fori_loop``, a Gaussian mixture's log-likelihood (``logsumexp`` with ``b=``), and
implicit Euler by ``jnp.linalg.solve`` inside ``lax.scan``.

Each program is a builder ``n -> Case`` at a small size (10–100 unknowns) and a medium one
(10³–10⁴); the columns are real_programs3's (``SizedSurvey`` of
``benchmarks/real_programs_harness.py``), every value against ``jax.jacfwd`` /
``jax.hessian`` of the reference, relative 1e-8.

    python benchmarks/real_programs5.py [NAME ...] [--modes=jac,jvp,...] [--limit=SECONDS]
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable

import jax
import jax.numpy as jnp
import jax.scipy.special as jss
import numpy as np
from jax import lax
from real_programs_harness import (
    MODES_SIZED,
    SizedSurvey,
    data,
    jax_case,
    np_case,
    registry,
    small_cases,
)

warnings.filterwarnings("ignore")
jax.config.update("jax_enable_x64", True)
rng = np.random.default_rng(22)


def _rng(n: int, salt: int = 0) -> np.random.Generator:
    return np.random.default_rng(1000 * n + salt + 5)


#: name -> (builder n -> Case, small n, medium n or None)
PROGRAMS: dict[str, tuple[Callable[[int], tuple], int, int | None]] = {}
program = registry(PROGRAMS)


# ---------------------------------------------------------------- machine learning


@program(6, 40)
def cnn_pooling(n):
    """An ``n × n`` image through a 3×3 convolution (shifted slices), ReLU, 2×2 max pooling
    and 2×2 average pooling by ``lax.reduce_window``, a linear readout; squared loss."""
    r = _rng(n)
    K = data(r, 3, 3, scale=0.5)
    m = (n - 2) // 2
    Wout = data(r, m * m, scale=0.3)

    def loss(x):
        X = x.reshape(n, n)
        C = sum(K[i, j] * X[i : i + n - 2, j : j + n - 2] for i in range(3) for j in range(3))
        A = jax.nn.relu(C)
        P = lax.reduce_window(A, -jnp.inf, lax.max, (2, 2), (2, 2), "VALID")
        Q = lax.reduce_window(C, 0.0, lax.add, (2, 2), (2, 2), "VALID") / 4.0
        y = jnp.dot(P[:m, :m].ravel() + jnp.tanh(Q[:m, :m]).ravel(), Wout)
        return (y - 1.0) ** 2

    return jax_case(loss, (data(r, n * n),), True)


@program(12, 2000)
def silu_softplus_bce(n):
    """A two-layer MLP of ``n`` weights (a hidden layer of ``n / 4``, ``jax.nn.silu`` and
    ``jax.nn.softplus``) over 20 samples, the logistic loss by ``jnp.logaddexp(0, -y·z)``."""
    r = _rng(n)
    h = n // 4
    X = data(r, 20, 3)
    y = np.sign(data(r, 20))

    def loss(w):
        W1, w2 = w[: 3 * h].reshape(3, h), w[3 * h : 4 * h]
        a = X @ W1
        z = (jax.nn.silu(a) + 0.5 * jax.nn.softplus(-a)) @ w2
        return jnp.mean(jnp.logaddexp(0.0, -y * z)) + 1e-3 * jnp.sum(w**2)

    return jax_case(loss, (data(r, n, scale=0.5),), True)


@program(4, 30)
def checkpoint_residual(n):
    """Three residual blocks ``x + tanh(W x)`` each under ``jax.checkpoint`` (as memory-aware
    training code writes them); the squared output."""
    r = _rng(n)
    Ws = [data(r, n, n, scale=0.4) for _ in range(3)]

    @jax.checkpoint
    def block(x, W):
        return x + jnp.tanh(W @ x)

    def f(x):
        for W in Ws:
            x = block(x, W)
        return jnp.sum(x**2)

    return jax_case(f, (data(r, n),), True)


@program(8, 400)
def lax_map_rows(n):
    """A per-row soft-max entropy by ``lax.map`` over the rows of an ``n × 4`` matrix; the
    rows' entropies."""

    def f(x):
        def row(v):
            p = jax.nn.softmax(v)
            return -jnp.sum(p * jnp.log(p))

        return lax.map(row, x.reshape(n, 4))

    return jax_case(f, (data(_rng(n), 4 * n),), False)


# ---------------------------------------------------------------- statistics


@program(10, 2000)
def dirichlet_nll(n):
    """A Dirichlet's negative log-likelihood of fixed compositions, concentrations
    ``exp(a)`` of ``n`` parameters (``gammaln``) and its entropy term (``digamma``)."""
    r = _rng(n)
    k = 5
    P = np.abs(data(r, 8, k)) + 0.1
    P /= P.sum(axis=1, keepdims=True)

    def nll(a):
        al = jnp.exp(a.reshape(-1, k)[0] * 0.3) + jnp.sum(a**2) * 1e-3
        norm = jss.gammaln(jnp.sum(al)) - jnp.sum(jss.gammaln(al))
        ll = norm + jnp.sum((al - 1) * jnp.log(P), axis=1)
        h = jnp.sum((al - 1) * jss.digamma(al))
        return -jnp.sum(ll) + 0.1 * h

    return jax_case(nll, (data(r, n, scale=0.3),), True)


@program(10, 2000)
def student_t_loglik(n):
    """A Student-t regression's negative log-likelihood (``gammaln``, ``jnp.log1p``), the
    residuals of ``n`` parameters; plus a ``xlogy`` entropy of softmax weights."""
    r = _rng(n)
    y = data(r, n)
    nu = 4.0

    def nll(x):
        z = (y - x) / 0.7
        c = jss.gammaln((nu + 1) / 2) - jss.gammaln(nu / 2) - 0.5 * jnp.log(nu * jnp.pi)
        ll = c - (nu + 1) / 2 * jnp.log1p(z**2 / nu)
        p = jax.nn.softmax(x)
        return -jnp.sum(ll) + jnp.sum(jss.xlogy(p, p))

    return jax_case(nll, (data(r, n),), True)


@program(10, 2000)
def beta_binomial(n):
    """A Beta-binomial log-likelihood of counts ``k`` of ``N`` trials with logit means: the
    ``jss.betaln`` of shifted parameters and ``jss.xlog1py``."""
    r = _rng(n)
    N = 10
    k = r.integers(0, N + 1, size=n).astype(float)

    def nll(t):
        mu = jax.nn.sigmoid(t)
        a, b = 5 * mu, 5 * (1 - mu)
        ll = jss.betaln(k + a, N - k + b) - jss.betaln(a, b)
        return -jnp.sum(ll) - jnp.sum(jss.xlog1py(k, -mu) * 0.01)

    return jax_case(nll, (data(r, n),), True)


@program(10, 2000)
def gaussian_mixture(n):
    """A three-component 1-D Gaussian mixture's log-likelihood of ``n`` points: the
    component log-densities and ``jax.scipy.special.logsumexp`` with weights ``b=``."""
    r = _rng(n)
    mu, s = np.array([-1.0, 0.5, 2.0]), np.array([0.6, 1.0, 0.4])
    wts = np.array([0.3, 0.5, 0.2])

    def ll(x):
        z = (x[:, None] - mu) / s
        logp = -0.5 * z**2 - jnp.log(s * jnp.sqrt(2 * jnp.pi))
        return jnp.sum(jss.logsumexp(logp, axis=1, b=wts))

    return jax_case(ll, (data(r, n, scale=1.5),), True)


@program(10, 1000)
def ecdf_searchsorted(n):
    """A smoothed empirical CDF: ``jnp.sort`` of the samples, ``jnp.searchsorted`` of fixed
    query points and a gather of the neighbouring order statistics (linear in between)."""
    q = np.linspace(-1.5, 1.5, 7)

    def f(x):
        s = jnp.sort(x)
        i = jnp.clip(jnp.searchsorted(s, q), 1, x.size - 1)
        lo, hi = s[i - 1], s[i]
        return (i - 1 + (q - lo) / (hi - lo)) / x.size

    return jax_case(f, (data(_rng(n), n),), False)


# ---------------------------------------------------------------- linear algebra


@program(4, 30)
def nuclear_norm_svd(n):
    """Matrix completion: a squared misfit on observed entries plus the nuclear norm (the
    sum of ``jnp.linalg.svd``'s singular values) of an ``n × (n+1)`` matrix."""
    r = _rng(n)
    mask = r.random((n, n + 1)) < 0.6
    Y = data(r, n, n + 1)

    def loss(x):
        X = x.reshape(n, n + 1)
        sv = jnp.linalg.svd(X, compute_uv=False)
        return 0.5 * jnp.sum(jnp.where(mask, X - Y, 0.0) ** 2) + 0.1 * jnp.sum(sv)

    return jax_case(loss, (data(r, n * (n + 1)),), True)


@program(10, 1000)
def qr_least_squares(n):
    """Least squares by ``jnp.linalg.qr``: features of the parameters, ``R⁻¹ Qᵀ y`` by a
    triangular solve; the residual's norm."""
    r = _rng(n)
    y = data(r, n)

    def f(x):
        A = jnp.stack([jnp.ones_like(x), x, jnp.sin(x)], axis=1)
        Q, R = jnp.linalg.qr(A)
        w = jax.scipy.linalg.solve_triangular(R, Q.T @ y)
        return jnp.sum((A @ w - y) ** 2) + 0.1 * jnp.sum(w**2)

    return jax_case(f, (data(r, n),), True)


@program(4, 40)
def implicit_euler_scan(n):
    """Implicit Euler for ``u' = -K u + f(u)``: each step solves ``(I + h K) u⁺ = u + h
    sin(u)`` by ``jnp.linalg.solve`` inside ``lax.scan``, ``K`` a fixed SPD matrix."""
    r = _rng(n)
    M = data(r, n, n, scale=0.3)
    K = M @ M.T + np.eye(n)
    h = 0.1

    def f(u0):
        def step(u, _):
            un = jnp.linalg.solve(jnp.eye(n) + h * K, u + h * jnp.sin(u))
            return un, jnp.sum(un**2)

        u, e = lax.scan(step, u0, None, length=5)
        return jnp.concatenate([u, e])

    return jax_case(f, (data(r, n),), False)


# ---------------------------------------------------------------- loops and signals


@program(10, 1000)
def scan_cond_body(n):
    """A hysteresis (thermostat) model: a ``lax.scan`` over ``n`` inputs whose body chooses
    heating or cooling by ``lax.cond`` on the state; the temperatures."""

    def f(u):
        def step(c, ui):
            def cool(c):
                return 0.8 * c - 0.1 * ui**2

            def heat(c):
                return c + 0.3 * jnp.tanh(ui)

            c = lax.cond(c > 0.5, cool, heat, c)
            return c, c

        _, T = lax.scan(step, 0.0, u)
        return T

    return jax_case(f, (data(_rng(n), n),), False)


@program(8, 400)
def vmap_fori_loop(n):
    """``jax.vmap`` of a logistic-map iteration (``lax.fori_loop``, six steps) over ``n``
    starting points and rates; the final states."""

    def orbit(x, a):
        return lax.fori_loop(0, 6, lambda i, z: a * z * (1 - z), x)

    def f(p):
        P = p.reshape(2, n)
        return jax.vmap(orbit)(jax.nn.sigmoid(P[0]), 2.5 + jax.nn.sigmoid(P[1]))

    return jax_case(f, (data(_rng(n), 2 * n),), False)


@program(16, 2000)
def correlate_matched_filter(n):
    """A matched filter: ``jnp.correlate`` of a signal with a fixed template ('valid' and
    'same'), a soft maximum of the response."""
    r = _rng(n)
    tpl = np.hanning(5)

    def f(x):
        v = jnp.correlate(x, tpl, mode="valid")
        s = jnp.correlate(x, tpl[:3], mode="same")
        return jax.nn.logsumexp(3 * v) / 3 + 0.1 * jnp.sum(s**2)

    return jax_case(f, (data(r, n),), True)


# ---------------------------------------------------------------- NumPy


@program(12, 2000)
def numpy_reduceat_bincount(n):
    """NumPy code: group sums by ``np.add.reduceat`` over sorted segments and by
    ``np.bincount(labels, weights=...)``, a between-group variance."""
    r = _rng(n)
    starts = np.arange(0, n, 4)
    labels = r.integers(0, 3, size=n)

    def f(x):
        seg = np.add.reduceat(x**2, starts)
        grp = np.bincount(labels, weights=np.tanh(x), minlength=3)
        return np.sum(seg * np.arange(1, seg.size + 1)) + np.sum((grp - grp.mean()) ** 2)

    return np_case(f, (data(r, n),), True)


@program(6, 40)
def numpy_einsum_hypot(n):
    """NumPy code: a pairwise energy of ``n`` points by ``np.hypot`` distances, ``np.log1p``
    and ``np.expm1``, and a bilinear form by ``np.einsum(..., optimize=True)``."""
    r = _rng(n)
    A = data(r, n, n, scale=0.3)

    def f(x):
        P = x.reshape(n, 2)
        d = np.hypot(P[:, None, 0] - P[None, :, 0] + np.eye(n), P[:, None, 1] - P[None, :, 1])
        e = np.sum(np.log1p(1.0 / d)) + np.sum(np.expm1(-d))
        return e + np.einsum("ia,ij,ja->", P, A, P, optimize=True)

    return np_case(f, (data(r, 2 * n),), True)


# ---------------------------------------------------------------- the survey


def main(argv: list[str]) -> None:
    SizedSurvey(PROGRAMS, CASES, __file__, rng, cell=7, modes=MODES_SIZED).main(argv)


#: each program at its small size, under its name (``dgraph codegen real_programs5.py:NAME``)
CASES = small_cases(PROGRAMS, globals())

if __name__ == "__main__":
    main(sys.argv[1:])
