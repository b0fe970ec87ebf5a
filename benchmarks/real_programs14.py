"""Real second-order programs through dgraph's Hessian API, a survey beside
``benchmarks/real_programs_hessian.py`` with its columns (``HessianSurvey``) and three of the
command line: NumPy (dgraph's NumPy tracer) and sympy code of domains and idioms the earlier
surveys do not hold (session 33).

CUTEst problems not in ``benchmarks/cutest.py``: BRYBND (Broyden banded, five shifts of
``np.pad``), CRAGGLVY (``np.tan``, the pairs of ``x[0::2]``/``x[1::2]``), GENHUMPS
(``np.sin`` squared), NONDQUAR and SINQUAD (an arrow: every term holds ``x[-1]`` or
``x[0]``), POWELLSG (``x.reshape(-1, 4)``), SCHMVETT (a quotient and ``np.exp``), SPARSQUR
(gathers at ``2i mod n``, ``i² mod n``, ``i³ mod n``). Constrained problems' Lagrangians: a
hanging chain (catenary) with link-length equality constraints by ``np.hypot`` of
``np.diff`` of ``x.reshape(-1, 2)``, an optimal-control discretization (trapezoidal defects
by ``np.diff``). A 1-D finite-element energy assembled by ``np.add.at`` and a 2-D one by
``np.bincount(weights=)``, a stick-breaking likelihood by ``np.cumprod``, trilateration by
``np.linalg.norm(axis=2)`` of a broadcast difference and ``np.where`` of the broadcast
distances, ``np.einsum`` with repeated indices (``"ii"``, ``"ij,ij->"``, ``"i,ij,j"``), a
cubic form by ``np.tensordot`` with ``np.kron``, ``np.outer`` and ``np.triu``, an
orthogonality penalty ``U.T @ U``, ``np.kron`` / ``np.outer`` of unknowns, pairs unpacked
by ``np.hypot(*p.T)`` and ``np.arctan2(*p.T[::-1])``, a cost by ``np.trapezoid`` of a
``np.cumsum`` path, a stack of 2 × 2 matrices (``@`` with ``np.swapaxes``,
``np.linalg.det``, ``np.trace(axis1=1, axis2=2)``), features standardized by
``mean``/``std(axis=0, keepdims=True)``, in-place slice updates of ``x.copy()``,
``np.einsum("ii->i")`` and ``"ij,jk,ki->"``. sympy: ``Piecewise`` / ``Abs`` / ``Max`` /
``sp.exp(sp.log(...))`` terms, a gradient's squared norm derived by
``sp.Matrix([V]).jacobian(X)`` and substituted with the unknowns, ``atan2``, ``x₀^x₁``,
``asinh``, ``erf``, and a list of residuals (``sp.Min``, ``sp.sqrt``) whose Lagrangian
takes weights.

Columns: real_programs_hessian's (``dense``, ``sparse``, ``tril``, ``hvp``, ``vgh``, ``jax``,
``c``, ``large``; values at three points against ``jax.jacfwd(jax.jacfwd(L))`` of the
JAX reference, relative 1e-8, the sparse pattern no narrower than the true one) and

- ``cli``: ``dgraph codegen real_programs14.py:NAME --inputs x:N --mode hessian --sparse
  [--weights W] -o FILE.py`` in this process, the written ``jacobian(x)`` (a CSR) at the
  point against the reference;
- ``cli_jax``: the same with ``--lang jax`` (dense), its ``hessian(x)``;
- ``cli_c``: the same with ``-o FILE.c`` (``--sparse``): compiled, its ``jacobian_values``
  and ``hessian_mirror`` called through ctypes.

The hostile inputs this survey led to are in the corpus (``tests/hostile/numpy_model.py``).

    python benchmarks/real_programs14.py [NAME ...] [--modes=dense,...] [--limit=S]
"""

from __future__ import annotations

import contextlib
import importlib.util
import inspect
import io
import sys
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path

import jax
import jax.numpy as jnp
import jax.scipy.special
import numpy as np
import sympy as sp
from real_programs_harness import jnp_twin, registry
from real_programs_hessian import HessianSurvey, Program

warnings.filterwarnings("ignore")
jax.config.update("jax_enable_x64", True)

MODES = ("dense", "sparse", "tril", "hvp", "vgh", "jax", "c", "large", "cli", "cli_jax", "cli_c")

#: name -> (builder n -> Program, small n, large n or None)
PROGRAMS: dict[str, tuple[Callable[[int], Program], int, int | None]] = {}
program = registry(PROGRAMS)


def _rng(n: int, salt: int = 0) -> np.random.Generator:
    return np.random.default_rng(1000 * n + salt + 14)


def np_program(f, x, vector=False) -> Program:
    return Program(f, np.asarray(x, dtype=float), jnp_twin(f), vector)


# ---------------------------------------------------------------- CUTEst


@program(10, 20_000)
def cutest_brybnd(n):
    """BRYBND: ``Σ (x_i (2 + 5 x_i²) + 1 − Σ_{j∈J_i} x_j (1 + x_j))²``, ``J_i`` the five
    indices below ``i`` and the one above, by shifts of ``np.pad``."""

    def f(x):
        t = np.pad(x * (1.0 + x), (5, 1))
        s = t[0:-6] + t[1:-5] + t[2:-4] + t[3:-3] + t[4:-2] + t[6:]
        return np.sum((x * (2.0 + 5.0 * x**2) + 1.0 - s) ** 2)

    return np_program(f, -np.ones(n) + 0.1 * _rng(n).normal(size=n))


@program(10, 20_000)
def cutest_cragglvy(n):
    """CRAGGLVY: pairs ``(x_{2i}, x_{2i+1}, x_{2i+2}, x_{2i+3})`` by strided slices, with
    ``np.exp``, ``np.tan`` and powers up to 8."""

    def f(x):
        a, b, c, d = x[0:-3:2], x[1:-2:2], x[2:-1:2], x[3::2]
        return np.sum(
            (np.exp(a) - b) ** 4 + 100.0 * (b - c) ** 6 + (np.tan(c - d) + c - d) ** 4
            + a**8 + (d - 1.0) ** 2
        )  # fmt: skip

    return np_program(f, np.where(np.arange(n) == 0, 1.0, 2.0) + 0.1 * _rng(n).normal(size=n))


@program(10, 20_000)
def cutest_genhumps(n, zeta=20.0):
    """GENHUMPS: ``Σ sin(ζ x_i)² sin(ζ x_{i+1})² + 0.05 (x_i² + x_{i+1}²)``."""

    def f(x):
        s = np.sin(zeta * x) ** 2
        return np.sum(s[:-1] * s[1:] + 0.05 * (x[:-1] ** 2 + x[1:] ** 2))

    return np_program(f, np.where(np.arange(n) % 2, 506.2, -506.0) / 100.0 + _rng(n).normal(size=n))


@program(10, 20_000)
def cutest_nondquar(n):
    """NONDQUAR: ``(x₀ − x₁)² + Σ (x_i + x_{i+1} + x_{n−1})⁴ + (x_{n−2} + x_{n−1})²``: every
    term holds the last unknown (an arrow pattern)."""

    def f(x):
        return (x[0] - x[1]) ** 2 + np.sum((x[:-2] + x[1:-1] + x[-1]) ** 4) + (x[-2] + x[-1]) ** 2

    return np_program(f, np.where(np.arange(n) % 2, -1.0, 1.0) + 0.1 * _rng(n).normal(size=n))


@program(12, 20_000)
def cutest_powellsg(n):
    """POWELLSG: Powell's singular function on the rows of ``x.reshape(-1, 4)``."""

    def f(x):
        q = x.reshape(-1, 4)
        a, b, c, d = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
        return np.sum((a + 10 * b) ** 2 + 5 * (c - d) ** 2 + (b - 2 * c) ** 4 + 10 * (a - d) ** 4)

    return np_program(f, np.tile([3.0, -1.0, 0.0, 1.0], n // 4) + 0.1 * _rng(n).normal(size=n))


@program(10, 20_000)
def cutest_schmvett(n):
    """SCHMVETT: ``−Σ 1/(1 + (x_i − x_{i+1})²) + sin((π x_{i+1} + x_{i+2})/2) +
    exp(−((x_i + x_{i+2})/x_{i+1} − 2)²)``: a quotient by the middle unknown."""

    def f(x):
        a, b, c = x[:-2], x[1:-1], x[2:]
        return -np.sum(
            1.0 / (1.0 + (a - b) ** 2) + np.sin(0.5 * (np.pi * b + c))
            + np.exp(-(((a + c) / b - 2.0) ** 2))
        )  # fmt: skip

    return np_program(f, 3.0 + 0.1 * _rng(n).normal(size=n))


@program(10, 20_000)
def cutest_sinquad(n):
    """SINQUAD: ``(x₀ − 1)⁴ + Σ (sin(x_i − x_{n−1}) − x₀² + x_i²)² + (x_{n−1}² − x₀²)²``:
    each term couples the first and the last unknown (a double arrow)."""

    def f(x):
        mid = x[1:-1]
        return (
            (x[0] - 1.0) ** 4
            + np.sum((np.sin(mid - x[-1]) - x[0] ** 2 + mid**2) ** 2)
            + (x[-1] ** 2 - x[0] ** 2) ** 2
        )

    return np_program(f, 0.1 + 0.1 * _rng(n).normal(size=n))


@program(10, 20_000)
def cutest_sparsqur(n):
    """SPARSQUR: ``Σ ½ i (x_i² + x_{2i}² + x_{i²}² + x_{i³}² + ...)²`` with the indices
    taken ``mod n`` by fancy indexing (a scattered pattern)."""
    i = np.arange(1, n + 1)
    j1, j2, j3 = (2 * i - 1) % n, (i * i - 1) % n, (i**3 - 1) % n

    def f(x):
        s = x**2 + x[j1] ** 2 + x[j2] ** 2 + x[j3] ** 2
        return 0.5 * np.sum(i * s**2)

    return np_program(f, 0.5 + 0.1 * _rng(n).normal(size=n))


# ---------------------------------------------------------------- constrained problems


@program(12, 20_000)
def catenary_lagrangian(n, g=9.81):
    """A hanging chain of ``n/2`` free points between fixed ends: its potential energy and
    the link-length equality constraints ``|p_{k+1} − p_k|² − ℓ² = 0`` by ``np.hypot`` of
    ``np.diff`` of ``x.reshape(-1, 2)`` with the ends ``np.vstack``-ed on (the Lagrangian's
    Hessian with weights)."""
    k = n // 2
    ell = 1.2 / (k + 1)
    ends = np.array([[0.0, 0.0], [1.0, 0.0]])

    def f(x):
        p = np.vstack([ends[:1], x.reshape(-1, 2), ends[1:]])
        d = np.diff(p, axis=0)
        length = np.hypot(d[:, 0], d[:, 1])
        energy = g * np.sum(0.5 * (p[1:, 1] + p[:-1, 1]) * length)
        return np.concatenate([[energy], length**2 - ell**2])

    t = np.linspace(0.0, 1.0, k + 2)[1:-1]
    guess = np.stack([t, -0.3 * np.sin(np.pi * t)], 1)
    return np_program(f, (guess + 0.01 * _rng(n).normal(size=guess.shape)).ravel(), vector=True)


@program(12, 20_000)
def optimal_control_trapezoid(n, T=1.0):
    """A trapezoidal discretization of ``ẋ = −x³ + u`` (states then controls, ``n/2``
    each): the objective ``h Σ (x² + u²)`` and the defects ``np.diff(x) − h/2 (F_k +
    F_{k+1})`` as equality constraints."""
    k = n // 2
    h = T / (k - 1)

    def f(z):
        x, u = z[:k], z[k:]
        F = -(x**3) + u
        obj = h * np.sum(x**2 + u**2)
        defects = np.diff(x) - 0.5 * h * (F[:-1] + F[1:])
        return np.concatenate([[obj], defects])

    return np_program(f, 0.5 + 0.2 * _rng(n).normal(size=2 * k), vector=True)


# ---------------------------------------------------------------- assembly, array vocabulary


@program(10, 20_000)
def fe_bar_add_at(n):
    """A nonlinear bar: element strains by ``np.diff``, element energies ``e² + e⁴/2``
    assembled to the nodes by ``np.add.at`` on the connectivity, and the nodal energies
    weighted by a load factor; minus the work of a load."""
    h = 1.0 / (n - 1)
    conn = np.stack([np.arange(n - 1), np.arange(1, n)], 1)
    w = 1.0 + 0.5 * np.sin(np.arange(n))
    load = np.linspace(0.0, 1.0, n)

    def f(u):
        e = np.diff(u) / h
        W = h * (e**2 + 0.5 * e**4)
        nodal = np.zeros(n)
        np.add.at(nodal, conn[:, 0], 0.5 * W)
        np.add.at(nodal, conn[:, 1], 0.5 * W)
        return np.sum(w * nodal) - np.sum(load * u)

    def ref(u):  # jax.numpy's scatter-add is functional: ``.at[].add``
        e = jnp.diff(u) / h
        W = h * (e**2 + 0.5 * e**4)
        nodal = jnp.zeros(n).at[conn[:, 0]].add(0.5 * W).at[conn[:, 1]].add(0.5 * W)
        return jnp.sum(w * nodal) - jnp.sum(load * u)

    return Program(f, 0.1 * _rng(n).normal(size=n), ref)


def _triangles(m: int):
    idx = np.arange(m * m).reshape(m, m)
    a, b, c, d = (
        idx[:-1, :-1].ravel(),
        idx[1:, :-1].ravel(),
        idx[:-1, 1:].ravel(),
        idx[1:, 1:].ravel(),
    )
    return np.concatenate([np.stack([a, b, d], 1), np.stack([a, d, c], 1)])


@program(18, 20_000)
def fe_membrane_bincount(n):
    """A 2-D membrane: node positions ``x.reshape(-1, 2)``, each triangle's signed area by
    a cross product, its energy ``(A/A₀ − 1)²`` spread to the corners by
    ``np.bincount(tri.ravel(), weights=...)``, and a nodal weighting of those."""
    m = round(np.sqrt(n // 2))
    tri = _triangles(m)
    grid = np.stack(np.meshgrid(np.arange(m), np.arange(m), indexing="ij"), -1).reshape(-1, 2)
    P0 = grid.astype(float)
    A0 = 0.5
    w = 1.0 + 0.1 * np.arange(m * m) / (m * m)

    def f(x):
        p = x.reshape(-1, 2)
        e1 = p[tri[:, 1]] - p[tri[:, 0]]
        e2 = p[tri[:, 2]] - p[tri[:, 0]]
        area = 0.5 * (e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0])
        energy = (area / A0 - 1.0) ** 2
        nodal = np.bincount(tri.ravel(), weights=np.repeat(energy / 3.0, 3), minlength=m * m)
        return np.sum(w * nodal) + 0.01 * np.sum((p - P0) ** 2)

    def ref(x):  # jnp.bincount needs a static length under jax.jit
        p = x.reshape(-1, 2)
        e1, e2 = p[tri[:, 1]] - p[tri[:, 0]], p[tri[:, 2]] - p[tri[:, 0]]
        area = 0.5 * (e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0])
        energy = jnp.repeat((area / A0 - 1.0) ** 2 / 3.0, 3)
        nodal = jnp.zeros(m * m).at[tri.ravel()].add(energy)
        return jnp.sum(w * nodal) + 0.01 * jnp.sum((p - P0) ** 2)

    return Program(f, (1.05 * P0 + 0.03 * _rng(n).normal(size=P0.shape)).ravel(), ref)


@program(8, 20_000)  # dense pattern: large refused in one line (session 34; 180 s+ before)
def stick_breaking_cumprod(n):
    """A stick-breaking (Dirichlet-process) log-likelihood: ``v = σ(x)``, the weights
    ``v_k Π_{j<k} (1 − v_j)`` by ``np.cumprod``, counts times their logs, a normal prior."""
    counts = _rng(n, 1).integers(1, 6, n).astype(float)

    def f(x):
        v = 1.0 / (1.0 + np.exp(-x))
        rest = np.cumprod(1.0 - v)
        weights = v * np.concatenate([[1.0], rest[:-1]])
        return -np.sum(counts * np.log(weights)) + 0.5 * np.sum(x**2)

    return np_program(f, 0.3 * _rng(n).normal(size=n))


@program(8, 20_000)
def trilateration_norm_where(n):
    """Sensor localization: points ``x.reshape(-1, 2)``, their distances to three anchors by
    ``np.linalg.norm(p[:, None, :] − anchors[None], axis=2)``, a Huber-type loss of the
    misfit by ``np.where`` on the broadcast (points × anchors) array, and neighbour terms."""
    k = n // 2
    anchors = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]])
    r = _rng(n, 2)
    truth = r.uniform(0.5, 2.5, size=(k, 2))
    meas = np.linalg.norm(truth[:, None, :] - anchors[None], axis=2) + 0.2 * r.normal(size=(k, 3))

    def f(x):
        p = x.reshape(-1, 2)
        d = np.linalg.norm(p[:, None, :] - anchors[None], axis=2)
        res = d - meas
        loss = np.where(np.abs(res) < 0.1, 0.5 * res**2, 0.1 * (np.abs(res) - 0.05))
        return np.sum(loss) + 0.1 * np.sum(np.diff(p, axis=0) ** 2)

    return np_program(f, (truth + 0.05 * r.normal(size=truth.shape)).ravel())


@program(9)
def einsum_repeated_indices(n):
    """``np.einsum`` with repeated indices on ``M = x.reshape(3, 3)``: the trace of ``M M``
    (``"ij,ji->"``), of ``M`` itself (``"ii"``), the Frobenius norm squared (``"ij,ij->"``)
    and a quadratic form ``"i,ij,j"``, combined nonlinearly."""
    v = np.array([1.0, -0.5, 2.0])

    def f(x):
        M = x.reshape(3, 3)
        tr2 = np.einsum("ij,ji->", M, M)
        tr = np.einsum("ii", M)
        fro = np.einsum("ij,ij->", M, M)
        quad = np.einsum("i,ij,j", v, M, v)
        return tr2 + tr**3 + fro**2 + np.sin(quad)

    return np_program(f, _rng(n).normal(size=n))


@program(6)
def tensordot_kron_outer_triu(n):
    """A cubic form ``T(x, x, x)`` by two ``np.tensordot`` s, a quadratic form with
    ``np.kron(A, B)``, and the squared strict upper triangle of ``np.outer(x, x)`` by
    ``np.triu(·, 1)``."""
    r = _rng(n, 3)
    T = r.normal(size=(n, n, n))
    A, B = r.normal(size=(2, 2)), r.normal(size=(3, 3))
    K = np.kron(A @ A.T, B @ B.T)

    def f(x):
        cubic = np.tensordot(np.tensordot(T, x, axes=1), x, axes=1) @ x
        quad = x @ np.kron(A @ A.T, B @ B.T) @ x
        upper = np.triu(np.outer(x, x), 1)
        return cubic + quad + np.sum(upper**2)

    del K
    return np_program(f, r.normal(size=n))


@program(12)
def orthogonality_penalty_matmul(n):
    """An orthogonality penalty ``‖UᵀU − I‖²`` of ``U = x.reshape(4, 3)`` plus a data term
    ``‖Uᵀ Y − C‖²`` with ``@`` and transposes."""
    r = _rng(n, 4)
    Y = r.normal(size=(4, 2))
    C = r.normal(size=(3, 2))

    def f(x):
        U = x.reshape(4, 3)
        G = U.T @ U - np.eye(3)
        R = U.T @ Y - C
        return np.sum(G * G) + 0.5 * np.sum(R.T @ R)

    return np_program(f, r.normal(size=n))


@program(8)
def kron_outer_of_unknowns(n):
    """``np.kron`` of two matrices of unknowns, ``np.outer`` of two slices of ``x`` and
    ``np.triu`` of a product of unknowns (every operand traced)."""

    def f(x):
        X, Y = x[:4].reshape(2, 2), x[4:].reshape(2, 2)
        K = np.kron(X, Y.T)
        P = np.outer(x[:4], x[4:])
        return np.sum(K**2) + np.sum(np.triu(P @ P.T) ** 2) + np.sum(np.tanh(K @ K))

    return np_program(f, 0.5 * _rng(n, 5).normal(size=n))


@program(12, 20_000)
def hypot_arctan2_unpacked(n):
    """Pairs as users unpack them: ``r = np.hypot(*p.T)``, ``θ = np.arctan2(*p.T[::-1])``
    of ``p = x.reshape(-1, 2)``, a ring's radial and bending energy."""

    def f(x):
        p = x.reshape(-1, 2)
        r = np.hypot(*p.T)
        theta = np.arctan2(*p.T[::-1])
        return np.sum((r - 1.0) ** 2) - np.sum(np.cos(np.diff(theta))) + 0.1 * np.sum(r**3)

    t = np.linspace(0.2, 2.8, n // 2)
    ring = np.stack([np.cos(t), np.sin(t)], 1) * (1.0 + 0.05 * _rng(n).normal(size=(n // 2, 1)))
    return np_program(f, ring.ravel())


@program(12, 20_000)  # dense pattern: large refused in one line (session 34; 23.6 GB before)
def trapezoid_collocation(n, T=2.0):
    """A shooting-free optimal control objective: the state's path by ``np.cumsum`` of the
    control, its cost by ``np.trapezoid(..., dx=)`` and a terminal penalty."""
    h = T / (n - 1)

    def f(u):
        x = 1.0 + h * np.cumsum(u - np.sin(np.arange(n) * h))
        running = x**2 + 0.5 * u**2 + 0.1 * x**4
        return np.trapezoid(running, dx=h) + 10.0 * (x[-1] - 0.5) ** 2

    return np_program(f, 0.3 * _rng(n).normal(size=n))


@program(12)
def batched_matmul_swapaxes(n):
    """A stack of 2 × 2 matrices ``A = x.reshape(-1, 2, 2)``: ``‖A Aᵀ − I‖²`` by ``@`` with
    ``np.swapaxes``, their determinants by ``np.linalg.det`` and ``np.trace(axis1=,
    axis2=)``."""

    def f(x):
        A = x.reshape(-1, 2, 2)
        G = A @ np.swapaxes(A, 1, 2) - np.eye(2)
        det = np.linalg.det(A)
        tr = np.trace(A, axis1=1, axis2=2)
        return np.sum(G**2) + np.sum((det - 1.0) ** 2) + np.sum(np.exp(0.1 * tr))

    return np_program(f, np.tile(np.eye(2).ravel(), n // 4) + 0.2 * _rng(n).normal(size=n))


@program(15)
def standardize_mean_std(n):
    """Features standardized as data scientists write it: ``(X − X.mean(axis=0,
    keepdims=True)) / X.std(axis=0, keepdims=True)`` of unknowns ``X = x.reshape(5, 3)``, a
    cubic score of ``Z``."""
    W = _rng(n, 6).normal(size=(5, 3))

    def f(x):
        X = x.reshape(5, 3)
        Z = (X - X.mean(axis=0, keepdims=True)) / X.std(axis=0, keepdims=True)
        return np.sum(W * Z**3) + np.sum(np.log1p(Z**2))

    return np_program(f, _rng(n).normal(size=n))


@program(10, 20_000)
def inplace_slice_updates(n):
    """In-place updates of a copy: ``y = x.copy(); y[1:] += 0.5 * x[:-1] ** 2; y[::2] *=
    2; y[-3:] = np.sin(x[:3])``, then a quartic of ``y``."""

    def f(x):
        y = x.copy()
        y[1:] += 0.5 * x[:-1] ** 2
        y[::2] *= 2.0
        y[-3:] = np.sin(x[:3])
        return np.sum(y**4) + np.sum(x * y)

    def ref(x):
        y = x.at[1:].add(0.5 * x[:-1] ** 2)
        y = y.at[::2].multiply(2.0)
        y = y.at[-3:].set(jnp.sin(x[:3]))
        return jnp.sum(y**4) + jnp.sum(x * y)

    return Program(f, 0.5 * _rng(n).normal(size=n), ref)


@program(10)
def einsum_diagonal_cyclic(n):
    """``np.einsum("ii->i", M)`` (a diagonal), ``"ij,jk,ki->"`` (the trace of a product of
    three matrices of unknowns) and ``"ij,ik->jk"`` (a Gram matrix)."""

    def f(x):
        A = x[:9].reshape(3, 3)
        B = np.sin(A)
        d = np.einsum("ii->i", A)
        cyc = np.einsum("ij,jk,ki->", A, B, A.T)
        G = np.einsum("ij,ik->jk", A, B)
        return np.sum(d**3) + cyc + np.sum(G**2) * x[9]

    return np_program(f, 0.4 * _rng(n).normal(size=n))


# ---------------------------------------------------------------- sympy


@program(6)
def sympy_piecewise_abs_max(n):
    """A sympy objective: ``Piecewise`` (a quadratic left of 0, a cubic right of it),
    ``Abs`` of neighbour differences times a coordinate, ``Max(x_i, 0)³`` and
    ``sp.exp(sp.log(1 + x_i²))`` (sympy folds it to ``1 + x_i²``)."""

    def f(x):
        out = 0
        for i in range(n):
            out += sp.Piecewise((x[i] ** 2, x[i] < 0), (x[i] ** 3 + x[i] ** 2, True))
            out += sp.Max(x[i], 0) ** 3 + sp.exp(sp.log(1 + x[i] ** 2))
            if i + 1 < n:
                out += sp.Abs(x[i] - x[i + 1]) * x[i] ** 2
        return out

    def ref(x):
        pw = jnp.where(x < 0, x**2, x**3 + x**2)
        return jnp.sum(pw + jnp.maximum(x, 0.0) ** 3 + jnp.exp(jnp.log(1 + x**2))) + jnp.sum(
            jnp.abs(x[:-1] - x[1:]) * x[:-1] ** 2
        )

    return Program(f, np.array([0.7, -0.4, 1.3, -1.1, 0.2, 0.9])[:n], ref)


_a, _b, _c = sp.symbols("a b c")
_V = sp.exp(-(_a**2) - _b**2) * sp.cos(_c) + sp.log(1 + _a**2 * _c**2) + _a * _b * _c
_GRAD = sp.Matrix([_V]).jacobian([_a, _b, _c])
_GRAD_JAX = sp.lambdify((_a, _b, _c), list(_GRAD), "jax")


@program(3)
def sympy_matrix_jacobian_gradnorm(n):
    """The squared norm of a potential's gradient ``sp.Matrix([V]).jacobian([a, b, c])``,
    substituted with the unknowns by ``.subs`` (a stationarity residual minimized)."""

    def f(x):
        g = _GRAD.subs({_a: x[0], _b: x[1], _c: x[2]})
        return sum(gi**2 for gi in g)

    def ref(x):
        return sum(gi**2 for gi in _GRAD_JAX(x[0], x[1], x[2]))

    return Program(f, np.array([0.4, -0.3, 0.8]), ref)


@program(6)
def sympy_residual_lagrangian(n):
    """A vector of sympy residuals (a small chemical-equilibrium system: ``sp.exp``,
    ``sp.sqrt``, ``sp.log``, a ``sp.Min``), the Hessian of its Lagrangian with weights."""

    def f(x):
        out = []
        for i in range(n - 1):
            out.append(sp.exp(x[i] - x[i + 1]) + sp.sqrt(1 + x[i] ** 2) * x[i + 1])
        out.append(sp.log(2 + x[0] ** 2 + x[-1] ** 2) + sp.Min(x[0], x[-1]) ** 2)
        return out

    def ref(x):
        body = jnp.exp(x[:-1] - x[1:]) + jnp.sqrt(1 + x[:-1] ** 2) * x[1:]
        last = jnp.log(2 + x[0] ** 2 + x[-1] ** 2) + jnp.minimum(x[0], x[-1]) ** 2
        return jnp.concatenate([body, jnp.array([last])])

    return Program(f, np.array([0.3, -0.2, 0.5, 0.1, -0.6, 0.4])[:n], ref, vector=True)


@program(4)
def sympy_atan2_pow_erf(n):
    """sympy's ``atan2``, a power with an unknown exponent ``x₀^x₁``, ``asinh``, ``erf``
    and ``cosh``."""

    def f(x):
        return (sp.atan2(x[1], x[0]) ** 2 + x[0] ** x[1] + sp.asinh(x[2] * x[3])
                + sp.erf(x[1] - x[2]) * sp.cosh(x[3]))  # fmt: skip

    def ref(x):
        return (jnp.arctan2(x[1], x[0]) ** 2 + x[0] ** x[1] + jnp.arcsinh(x[2] * x[3])
                + jax.scipy.special.erf(x[1] - x[2]) * jnp.cosh(x[3]))  # fmt: skip

    return Program(f, np.array([1.3, 0.6, -0.4, 0.8]), ref)


# ---------------------------------------------------------------- the command line


#: ``real_programs14.py:NAME`` for ``dgraph codegen``: each program at its small size
#: (the builders stay in :data:`PROGRAMS`)
globals().update({name: builder(small).f for name, (builder, small, _) in PROGRAMS.items()})


def cli_hessian(
    survey: HessianSurvey, name: str, lang: str, path: str = __file__
) -> tuple[str, str]:
    """``dgraph codegen PATH:NAME --inputs x:N --mode hessian`` (``--sparse`` in Python
    and C, dense in JAX; ``--weights`` at the point for a vector program) in this process,
    the written module's Hessian at the point against the reference (``path``: the survey
    file that binds ``NAME``)."""
    from dgraph.cli import main as cli
    from dgraph.errors import DGraphError

    p, _, ws, truths = survey.points(name)
    x = next(iter(inspect.signature(p.f).parameters))
    argv = [f"{path}:{name}", f"--inputs={x}:{p.x.size}", "--mode=hessian",
            "--at=" + ",".join(map(repr, p.x.tolist()))]  # fmt: skip
    if p.vector:
        argv.append("--weights=" + ",".join(map(repr, np.ravel(ws[0]).tolist())))
    argv += ["--lang", "jax"] if lang == "jax" else ["--sparse"]
    extra = (np.asarray(ws[0], dtype=float),) if p.vector else ()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / ("hess.c" if lang == "c" else "hess.py")
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = cli(["codegen", *argv, "-o", str(out)])
        if code:
            raise DGraphError(err.getvalue().strip().removeprefix("dgraph: error: "))
        if lang == "c":
            H = _c_hessian(out, [p.x, *extra])
        else:
            spec = importlib.util.spec_from_file_location(f"hess_{name}", out)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            if lang == "python":
                H = module.jacobian(p.x, *extra)
                H = H.toarray() if hasattr(H, "toarray") else np.asarray(H)
            else:
                H = np.asarray(module.hessian(jnp.asarray(p.x), *map(jnp.asarray, extra)))
    T = truths[0]
    err = np.abs(np.reshape(H, T.shape) - T).max() / max(1.0, np.abs(T).max())
    return ("ok", "") if err < 1e-8 else ("WRONG", f"error {err:.1e}")


def _c_hessian(path: Path, args: list[np.ndarray]) -> np.ndarray:
    """A written C Hessian (``--sparse``: ``jacobian_values`` over the arguments, then the
    index file's constants, then the values; ``hessian_mirror`` the upper triangle's; a
    graph of scalars' file, without an index file: ``hessian(x, [v,] H)``), compiled and
    called through ctypes: the dense H."""
    import ctypes
    import subprocess

    import scipy.sparse

    from dgraph.codegen.c import compiler
    from dgraph.codegen.tensor.c_values import read_index_file

    library = path.with_suffix(".so")
    command = [compiler(), "-O1", "-shared", "-fPIC", "-o", str(library), str(path), "-lm"]
    subprocess.run(command, check=True, capture_output=True)
    lib = ctypes.CDLL(str(library))
    if not path.with_suffix(".bin").exists():  # a graph of scalars: hessian(x, [v,] H)
        n = args[0].size
        H = np.zeros((n, n))
        keep = [np.ascontiguousarray(a, dtype=float) for a in [*args, H]]
        lib.hessian(*(a.ctypes.data_as(ctypes.c_void_p) for a in keep))
        return keep[-1]
    arrays = read_index_file(path.with_suffix(".bin"))
    indices, indptr, shape = (arrays.pop(k) for k in ("indices", "indptr", "shape"))
    data = np.zeros(indices.size)
    keep = [np.ascontiguousarray(a) for a in [*args, *arrays.values(), data]]
    lib.jacobian_values(*(a.ctypes.data_as(ctypes.c_void_p) for a in keep))
    pointers = (a.ctypes.data_as(ctypes.c_void_p) for a in (indptr, indices, data))
    lib.hessian_mirror(ctypes.c_long(int(shape[0])), *pointers)
    return scipy.sparse.csr_array((data, indices, indptr), shape=tuple(shape)).toarray()


def main(argv: list[str], programs: dict = PROGRAMS, path: str = __file__, seed: int = 14) -> None:
    """The survey of ``programs`` (bound by name in the module at ``path`` for the CLI
    columns), its random points drawn with ``seed``."""
    from real_programs_harness import Survey, failed

    hs = HessianSurvey(np.random.default_rng(seed), programs)
    run = hs._run

    def columns(name: str, mode: str) -> tuple[str, str]:
        if mode not in ("cli", "cli_jax", "cli_c"):
            return run(name, mode)
        try:
            return cli_hessian(hs, name, {"cli": "python"}.get(mode, mode[4:]), path)
        except Exception as e:  # the survey records every failure
            return failed(e)

    survey = Survey(dict.fromkeys(programs), path, hs.rng, cell=7, modes=MODES)
    survey._run = columns
    survey.main(argv)
    print("\n".join(hs.extra))


if __name__ == "__main__":
    main(sys.argv[1:])
