"""Real programs through dgraph's public API, a seventeenth survey beside ``real_programs.py`` …
``real_programs16.py``: JAX programs that differentiate inside themselves, as physics-informed
and scientific-ML users write them (session 35). A PINN loss whose residual is the Laplacian of
a small tanh MLP in its inputs (Raissi et al. 2019) by ``jax.hessian``, by
``jnp.trace(jax.jacfwd(jax.grad(u)))`` and by a ``jax.jvp``-of-``jax.grad`` loop over unit
vectors, each differentiated in the network's weights; a Hamiltonian neural network
(Greydanus et al. 2019: ``jax.grad(H)`` split into ``∂H/∂q``, ``∂H/∂p``, symplectic Euler
steps, a loss on the trajectory); a Lagrangian neural network (Cranmer et al. 2020:
``jax.hessian(L)`` in ``q̇``, ``jnp.linalg.solve`` for ``q̈``); ``jax.linearize`` and
``jax.vjp`` inside a function (a Gauss-Newton step ``Jᵀr``); ``jax.lax.stop_gradient`` in a
TD target (DQN, Mnih et al. 2015) and a straight-through estimator (Bengio et al. 2013);
``jax.nn.one_hot`` + ``jax.nn.log_softmax`` under a dropout mask of a fixed
``jax.random.PRNGKey``; ``jnp.vectorize`` with a signature beside ``jax.vmap`` with
``in_axes=(0, None)``, ``out_axes=1``; ``jax.lax.map`` of a ``jax.grad``; ``jax.jacrev`` of a
constraint inside a KKT residual; a ``jax.custom_jvp`` implicit function (a root by a
``while_loop``, its tangent by the implicit function theorem); ``jax.checkpoint`` with a
policy; ``jax.named_call`` / ``jax.named_scope``; a PINN whose weights are a pytree rebuilt
by ``ravel_pytree``'s unravel with ``jax.value_and_grad(has_aux=True)``; batch statistics by
``lax.pmean`` / ``lax.psum`` in ``jax.vmap(..., axis_name=...)``; a straight-through
Gumbel-softmax (``jax.random.split``, ``jax.random.gumbel``); ``jax.lax.custom_root`` with a
``while_loop`` Newton solver; a leapfrog ``lax.scan`` with ``jax.grad`` in its body;
``checkpoint_name`` under ``save_only_these_names``; ``jax.linear_transpose`` and
``lax.custom_linear_solve`` of a matrix-free stencil; ``jax.scipy.sparse.linalg.cg``.

Columns are real_programs3's (``SizedSurvey`` of ``benchmarks/real_programs_harness.py``),
every value against ``jax.jacfwd`` / ``jax.hessian`` of the same function, relative 1e-8.

    python benchmarks/real_programs17.py [NAME ...] [--modes=jac,jvp,...] [--limit=SECONDS]
"""

from __future__ import annotations

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
rng = np.random.default_rng(47)


def _rng(n: int, salt: int = 0) -> np.random.Generator:
    return np.random.default_rng(1000 * n + salt + 17)


#: name -> (builder n -> Case, small n, medium n or None)
PROGRAMS: dict[str, tuple[Callable[[int], tuple], int, int | None]] = {}
program = registry(PROGRAMS)


def _mlp(d: int, h: int) -> tuple[int, Callable]:
    """A tanh MLP ``R^d -> R`` of one hidden layer of ``h`` units, its weights one flat
    vector: (their count, ``u(w, x)``)."""

    def u(w, x):
        W1 = w[: d * h].reshape(h, d)
        b1 = w[d * h : d * h + h]
        W2 = w[d * h + h : d * h + 2 * h]
        return W2 @ jnp.tanh(W1 @ x + b1) + w[-1]

    return d * h + 2 * h + 1, u


def _collocation(r: np.random.Generator, k: int, d: int) -> jnp.ndarray:
    return jnp.asarray(r.uniform(-1.0, 1.0, size=(k, d)))


# ---------------------------------------------------------------- PINNs


@program(3, 12)
def pinn_laplacian_hessian(n):
    """A Poisson PINN ``Δu = s`` on 4 collocation points in 2-D: the residual by
    ``jnp.trace(jax.hessian(u)(x))`` in the inputs, ``jax.vmap`` over the points, the mean
    squared residual plus a boundary term; unknowns: the ``n``-unit network's weights."""
    r = _rng(n)
    size, u = _mlp(2, n)
    X = _collocation(r, 4, 2)
    s = jnp.sin(X[:, 0]) * X[:, 1]
    B = jnp.asarray([[1.0, 0.3], [-1.0, -0.2]])

    def f(w):
        lap = jax.vmap(lambda x: jnp.trace(jax.hessian(lambda y: u(w, y))(x)))(X)
        bc = jax.vmap(lambda x: u(w, x))(B)
        return jnp.mean((lap - s) ** 2) + jnp.sum(bc**2)

    return jax_case(f, (data(r, size, scale=0.5),), True)


@program(3, 12)
def pinn_laplacian_jacfwd_grad(n):
    """The Poisson residual vector (one entry per collocation point, a Python loop) by
    ``jnp.trace(jax.jacfwd(jax.grad(u, argnums=1), argnums=1)(w, x))`` plus a nonlinearity
    ``u³`` (a Jacobian in the weights)."""
    r = _rng(n, 1)
    size, u = _mlp(2, n)
    X = _collocation(r, 3, 2)

    def f(w):
        hess = jax.jacfwd(jax.grad(u, argnums=1), argnums=1)
        return jnp.stack([jnp.trace(hess(w, X[i])) + u(w, X[i]) ** 3 for i in range(3)])

    return jax_case(f, (data(r, size, scale=0.5),), False)


@program(3, 12)
def pinn_laplacian_jvp_loop(n):
    """The Laplacian by a ``jax.jvp`` of ``jax.grad(u)`` along each unit vector (a Python
    loop over ``jnp.eye(3)``'s rows, a Hutchinson-free exact trace) in 3-D, a heat-like
    residual ``Δu − u_t`` (``u_t``: ``jax.grad`` of the last input); a scalar of the weights."""
    r = _rng(n, 2)
    size, u = _mlp(3, n)
    X = _collocation(r, 3, 3)

    def f(w):
        def lap(x):
            g = jax.grad(lambda y: u(w, y))
            total = 0.0
            for e in jnp.eye(2, 3):
                total = total + jax.jvp(g, (x,), (e,))[1] @ e
            return total - g(x)[2]

        return jnp.sum(jnp.stack([lap(x) for x in X]) ** 2)

    return jax_case(f, (data(r, size, scale=0.5),), True)


# ---------------------------------------------------------------- HNN / LNN


@program(3, 10)
def hnn_symplectic_euler(n):
    """A Hamiltonian neural network: ``H(q, p) = ½|p|² + MLP(q)`` in 2-D, ``jax.grad(H)``
    split into ``∂H/∂q`` and ``∂H/∂p``, 5 symplectic Euler steps ``p ← p − h ∂H/∂q(q, p)``,
    ``q ← q + h ∂H/∂p(q, p)`` in a Python loop, the squared misfit to a trajectory; unknowns:
    the MLP's weights (``n`` hidden units)."""
    r = _rng(n, 3)
    size, mlp = _mlp(2, n)
    obs = jnp.asarray(r.normal(size=(5, 2)) * 0.3)
    h = 0.1

    def f(w):
        def H(z):
            q, p = z[:2], z[2:]
            return 0.5 * p @ p + mlp(w, q)

        z = jnp.asarray([0.5, -0.2, 0.1, 0.3])
        loss = 0.0
        for t in range(5):
            p = z[2:] - h * jax.grad(H)(z)[:2]
            z = jnp.concatenate([z[:2], p])
            q = z[:2] + h * jax.grad(H)(z)[2:]
            z = jnp.concatenate([q, p])
            loss = loss + jnp.sum((q - obs[t]) ** 2)
        return loss

    return jax_case(f, (data(r, size, scale=0.5),), True)


@program(3, 10)
def lnn_hessian_solve(n):
    """A Lagrangian neural network: ``L(q, q̇) = ½ q̇ᵀ M(q) q̇ − V(q)`` with ``V`` an MLP, the
    accelerations ``q̈ = (∂²L/∂q̇²)⁻¹ (∂L/∂q − ∂²L/∂q̇∂q q̇)`` by ``jax.hessian`` in ``q̇``,
    ``jax.jacfwd(jax.grad)`` for the mixed block and ``jnp.linalg.solve``; the loss on the
    accelerations at 3 states (a scalar of the weights)."""
    r = _rng(n, 4)
    size, V = _mlp(2, n)
    S = jnp.asarray(r.normal(size=(3, 4)) * 0.5)
    target = jnp.asarray(r.normal(size=(3, 2)))

    def f(w):
        def L(q, qd):
            M = jnp.asarray([[2.0, 0.3], [0.3, 1.5]]) + 0.2 * jnp.diag(jnp.cos(q) ** 2)
            return 0.5 * qd @ M @ qd - V(w, q)

        def acc(s):
            q, qd = s[:2], s[2:]
            Hqd = jax.hessian(L, argnums=1)(q, qd)
            mixed = jax.jacfwd(jax.grad(L, argnums=1), argnums=0)(q, qd)
            return jnp.linalg.solve(Hqd, jax.grad(L, argnums=0)(q, qd) - mixed @ qd)

        return jnp.sum((jax.vmap(acc)(S) - target) ** 2)

    return jax_case(f, (data(r, size, scale=0.5),), True)


# ---------------------------------------------------------------- linearize / vjp


@program(4, 30)
def gauss_newton_vjp_linearize(n):
    """One Gauss-Newton-like step inside the function: residuals ``r(x)`` of an exponential
    fit, ``g = Jᵀr`` by ``jax.vjp``, ``J g`` by ``jax.linearize``'s linear map, the step
    ``x − (|g|²/|Jg|²) g`` (steepest descent's exact line search for the linearisation); the
    output the residuals after the step (a Jacobian)."""
    r = _rng(n, 5)
    t = jnp.linspace(0.0, 1.0, n + 2)
    y = jnp.asarray(r.normal(size=n + 2) * 0.1) + jnp.exp(-t)

    def res(x):
        return x[0] * jnp.exp(-x[1] * t) + jnp.sum(x[2:]) * t**2 - y

    def f(x):
        rv, pull = jax.vjp(res, x)
        (g,) = pull(rv)
        _, push = jax.linearize(res, x)
        Jg = push(g)
        return res(x - (g @ g) / (Jg @ Jg) * g)

    return jax_case(f, (data(r, n, scale=0.5) + jnp.asarray([1.0, 1.0] + [0.0] * (n - 2)),), False)


# ---------------------------------------------------------------- stop_gradient


@program(4, 16)
def dqn_td_stop_gradient(n):
    """A DQN loss: ``Q(s; w) = tanh(s W1) W2`` over 3 actions, the TD target
    ``r + γ max_a Q(s'; w)`` under ``jax.lax.stop_gradient``, a Huber loss of the TD error
    at the taken actions (``jnp.take_along_axis``); unknowns: the flat weights."""
    r = _rng(n, 6)
    S, S2 = jnp.asarray(r.normal(size=(5, n))), jnp.asarray(r.normal(size=(5, n)))
    act = jnp.asarray(r.integers(0, 3, size=5))
    rew = jnp.asarray(r.normal(size=5))

    def f(w):
        W1, W2 = w[: 4 * n].reshape(n, 4), w[4 * n :].reshape(4, 3)

        def Q(s):
            return jnp.tanh(s @ W1) @ W2

        target = lax.stop_gradient(rew + 0.9 * jnp.max(Q(S2), axis=1))
        q = jnp.take_along_axis(Q(S), act[:, None], axis=1)[:, 0]
        d = q - target
        return jnp.sum(jnp.where(jnp.abs(d) < 1.0, 0.5 * d**2, jnp.abs(d) - 0.5))

    return jax_case(f, (data(r, 4 * n + 12, scale=0.4),), True)


@program(6, 40)
def straight_through_round(n):
    """A quantisation-aware loss: weights quantised by the straight-through estimator
    ``x + stop_gradient(round(x) − x)`` at 4 levels per unit (``round(4x)/4``), the model
    ``tanh(A w_q)`` fitted to targets plus a ``0.1 |x|²`` penalty on the raw weights."""
    r = _rng(n, 7)
    A = jnp.asarray(r.normal(size=(n + 1, n)) * 0.5)
    y = jnp.asarray(r.normal(size=n + 1) * 0.5)

    def f(x):
        z = 4.0 * x
        wq = (z + lax.stop_gradient(jnp.round(z) - z)) / 4.0
        return jnp.sum((jnp.tanh(A @ wq) - y) ** 2) + 0.1 * x @ x

    return jax_case(f, (data(r, n, scale=0.7) + 0.06,), True)


# ---------------------------------------------------------------- classifiers


@program(3, 16)
def dropout_fixed_key_onehot_ce(n):
    """A two-layer classifier with dropout: a Bernoulli mask of ``jax.random.PRNGKey(42)``
    (``jax.random.bernoulli``, rate 0.25, scaled by 1/0.75) on the hidden units, logits
    ``jax.nn.log_softmax``-normalised, the cross-entropy with ``jax.nn.one_hot`` labels and
    label smoothing 0.1; unknowns: the flat weights (``n`` features)."""
    r = _rng(n, 8)
    X = jnp.asarray(r.normal(size=(6, n)))
    labels = jnp.asarray(r.integers(0, 3, size=6))

    def f(w):
        W1, W2 = w[: 5 * n].reshape(n, 5), w[5 * n :].reshape(5, 3)
        mask = jax.random.bernoulli(jax.random.PRNGKey(42), 0.75, (6, 5))
        hidden = jnp.where(mask, jax.nn.gelu(X @ W1) / 0.75, 0.0)
        logp = jax.nn.log_softmax(hidden @ W2, axis=-1)
        t = 0.9 * jax.nn.one_hot(labels, 3) + 0.1 / 3
        return -jnp.mean(jnp.sum(t * logp, axis=-1))

    return jax_case(f, (data(r, 5 * n + 15, scale=0.5),), True)


# ---------------------------------------------------------------- vectorize / vmap / lax.map


@program(4, 24)
def vectorize_signature_vmap_axes(n):
    """``jnp.vectorize(g, signature="(k),(k)->()")`` of a soft cosine similarity over the rows
    of two ``n × 3`` matrices, then ``jax.vmap(h, in_axes=(0, None), out_axes=1)`` of a
    per-row map ``R³ × R² -> R²`` (a Jacobian of the ``2 × n`` output, flattened)."""
    r = _rng(n, 9)
    B = jnp.asarray(r.normal(size=(n, 3)))
    c = jnp.asarray([0.4, -0.7])

    def f(x):
        A = x.reshape(n, 3)
        g = jnp.vectorize(lambda a, b: a @ b / jnp.sqrt(a @ a + b @ b + 1.0),
                          signature="(k),(k)->()")  # fmt: skip
        s = g(A, B)
        h = jax.vmap(lambda a, cc: jnp.sin(a[:2] * cc) + a[2] * cc, in_axes=(0, None),
                     out_axes=1)  # fmt: skip
        return (h(A, c) * s).ravel()

    return jax_case(f, (data(r, 3 * n),), False)


@program(4, 20)
def lax_map_grad_rows(n):
    """``jax.lax.map`` over the rows of an ``n × 3`` matrix of a ``jax.grad`` of a per-row
    energy (a soft-plus of a quadratic form), the squared norm of the row gradients summed
    (a scalar, its Hessian needs third derivatives of the energy)."""
    r = _rng(n, 10)
    M = jnp.asarray(r.normal(size=(3, 3)) * 0.5)

    def f(x):
        def energy(a):
            return jax.nn.softplus(a @ M @ a) + jnp.sum(jnp.cos(a))

        G = lax.map(jax.grad(energy), x.reshape(n, 3))
        return jnp.sum(G**2)

    return jax_case(f, (data(r, 3 * n, scale=0.6),), True)


# ---------------------------------------------------------------- KKT / implicit / checkpoint


@program(4, 16)
def kkt_residual_jacrev(n):
    """The KKT residual of ``min f(x) s.t. c(x) = 0`` with two constraints: ``∇f(x) +
    J_c(x)ᵀλ`` (``jax.grad`` and ``jax.jacrev`` of the constraint inside) stacked on
    ``c(x)``; unknowns ``(x, λ)`` (a Jacobian: the KKT matrix)."""
    r = _rng(n, 11)
    a = jnp.asarray(r.normal(size=n))

    def obj(x):
        return jnp.sum(jnp.exp(0.3 * x)) + 0.5 * (a @ x) ** 2

    def con(x):
        return jnp.stack([x @ x - 1.0, jnp.sum(jnp.sin(x)) - 0.2])

    def f(z):
        x, lam = z[:n], z[n:]
        return jnp.concatenate([jax.grad(obj)(x) + jax.jacrev(con)(x).T @ lam, con(x)])

    return jax_case(f, (data(r, n + 2, scale=0.5),), False)


@jax.custom_jvp
def _cubic_root(theta):
    """The real root ``y`` of ``y³ + y = θ`` (elementwise) by Newton's method in a
    ``lax.while_loop`` to a tolerance; its tangent by the implicit function theorem."""

    def cond(c):
        y, k = c
        return (jnp.max(jnp.abs(y**3 + y - theta)) > 1e-13) & (k < 50)

    def body(c):
        y, k = c
        return y - (y**3 + y - theta) / (3 * y**2 + 1), k + 1

    return lax.while_loop(cond, body, (theta / 2, 0))[0]


@_cubic_root.defjvp
def _cubic_root_jvp(primals, tangents):
    (theta,), (dtheta,) = primals, tangents
    y = _cubic_root(theta)
    return y, dtheta / (3 * y**2 + 1)


@program(5, 40)
def custom_jvp_implicit_root(n):
    """An implicit layer: ``y = root of y³ + y = θ`` through a ``jax.custom_jvp`` whose rule
    is the implicit function theorem, ``θ = tanh(x) + b``, the objective
    ``Σ y² x + (Σ y)²`` (a scalar)."""
    r = _rng(n, 12)
    b = jnp.asarray(r.normal(size=n))

    def f(x):
        y = _cubic_root(jnp.tanh(x) + b)
        return jnp.sum(y**2 * x) + jnp.sum(y) ** 2

    return jax_case(f, (data(r, n),), True)


@program(4, 24)
def checkpoint_policy_blocks(n):
    """Three residual blocks ``x + W₂ tanh(W₁ x)`` each under ``jax.checkpoint(policy=
    jax.checkpoint_policies.dots_with_no_batch_dims_saveable)``, and a final
    ``jax.checkpoint(prevent_cse=False)`` log-sum-exp head (a scalar)."""
    r = _rng(n, 13)
    Ws = [(jnp.asarray(r.normal(size=(n, n)) * 0.5), jnp.asarray(r.normal(size=(n, n)) * 0.5))
          for _ in range(3)]  # fmt: skip
    policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable

    @jax.checkpoint
    def head(x):
        return jax.nn.logsumexp(x)

    def f(x):
        for W1, W2 in Ws:
            x = jax.checkpoint(lambda v, W1=W1, W2=W2: v + W2 @ jnp.tanh(W1 @ v), policy=policy)(x)
        return jax.checkpoint(head, prevent_cse=False)(x)

    return jax_case(f, (data(r, n, scale=0.5),), True)


@program(4, 24)
def named_call_scope(n):
    """An encoder/decoder under ``jax.named_scope("encoder")`` / ``("decoder")`` with each
    layer a ``jax.named_call(layer, name="dense")``, the reconstruction error plus a
    ``jax.nn.softplus`` code penalty (a scalar)."""
    r = _rng(n, 14)
    We = jnp.asarray(r.normal(size=(2, n)) * 0.5)
    Wd = jnp.asarray(r.normal(size=(n, 2)) * 0.5)
    target = jnp.asarray(r.normal(size=n))

    def layer(W, v):
        return jnp.tanh(W @ v)

    dense = jax.named_call(layer, name="dense")

    def f(x):
        with jax.named_scope("encoder"):
            code = dense(We, x)
        with jax.named_scope("decoder"):
            out = dense(Wd, code) + x
        return jnp.sum((out - target) ** 2) + jnp.sum(jax.nn.softplus(code))

    return jax_case(f, (data(r, n),), True)


@program(4, 16)
def pinn_hessian_f32(n):
    """The Poisson PINN in float32 (weights cast by ``astype(jnp.float32)``): the residual by
    ``jax.hessian`` in the inputs through ``jax.vmap``, mean squared (a scalar)."""
    r = _rng(n, 15)
    size, u = _mlp(2, n)
    X = _collocation(r, 3, 2).astype(jnp.float32)

    def f(w):
        w = w.astype(jnp.float32)
        lap = jax.vmap(lambda x: jnp.trace(jax.hessian(lambda y: u(w, y))(x)))(X)
        return jnp.mean((lap - 1.0) ** 2)

    return jax_case(f, (data(r, size, scale=0.5),), True)


# ---------------------------------------------------------------- pytrees, aux, collectives


@program(3, 12)
def pinn_pytree_params_has_aux(n):
    """A PINN whose weights are a pytree (a list of ``(W, b)`` layers) rebuilt from the flat
    unknowns by ``jax.flatten_util.ravel_pytree``'s unravel; the residual ``u_xx + u_yy`` by
    ``jax.hessian`` and the loss by ``jax.value_and_grad(..., has_aux=True)`` of a boundary
    term in the inputs (its gradient, the Neumann data, enters the loss)."""
    from jax.flatten_util import ravel_pytree

    r = _rng(n, 16)
    layers = [(jnp.zeros((n, 2)), jnp.zeros(n)), (jnp.zeros((1, n)), jnp.zeros(1))]
    flat0, unravel = ravel_pytree(layers)
    X = _collocation(r, 3, 2)

    def f(w):
        params = unravel(w)

        def u(x):
            h = x
            for W, b in params[:-1]:
                h = jnp.tanh(W @ h + b)
            W, b = params[-1]
            return (W @ h + b)[0]

        def boundary(x):
            v = u(x)
            return v**2, v

        lap = jnp.stack([jnp.trace(jax.hessian(u)(x)) for x in X])
        (bval, v0), gx = jax.value_and_grad(boundary, has_aux=True)(X[0])
        return jnp.sum(lap**2) + bval + jnp.sum(gx**2) + 0.1 * v0

    return jax_case(f, (data(r, flat0.size, scale=0.5),), True)


@program(4, 16)
def vmap_axis_name_pmean_batchnorm(n):
    """Batch normalisation inside ``jax.vmap(..., axis_name="batch")``: each sample's
    features centred by ``lax.pmean`` over the batch and scaled by the ``lax.pmean`` of the
    squared deviations, then ``lax.psum`` of a per-sample loss (a scalar of the ``n × 3``
    batch)."""
    r = _rng(n, 17)
    W = jnp.asarray(r.normal(size=(3, 3)) * 0.6)

    def f(x):
        def per(a):
            h = jnp.tanh(W @ a)
            mu = lax.pmean(h, "batch")
            var = lax.pmean((h - mu) ** 2, "batch")
            z = (h - mu) / jnp.sqrt(var + 1e-3)
            return lax.psum(jnp.sum(jnp.sin(z) * a), "batch")

        return jax.vmap(per, axis_name="batch")(x.reshape(n, 3))[0]

    return jax_case(f, (data(r, 3 * n),), True)


@program(4, 20)
def gumbel_straight_through(n):
    """A straight-through Gumbel-softmax (Jang et al. 2017): Gumbel noise of a fixed key
    (``jax.random.split``, ``jax.random.gumbel``), the soft sample ``softmax((l + g)/τ)``, the
    hard one ``jax.nn.one_hot(argmax)``, the sample ``hard − stop_gradient(soft) + soft``
    decoding to a loss (a scalar of the ``n × 3`` logits)."""
    r = _rng(n, 18)
    D = jnp.asarray(r.normal(size=(3, 2)))
    y = jnp.asarray(r.normal(size=(n, 2)))

    def f(x):
        logits = x.reshape(n, 3)
        _, sub = jax.random.split(jax.random.PRNGKey(7))
        g = jax.random.gumbel(sub, (n, 3))
        soft = jax.nn.softmax((logits + g) / 0.5, axis=-1)
        hard = jax.nn.one_hot(jnp.argmax(soft, axis=-1), 3)
        sample = hard - lax.stop_gradient(soft) + soft
        return jnp.sum((sample @ D - y) ** 2) + 0.1 * jnp.sum(logits**2)

    return jax_case(f, (data(r, 3 * n),), True)


@program(4, 30)
def lax_custom_root_newton(n):
    """``jax.lax.custom_root``: the root ``y`` of ``y + 0.3 tanh(y) = θ`` (elementwise) by a
    Newton ``while_loop`` solver, its tangent through ``custom_root``'s implicit
    differentiation with a ``tangent_solve`` (the diagonal linear solve), ``θ = x²/2 + c``;
    the objective ``Σ y³ + y·x`` (a scalar)."""
    r = _rng(n, 19)
    c = jnp.asarray(r.normal(size=n))

    def F(y, theta):
        return y + 0.3 * jnp.tanh(y) - theta

    def f(x):
        theta = 0.5 * x**2 + c

        def solve(g, y0):
            def body(carry):
                y, k = carry
                d = 1.0 + 0.3 * (1.0 - jnp.tanh(y) ** 2)
                return y - g(y) / d, k + 1

            return lax.while_loop(lambda cr: (jnp.max(jnp.abs(g(cr[0]))) > 1e-14) & (cr[1] < 40),
                                  body, (y0, 0))[0]  # fmt: skip

        def tangent_solve(g, b):
            return b / g(jnp.ones_like(b))

        y = lax.custom_root(lambda yy: F(yy, theta), jnp.zeros(n), solve, tangent_solve)
        return jnp.sum(y**3) + y @ x

    return jax_case(f, (data(r, n),), True)


@program(3, 10)
def scan_leapfrog_grad_body(n):
    """A HNN integrated by ``lax.scan``: the body a leapfrog step with ``jax.grad`` of the
    learned potential (an ``n``-unit MLP in 2-D) inside, the positions stacked as the
    scan's output and fitted to data (a scalar of the weights)."""
    r = _rng(n, 20)
    size, V = _mlp(2, n)
    obs = jnp.asarray(r.normal(size=(6, 2)) * 0.3)

    def f(w):
        dV = jax.grad(lambda q: V(w, q))

        def step(carry, _):
            q, p = carry
            p = p - 0.05 * dV(q)
            q = q + 0.1 * p
            p = p - 0.05 * dV(q)
            return (q, p), q

        _, qs = lax.scan(step, (jnp.asarray([0.4, -0.3]), jnp.asarray([0.1, 0.2])), None, 6)
        return jnp.sum((qs - obs) ** 2)

    return jax_case(f, (data(r, size, scale=0.5),), True)


@program(4, 20)
def checkpoint_name_save_only(n):
    """``jax.ad_checkpoint.checkpoint_name`` tags inside a block under ``jax.checkpoint(policy=
    save_only_these_names("pre"))``, the block applied twice and a ``jax.grad`` of it inside
    the objective (a gradient-penalty term ``|∇_x g|²``, as in WGAN-GP, Gulrajani et al.
    2017)."""
    from jax.ad_checkpoint import checkpoint_name

    r = _rng(n, 21)
    W = jnp.asarray(r.normal(size=(n, n)) * 0.5)
    policy = jax.checkpoint_policies.save_only_these_names("pre")

    @jax.checkpoint
    def block(v):
        pre = checkpoint_name(W @ v, "pre")
        return v + jnp.tanh(pre)

    block = jax.checkpoint(block, policy=policy)

    def critic(v):
        return jnp.sum(jnp.sin(block(block(v))))

    def f(x):
        g = jax.grad(critic)(x)
        return critic(x) + (g @ g - 1.0) ** 2

    return jax_case(f, (data(r, n, scale=0.5),), True)


@program(4, 24)
def linear_transpose_custom_linear_solve(n):
    """``jax.linear_transpose`` of a linear map (a tridiagonal stencil with traced
    coefficients) and ``jax.lax.custom_linear_solve`` of it by a fixed number of Jacobi
    sweeps, the solve's transpose by the transposed map; a vector output (a Jacobian)."""
    r = _rng(n, 22)
    rhs = jnp.asarray(r.normal(size=n))

    def f(x):
        a = 3.0 + x**2

        def mv(v):
            return a * v - 0.5 * jnp.roll(v, 1) - 0.3 * jnp.roll(v, -1)

        mvT = jax.linear_transpose(mv, rhs)

        def jacobi(matvec, b):
            v = b / a
            for _ in range(30):
                v = v + (b - matvec(v)) / a
            return v

        sol = lax.custom_linear_solve(mv, rhs + x, jacobi, jacobi)
        return jnp.concatenate([sol, mvT(sol)[0]])

    return jax_case(f, (data(r, n, scale=0.5),), False)


@program(5, 30)
def cg_matrix_free_objective(n):
    """``jax.scipy.sparse.linalg.cg`` of a matrix-free SPD operator, the symmetric part (by
    ``jax.linear_transpose``) of ``v ↦ (2 + x²) v + 0.4 (v − roll(v))`` plus a rank-one
    term ``0.3 (x·v) x`` (tolerance 1e-14), a scalar
    ``bᵀy + Σ y² x`` of the solution (its Hessian: the solve's second derivative)."""
    r = _rng(n, 23)
    b = jnp.asarray(r.normal(size=n))

    def f(x):
        def op(v):
            return (2.0 + x**2) * v + 0.4 * (v - jnp.roll(v, 1)) + 0.3 * (x @ v) * x

        def sym(v):
            return 0.5 * (op(v) + jax.linear_transpose(op, v)(v)[0])

        y, _ = jax.scipy.sparse.linalg.cg(sym, b, tol=1e-14, maxiter=200)
        return b @ y + jnp.sum(y**2 * x)

    return jax_case(f, (data(r, n, scale=0.5),), True)


# ---------------------------------------------------------------- the survey

#: each program at its small size, under its name (``dgraph codegen real_programs17.py:NAME``)
CASES = small_cases(PROGRAMS, globals())

if __name__ == "__main__":
    survey = SizedSurvey(PROGRAMS, CASES, __file__, rng, cell=7, modes=MODES_SIZED)
    survey.main(sys.argv[1:])
