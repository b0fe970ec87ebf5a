"""Real second-order programs through dgraph's Hessian API: NumPy objectives and constraint
Lagrangians as users of ``scipy.optimize.minimize(method="trust-constr", hess=...)`` write
them (session 34), with the columns of ``benchmarks/real_programs14.py`` (its harness, its
command-line columns ``cli``, ``cli_jax``, ``cli_c``).

Idioms: a Gaussian likelihood in a Cholesky factor filled by ``L[np.tril_indices(3)] = x``
(``np.linalg.slogdet``, ``np.linalg.solve``, ``np.linalg.inv``, ``np.einsum("ij,ij->i")``);
a log barrier ``−log det`` by ``np.linalg.cholesky`` of an affine SPD matrix; the
``np.linalg.norm`` family (``ord=3``, ``ord=np.inf``, ``"fro"``, ``axis=1,
keepdims=True``); a trimmed mean of squared residuals by ``np.sort`` and
``np.take_along_axis`` of an ``np.argsort``; ``scipy.special`` (``logsumexp(axis=1,
keepdims=True)``, ``expit``, ``xlogy``, ``gammaln``) beside ``np.log1p`` / ``np.expm1`` /
``np.logaddexp``; ``np.maximum(0, g) ** 2`` penalties with a constant boolean mask, fancy
indexing with repeated indices and ``np.add.reduceat``; ``np.convolve`` / ``np.correlate``;
``np.polyval`` (constant and traced coefficients), ``np.interp`` with a constant table,
``np.hypot``, ``np.arctan2``, ``np.sinc``; ``np.where`` with a broadcast and
``np.stack`` / ``np.hstack`` of slices; particles ``x.reshape(-1, 3)``: Lennard-Jones with a
cutoff by ``np.where``, a discrete rod's bending by ``np.cross``; a finite-element residual
assembled by ``np.add.at``; constraint Lagrangians (``weights=``) with ``np.inner`` /
``np.outer``; a sympy ``Matrix`` objective (``det``, ``inv``, ``trace``), no ``lambdify``.

    python benchmarks/real_programs16.py [NAME ...] [--modes=dense,...] [--limit=S]
"""

from __future__ import annotations

import sys
import types
import warnings
from collections.abc import Callable

import jax
import jax.numpy as jnp
import jax.scipy.special as jss
import numpy as np
import scipy.special as sps
import sympy as sp
from real_programs14 import main as survey_main
from real_programs_harness import _JaxAsNumpy, registry
from real_programs_hessian import Program

warnings.filterwarnings("ignore")
jax.config.update("jax_enable_x64", True)

#: name -> (builder n -> Program, small n, large n or None)
PROGRAMS: dict[str, tuple[Callable[[int], Program], int, int | None]] = {}
program = registry(PROGRAMS)


def _rng(n: int, salt: int = 0) -> np.random.Generator:
    return np.random.default_rng(1000 * n + salt + 16)


class _Twin(_JaxAsNumpy):
    """jax.numpy taking the lists NumPy takes where jax.numpy does not (``np.convolve(x,
    [1, -2, 1])``, ``np.polyval([a, b, c], x)``)."""

    @staticmethod
    def convolve(a, v, mode="full"):
        return jnp.convolve(jnp.asarray(a), jnp.asarray(v), mode=mode)

    @staticmethod
    def polyval(p, x):
        return jnp.polyval(jnp.asarray(p), x)

    @staticmethod
    def sinc(x):
        """``sin(πx)/(πx)``, its Maclaurin polynomial to ``y¹⁰`` where ``|y| = |πx| < 0.1``:
        jax.numpy's quotient's second derivative loses digits near 0 (at ``x = 10⁻⁵``, 3.7e-6
        of 0.296 for ``sinc(0.3 x)``: the survey's WRONG before this twin)."""
        y = jnp.pi * x
        near = jnp.abs(y) < 0.1
        safe = jnp.where(near, 1.0, y)
        series = 1 - y**2 / 6 + y**4 / 120 - y**6 / 5040 + y**8 / 362880 - y**10 / 39916800
        return jnp.where(near, series, jnp.sin(safe) / safe)


def np_program(f, x, vector=False) -> Program:
    """A NumPy program, its reference the same code run with jax.numpy (``sps``:
    jax.scipy.special)."""
    g = {**f.__globals__, "np": _Twin(), "sps": jss}
    twin = types.FunctionType(f.__code__, g, f.__name__, f.__defaults__, f.__closure__)
    return Program(f, np.asarray(x, dtype=float), twin, vector)


# ---------------------------------------------------------------- linear algebra


@program(6)
def gaussian_mle_cholesky_fill(n):
    """The negative log-likelihood of 3-D data in the Cholesky factor ``L`` of the
    covariance, filled as users do (``L = np.zeros((3, 3)); L[np.tril_indices(3)] = x``):
    ``½ slogdet(Σ) + ½ Σ_k d_kᵀ Σ⁻¹ d_k`` by ``np.linalg.solve`` and by ``np.linalg.inv``
    with ``np.einsum("ij,ij->i")``."""
    D = _rng(n, 1).normal(size=(7, 3)) @ np.array([[1.0, 0.3, 0.0], [0.0, 0.8, 0.2], [0, 0, 0.5]])
    rows, cols = np.tril_indices(3)

    def f(x):
        L = np.zeros((3, 3))
        L[rows, cols] = x
        S = L @ L.T + 0.1 * np.eye(3)
        _, logdet = np.linalg.slogdet(S)
        quad = np.sum(D.T * np.linalg.solve(S, D.T))
        maha = np.einsum("ij,ij->i", D @ np.linalg.inv(S), D)
        return 0.5 * D.shape[0] * logdet + 0.25 * quad + 0.25 * np.sum(maha)

    def ref(x):
        L = jnp.zeros((3, 3)).at[rows, cols].set(x)
        S = L @ L.T + 0.1 * jnp.eye(3)
        logdet = jnp.linalg.slogdet(S)[1]
        quad = jnp.sum(D.T * jnp.linalg.solve(S, D.T))
        maha = jnp.einsum("ij,ij->i", D @ jnp.linalg.inv(S), D)
        return 0.5 * D.shape[0] * logdet + 0.25 * quad + 0.25 * jnp.sum(maha)

    return Program(f, np.array([1.1, 0.2, 0.9, -0.1, 0.3, 0.7]), ref)


@program(4)
def logbarrier_cholesky_lmi(n):
    """A linear-matrix-inequality barrier: ``c·x − 2 Σ log diag(cholesky(A₀ + Σ x_i A_i))``
    (``−log det``), the matrices 4 × 4 symmetric, stacked and contracted by
    ``np.tensordot``."""
    r = _rng(n, 2)
    A = r.normal(size=(n, 4, 4))
    A = 0.3 * (A + A.transpose(0, 2, 1))
    A0 = 4.0 * np.eye(4)
    c = r.normal(size=n)

    def f(x):
        M = A0 + np.tensordot(x, A, axes=1)
        C = np.linalg.cholesky(M)
        return c @ x - 2.0 * np.sum(np.log(np.diag(C)))

    return np_program(f, 0.3 * r.normal(size=n))


@program(12)
def norm_ord_keepdims(n):
    """The ``np.linalg.norm`` family: ``ord=3`` and ``ord=np.inf`` of a vector, ``"fro"`` of
    ``x.reshape(3, 4)``, rows normalized by ``norm(axis=1, keepdims=True)``, ``ord=1`` of
    the columns' ``axis=0``."""
    T = _rng(n, 3).normal(size=(3, 4))

    def f(x):
        M = x.reshape(3, 4)
        U = M / np.linalg.norm(M, axis=1, keepdims=True)
        fit = np.sum((U - T) ** 2)
        return (
            fit + np.linalg.norm(x, ord=3) ** 2 + 0.5 * np.linalg.norm(x, ord=np.inf) ** 2
            + np.linalg.norm(M, "fro") ** 3 + np.sum(np.linalg.norm(M, ord=1, axis=0) ** 2)
        )  # fmt: skip

    return np_program(f, _rng(n).normal(size=n))


# ---------------------------------------------------------------- robust and statistical losses


@program(12, 20_000)
def trimmed_least_squares_sort(n):
    """A least-trimmed-squares loss: residuals of a smooth model, the smallest 3/4 of the
    squared ones summed by ``np.sort``, and a median-like term by ``np.take_along_axis``
    of the residuals at their ``np.argsort``."""
    r = _rng(n, 4)
    y = r.normal(size=n)
    keep = 3 * n // 4

    def f(x):
        res = np.tanh(x) + 0.1 * x**3 - y
        small = np.sort(res**2)[:keep]
        order = np.argsort(res)
        ranked = np.take_along_axis(res, order, axis=0)
        return np.sum(small) + 0.1 * np.sum(np.linspace(0.0, 1.0, n) * ranked**2)

    return np_program(f, r.normal(size=n))


@program(12)
def softmax_regression_special(n):
    """Multinomial logistic regression, ``W = x.reshape(3, 4)``: log-probabilities by
    ``logits − sps.logsumexp(logits, axis=1, keepdims=True)`` picked by
    ``np.take_along_axis`` at the labels, and an ``np.logaddexp`` (softplus) prior."""
    r = _rng(n, 5)
    X = r.normal(size=(9, 4))
    labels = r.integers(0, 3, 9)

    def f(x):
        W = x.reshape(3, 4)
        logits = X @ W.T
        logp = logits - sps.logsumexp(logits, axis=1, keepdims=True)
        picked = np.take_along_axis(logp, labels[:, None], axis=1)
        return -np.sum(picked) + np.sum(np.logaddexp(0.0, x))

    return np_program(f, 0.5 * r.normal(size=n))


@program(8, 20_000)
def count_likelihood_special(n):
    """A zero-inflated Poisson / negative-binomial mixture per observation: the rate
    ``np.exp``, the zero weight ``sps.expit``, ``sps.xlogy``, ``sps.gammaln`` of an
    unknown dispersion, ``np.log1p`` and ``np.expm1``."""
    r = _rng(n, 6)
    k = r.integers(0, 5, n).astype(float)

    def f(x):
        lam = np.exp(0.5 * x)
        pi = sps.expit(x - 1.0)
        poisson = sps.xlogy(k, lam) - lam - sps.gammaln(k + 1.0)
        alpha = 1.0 + x**2
        nb = sps.gammaln(k + alpha) - sps.gammaln(alpha) - alpha * np.log1p(lam / alpha)
        smooth = np.sum(np.expm1(0.1 * np.diff(x)) ** 2)
        return -np.sum(np.log1p(-pi) + poisson + 0.1 * nb) + smooth

    return np_program(f, 0.3 * r.normal(size=n))


@program(10, 20_000)
def hinge_penalty_mask_reduceat(n):
    """Exterior penalties as users code them: ``np.maximum(0, g) ** 2`` of inequalities on
    ``x[mask]`` (a constant boolean mask), ``x[idx]`` with repeated indices, and group sums
    by ``np.add.reduceat`` at constant segment starts."""
    r = _rng(n, 7)
    mask = np.arange(n) % 3 != 1
    idx = np.concatenate([np.arange(n), np.arange(0, n, 2), [0, 0, n - 1]])
    starts = np.arange(0, n, 4)
    t = r.normal(size=idx.size)

    def f(x):
        g1 = x[mask] ** 2 - 1.0
        g2 = 0.5 - x[idx] * t
        groups = np.add.reduceat(x**2, starts)
        pen = np.sum(np.maximum(0, g1) ** 2) + np.sum(np.maximum(0.0, g2) ** 2)
        return np.sum((x - 0.3) ** 2) + 10.0 * pen + np.sum(np.maximum(0, groups - 2.0) ** 2)

    def ref(x):
        g1 = x[mask] ** 2 - 1.0
        g2 = 0.5 - x[idx] * t
        segment = np.repeat(np.arange(starts.size), np.diff([*starts, n]))
        groups = jax.ops.segment_sum(x**2, segment, num_segments=starts.size)
        pen = jnp.sum(jnp.maximum(0, g1) ** 2) + jnp.sum(jnp.maximum(0.0, g2) ** 2)
        return jnp.sum((x - 0.3) ** 2) + 10.0 * pen + jnp.sum(jnp.maximum(0, groups - 2.0) ** 2)

    return Program(f, 1.2 * r.normal(size=n), ref)


# ---------------------------------------------------------------- signals and tables


@program(12, 20_000)
def deconvolution_convolve_correlate(n):
    """Deconvolution with smoothing: ``np.convolve(x, kernel, mode="same")`` against data,
    ``np.correlate(x, x[:4], mode="valid")`` (a traced template), and a ``np.log1p``
    roughness of ``np.convolve(x, [1, -2, 1], mode="valid")``."""
    r = _rng(n, 8)
    kernel = np.array([0.25, 0.5, 0.25, 0.1])
    data = r.normal(size=n)

    def f(x):
        fit = np.convolve(x, kernel, mode="same") - data
        rough = np.convolve(x, [1.0, -2.0, 1.0], mode="valid")
        tmpl = np.correlate(x[:8], x[:4], mode="valid")
        return np.sum(fit**2) + np.sum(np.log1p(rough**2)) + np.sum(tmpl**2)

    return np_program(f, r.normal(size=n))


@program(10, 20_000)
def polyval_interp_trig(n):
    """Curves as tables and polynomials: ``np.polyval`` with constant coefficients of
    ``x`` and with traced coefficients ``x[:4]`` at constant abscissae, ``np.interp`` of
    ``x`` in a constant table, ``np.hypot`` / ``np.arctan2`` of neighbours, ``np.sinc``."""
    r = _rng(n, 9)
    table_x = np.linspace(-3.0, 3.0, 13)
    table_y = np.sin(table_x) + 0.1 * table_x**2
    ts = np.linspace(-1.0, 1.0, 5)

    def f(x):
        p1 = np.polyval([0.1, -0.3, 0.5, 1.0], x)
        p2 = np.polyval(x[:4], ts)
        tab = np.interp(x, table_x, table_y)
        a, b = x[:-1], x[1:]
        rad = np.hypot(a, b + 2.0)
        ang = np.arctan2(b, a + 3.0)
        return (np.sum(p1**2) + np.sum(p2**2) + np.sum(tab * x) + np.sum(rad * ang)
                + np.sum(np.sinc(0.3 * x)))  # fmt: skip

    return np_program(f, r.uniform(-2.0, 2.0, size=n))


@program(12, 20_000)
def where_broadcast_stack(n):
    """A binned penalty by ``np.where`` on a broadcast comparison (points × bin edges), and
    features built by ``np.stack`` / ``np.hstack`` of slices of ``x``."""
    r = _rng(n, 10)
    edges = np.array([-1.0, 0.0, 1.0])

    def f(x):
        above = np.where(x[:, None] > edges[None, :], (x[:, None] - edges) ** 2, 0.0)
        pairs = np.stack([x[:-1], x[1:]], axis=1)
        feats = np.hstack([x[:2] ** 2, x[-2:], np.sin(x[1:3])])
        return np.sum(above * x[:, None]) + np.sum(np.prod(pairs, axis=1) ** 2) + np.sum(feats**2)

    return np_program(f, r.normal(size=n))


# ---------------------------------------------------------------- particles and elements


@program(18)
def lennard_jones_cutoff_where(n, rc=2.0):
    """A Lennard-Jones cluster ``x.reshape(-1, 3)``: every pair's distance by broadcasting,
    the shifted potential cut off by ``np.where(r < rc, ...)`` on the strict upper
    triangle (``np.triu_indices``)."""
    k = n // 3
    grid = np.array([[i, j, k3] for i in range(2) for j in range(2) for k3 in range(2)], float)
    pos = 1.12 * grid[:k] + 0.05 * _rng(n, 11).normal(size=(k, 3))
    iu, ju = np.triu_indices(k, 1)
    shift = 4.0 * (rc**-12 - rc**-6)

    def f(x):
        p = x.reshape(-1, 3)
        diff = p[:, None, :] - p[None, :, :]
        r2 = np.sum(diff**2, axis=-1)[iu, ju]
        s6 = 1.0 / r2**3
        e = np.where(r2 < rc**2, 4.0 * (s6**2 - s6) - shift, 0.0)
        return np.sum(e)

    return np_program(f, pos.ravel())


@program(15, 18_000)
def rod_bending_cross(n):
    """A discrete elastic rod ``x.reshape(-1, 3)``: edges by ``np.diff``, the bending of
    consecutive edges by ``np.cross`` and their dot, unit tangents by
    ``np.linalg.norm(axis=1, keepdims=True)``, stretching energy."""
    k = n // 3
    s = np.linspace(0.0, 2.0, k)
    pos = np.stack([s, np.sin(s), 0.3 * np.cos(2 * s)], 1) + 0.02 * _rng(n, 12).normal(size=(k, 3))

    def f(x):
        p = x.reshape(-1, 3)
        e = np.diff(p, axis=0)
        length = np.linalg.norm(e, axis=1, keepdims=True)
        t = e / length
        cr = np.cross(t[:-1], t[1:])
        dot = np.sum(t[:-1] * t[1:], axis=1)
        bend = np.sum(cr**2, axis=1) / (1.0 + dot) ** 2
        return np.sum(bend) + np.sum((length - 0.5) ** 2)

    return np_program(f, pos.ravel())


@program(10, 20_000)
def fe_residual_add_at(n):
    """A nonlinear-diffusion residual ``r(u)`` assembled element by element by
    ``np.add.at`` (fluxes ``k(u) du``, ``k = 1 + u²``, into both nodes), minimized as
    ``½ ‖r(u) − f‖²`` (a least-squares FE solve)."""
    h = 1.0 / (n - 1)
    left, right = np.arange(n - 1), np.arange(1, n)
    load = h * np.cos(np.linspace(0.0, 3.0, n))

    def f(u):
        um = 0.5 * (u[left] + u[right])
        flux = (1.0 + um**2) * (u[right] - u[left]) / h
        res = np.zeros(n)
        np.add.at(res, left, -flux)
        np.add.at(res, right, flux)
        return 0.5 * np.sum((res - load) ** 2) + 0.5 * u[0] ** 2

    def ref(u):
        um = 0.5 * (u[left] + u[right])
        flux = (1.0 + um**2) * (u[right] - u[left]) / h
        res = jnp.zeros(n).at[left].add(-flux).at[right].add(flux)
        return 0.5 * jnp.sum((res - load) ** 2) + 0.5 * u[0] ** 2

    return Program(f, 0.3 * _rng(n, 13).normal(size=n), ref)


# ---------------------------------------------------------------- constraint Lagrangians


@program(6)
def lagrangian_inner_outer(n):
    """trust-constr's ``hess(x, v)`` of an objective and four constraints: a sphere
    ``np.inner(x, x)``, a rank-one ``np.outer(x, a)`` bilinear form, a softplus by
    ``np.logaddexp`` and an ``np.expm1`` of a product."""
    r = _rng(n, 14)
    a = r.normal(size=n)
    B = r.normal(size=(n, n))

    def f(x):
        obj = np.sum(np.log1p(x**2)) + x @ B @ x
        sphere = np.inner(x, x) - 1.0
        bil = np.sum(np.outer(x, a) * B)
        soft = np.logaddexp(x[0], x[1] * x[2]) - 0.5
        ex = np.expm1(x[3] * x[4]) + x[5]
        return np.hstack([obj, sphere, bil, soft, ex])

    return np_program(f, 0.5 * r.normal(size=n), vector=True)


@program(12, 20_000)
def lagrangian_path_constraints(n):
    """A path ``x.reshape(-1, 2)`` with per-segment constraints (``np.hypot`` lengths, an
    ``np.arctan2`` turning-angle bound, ``np.log1p`` of a height) concatenated after an
    objective: the Lagrangian's Hessian with weights."""
    k = n // 2
    s = np.linspace(0.0, 1.0, k)
    path = np.stack([s, 0.2 * np.sin(3 * s)], 1) + 0.01 * _rng(n, 15).normal(size=(k, 2))

    def f(x):
        p = x.reshape(-1, 2)
        d = np.diff(p, axis=0)
        length = np.hypot(d[:, 0], d[:, 1]) - 1.0 / k
        heading = np.arctan2(d[:, 1], d[:, 0])
        turn = np.diff(heading) ** 2 - 0.2
        height = np.log1p(p[:, 1] ** 2) - 0.1
        obj = np.sum(p[:, 1] ** 2) + np.sum(d**2)
        return np.concatenate([[obj], length, turn, height])

    return np_program(f, path.ravel(), vector=True)


# ---------------------------------------------------------------- sympy


@program(4)
def sympy_matrix_det_inv(n):
    """A sympy ``Matrix`` objective without ``lambdify``: ``M = [[x₀, x₁], [x₂, x₃]] + 2I``,
    ``log(det M)² + trace(M⁻¹) + trace(M Mᵀ M)``, evaluated by dgraph from the sympy
    expression itself."""

    def f(x):
        M = sp.Matrix([[x[0], x[1]], [x[2], x[3]]]) + 2 * sp.eye(2)
        return sp.log(M.det()) ** 2 + M.inv().trace() + (M * M.T * M).trace()

    def ref(x):
        M = jnp.array([[x[0], x[1]], [x[2], x[3]]]) + 2.0 * jnp.eye(2)
        return (
            jnp.log(jnp.linalg.det(M)) ** 2 + jnp.trace(jnp.linalg.inv(M)) + jnp.trace(M @ M.T @ M)
        )

    return Program(f, np.array([0.3, -0.2, 0.4, 0.1]), ref)


# ---------------------------------------------------------------- second round: rarer spellings


@program(8)
def simp_compliance_add_at_2d(n):
    """Topology optimization (SIMP) of a bar of ``n`` elements: the stiffness matrix
    assembled by ``np.add.at(K, (rows, cols), ke * rho ** 3)`` with a 2-D index tuple, the
    support by ``K[1:, 1:]``, the compliance ``f·u`` of ``u = np.linalg.solve(K, f)``."""
    e = np.arange(n)
    rows = np.stack([e, e, e + 1, e + 1], 1).ravel()
    cols = np.stack([e, e + 1, e, e + 1], 1).ravel()
    ke = np.tile([1.0, -1.0, -1.0, 1.0], n)
    load = np.linspace(0.5, 1.0, n)

    def f(x):
        rho = 0.2 + 0.8 / (1.0 + np.exp(-x))
        K = np.zeros((n + 1, n + 1))
        np.add.at(K, (rows, cols), ke * np.repeat(rho**3, 4))
        u = np.linalg.solve(K[1:, 1:], load)
        return load @ u + 0.1 * np.sum(rho)

    def ref(x):
        rho = 0.2 + 0.8 / (1.0 + jnp.exp(-x))
        K = jnp.zeros((n + 1, n + 1)).at[rows, cols].add(ke * jnp.repeat(rho**3, 4))
        u = jnp.linalg.solve(K[1:, 1:], load)
        return load @ u + 0.1 * jnp.sum(rho)

    return Program(f, 0.5 * _rng(n, 20).normal(size=n), ref)


@program(9)
def norm_matrix_ords(n):
    """Matrix norms of ``M = x.reshape(3, 3)``: the spectral ``ord=2``, the nuclear
    ``"nuc"``, ``ord=-np.inf`` (the smallest row sum) and a vector's ``ord=-np.inf``,
    ``ord=0.5``."""

    def f(x):
        M = x.reshape(3, 3)
        return (np.linalg.norm(M, ord=2) ** 2 + np.linalg.norm(M, "nuc")
                + np.linalg.norm(M, ord=-np.inf) + np.linalg.norm(x, ord=-np.inf) ** 2
                + np.linalg.norm(x, ord=0.5))  # fmt: skip

    return np_program(f, np.array([1.3, -0.4, 0.2, 0.5, 2.1, -0.7, 0.3, 0.6, 1.7]))


@program(11)
def median_percentile_partition(n):
    """Robust statistics of residuals: ``np.median`` of the squares, ``np.percentile(q=25)``,
    ``np.partition`` of ``|r|`` at the middle, ``np.var(ddof=1)``."""
    y = _rng(n, 21).normal(size=n)

    def f(x):
        r = np.sinh(x) - y
        med = np.median(r**2)
        q = np.percentile(r, 25.0)
        part = np.partition(np.abs(r), n // 2)[: n // 2]
        return med + q**2 + np.sum(part**2) + np.var(r, ddof=1)

    return np_program(f, _rng(n, 22).normal(size=n))


@program(8)
def logsumexp_weights_softmax(n):
    """``sps.logsumexp(a, b=w)`` (weighted), ``return_sign=True``, ``sps.softmax`` and
    ``sps.log_softmax`` of ``x.reshape(2, 4)`` along ``axis=1``, ``np.logaddexp.reduce``."""
    w = np.array([0.5, 2.0, 1.0, 0.25, 1.5, 0.75, 1.0, 3.0])

    def f(x):
        M = x.reshape(2, 4)
        a = sps.logsumexp(x, b=w)
        s, sign = sps.logsumexp(x[:4], b=np.array([1.0, -0.2, 0.3, 0.1]), return_sign=True)
        p = sps.softmax(M, axis=1)
        lp = sps.log_softmax(M, axis=1)
        return a + sign * s + np.sum(p * lp) + np.logaddexp.reduce(x**2)

    def ref(x):
        M = x.reshape(2, 4)
        a = jss.logsumexp(x, b=w)
        s, sign = jss.logsumexp(x[:4], b=jnp.array([1.0, -0.2, 0.3, 0.1]), return_sign=True)
        p = jax.nn.softmax(M, axis=1)
        lp = jax.nn.log_softmax(M, axis=1)
        return a + sign * s + jnp.sum(p * lp) + jss.logsumexp(x**2)

    return Program(f, 0.7 * _rng(n, 23).normal(size=n), ref)


@program(10, 20_000)
def interp_edges_gradient(n):
    """``np.interp`` with ``left=``/``right=`` at points outside the table, ``np.gradient``
    (second-order differences, ``edge_order=2``), ``np.diff(n=2)`` and a reduction with
    ``where=`` a constant mask."""
    table_x = np.linspace(-1.0, 1.0, 9)
    table_y = table_x**3 - table_x
    mask = np.arange(n) % 4 != 0

    def f(x):
        tab = np.interp(x, table_x, table_y, left=-0.5, right=0.5)
        g = np.gradient(x, 0.1, edge_order=2)
        d2 = np.diff(x, n=2)
        return (np.sum(tab * x**2) + np.sum(g**2 * x) + np.sum(d2**4)
                + np.sum(np.exp(0.3 * x), where=mask))  # fmt: skip

    def ref(x):
        tab = jnp.interp(x, table_x, table_y, left=-0.5, right=0.5)
        g = jnp.gradient(x, 0.1)  # interior: central; the edges below as NumPy's order 2
        g = g.at[0].set((-3 * x[0] + 4 * x[1] - x[2]) / 0.2)
        g = g.at[-1].set((3 * x[-1] - 4 * x[-2] + x[-3]) / 0.2)
        d2 = jnp.diff(x, n=2)
        return (jnp.sum(tab * x**2) + jnp.sum(g**2 * x) + jnp.sum(d2**4)
                + jnp.sum(jnp.where(mask, jnp.exp(0.3 * x), 0.0)))  # fmt: skip

    return Program(f, 1.4 * _rng(n, 24).normal(size=n), ref)


@program(10, 20_000)
def safe_where_entropy_sinc(n):
    """The "safe" ``np.where`` users write around a logarithm, ``np.where(x > 0, x *
    np.log(x), 0)`` evaluated at some negative ``x`` and at 0 (NaN in the branch not
    taken), and ``np.sinc`` at exactly 0."""

    def f(x):
        ent = np.where(x > 0, x * np.log(x), 0.0)
        return np.sum(ent) + np.sum(np.sinc(x - x[0])) + np.sum(x**2)

    def ref(x):  # forward over forward of the same code: a select of tangents, no 0 · NaN
        safe = jnp.where(x > 0, x, 1.0)
        ent = jnp.where(x > 0, safe * jnp.log(safe), 0.0)
        return jnp.sum(ent) + jnp.sum(_Twin.sinc(x - x[0])) + jnp.sum(x**2)

    return Program(f, _POINT_WITH_ZERO if n == 10 else 0.5 + _rng(n, 25).normal(size=n), ref)


_POINT_WITH_ZERO = np.array([0.5, -0.3, 1.2, 0.8, -1.1, 0.0, 2.0, -0.2, 0.4, 1.5])


@program(10)
def relu_mask_assign(n):
    """An in-place masked assignment on a copy, ``y[y < 0] = 0`` (a ReLU), then a cubic."""

    def f(x):
        y = x.copy()
        y[y < 0] = 0.0
        return np.sum(y**3) + np.sum(x * y)

    def ref(x):
        y = jnp.where(x < 0, 0.0, x)
        return jnp.sum(y**3) + jnp.sum(x * y)

    return Program(f, _POINT_WITH_ZERO + 0.01, ref)


@program(12)
def ufunc_reduce_polynomial_module(n):
    """``np.multiply.reduce``, ``np.add.reduce(axis=1)``, ``np.maximum.reduce`` of distinct
    values, ``np.polynomial.polynomial.polyval`` (lowest degree first) with traced
    coefficients, ``np.expand_dims`` / ``np.squeeze``, ``np.einsum("...i,...i->...")``."""
    ts = np.linspace(-1.0, 1.0, 6)

    def f(x):
        M = x.reshape(3, 4)
        prod = np.multiply.reduce(1.0 + 0.1 * x[:5])
        rows = np.add.reduce(M**2, axis=1)
        top = np.maximum.reduce(x * np.arange(1, n + 1))
        poly = np.polynomial.polynomial.polyval(ts, x[:4])
        e = np.squeeze(np.expand_dims(x, 0) @ np.expand_dims(x[::-1], 1))
        dots = np.einsum("...i,...i->...", M, np.cos(M))
        return prod + np.sum(rows**2) + top**2 + np.sum(poly**2) + e + np.sum(dots)

    def ref(x):
        M = x.reshape(3, 4)
        poly = sum(c * ts**k for k, c in enumerate(x[:4]))
        return (jnp.prod(1.0 + 0.1 * x[:5]) + jnp.sum(jnp.sum(M**2, axis=1) ** 2)
                + jnp.max(x * jnp.arange(1, n + 1)) ** 2 + jnp.sum(poly**2) + x @ x[::-1]
                + jnp.sum(M * jnp.cos(M)))  # fmt: skip

    return Program(f, _rng(n, 26).normal(size=n), ref)


def _spd(x):
    return np.diag(2.0 + x[:3] ** 2) + 0.1 * np.outer(x[3:], x[3:])


def _spd_jax(x):
    return jnp.diag(2.0 + x[:3] ** 2) + 0.1 * jnp.outer(x[3:], x[3:])


_B3 = np.array([1.0, -0.5, 0.3])
_SWAP = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])


@program(6)
def scipy_cho_solve_triangular(n):
    """``scipy.linalg.cho_factor`` / ``cho_solve`` and ``solve_triangular`` of the Cholesky
    factor of an SPD matrix of unknowns."""
    import scipy.linalg as sla

    def f(x):
        A = _spd(x)
        u = sla.cho_solve(sla.cho_factor(A, lower=True), _B3)
        v = sla.solve_triangular(np.linalg.cholesky(A), _B3, lower=True)
        return _B3 @ u + v @ v

    def ref(x):
        A = _spd_jax(x)
        v = jax.scipy.linalg.solve_triangular(jnp.linalg.cholesky(A), _B3, lower=True)
        return _B3 @ jnp.linalg.solve(A, _B3) + v @ v

    return Program(f, 0.6 * _rng(n, 27).normal(size=n), ref)


@program(6)
def slogdet_sign_batched_solve(n):
    """``np.linalg.slogdet`` of a matrix with a negative determinant (its sign used) and a
    batched ``np.linalg.solve`` of a stack (2, 2, 2) with right-hand sides (2, 2, 1)."""

    def f(x):
        A = _spd(x)
        sign, logdet = np.linalg.slogdet(_SWAP @ A)
        w = np.linalg.solve(np.stack([A[:2, :2], A[1:, 1:]]), np.ones((2, 2, 1)))
        return sign * logdet + np.sum(w**2)

    def ref(x):
        A = _spd_jax(x)
        sign, logdet = jnp.linalg.slogdet(_SWAP @ A)
        w = jnp.linalg.solve(jnp.stack([A[:2, :2], A[1:, 1:]]), jnp.ones((2, 2, 1)))
        return sign * logdet + jnp.sum(w**2)

    return Program(f, 0.6 * _rng(n, 27).normal(size=n), ref)


@program(4)
def sympy_jacobian_determinant(n):
    """A sympy change of variables: the map's ``Matrix.jacobian``, its ``det()`` in a
    log-barrier, ``Matrix.norm()`` of the map and ``.dot`` of two sympy vectors."""
    a, b, c, d = sp.symbols("a b c d")
    F = sp.Matrix([a * sp.exp(b), b + c**2, sp.sin(c) * d, a * d + c])
    J = F.jacobian([a, b, c, d])

    def f(x):
        sub = dict(zip((a, b, c, d), x, strict=True))
        det = J.det().subs(sub)
        Fx = F.subs(sub)
        return -sp.log(det**2) + Fx.norm() ** 2 + Fx.dot(sp.Matrix([1, 2, 3, 4])) ** 2

    def ref(x):
        def mapped(y):
            return jnp.array([y[0] * jnp.exp(y[1]), y[1] + y[2] ** 2, jnp.sin(y[2]) * y[3],
                              y[0] * y[3] + y[2]])  # fmt: skip

        Fx, Jx = mapped(x), jax.jacfwd(mapped)(x)
        return -jnp.log(jnp.linalg.det(Jx) ** 2) + Fx @ Fx + (Fx @ jnp.arange(1.0, 5.0)) ** 2

    return Program(f, np.array([0.8, 0.3, -0.5, 1.2]), ref)


#: ``real_programs16.py:NAME`` for ``dgraph codegen``: each program at its small size
globals().update({name: builder(small).f for name, (builder, small, _) in PROGRAMS.items()})


if __name__ == "__main__":
    survey_main(sys.argv[1:], PROGRAMS, __file__, 16)
