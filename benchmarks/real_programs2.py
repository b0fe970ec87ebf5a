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

    python benchmarks/real_programs2.py [NAME ...] [--modes=jac,jvp,...] [--limit=SECONDS]
"""

from __future__ import annotations

import contextlib
import importlib.util
import inspect
import io
import signal
import sys
import tempfile
import time
import types
import warnings
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

import dgraph
from dgraph.codegen.tensor.function import TensorGenerated
from dgraph.errors import DGraphError

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


class _JaxAsNumpy:
    """jax.numpy where NumPy code calls ``np``, taking lists of arrays where NumPy does
    (``np.concatenate([a, [s]])``)."""

    def __getattr__(self, name):
        return getattr(jnp, name)

    @staticmethod
    def concatenate(arrays, axis=0):
        return jnp.concatenate([jnp.asarray(a) for a in arrays], axis=axis)


def jnp_twin(f):
    """The same NumPy code run with jax.numpy (for jax.jacfwd)."""
    twin = types.FunctionType(f.__code__, {**f.__globals__, "np": _JaxAsNumpy()}, f.__name__,
                              f.__defaults__, f.__closure__)  # fmt: skip
    twin.__kwdefaults__ = f.__kwdefaults__
    return twin


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

MODES = ("jac", "jvp", "vjp", "jax", "es", "hess", "hess_sparse", "cli")


def reference(f, twin):
    if twin is not None:
        return twin
    return f if "jax" in f.__code__.co_names or "jnp" in f.__code__.co_names else jnp_twin(f)


def cli_jacobian(f, xs, m: int) -> np.ndarray:
    """``dgraph codegen benchmarks/real_programs2.py:NAME --inputs A:SHAPE,... -o FILE`` in
    this process, and the written module's ``jacobian`` at the arguments."""
    from dgraph.cli import main as cli

    names = list(inspect.signature(f).parameters)[: len(xs)]
    spec = ",".join(n + (":" + "x".join(map(str, x.shape)) if x.shape else "")
                    for n, x in zip(names, xs, strict=True))  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "jac.py"
        argv = ["codegen", f"{__file__}:{f.__name__}", "--inputs", spec, "-o", str(out)]
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = cli(argv)
        if code:
            raise DGraphError(err.getvalue().strip().removeprefix("dgraph: error: "))
        spec_ = importlib.util.spec_from_file_location("jac", out)
        module = importlib.util.module_from_spec(spec_)
        spec_.loader.exec_module(module)
    try:
        return joined(module.jacobian(*xs), m)
    except (ValueError, TypeError):  # a graph of scalars: one flat vector
        return joined(module.jacobian(np.concatenate([x.ravel() for x in xs])), m)


def joined(found, m: int):
    """A Jacobian, or one per argument (a tuple), as one (m, n) array (m outputs)."""
    if isinstance(found, tuple | list):
        return np.hstack([np.reshape(np.asarray(p, dtype=float), (m, -1)) for p in found])
    return np.reshape(np.asarray(found, dtype=float), (m, -1))


def one_line(e: BaseException) -> str:
    text = f"{type(e).__name__}: {e}"
    clear = "\n" not in text.strip() and "internal error" not in text
    return text if clear and isinstance(e, DGraphError) else ""


class Hang(Exception):
    pass


def _expire(*_):
    raise Hang


def run(name: str, mode: str, limit: int = 180):
    signal.signal(signal.SIGALRM, _expire)
    signal.alarm(limit)
    try:
        return _run(name, mode)
    except Hang:
        return "HANG", f"over {limit} s"
    finally:
        signal.alarm(0)


def _call(made, xs, *extra):
    """A generated function at the arguments: the arrays (a tensor graph), or one flat
    vector of them (a graph of scalars, GeneratedFunction's doc)."""
    if isinstance(made.generated, TensorGenerated):
        return made(*xs, *extra)
    flat = [np.concatenate([np.ravel(a) for a in group]) for group in (xs, *extra)]
    return made(*flat)


def _run(name: str, mode: str):
    f, xs, scalar, twin = PROGRAMS[name]
    xs = tuple(np.asarray(x, dtype=float) for x in xs)
    ref = reference(f, twin)
    k = len(xs)
    parts = jax.jacfwd(ref, argnums=tuple(range(k)))(*map(jnp.asarray, xs))
    out_shape = np.shape(ref(*xs))
    m = int(np.prod(out_shape))
    J = joined(tuple(parts), m)
    vs = tuple(rng.normal(size=x.shape) for x in xs)
    v = np.concatenate([a.ravel() for a in vs])
    w = rng.normal(size=out_shape)
    try:
        if mode in ("jac", "jvp", "vjp", "jax"):
            kind = {"jac": "jacobian", "jax": "jacobian"}.get(mode, mode)
            made = dgraph.make_function(f, kind, "jax" if mode == "jax" else "python",
                                        point=list(xs))  # fmt: skip
            if mode in ("jac", "jax"):
                found, want = joined(_call(made, xs), m), J
            elif mode == "jvp":
                found, want = _call(made, xs, vs), J @ v
            else:
                tensor = isinstance(made.generated, TensorGenerated)
                found = made(*xs, w) if tensor else made(np.concatenate([a.ravel() for a in xs]),
                                                          np.ravel(w))  # fmt: skip
                found = np.concatenate([np.ravel(p) for p in found]) if k > 1 and tensor else found
                want = np.ravel(w) @ J
        elif mode == "cli":
            found, want = cli_jacobian(f, xs, m), J
        elif mode == "es":
            es = dgraph.jacobian(f, point=list(xs))
            if es.graph.is_tensor:
                return "-", "tensor graph"
            found, want = es.evaluate(np.concatenate([x.ravel() for x in xs])), J
        elif mode in ("hess", "hess_sparse"):
            if not scalar or k > 1:
                return "-", ""
            Hf = dgraph.hessian(f, *xs, sparse=mode == "hess_sparse")
            found = _call(Hf, xs)
            found = found.toarray() if hasattr(found, "toarray") else found
            want = jax.hessian(ref)(jnp.asarray(xs[0]))
        found = np.asarray(found, dtype=float).ravel()
        want = np.asarray(want, dtype=float).ravel()
        if found.shape != want.shape:
            return "WRONG", f"shape {found.shape} != {want.shape}"
        err = np.abs(found - want).max() / max(1.0, np.abs(want).max())
        return ("ok", "") if err < 1e-8 else ("WRONG", f"error {err:.1e}")
    except Hang:
        raise
    except Exception as e:  # the survey records every failure
        line = one_line(e)
        return ("refused", line[:220]) if line else ("ERROR", f"{type(e).__name__}: {e}"[:400])


def main(argv: list[str]) -> None:
    modes, limit = MODES, 180
    for a in argv:
        if a.startswith("--modes="):
            modes = tuple(a.split("=", 1)[1].split(","))
        if a.startswith("--limit="):
            limit = int(a.split("=", 1)[1])
    names = [a for a in argv if not a.startswith("--")] or list(PROGRAMS)
    totals: dict[str, int] = {}
    notes = []
    print(f"{'program':24} " + " ".join(f"{m:>8}" for m in modes) + "   seconds")
    for name in names:
        start = time.perf_counter()
        cells = []
        for mode in modes:
            status, detail = run(name, mode, limit)
            cells.append(status)
            if status != "-":
                totals[status] = totals.get(status, 0) + 1
            if status not in ("ok", "-"):
                notes.append(f"  {name} [{mode}] {status}: {detail}")
        secs = time.perf_counter() - start
        print(f"{name:24} " + " ".join(f"{c:>8}" for c in cells) + f"   {secs:7.1f}", flush=True)
    print("totals:", ", ".join(f"{k} {v}" for k, v in sorted(totals.items())))
    print("\n".join(notes))


if __name__ == "__main__":
    main(sys.argv[1:])
