"""Real programs through dgraph's public API, a fifth survey beside
``benchmarks/real_programs.py``, ``real_programs2.py``, ``real_programs_hessian.py`` and
``real_programs3.py``, of kinds those do not hold: ``np.gradient`` of a 2-D field in NumPy,
``jnp.diff`` and ``jnp.trapezoid`` integrals, a ``jnp.linalg.lstsq`` regression and a
``pinv`` one, a ``jnp.kron`` separable model, a periodic 2-D stencil by ``jnp.roll``,
``jnp.clip``/``jnp.heaviside``/``jnp.piecewise`` losses, ``jnp.cross`` rigid-body kinematics,
a three-operand ``jnp.einsum``, attention with a ``jnp.tril`` mask and
``jax.nn.logsumexp``, ``jnp.meshgrid`` radial basis functions, ``np.linalg.solve`` and
``np.linalg.inv`` in NumPy, a ``jnp.vander`` polynomial fit, a ``lax.while_loop`` Newton
iteration, and ``jnp.linalg.matrix_power`` with ``jnp.tensordot``.

Each program is a builder ``n -> Case`` at a small size (10–100 unknowns) and a medium one
(10³–10⁴); the columns are real_programs3's (``SizedSurvey`` of
``benchmarks/real_programs_harness.py``), every value against ``jax.jacfwd`` /
``jax.hessian`` of the reference, relative 1e-8.

    python benchmarks/real_programs4.py [NAME ...] [--modes=jac,jvp,...] [--limit=SECONDS]
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable

import jax
import jax.numpy as jnp
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
rng = np.random.default_rng(21)


def _rng(n: int, salt: int = 0) -> np.random.Generator:
    return np.random.default_rng(1000 * n + salt + 4)


#: name -> (builder n -> Case, small n, medium n or None)
PROGRAMS: dict[str, tuple[Callable[[int], tuple], int, int | None]] = {}
program = registry(PROGRAMS)


# ---------------------------------------------------------------- fields and integrals


@program(6, 40)
def gradient_field_numpy(n):
    """A Ginzburg–Landau energy of an ``n × n`` field in NumPy: ``np.gradient`` along both
    axes (central inside, one-sided at the edges) and a double-well term."""
    h = 1.0 / (n - 1)

    def energy(u):
        U = u.reshape(n, n)
        gy, gx = np.gradient(U, h)
        return 0.5 * np.sum(gx**2 + gy**2) * h * h + np.sum((U**2 - 1) ** 2) * h * h

    return np_case(energy, (data(_rng(n), n * n, scale=0.5),), True)


@program(12, 2000)
def diff_trapezoid(n):
    """Arc length by ``jnp.diff`` and a work integral by ``jnp.trapezoid`` of a curve
    sampled at ``n`` points."""
    t = np.linspace(0.0, 1.0, n)

    def f(y):
        arc = jnp.sum(jnp.sqrt(jnp.diff(t) ** 2 + jnp.diff(y) ** 2))
        work = jnp.trapezoid(jnp.sin(y) * y**2, t)
        return arc + work

    return jax_case(f, (np.sin(3 * t) + 0.1 * data(_rng(n), n),), True)


@program(8, 64)
def roll_stencil_2d(n):
    """An Allen–Cahn step on an ``n × n`` periodic grid: the 5-point Laplacian by
    ``jnp.roll`` along both axes; the new field."""

    def step(u):
        U = u.reshape(n, n)
        lap = (jnp.roll(U, 1, 0) + jnp.roll(U, -1, 0) + jnp.roll(U, 1, 1)
               + jnp.roll(U, -1, 1) - 4 * U)  # fmt: skip
        return (U + 0.1 * lap + 0.05 * (U - U**3)).ravel()

    return jax_case(step, (data(_rng(n), n * n, scale=0.5),), False)


@program(6, 30)
def meshgrid_rbf(n):
    """Gaussian radial basis functions with centres on a ``jnp.meshgrid`` of ``n × n``
    points: the weights fitting samples at random sites, a squared loss."""
    r = _rng(n)
    g = jnp.linspace(-1, 1, n)
    cx, cy = jnp.meshgrid(g, g, indexing="ij")
    sites = data(r, 2 * n, 2, scale=0.6)
    y = np.sin(sites[:, 0]) * np.cos(sites[:, 1])

    def loss(w):
        d2 = (sites[:, 0, None] - cx.ravel()) ** 2 + (sites[:, 1, None] - cy.ravel()) ** 2
        pred = jnp.exp(-d2 * n) @ w
        return jnp.mean((pred - y) ** 2) + 1e-3 * jnp.sum(w**2)

    return jax_case(loss, (data(r, n * n, scale=0.1),), True)


# ---------------------------------------------------------------- linear algebra


@program(10, 1000)
def lstsq_regression(n):
    """Features ``tanh(x ⊗ basis)`` of parameters ``x``; the least-squares weights by
    ``jnp.linalg.lstsq`` and the residual's norm."""
    r = _rng(n)
    basis, y = data(r, 4), data(r, n)

    def f(x):
        A = jnp.tanh(jnp.outer(x, basis))
        w = jnp.linalg.lstsq(A, y)[0]
        return jnp.sum((A @ w - y) ** 2) + jnp.sum(w**2)

    return jax_case(f, (data(r, n),), True)


@program(10, 1000)
def pinv_regression(n):
    """The same fit by ``jnp.linalg.pinv``: the predictions ``A pinv(A) y``."""
    r = _rng(n, 1)
    basis, y = data(r, 3), data(r, n)

    def f(x):
        A = jnp.stack([jnp.ones_like(x), jnp.sin(x * basis[0]), x * basis[1]], axis=1)
        return A @ (jnp.linalg.pinv(A) @ y)

    return jax_case(f, (data(r, n),), False)


@program(4, 32)
def kron_separable(n):
    """A separable 2-D model ``kron(A, B) vec(X)`` with ``A = exp(-P)`` by parameters;
    the squared misfit."""
    r = _rng(n)
    B = data(r, n, n, scale=0.3)
    X = data(r, n * n)
    y = data(r, n * n)

    def loss(p):
        A = jnp.eye(n) + 0.2 * jnp.tanh(p.reshape(n, n))
        return jnp.sum((jnp.kron(A, B) @ X - y) ** 2)

    return jax_case(loss, (data(r, n * n),), True)


@program(6, 30)
def numpy_solve_inv(n):
    """NumPy code: a Tikhonov solve ``np.linalg.solve(K(x), b)`` and a trace of
    ``np.linalg.inv``, ``K = diag(exp x) + M Mᵀ``."""
    r = _rng(n)
    M = data(r, n, n, scale=0.3)
    b = data(r, n)

    def f(x):
        K = np.diag(np.exp(x)) + M @ M.T
        z = np.linalg.solve(K, b)
        return np.dot(z, z) + np.trace(np.linalg.inv(K))

    return np_case(f, (data(r, n, scale=0.3),), True)


@program(12, 1000)
def vander_polyfit(n):
    """A cubic fit to data ``y`` at sites ``t``: ``jnp.vander`` and the normal equations by
    ``jnp.linalg.solve``; the coefficients."""
    t = np.linspace(-1, 1, n)

    def fit(y):
        V = jnp.vander(t, 4)
        return jnp.linalg.solve(V.T @ V, V.T @ y)

    return jax_case(fit, (np.cos(2 * t) + 0.1 * data(_rng(n), n),), False)


@program(4, 20)
def matrix_power_tensordot(n):
    """A three-step linear recurrence ``matrix_power(A, 3)`` with ``A`` by parameters and a
    ``jnp.tensordot`` readout of a batch of states."""
    r = _rng(n)
    S = data(r, n, 5)
    W = data(r, n, 5, scale=0.5)

    def f(p):
        A = 0.5 * jnp.tanh(p.reshape(n, n))
        Y = jnp.linalg.matrix_power(A, 3) @ S
        return jnp.tensordot(Y, W, axes=([0, 1], [0, 1]))

    return jax_case(f, (data(r, n * n),), True)


# ---------------------------------------------------------------- losses and mechanics


@program(20, 2000)
def clip_heaviside_piecewise(n):
    """A clipped residual, a ``jnp.heaviside`` gate and a ``jnp.piecewise`` smooth-L1."""
    y = data(_rng(n), n)

    def loss(x):
        r = jnp.clip(x - y, -1.5, 1.5)
        gate = jnp.heaviside(x, 0.5)
        sl1 = jnp.piecewise(r, [jnp.abs(r) < 1], [lambda s: 0.5 * s**2, lambda s: jnp.abs(s) - 0.5])
        return jnp.sum(sl1 + gate * x**2)

    return jax_case(loss, (data(_rng(n, 1), n),), True)


@program(5, 1000)
def rigid_body_cross(n):
    """``n`` rigid bodies: velocities ``ω × r`` by ``jnp.cross``, the kinetic energy and the
    angular momentum's squared norm."""
    r = _rng(n)
    R = data(r, n, 3)
    m = 1 + np.abs(data(r, n))

    def f(w):
        W = w.reshape(n, 3)
        v = jnp.cross(W, R)
        ke = 0.5 * jnp.sum(m[:, None] * v**2)
        L = jnp.sum(m[:, None] * jnp.cross(R, v), axis=0)
        return ke + 0.1 * jnp.dot(L, L)

    return jax_case(f, (data(r, 3 * n),), True)


@program(5, 40)
def einsum_trilinear(n):
    """Three-operand ``jnp.einsum``: a bilinear form ``'i,ij,j->'`` and a trilinear one
    ``'ijk,i,j->k'`` with a fixed tensor."""
    r = _rng(n)
    M = data(r, n, n)
    T = data(r, n, n, 3)

    def f(x):
        q = jnp.einsum("i,ij,j->", x, M, x)
        z = jnp.einsum("ijk,i,j->k", T, x, jnp.tanh(x))
        return q + jnp.sum(z**2)

    return jax_case(f, (data(r, n),), True)


@program(4, 32)
def causal_logsumexp_attention(n):
    """Causal attention over ``n`` tokens of width 4: a ``jnp.tril`` mask, scores minus
    ``jax.nn.logsumexp`` over each row (a log-softmax), attention-weighted values."""
    d, r = 4, _rng(n)
    Wq, Wk = data(r, d, d, scale=0.5), data(r, d, d, scale=0.5)

    def f(x):
        X = x.reshape(n, d)
        s = (X @ Wq) @ (X @ Wk).T / jnp.sqrt(d)
        mask = jnp.tril(jnp.ones((n, n))) > 0
        s = jnp.where(mask, s, -1e9)
        logp = s - jax.nn.logsumexp(s, axis=-1, keepdims=True)
        return (jnp.exp(logp) @ X).ravel()

    return jax_case(f, (data(r, n * d),), False)


@program(10, 2000)
def newton_while_loop(n):
    """Solve ``z³ + z = x`` elementwise by Newton's method in ``lax.while_loop`` (eight steps,
    a counter in the carry); the root's squared sum."""

    def f(x):
        def body(c):
            i, z = c
            return i + 1, z - (z**3 + z - x) / (3 * z**2 + 1)

        _, z = lax.while_loop(lambda c: c[0] < 8, body, (0, x))
        return jnp.sum(z**2)

    def ref(x):  # JAX's reverse mode refuses a while_loop: the same steps by fori_loop
        z = lax.fori_loop(0, 8, lambda i, z: z - (z**3 + z - x) / (3 * z**2 + 1), x)
        return jnp.sum(z**2)

    return (f, (data(_rng(n), n),), True, ref)


# ---------------------------------------------------------------- the survey


def main(argv: list[str]) -> None:
    SizedSurvey(PROGRAMS, CASES, __file__, rng, cell=7, modes=MODES_SIZED).main(argv)


#: each program at its small size, under its name (``dgraph codegen real_programs4.py:NAME``)
CASES = small_cases(PROGRAMS, globals())

if __name__ == "__main__":
    main(sys.argv[1:])
