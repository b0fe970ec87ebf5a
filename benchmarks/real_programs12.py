"""Real programs through dgraph's public API, a thirteenth survey beside ``real_programs.py``
… ``real_programs11.py`` and ``real_programs_hessian.py``: APIs, idioms and domains those do
not hold. JAX: a GARCH(1,1) likelihood in a ``lax.scan``, the SE(3) exponential map with a
double-``where`` small-angle guard under ``jax.vmap``, a Cox partial likelihood (``cumsum``
of ``exp`` over a fixed sorted order, reversed), a Tweedie deviance with ``jnp.clip`` of
array bounds, a small CNN by ``lax.conv_general_dilated`` with ``padding="SAME"`` and stride
2, a mixture density network's loss, focal loss with label smoothing, ``jax.scipy.special``
(``erfinv``, ``logit``, ``expit``, ``i0e`` in a von Mises likelihood, ``erf``, ``xlogy``),
parameters as a ``NamedTuple`` through ``jax.vmap(in_axes=(None, 0))`` of a nested
``jax.jit`` and ``functools.partial``, a maximum drawdown by ``lax.cummax``, a Coulomb
matrix descriptor by ``jnp.outer`` and a ``jnp.triu`` mask gathered by ``jnp.triu_indices``,
``jnp.convolve(mode="same")`` with ``jnp.diff(n=2)`` and ``jnp.gradient``, and an IPOPT-style
barrier Lagrangian with array bounds. NumPy: an Euler–Bernoulli beam's compliance assembled by
``K[np.ix_(d, d)] += ke``, a spring–mass chain by ``np.diff``, rolling features by
``np.lib.stride_tricks.sliding_window_view``, a trimmed mean by ``np.take_along_axis`` of an
``np.argsort``, ``np.apply_along_axis`` of ``np.interp``, a Morse potential with cutoff by
``np.piecewise``, CUTEst EDENSCH, and a ``sympy.lambdify``'d ``sp.Matrix`` gradient called
with unpacked scalars.

Each NumPy program's reference is its JAX twin (the same code with jax.numpy) or a jnp
transcription. Columns are real_programs3's (``SizedSurvey`` of
``benchmarks/real_programs_harness.py``), every value against ``jax.jacfwd`` /
``jax.hessian`` of the reference, relative 1e-8.

    python benchmarks/real_programs12.py [NAME ...] [--modes=jac,jvp,...] [--limit=SECONDS]
"""

from __future__ import annotations

import functools
import sys
import warnings
from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp
import jax.scipy.special as jss
import numpy as np
import sympy as sp
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
rng = np.random.default_rng(43)


def _rng(n: int, salt: int = 0) -> np.random.Generator:
    return np.random.default_rng(1000 * n + salt + 13)


#: name -> (builder n -> Case, small n, medium n or None)
PROGRAMS: dict[str, tuple[Callable[[int], tuple], int, int | None]] = {}
program = registry(PROGRAMS)


# ---------------------------------------------------------------- JAX: finance, statistics


@program(12, 1000)
def garch11_scan(n):
    """A GARCH(1,1) negative log-likelihood: ``σ²ₜ = ω + α r²ₜ₋₁ + β σ²ₜ₋₁`` in a
    ``lax.scan`` over the returns, ``ω = softplus``, ``α, β`` by ``jax.nn.sigmoid``; the
    unknowns are the three raw parameters and the returns (a scalar)."""

    def f(z):
        omega = jax.nn.softplus(z[0])
        alpha = 0.3 * jax.nn.sigmoid(z[1])
        beta = 0.6 * jax.nn.sigmoid(z[2])
        r = z[3:]

        def step(s2, rt):
            nll = 0.5 * (jnp.log(2 * jnp.pi * s2) + rt**2 / s2)
            return omega + alpha * rt**2 + beta * s2, nll

        s20 = jnp.var(r) + 1e-3
        _, nll = lax.scan(step, s20, r)
        return jnp.sum(nll)

    r = _rng(n)
    z = np.concatenate([[-1.0, 0.2, 0.5], 0.3 * r.normal(size=n)])
    return jax_case(f, (z,), True)


@program(10, 2000)
def cox_partial_likelihood(n):
    """Cox's partial log-likelihood with Breslow ties absent: times sorted once (a fixed
    ``jnp.argsort`` of the data), the risk-set sums ``cumsum(exp(η)[::-1])[::-1]`` and
    ``Σ δᵢ (ηᵢ − log Rᵢ)``; ``η = X β`` with 3 covariates (unknowns β and a per-subject
    frailty ``u``, penalized): a scalar."""
    r = _rng(n)
    t = r.exponential(size=n)
    order = jnp.asarray(np.argsort(t))
    X = jnp.asarray(r.normal(size=(n, 3)))
    delta = jnp.asarray((r.uniform(size=n) < 0.7).astype(float))

    def f(z):
        beta, u = z[:3], z[3:]
        eta = (X @ beta + u)[order]
        d = delta[order]
        risk = jnp.cumsum(jnp.exp(eta)[::-1])[::-1]
        return -jnp.sum(d * (eta - jnp.log(risk))) + 0.5 * jnp.sum(u**2)

    return jax_case(f, (data(r, n + 3, scale=0.3),), True)


@program(8, 2000)
def tweedie_deviance_clip(n):
    """A Tweedie (p = 1.5) deviance of a log-link GLM, the mean clipped into
    observation-dependent bounds by ``jnp.clip(mu, lo, hi)`` with array ``lo``/``hi``;
    unknowns: 4 coefficients and ``n`` offsets (a scalar)."""
    r = _rng(n)
    X = jnp.asarray(r.normal(size=(n, 4)) * 0.5)
    y = jnp.asarray(r.gamma(2.0, size=n))
    lo = jnp.asarray(0.05 + 0.01 * np.arange(n) / n)
    hi = jnp.asarray(20.0 + np.arange(n) / n)
    p = 1.5

    def f(z):
        b, off = z[:4], z[4:]
        mu = jnp.clip(jnp.exp(X @ b + off), lo, hi)
        dev = 2 * (
            jnp.power(y, 2 - p) / ((1 - p) * (2 - p))
            - y * jnp.power(mu, 1 - p) / (1 - p)
            + jnp.power(mu, 2 - p) / (2 - p)
        )
        return jnp.mean(dev)

    return jax_case(f, (data(r, n + 4, scale=0.2),), True)


@program(8, 1000)
def special_functions_vonmises(n):
    """``jax.scipy.special`` together: a von Mises negative log-likelihood
    ``−κ cos(θ − μ) + log(2π i0e(κ)) + κ`` with ``κ = exp``, a probit quantile by
    ``√2 erfinv(2p − 1)`` of ``p = expit(a)``, ``logit`` of a squashed value, ``erf`` and
    ``xlogy``: a vector of ``n``."""
    r = _rng(n)
    theta = jnp.asarray(r.uniform(-np.pi, np.pi, size=n))

    def f(z):
        mu, logk, a = z[:n], z[n : 2 * n], z[2 * n :]
        k = jnp.exp(logk)
        nll = -k * jnp.cos(theta - mu) + jnp.log(2 * jnp.pi * jss.i0e(k)) + k
        p = jss.expit(a)
        q = jnp.sqrt(2.0) * jss.erfinv(2 * p - 1)
        s = jss.logit(0.1 + 0.8 * jss.expit(mu))
        return nll + q * jss.erf(s) + jss.xlogy(p, k)

    return jax_case(f, (data(r, 3 * n, scale=0.5),), False)


@program(16, 2000)
def cummax_drawdown(n):
    """A portfolio path ``cumprod(1 + r)`` of returns ``r = tanh(z)/10``, its running peak by
    ``lax.cummax`` and the drawdown ``1 − p / peak``: a vector (the drawdown path)."""

    def f(z):
        p = jnp.cumprod(1.0 + 0.1 * jnp.tanh(z))
        peak = lax.cummax(p)
        return 1.0 - p / peak

    return jax_case(f, (data(_rng(n), n),), False)


# ---------------------------------------------------------------- JAX: robotics, chemistry


@program(4, 300)
def se3_exp_map_vmap(n):
    """The SE(3) exponential of ``n`` twists ``(ω, v)`` under ``jax.vmap``: Rodrigues'
    rotation and the left Jacobian ``V`` with the small-angle double-``where`` guard
    (``θ² < 1e-12`` → Taylor terms), each applied to a fixed point: ``R p + V v``, a vector
    of ``3n`` (the first twist is zero, so the guard's branch is taken)."""
    p = jnp.array([0.3, -0.2, 1.0])

    def hat(w):
        return jnp.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])

    def exp_se3(xi):
        w, v = xi[:3], xi[3:]
        th2 = w @ w
        small = th2 < 1e-12
        th2s = jnp.where(small, 1.0, th2)
        th = jnp.sqrt(th2s)
        A = jnp.where(small, 1.0 - th2 / 6.0, jnp.sin(th) / th)
        B = jnp.where(small, 0.5 - th2 / 24.0, (1.0 - jnp.cos(th)) / th2s)
        C = jnp.where(small, 1.0 / 6.0 - th2 / 120.0, (th - jnp.sin(th)) / (th2s * th))
        W = hat(w)
        W2 = W @ W
        R = jnp.eye(3) + A * W + B * W2
        V = jnp.eye(3) + B * W + C * W2
        return R @ p + V @ v

    def f(x):
        return jax.vmap(exp_se3)(x.reshape(n, 6)).ravel()

    x = data(_rng(n), n * 6, scale=0.5)
    x[:6] = 0.0
    return jax_case(f, (x,), False)


@program(5, 40)
def coulomb_matrix_triu(n):
    """The Coulomb-matrix descriptor of ``n`` atoms: ``Mᵢⱼ = ZᵢZⱼ/|Rᵢ − Rⱼ|`` by
    ``jnp.outer(Z, Z)`` off the diagonal (distances with a ``where``-guarded diagonal),
    ``½Zᵢ^2.4`` on it, the upper triangle ``M[jnp.triu_indices(n)]`` plus the nuclear
    repulsion ``Σ jnp.triu(M, 1)`` and ``jnp.inner``/``jnp.vdot`` terms: a vector."""
    Z = jnp.asarray(1.0 + np.arange(n) % 4)
    iu = jnp.triu_indices(n)

    def f(x):
        R = x.reshape(n, 3)
        d = R[:, None, :] - R[None, :, :]
        r2 = jnp.sum(d**2, axis=-1)
        eye = jnp.eye(n, dtype=bool)
        r = jnp.sqrt(jnp.where(eye, 1.0, r2))
        M = jnp.where(eye, 0.5 * Z**2.4, jnp.outer(Z, Z) / r)
        e = jnp.sum(jnp.triu(M, 1))
        c = R.mean(axis=0)
        return jnp.concatenate([M[iu], jnp.stack([e, jnp.inner(c, c), jnp.vdot(R, R)])])

    x = np.arange(3 * n, dtype=float).reshape(n, 3) * 0.9 + data(_rng(n), n, 3, scale=0.2)
    return jax_case(f, (x.ravel(),), False)


# ---------------------------------------------------------------- JAX: ML


@program(1, 2)
def cnn_stride2_same(n):
    """A small CNN: two ``lax.conv_general_dilated`` layers with ``padding="SAME"`` and
    stride 2 (NHWC, ``dimension_numbers=("NHWC", "HWIO", "NHWC")``), ReLU-free ``tanh``,
    global average pooling and a linear head, a softmax cross-entropy over a batch of
    ``2n`` 8×8 images; the unknowns are the two kernels flattened (a scalar)."""
    r = _rng(n)
    imgs = jnp.asarray(r.normal(size=(2 * n, 8, 8, 1)))
    labels = jnp.asarray(np.arange(2 * n) % 3)
    Wh = jnp.asarray(r.normal(size=(4, 3)) * 0.5)
    dn = ("NHWC", "HWIO", "NHWC")

    def f(w):
        k1 = w[:18].reshape(3, 3, 1, 2)
        k2 = w[18:].reshape(3, 3, 2, 4)
        h = jnp.tanh(lax.conv_general_dilated(imgs, k1, (2, 2), "SAME", dimension_numbers=dn))
        h = jnp.tanh(lax.conv_general_dilated(h, k2, (2, 2), "SAME", dimension_numbers=dn))
        logits = h.mean(axis=(1, 2)) @ Wh
        lp = jax.nn.log_softmax(logits)
        return -jnp.mean(jnp.take_along_axis(lp, labels[:, None], axis=1))

    return jax_case(f, (data(r, 18 + 72, scale=0.4),), True)


@program(6, 200)
def mixture_density_network(n):
    """A mixture density network's loss: a one-hidden-layer MLP of a scalar input emits
    ``K = 3`` logits, means and log-scales; the negative log-likelihood of ``n`` targets
    by ``jax.nn.log_softmax`` + ``jax.nn.logsumexp`` over the components. Unknowns: the
    MLP's weights (a scalar)."""
    r = _rng(n)
    xs = jnp.asarray(np.linspace(-1, 1, n))
    ys = jnp.asarray(np.sin(3 * np.linspace(-1, 1, n)) + 0.1 * r.normal(size=n))
    H, K = 5, 3

    def f(w):
        W1, b1 = w[:H], w[H : 2 * H]
        W2 = w[2 * H : 2 * H + 3 * K * H].reshape(H, 3 * K)
        b2 = w[2 * H + 3 * K * H :]
        h = jnp.tanh(xs[:, None] * W1 + b1)
        out = h @ W2 + b2
        logits, mu, logs = out[:, :K], out[:, K : 2 * K], out[:, 2 * K :]
        logpi = jax.nn.log_softmax(logits, axis=-1)
        z = (ys[:, None] - mu) * jnp.exp(-logs)
        comp = logpi - 0.5 * z**2 - logs - 0.5 * jnp.log(2 * jnp.pi)
        return -jnp.mean(jax.nn.logsumexp(comp, axis=-1))

    return jax_case(f, (data(r, 2 * H + 3 * K * H + 3 * K, scale=0.4),), True)


@program(6, 500)
def focal_label_smoothing(n):
    """Focal loss (γ = 2) on label-smoothed targets (optax's ``smooth_labels``:
    ``(1 − α) onehot + α / C``) over ``n`` samples of 4 classes: ``−Σ t (1 − p)^γ log p``
    with ``p = softmax``, ``jax.nn.one_hot`` of integer labels; unknowns: the logits."""
    C = 4
    labels = jnp.asarray(np.arange(n) % C)

    def f(z):
        logits = z.reshape(n, C)
        t = jax.nn.one_hot(labels, C)
        t = (1 - 0.1) * t + 0.1 / C
        logp = jax.nn.log_softmax(logits)
        p = jnp.exp(logp)
        return -jnp.sum(t * (1 - p) ** 2.0 * logp) / n

    return jax_case(f, (data(_rng(n), n * C),), True)


class MLPParams(NamedTuple):
    W1: jnp.ndarray
    b1: jnp.ndarray
    w2: jnp.ndarray


@jax.jit
def _mlp_predict(params: MLPParams, x, scale):
    return scale * jnp.tanh(x @ params.W1 + params.b1) @ params.w2


@program(5, 100)
def namedtuple_vmap_partial(n):
    """Parameters as a ``NamedTuple`` unpacked from a flat vector, a ``jax.jit``-decorated
    predictor bound by ``functools.partial(scale=…)`` and mapped over samples by
    ``jax.vmap(in_axes=(None, 0))`` inside an outer ``jax.jit``, a mean-squared loss with
    weight decay: a scalar of the parameters."""
    r = _rng(n)
    X = jnp.asarray(r.normal(size=(n, 3)))
    y = jnp.asarray(r.normal(size=n))
    H = 4
    predict = functools.partial(_mlp_predict, scale=0.5)

    @jax.jit
    def f(w):
        params = MLPParams(w[: 3 * H].reshape(3, H), w[3 * H : 4 * H], w[4 * H :])
        yhat = jax.vmap(predict, in_axes=(None, 0))(params, X)
        return jnp.mean((yhat - y) ** 2) + 1e-3 * sum(jnp.sum(p**2) for p in params)

    return jax_case(f, (data(r, 5 * H, scale=0.5),), True)


# ---------------------------------------------------------------- JAX: signals, optimization


@program(16, 2000)
def convolve_same_diff2(n):
    """Smoothing a noisy signal: ``jnp.convolve(x, k, mode="same")`` with a 5-tap kernel,
    a curvature penalty by ``jnp.diff(x, n=2)``, a slope by ``jnp.gradient(x, h)`` and its
    integral by ``jnp.trapezoid``: a vector (the smoothed signal and three scalars)."""
    k = jnp.array([1.0, 4.0, 6.0, 4.0, 1.0]) / 16.0
    h = 1.0 / (n - 1)

    def f(x):
        s = jnp.convolve(x, k, mode="same")
        curv = jnp.sum(jnp.diff(x, n=2) ** 2) / h**3
        g = jnp.gradient(x, h)
        return jnp.concatenate([s, jnp.stack([curv, jnp.trapezoid(g**2, dx=h),
                                              jnp.trapezoid(s, dx=h)])])  # fmt: skip

    return jax_case(f, (data(_rng(n), n),), False)


@program(10, 2000)
def ipopt_barrier_lagrangian(n):
    """An interior-point Lagrangian as IPOPT forms it for ``min f s.t. c(x) = 0,
    xl ≤ x ≤ xu``: ``f(x) + λ·c(x) − μ Σ log(x − xl) − μ Σ log(xu − x)`` with array bounds,
    ``f`` a chained quartic and ``c`` the pairwise products minus one; fixed ``λ``, ``μ``
    (a scalar)."""
    r = _rng(n)
    xl = jnp.asarray(-2.0 - r.uniform(size=n))
    xu = jnp.asarray(2.0 + r.uniform(size=n))
    lam = jnp.asarray(r.normal(size=n - 1))
    mu = 0.1

    def f(x):
        obj = jnp.sum((x[1:] - x[:-1] ** 2) ** 2) + jnp.sum((1 - x) ** 4)
        c = x[1:] * x[:-1] - 1.0
        barrier = jnp.sum(jnp.log(x - xl)) + jnp.sum(jnp.log(xu - x))
        return obj + lam @ c - mu * barrier

    return jax_case(f, (data(r, n, scale=0.5),), True)


@program(8, 1000)
def piecewise_select_bounds(n):
    """A smooth-ish ramp by ``jnp.piecewise`` (three pieces with lambdas), a tiered rate
    by ``jnp.select`` and a box projection by ``jnp.clip`` with array bounds (``x`` clipped
    into ``[−1 − i/n, 1 + i/n]``): a vector."""
    lo = jnp.asarray(-1.0 - np.arange(n) / n)
    hi = jnp.asarray(1.0 + np.arange(n) / n)

    def f(x):
        pieces = [lambda t: 0.0 * t, lambda t: t - 0.25, lambda t: (t + 0.5) ** 2 / 4]
        ramp = jnp.piecewise(x, [x < -0.5, x > 0.5], pieces)
        rate = jnp.select([x < -1.0, x < 1.0], [0.5 * x, x**3], default=2.0 * x)
        return ramp + rate * jnp.clip(x, lo, hi)

    x = data(_rng(n), n, scale=1.2)
    return jax_case(f, (x,), False)


# ---------------------------------------------------------------- NumPy: mechanics


def _beam_compliance(EI, L=1.0, load=1.0):
    ne = EI.shape[0]
    h = L / ne
    ndof = 2 * (ne + 1)
    K = np.zeros((ndof, ndof))
    base = np.array([[12, 6 * h, -12, 6 * h], [6 * h, 4 * h * h, -6 * h, 2 * h * h],
                     [-12, -6 * h, 12, -6 * h], [6 * h, 2 * h * h, -6 * h, 4 * h * h]])  # fmt: skip
    for e in range(ne):
        dofs = np.arange(2 * e, 2 * e + 4)
        K[np.ix_(dofs, dofs)] += EI[e] / h**3 * base
    F = np.zeros(ndof)
    F[-2] = load
    free = np.arange(2, ndof)  # clamped at the left end
    u = np.linalg.solve(K[np.ix_(free, free)], F[free])
    return F[free] @ u


def _hermite_stiffness(h):
    return np.array([[12, 6 * h, -12, 6 * h], [6 * h, 4 * h * h, -6 * h, 2 * h * h],
                     [-12, -6 * h, 12, -6 * h], [6 * h, 2 * h * h, -6 * h, 4 * h * h]])  # fmt: skip


def _beam_compliance_ref(EI, L=1.0, load=1.0):
    ne = EI.shape[0]
    h = L / ne
    ndof = 2 * (ne + 1)
    K = jnp.zeros((ndof, ndof))
    base = jnp.asarray(_hermite_stiffness(h))
    for e in range(ne):
        dofs = np.arange(2 * e, 2 * e + 4)
        K = K.at[np.ix_(dofs, dofs)].add(EI[e] / h**3 * base)
    F = jnp.zeros(ndof).at[-2].set(load)
    free = np.arange(2, ndof)
    u = jnp.linalg.solve(K[np.ix_(free, free)], F[free])
    return F[free] @ u


@program(4, 40)
def np_beam_ix_assembly(n):
    """A cantilevered Euler–Bernoulli beam of ``n`` Hermite elements, each stiffness
    ``EIₑ/h³ · k̂`` scatter-added by ``K[np.ix_(dofs, dofs)] += …``, the clamped rows cut by
    ``np.ix_(free, free)``, the tip compliance ``Fᵀ K⁻¹ F`` by ``np.linalg.solve``: a scalar
    of the element rigidities."""
    EI = 1.0 + 0.3 * _rng(n).uniform(size=n)
    return np_case(_beam_compliance, (EI,), True, _beam_compliance_ref)


def _spring_chain(x, k=(1.0, 2.0), m=1.0, L0=0.5):
    ext = np.diff(np.concatenate([[0.0], x, [x.shape[0] * L0 + L0]])) - L0
    ks = np.where(np.arange(ext.shape[0]) % 2 == 0, k[0], k[1])
    tension = ks * ext + 0.1 * ext**3
    return np.diff(tension) / m


@program(10, 2000)
def np_spring_mass_chain(n):
    """A chain of ``n`` masses between fixed walls: extensions by ``np.diff`` of the
    positions padded with ``np.concatenate([[0.0], x, [end]])``, alternating stiffnesses
    by ``np.where`` of the index parity, cubic-hardening tensions, accelerations by
    ``np.diff(tension)``: a vector."""
    x = 0.5 * np.arange(1, n + 1) + 0.05 * _rng(n).normal(size=n)
    return np_case(_spring_chain, (x,), False)


def _edensch(x):
    a = (x[:-1] - 2.0) ** 4
    b = (x[:-1] * x[1:] - 2.0 * x[1:]) ** 2
    c = (x[1:] + 1.0) ** 2
    return 16.0 + np.sum(a + b + c)


@program(10, 5000)
def np_cutest_edensch(n):
    """CUTEst EDENSCH (Li's extended Dennis–Schnabel): ``16 + Σ (xᵢ − 2)⁴ + (xᵢxᵢ₊₁ −
    2xᵢ₊₁)² + (xᵢ₊₁ + 1)²`` by slices: a scalar."""
    return np_case(_edensch, (np.zeros(n) + 0.1 * _rng(n).normal(size=n),), True)


# ---------------------------------------------------------------- NumPy: data idioms


def _rolling_features(x, w=4):
    win = np.lib.stride_tricks.sliding_window_view(x, w)
    m = win.mean(axis=-1)
    v = ((win - m[:, None]) ** 2).mean(axis=-1)
    return np.concatenate([m, np.sqrt(v + 1e-6)])


def _rolling_features_ref(x, w=4):
    idx = np.arange(x.shape[0] - w + 1)[:, None] + np.arange(w)[None, :]
    win = x[idx]
    m = win.mean(axis=-1)
    v = ((win - m[:, None]) ** 2).mean(axis=-1)
    return jnp.concatenate([m, jnp.sqrt(v + 1e-6)])


@program(12, 2000)
def np_sliding_window_rolling(n):
    """Rolling mean and standard deviation over windows of 4 by
    ``np.lib.stride_tricks.sliding_window_view(x, 4)`` then ``mean(axis=-1)``: a vector."""
    return np_case(_rolling_features, (_rng(n).normal(size=n),), False, _rolling_features_ref)


def _trimmed_means(X, k=1):
    idx = np.argsort(X, axis=1)
    S = np.take_along_axis(X, idx, axis=1)
    return S[:, k:-k].mean(axis=1)


@program(5, 300)
def np_take_along_axis_trimmed(n):
    """Per-row trimmed means: ``np.argsort(X, axis=1)`` then ``np.take_along_axis(X, idx,
    axis=1)``, dropping the smallest and largest: a vector of ``n`` rows."""
    X = _rng(n).normal(size=(n, 6))
    return np_case(_trimmed_means, (X,), False)


_XP = np.linspace(0.0, 1.0, 7)
_XQ = np.array([0.05, 0.33, 0.5, 0.71, 0.98])


def _interp_rows(F):
    return np.apply_along_axis(lambda row: np.interp(_XQ, _XP, row), 1, F).ravel()


def _interp_rows_ref(F):
    return jax.vmap(lambda row: jnp.interp(_XQ, _XP, row))(F).ravel()


@program(3, 300)
def np_apply_along_axis_interp(n):
    """Resampling each row of a table at fixed points: ``np.apply_along_axis(lambda row:
    np.interp(xq, xp, row), 1, F)``: a vector of ``5n``."""
    return np_case(_interp_rows, (_rng(n).normal(size=(n, 7)),), False, _interp_rows_ref)


def _morse_cutoff(x, De=1.0, a=1.5, re=1.0, rc=2.5):
    P = x.reshape(-1, 3)
    i, j = np.triu_indices(P.shape[0], 1)
    r = np.sqrt(np.sum((P[i] - P[j]) ** 2, axis=1))
    e = np.piecewise(r, [r < rc, r >= rc],
                     [lambda s: De * (1 - np.exp(-a * (s - re))) ** 2 - De * (1 - np.exp(-a * (rc - re))) ** 2,  # noqa: E501
                      0.0])  # fmt: skip
    return np.sum(e)


def _morse_cutoff_ref(x, De=1.0, a=1.5, re=1.0, rc=2.5):
    P = x.reshape(-1, 3)
    i, j = np.triu_indices(P.shape[0], 1)
    r = jnp.sqrt(jnp.sum((P[i] - P[j]) ** 2, axis=1))
    shift = De * (1 - jnp.exp(-a * (rc - re))) ** 2
    return jnp.sum(jnp.where(r < rc, De * (1 - jnp.exp(-a * (r - re))) ** 2 - shift, 0.0))


@program(5, 30)
def np_piecewise_morse(n):
    """A Morse cluster's energy with a shifted cutoff: pair distances by
    ``np.triu_indices``, the energy by ``np.piecewise(r, [r < rc, r >= rc], [lambda, 0.0])``:
    a scalar of the ``3n`` coordinates."""
    r = _rng(n)
    P = np.stack([np.arange(n) * 0.8, np.sin(np.arange(n)), np.zeros(n)], axis=1)
    return np_case(_morse_cutoff, ((P + 0.1 * r.normal(size=P.shape)).ravel(),), True,
                   _morse_cutoff_ref)  # fmt: skip


def _sympy_gradient() -> tuple[Callable, Callable]:
    x, y, z = sp.symbols("x y z")
    V = sp.exp(-(x**2) - y**2) * sp.cos(z) + sp.log(1 + x**2 * z**2) + x * y * z
    grad = sp.Matrix([V]).jacobian([x, y, z]).T
    return sp.lambdify((x, y, z), grad, "numpy"), sp.lambdify((x, y, z), grad, "jax")


@program(1, None)
def sympy_matrix_gradient(n):
    """A potential's gradient derived by ``sp.Matrix([V]).jacobian([x, y, z]).T`` and
    ``sympy.lambdify((x, y, z), grad, "numpy")`` (three scalar parameters; it returns an
    ``np.array([[…], […], […]])`` column), called from a wrapper with ``*q``: the Jacobian
    is the potential's Hessian (a vector of 3; ``n`` unused)."""
    g_np, g_jax = _sympy_gradient()

    def f(q):
        return g_np(*q).ravel()

    def ref(q):
        return jnp.asarray(g_jax(q[0], q[1], q[2])).ravel()

    return np_case(f, (np.array([0.4, -0.3, 0.7]),), False, ref)


# ---------------------------------------------------------------- the survey


def main(argv: list[str]) -> None:
    SizedSurvey(PROGRAMS, CASES, __file__, rng, cell=7, modes=MODES_SIZED).main(argv)


#: each program at its small size, under its name (``dgraph codegen real_programs12.py:NAME``)
CASES = small_cases(PROGRAMS, globals())

if __name__ == "__main__":
    main(sys.argv[1:])
