"""Real programs through dgraph's public API, a twelfth survey beside ``real_programs.py``
… ``real_programs10.py`` and ``real_programs_hessian.py``: APIs and domains those do not
hold. JAX: a two-qubit circuit simulator (complex amplitudes ``jnp.exp(1j·θ/2)``, gates by
``jnp.kron`` and ``@``, a real expectation value), ``jax.scipy.linalg.expm``,
``cho_factor``/``cho_solve``, ``lu_factor``/``lu_solve``, ``jax.scipy.stats``
(``norm``/``gamma``/``beta``/``t`` logpdf, ``multivariate_normal.logpdf``), ``jnp.interp``
with ``jnp.digitize``, ``jax.nn`` (``gelu``, ``glu``, ``log_softmax``, ``one_hot``),
optax-style losses (sigmoid binary cross-entropy, smooth L1), overlapping ``SAME``
pooling by ``lax.reduce_window``, an adaptive Heun–Euler integrator in a
``lax.while_loop``, a log-domain Sinkhorn loop in ``lax.fori_loop``, ``jnp.take`` with
``mode="clip"``/``"wrap"`` and ``jnp.roll`` by a tuple of shifts. NumPy: recursive
Newton–Euler dynamics of a 3-link chain, a binomial-tree American option, ``np.linalg.norm``
with ``ord`` and ``axis``, ``np.polyder``/``np.polynomial.polynomial.polyder``, tetrahedra
volumes by ``np.cross`` and ``np.linalg.det``, ``np.where`` masks with
``np.maximum.reduce``, ``np.einsum`` with an ellipsis; and a ``sympy.lambdify``'d
Euler–Lagrange system derived with ``sp.diff``.

Each NumPy program's reference is its JAX twin (the same code with jax.numpy) or a jnp
transcription. Columns are real_programs3's (``SizedSurvey`` of
``benchmarks/real_programs_harness.py``), every value against ``jax.jacfwd`` /
``jax.hessian`` of the reference, relative 1e-8.

    python benchmarks/real_programs11.py [NAME ...] [--modes=jac,jvp,...] [--limit=SECONDS]
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import jax.scipy.stats as jst
import numpy as np
import sympy as sp
from jax import lax
from real_programs_harness import (
    MODES_SIZED,
    SizedSurvey,
    data,
    jax_case,
    jnp_twin,
    np_case,
    registry,
    small_cases,
)

warnings.filterwarnings("ignore")
jax.config.update("jax_enable_x64", True)
rng = np.random.default_rng(41)


def _rng(n: int, salt: int = 0) -> np.random.Generator:
    return np.random.default_rng(1000 * n + salt + 11)


#: name -> (builder n -> Case, small n, medium n or None)
PROGRAMS: dict[str, tuple[Callable[[int], tuple], int, int | None]] = {}
program = registry(PROGRAMS)


# ---------------------------------------------------------------- JAX: complex, linalg


@program(2, 6)
def quantum_circuit_expectation(n):
    """A variational two-qubit circuit repeated ``n`` layers: ``RZ(θ) = diag(e^{−iθ/2},
    e^{iθ/2})`` by ``jnp.exp(1j·θ/2)``, ``RY`` of cos/sin, the layer ``kron(RY, RY)``,
    ``kron(RZ, RZ)`` and a CNOT as ``@``; the energy ``Re⟨ψ|Z⊗Z + 0.5 X⊗I|ψ⟩``: a scalar
    of the ``4n`` angles."""
    Z = jnp.array([[1.0, 0.0], [0.0, -1.0]])
    X = jnp.array([[0.0, 1.0], [1.0, 0.0]])
    H = jnp.kron(Z, Z) + 0.5 * jnp.kron(X, jnp.eye(2))
    cnot = jnp.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]], dtype=complex)

    def rz(t):
        return jnp.diag(jnp.stack([jnp.exp(-0.5j * t), jnp.exp(0.5j * t)]))

    def ry(t):
        c, s = jnp.cos(t / 2), jnp.sin(t / 2)
        return jnp.stack([jnp.stack([c, -s]), jnp.stack([s, c])]).astype(complex)

    def f(theta):
        psi = jnp.zeros(4, dtype=complex).at[0].set(1.0)
        th = theta.reshape(n, 4)
        for layer in range(n):
            a, b, c, d = th[layer, 0], th[layer, 1], th[layer, 2], th[layer, 3]
            psi = jnp.kron(ry(a), ry(b)) @ psi
            psi = jnp.kron(rz(c), rz(d)) @ psi
            psi = cnot @ psi
        return jnp.real(jnp.vdot(psi, H @ psi))

    return jax_case(f, (data(_rng(n), 4 * n),), True)


@program(3, 10)
def expm_propagator(n):
    """A linear ODE's propagator ``exp(t A(k))`` by ``jax.scipy.linalg.expm`` of a
    tridiagonal generator whose rates ``k`` are the unknowns (a birth–death chain), applied
    to an initial distribution: the state at t = 0.7 (a vector of ``n + 1``)."""
    p0 = jnp.zeros(n + 1).at[0].set(1.0)

    def f(k):
        up = jnp.exp(k)  # rates i -> i + 1
        A = jnp.diag(up, -1) - jnp.diag(jnp.concatenate([up, jnp.zeros(1)]))
        return jsl.expm(0.7 * A) @ p0

    return jax_case(f, (data(_rng(n), n, scale=0.3),), False)


@program(5, 60)
def gp_cho_solve_mean(n):
    """A Gaussian-process posterior mean at 3 test points in the kernel's log
    hyperparameters and the training targets, ``cho_factor(K + σ²I, lower=True)`` then
    ``cho_solve``: a vector (unknowns: ``[log ℓ, log σ_f, log σ_n, y₁ … yₙ]``)."""
    xt = jnp.linspace(0.0, 3.0, n)
    xs = jnp.array([0.5, 1.5, 2.7])

    def k(a, b, ell, sf):
        return sf**2 * jnp.exp(-0.5 * (a[:, None] - b[None, :]) ** 2 / ell**2)

    def f(z):
        ell, sf, sn = jnp.exp(z[0]), jnp.exp(z[1]), jnp.exp(z[2])
        y = z[3:]
        K = k(xt, xt, ell, sf) + sn**2 * jnp.eye(n)
        alpha = jsl.cho_solve(jsl.cho_factor(K, lower=True), y)
        return k(xs, xt, ell, sf) @ alpha

    z = jnp.concatenate([jnp.array([-0.2, 0.1, -1.0]), jnp.sin(xt)])
    return jax_case(f, (z,), False)


@program(4, 40)
def lu_solve_implicit_step(n):
    """An implicit-midpoint-like step of ``u' = −A(u) u``: ``lu_factor(I + ½dt A)`` with
    ``A`` a diffusion matrix whose conductivities depend on ``u``, then ``lu_solve`` of
    ``(I − ½dt A) u`` twice (two right-hand sides, ``u`` and ``u²``): a vector of ``2n``."""

    def f(u):
        c = 1.0 + u**2
        A = jnp.diag(2.0 * c) - jnp.diag(c[1:], 1) - jnp.diag(c[:-1], -1)
        M = jnp.eye(n) + 0.05 * A
        lu, piv = jsl.lu_factor(M)
        rhs = jnp.stack([u - 0.05 * A @ u, u**2], axis=1)
        return jsl.lu_solve((lu, piv), rhs).ravel()

    return jax_case(f, (data(_rng(n), n, scale=0.5),), False)


@program(6, 400)
def stats_logpdf_mixture(n):
    """A Bayesian model's log density by ``jax.scipy.stats``: ``norm.logpdf`` of the
    data, ``gamma.logpdf`` of a positive scale, ``beta.logpdf`` of a weight by sigmoid,
    ``t.logpdf`` of robust residuals and ``multivariate_normal.logpdf`` of the first three
    coefficients with a fixed covariance: a scalar."""
    r = _rng(n)
    y = r.normal(size=n)
    S = jnp.array([[1.0, 0.3, 0.1], [0.3, 2.0, 0.2], [0.1, 0.2, 1.5]])

    def f(z):
        mu, log_s, logit_w = z[0], z[1], z[2]
        s = jnp.exp(log_s)
        w = jax.nn.sigmoid(logit_w)
        resid = y - mu - z[3:] * 0.1
        lp = jnp.sum(jst.norm.logpdf(y, loc=mu, scale=s))
        lp += jst.gamma.logpdf(s, 2.0, scale=1.5)
        lp += jst.beta.logpdf(w, 2.0, 3.0)
        lp += jnp.sum(jst.t.logpdf(resid / s, 4.0))
        lp += jst.multivariate_normal.logpdf(z[:3], jnp.zeros(3), S)
        return lp

    return jax_case(f, (data(r, n + 3, scale=0.4),), True)


@program(8, 500)
def interp_digitize_profile(n):
    """A piecewise-linear lookup: ``jnp.interp`` of query points (the first half of the
    unknowns) into a table whose values are the second half, plus a per-bin weight chosen
    by ``jnp.digitize`` of the queries into fixed edges: a vector."""
    xp = jnp.linspace(0.0, 1.0, n)
    edges = jnp.array([0.25, 0.5, 0.75])
    wbin = jnp.array([1.0, 2.0, 3.0, 4.0])

    def f(z):
        q, fp = z[:n], z[n:]
        v = jnp.interp(q, xp, fp)
        return v * wbin[jnp.digitize(q, edges)] + jnp.sin(fp)

    r = _rng(n)
    q = r.uniform(0.03, 0.97, size=n)
    return jax_case(f, (np.concatenate([q, r.normal(size=n)]),), False)


# ---------------------------------------------------------------- JAX: nn and losses


@program(4, 64)
def nn_gelu_glu_classifier(n):
    """A small classifier: ``jax.nn.gelu`` (tanh approximation), a gated layer
    ``jax.nn.glu`` (halves along the last axis), ``jax.nn.log_softmax`` and a cross-entropy
    against ``jax.nn.one_hot`` labels with ``jnp.where`` masking the padded samples: a
    scalar of the first layer's weights."""
    r = _rng(n)
    X = jnp.asarray(r.normal(size=(12, n)))
    W2 = jnp.asarray(r.normal(size=(n, 3)) * 0.3)
    labels = jnp.array([0, 1, 2, 1, 0, 2, 2, 1, 0, 0, 1, 2])
    valid = jnp.arange(12) < 10

    def f(w):
        W1 = w.reshape(n, 2 * n)
        h = jax.nn.glu(jax.nn.gelu(X @ W1), axis=-1)
        logp = jax.nn.log_softmax(h @ W2, axis=-1)
        nll = -jnp.sum(jax.nn.one_hot(labels, 3) * logp, axis=-1)
        return jnp.sum(jnp.where(valid, nll, 0.0)) / jnp.sum(valid)

    return jax_case(f, (data(r, 2 * n * n, scale=0.3),), True)


@program(8, 1000)
def optax_style_losses(n):
    """Optax's losses written out as in its source: ``sigmoid_binary_cross_entropy``
    (``log_sigmoid(x)·y + log_sigmoid(−x)·(1 − y)``) of logits and ``smooth_l1`` (Huber
    with ``beta``, by ``jnp.where(|d| < beta, …)``) of regression outputs, both from one
    linear model's weights: a scalar."""
    r = _rng(n)
    X = jnp.asarray(r.normal(size=(2 * n, n)))
    y01 = jnp.asarray((r.random(2 * n) > 0.5) * 1.0)
    yreg = jnp.asarray(r.normal(size=2 * n))

    def sigmoid_binary_cross_entropy(logits, labels):
        log_p = jax.nn.log_sigmoid(logits)
        log_not_p = jax.nn.log_sigmoid(-logits)
        return -labels * log_p - (1.0 - labels) * log_not_p

    def smooth_l1(pred, target, beta=0.5):
        d = jnp.abs(pred - target)
        return jnp.where(d < beta, 0.5 * d**2 / beta, d - 0.5 * beta)

    def f(w):
        z = X @ w
        return jnp.mean(sigmoid_binary_cross_entropy(z, y01)) + jnp.mean(smooth_l1(z, yreg))

    return jax_case(f, (data(r, n, scale=0.4),), True)


@program(4, 24)
def reduce_window_same_pool(n):
    """Overlapping pooling of an ``n×n`` image: 3×3 max pooling with stride 1 and ``SAME``
    padding, 2×2 average pooling with stride 2 by ``lax.reduce_window`` with ``lax.add``,
    then a smooth readout ``Σ tanh``: a vector of the average-pooled map's entries."""

    def f(x):
        img = x.reshape(n, n)
        mx = lax.reduce_window(img, -jnp.inf, lax.max, (3, 3), (1, 1), "SAME")
        av = lax.reduce_window(jnp.tanh(mx + 0.5 * img), 0.0, lax.add, (2, 2), (2, 2),
                               "VALID") / 4.0  # fmt: skip
        return av.ravel()

    return jax_case(f, (data(_rng(n), n * n),), False)


# ---------------------------------------------------------------- JAX: loops


@program(2, 2)
def adaptive_heun_while(n):
    """An adaptive Heun–Euler integrator of a damped pendulum in ``lax.while_loop``: the
    step is accepted where the embedded error estimate is under the tolerance and the next
    ``h = h·clip(0.9 (tol/err)^{1/2}, 0.2, 5)`` either way; the unknowns are the damping and
    the stiffness, the output the final ``[θ, ω]`` (``n`` unused)."""
    tol, t_end = 1e-4, 2.0

    def rhs(y, p):
        return jnp.stack([y[1], -p[1] * jnp.sin(y[0]) - p[0] * y[1]])

    def f(p):
        def cond(s):
            return s[0] < t_end

        def body(s):
            t, h, y = s
            h = jnp.minimum(h, t_end - t)
            k1 = rhs(y, p)
            k2 = rhs(y + h * k1, p)
            y_new = y + 0.5 * h * (k1 + k2)
            err = jnp.sqrt(jnp.sum((0.5 * h * (k2 - k1)) ** 2)) + 1e-12
            ok = err < tol
            fac = jnp.clip(0.9 * jnp.sqrt(tol / err), 0.2, 5.0)
            return (jnp.where(ok, t + h, t), h * fac, jnp.where(ok, y_new, y))

        _, _, y = lax.while_loop(cond, body, (0.0, 0.1, jnp.array([1.0, 0.0])))
        return y

    return jax_case(f, (np.array([0.3, 4.0]),), False)


@program(4, 16)
def sinkhorn_fori(n):
    """Entropic optimal transport between two ``n``-point clouds on a line, the first
    cloud's positions the unknowns: log-domain Sinkhorn, 30 iterations of ``f ← −ε
    logsumexp((g − C)/ε)`` and the same for ``g`` in ``lax.fori_loop``, then the transport
    cost ``⟨P, C⟩``: a scalar."""
    r = _rng(n)
    yv = jnp.asarray(np.sort(r.normal(size=n)))
    a = jnp.full(n, 1.0 / n)
    eps = 0.5

    def f(x):
        C = (x[:, None] - yv[None, :]) ** 2

        def step(_, fg):
            fu, gv = fg
            fu = -eps * jax.nn.logsumexp((gv[None, :] - C) / eps, axis=1) + eps * jnp.log(a)
            gv = -eps * jax.nn.logsumexp((fu[:, None] - C) / eps, axis=0) + eps * jnp.log(a)
            return fu, gv

        fu, gv = lax.fori_loop(0, 30, step, (jnp.zeros(n), jnp.zeros(n)))
        P = jnp.exp((fu[:, None] + gv[None, :] - C) / eps)
        return jnp.sum(P * C)

    return jax_case(f, (data(r, n),), True)


@program(8, 400)
def take_clip_wrap_roll(n):
    """Boundary handling by indexing modes: a 5-point stencil whose neighbours are
    ``jnp.take(u, i ± k, mode="clip")`` (a reflecting-ish edge) and ``mode="wrap"``
    (periodic), plus ``jnp.roll`` of a 2-D field by a tuple of shifts over two axes: a
    vector of ``n + n`` entries."""
    idx = jnp.arange(n)

    def f(u):
        stencil = ((-2, -1.0), (-1, 16.0), (0, -30.0), (1, 16.0), (2, -1.0))
        clip = sum(c * jnp.take(u, idx + k, mode="clip") for k, c in stencil)
        wrap = jnp.take(u, idx + 1, mode="wrap") * jnp.take(u, idx - 1, mode="wrap")
        field = u.reshape(2, n // 2)
        rolled = jnp.roll(field, (1, -1), axis=(0, 1))
        return jnp.concatenate([clip / 12.0 + u**3, wrap + rolled.ravel() * u])

    return jax_case(f, (data(_rng(n), n),), False)


# ---------------------------------------------------------------- NumPy: mechanics, finance


def _rnea(q, qd, qdd, lengths, masses, g=9.81):
    """Recursive Newton–Euler of a planar serial chain: the forward pass propagates the
    links' angular velocities and accelerations and the centres' linear accelerations, the
    backward pass the forces and moments; the joints' torques."""
    nl = len(lengths)
    th, om, al = 0.0, 0.0, 0.0
    acc = np.array([0.0, g])  # the base accelerates upward: gravity
    acs, coms = [], []
    for i in range(nl):
        th, om, al = th + q[i], om + qd[i], al + qdd[i]
        e = np.array([np.cos(th), np.sin(th)])
        en = np.array([-np.sin(th), np.cos(th)])
        r = 0.5 * lengths[i]
        ac = acc + r * al * en - r * om**2 * e
        acc = acc + lengths[i] * al * en - lengths[i] * om**2 * e
        acs.append((ac, al))
        coms.append((e, r))
    f_next, n_next, tau = np.zeros(2), 0.0, []
    for i in range(nl - 1, -1, -1):
        ac, al = acs[i]
        e, r = coms[i]
        inertia = masses[i] * lengths[i] ** 2 / 12.0
        fi = masses[i] * ac + f_next
        # moment about joint i: link's own inertia, the tip force's lever, the centre's
        lever_tip = 2.0 * r * e
        lever_c = r * e
        ni = (inertia * al + n_next + (lever_tip[0] * f_next[1] - lever_tip[1] * f_next[0])
              + masses[i] * (lever_c[0] * ac[1] - lever_c[1] * ac[0]))  # fmt: skip
        tau.append(ni)
        f_next, n_next = fi, ni
    return np.array(tau[::-1])


@program(3, 3)
def rnea_three_link(n):
    """Inverse dynamics of a 3-link planar arm by recursive Newton–Euler in NumPy (a
    forward loop over links, a backward loop of forces and moments): the torques from the
    stacked ``[q, q̇, q̈]`` (a vector of 3; ``n`` the links)."""
    lengths, masses = np.array([1.0, 0.8, 0.5]), np.array([2.0, 1.5, 1.0])

    def f(x):
        return _rnea(x[:n], x[n : 2 * n], x[2 * n :], lengths, masses)

    def ref(x):
        return jnp_twin(_rnea)(x[:n], x[n : 2 * n], x[2 * n :], lengths, masses)

    return np_case(f, (data(_rng(n), 3 * n),), False, ref)


@program(12, 200)
def binomial_tree_american(n):
    """A Cox–Ross–Rubinstein binomial tree of ``n`` levels for an American put: terminal
    payoffs by ``np.maximum(K − S, 0)``, then a Python loop back over the levels, each
    ``np.maximum(disc·(p V[1:] + (1 − p) V[:-1]), K − S_level)``; the unknowns
    ``[S₀, σ, r]``, the price (a scalar)."""
    K, T = 1.0, 1.0

    def f(params):
        s0, sigma, rate = params[0], params[1], params[2]
        dt = T / n
        u = np.exp(sigma * np.sqrt(dt))
        d = 1.0 / u
        p = (np.exp(rate * dt) - d) / (u - d)
        disc = np.exp(-rate * dt)
        j = np.arange(n + 1)
        V = np.maximum(K - s0 * u**j * d ** (n - j), 0.0)
        for level in range(n - 1, -1, -1):
            jj = np.arange(level + 1)
            S = s0 * u**jj * d ** (level - jj)
            V = np.maximum(disc * (p * V[1:] + (1.0 - p) * V[:-1]), K - S)
        return V[0]

    return np_case(f, (np.array([1.013, 0.27, 0.031]),), True)


# ---------------------------------------------------------------- NumPy: numerical kernels


@program(6, 200)
def norm_ord_axis(n):
    """Regularizers by ``np.linalg.norm`` with ``ord`` and ``axis``: a ``(3, n)`` matrix's
    column 2-norms (group lasso), row 1-norms, its ``'fro'`` norm, the ``ord=3`` norm of the
    flat vector and the ``ord=np.inf`` norm of each column: a vector."""

    def f(x):
        W = x.reshape(3, n)
        return np.concatenate([
            np.linalg.norm(W, axis=0),
            np.linalg.norm(W, ord=1, axis=1),
            [np.linalg.norm(W, "fro"), np.linalg.norm(x, ord=3)],
            np.linalg.norm(W, ord=np.inf, axis=0),
        ])  # fmt: skip

    return np_case(f, (data(_rng(n), 3 * n),), False)


@program(5, 100)
def polyder_stationary(n):
    """Stationarity conditions of a fitted polynomial: ``np.polyder`` of the coefficients
    (highest first) evaluated by ``np.polyval`` at fixed points, and the second derivative
    by ``np.polynomial.polynomial.polyder(c, 2)`` (lowest first) by its ``polyval``: a
    vector."""
    t = np.linspace(-1.0, 1.0, 2 * n)

    def f(c):
        d1 = np.polyval(np.polyder(c), t)
        d2 = np.polynomial.polynomial.polyval(t, np.polynomial.polynomial.polyder(c, 2))
        return np.concatenate([d1, d2 * 0.1])

    def ref(c):
        d1 = jnp.polyval(jnp.polyder(c), t)
        d2 = jnp.polyval(jnp.polyder(c[::-1], 2), t)
        return jnp.concatenate([d1, d2 * 0.1])

    return np_case(f, (data(_rng(n), n),), False, ref)


@program(4, 200)
def tetra_volumes_det_cross(n):
    """A tetrahedral mesh quality energy: each tetrahedron's signed volume once by
    ``np.linalg.det`` of the stacked ``(n, 3, 3)`` edge matrices and once by the triple
    product ``np.cross`` + dot, their mean ``V``, and a barrier ``Σ (V − V₀)² − log V``:
    a scalar of the ``4n`` vertices' coordinates."""
    r = _rng(n)
    base = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])

    def f(x):
        P = x.reshape(n, 4, 3)
        E = P[:, 1:, :] - P[:, :1, :]
        v_det = np.linalg.det(E) / 6.0
        v_cross = np.sum(np.cross(E[:, 0], E[:, 1]) * E[:, 2], axis=1) / 6.0
        V = 0.5 * (v_det + v_cross)
        return np.sum((V - 1.0 / 6.0) ** 2) - np.sum(np.log(V))

    x = (base[None] + 0.05 * r.normal(size=(n, 4, 3))).ravel()
    return np_case(f, (x,), True)


@program(6, 300)
def where_mask_maximum_reduce(n):
    """A piecewise cost of a contact problem: gaps ``g = x − obstacle``, penalties where
    ``mask = g < 0`` by ``np.where(mask, k g², 0)``, a friction-like ``np.where`` of two
    branches, and the envelope of three affine pieces by ``np.maximum.reduce([a, b, c])``:
    a scalar."""
    r = _rng(n)
    obstacle = r.normal(size=n) * 0.3
    slopes = np.array([1.0, -0.5, 0.2])

    def f(x):
        g = x - obstacle
        mask = g < 0.0
        pen = np.where(mask, 100.0 * g**2, 0.0)
        fric = np.where(np.abs(x) > 0.5, np.abs(x) - 0.25, x**2)
        env = np.maximum.reduce([slopes[0] * x, slopes[1] * x + 0.1, slopes[2] * x**2])
        return np.sum(pen) + np.sum(fric) + np.sum(env)

    def ref(x):
        g = x - obstacle
        pen = jnp.where(g < 0.0, 100.0 * g**2, 0.0)
        fric = jnp.where(jnp.abs(x) > 0.5, jnp.abs(x) - 0.25, x**2)
        env = jnp.max(jnp.stack([slopes[0] * x, slopes[1] * x + 0.1, slopes[2] * x**2]), 0)
        return jnp.sum(pen) + jnp.sum(fric) + jnp.sum(env)

    return np_case(f, (data(r, n),), True, ref)


@program(4, 100)
def einsum_ellipsis_batched(n):
    """Batched per-sample linear maps by ``np.einsum`` with an ellipsis: ``y = einsum(
    '...ij,...j->...i', A(x), v)`` with ``A`` a batch of ``(n, 3, 3)`` matrices built from
    the unknowns, then ``einsum('...i,...i->...', y, y)`` and a trace ``'...ii->...'``: a
    vector of ``2n``."""
    v = _rng(n).normal(size=(n, 3))

    def f(x):
        A = np.tanh(x.reshape(n, 3, 3))
        y = np.einsum("...ij,...j->...i", A, v)
        return np.concatenate([np.einsum("...i,...i->...", y, y), np.einsum("...ii->...", A)])

    return np_case(f, (data(_rng(n, 1), 9 * n),), False)


# ---------------------------------------------------------------- sympy: lambdify


def _lambdified_double_pendulum() -> tuple[Callable, Callable]:
    """The double pendulum's Euler–Lagrange residuals derived by sympy (``sp.diff`` of
    ``L = T − V`` in the angles, rates and accelerations as symbols) and
    ``sp.lambdify``'d twice: for NumPy (the program) and for jax.numpy (the reference)."""
    q1, q2, w1, w2, a1, a2 = sp.symbols("q1 q2 w1 w2 a1 a2")
    m1, m2, l1, l2, g = 1.0, 0.7, 1.2, 0.9, 9.81
    t = sp.Symbol("t")
    Q1, Q2 = sp.Function("Q1")(t), sp.Function("Q2")(t)
    x1, y1 = l1 * sp.sin(Q1), -l1 * sp.cos(Q1)
    x2, y2 = x1 + l2 * sp.sin(Q2), y1 - l2 * sp.cos(Q2)
    T = m1 * (x1.diff(t) ** 2 + y1.diff(t) ** 2) / 2 + m2 * (x2.diff(t) ** 2 + y2.diff(t) ** 2) / 2
    V = m1 * g * y1 + m2 * g * y2
    L = T - V
    eqs = [sp.diff(L.diff(Q.diff(t)), t) - L.diff(Q) for Q in (Q1, Q2)]
    subs = {Q1.diff(t, 2): a1, Q2.diff(t, 2): a2, Q1.diff(t): w1, Q2.diff(t): w2}
    subs2 = {Q1: q1, Q2: q2}
    eqs = [sp.simplify(e.subs(subs).subs(subs2)) for e in eqs]
    args = [q1, q2, w1, w2, a1, a2]
    return sp.lambdify([args], eqs, "numpy"), sp.lambdify([args], eqs, "jax")


@program(1, None)
def sympy_lambdify_lagrange(n):
    """The double pendulum's Euler–Lagrange residuals by a function made by
    ``sympy.lambdify([[q1, q2, w1, w2, a1, a2]], eqs, "numpy")`` (unpacks one vector,
    returns a list), called from a wrapper: a vector of 2 (``n`` unused). (The lambdified
    function itself is named ``_lambdifygenerated`` and its parameter ``_Dummy_N``, a new
    N at each import: ``dgraph codegen FILE:NAME --inputs`` cannot name it.)"""
    f_np, f_jax = _lambdified_double_pendulum()

    def f(x):
        return f_np(x)

    def ref(x):
        return jnp.stack(f_jax(x))

    return np_case(f, (np.array([0.4, -0.3, 0.2, 0.5, 0.1, -0.2]),), False, ref)


# ---------------------------------------------------------------- the survey


def main(argv: list[str]) -> None:
    SizedSurvey(PROGRAMS, CASES, __file__, rng, cell=7, modes=MODES_SIZED).main(argv)


#: each program at its small size, under its name (``dgraph codegen real_programs11.py:NAME``)
CASES = small_cases(PROGRAMS, globals())

if __name__ == "__main__":
    main(sys.argv[1:])
