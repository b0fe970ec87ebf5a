"""Real programs through dgraph's public API, as a reviewer would run them: 34 NumPy and JAX
programs of the kinds users write (MLPs with layernorm, attention, weighted regression
losses, a Gaussian NLL, a GP's Cholesky NLL, RK4 and Euler steps in Python loops, heat and
Burgers residuals with roll/pad/slices, lattice and particle energies, n-body forces,
kinematics, Black-Scholes with erf, a Kalman update with solve, scan / fori_loop /
while_loop, einsum, norms, a float32 conv inside scan), each through
``make_function(f, mode, lang, point=[x])`` for ``jacobian``/``jvp``/``vjp`` in ``python``
and ``jacobian`` in ``jax``, ``dgraph.jacobian(f, point=[x])`` where the graph is of
scalars, ``dgraph.hessian(f, x)`` dense and sparse for the scalar objectives, and
``dgraph codegen benchmarks/real_programs.py:NAME --inputs ARG:SHAPE -o FILE`` (in this
process); every value against JAX (``jax.jacfwd``, ``jax.hessian``; J·v, wᵀJ from them),
relative error under 1e-8 (1e-5 for the float32 program).

Prints a matrix: one row per program, one column per call, each cell ``ok``, ``refused``
(a DGraphError of one line, printed below), ``WRONG`` (the error, below), ``ERROR`` (any
other exception, or a message of several lines), ``HANG`` (over ``--limit`` seconds),
``-`` (not applicable: no Hessian of a vector function, no expression set of a tensor
graph), and the totals. A graph of scalars is called with flat vectors (its documented
convention), a tensor graph with arrays of the arguments' shapes. The harness, shared with
``benchmarks/real_programs2.py``: ``benchmarks/real_programs_harness.py``.

    python benchmarks/real_programs.py [NAME ...] [--modes=jac,jvp,...] [--limit=SECONDS]
"""

from __future__ import annotations

import sys
import warnings

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.scipy.special import erf, logsumexp

warnings.filterwarnings("ignore")
jax.config.update("jax_enable_x64", True)
rng = np.random.default_rng(7)


def data(*shape, scale=1.0):
    return rng.normal(size=shape) * scale


# ---------------------------------------------------------------- machine learning

W1, b1 = data(8, 16, scale=0.4), data(16, scale=0.1)
W2, b2 = data(16, 4, scale=0.3), data(4, scale=0.1)
gamma, beta = 1.0 + data(16, scale=0.1), data(16, scale=0.1)


def layernorm(h, eps=1e-5):
    mu = jnp.mean(h, axis=-1, keepdims=True)
    var = jnp.var(h, axis=-1, keepdims=True)
    return gamma * (h - mu) / jnp.sqrt(var + eps) + beta


def mlp_layernorm(x):
    h = jax.nn.gelu(x @ W1 + b1)
    h = layernorm(h)
    return jax.nn.softplus(h @ W2 + b2)


Wq, Wk, Wv = data(6, 4, scale=0.5), data(6, 4, scale=0.5), data(6, 4, scale=0.5)


def attention(X):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    scores = Q @ K.T / jnp.sqrt(Q.shape[-1])
    return jax.nn.softmax(scores, axis=-1) @ V


Xd = data(30, 5)
yd = (rng.uniform(size=30) < 0.5).astype(float) * 2 - 1
sw = rng.uniform(0.5, 2.0, 30)
counts = rng.poisson(2.0, 30).astype(float)


def logistic_loss(w):
    margins = yd * (Xd @ w)
    return jnp.sum(sw * jnp.log1p(jnp.exp(-margins))) / jnp.sum(sw) + 0.01 * jnp.dot(w, w)


def poisson_loss(w):
    eta = Xd @ w
    return jnp.mean(sw * (jnp.exp(eta) - counts * eta)) + 0.5e-2 * jnp.sum(w**2)


ygauss = data(10)


def gaussian_nll(theta):
    mu, log_sigma = theta[:10], theta[10:]
    sigma = jnp.exp(log_sigma)
    z = (ygauss - mu) / sigma
    return jnp.sum(0.5 * z**2 + log_sigma + 0.5 * jnp.log(2 * jnp.pi))


labels = jnp.array([2, 0, 1, 4, 3])


def cross_entropy(logits_flat):
    logits = logits_flat.reshape(5, 5)
    logp = logits - logsumexp(logits, axis=1, keepdims=True)
    return -jnp.mean(logp[jnp.arange(5), labels])


def huber(r, delta=1.0):
    a = jnp.abs(r)
    return jnp.where(a <= delta, 0.5 * r**2, delta * (a - 0.5 * delta))


def piecewise(x):
    relu = jnp.maximum(x, 0.0)
    leaky = jnp.where(x > 0, x, 0.01 * x)
    clipped = jnp.clip(x, -0.5, 0.5)
    return huber(x) + relu * leaky + clipped


Xgp = np.linspace(0, 1, 6)
ygp = np.sin(6 * Xgp)


def gp_nll(log_params):
    ell, sf, sn = jnp.exp(log_params)
    d2 = (Xgp[:, None] - Xgp[None, :]) ** 2
    K = sf**2 * jnp.exp(-0.5 * d2 / ell**2) + (sn**2 + 1e-6) * jnp.eye(6)
    L = jnp.linalg.cholesky(K)
    alpha = jnp.linalg.solve(K, ygp)
    return 0.5 * ygp @ alpha + jnp.sum(jnp.log(jnp.diag(L)))


# ---------------------------------------------------------------- ODE steps


def lotka_volterra(z, a=1.1, b=0.4, c=0.4, d=0.1):
    x, y = z[0], z[1]
    return jnp.array([a * x - b * x * y, d * x * y - c * y])


def rk4_step(f, z, dt):
    k1 = f(z)
    k2 = f(z + dt / 2 * k1)
    k3 = f(z + dt / 2 * k2)
    k4 = f(z + dt * k3)
    return z + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


def rk4_lotka_volterra(z):
    return rk4_step(lotka_volterra, z, 0.1)


def pendulum_rhs(s, g=9.81, length=1.0, damping=0.2):
    theta, omega = s
    return jnp.stack([omega, -g / length * jnp.sin(theta) - damping * omega])


def rk4_pendulum(s):
    for _ in range(3):
        s = rk4_step(pendulum_rhs, s, 0.05)
    return s


def euler_van_der_pol(z, mu=1.5, dt=0.01):
    x, v = z[0], z[1]
    for _ in range(20):
        x, v = x + dt * v, v + dt * (mu * (1 - x**2) * v - x)
    return jnp.array([x, v])


# ---------------------------------------------------------------- PDE residuals


def heat1d_roll(u, nu=0.1, dx=0.1):
    lap = (jnp.roll(u, -1) - 2 * u + jnp.roll(u, 1)) / dx**2
    return nu * lap - u**3


def burgers1d(u, nu=0.01, dx=0.05):
    ue = jnp.pad(u, 1, mode="edge")
    dudx = (ue[2:] - ue[:-2]) / (2 * dx)
    d2 = (ue[2:] - 2 * ue[1:-1] + ue[:-2]) / dx**2
    return -u * dudx + nu * d2


def heat2d(u_flat, n=8, h=1.0 / 9):
    u = u_flat.reshape(n, n)
    up = jnp.pad(u, 1)
    lap = (up[2:, 1:-1] + up[:-2, 1:-1] + up[1:-1, 2:] + up[1:-1, :-2] - 4 * u) / h**2
    return (lap + jnp.exp(u)).ravel()


def heat1d_numpy(u):
    r = np.zeros_like(u)
    r[1:-1] = u[:-2] - 2 * u[1:-1] + u[2:] + 0.1 * np.exp(u[1:-1])
    r[0], r[-1] = u[0], u[-1]
    return r


# ---------------------------------------------------------------- physics


def ising_energy(s_flat, J=1.0, h=0.1):
    s = jnp.tanh(s_flat.reshape(4, 4))
    bonds = s * jnp.roll(s, 1, axis=0) + s * jnp.roll(s, 1, axis=1)
    return -J * jnp.sum(bonds) - h * jnp.sum(s)


def lennard_jones(x_flat, eps=1.0, sigma=1.0):
    x = x_flat.reshape(-1, 2)
    n = x.shape[0]
    i, j = jnp.triu_indices(n, k=1)
    r = jnp.linalg.norm(x[i] - x[j], axis=-1)
    sr6 = (sigma / r) ** 6
    return jnp.sum(4 * eps * (sr6**2 - sr6))


masses = rng.uniform(1.0, 2.0, 5)


def nbody_forces(x_flat, G=1.0, soft=0.1):
    x = x_flat.reshape(5, 3)
    d = x[None, :, :] - x[:, None, :]
    r2 = jnp.sum(d**2, axis=-1) + soft**2
    inv = r2**-1.5
    F = G * masses[:, None] * jnp.einsum("ij,ijk->ik", masses[None, :] * inv, d)
    return F.ravel()


def rot(t):
    c, s = jnp.cos(t), jnp.sin(t)
    return jnp.array([[c, -s], [s, c]])


def robot_arm(q, lengths=(1.0, 0.8, 0.5)):
    T = jnp.eye(2)
    p = jnp.zeros(2)
    for qi, li in zip(q, lengths, strict=True):
        T = T @ rot(qi)
        p = p + T @ jnp.array([li, 0.0])
    return p


def robot_arm_numpy(q):
    angles = np.cumsum(q)
    lengths = np.array([1.0, 0.8, 0.5])
    return np.array([np.sum(lengths * np.cos(angles)), np.sum(lengths * np.sin(angles))])


springs_i = np.array([0, 1, 2, 3, 0, 1])
springs_j = np.array([1, 2, 3, 0, 2, 3])


def spring_network(x_flat, k=2.0, rest=1.0):
    x = x_flat.reshape(4, 2)
    lengths = jnp.linalg.norm(x[springs_i] - x[springs_j], axis=1)
    return 0.5 * k * jnp.sum((lengths - rest) ** 2)


# ---------------------------------------------------------------- finance, filters, loops


def norm_cdf(z):
    return 0.5 * (1 + erf(z / jnp.sqrt(2.0)))


def black_scholes(p):
    S, K, T, r, sigma = p.reshape(5, -1)
    d1 = (jnp.log(S / K) + (r + 0.5 * sigma**2) * T) / (sigma * jnp.sqrt(T))
    d2 = d1 - sigma * jnp.sqrt(T)
    return S * norm_cdf(d1) - K * jnp.exp(-r * T) * norm_cdf(d2)


F_kf = np.array([[1, 0.1, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.1], [0, 0, 0, 1.0]])
H_kf = np.array([[1.0, 0, 0, 0], [0, 0, 1.0, 0]])
Q_kf, R_kf = 0.01 * np.eye(4), 0.1 * np.eye(2)
z_kf = np.array([0.3, -0.2])


def kalman_update(theta):
    x, L = theta[:4], theta[4:].reshape(4, 4)
    P = L @ L.T + 0.1 * jnp.eye(4)
    x, P = F_kf @ x, F_kf @ P @ F_kf.T + Q_kf
    S = H_kf @ P @ H_kf.T + R_kf
    K = jnp.linalg.solve(S, H_kf @ P).T
    x = x + K @ (z_kf - H_kf @ x)
    P = (jnp.eye(4) - K @ H_kf) @ P
    return jnp.concatenate([x, P.ravel()])


Wh, Wx, bh = data(4, 4, scale=0.5), data(3, 4, scale=0.5), data(4, scale=0.1)


def rnn_scan(xs_flat):
    xs = xs_flat.reshape(6, 3)

    def cell(h, x):
        h = jnp.tanh(h @ Wh + x @ Wx + bh)
        return h, h

    h, hs = lax.scan(cell, jnp.zeros(4), xs)
    return jnp.sum(hs**2, axis=1) + h[0]


def newton_fori(a):
    def body(_, x):
        return x - (x**3 + a * x - 2.0) / (3 * x**2 + a)

    return lax.fori_loop(0, 8, body, jnp.ones_like(a))


def fixed_point_while(c):
    def cond(state):
        x, x_old, k = state
        return (jnp.max(jnp.abs(x - x_old)) > 1e-10) & (k < 100)

    def body(state):
        x, _, k = state
        return jnp.cos(c * x), x, k + 1

    x, _, _ = lax.while_loop(cond, body, (jnp.zeros_like(c), jnp.ones_like(c), 0))
    return x


Tc = data(3, 4, 5, scale=0.5)


def einsum_contractions(x):
    A = x[:12].reshape(3, 4)
    v = x[12:17]
    B = jnp.einsum("ij,ijk->k", A, Tc)
    C = jnp.einsum("ij,kj->ik", A, A)
    return jnp.concatenate([B * v, jnp.einsum("ii->", C)[None]])


def normalize_rows(x):
    X = x.reshape(4, 3)
    norms = jnp.linalg.norm(X, axis=1, keepdims=True)
    return (X / norms).ravel() + jnp.linalg.norm(X)


def trapezoid_returns(x, gamma=0.9):
    disc = gamma ** jnp.arange(x.shape[0])
    returns = jnp.cumsum((disc * x)[::-1])[::-1] / disc
    return jnp.concatenate([returns, jnp.array([jnp.trapezoid(x**2, dx=0.1)])])


def quaternion_rotate(q):
    q = q / jnp.linalg.norm(q)
    w, x, y, z = q
    R = jnp.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )
    pts = jnp.array([[1.0, 0, 0], [0, 1.0, 0], [0.5, 0.5, 1.0]])
    return (pts @ R.T).ravel()


def vmap_mlp(xb_flat):
    xb = xb_flat.reshape(3, 8)
    return jax.vmap(lambda x: jnp.tanh(x @ W1) @ W2[:, 0])(xb)


def rosenbrock_numpy(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def softmax_numpy(z):
    e = np.exp(z - np.max(z))
    return e / np.sum(e)


kernel = data(8, 8, 3, scale=0.3)  # (out, in, width)


def conv_scan(u_flat):
    u = u_flat.astype(jnp.float32).reshape(1, 8, 16)  # (batch, channels, width)

    def step(u, _):
        du = lax.conv_general_dilated(
            u, kernel.astype(jnp.float32), (1,), "SAME", dimension_numbers=("NCH", "OIH", "NCH")
        )
        return jnp.tanh(3.0 * u + 0.5 * du), None

    u, _ = lax.scan(step, u, None, length=8)
    return u.ravel()


def heat1d_jax(u):
    r = u.at[1:-1].set(u[:-2] - 2 * u[1:-1] + u[2:] + 0.1 * jnp.exp(u[1:-1]))
    return r


def robot_arm_jax(q):
    angles = jnp.cumsum(q)
    lengths = jnp.array([1.0, 0.8, 0.5])
    return jnp.array([jnp.sum(lengths * jnp.cos(angles)), jnp.sum(lengths * jnp.sin(angles))])


def rosenbrock_jax(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def softmax_jax(z):
    e = jnp.exp(z - jnp.max(z))
    return e / jnp.sum(e)


REFERENCE = {  # the JAX twin of each NumPy program, for jax.jacfwd
    heat1d_numpy: heat1d_jax,
    robot_arm_numpy: robot_arm_jax,
    rosenbrock_numpy: rosenbrock_jax,
    softmax_numpy: softmax_jax,
}


def positive(n, lo=0.5, hi=1.5):
    return rng.uniform(lo, hi, n)


# name: (function, example argument, is the output a scalar)
PROGRAMS = {
    "mlp_layernorm_gelu": (mlp_layernorm, data(8), False),
    "attention": (attention, data(4, 6), False),
    "logistic_weighted": (logistic_loss, data(5, scale=0.3), True),
    "poisson_regression": (poisson_loss, data(5, scale=0.2), True),
    "gaussian_nll": (gaussian_nll, data(20, scale=0.5), True),
    "cross_entropy_lse": (cross_entropy, data(25), True),
    "piecewise_where": (piecewise, np.linspace(-2, 2, 9) + 0.01, False),
    "gp_nll_cholesky": (gp_nll, np.log(np.array([0.3, 1.0, 0.1])), True),
    "rk4_lotka_volterra": (rk4_lotka_volterra, np.array([10.0, 5.0]), False),
    "rk4_pendulum_loop": (rk4_pendulum, np.array([0.8, -0.3]), False),
    "euler_van_der_pol": (euler_van_der_pol, np.array([1.0, 0.5]), False),
    "heat1d_roll": (heat1d_roll, data(32, scale=0.3), False),
    "burgers1d_pad": (burgers1d, np.sin(np.linspace(0, 2 * np.pi, 24)), False),
    "heat2d_pad": (heat2d, data(64, scale=0.1), False),
    "heat1d_numpy_setitem": (heat1d_numpy, data(16, scale=0.3), False),
    "ising_tanh": (ising_energy, data(16), True),
    "lennard_jones": (
        lennard_jones,
        (np.mgrid[0:3, 0:2].reshape(2, -1).T * 1.1).ravel() + data(12, scale=0.05),
        True,
    ),
    "nbody_forces": (nbody_forces, data(15), False),
    "robot_arm_fk": (robot_arm, np.array([0.3, -0.5, 0.9]), False),
    "robot_arm_numpy": (robot_arm_numpy, np.array([0.3, -0.5, 0.9]), False),
    "spring_network": (
        spring_network,
        np.array([0, 0, 1, 0, 1, 1, 0, 1.0]) + data(8, scale=0.1),
        True,
    ),
    "black_scholes_erf": (
        black_scholes,
        np.concatenate(
            [
                positive(3, 90, 110),
                positive(3, 95, 105),
                positive(3, 0.5, 2),
                positive(3, 0.01, 0.05),
                positive(3, 0.1, 0.4),
            ]
        ),
        False,
    ),
    "kalman_solve": (kalman_update, data(20, scale=0.5), False),
    "rnn_lax_scan": (rnn_scan, data(18), False),
    "newton_fori_loop": (newton_fori, positive(6), False),
    "fixed_point_while": (fixed_point_while, positive(4, 0.2, 0.8), False),
    "einsum_contractions": (einsum_contractions, data(17), False),
    "norm_rows": (normalize_rows, data(12), False),
    "discounted_cumsum": (trapezoid_returns, data(8), False),
    "quaternion_rotation": (quaternion_rotate, data(4), False),
    "vmap_mlp": (vmap_mlp, data(24), False),
    "rosenbrock_numpy": (rosenbrock_numpy, positive(6), True),
    "softmax_numpy": (softmax_numpy, data(6), False),
    "conv_scan_f32": (conv_scan, data(128, scale=0.5), False),
}

if __name__ == "__main__":
    from real_programs_harness import Survey

    cases = {n: (f, (x,), s, REFERENCE.get(f, f)) for n, (f, x, s) in PROGRAMS.items()}
    Survey(cases, __file__, rng, cell=11, clip=(200, 300)).main(sys.argv[1:])
