"""Real programs through dgraph's public API, an eighth survey beside ``real_programs.py`` …
``real_programs5.py``, of plain NumPy (and sympy) kinds those do not hold: finite-difference
PDE residuals (viscous Burgers by ``np.roll``, heat with a variable conductivity by slicing and
``np.concatenate``, a 2-D Bratu energy by ``np.gradient``), an RK4 integrator as a Python loop,
a spring network's energy by ``np.triu_indices`` and ``np.linalg.norm(axis=)``, CUTEst
ARGLINA, BROYDN3D and CHAINWOO, a sparse least-squares residual by fixed-width index arrays,
``np.where``/``np.clip``/``np.maximum`` piecewise losses, ``np.einsum``/``np.tensordot``/
``np.outer`` contractions, ``np.cumsum``/``np.diff`` profiles, in-place updates
(``y[1:] += …``, ``out = np.empty(…)`` filled in a loop), a sort-free median of three by
``np.minimum``/``np.maximum``, and three programs written with sympy functions (a double
pendulum's Euler–Lagrange accelerations, a pendulum chain's energy, Arrhenius kinetics).

Each NumPy program's reference is its JAX twin (the same code with jax.numpy); an in-place
program's and a sympy program's is a jnp transcription of the same formulas. Columns are
real_programs3's (``SizedSurvey`` of ``benchmarks/real_programs_harness.py``), every value
against ``jax.jacfwd`` / ``jax.hessian`` of the reference, relative 1e-8.

    python benchmarks/real_programs7.py [NAME ...] [--modes=jac,jvp,...] [--limit=SECONDS]
"""

from __future__ import annotations

import sys
import types
import warnings
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
import sympy as sp
from real_programs_harness import MODES_SIZED, SizedSurvey, data, np_case, registry, small_cases

warnings.filterwarnings("ignore")
jax.config.update("jax_enable_x64", True)
rng = np.random.default_rng(23)


def _rng(n: int, salt: int = 0) -> np.random.Generator:
    return np.random.default_rng(1000 * n + salt + 7)


#: name -> (builder n -> Case, small n, medium n or None)
PROGRAMS: dict[str, tuple[Callable[[int], tuple], int, int | None]] = {}
program = registry(PROGRAMS)

#: sympy's functions as jax.numpy's: a sympy program's JAX reference runs the same code
_SP_AS_JNP = types.SimpleNamespace(
    sin=jnp.sin, cos=jnp.cos, exp=jnp.exp, log=jnp.log, sqrt=jnp.sqrt, tanh=jnp.tanh
)


def sympy_twin(f: Callable) -> Callable:
    """The same sympy code with jax.numpy's functions, its outputs stacked as one array."""
    twin = types.FunctionType(f.__code__, {**f.__globals__, "sp": _SP_AS_JNP}, f.__name__,
                              f.__defaults__, f.__closure__)  # fmt: skip

    def ref(*xs):
        out = twin(*xs)
        return jnp.stack(out) if isinstance(out, list | tuple) else out

    return ref


# ---------------------------------------------------------------- PDE residuals


@program(12, 2000)
def burgers_roll(n):
    """The viscous Burgers residual ``u u_x − ν u_xx`` on a periodic grid of ``n`` points by
    ``np.roll``, upwinded by ``np.where`` on the sign of ``u``, plus a source."""
    h, nu = 1.0 / n, 0.05
    s = np.sin(2 * np.pi * np.arange(n) / n)

    def f(u):
        up, um = np.roll(u, -1), np.roll(u, 1)
        ux = np.where(u > 0, (u - um) / h, (up - u) / h)
        return u * ux - nu * (up - 2 * u + um) / h**2 - s

    return np_case(f, (data(_rng(n), n),), False)


@program(12, 2000)
def heat_varcoef(n):
    """A steady heat residual ``−(k(u) u')' − q`` with ``k = 1 + u² + a(x)`` on faces by
    slicing, Dirichlet ends by ``np.concatenate``."""
    h = 1.0 / (n + 1)
    a = 0.5 + 0.2 * np.cos(np.linspace(0, 3, n + 1))

    def f(u):
        U = np.concatenate([[0.0], u, [1.0]])
        k = 1.0 + 0.5 * (U[1:] ** 2 + U[:-1] ** 2) + a
        flux = k * (U[1:] - U[:-1]) / h
        return -(flux[1:] - flux[:-1]) / h - np.exp(-u)

    return np_case(f, (data(_rng(n), n, scale=0.3),), False)


@program(5, 40)
def bratu_gradient(n):
    """A 2-D Bratu energy ``½|∇u|² − λ eᵘ`` on an ``n × n`` grid, gradients by
    ``np.gradient`` along both axes, trapezoid weights."""
    h, lam = 1.0 / (n - 1), 2.0

    e = np.ones(n)
    e[[0, -1]] = 0.5
    w = np.outer(e, e)

    def f(x):
        U = x.reshape(n, n)
        gy, gx = np.gradient(U, h)
        return h * h * np.sum(w * (0.5 * (gx**2 + gy**2) - lam * np.exp(U)))

    return np_case(f, (data(_rng(n), n * n, scale=0.3),), True)


# ---------------------------------------------------------------- ODEs and mechanics


@program(4, 60)
def rk4_loop(n):
    """Twenty classical RK4 steps (a Python loop) of ``n`` coupled nonlinear oscillators
    ``q'' = −sin q + k(q₊ − 2q + q₋)``, state ``[q, p]``; the final state of the initial one."""
    dt, k = 0.05, 0.3

    def f(y):
        def rhs(y):  # inside f: the JAX twin's ``np`` reaches it
            q, p = y[:n], y[n:]
            return np.concatenate([p, -np.sin(q) + k * (np.roll(q, 1) - 2 * q + np.roll(q, -1))])

        for _ in range(20):
            k1 = rhs(y)
            k2 = rhs(y + 0.5 * dt * k1)
            k3 = rhs(y + 0.5 * dt * k2)
            k4 = rhs(y + dt * k3)
            y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        return y

    return np_case(f, (data(_rng(n), 2 * n, scale=0.5),), False)


@program(6, 60)
def spring_network(n):
    """A spring network of ``n`` points in 3-D: every pair by ``np.triu_indices``, lengths by
    ``np.linalg.norm(axis=1)``, energy ``Σ k (d − L)²`` plus a soft repulsion."""
    r = _rng(n)
    i, j = np.triu_indices(n, k=1)
    L = 1.0 + 0.1 * r.random(i.size)

    def f(x):
        P = x.reshape(n, 3)
        d = np.linalg.norm(P[i] - P[j], axis=1)
        return np.sum((d - L) ** 2) + 0.01 * np.sum(1.0 / d)

    return np_case(f, (data(r, 3 * n),), True)


# ---------------------------------------------------------------- CUTEst


@program(10, 2000)
def arglina(n):
    """CUTEst ARGLINA (m = 2n): ``Σᵢ≤ₙ (xᵢ − 2/m Σx − 1)² + Σᵢ>ₙ (−2/m Σx − 1)²``."""
    m = 2 * n

    def f(x):
        s = np.sum(x)
        return np.sum((x - 2.0 / m * s - 1.0) ** 2) + (m - n) * (-2.0 / m * s - 1.0) ** 2

    return np_case(f, (data(_rng(n), n),), True)


@program(10, 3000)
def broydn3d(n):
    """CUTEst BROYDN3D's residuals ``(3 − 2xᵢ)xᵢ − xᵢ₋₁ − 2xᵢ₊₁ + 1`` (zero ends) by
    ``np.pad`` and slicing."""

    def f(x):
        X = np.pad(x, 1)
        return (3.0 - 2.0 * x) * x - X[:-2] - 2.0 * X[2:] + 1.0

    return np_case(f, (data(_rng(n), n),), False)


@program(8, 2000)
def chainwoo(n):
    """CUTEst CHAINWOO (``n`` a multiple of 4): Wood's function chained over blocks of four
    by strided slices ``x[0::2]``-style."""

    def f(x):
        a, b, c, d = x[0:-3:2], x[1:-2:2], x[2:-1:2], x[3::2]
        return 1.0 + np.sum(
            100 * (b - a**2) ** 2 + (1 - a) ** 2 + 90 * (d - c**2) ** 2 + (1 - c) ** 2
            + 10 * (b + d - 2) ** 2 + 0.1 * (b - d) ** 2
        )  # fmt: skip

    return np_case(f, (data(_rng(n), n),), True)


@program(10, 2000)
def sparse_lsq(n):
    """A sparse least-squares residual: ``m = 2n`` rows of four nonzeros each (index and
    value arrays), ``r = Σ vals·x[cols] + 0.1·x[cols]³ − b`` by ``reshape(m, 4).sum(1)``."""
    r = _rng(n)
    m = 2 * n
    cols = r.integers(0, n, size=(m, 4))
    vals = r.normal(size=(m, 4))
    b = r.normal(size=m)

    def f(x):
        xc = x[cols.ravel()].reshape(m, 4)
        return (vals * xc + 0.1 * xc**3).sum(axis=1) - b

    return np_case(f, (data(r, n),), False)


# ---------------------------------------------------------------- piecewise, tensors, profiles


@program(10, 3000)
def piecewise_losses(n):
    """A Huber loss by ``np.where``, a hinge by ``np.maximum``, a clipped ratio (PPO's) by
    ``np.clip`` and ``np.minimum``, over ``n`` residuals."""
    r = _rng(n)
    y, adv = r.normal(size=n), r.normal(size=n)

    def f(x):
        e = x - y
        huber = np.where(np.abs(e) < 0.5, 0.5 * e**2, 0.5 * (np.abs(e) - 0.25))
        hinge = np.maximum(0.0, 1.0 - y * x) ** 2
        ratio = np.exp(0.3 * x)
        ppo = np.minimum(ratio * adv, np.clip(ratio, 0.8, 1.2) * adv)
        return np.sum(huber) + np.sum(hinge) - np.mean(ppo)

    return np_case(f, (data(r, n),), True)


@program(4, 20)
def tensor_contract(n):
    """A bilinear layer and a Tucker-style contraction: ``np.einsum('ijk,j,k->i')``,
    ``np.tensordot`` of a core with a matrix, ``np.outer`` of the input with itself."""
    r = _rng(n)
    W = data(r, n, n, n, scale=0.3)
    G = data(r, n, n, scale=0.3)

    def f(x):
        X = x.reshape(n, n)
        v = X[0]
        a = np.einsum("ijk,j,k->i", W, v, np.tanh(v))
        T = np.tensordot(W, X, axes=([1, 2], [0, 1]))
        Q = np.outer(v, X[:, 1])
        return a + T + np.sum(Q * G, axis=1) + np.einsum("ij,ij->i", X, X)

    return np_case(f, (data(r, n * n),), False)


@program(10, 3000)
def cumsum_profile(n):
    """A monotone profile ``c = cumsum(exp(x))`` normalised by its last value, its
    ``np.diff`` of second order, and a log-barrier on the first differences."""
    t = np.linspace(0, 1, n)

    def f(x):
        c = np.cumsum(np.exp(x))
        p = c / c[-1]
        curv = np.diff(p, n=2)
        return np.sum((p - t) ** 2) + np.sum(curv**2) - 1e-3 * np.sum(np.log(np.diff(c)))

    return np_case(f, (data(_rng(n), n, scale=0.3),), True)


@program(10, 2000)
def inplace_updates(n):
    """In-place NumPy: ``y = x.copy(); y[1:] += 0.5·y[:-1]²``, ``y[::2] *= 2``, then
    ``out = np.empty(n)`` filled in a Python loop from neighbours (a recurrence)."""

    def f(x):
        y = x.copy()
        y[1:] += 0.5 * y[:-1] ** 2
        y[::2] *= 2.0
        out = np.empty(n)
        out[0] = np.sin(y[0])
        for i in range(1, n):
            out[i] = 0.5 * out[i - 1] + np.cos(y[i]) * y[i - 1]
        return out

    def ref(x):
        y = x.at[1:].add(0.5 * x[:-1] ** 2)
        y = y.at[::2].multiply(2.0)
        outs = [jnp.sin(y[0])]
        for i in range(1, n):
            outs.append(0.5 * outs[-1] + jnp.cos(y[i]) * y[i - 1])
        return jnp.stack(outs)

    return np_case(f, (data(_rng(n), n, scale=0.5),), False, ref)


@program(12, 3000)
def median3_filter(n):
    """A sort-free median-of-three filter (``max(min(a, b), min(max(a, b), c))`` by
    ``np.minimum``/``np.maximum``) over sliding windows, then a squared smoothness loss."""

    def f(x):
        a, b, c = x[:-2], x[1:-1], x[2:]
        med = np.maximum(np.minimum(a, b), np.minimum(np.maximum(a, b), c))
        return np.sum((med - b) ** 2) + np.sum(np.diff(med) ** 2) + 0.1 * np.sum(x**2)

    return np_case(f, (data(_rng(n), n),), True)


# ---------------------------------------------------------------- sympy


@program(1, None)
def sympy_double_pendulum(n):
    """A double pendulum's Euler–Lagrange accelerations, solved by hand from the 2×2 mass
    matrix and written with ``sp.sin``/``sp.cos`` (as from ``lambdify`` source); ``n`` unused."""
    m1, m2, l1, l2, g = 1.0, 0.7, 1.2, 0.9, 9.81

    def f(x):
        q1, q2, w1, w2 = x[0], x[1], x[2], x[3]
        d = q1 - q2
        M11, M12, M22 = (m1 + m2) * l1**2, m2 * l1 * l2 * sp.cos(d), m2 * l2**2
        r1 = -m2 * l1 * l2 * w2**2 * sp.sin(d) - (m1 + m2) * g * l1 * sp.sin(q1)
        r2 = m2 * l1 * l2 * w1**2 * sp.sin(d) - m2 * g * l2 * sp.sin(q2)
        det = M11 * M22 - M12**2
        return [w1, w2, (M22 * r1 - M12 * r2) / det, (M11 * r2 - M12 * r1) / det]

    return np_case(f, (np.array([0.4, -0.3, 0.2, 0.5]),), False, sympy_twin(f))


@program(4, 12)
def sympy_pendulum_chain(n):
    """The Lagrangian ``T − V`` of a chain of ``n`` pendula (angles then rates), positions
    summed link by link with ``sp.sin``/``sp.cos`` in Python loops; a scalar."""

    def f(x):
        px, py, vx, vy, T, V = 0, 0, 0, 0, 0, 0
        for k in range(n):
            q, w = x[k], x[n + k]
            px, py = px + sp.sin(q), py - sp.cos(q)
            vx, vy = vx + sp.cos(q) * w, vy + sp.sin(q) * w
            T = T + 0.5 * (vx**2 + vy**2)
            V = V + 9.81 * py
        return T - V

    return np_case(f, (data(_rng(n), 2 * n, scale=0.5),), True, sympy_twin(f))


@program(3, 10)
def sympy_arrhenius(n):
    """Arrhenius kinetics of a chain ``A₀ → A₁ → … → Aₙ``: rates ``k exp(−E/T)`` with
    ``sp.exp``, log-concentrations by ``sp.log``, ``sp.sqrt`` of the temperature; the
    production rates of the ``n`` concentrations (unknowns: concentrations, then T)."""
    E = [1.0 + 0.3 * k for k in range(n)]

    def f(x):
        c, T = [x[k] ** 2 + 0.1 for k in range(n)], x[n] ** 2 + 1.0
        rate = [sp.exp(-E[k] / T) * sp.sqrt(T) * c[k] for k in range(n)]
        out = []
        for k in range(n):
            gain = rate[k - 1] if k else 0
            out.append(gain - rate[k] + 0.01 * sp.log(c[k]))
        return out

    return np_case(f, (data(_rng(n), n + 1),), False, sympy_twin(f))


# ---------------------------------------------------------------- the survey


def main(argv: list[str]) -> None:
    SizedSurvey(PROGRAMS, CASES, __file__, rng, cell=7, modes=MODES_SIZED).main(argv)


#: each program at its small size, under its name (``dgraph codegen real_programs7.py:NAME``)
CASES = small_cases(PROGRAMS, globals())

if __name__ == "__main__":
    main(sys.argv[1:])
