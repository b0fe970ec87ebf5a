"""Real programs through dgraph's public API, a second survey beside
``benchmarks/real_programs.py`` (same calls, same cells), of kinds that one does not hold:
finite-volume residuals assigned into ``np.zeros_like``, minmod-limited fluxes with
``np.where``, log-sum-exp and cross-entropy with integer labels in NumPy, LSTM steps
unrolled and in ``lax.scan``, a GP's NLL and a Kalman step with ``np.linalg``, a
chemical-kinetics right side, a spring network with ``np.add.at`` and with
``jax.ops.segment_sum``, n-body forces with ``np.linalg.norm(axis=...)``, ``np.einsum``,
``np.cumsum``/``np.diff``, ``np.clip``/``np.maximum``/``np.abs``, ``np.outer``/
``np.kron``, ``np.tile``/``np.repeat``, periodic stencils with ``np.roll``,
``np.stack``/``np.concatenate``, constant boolean masks, integer powers and
``np.sqrt(x**2 + eps)``, keyword-only parameters with defaults, and functions of several
arrays. NumPy programs are written with ``import numpy as np`` and compared with a JAX
twin (the same code with ``jnp``, or written out where NumPy assigns in place).

Each program through ``make_function(f, "jacobian"|"jvp"|"vjp", point=[...])``,
``make_function(f, "jacobian", "jax", point=...)``, ``dgraph.jacobian(f, point=...)
.evaluate``, ``dgraph.hessian(f, *args)`` dense and ``sparse=True`` (scalar ones) and
``dgraph codegen benchmarks/real_programs2.py:NAME --inputs ARG:SHAPE,... -o FILE``; every
value against ``jax.jacfwd`` / ``jax.hessian`` over all the arguments (relative 1e-8).
The harness, shared with ``benchmarks/real_programs.py``:
``benchmarks/real_programs_harness.py``.

    python benchmarks/real_programs2.py [NAME ...] [--modes=jac,jvp,...] [--limit=SECONDS]
"""

from __future__ import annotations

import sys
import warnings

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

warnings.filterwarnings("ignore")
jax.config.update("jax_enable_x64", True)
rng = np.random.default_rng(11)


def data(*shape, scale=1.0):
    return rng.normal(size=shape) * scale


# ---------------------------------------------------------------- finite volumes


def fv_diffusion_setitem(u):
    r = np.zeros_like(u)
    r[1:-1] = u[2:] - 2 * u[1:-1] + u[:-2]
    r[0] = u[1] - u[0]
    r[-1] = u[-2] - u[-1]
    return r


def fv_diffusion_jax(u):
    r = jnp.zeros_like(u)
    r = r.at[1:-1].set(u[2:] - 2 * u[1:-1] + u[:-2])
    return r.at[0].set(u[1] - u[0]).at[-1].set(u[-2] - u[-1])


def fv_reaction_setitem(u, dx=0.1, k=0.5):
    r = np.zeros_like(u)
    r[1:-1] = (u[2:] - 2 * u[1:-1] + u[:-2]) / dx**2 - k * u[1:-1] ** 2
    return r


def fv_reaction_jax(u, dx=0.1, k=0.5):
    inner = (u[2:] - 2 * u[1:-1] + u[:-2]) / dx**2 - k * u[1:-1] ** 2
    return jnp.zeros_like(u).at[1:-1].set(inner)


def minmod(a, b):
    return np.where(a * b > 0, np.sign(a) * np.minimum(np.abs(a), np.abs(b)), 0.0)


def muscl_minmod(u, dx=0.1):
    du = np.diff(u)
    slope = minmod(du[:-1], du[1:])
    left = u[1:-1] + 0.5 * slope  # right face values of the interior cells
    flux = 0.5 * left**2  # Burgers' flux
    return -np.diff(flux) / dx


def minmod_jax(a, b):
    return jnp.where(a * b > 0, jnp.sign(a) * jnp.minimum(jnp.abs(a), jnp.abs(b)), 0.0)


def muscl_minmod_jax(u, dx=0.1):
    du = jnp.diff(u)
    slope = minmod_jax(du[:-1], du[1:])
    left = u[1:-1] + 0.5 * slope
    return -jnp.diff(0.5 * left**2) / dx


def periodic_laplacian_2d(u_flat, h=0.25):
    u = u_flat.reshape(6, 6)
    lap = (
        np.roll(u, 1, axis=0) + np.roll(u, -1, axis=0) + np.roll(u, 1, axis=1)
        + np.roll(u, -1, axis=1) - 4 * u
    ) / h**2  # fmt: skip
    return (lap - u**3).ravel()


# ---------------------------------------------------------------- machine learning


def logsumexp_numpy(z):
    m = np.max(z)
    return m + np.log(np.sum(np.exp(z - m)))


labels = np.array([2, 0, 3, 1, 3])


def cross_entropy_labels(logits_flat):
    logits = logits_flat.reshape(5, 4)
    shifted = logits - logits.max(axis=1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return -np.mean(logp[np.arange(5), labels])


onehot = np.eye(4)[labels]


def cross_entropy_onehot(logits_flat):
    logits = logits_flat.reshape(5, 4)
    logp = jax.nn.log_softmax(logits, axis=-1)
    return -jnp.sum(onehot * logp) / 5


def cross_entropy_take_along(logits_flat):
    logits = logits_flat.reshape(5, 4)
    logp = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], axis=1))


Wl, Ul, bl = data(3, 16, scale=0.4), data(4, 16, scale=0.4), data(16, scale=0.1)


def sigmoid(z):
    return 1 / (1 + np.exp(-z))


def lstm_unrolled_numpy(xs_flat):
    xs = xs_flat.reshape(4, 3)
    h, c = np.zeros(4), np.zeros(4)
    for t in range(4):
        z = xs[t] @ Wl + h @ Ul + bl
        i, f, o, g = sigmoid(z[:4]), sigmoid(z[4:8]), sigmoid(z[8:12]), np.tanh(z[12:])
        c = f * c + i * g
        h = o * np.tanh(c)
    return h


def lstm_scan(xs_flat):
    xs = xs_flat.reshape(4, 3)

    def cell(carry, x):
        h, c = carry
        z = x @ Wl + h @ Ul + bl
        i, f, o = jax.nn.sigmoid(z[:4]), jax.nn.sigmoid(z[4:8]), jax.nn.sigmoid(z[8:12])
        c = f * c + i * jnp.tanh(z[12:])
        h = o * jnp.tanh(c)
        return (h, c), h

    (_, c), hs = lax.scan(cell, (jnp.zeros(4), jnp.zeros(4)), xs)
    return jnp.concatenate([hs.ravel(), c])


Xr, yr = data(12, 3), data(12)


def ridge_several(w, b, *, lam=0.1):
    r = Xr @ w + b - yr
    return np.mean(r**2) + lam * np.sum(w**2)


# ---------------------------------------------------------------- statistics, filters

Xgp = np.linspace(0, 1, 5)
ygp = np.cos(4 * Xgp)


def gp_nll_numpy(log_params):
    ell, sf, sn = np.exp(log_params)
    d2 = (Xgp[:, None] - Xgp[None, :]) ** 2
    K = sf**2 * np.exp(-0.5 * d2 / ell**2) + (sn**2 + 1e-6) * np.eye(5)
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(K, ygp)
    return 0.5 * ygp @ alpha + np.sum(np.log(np.diag(L)))


F_kf = np.array([[1, 0.1], [0, 1.0]])
H_kf = np.array([[1.0, 0.0]])


def kalman_step_numpy(theta):
    x, P = theta[:2], theta[2:].reshape(2, 2)
    P = 0.5 * (P + P.T) + np.eye(2)
    x, P = F_kf @ x, F_kf @ P @ F_kf.T + 0.01 * np.eye(2)
    S = H_kf @ P @ H_kf.T + 0.1
    K = P @ H_kf.T @ np.linalg.inv(S)
    x = x + K @ (np.array([0.4]) - H_kf @ x)
    P = (np.eye(2) - K @ H_kf) @ P
    return np.concatenate([x, P.ravel()])


# ---------------------------------------------------------------- physics and chemistry

S_chem = np.array([[-1, 0, 1], [-1, 1, 0], [1, -1, 0], [0, 1, -1.0]])  # species x reactions
k_chem = np.array([1.5, 0.7, 0.3])


def chem_kinetics(c):
    rates = k_chem * np.array([c[0] * c[1], c[2], c[3] ** 2])
    return S_chem @ rates


orders = np.array([[1, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 2]])


def chem_kinetics_prod(c):
    rates = k_chem * np.prod(c[None, :] ** orders, axis=1)
    return S_chem @ rates


edges_i = np.array([0, 1, 2, 3, 0])
edges_j = np.array([1, 2, 3, 0, 2])


def spring_forces_add_at(x_flat, k=3.0, rest=1.0):
    x = x_flat.reshape(4, 2)
    d = x[edges_j] - x[edges_i]
    length = np.sqrt(np.sum(d**2, axis=1))
    f = (k * (length - rest) / length)[:, None] * d
    forces = np.zeros_like(x)
    np.add.at(forces, edges_i, f)
    np.add.at(forces, edges_j, -f)
    return forces.ravel()


def spring_forces_jax(x_flat, k=3.0, rest=1.0):
    x = x_flat.reshape(4, 2)
    d = x[edges_j] - x[edges_i]
    length = jnp.sqrt(jnp.sum(d**2, axis=1))
    f = (k * (length - rest) / length)[:, None] * d
    forces = jnp.zeros_like(x).at[edges_i].add(f).at[edges_j].add(-f)
    return forces.ravel()


def spring_forces_segment_sum(x_flat, k=3.0, rest=1.0):
    x = x_flat.reshape(4, 2)
    d = x[edges_j] - x[edges_i]
    length = jnp.linalg.norm(d, axis=1)
    f = (k * (length - rest) / length)[:, None] * d
    forces = jax.ops.segment_sum(f, edges_i, 4) - jax.ops.segment_sum(f, edges_j, 4)
    return forces.ravel()


masses = rng.uniform(1.0, 2.0, 4)


def nbody_numpy(x_flat, soft=0.1):
    x = x_flat.reshape(4, 3)
    d = x[None, :, :] - x[:, None, :]
    r = np.sqrt(np.linalg.norm(d, axis=-1) ** 2 + soft**2)
    acc = np.sum(masses[None, :, None] * d / r[:, :, None] ** 3, axis=1)
    return acc.ravel()


def nbody_jax(x_flat, soft=0.1):  # JAX's norm has a NaN derivative at the zero d_ii
    x = x_flat.reshape(4, 3)
    d = x[None, :, :] - x[:, None, :]
    r = jnp.sqrt(jnp.sum(d**2, axis=-1) + soft**2)
    return jnp.sum(masses[None, :, None] * d / r[:, :, None] ** 3, axis=1).ravel()


def nbody_energy(x_flat, soft=0.1):
    x = x_flat.reshape(4, 3)
    d = x[None, :, :] - x[:, None, :]
    r = np.sqrt(np.sum(d**2, axis=-1) + soft**2)
    return -0.5 * np.sum(np.outer(masses, masses) / r)


# ---------------------------------------------------------------- array vocabulary

Tn = data(3, 4, scale=0.5)


def einsum_numpy(x):
    A = x[:12].reshape(3, 4)
    B = np.einsum("ij,kj->ik", A, A)  # A Aᵀ
    v = np.einsum("ij,ij->i", A, Tn)
    return np.concatenate([B.ravel(), v, [np.einsum("ii", B)]])


def cumsum_diff(x):
    c = np.cumsum(x**2)
    return np.concatenate([np.diff(c * x), np.diff(x, n=2)])


def clip_maximum_abs(x):
    return np.clip(x, -0.5, 0.5) * np.maximum(x, 0.0) + np.abs(x) ** 3 - np.minimum(x, 0.2)


def outer_kron(x):
    A = np.outer(x[:3], x[3:])
    return np.kron(A, np.array([[1.0, 2.0], [0.5, -1.0]])).ravel() + np.sum(A**2)


def tile_repeat(x):
    return np.tile(x, 2) * np.repeat(x, 2) + np.tile(x[:2], 4)


def stack_concat(x):
    a, b = x[:3], x[3:]
    P = np.stack([a * b, a + b, np.sin(a)], axis=1)
    return np.concatenate([P.ravel(), np.hstack([a, b**2]), np.vstack([a, b]).ravel()])


mask = np.array([True, False, True, True, False, True])


def boolean_mask(x):
    y = np.where(mask, np.exp(x), -x)
    return np.concatenate([y * mask, x[mask] ** 2, [np.sum(x[~mask])]])


def smooth_abs_powers(x, eps=1e-3):
    return np.sum(np.sqrt(x**2 + eps)) + np.sum(x**3) - np.sum(x**-2) + np.sum(x**4) / 4


def keyword_only(x, *, alpha=0.5, beta=2.0):
    return alpha * np.tanh(beta * x) + np.linalg.norm(x)


def several_arrays(u, v, w):
    return np.concatenate([u * v, np.sin(w) * u[:2], [np.dot(u, v)]])


def gp_nll_jax(log_params):
    ell, sf, sn = jnp.exp(log_params)
    d2 = (Xgp[:, None] - Xgp[None, :]) ** 2
    K = sf**2 * jnp.exp(-0.5 * d2 / ell**2) + (sn**2 + 1e-6) * jnp.eye(5)
    L = jnp.linalg.cholesky(K)
    return 0.5 * ygp @ jnp.linalg.solve(K, ygp) + jnp.sum(jnp.log(jnp.diag(L)))


def lstm_jax(xs_flat):
    xs = xs_flat.reshape(4, 3)
    h, c = jnp.zeros(4), jnp.zeros(4)
    for t in range(4):
        z = xs[t] @ Wl + h @ Ul + bl
        i, f, o = jax.nn.sigmoid(z[:4]), jax.nn.sigmoid(z[4:8]), jax.nn.sigmoid(z[8:12])
        c = f * c + i * jnp.tanh(z[12:])
        h = o * jnp.tanh(c)
    return h


def positive(n, lo=0.5, hi=1.5):
    return rng.uniform(lo, hi, n)


def away(n, lo=0.2, hi=1.5):  # away from 0: kinks of abs, clip, maximum, sign
    return rng.choice([-1.0, 1.0], n) * rng.uniform(lo, hi, n)


# name: (function, example arguments, is the output a scalar, its JAX twin or None)
PROGRAMS = {
    "fv_diffusion_setitem": (fv_diffusion_setitem, (data(10),), False, fv_diffusion_jax),
    "fv_reaction_setitem": (fv_reaction_setitem, (data(10),), False, fv_reaction_jax),
    "muscl_minmod": (
        muscl_minmod,
        (np.sin(np.linspace(0, 3, 10)) + 0.05 * np.arange(10),),
        False,
        muscl_minmod_jax,
    ),
    "periodic_laplacian_2d": (periodic_laplacian_2d, (data(36, scale=0.3),), False, None),
    "logsumexp_numpy": (logsumexp_numpy, (data(7),), True, None),
    "xent_int_labels": (cross_entropy_labels, (data(20),), True, None),
    "xent_onehot_jax": (cross_entropy_onehot, (data(20),), True, None),
    "xent_take_along_jax": (cross_entropy_take_along, (data(20),), True, None),
    "lstm_unrolled_numpy": (lstm_unrolled_numpy, (data(12),), False, lstm_jax),
    "lstm_lax_scan": (lstm_scan, (data(12),), False, None),
    "ridge_two_args_kwonly": (ridge_several, (data(3), np.array(0.3)), True, None),
    "gp_nll_numpy": (gp_nll_numpy, (np.log(np.array([0.4, 1.0, 0.2])),), True, gp_nll_jax),
    "kalman_inv_numpy": (kalman_step_numpy, (data(6, scale=0.5),), False, None),
    "chem_kinetics": (chem_kinetics, (positive(4),), False, None),
    "chem_kinetics_prod": (chem_kinetics_prod, (positive(4),), False, None),
    "springs_add_at": (
        spring_forces_add_at,
        (np.array([0, 0, 1, 0, 1, 1, 0, 1.0]) + data(8, scale=0.1),),
        False,
        spring_forces_jax,
    ),
    "springs_segment_sum": (
        spring_forces_segment_sum,
        (np.array([0, 0, 1, 0, 1, 1, 0, 1.0]) + data(8, scale=0.1),),
        False,
        None,
    ),
    "nbody_norm_axis": (nbody_numpy, (data(12),), False, nbody_jax),
    "nbody_energy_outer": (nbody_energy, (data(12),), True, None),
    "einsum_numpy": (einsum_numpy, (data(12),), False, None),
    "cumsum_diff": (cumsum_diff, (data(6),), False, None),
    "clip_maximum_abs": (clip_maximum_abs, (away(7),), False, None),
    "outer_kron": (outer_kron, (data(5),), False, None),
    "tile_repeat": (tile_repeat, (data(4),), False, None),
    "stack_concat": (stack_concat, (data(6),), False, None),
    "boolean_mask": (boolean_mask, (data(6),), False, None),
    "smooth_abs_powers": (smooth_abs_powers, (away(6, 0.5, 1.5),), True, None),
    "keyword_only": (keyword_only, (data(5),), False, None),
    "several_arrays": (several_arrays, (data(3), data(3), data(2)), False, None),
}


def reference(f, twin):
    from real_programs_harness import jnp_twin

    if twin is not None:
        return twin
    return f if "jax" in f.__code__.co_names or "jnp" in f.__code__.co_names else jnp_twin(f)


if __name__ == "__main__":
    from real_programs_harness import Survey

    cases = {n: (f, xs, s, reference(f, twin)) for n, (f, xs, s, twin) in PROGRAMS.items()}
    Survey(cases, __file__, rng).main(sys.argv[1:])
