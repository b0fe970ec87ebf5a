"""Real second-order programs through dgraph's Hessian API, a third survey beside
``benchmarks/real_programs.py`` and ``benchmarks/real_programs2.py`` (the same harness,
``benchmarks/real_programs_harness.py``, and the same cells: ok, refused in one line,
WRONG, ERROR, HANG).

Objectives and Lagrangians as optimization users write them, in JAX (``jax.numpy``) and
in NumPy (dgraph's NumPy tracer): scipy.optimize's ``rosen`` itself and Rosenbrock-type
chained functions, logistic / softmax / Poisson / negative-binomial regressions, an MLP's
loss, a GP's negative log marginal likelihood in its hyperparameters, Lennard-Jones and
Morse clusters, spring networks, graph-Laplacian, total-variation, Ginzburg–Landau and
Allen–Cahn energies, PDE-constrained objectives, log barriers, softplus / logsumexp,
a portfolio's variance and entropy, constrained problems' Lagrangians (a vector ``f`` with
``weights=``, scipy's ``hess(x, v)``), piecewise code (``where``, ``clip``, ``maximum``),
``einsum``, ``cumsum``, ``arctan2``, loops with ``lax.fori_loop`` and ``lax.scan``.

Each program is a builder ``n -> (f, x, reference)``; the columns:

- ``dense``: ``dgraph.hessian(f, x)`` (vector ``f``: ``weights=v``, ``H(x, v)``);
- ``sparse``: ``sparse=True``, the values and the CSR pattern;
- ``tril``: ``sparse=True, tril=True``;
- ``hvp``: ``make_function(f, "hvp", point=[x])``, ``hvp(x, t)`` (``hvp(x, v, t)``);
- ``vgh``: ``make_function(f, "value_gradient_hessian", sparse=True)``, ``(f, ∇f, H)``;
- ``jax``: ``lang="jax", sparse=True`` (a BCOO);
- ``c``: ``lang="c", sparse=True``;
- ``large``: ``sparse=True`` at 10⁴–10⁵ unknowns (the build timed; every stored entry
  checked against forward-over-reverse HVPs of JAX seeded by a coloring of the stored
  pattern, and ``H·t`` for random ``t``).

Every value is compared at the point given and at two points near it (new weights at
those) with ``jax.jacfwd(jax.jacfwd(L))`` of the JAX reference ``L`` (the Lagrangian
``v·f`` for a vector ``f``), relative 1e-8. A pattern narrower than the true one (the
entries above 1e-12 of the largest at one of the three points) is WRONG; a wider one is
ok, counted in the notes ("wider by k": stored entries exactly 0 at all three points).
A result that is right but not ``verified`` is noted. ``-``: not applicable (the
``large`` column of a program whose Hessian is dense).

    python benchmarks/real_programs_hessian.py [NAME ...] [--modes=dense,...] [--limit=S]
"""

from __future__ import annotations

import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import jax.scipy as jsp
import numpy as np
import scipy.optimize
from jax import lax
from real_programs_harness import registry

warnings.filterwarnings("ignore")
jax.config.update("jax_enable_x64", True)

MODES = ("dense", "sparse", "tril", "hvp", "vgh", "jax", "c", "large")


@dataclass
class Program:
    """A program at one size: ``f`` (one array ``x``), its JAX reference, whether ``f``
    returns a vector (then the Hessian of ``v·f``)."""

    f: Callable[..., Any]
    x: np.ndarray
    ref: Callable[..., Any]
    vector: bool = False


#: name -> (builder n -> Program, small n, large n or None)
PROGRAMS: dict[str, tuple[Callable[[int], Program], int, int | None]] = {}
program = registry(PROGRAMS)


def _rng(n: int, salt: int = 0) -> np.random.Generator:
    return np.random.default_rng(1000 * n + salt)


def np_program(f, x, vector=False) -> Program:
    return Program(f, np.asarray(x, dtype=float), jnp_twin(f), vector)


def jax_program(f, x, vector=False) -> Program:
    return Program(f, np.asarray(x, dtype=float), f, vector)


# ---------------------------------------------------------------- test functions


@program(8, 100_000)
def rosen_scipy(n):
    def rosen(x):
        return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2.0) ** 2.0 + (1 - x[:-1]) ** 2.0)

    return Program(scipy.optimize.rosen, np.linspace(-1.2, 1.0, n), rosen)


@program(8, 100_000)
def rosen_jax(n):
    def f(x):
        return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)

    return jax_program(f, np.linspace(-1.2, 1.0, n))


@program(8, 40_000)
def chained_wood_numpy(n):
    def f(x):
        a, b, c, d = x[0:-3:2], x[1:-2:2], x[2:-1:2], x[3::2]
        return np.sum(
            100 * (b - a**2) ** 2 + (1 - a) ** 2 + 90 * (d - c**2) ** 2 + (1 - c) ** 2
            + 10 * (b + d - 2) ** 2 + 0.1 * (b - d) ** 2
        )  # fmt: skip

    return np_program(f, np.where(np.arange(n) % 2, -1.0, -3.0) + 0.1 * _rng(n).normal(size=n))


@program(9, 100_000)
def broyden_tridiag_jax(n):
    def f(x):
        p = jnp.pad(x, 1)
        r = (3.0 - 2.0 * x) * x - p[:-2] - 2.0 * p[2:] + 1.0
        return jnp.sum(r**2)

    return jax_program(f, -np.ones(n) + 0.1 * _rng(n).normal(size=n))


@program(9, 100_000)
def broyden_residual_lagrangian_numpy(n):
    def f(x):
        left = np.concatenate([[0.0], x[:-1]])
        right = np.concatenate([x[1:], [0.0]])
        return (3.0 - 2.0 * x) * x - left - 2.0 * right + 1.0

    return np_program(f, -np.ones(n) + 0.1 * _rng(n).normal(size=n), vector=True)


@program(10, 40_000)
def chained_rosen_fori_loop(n):
    def f(x):
        def body(i, acc):
            return acc + 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1.0 - x[i]) ** 2

        return lax.fori_loop(0, x.shape[0] - 1, body, 0.0)

    return jax_program(f, np.linspace(-1.2, 1.0, n))


# ---------------------------------------------------------------- statistics, learning


def _classification(n: int, d: int):
    r = _rng(n, 1)
    X = r.normal(size=(n, d))
    y = np.sign(X @ r.normal(size=d) + 0.3 * r.normal(size=n))
    return X, y


@program(6)
def logreg_l2_numpy(n):
    X, y = _classification(20, n)

    def f(w, lam=0.1):
        z = y * (X @ w)
        return np.sum(np.logaddexp(0.0, -z)) + 0.5 * lam * np.dot(w, w)

    return np_program(f, 0.1 * _rng(n).normal(size=n))


@program(6)
def logreg_l2_jax(n):
    X, y = _classification(20, n)

    def f(w):
        return -jnp.sum(jax.nn.log_sigmoid(y * (X @ w))) + 0.05 * jnp.sum(w**2)

    return jax_program(f, 0.1 * _rng(n).normal(size=n))


@program(12)
def softmax_regression_jax(n):
    k = 3
    d = n // k
    r = _rng(n, 2)
    X, labels = r.normal(size=(15, d)), r.integers(0, k, 15)
    Y = jax.nn.one_hot(labels, k)

    def f(theta):
        W = theta.reshape(d, k)
        logits = X @ W
        return -jnp.sum(Y * jax.nn.log_softmax(logits, axis=1)) / 15 + 1e-2 * jnp.sum(W**2)

    return jax_program(f, 0.1 * r.normal(size=d * k))


@program(12)
def softmax_regression_numpy(n):
    k = 3
    d = n // k
    r = _rng(n, 3)
    X, labels = r.normal(size=(15, d)), r.integers(0, k, 15)

    def f(theta):
        W = theta.reshape(d, k)
        Z = X @ W
        Z = Z - Z.max(axis=1, keepdims=True)
        logp = Z - np.log(np.sum(np.exp(Z), axis=1, keepdims=True))
        return -np.mean(logp[np.arange(15), labels])

    return np_program(f, 0.1 * r.normal(size=d * k))


def _mlp_data(n):
    r = _rng(n, 4)
    return r.normal(size=(10, 3)), r.normal(size=10)


@program(21)
def mlp_loss_jax(n):
    X, t = _mlp_data(n)

    def f(theta):  # 3 inputs, 4 hidden, 1 output: 16 + 5 = 21 parameters
        W1, b1 = theta[:12].reshape(3, 4), theta[12:16]
        W2, b2 = theta[16:20], theta[20]
        h = jnp.tanh(X @ W1 + b1)
        return jnp.mean((h @ W2 + b2 - t) ** 2)

    return jax_program(f, 0.5 * _rng(n).normal(size=21))


@program(21)
def mlp_loss_numpy(n):
    X, t = _mlp_data(n)

    def f(theta):
        W1, b1 = theta[:12].reshape(3, 4), theta[12:16]
        W2, b2 = theta[16:20], theta[20]
        h = np.tanh(X @ W1 + b1)
        pred = 1.0 / (1.0 + np.exp(-(h @ W2 + b2)))
        return -np.mean(t * np.log(pred) + (1 - t) * np.log(1 - pred))

    return np_program(f, 0.5 * _rng(n).normal(size=21))


@program(5)
def poisson_glm_numpy(n):
    r = _rng(n, 5)
    X = r.normal(size=(25, n)) * 0.5
    y = r.poisson(2.0, 25).astype(float)

    def f(beta):
        eta = X @ beta
        return np.sum(np.exp(eta) - y * eta) + 0.5 * np.sum(beta**2)

    return np_program(f, 0.1 * r.normal(size=n))


@program(5)
def negbin_glm_jax(n):
    r = _rng(n, 6)
    X = r.normal(size=(25, n)) * 0.5
    y = r.poisson(2.0, 25).astype(float)
    alpha = 2.0

    def f(beta):
        mu = jnp.exp(X @ beta)
        return jnp.sum((y + alpha) * jnp.log(alpha + mu) - y * jnp.log(mu))

    return jax_program(f, 0.1 * r.normal(size=n))


_gx = np.linspace(0.0, 1.0, 8)
_gy = np.sin(5 * _gx) + 0.1 * np.cos(17 * _gx)


@program(3)
def gp_nll_jax(n):
    def f(log_theta):
        ell, sf, sn = jnp.exp(log_theta)
        d2 = (_gx[:, None] - _gx[None, :]) ** 2
        K = sf**2 * jnp.exp(-0.5 * d2 / ell**2) + (sn**2 + 1e-6) * jnp.eye(8)
        L = jnp.linalg.cholesky(K)
        alpha = jsp.linalg.cho_solve((L, True), _gy)
        return 0.5 * _gy @ alpha + jnp.sum(jnp.log(jnp.diag(L))) + 4.0 * jnp.log(2 * jnp.pi)

    return jax_program(f, np.log([0.3, 1.0, 0.1]))


@program(3)
def gp_nll_slogdet_numpy(n):
    def f(log_theta):
        ell, sf, sn = np.exp(log_theta)
        d2 = (_gx[:, None] - _gx[None, :]) ** 2
        K = sf**2 * np.exp(-0.5 * d2 / ell**2) + (sn**2 + 1e-6) * np.eye(8)
        return 0.5 * _gy @ np.linalg.solve(K, _gy) + 0.5 * np.linalg.slogdet(K)[1]

    return np_program(f, np.log([0.3, 1.0, 0.1]))


@program(6)
def huber_regression_jax(n, delta=0.5):
    r = _rng(n, 7)
    X, y = r.normal(size=(20, n)), r.normal(size=20) * 2

    def f(w):
        res = X @ w - y
        a = jnp.abs(res)
        loss = jnp.where(a <= delta, 0.5 * res**2, delta * (a - 0.5 * delta))
        return jnp.sum(loss) + 0.01 * jnp.sum(w**2)

    return jax_program(f, 0.2 * r.normal(size=n))


@program(6)
def squared_hinge_numpy(n):
    X, y = _classification(20, n)

    def f(w):
        return np.sum(np.maximum(0.0, 1.0 - y * (X @ w)) ** 2) + 0.1 * np.sum(w**2)

    return np_program(f, 0.1 * _rng(n).normal(size=n))


@program(12)
def kl_softmax_numpy(n):
    p = _rng(n, 8).dirichlet(np.ones(n))

    def f(z):
        q = np.exp(z - np.max(z))
        q = q / np.sum(q)
        return np.sum(p * np.log(p / q))

    return np_program(f, _rng(n).normal(size=n))


@program(6)
def maxent_dual_logsumexp_jax(n):
    r = _rng(n, 9)
    A = r.normal(size=(n, 10))
    b = A @ r.dirichlet(np.ones(10))

    def f(lam):
        return jsp.special.logsumexp(lam @ A) - lam @ b + 0.5e-2 * lam @ lam

    return jax_program(f, 0.1 * r.normal(size=n))


# ---------------------------------------------------------------- physics, chemistry


@program(15)
def lennard_jones_all_pairs_jax(n):
    k = n // 3
    iu, ju = np.triu_indices(k, 1)

    def f(x):
        p = x.reshape(k, 3)
        d = p[iu] - p[ju]
        r2 = jnp.sum(d**2, axis=1)
        s6 = 1.0 / r2**3
        return jnp.sum(4.0 * (s6**2 - s6))

    pos = np.array([[0, 0, 0], [1.1, 0, 0], [0, 1.1, 0], [0, 0, 1.1], [1.1, 1.1, 0.1]])
    return jax_program(f, (pos[:k] + 0.05 * _rng(n).normal(size=(k, 3))).ravel())


def _lattice(k: int, spacing: float = 1.12):
    """A cubic-ish grid of k atoms and its nearest-neighbour pairs."""
    side = int(np.ceil(k ** (1 / 3)))
    grid = np.stack(np.meshgrid(*[np.arange(side)] * 3, indexing="ij"), -1).reshape(-1, 3)
    grid = grid[:k]
    index = {tuple(g): i for i, g in enumerate(grid)}
    pairs = [(i, index[tuple(g + e)]) for i, g in enumerate(grid) for e in np.eye(3, dtype=int)
             if tuple(g + e) in index]  # fmt: skip
    return grid * spacing, np.array(pairs)


@program(24, 30_000)
def lennard_jones_neighbors_jax(n):
    k = n // 3
    grid, pairs = _lattice(k)
    i, j = pairs[:, 0], pairs[:, 1]

    def f(x):
        p = x.reshape(k, 3)
        r2 = jnp.sum((p[i] - p[j]) ** 2, axis=1)
        s6 = (1.0 / r2) ** 3
        return jnp.sum(4.0 * (s6 * s6 - s6))

    return jax_program(f, (grid + 0.03 * _rng(n).normal(size=grid.shape)).ravel())


@program(24, 30_000)
def morse_neighbors_numpy(n):
    k = n // 3
    grid, pairs = _lattice(k, 1.0)
    i, j = pairs[:, 0], pairs[:, 1]

    def f(x, D=1.0, a=1.5, r0=1.0):
        p = x.reshape(k, 3)
        r = np.linalg.norm(p[i] - p[j], axis=1)
        return np.sum(D * (1.0 - np.exp(-a * (r - r0))) ** 2)

    return np_program(f, (grid + 0.05 * _rng(n).normal(size=grid.shape)).ravel())


@program(12)
def morse_all_pairs_numpy(n):
    k = n // 3
    iu, ju = np.triu_indices(k, 1)

    def f(x):
        p = x.reshape(k, 3)
        d = p[iu] - p[ju]
        r = np.sqrt(np.sum(d * d, axis=1))
        return np.sum((1.0 - np.exp(-(r - 1.0))) ** 2 - 1.0)

    pos = np.array([[0, 0, 0], [1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0]])
    return np_program(f, (pos[:k] + 0.05 * _rng(n).normal(size=(k, 3))).ravel())


def _grid_edges(m: int):
    idx = np.arange(m * m).reshape(m, m)
    return np.concatenate([np.stack([idx[:, :-1].ravel(), idx[:, 1:].ravel()], 1),
                           np.stack([idx[:-1, :].ravel(), idx[1:, :].ravel()], 1)])  # fmt: skip


@program(18, 20_000)
def spring_network_numpy(n):
    m = round(np.sqrt(n // 2))
    e = _grid_edges(m)
    rest = 1.0

    def f(x, k=2.0):
        p = x.reshape(m * m, 2)
        d = p[e[:, 1]] - p[e[:, 0]]
        length = np.sqrt(np.sum(d**2, axis=1))
        return 0.5 * k * np.sum((length - rest) ** 2) + 0.01 * np.sum(p[:, 1])

    grid = np.stack(np.meshgrid(np.arange(m), np.arange(m), indexing="ij"), -1).reshape(-1, 2)
    return np_program(f, (1.05 * grid + 0.05 * _rng(n).normal(size=grid.shape)).ravel())


@program(16, 50_000)
def graph_laplacian_jax(n):
    r = _rng(n, 10)
    i = np.concatenate([np.arange(n - 1), r.integers(0, n, n // 2)])
    j = np.concatenate([np.arange(1, n), r.integers(0, n, n // 2)])
    keep = i != j
    i, j = i[keep], j[keep]
    w = r.uniform(0.5, 2.0, i.size)

    def f(x):
        return 0.5 * jnp.sum(w * (x[i] - x[j]) ** 2) + jnp.sum(jnp.log(jnp.cosh(x)))

    return jax_program(f, r.normal(size=n))


@program(16, 40_000)
def tv_denoise_jax(n, lam=0.1, eps=1e-2):
    m = round(np.sqrt(n))
    noisy = np.sign(np.sin(np.arange(m)[:, None] / 3.0)) + 0.2 * _rng(n).normal(size=(m, m))

    def f(u):
        dx = jnp.diff(u, axis=0)[:, :-1]
        dy = jnp.diff(u, axis=1)[:-1, :]
        tv = jnp.sum(jnp.sqrt(dx**2 + dy**2 + eps**2))
        return tv + 0.5 / lam * jnp.sum((u - noisy) ** 2)

    return jax_program(f, noisy.copy())


@program(32, 40_000)
def ginzburg_landau_numpy(n, kappa=4.0):
    m = round(np.sqrt(n // 2))
    h = 1.0 / m

    def f(z):
        psi = z.reshape(2, m, m)  # real and imaginary parts
        gx = np.diff(psi, axis=1) / h
        gy = np.diff(psi, axis=2) / h
        mod2 = np.sum(psi**2, axis=0)
        return h * h * (0.5 * np.sum(gx**2) + 0.5 * np.sum(gy**2)
                        + 0.25 * kappa**2 * np.sum((mod2 - 1.0) ** 2))  # fmt: skip

    return np_program(f, 0.7 + 0.1 * _rng(n).normal(size=2 * m * m))


@program(10, 100_000)
def allen_cahn_periodic_jax(n, eps=0.05):
    h = 1.0 / n

    def f(u):
        grad = (jnp.roll(u, -1) - u) / h
        return h * jnp.sum(0.5 * eps**2 * grad**2 + 0.25 * (u**2 - 1.0) ** 2)

    return jax_program(f, np.tanh(np.sin(2 * np.pi * np.arange(n) / n) / 0.1) * 0.9)


@program(8)
def pde_reduced_solve_jax(n, alpha=1e-3):
    h = 1.0 / (n + 1)
    A = (2 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1)) / h**2
    target = np.sin(np.pi * h * np.arange(1, n + 1))

    def f(q):
        u = jnp.linalg.solve(A, jnp.exp(q))
        return 0.5 * h * jnp.sum((u - target) ** 2) + 0.5 * alpha * h * jnp.sum(q**2)

    return jax_program(f, 0.1 * _rng(n).normal(size=n))


@program(16, 100_000)
def pde_fullspace_lagrangian_numpy(n):
    k = n // 2
    h = 1.0 / (k + 1)

    def f(z):  # constraints: -u'' + u^3 - q = 0 (u = 0 on the boundary)
        u, q = z[:k], z[k:]
        p = np.concatenate([[0.0], u, [0.0]])
        return (2 * p[1:-1] - p[:-2] - p[2:]) / h**2 + u**3 - q

    return np_program(f, 0.5 + 0.1 * _rng(n).normal(size=2 * k), vector=True)


@program(8, 100_000)
def elastic_rod_arctan2_numpy(n):
    k = n // 2

    def f(x, kb=1.0, ks=10.0):
        p = x.reshape(k, 2)
        e = np.diff(p, axis=0)
        cross = e[:-1, 0] * e[1:, 1] - e[:-1, 1] * e[1:, 0]
        dot = np.sum(e[:-1] * e[1:], axis=1)
        theta = np.arctan2(cross, dot)
        stretch = np.sum(e**2, axis=1) - 1.0
        return kb * np.sum(theta**2) + ks * np.sum(stretch**2)

    t = np.arange(k)
    curve = np.stack([t, 0.3 * np.sin(t / 2.0)], 1)
    return np_program(f, (curve + 0.02 * _rng(n).normal(size=curve.shape)).ravel())


# ---------------------------------------------------------------- barriers, constraints


@program(5)
def log_barrier_dense_numpy(n):
    r = _rng(n, 11)
    A = r.normal(size=(12, n))
    b = np.abs(A).sum(axis=1) + 1.0  # the box |x_i| < 1 is feasible
    c = r.normal(size=n)

    def f(x, t=10.0):
        return t * c @ x - np.sum(np.log(b - A @ x))

    return np_program(f, 0.2 * r.normal(size=n))


@program(10, 100_000)
def log_barrier_band_jax(n):
    def f(x):
        return (jnp.sum(x) - jnp.sum(jnp.log(1.0 - x**2))
                - jnp.sum(jnp.log(0.5 - (x[1:] - x[:-1]))))  # fmt: skip

    return jax_program(f, 0.1 * np.sin(np.arange(n)))


@program(4)
def hs071_lagrangian_numpy(n):
    def f(x):
        return np.array(
            [x[0] * x[1] * x[2] * x[3], np.sum(x**2), x[0] * x[3] * (x[0] + x[1] + x[2]) + x[2]]
        )

    return np_program(f, np.array([1.0, 5.0, 5.0, 1.0]), vector=True)


@program(12, 100_000)
def chained_constraints_lagrangian_jax(n):
    def f(x):
        return x[:-2] ** 2 + x[1:-1] * jnp.exp(x[2:]) - jnp.sin(x[1:-1]) + 3.0 * x[2:]

    return jax_program(f, 0.3 * np.cos(np.arange(n)), vector=True)


@program(10, 100_000)
def softplus_band_jax(n):
    def f(x):
        z = x[2:] - 2.0 * x[1:-1] + x[:-2] - 0.1
        return jnp.sum(jax.nn.softplus(3.0 * z)) + 0.5 * jnp.sum(x**2)

    return jax_program(f, _rng(n).normal(size=n))


@program(10, 100_000)
def clip_box_penalty_jax(n):
    def f(x):
        outside = x - jnp.clip(x, -1.0, 1.0)
        return jnp.sum(outside**2) + jnp.sum(jnp.maximum(x, 0.0) ** 3) + jnp.sum(x[:-1] * x[1:])

    return jax_program(f, 2.0 * np.sin(np.arange(n) + 0.5))


@program(6)
def portfolio_entropy_numpy(n, gamma=0.05):
    r = _rng(n, 12)
    F = r.normal(size=(n, 2))
    Sigma = F @ F.T + np.diag(r.uniform(0.1, 0.3, n))
    mu = r.uniform(0.0, 0.1, n)

    def f(w):
        return w @ Sigma @ w - mu @ w + gamma * np.sum(w * np.log(w))

    return np_program(f, r.dirichlet(np.ones(n)))


# ---------------------------------------------------------------- array vocabulary


@program(12)
def cp_decomposition_einsum_jax(n):
    r = _rng(n, 13)
    T = r.normal(size=(2, 2, 2))

    def f(x):
        a, b, c = x[:4].reshape(2, 2), x[4:8].reshape(2, 2), x[8:].reshape(2, 2)
        approx = jnp.einsum("ir,jr,kr->ijk", a, b, c)
        return jnp.sum((T - approx) ** 2)

    return jax_program(f, r.normal(size=12))


@program(14)
def matrix_factorization_numpy(n):
    r = _rng(n, 14)
    M = r.normal(size=(3, 4))
    mask = r.uniform(size=(3, 4)) < 0.7

    def f(x, lam=0.1):
        U, V = x[:6].reshape(3, 2), x[6:].reshape(4, 2)
        R = (U @ V.T - M) * mask
        return 0.5 * np.sum(R**2) + 0.5 * lam * (np.sum(U**2) + np.sum(V**2))

    return np_program(f, r.normal(size=14))


@program(8)
def cumsum_path_numpy(n):
    target = np.linspace(0.0, 1.0, n) ** 2

    def f(steps):
        pos = np.cumsum(steps)
        return np.sum((pos - target) ** 2) + np.sum(steps**4) + np.sum(np.diff(pos) ** 2)

    return np_program(f, _rng(n).normal(size=n) * 0.2)


@program(4)
def scan_control_jax(n, dt=0.1):
    def f(u):
        def step(x, ui):
            x_next = x + dt * (-(x**3) + ui)
            return x_next, x_next**2 + 0.1 * ui**2

        _, costs = lax.scan(step, 1.0, u)
        return jnp.sum(costs)

    return jax_program(f, 0.3 * _rng(n).normal(size=n))


@program(8, 100_000)
def where_piecewise_numpy(n):
    def f(x):
        quad = np.where(x > 0.0, x**2, 0.5 * x**4)
        return np.sum(quad) + np.sum(np.abs(x[1:] - x[:-1]) ** 3)

    return np_program(f, np.sin(np.arange(n) * 1.7) + 0.05)


# ---------------------------------------------------------------- the survey


def _pattern(H) -> set[tuple[int, int]]:
    """The stored entries of a CSR array or a BCOO."""
    if hasattr(H, "indptr"):
        rows = np.repeat(np.arange(H.shape[0]), np.diff(H.indptr))
        return set(zip(rows.tolist(), np.asarray(H.indices).tolist(), strict=True))
    idx = np.asarray(H.indices)
    return set(map(tuple, idx.tolist()))


def _dense(H, n: int) -> np.ndarray:
    if hasattr(H, "toarray"):
        H = H.toarray()
    elif hasattr(H, "todense"):
        H = H.todense()
    return np.asarray(H, dtype=float).reshape(n, n)


def _lagrangian(p: Program, v):
    if p.vector:
        return lambda x: jnp.dot(jnp.ravel(v), jnp.ravel(p.ref(x)))
    return p.ref


def greedy_coloring(P) -> np.ndarray:
    """Columns of the CSR pattern ``P`` coloured so that no two of a colour share a row."""
    P = P.tocsc()
    rows_of = [P.indices[P.indptr[j] : P.indptr[j + 1]] for j in range(P.shape[1])]
    Pr = P.tocsr()
    colors = np.full(P.shape[1], -1)
    for j in range(P.shape[1]):
        rows = rows_of[j]
        nbrs = np.concatenate([Pr.indices[Pr.indptr[r] : Pr.indptr[r + 1]] for r in rows]) \
            if len(rows) else np.zeros(0, int)  # fmt: skip
        used = set(colors[nbrs].tolist())
        c = 0
        while c in used:
            c += 1
        colors[j] = c
    return colors


class HessianSurvey:
    """The table's calls (``Survey``'s ``run`` and ``main`` with these columns)."""

    def __init__(self, rng: np.random.Generator, programs: dict | None = None) -> None:
        self.rng = rng
        self.programs = PROGRAMS if programs is None else programs
        self.cache: dict[str, Any] = {}
        self.extra: list[str] = []

    def points(self, name: str):
        """The program at its small size, weights, three points with their weights and
        the true dense Hessians there (jacfwd of jacfwd of the reference)."""
        if name in self.cache:
            return self.cache[name]
        builder, small, _ = self.programs[name]
        p = builder(small)
        r = np.random.default_rng(small + len(name))
        out = np.shape(p.ref(jnp.asarray(p.x))) if p.vector else ()
        pts = [p.x] + [p.x + 0.01 * (np.abs(p.x) + 0.1) * r.normal(size=p.x.shape)
                       for _ in range(2)]  # fmt: skip
        ws = [r.normal(size=out) if p.vector else None for _ in range(3)]
        n = p.x.size
        truths = []
        for x, w in zip(pts, ws, strict=True):
            L = _lagrangian(p, w)
            truths.append(np.asarray(jax.jacfwd(jax.jacfwd(L))(jnp.asarray(x))).reshape(n, n))
        self.cache[name] = (p, pts, ws, truths)
        return self.cache[name]

    def _run(self, name: str, mode: str) -> tuple[str, str]:
        from real_programs_harness import failed

        try:
            status, detail = self._mode(name, mode)
            if status == "ok" and detail and mode != "large":
                self.extra.append(f"  {name} [{mode}]: {detail}")
            return status, detail
        except Hang:
            raise
        except Exception as e:  # the survey records every failure
            return failed(e)

    def _mode(self, name: str, mode: str) -> tuple[str, str]:
        import dgraph

        if mode == "large":
            return self._large(name)
        p, pts, ws, truths = self.points(name)
        n = p.x.size
        kw: dict[str, Any] = {"weights": ws[0]} if p.vector else {}
        extra = lambda w: (w,) if p.vector else ()  # noqa: E731
        tol = 1e-8
        sparse = mode in ("sparse", "tril", "vgh", "jax", "c")
        if mode == "hvp":
            made = dgraph.make_function(p.f, "hvp", point=[p.x], **kw)
        elif mode == "vgh":
            made = dgraph.make_function(p.f, "value_gradient_hessian", point=[p.x], sparse=True,
                                        **kw)  # fmt: skip
        else:
            lang = mode if mode in ("jax", "c") else "python"
            made = dgraph.hessian(p.f, p.x, sparse=sparse, tril=mode == "tril", lang=lang, **kw)
        cast = jnp.asarray if mode == "jax" else np.asarray
        worst, stored = 0.0, set()
        for x, w, T in zip(pts, ws, truths, strict=True):
            scale = max(1.0, np.abs(T).max())
            want = np.tril(T) if mode == "tril" else T
            if mode == "hvp":
                t = self.rng.normal(size=p.x.shape)
                found = np.asarray(made(cast(x), *map(cast, extra(w)), cast(t))).ravel()
                worst = max(worst, np.abs(found - T @ t.ravel()).max() / scale)
                continue
            got = made(cast(x), *map(cast, extra(w)))
            if mode == "vgh":
                value, grad, got = got
                L = _lagrangian(p, w)
                worst = max(
                    worst, abs(float(value) - float(L(jnp.asarray(x)))) / max(1, abs(float(value)))
                )
                g = np.asarray(jax.grad(L)(jnp.asarray(x))).ravel()
                worst = max(
                    worst, np.abs(np.asarray(grad).ravel() - g).max() / max(1, np.abs(g).max())
                )
            if sparse:
                if not (hasattr(got, "indptr") or hasattr(got, "indices")):
                    return "WRONG", f"sparse=True returned {type(got).__name__}"
                stored |= _pattern(got)
            worst = max(worst, np.abs(_dense(got, n) - want).max() / scale)
        if worst > tol:
            return "WRONG", f"error {worst:.1e}"
        notes = []
        if sparse:
            big = np.zeros((n, n), bool)
            nonzero = np.zeros((n, n), bool)
            for T in truths:
                big |= np.abs(T) > 1e-12 * max(1.0, np.abs(T).max())
                nonzero |= T != 0
            if mode == "tril":
                big, nonzero = np.tril(big), np.tril(nonzero)
                if any(i < j for i, j in stored):
                    return "WRONG", "tril=True stored an entry above the diagonal"
            truth = set(zip(*np.nonzero(big), strict=True))
            missing = truth - stored
            if missing:
                return "WRONG", f"pattern narrower: {len(missing)} true entries missing"
            wider = len(stored - set(zip(*np.nonzero(nonzero), strict=True)))
            if wider:
                notes.append(f"wider by {wider} (of {len(stored)} stored)")
        if not getattr(made.generated, "verified", False):
            notes.append("not verified")
        return "ok", "; ".join(notes)

    def _large(self, name: str) -> tuple[str, str]:
        import dgraph

        builder, _, large = self.programs[name]
        if large is None:
            return "-", ""
        p = builder(large)
        r = np.random.default_rng(large)
        n = p.x.size
        out = np.shape(p.ref(jnp.asarray(p.x))) if p.vector else ()
        w = r.normal(size=out) if p.vector else None
        kw: dict[str, Any] = {"weights": w} if p.vector else {}
        start = time.perf_counter()
        made = dgraph.hessian(p.f, p.x, sparse=True, **kw)
        build = time.perf_counter() - start
        start = time.perf_counter()
        H = made(p.x, *((w,) if p.vector else ()))
        call = time.perf_counter() - start
        L = _lagrangian(p, w)
        hvp = jax.jit(lambda x, t: jax.jvp(jax.grad(L), (x,), (t,))[1])
        x = jnp.asarray(p.x)
        worst = 0.0
        for _ in range(2):
            t = r.normal(size=p.x.shape)
            want = np.asarray(hvp(x, jnp.asarray(t))).ravel()
            got = H @ t.ravel()
            worst = max(worst, np.abs(got - want).max() / max(1.0, np.abs(want).max()))
        P = H.copy()
        colors = greedy_coloring(P)
        k = int(colors.max()) + 1
        zeros = "-"
        if k <= 60:
            Hc = scipy.sparse.coo_array(H)
            recovered = np.zeros(Hc.nnz)
            for c in range(k):
                seed = (colors == c).astype(float).reshape(p.x.shape)
                hv = np.asarray(hvp(x, jnp.asarray(seed))).ravel()
                sel = colors[Hc.col] == c
                recovered[sel] = hv[Hc.row[sel]]
            scale = max(1.0, np.abs(recovered).max())
            worst = max(worst, np.abs(recovered - Hc.data).max() / scale)
            zeros = str(int(np.sum(recovered == 0.0)))
        detail = (f"n {n}, build {build:.1f} s, call {call:.3f} s, nnz {H.nnz}, "
                  f"{k} colours, stored entries 0.0 in JAX: {zeros}")  # fmt: skip
        if not made.generated.verified:
            detail += ", not verified"
        if worst > 1e-8:
            return "WRONG", f"error {worst:.1e}; {detail}"
        self.extra.append(f"  {name} [large]: {detail}")
        return "ok", detail


from real_programs_harness import Hang, jnp_twin  # noqa: E402


def main(argv: list[str]) -> None:
    from real_programs_harness import Survey

    hs = HessianSurvey(np.random.default_rng(5))
    survey = Survey(dict.fromkeys(PROGRAMS), __file__, hs.rng, cell=7, modes=MODES)
    survey._run = hs._run  # the columns above, in the harness's table
    survey.main(argv)
    print("\n".join(hs.extra))


if __name__ == "__main__":
    main(sys.argv[1:])
