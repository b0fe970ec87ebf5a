"""Real programs through dgraph's public API, a sixteenth survey beside ``real_programs.py`` …
``real_programs14.py``: JAX loops as users write them, with integer index arithmetic in
their bodies. An RK4 integrator in ``lax.fori_loop`` with a misfit on the trajectory; a
leapfrog chain whose positions are kept in a ring buffer ``.at[i % k].set``; a ``lax.scan``
that ``jnp.roll``s by ``i % n`` and reads a ``lax.dynamic_slice`` at ``(3 i) // 2``; a
``lax.while_loop`` Newton iteration to a tolerance whose counter picks a damping from a
table; Kepler's equation by a relaxed fixed point in a ``while_loop`` (the relaxation at
``(3 i) // 2 % 5``); cyclic coordinate descent in a ``while_loop`` (the counter's ``i % n``
the updated coordinate); a sliding window written back by ``lax.dynamic_update_slice`` at
``(2 i) % (n − 2)`` in a ``fori_loop``; ``lax.switch`` on ``i % 3`` (operator splitting) and
``lax.cond`` on parity inside a scan; a Markov chain's ``P¹³`` by repeated squaring
(``k & 1``, ``k >> 1``) in nested ``fori_loop``s; an unrolled Adam optimiser in a scan over a dict
carry with bias correction ``1 − β^(i+1)``; ``jax.checkpoint`` around a scan body;
``unroll=3`` on a scan of seven steps; a float32 Gauss–Seidel sweep; a trip count from a
static argument of ``jax.jit``; ``jnp.searchsorted`` / ``jnp.digitize`` inside a scan; an
int32 permutation indexed by the loop counter.

Columns are real_programs3's (``SizedSurvey`` of ``benchmarks/real_programs_harness.py``),
every value against ``jax.jacfwd`` / ``jax.hessian`` of the reference (a ``while_loop``'s
reference: the same steps by ``fori_loop``, its trip count counted at the point, since
JAX's reverse mode refuses a ``while_loop``), relative 1e-8 (1e-5 for a program whose name
ends in ``_f32``).

    python benchmarks/real_programs15.py [NAME ...] [--modes=jac,jvp,...] [--limit=SECONDS]
"""

from __future__ import annotations

import functools
import sys
import warnings
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from real_programs_harness import MODES_SIZED, SizedSurvey, data, jax_case, registry, small_cases

warnings.filterwarnings("ignore")
jax.config.update("jax_enable_x64", True)
rng = np.random.default_rng(45)


def _rng(n: int, salt: int = 0) -> np.random.Generator:
    return np.random.default_rng(1000 * n + salt + 37)


#: name -> (builder n -> Case, small n, medium n or None)
PROGRAMS: dict[str, tuple[Callable[[int], tuple], int, int | None]] = {}
program = registry(PROGRAMS)


# ---------------------------------------------------------------- integrators


@program(3, 20)
def rk4_fori_trajectory_misfit(n):
    """``n`` Duffing oscillators ``x'' = −δx' − x − βx³`` integrated by 12 hand-written RK4
    steps in ``lax.fori_loop``; the misfit to observations at every step (indexed by the
    loop counter, ``obs[i]``) accumulates in the carry; unknowns: the initial positions and
    velocities (a scalar)."""
    r = _rng(n)
    steps, dt, delta, beta = 12, 0.1, 0.2, 0.5
    obs = jnp.asarray(r.normal(size=(steps, n)) * 0.5)

    def rhs(s):
        x, v = s[:n], s[n:]
        return jnp.concatenate([v, -delta * v - x - beta * x**3])

    def f(z0):
        def body(i, carry):
            s, j = carry
            k1 = rhs(s)
            k2 = rhs(s + 0.5 * dt * k1)
            k3 = rhs(s + 0.5 * dt * k2)
            k4 = rhs(s + dt * k3)
            s = s + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            return s, j + jnp.sum((s[:n] - obs[i]) ** 2)

        _, j = lax.fori_loop(0, steps, body, (z0, 0.0))
        return j

    return jax_case(f, (data(r, 2 * n, scale=0.5),), True)


@program(4, 16)
def leapfrog_ring_buffer(n):
    """A chain of ``n`` masses with quartic springs by 10 leapfrog steps in
    ``lax.fori_loop``; the first mass's position is kept in a ring buffer of the last 4
    steps, ``buf.at[i % 4].set(q[0])``, and the objective weights the buffer's slots and
    adds the final energy (a scalar of the initial positions)."""
    r = _rng(n)
    dt, k = 0.05, 4
    wslot = jnp.asarray([1.0, 2.0, 3.0, 4.0])

    def force(q):
        d = jnp.diff(jnp.concatenate([jnp.zeros(1), q]))
        t = d + 0.3 * d**3
        return -t + jnp.concatenate([t[1:], jnp.zeros(1)])

    def f(q0):
        def body(i, c):
            q, p, buf = c
            p = p + 0.5 * dt * force(q)
            q = q + dt * p
            p = p + 0.5 * dt * force(q)
            return q, p, buf.at[i % k].set(q[0])

        q, p, buf = lax.fori_loop(0, 10, body, (q0, jnp.zeros(n), jnp.zeros(k)))
        return wslot @ buf**2 + 0.5 * p @ p + jnp.sum(q**4)

    return jax_case(f, (data(r, n, scale=0.5),), True)


# ---------------------------------------------------------------- scans with index arithmetic


@program(8, 40)
def scan_roll_dynamic_slice(n):
    """A shift-register filter: a ``lax.scan`` over 6 steps rolls the state by ``i % n``
    (``jnp.roll`` with a traced shift), reads a window of 3 by ``lax.dynamic_slice`` at
    ``(3 i) // 2 % (n − 2)`` and mixes it back by ``tanh``; the outputs are the windows'
    sums (a vector)."""
    r = _rng(n)
    w = jnp.asarray(r.normal(size=3))

    def f(x):
        def step(s, i):
            s = jnp.roll(s, i % n)
            win = lax.dynamic_slice(s, ((3 * i) // 2 % (n - 2),), (3,))
            s = jnp.tanh(s + 0.3 * (w @ win))
            return s, jnp.sum(win**2)

        s, outs = lax.scan(step, x, jnp.arange(6))
        return jnp.concatenate([outs, s[:2]])

    return jax_case(f, (data(r, n),), False)


@program(6, 30)
def switch_mod3_splitting(n):
    """Strang-like operator splitting of a reaction–diffusion step: a ``lax.scan`` over 9
    steps whose body is ``lax.switch(i % 3, [diffuse, react, damp], u)``, and a
    ``lax.cond`` on ``i % 2`` adding a source on even steps (a scalar energy)."""
    nu, dt = 0.2, 0.1

    def diffuse(u):
        return u + nu * (jnp.roll(u, 1) - 2 * u + jnp.roll(u, -1))

    def react(u):
        return u + dt * u * (1 - u**2)

    def damp(u):
        return u / (1 + dt * u**2)

    def f(u0):
        def step(u, i):
            u = lax.switch(i % 3, [diffuse, react, damp], u)
            u = lax.cond(i % 2 == 0, lambda v: v + 0.05 * jnp.sin(v), lambda v: v, u)
            return u, None

        u, _ = lax.scan(step, u0, jnp.arange(9))
        return jnp.sum(u**2) + jnp.sum(jnp.diff(u) ** 2)

    return jax_case(f, (data(_rng(n), n, scale=0.7),), True)


@program(5, 40)
def searchsorted_lookup_scan(n):
    """A piecewise-linear tariff looked up per step: a ``lax.scan`` over 8 loads
    (depending on the unknowns) finds each load's bracket by ``jnp.searchsorted`` of fixed
    knots and its band by ``jnp.digitize``, interpolates the tariff between the knots'
    values (the unknowns' last 5) and accumulates cost (a scalar)."""
    r = _rng(n)
    knots = jnp.asarray(np.linspace(-2.0, 2.0, 5))
    bandw = jnp.asarray([0.5, 1.0, 1.5, 2.0, 2.5, 3.0])
    A = jnp.asarray(r.normal(size=(8, n)) * 0.4)

    def f(z):
        x, vals = z[:n], z[n:]

        def step(acc, a):
            load = jnp.clip(a @ x, -1.99, 1.99)
            j = jnp.clip(jnp.searchsorted(knots, load), 1, 4)
            t = (load - knots[j - 1]) / (knots[j] - knots[j - 1])
            price = (1 - t) * vals[j - 1] + t * vals[j]
            band = bandw[jnp.digitize(load, knots)]
            return acc + band * price * load + 0.1 * price**2, None

        acc, _ = lax.scan(step, 0.0, A)
        return acc + 0.01 * x @ x

    z = np.concatenate([data(r, n), r.normal(size=5)])
    return jax_case(f, (z,), True)


@program(4, 30)
def adam_dict_carry_scan(n):
    """Unrolled Adam (a meta-learning inner loop): a ``lax.scan`` over 6 steps with a dict
    carry ``{"w", "m", "v"}`` and a tuple of scalars, the gradient of a fixed quadratic
    by hand, bias correction ``1 − β₁^(i+1)`` with the integer step counter; unknowns: the
    initial weights; the loss after the inner loop (a scalar)."""
    r = _rng(n)
    M = r.normal(size=(n, n))
    Q = jnp.asarray(M @ M.T / n + np.eye(n))
    b = jnp.asarray(r.normal(size=n))
    lr, b1, b2, eps = 0.1, 0.9, 0.999, 1e-8

    def loss(w):
        return 0.5 * w @ Q @ w - b @ w + 0.1 * jnp.sum(w**4)

    def f(w0):
        def step(carry, i):
            st, (tot, _) = carry
            g = Q @ st["w"] - b + 0.4 * st["w"] ** 3
            m = b1 * st["m"] + (1 - b1) * g
            v = b2 * st["v"] + (1 - b2) * g**2
            mh = m / (1 - b1 ** (i + 1))
            vh = v / (1 - b2 ** (i + 1))
            w = st["w"] - lr * mh / (jnp.sqrt(vh + 1e-3) + eps)
            lw = loss(w)
            return ({"w": w, "m": m, "v": v}, (tot + lw, lw)), None

        init = ({"w": w0, "m": jnp.zeros(n), "v": jnp.zeros(n)}, (0.0, 0.0))
        (_, (tot, last)), _ = lax.scan(step, init, jnp.arange(6))
        return tot / 6 + last

    return jax_case(f, (data(r, n, scale=0.5),), True)


@program(6, 40)
def checkpoint_scan_heat(n):
    """A nonlinear heat equation ``u_t = (κ(u) u_x)_x`` with ``κ = 1 + u²``, 8 explicit
    steps in ``lax.scan`` whose body is wrapped in ``jax.checkpoint`` (rematerialised in
    reverse mode); the final profile (a vector)."""
    dt = 0.05

    @jax.checkpoint
    def step(u, _):
        up = jnp.concatenate([jnp.zeros(1), u, jnp.zeros(1)])
        kf = 1 + 0.5 * (up[1:] ** 2 + up[:-1] ** 2) / 2
        flux = kf * jnp.diff(up)
        return u + dt * jnp.diff(flux), None

    def f(u0):
        u, _ = lax.scan(step, u0, None, length=8)
        return u

    return jax_case(f, (data(_rng(n), n, scale=0.5),), False)


@program(4, 40)
def scan_unroll3_recurrence(n):
    """A gated linear recurrence ``h ← σ(a)·h + (1 − σ(a))·tanh(W h + x_t)`` over 7 inputs
    by ``lax.scan(..., unroll=3)`` (7 is not a multiple of 3: a remainder step); unknowns:
    the gate ``a`` and the inputs; the last state and the states' mean (a vector)."""
    r = _rng(n)
    W = jnp.asarray(r.normal(size=(n, n)) * 0.5 / np.sqrt(n))
    T = 7

    def f(z):
        a, xs = z[:n], z[n:].reshape(T, n)
        g = jax.nn.sigmoid(a)

        def cell(h, x):
            h = g * h + (1 - g) * jnp.tanh(W @ h + x)
            return h, h

        h, hs = lax.scan(cell, jnp.zeros(n), xs, unroll=3)
        return jnp.concatenate([h, jnp.mean(hs, axis=0)])

    return jax_case(f, (data(r, n + T * n),), False)


# ---------------------------------------------------------------- while loops to a tolerance


def _trips(cond, body, init) -> int:
    """How many times ``lax.while_loop(cond, body, init)`` runs its body (at concrete
    values): the trip count a ``fori_loop`` reference repeats."""
    state, count = init, 0
    while bool(cond(state)):
        state, count = body(state), count + 1
    return count


@program(5, 40)
def newton_while_damped_table(n):
    """Solve ``z + 0.3 sin z + 0.1 z³ = x`` elementwise by damped Newton steps in
    ``lax.while_loop`` until the residual's max is under 1e-12 (at most 40 steps), the
    damping read from a table by the integer counter, ``damp[i % 4]``; the objective is a
    weighted sum of ``z²`` (a scalar)."""
    damp = jnp.asarray([0.5, 0.8, 1.0, 1.0])
    wts = jnp.asarray(np.linspace(1.0, 2.0, n))

    def resid(z, x):
        return z + 0.3 * jnp.sin(z) + 0.1 * z**3 - x

    def step(z, x, i):
        d = 1 + 0.3 * jnp.cos(z) + 0.3 * z**2
        return z - damp[i % 4] * resid(z, x) / d

    def loop(x):
        def cond(c):
            i, z = c
            return (i < 40) & (jnp.max(jnp.abs(resid(z, x))) > 1e-12)

        def body(c):
            i, z = c
            return i + 1, step(z, x, i)

        return cond, body

    def f(x):
        cond, body = loop(x)
        _, z = lax.while_loop(cond, body, (0, x))
        return wts @ z**2

    x0 = data(_rng(n), n)
    trips = _trips(*loop(jnp.asarray(x0)), (0, jnp.asarray(x0)))

    def ref(x):
        z = lax.fori_loop(0, trips, lambda i, z: step(z, x, i), x)
        return wts @ z**2

    return (f, (x0,), True, ref)


@program(4, 12)
def coordinate_descent_while(n):
    """Cyclic coordinate descent on a strictly convex quadratic with a data-dependent right
    side ``b = sin(x)``: a ``lax.while_loop`` whose integer counter ``i`` picks the
    coordinate ``j = i % n`` (``z.at[j].set``) until a full sweep's change is under 1e-13 or
    200 updates; the minimiser (a vector of ``x``)."""
    r = _rng(n)
    M = r.normal(size=(n, n))
    A = jnp.asarray(M @ M.T + n * np.eye(n))

    def update(z, b, i):
        j = i % n
        zj = (b[j] - A[j] @ z + A[j, j] * z[j]) / A[j, j]
        return z.at[j].set(zj), jnp.abs(zj - z[j])

    def loop(x):
        b = jnp.sin(x) + x

        def cond(c):
            i, _, ch = c
            return (i < 200) & ((i % n != 0) | (ch > 1e-13) | (i == 0))

        def body(c):
            i, z, ch = c
            z, d = update(z, b, i)
            ch = jnp.where(i % n == 0, d, jnp.maximum(ch, d))
            return i + 1, z, ch

        return cond, body

    def f(x):
        cond, body = loop(x)
        _, z, _ = lax.while_loop(cond, body, (0, jnp.zeros(n), 0.0))
        return z

    x0 = data(r, n)
    trips = _trips(*loop(jnp.asarray(x0)), (0, jnp.zeros(n), 0.0))

    def ref(x):
        b = jnp.sin(x) + x
        return lax.fori_loop(0, trips, lambda i, z: update(z, b, i)[0], jnp.zeros(n))

    return (f, (x0,), False, ref)


@program(5, 40)
def kepler_fixed_point_while(n):
    """Kepler's equation ``E = M + e sin E`` for ``n`` orbits by a relaxed fixed-point
    iteration in ``lax.while_loop`` to a change under 1e-13 (at most 60 trips), the
    relaxation read from a table at ``(3 i) // 2 % 5`` (integer ``//`` of the counter); the
    true anomalies' sum of squares (a scalar of the mean anomalies ``M``)."""
    ecc = jnp.asarray(np.linspace(0.1, 0.5, n))
    relax = jnp.asarray([1.0, 0.9, 1.0, 0.8, 1.0])

    def step(E, M, i):
        return E + relax[(3 * i) // 2 % 5] * (M + ecc * jnp.sin(E) - E)

    def loop(M):
        def cond(c):
            i, _, d = c
            return (i < 60) & (d > 1e-13)

        def body(c):
            i, E, _ = c
            new = step(E, M, i)
            return i + 1, new, jnp.max(jnp.abs(new - E))

        return cond, body

    def anomaly(E):
        return 2 * jnp.arctan(jnp.sqrt((1 + ecc) / (1 - ecc)) * jnp.tan(E / 2))

    def f(M):
        cond, body = loop(M)
        _, E, _ = lax.while_loop(cond, body, (0, M, 1.0))
        return jnp.sum(anomaly(E) ** 2)

    M0 = np.linspace(0.3, 2.5, n)
    trips = _trips(*loop(jnp.asarray(M0)), (0, jnp.asarray(M0), 1.0))

    def ref(M):
        return jnp.sum(anomaly(lax.fori_loop(0, trips, lambda i, E: step(E, M, i), M)) ** 2)

    return (f, (M0,), True, ref)


@program(8, 40)
def sliding_update_slice_fori(n):
    """A sliding-window smoother that writes back in place: ``lax.fori_loop`` over 6 steps
    reads a window of 3 at ``(2 i) % (n − 2)`` by ``lax.dynamic_slice``, smooths it with a
    nonlinearity and writes it back by ``lax.dynamic_update_slice`` at the same place; each
    step also adds a rate chosen by ``jnp.digitize`` of the window's mean (a vector)."""
    rates = jnp.asarray([0.1, 0.2, 0.3, 0.4])
    edges = jnp.asarray([-0.5, 0.0, 0.5])

    def f(x):
        def body(i, u):
            at = (2 * i) % (n - 2)
            w = lax.dynamic_slice(u, (at,), (3,))
            rate = rates[jnp.digitize(jnp.mean(w), edges)]
            smooth = jnp.tanh(jnp.array([w[0] + w[1], w[0] + w[1] + w[2], w[1] + w[2]]) / 2)
            return lax.dynamic_update_slice(u, w + rate * (smooth - w), (at,))

        return lax.fori_loop(0, 6, body, x)

    return jax_case(f, (data(_rng(n), n),), False)


# ---------------------------------------------------------------- nested loops, bits, dtypes


@program(3, 6)
def matrix_power_squaring(n):
    """A Markov chain's 13-step distribution: the transition matrix ``softmax`` of the
    unknowns' rows, ``P¹³`` by repeated squaring in ``lax.fori_loop`` over the exponent's
    bits (``k & 1`` picks a multiply, ``k >> 1`` shifts), each product itself an inner
    ``lax.fori_loop`` over rows; the log-likelihood of a visit count (a scalar)."""
    counts = jnp.asarray(np.arange(1, n + 1, dtype=float))

    def matmul(A, B):
        def row(i, C):
            return C.at[i].set(A[i] @ B)

        return lax.fori_loop(0, n, row, jnp.zeros((n, n)))

    def f(z):
        P = jax.nn.softmax(z.reshape(n, n), axis=1)

        def bit(_, c):
            R, B, k = c
            R = jnp.where(k & 1, matmul(R, B), R)
            return R, matmul(B, B), k >> 1

        R, _, _ = lax.fori_loop(0, 4, bit, (jnp.eye(n), P, 13))
        p = jnp.full(n, 1.0 / n) @ R
        return counts @ jnp.log(p)

    return jax_case(f, (data(_rng(n), n * n, scale=0.5),), True)


@program(6, 30)
def gauss_seidel_sweeps_f32(n):
    """Gauss–Seidel sweeps in float32 (the carry and the matrix cast to ``float32``) for a
    nonlinear 1-D Poisson problem ``−u'' + 0.1 u³ = f``: ``lax.fori_loop`` over 3 sweeps of
    an inner ``fori_loop`` over the points, ``u.at[j].set`` with a frozen cubic; unknowns:
    the source ``f`` (a scalar energy)."""
    h2 = np.float32(1.0 / (n + 1) ** 2)

    def f(src):
        s = src.astype(jnp.float32)

        def point(j, u):
            left = jnp.where(j > 0, u[jnp.maximum(j - 1, 0)], 0.0)
            right = jnp.where(j < n - 1, u[jnp.minimum(j + 1, n - 1)], 0.0)
            uj = (left + right + h2 * s[j]) / (2 + h2 * 0.1 * u[j] ** 2)
            return u.at[j].set(uj)

        u = lax.fori_loop(
            0, 3, lambda _, u: lax.fori_loop(0, n, point, u), jnp.zeros(n, jnp.float32)
        )
        return jnp.sum(u**2 + 0.1 * s * u)

    return jax_case(f, (data(_rng(n), n),), True)


@functools.partial(jax.jit, static_argnames=("steps",))
def _logistic_growth(r, steps):
    """``steps`` Euler steps of logistic growth ``y' = r y (1 − y)`` per site in
    ``lax.fori_loop`` (a trip count from a static argument), the step ``1 / steps``."""
    dt = 1.0 / steps

    def body(i, y):
        t = i * dt
        return y + dt * (r * y * (1 - y) + 0.1 * jnp.sin(t))

    return lax.fori_loop(0, steps, body, jnp.full_like(r, 0.1))


@program(4, 40)
def static_trip_count_jit(n):
    """A calibration loss of logistic growth rates: ``jax.jit(static_argnames=("steps",))``
    of a ``lax.fori_loop`` whose trip count is the static ``steps`` (``i * dt`` the time,
    an integer counter times a float), called at 5 and 10 steps (a scalar)."""
    target = jnp.asarray(np.linspace(0.2, 0.6, n))

    def f(r):
        coarse = _logistic_growth(r, steps=5)
        fine = _logistic_growth(r, steps=10)
        return jnp.sum((fine - target) ** 2) + jnp.sum((fine - coarse) ** 2)

    return jax_case(f, (1.0 + 0.3 * _rng(n).uniform(size=n),), True)


@program(6, 40)
def int32_permutation_gather(n):
    """A shuffled pairwise interaction: ``lax.fori_loop`` over ``2n`` steps reads the
    partner of ``perm[i % n]`` from an int32 permutation (``jnp.int32`` indices next to the
    counter's int64) and the coordinate ``(i * 3) // 2 % n``, accumulating a Morse-like
    energy (a scalar)."""
    perm = jnp.asarray(_rng(n).permutation(n).astype(np.int32))
    shift = jnp.int32(1)

    def f(x):
        def body(i, e):
            a = perm[i % n]
            bidx = (perm[(i + shift) % n] + (i * 3) // 2) % n
            d = x[a] - x[bidx] + 0.5
            return e + (1 - jnp.exp(-d)) ** 2

        return lax.fori_loop(0, 2 * n, body, 0.0)

    return jax_case(f, (data(_rng(n), n, scale=0.3),), True)


# ---------------------------------------------------------------- the survey

#: each program at its small size, under its name (``dgraph codegen real_programs15.py:NAME``)
CASES = small_cases(PROGRAMS, globals())

if __name__ == "__main__":
    survey = SizedSurvey(PROGRAMS, CASES, __file__, rng, cell=7, modes=MODES_SIZED)
    survey.main(sys.argv[1:])
