"""Real programs through dgraph's public API, a fourth survey beside
``benchmarks/real_programs.py``, ``real_programs2.py`` (Jacobians) and
``real_programs_hessian.py`` (Hessians), of kinds those do not hold: a pre-norm transformer
block with a causal mask (``-inf`` in ``jnp.where``) and a GELU MLP, a RealNVP affine
coupling's log-likelihood and a triangular flow's log-determinant (a matrix built by
``.at[jnp.tril_indices].set``), message passing on a graph with ``x[edges]`` gathers and
``jax.ops.segment_sum`` or ``.at[].add`` with degree normalization, a 1-D finite-element
assembly (element stiffness scatter-added into a global matrix) in JAX and in NumPy
(``np.add.at`` into ``np.zeros((n, n))``), a 2-D convolution (``lax.conv_general_dilated``)
and a 1-D one (``jnp.convolve``), ``jnp.interp`` and ``jnp.polyval``, ``jnp.where`` with
the double-where NaN guard, a user ``jax.custom_jvp`` (a safe softplus / log), ``jax.vmap``
of a per-sample loss, a GP's NLL with ``cholesky`` + ``solve_triangular`` and
``jnp.linalg.norm`` distances, ``lax.cumlogsumexp`` / ``jnp.cumprod``, a pinball
(quantile) loss through ``jnp.sort``, ``lax.scan`` with a dict carry, a softmax
classifier's weights with integer labels, an RK4 ``fori_loop`` with forcing in time, a
Huber regression written as optax writes it, an InfoNCE loss of normalized embeddings,
a soft k-means in NumPy, and a NumPy van der Pol trajectory.

Each program is a builder ``n -> Case`` (the function, its arguments, whether it returns
a scalar, its JAX reference) at a small size (10–100 unknowns) and a medium one
(10³–10⁴). The columns are the shared harness's (``benchmarks/real_programs_harness.py``:
``make_function`` jacobian/jvp/vjp in NumPy, jacobian in JAX, ``dgraph.jacobian``'s
expression set, ``dgraph.hessian`` dense and sparse of a scalar function of one array,
``dgraph codegen FILE:NAME``) and three more: ``c`` (``make_function(f, "jacobian", "c")``),
``med`` (``make_function(f, "jacobian")`` at the medium size, a gradient for a scalar
program) and ``hmed`` (``dgraph.hessian(f, x, sparse=True)`` at the medium size, scalar
programs of one array). Every value against ``jax.jacfwd`` / ``jax.hessian`` of the
reference, relative 1e-8; cells ok, refused (one line), WRONG, ERROR, HANG (``--limit``
seconds, a cell), ``-`` (not applicable).

    python benchmarks/real_programs3.py [NAME ...] [--modes=jac,jvp,...] [--limit=SECONDS]
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
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
rng = np.random.default_rng(20)


def _rng(n: int, salt: int = 0) -> np.random.Generator:
    return np.random.default_rng(1000 * n + salt)


#: name -> (builder n -> Case, small n, medium n or None)
PROGRAMS: dict[str, tuple[Callable[[int], tuple], int, int | None]] = {}
program = registry(PROGRAMS)


# ---------------------------------------------------------------- machine learning


@program(4, 32)
def transformer_block(n):
    """A pre-norm transformer block over ``n`` tokens of width 8 (causal attention with
    ``-inf`` masking, a GELU MLP), a squared-error loss against fixed targets."""
    d, r = 8, _rng(n)
    Wq, Wk, Wv, Wo = (data(r, d, d, scale=0.3) for _ in range(4))
    W1, W2 = data(r, d, 2 * d, scale=0.3), data(r, 2 * d, d, scale=0.3)
    g, b = 1 + data(r, d, scale=0.1), data(r, d, scale=0.1)
    target = data(r, n, d)

    def layer_norm(h, eps=1e-5):
        mu = h.mean(-1, keepdims=True)
        var = ((h - mu) ** 2).mean(-1, keepdims=True)
        return g * (h - mu) * lax.rsqrt(var + eps) + b

    def block(x):
        X = x.reshape(n, d)
        h = layer_norm(X)
        q, k, v = h @ Wq, h @ Wk, h @ Wv
        s = q @ k.T / jnp.sqrt(d)
        mask = jnp.tril(jnp.ones((n, n), dtype=bool))
        s = jnp.where(mask, s, -jnp.inf)
        X = X + jax.nn.softmax(s, axis=-1) @ v @ Wo
        X = X + jax.nn.gelu(layer_norm(X) @ W1, approximate=False) @ W2
        return 0.5 * jnp.mean((X - target) ** 2)

    return jax_case(block, (data(r, n * d),), True)


@program(8, 1000)
def realnvp_coupling(n):
    """A RealNVP affine coupling layer's negative log-likelihood: half of ``x`` through a
    tanh MLP gives scale and shift of the other half; ``-log p(x) = ½|z|² - Σ s``."""
    h, r = n // 2, _rng(n)
    Ws, Wt = data(r, h, h, scale=1 / np.sqrt(h)), data(r, h, h, scale=1 / np.sqrt(h))

    def nll(x):
        x1, x2 = x[:h], x[h:]
        s = jnp.tanh(x1 @ Ws)
        t = x1 @ Wt
        z2 = x2 * jnp.exp(s) + t
        z = jnp.concatenate([x1, z2])
        return 0.5 * jnp.sum(z**2) - jnp.sum(s) + 0.5 * n * jnp.log(2 * jnp.pi)

    return jax_case(nll, (data(r, n),), True)


@program(6, 40)
def triangular_flow_logdet(n):
    """A lower-triangular flow ``y = L x`` with ``L`` built from its parameters by
    ``.at[jnp.tril_indices].set`` (the diagonal through ``exp``): the NLL of data."""
    r = _rng(n)
    X = data(r, 5, n)
    rows, cols = jnp.tril_indices(n)

    def nll(theta):
        L = jnp.zeros((n, n)).at[rows, cols].set(theta)
        L = L - jnp.diag(jnp.diag(L)) + jnp.diag(jnp.exp(jnp.diag(L)))
        Z = X @ L.T
        logdet = jnp.sum(jnp.log(jnp.abs(jnp.diag(L))))
        return 0.5 * jnp.mean(jnp.sum(Z**2, axis=1)) - logdet

    return jax_case(nll, (data(r, n * (n + 1) // 2, scale=0.2),), True)


def _graph(nodes: int, r: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A ring with random chords: ``(src, dst)`` of every directed edge."""
    i = np.arange(nodes)
    chords = r.integers(0, nodes, size=(nodes // 2, 2))
    src = np.concatenate([i, (i + 1) % nodes, chords[:, 0], chords[:, 1]])
    dst = np.concatenate([(i + 1) % nodes, i, chords[:, 1], chords[:, 0]])
    return src, dst


@program(10, 500)
def gnn_segment_sum(n):
    """Two rounds of message passing on ``n`` nodes with 4 features: ``x[src]`` gathered,
    a tanh message, summed into ``dst`` by ``jax.ops.segment_sum``."""
    r = _rng(n)
    src, dst = _graph(n, r)
    W = data(r, 4, 4, scale=0.5)

    def gnn(x):
        h = x.reshape(n, 4)
        for _ in range(2):
            m = jnp.tanh(h[src] @ W)
            h = h + jax.ops.segment_sum(m, dst, num_segments=n)
        return h.ravel()

    return jax_case(gnn, (data(r, 4 * n, scale=0.5),), False)


@program(10, 500)
def gnn_at_add_normalized(n):
    """A GCN layer written with ``.at[].add``: degree-normalized neighbour sums, ReLU, and
    a squared loss of a readout."""
    r = _rng(n, 1)
    src, dst = _graph(n, r)
    deg = np.bincount(dst, minlength=n).astype(float)
    W = data(r, 3, 3, scale=0.5)
    y = data(r, n)

    def loss(x):
        h = x.reshape(n, 3)
        coef = 1.0 / jnp.sqrt(deg[src] * deg[dst])
        agg = jnp.zeros_like(h).at[dst].add(coef[:, None] * h[src])
        h = jax.nn.relu(agg @ W) + 0.1 * h
        return jnp.sum((h.sum(axis=1) - y) ** 2)

    return jax_case(loss, (data(r, 3 * n),), True)


@program(12, 1000)
def fem_assembly_jax(n):
    """1-D P1 finite elements on ``n`` nodes, a stiffness with the coefficient ``1 + u²``
    at each element's midpoint, scatter-added into the global matrix: the energy
    ``½ uᵀK(u)u - fᵀu``."""
    h = 1.0 / (n - 1)
    elems = np.stack([np.arange(n - 1), np.arange(1, n)], axis=1)
    ke = np.array([[1.0, -1.0], [-1.0, 1.0]]) / h
    f = np.sin(np.linspace(0, np.pi, n)) * h

    def energy(u):
        um = u[elems].mean(axis=1)
        kvals = (1 + um**2)[:, None, None] * ke
        K = jnp.zeros((n, n)).at[elems[:, :, None], elems[:, None, :]].add(kvals)
        return 0.5 * u @ K @ u - f @ u

    return jax_case(energy, (np.cos(np.linspace(0, 3, n)),), True)


@program(12, 300)
def fem_assembly_numpy(n):
    """The same assembly as NumPy users write it: ``np.add.at`` into ``np.zeros((n, n))``
    of element matrices from a Python loop."""
    h = 1.0 / (n - 1)
    f = np.sin(np.linspace(0, np.pi, n)) * h

    def energy(u):
        K = np.zeros((n, n))
        for e in range(n - 1):
            idx = np.array([e, e + 1])
            a = 1 + ((u[e] + u[e + 1]) / 2) ** 2
            ke = a / h * np.array([[1.0, -1.0], [-1.0, 1.0]])
            np.add.at(K, (idx[:, None], idx[None, :]), ke)
        return 0.5 * u @ K @ u - f @ u

    def ref(u):
        um = (u[:-1] + u[1:]) / 2
        a = (1 + um**2) / h
        du = u[1:] - u[:-1]
        return 0.5 * jnp.sum(a * du**2) - jnp.asarray(f) @ u

    return np_case(energy, (np.cos(np.linspace(0, 3, n)),), True, ref)


@program(8, 32)
def conv2d_lax(n):
    """A 2-D convolution layer (NCHW, 2 channels out, SAME padding) on an ``n × n`` image,
    tanh, then a 2×2 average pool by reshape: a vector output."""
    k = data(_rng(n), 2, 1, 3, 3, scale=0.4)

    def layer(x):
        img = x.reshape(1, 1, n, n)
        y = lax.conv_general_dilated(img, k, (1, 1), "SAME")
        y = jnp.tanh(y)
        return y.reshape(2, n // 2, 2, n // 2, 2).mean(axis=(2, 4)).ravel()

    return jax_case(layer, (data(_rng(n, 1), n * n),), False)


@program(16, 2000)
def convolve_smoothing(n):
    """Signal denoising: ``jnp.convolve`` with a fixed kernel (``mode='same'``), a data
    misfit and a smoothed total variation."""
    r = _rng(n)
    y = np.sin(np.linspace(0, 6, n)) + data(r, n, scale=0.1)
    kern = np.array([0.25, 0.5, 0.25])

    def loss(x):
        blurred = jnp.convolve(x, kern, mode="same")
        tv = jnp.sum(jnp.sqrt(jnp.diff(x) ** 2 + 1e-3))
        return 0.5 * jnp.sum((blurred - y) ** 2) + 0.1 * tv

    return jax_case(loss, (y + data(r, n, scale=0.05),), True)


@program(10, 2000)
def interp_polyval(n):
    """``jnp.interp`` of query points moved by the input over a fixed table, plus a
    polynomial in the input by ``jnp.polyval``: a vector output."""
    xp = np.linspace(-3, 3, 17)
    fp = np.tanh(xp)
    coeffs = np.array([0.1, -0.3, 0.5, 1.0])

    def f(x):
        return jnp.interp(x, xp, fp) + jnp.polyval(coeffs, x)

    return jax_case(f, (np.linspace(-2.3, 2.1, n) + 0.013,), False)


@program(12, 2000)
def where_nan_guard(n):
    """The double-``where`` guard against NaN gradients: ``log`` and ``sqrt`` where the
    argument is positive, a constant elsewhere; ``jnp.nan_to_num`` of a ratio."""

    def f(x):
        pos = x > 0
        safe = jnp.where(pos, x, 1.0)
        out = jnp.where(pos, jnp.log(safe) + jnp.sqrt(safe), 0.0)
        ratio = jnp.nan_to_num(jnp.sin(x) / jnp.where(pos, x, 1.0))
        return jnp.sum(out * ratio + x**2)

    return jax_case(f, (np.linspace(-1.5, 2.0, n) + 0.031,), True)


@jax.custom_jvp
def safe_softplus(x):
    return jnp.logaddexp(x, 0.0)


@safe_softplus.defjvp
def _safe_softplus_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return safe_softplus(x), jax.nn.sigmoid(x) * t


@jax.custom_jvp
def safe_log(x):
    return jnp.log(jnp.maximum(x, 1e-12))


@safe_log.defjvp
def _safe_log_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return safe_log(x), t / jnp.maximum(x, 1e-12)


@program(10, 2000)
def custom_jvp_softplus(n):
    """User ``jax.custom_jvp`` functions (a softplus and a guarded log, each with its
    rule) in a Poisson-type loss."""
    r = _rng(n)
    counts = r.poisson(2.0, n).astype(float)

    def loss(x):
        rate = safe_softplus(x)
        return jnp.sum(rate - counts * safe_log(rate))

    return jax_case(loss, (data(r, n),), True)


@program(10, 200)
def vmap_per_sample_loss(n):
    """``jax.vmap`` of a per-sample logistic loss over a batch (the weights the input),
    a mean over samples, an L2 term."""
    r = _rng(n)
    X, y = data(r, 64, n), (r.uniform(size=64) < 0.5).astype(float)

    def per_sample(w, xi, yi):
        z = xi @ w
        return jax.nn.softplus(z) - yi * z

    def loss(w):
        return jnp.mean(jax.vmap(per_sample, in_axes=(None, 0, 0))(w, X, y)) + 0.01 * w @ w

    return jax_case(loss, (data(r, n, scale=0.3),), True)


@program(8, 120)
def gp_solve_triangular(n):
    """A GP's negative log marginal likelihood in the inputs' positions: distances by
    ``jnp.linalg.norm``, a Matérn-3/2 kernel, ``cholesky`` and two ``solve_triangular``."""
    r = _rng(n)
    y = data(r, n)

    def nll(x):
        X = x.reshape(n, 2)
        d = jnp.linalg.norm(X[:, None, :] - X[None, :, :] + 1e-9, axis=-1)
        s = jnp.sqrt(3.0) * d / 0.7
        K = (1 + s) * jnp.exp(-s) + 0.1 * jnp.eye(n)
        L = jnp.linalg.cholesky(K)
        a = jsl.solve_triangular(L, y, lower=True)
        return 0.5 * a @ a + jnp.sum(jnp.log(jnp.diag(L)))

    return jax_case(nll, (data(r, 2 * n),), True)


@program(10, 2000)
def logcumsumexp_cumprod(n):
    """A survival model: hazards by ``lax.cumlogsumexp`` and survival by
    ``jnp.cumprod`` of ``sigmoid``: a vector output."""

    def f(x):
        lcse = lax.cumlogsumexp(x)
        surv = jnp.cumprod(jax.nn.sigmoid(-x))
        return lcse + surv

    return jax_case(f, (data(_rng(n), n),), False)


@program(12, 2000)
def quantile_sort_loss(n):
    """A pinball (quantile) loss on sorted samples (``jnp.sort``) against the normal
    quantiles, the ``jnp.median`` pinned at zero."""
    taus = (np.arange(n) + 0.5) / n
    from scipy.stats import norm

    q = norm.ppf(taus)

    def loss(x):
        s = jnp.sort(x)
        e = q - s
        return jnp.sum(jnp.maximum(taus * e, (taus - 1) * e) + 0.5 * e**2) + jnp.median(x) ** 2

    return jax_case(loss, (data(_rng(n), n),), True)


@program(6, 500)
def scan_dict_carry(n):
    """Leapfrog integration of ``n`` coupled oscillators in ``lax.scan`` with a dict
    carry ``{"q", "p"}`` and the energy of each step stacked: a vector output."""
    dt = 0.05

    def force(q):
        return -jnp.sin(q) - 0.5 * (2 * q - jnp.roll(q, 1) - jnp.roll(q, -1))

    def step(state, _):
        p = state["p"] + 0.5 * dt * force(state["q"])
        q = state["q"] + dt * p
        p = p + 0.5 * dt * force(q)
        e = 0.5 * jnp.sum(p**2) - jnp.sum(jnp.cos(q))
        return {"q": q, "p": p}, e

    def f(x):
        state, energies = lax.scan(step, {"q": x[:n], "p": x[n:]}, None, length=10)
        return jnp.concatenate([state["q"], energies])

    return jax_case(f, (data(_rng(n), 2 * n, scale=0.5),), False)


@program(5, 100)
def softmax_classifier(n):
    """A linear softmax classifier's weights (``n`` features, 4 classes): cross-entropy
    by ``jax.nn.log_softmax`` indexed with integer labels, and ``jax.nn.softmax``'s
    confidence penalty."""
    r = _rng(n)
    X, labels = data(r, 30, n), r.integers(0, 4, 30)

    def loss(w):
        logits = X @ w.reshape(n, 4)
        logp = jax.nn.log_softmax(logits)
        p = jax.nn.softmax(logits)
        ce = -jnp.mean(logp[jnp.arange(30), labels])
        return ce + 0.1 * jnp.mean(jnp.sum(p * logp, axis=1)) + 1e-3 * jnp.sum(w**2)

    return jax_case(loss, (data(r, 4 * n, scale=0.2),), True)


@program(4, 1000)
def rk4_fori_forcing(n):
    """A damped nonlinear chain under forcing ``sin(ω t)``, ``t`` from the loop counter,
    twenty hand-written RK4 steps in ``lax.fori_loop``."""
    dt = 0.02
    omega = np.linspace(1.0, 2.0, n)

    def rhs(t, z):
        q, p = z[:n], z[n:]
        dq = p
        dp = -(q**3) - 0.1 * p + jnp.sin(omega * t)
        return jnp.concatenate([dq, dp])

    def f(z0):
        def body(i, z):
            t = i * dt
            k1 = rhs(t, z)
            k2 = rhs(t + dt / 2, z + dt / 2 * k1)
            k3 = rhs(t + dt / 2, z + dt / 2 * k2)
            k4 = rhs(t + dt, z + dt * k3)
            return z + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)

        return lax.fori_loop(0, 20, body, z0)

    return jax_case(f, (data(_rng(n), 2 * n, scale=0.5),), False)


@program(8, 500)
def huber_optax(n):
    """A Huber regression written as optax writes it (``quadratic = minimum(|e|, δ)``,
    ``½q² + δ(|e| - q)``), over ``n`` weights and 40 samples."""
    r = _rng(n)
    X = data(r, 40, n)
    y = X @ data(r, n) + data(r, 40, scale=2.0)
    delta = 1.0

    def loss(w):
        e = X @ w - y
        a = jnp.abs(e)
        quad = jnp.minimum(a, delta)
        return jnp.mean(0.5 * quad**2 + delta * (a - quad))

    return jax_case(loss, (data(r, n, scale=0.5),), True)


@program(4, 40)
def infonce_normalized(n):
    """An InfoNCE loss of two views' embeddings (``n`` pairs of dimension 6), each row
    normalized by ``jnp.linalg.norm``, cosine similarities over a temperature."""
    r = _rng(n)
    B = data(r, n, 6)

    def loss(a):
        A = a.reshape(n, 6)
        A = A / jnp.linalg.norm(A, axis=1, keepdims=True)
        Bn = B / jnp.linalg.norm(B, axis=1, keepdims=True)
        logits = A @ Bn.T / 0.2
        return jnp.mean(jax.nn.logsumexp(logits, axis=1) - jnp.diag(logits))

    return jax_case(loss, (data(r, 6 * n),), True)


@program(10, 500)
def soft_kmeans_numpy(n):
    """Soft k-means in NumPy: squared distances by broadcasting, responsibilities by a
    stable softmax with ``keepdims``, the weighted distortion of 3 centres in 2-D."""
    pts = np.random.default_rng(n).normal(size=(n, 2))

    def distortion(c):
        C = c.reshape(3, 2)
        d2 = np.sum((pts[:, None, :] - C[None, :, :]) ** 2, axis=-1)
        logits = -d2 / 0.5
        logits = logits - np.max(logits, axis=1, keepdims=True)
        resp = np.exp(logits) / np.sum(np.exp(logits), axis=1, keepdims=True)
        return np.sum(resp * d2) / n

    return np_case(distortion, (np.array([-1.0, 0.0, 1.0, 0.5, 0.0, -1.0]),), True)


@program(5, 1000)
def van_der_pol_numpy(n):
    """A NumPy trajectory: ``n`` van der Pol oscillators, forward Euler in a Python loop
    with ``np.stack``/``np.hstack``, the states of every fifth step kept."""
    mu = np.linspace(0.5, 1.5, n)

    def traj(z):
        x, v = z[:n], z[n:]
        out = []
        for k in range(15):
            x, v = x + 0.05 * v, v + 0.05 * (mu * (1 - x**2) * v - x)
            if k % 5 == 4:
                out.append(np.hstack([x, v]))
        return np.stack(out).ravel()

    return np_case(traj, (data(_rng(n), 2 * n, scale=0.8),), False)


@program(8, 2000)
def contact_cond_vmap(n):
    """A contact penalty per particle by ``lax.cond`` under ``jax.vmap`` (a gap below zero
    pays a cubic penalty, above it a soft barrier), with a ``lax.stop_gradient`` target."""
    target = np.linspace(-0.5, 0.5, n)

    def penalty(g):
        return lax.cond(g < 0, lambda g: -(g**3) * 10.0, lambda g: 0.01 / (1 + g), g)

    def loss(x):
        gaps = x - 0.1 * jnp.roll(x, 1)
        anchor = lax.stop_gradient(jnp.tanh(x))
        return jnp.sum(jax.vmap(penalty)(gaps)) + jnp.sum((x - anchor - target) ** 2)

    return jax_case(loss, (np.linspace(-1.0, 1.3, n) + 0.017,), True)


@program(5, 30)
def slogdet_eigh_spectral(n):
    """A symmetric matrix from its upper triangle's parameters (``jnp.triu_indices``):
    ``jnp.linalg.slogdet`` of its exponential-shifted version and the top two eigenvalues
    by ``jnp.linalg.eigh``."""
    rows, cols = np.triu_indices(n)

    def loss(theta):
        A = jnp.zeros((n, n)).at[rows, cols].set(theta)
        S = A + A.T - jnp.diag(jnp.diag(A)) + n * jnp.eye(n)
        sign, logdet = jnp.linalg.slogdet(S)
        w = jnp.linalg.eigh(S)[0]
        return sign * logdet + jnp.sum(w[-2:] ** 2) / n

    r = _rng(n)
    return jax_case(loss, (data(r, n * (n + 1) // 2, scale=0.3),), True)


@program(10, 2000)
def top_k_hinge(n):
    """A top-k ranking loss: ``lax.top_k`` of scores, a hinge against the k-th score, and
    ``jnp.take_along_axis`` of the ranks back (``jnp.argsort``)."""
    k = 3

    def loss(x):
        top, _ = lax.top_k(x, k)
        order = jnp.argsort(-x)
        ranked = jnp.take_along_axis(x, order, axis=0)
        hinge = jnp.maximum(0.0, 1.0 - (top[:, None] - ranked[None, k:]))
        return jnp.sum(hinge) + 0.1 * jnp.sum(top**2)

    return jax_case(loss, (_rng(n).permutation(n) / n + 0.001 * data(_rng(n, 1), n),), True)


@program(6, 500)
def batchnorm_mlp_numpy(n):
    """A NumPy MLP layer with batch normalization over a batch of ``n`` samples (the
    input), ReLU via ``np.maximum``, and a mean-squared loss."""
    r = _rng(n)
    W = data(r, 3, 4, scale=0.5)
    y = data(r, n)

    def loss(x):
        X = x.reshape(n, 3)
        H = X @ W
        mu = H.mean(axis=0)
        var = H.var(axis=0)
        Hn = (H - mu) / np.sqrt(var + 1e-5)
        out = np.maximum(Hn, 0.0).sum(axis=1)
        return np.mean((out - y) ** 2)

    return np_case(loss, (data(r, 3 * n),), True)


# ---------------------------------------------------------------- the survey

MODES3 = MODES_SIZED


def main(argv: list[str]) -> None:
    SizedSurvey(PROGRAMS, CASES, __file__, rng, cell=7, modes=MODES3).main(argv)


#: each program at its small size, under its name (``dgraph codegen real_programs3.py:NAME``)
CASES = small_cases(PROGRAMS, globals())

if __name__ == "__main__":
    main(sys.argv[1:])
