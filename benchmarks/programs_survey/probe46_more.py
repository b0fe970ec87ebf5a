"""survey46's second round of NumPy probes (linspace, flipud, batched linalg, ...)."""

import sys

import jax.numpy as jnp
import numpy as np
from probe46 import run

x = np.array([0.3, -1.2, 0.7, 2.0])
A3 = np.arange(12.0).reshape(3, 2, 2) + np.eye(2) * 3
M = np.array([[2.0, 0.5, 0.1], [0.3, 1.5, 0.2], [0.0, 0.4, 3.0]])
P = {
    "linspace_traced": (
        lambda L: np.sum(np.sin(np.linspace(0.0, L, 5))),
        lambda L: jnp.sum(jnp.sin(jnp.linspace(0.0, L, 5))),
        np.array(2.0),
    ),
    "batched_det": (lambda A: np.linalg.det(A), lambda A: jnp.linalg.det(A), A3),
    "batched_inv": (lambda A: np.linalg.inv(A), lambda A: jnp.linalg.inv(A), A3),
    "batched_solve": (
        lambda A, b: np.linalg.solve(A, b[..., None])[..., 0],
        lambda A, b: jnp.linalg.solve(A, b[..., None])[..., 0],
        A3,
        np.ones((3, 2)),
    ),
    "einsum_diag": (
        lambda M: np.einsum("ii->i", M) * np.trace(M, offset=1),
        lambda M: jnp.einsum("ii->i", M) * jnp.trace(M, offset=1),
        M,
    ),
    "tril_diag": (
        lambda M: np.tril(M, -1) + np.diagonal(M)[:, None],
        lambda M: jnp.tril(M, -1) + jnp.diagonal(M)[:, None],
        M,
    ),
    "sum_where": (
        lambda x: np.sum(x**2, where=x > 0),
        lambda x: jnp.sum(x**2, where=x > 0),
        x,
    ),
    "mean_where": (
        lambda x: np.mean(x**2, where=x > 0),
        lambda x: jnp.mean(x**2, where=x > 0),
        x,
    ),
    "max_initial": (
        lambda x: np.max(x**2, initial=1.0),
        lambda x: jnp.max(x**2, initial=1.0),
        x,
    ),
    "hypot0": (
        lambda x: np.hypot(x[:2], x[2:]),
        lambda x: jnp.hypot(x[:2], x[2:]),
        np.array([0.0, 3.0, 0.5, 4.0]),
    ),
    "append_insert": (
        lambda x: np.insert(np.append(x, x[0] ** 2), 1, x[1] * 3),
        lambda x: jnp.insert(jnp.append(x, x[0] ** 2), 1, x[1] * 3),
        x,
    ),
    "delete": (
        lambda x: np.delete(x, [0, 2]) ** 2,
        lambda x: jnp.delete(x, jnp.array([0, 2])) ** 2,
        x,
    ),
    "rot90_flip": (
        lambda M: np.rot90(M) * np.flipud(M),
        lambda M: jnp.rot90(M) * jnp.flipud(M),
        M,
    ),
    "meshgrid": (
        lambda a, b: np.sum(np.prod(np.meshgrid(a, b), axis=0) ** 2),
        lambda a, b: jnp.sum(jnp.prod(jnp.stack(jnp.meshgrid(a, b)), axis=0) ** 2),
        x[:3],
        x[1:],
    ),
    "put_along": (
        lambda x: (lambda y: (np.put_along_axis(y, np.array([1, 3]), x[:2] ** 2, axis=0), y)[1])(
            x.copy()
        ),
        lambda x: x.at[jnp.array([1, 3])].set(x[:2] ** 2),
        x,
    ),
    "norm_axes": (
        lambda A: np.linalg.norm(A, axis=(1, 2)),
        lambda A: jnp.linalg.norm(A, axis=(1, 2)),
        A3,
    ),
    "cumsum_rev_axis": (
        lambda M: np.flip(np.cumsum(np.flip(M, 1), axis=1), 1),
        lambda M: jnp.flip(jnp.cumsum(jnp.flip(M, 1), axis=1), 1),
        M,
    ),
    "eigvals_sym_batched": (
        lambda A: np.linalg.eigvalsh(A + np.swapaxes(A, -1, -2)),
        lambda A: jnp.linalg.eigvalsh(A + jnp.swapaxes(A, -1, -2)),
        A3 * np.array([1.0, 1.1, 0.9])[:, None, None] + np.array([[0.0, 0.3], [0.0, 0.0]]),
    ),
    "cond_number": (lambda M: np.linalg.cond(M), lambda M: jnp.linalg.cond(M), M),
    "slogdet_batched": (
        lambda A: np.linalg.slogdet(A)[1],
        lambda A: jnp.linalg.slogdet(A)[1],
        A3,
    ),
    "arctan2_00": (
        lambda x: np.arctan2(x[:2], x[2:]),
        lambda x: jnp.arctan2(x[:2], x[2:]),
        np.array([0.5, 1.0, 0.0, -2.0]),
    ),
    "interp_period": (
        lambda f: np.interp(
            np.array([0.5, 6.0]), np.linspace(0, 2 * np.pi, 5)[:-1], f, period=2 * np.pi
        ),
        lambda f: jnp.interp(
            jnp.array([0.5, 6.0]),
            jnp.linspace(0, 2 * jnp.pi, 5)[:-1],
            f,
            period=2 * jnp.pi,
        ),
        x,
    ),
    "polyfit": (
        lambda y: np.polyfit(np.arange(4.0), y, 2),
        lambda y: jnp.polyfit(jnp.arange(4.0), y, 2),
        x,
    ),
    "correlate_valid": (
        lambda a, b: np.correlate(a, b, "valid"),
        lambda a, b: jnp.correlate(a, b, "valid"),
        x,
        x[:2],
    ),
}
for k, v in P.items():
    if len(sys.argv) < 2 or k in sys.argv[1:]:
        run(k, *v)
