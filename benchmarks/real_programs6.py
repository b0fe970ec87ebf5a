"""Real programs through dgraph's public API, a seventh survey beside
``benchmarks/real_programs.py``, ``real_programs2.py``, ``real_programs_hessian.py``,
``real_programs3.py``, ``real_programs4.py`` and ``real_programs5.py``, of kinds those do
not hold: an MLP whose parameters are a dict unravelled by ``jax.flatten_util.ravel_pytree``
(with ``jax.tree_util``), a linear recurrence by ``lax.associative_scan``, a Gray–Scott step
with ``jnp.pad(mode="wrap")``/``"reflect"``, a sliding window by ``lax.dynamic_slice`` and
``lax.dynamic_update_slice`` in a ``lax.scan``, a trajectory buffer written by
``.at[i].set`` in a ``lax.fori_loop``, a Tobit likelihood by ``jax.scipy.stats.norm``'s
``logpdf``/``logcdf``, a robust z-score by ``jnp.percentile`` and ``jnp.std``, sinc
interpolation (``jnp.sinc``) with an ``jnp.arctan2`` phase, a GRU whose gates come from
``jnp.split``, advantages by a ``reverse=True`` scan and ``jnp.flip``/``jnp.cumsum``, a VAE's
ELBO with ``jax.random.normal`` noise, HMC leapfrog steps by ``jax.grad`` inside the
program, ``jnp.vectorize`` with ``jnp.sum(where=)``, RMSNorm and rotary embeddings in
attention (``lax.rsqrt``, ``jnp.swapaxes``), a multiclass margin by ``jnp.argmax`` and
``jnp.select``, a power spectrum by ``jnp.fft.rfft``, NumPy polyline geometry
(``np.diff(axis=0)``, ``np.cumsum(axis=0)``, ``np.linalg.norm(axis=1)``), a NumPy total
variation with ``np.pad(mode="reflect")``, NumPy stick-slip friction whose condition is
an ``np.where`` among conditions, and log returns of a signed series by ``jnp.nan_to_num`` /
``np.nan_to_num`` and ``np.isnan``.

Each program is a builder ``n -> Case`` at a small size (10–100 unknowns) and a medium one
(10³–10⁴); the columns are real_programs3's (``SizedSurvey`` of
``benchmarks/real_programs_harness.py``), every value against ``jax.jacfwd`` /
``jax.hessian`` of the reference, relative 1e-8.

    python benchmarks/real_programs6.py [NAME ...] [--modes=jac,jvp,...] [--limit=SECONDS]
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable

import jax
import jax.numpy as jnp
import jax.scipy.stats as jst
import numpy as np
from jax import lax
from jax.flatten_util import ravel_pytree
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
rng = np.random.default_rng(23)


def _rng(n: int, salt: int = 0) -> np.random.Generator:
    return np.random.default_rng(1000 * n + salt + 6)


#: name -> (builder n -> Case, small n, medium n or None)
PROGRAMS: dict[str, tuple[Callable[[int], tuple], int, int | None]] = {}
program = registry(PROGRAMS)


# ---------------------------------------------------------------- machine learning


@program(4, 40)
def mlp_pytree_params(n):
    """A two-layer MLP whose parameters are a dict (``W1``, ``b1``, ``W2``, ``b2``, hidden
    width ``n``) flattened by ``jax.flatten_util.ravel_pytree`` and unravelled in the loss;
    an L2 term by ``jax.tree_util.tree_map`` and ``tree_leaves``."""
    r = _rng(n)
    X, y = data(r, 16, 3), data(r, 16)
    params = {"W1": data(r, 3, n), "b1": np.zeros(n), "W2": data(r, n), "b2": np.zeros(())}
    flat, unravel = ravel_pytree(params)

    def loss(theta):
        p = unravel(theta)
        h = jnp.tanh(X @ p["W1"] + p["b1"])
        pred = h @ p["W2"] + p["b2"]
        l2 = sum(jax.tree_util.tree_leaves(jax.tree_util.tree_map(lambda a: jnp.sum(a**2), p)))
        return jnp.mean((pred - y) ** 2) + 1e-3 * l2

    return jax_case(loss, (np.asarray(flat) + data(r, flat.size, scale=0.3),), True)


@program(8, 1000)
def associative_scan_recurrence(n):
    """A diagonal linear recurrence ``h_t = a_t h_{t-1} + b_t`` (an S4/Mamba-style layer) by
    ``lax.associative_scan`` over ``n`` steps, gates ``a = sigmoid(·)``; the states."""

    def combine(left, right):
        a1, b1 = left
        a2, b2 = right
        return a1 * a2, a2 * b1 + b2

    def f(x):
        a = jax.nn.sigmoid(x[:n])
        b = jnp.tanh(x[n:])
        _, h = lax.associative_scan(combine, (a, b))
        return h

    return jax_case(f, (data(_rng(n), 2 * n),), False)


@program(6, 40)
def gru_split_scan(n):
    """A GRU over 6 steps whose three gates come from ``jnp.split`` of one matrix product
    (as Flax-style code writes them), hidden size ``n``; the last state's squared norm."""
    r = _rng(n)
    W = data(r, 3 * n, 2, scale=0.5)
    U = data(r, 3 * n, n, scale=0.3)
    xs = data(r, 6, 2)

    def f(h0):
        def cell(h, x):
            zx, rx, nx = jnp.split(W @ x, 3)
            zh, rh, nh = jnp.split(U @ h, 3)
            z, rg = jax.nn.sigmoid(zx + zh), jax.nn.sigmoid(rx + rh)
            c = jnp.tanh(nx + rg * nh)
            h = (1 - z) * h + z * c
            return h, h

        h, _ = lax.scan(cell, h0, xs)
        return jnp.sum(h**2)

    return jax_case(f, (data(r, n),), True)


@program(6, 200)
def vae_elbo_reparam(n):
    """A linear-Gaussian VAE's negative ELBO: an encoder of ``n`` inputs, noise by
    ``jax.random.normal`` of a fixed key inside the loss (the reparameterisation trick),
    ``jax.nn.softplus`` scales, the KL term in closed form."""
    r = _rng(n)
    k = 3
    E = data(r, 2 * k, n, scale=0.3)
    D = data(r, n, k, scale=0.3)

    def loss(x):
        h = E @ x
        mu, s = h[:k], jax.nn.softplus(h[k:]) + 1e-3
        eps = jax.random.normal(jax.random.PRNGKey(0), (4, k))
        z = mu + s * eps
        rec = jnp.sum((z @ D.T - x) ** 2) / 4
        kl = 0.5 * jnp.sum(mu**2 + s**2 - 1 - 2 * jnp.log(s))
        return rec + kl

    return jax_case(loss, (data(r, n),), True)


@program(4, 32)
def rotary_rmsnorm_attention(n):
    """A causal attention head over ``n`` tokens of width 4: RMSNorm by ``lax.rsqrt``,
    rotary position embeddings (halves by ``jnp.split``, ``jnp.concatenate``), scores by
    ``jnp.swapaxes``, a ``jnp.tril`` mask; the output's squared norm."""
    r = _rng(n)
    d = 4
    Wq, Wk, Wv = (data(r, d, d, scale=0.5) for _ in range(3))
    theta = np.arange(n)[:, None] * 10000.0 ** (-np.arange(d // 2) / (d // 2))
    cos, sin = np.cos(theta), np.sin(theta)
    mask = np.tril(np.ones((n, n), dtype=bool))

    def rope(q):
        q1, q2 = jnp.split(q, 2, axis=-1)
        return jnp.concatenate([q1 * cos - q2 * sin, q1 * sin + q2 * cos], axis=-1)

    def f(x):
        X = x.reshape(n, d)
        X = X * lax.rsqrt(jnp.mean(X**2, axis=-1, keepdims=True) + 1e-6)
        q, k, v = rope(X @ Wq), rope(X @ Wk), X @ Wv
        s = q @ jnp.swapaxes(k, -1, -2) / jnp.sqrt(d)
        s = jnp.where(mask, s, -1e9)
        return jnp.sum((jax.nn.softmax(s, axis=-1) @ v) ** 2)

    return jax_case(f, (data(r, n * d),), True)


@program(8, 400)
def argmax_margin_select(n):
    """A multiclass smoothed hinge over ``n`` samples of 4 classes: the best wrong class by
    ``jnp.argmax`` (true class masked), ``jnp.take_along_axis``, a three-piece
    ``jnp.select``; mean loss."""
    r = _rng(n)
    labels = r.integers(0, 4, size=n)
    onehot = np.eye(4)[labels]

    def f(x):
        S = x.reshape(n, 4)
        true = jnp.sum(S * onehot, axis=1)
        j = jnp.argmax(jnp.where(onehot > 0, -jnp.inf, S), axis=1)
        other = jnp.take_along_axis(S, j[:, None], axis=1)[:, 0]
        m = 1.0 - true + other
        piece = jnp.select([m <= 0, m < 1], [0.0 * m, 0.5 * m**2], m - 0.5)
        return jnp.mean(piece)

    return jax_case(f, (data(r, 4 * n),), True)


# ---------------------------------------------------------------- statistics


@program(10, 2000)
def tobit_norm_logcdf(n):
    """A Tobit (censored) regression's negative log-likelihood: ``jax.scipy.stats.norm``'s
    ``logpdf`` of the uncensored residuals and ``logcdf`` of the censored ones, ``n``
    latent means."""
    r = _rng(n)
    y = np.maximum(data(r, n), 0.0)
    cens = y <= 0

    def nll(mu):
        sig = 0.8
        ll = jnp.where(cens, jst.norm.logcdf(-mu / sig), jst.norm.logpdf(y, mu, sig))
        return -jnp.sum(ll) + 0.01 * jnp.sum(mu**2)

    return jax_case(nll, (data(r, n),), True)


@program(12, 1000)
def percentile_robust_z(n):
    """Robust standardisation: the median and interquartile range by ``jnp.percentile``,
    the spread by ``jnp.std``; the scaled samples."""

    def f(x):
        q25, q50, q75 = jnp.percentile(x, jnp.array([25.0, 50.0, 75.0]))
        z = (x - q50) / (q75 - q25)
        return z + 0.1 * (x - jnp.mean(x)) / jnp.std(x)

    return jax_case(f, (data(_rng(n), n),), False)


@program(6, 200)
def hmc_leapfrog_grad(n):
    """Three leapfrog steps of Hamiltonian Monte Carlo on a correlated Gaussian's
    potential, its force by ``jax.grad`` inside the program; the final position and the
    Hamiltonian."""
    r = _rng(n)
    M = data(r, n, n, scale=0.3)
    A = M @ M.T + np.eye(n)
    p0 = data(r, n)

    def U(q):
        return 0.5 * q @ A @ q + 0.1 * jnp.sum(jnp.cos(q))

    def f(q):
        p, eps = p0, 0.05
        for _ in range(3):
            p = p - 0.5 * eps * jax.grad(U)(q)
            q = q + eps * p
            p = p - 0.5 * eps * jax.grad(U)(q)
        return jnp.concatenate([q, (U(q) + 0.5 * p @ p)[None]])

    return jax_case(f, (data(r, n),), False)


@program(6, 400)
def vectorize_masked_sum(n):
    """A per-row log-sum-exp by ``jnp.vectorize(..., signature="(k)->()")`` over ``n`` rows of
    5, and a masked mean by ``jnp.sum(where=)`` (ragged rows padded to 5)."""
    r = _rng(n)
    lens = r.integers(1, 6, size=n)
    mask = np.arange(5)[None, :] < lens[:, None]

    @jnp.vectorize
    def sq(a):
        return a * a

    lse = jnp.vectorize(lambda v: jnp.log(jnp.sum(jnp.exp(v))), signature="(k)->()")

    def f(x):
        X = x.reshape(n, 5)
        return jnp.sum(lse(X)) + jnp.sum(sq(X), where=mask) / mask.sum()

    return jax_case(f, (data(r, 5 * n),), True)


# ---------------------------------------------------------------- fields and signals


@program(6, 40)
def gray_scott_pad_modes(n):
    """Two explicit steps of the Gray–Scott reaction–diffusion system on an ``n × n`` grid:
    ``u``'s Laplacian on a periodic domain by ``jnp.pad(mode="wrap")``, ``v``'s with
    mirror boundaries by ``jnp.pad(mode="reflect")``; both fields."""
    F, k, Du, Dv, dt = 0.04, 0.06, 0.16, 0.08, 0.5

    def lap(Z, mode):
        P = jnp.pad(Z, 1, mode=mode)
        return P[:-2, 1:-1] + P[2:, 1:-1] + P[1:-1, :-2] + P[1:-1, 2:] - 4 * Z

    def f(x):
        U, V = x[: n * n].reshape(n, n), x[n * n :].reshape(n, n)
        for _ in range(2):
            uvv = U * V * V
            U, V = (U + dt * (Du * lap(U, "wrap") - uvv + F * (1 - U)),
                    V + dt * (Dv * lap(V, "reflect") + uvv - (F + k) * V))  # fmt: skip
        return jnp.concatenate([U.ravel(), V.ravel()])

    return jax_case(f, (0.5 + data(_rng(n), 2 * n * n, scale=0.2),), False)


@program(12, 1000)
def sliding_window_dynamic_slice(n):
    """An adaptive moving-average filter: ``lax.scan`` over positions, each reading a
    window of 4 by ``lax.dynamic_slice`` and writing its smoothed value into a buffer by
    ``lax.dynamic_update_slice``; the buffer."""
    w = 4

    def f(x):
        def step(buf, t):
            win = lax.dynamic_slice(x, (t,), (w,))
            val = jnp.sum(win * jax.nn.softmax(win)) + 0.1 * buf[jnp.maximum(t - 1, 0)]
            return lax.dynamic_update_slice(buf, val[None], (t,)), None

        buf, _ = lax.scan(step, jnp.zeros(n - w + 1), jnp.arange(n - w + 1))
        return buf

    return jax_case(f, (data(_rng(n), n),), False)


@program(4, 100)
def fori_trajectory_buffer(n):
    """A damped oscillator integrated by semi-implicit Euler in ``lax.fori_loop`` over 8
    steps, each state written into a trajectory buffer by ``.at[i].set`` (a traced index);
    a misfit against observations of the positions."""
    r = _rng(n)
    obs = data(r, 8, n)
    K = 1.0 + np.abs(data(r, n))

    def f(z0):
        def body(i, c):
            z, traj = c
            q, p = z[:n], z[n:]
            p = p - 0.1 * (K * jnp.sin(q) + 0.2 * p)
            q = q + 0.1 * p
            z = jnp.concatenate([q, p])
            return z, traj.at[i].set(q)

        _, traj = lax.fori_loop(0, 8, body, (z0, jnp.zeros((8, n))))
        return jnp.sum((traj - obs) ** 2)

    return jax_case(f, (data(r, 2 * n),), True)


@program(16, 2000)
def sinc_arctan2_signal(n):
    """Band-limited (Whittaker–Shannon) interpolation of ``n`` I/Q samples by ``jnp.sinc``
    at 7 off-grid times, and the phase of each interpolated pair by ``jnp.arctan2``."""
    t = np.linspace(0.3, n - 1.7, 7)
    k = np.arange(n)

    def f(x):
        S = jnp.sinc(t[:, None] - k[None, :])
        i, q = S @ x[:n], S @ x[n:]
        return jnp.concatenate([jnp.arctan2(q, i), jnp.sqrt(i**2 + q**2)])

    return jax_case(f, (data(_rng(n), 2 * n),), False)


@program(16, 1024)
def fft_power_spectrum(n):
    """A spectral loss: the power spectrum of a signal by ``jnp.fft.rfft`` (``jnp.abs``
    squared) against a target in log space."""
    r = _rng(n)
    target = np.abs(data(r, n // 2 + 1)) + 0.1

    def loss(x):
        P = jnp.abs(jnp.fft.rfft(x)) ** 2 / n
        return jnp.sum((jnp.log(P + 1e-2) - jnp.log(target)) ** 2)

    return jax_case(loss, (data(r, n),), True)


@program(10, 1000)
def gae_reverse_scan(n):
    """Generalised advantage estimation over ``n`` steps: values ``tanh`` of the parameters,
    TD errors, advantages by ``lax.scan(..., reverse=True)``; the discounted returns by
    ``jnp.flip`` around ``jnp.cumsum`` of the rewards scaled by ``γ^t``."""
    r = _rng(n)
    rew = data(r, n)
    gam, lam = 0.95, 0.9

    def f(theta):
        v = jnp.tanh(theta)
        vn = jnp.concatenate([v[1:], jnp.zeros(1)])
        delta = rew * (1 + 0.1 * v) + gam * vn - v

        def back(a, d):
            a = d + gam * lam * a
            return a, a

        _, adv = lax.scan(back, 0.0, delta, reverse=True)
        disc = gam ** jnp.arange(n)
        ret = jnp.flip(jnp.cumsum(jnp.flip(rew * disc * (1 + 0.1 * v)))) / disc
        return jnp.sum(adv**2) + jnp.sum((ret - v) ** 2)

    return jax_case(f, (data(r, n),), True)


# ---------------------------------------------------------------- NumPy


@program(8, 1000)
def numpy_polyline_geometry(n):
    """NumPy code: a 2-D polyline of ``n`` points built by ``np.cumsum(axis=0)`` of steps,
    segment lengths by ``np.diff(axis=0)`` and ``np.linalg.norm(axis=1)``, turning angles by
    ``np.arctan2``; length, bending energy and the end point."""

    def f(x):
        P = np.cumsum(x.reshape(n, 2), axis=0)
        d = np.diff(P, axis=0)
        seg = np.linalg.norm(d, axis=1)
        ang = np.arctan2(d[:, 1], d[:, 0])
        bend = np.sum(np.diff(ang) ** 2)
        return np.concatenate([[np.sum(seg), bend], P[-1]])

    return np_case(f, (1.0 + data(_rng(n), 2 * n, scale=0.3),), False)


@program(6, 40)
def numpy_tv_pad_reflect(n):
    """NumPy code: a smoothed total-variation denoising energy of an ``n × n`` image, its
    forward differences on mirror-padded data (``np.pad(mode="reflect")``) and an
    ``np.pad(mode="edge")`` blur in the data term."""
    r = _rng(n)
    Y = data(r, n, n)

    def f(x):
        X = x.reshape(n, n)
        P = np.pad(X, 1, mode="reflect")
        gx, gy = P[1:-1, 2:] - X, P[2:, 1:-1] - X
        E = np.pad(X, 1, mode="edge")
        B = (E[:-2, 1:-1] + E[2:, 1:-1] + E[1:-1, :-2] + E[1:-1, 2:] + 4 * X) / 8
        return 0.5 * np.sum((B - Y) ** 2) + 0.2 * np.sum(np.sqrt(gx**2 + gy**2 + 1e-2))

    return np_case(f, (data(r, n * n),), True)


@program(12, 1000)
def numpy_stick_slip_where(n):
    """NumPy code: Coulomb friction with sticking, the stick condition itself chosen by
    ``np.where`` among conditions (slow contacts stick where the force is below the
    static limit, fast ones never); the friction residuals."""
    r = _rng(n)
    x = np.concatenate([data(r, n, scale=0.4), data(r, n)])

    def f(x):
        v, F = x[:n], x[n:]
        stick = np.where(np.abs(v) < 0.3, np.abs(F) < 1.0, False)
        return np.where(stick, 0.1 * v, F - 0.5 * np.tanh(5 * v))

    return np_case(f, (x,), False)


@program(12, 1000)
def log_returns_nan_to_num(n):
    """Log returns of a signed series by ``jnp.nan_to_num`` (a negative ratio's NaN and a
    zero's -inf read as 0), weighted by the later value."""

    def f(p):
        return jnp.nan_to_num(jnp.log(p[1:] / p[:-1]), nan=0.0, neginf=0.0) * p[1:]

    return jax_case(f, (data(_rng(n), n),), False)


@program(12, 1000)
def numpy_log_returns_isnan(n):
    """NumPy code: the same log returns by ``np.nan_to_num``, plus a weighted sum with
    the NaN entries left out by ``np.isnan``/``np.where``."""

    def f(p):
        r = np.log(p[1:] / p[:-1])
        kept = np.where(np.isnan(r), 0.0, r)
        return np.nan_to_num(r, nan=0.0, neginf=0.0) * p[1:] + 0.1 * np.sum(kept * p[:-1])

    return np_case(f, (data(_rng(n, 1), n),), False)


# ---------------------------------------------------------------- the survey


def main(argv: list[str]) -> None:
    SizedSurvey(PROGRAMS, CASES, __file__, rng, cell=7, modes=MODES_SIZED).main(argv)


#: each program at its small size, under its name (``dgraph codegen real_programs6.py:NAME``)
CASES = small_cases(PROGRAMS, globals())

if __name__ == "__main__":
    main(sys.argv[1:])
