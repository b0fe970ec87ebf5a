"""The objectives of ``benchmarks/hessian.py`` (issue 55), in ``jax.numpy``, each with its
true Hessian nonzero count.

- ``rosenbrock``: extended Rosenbrock, Σ 100 (x_{i+1} − x_i²)² + (1 − x_i)²; H is
  tridiagonal: 3n − 2 nonzeros.
- ``minsurf``: the 2-D minimal-surface functional as in COPS (``minsurf``): the unknowns
  u on an m × m grid of interior points of the unit square (h = 1/(m+1)), boundary values
  b(s, t) = 1 − (2s − 1)² on two sides and 0 on the others, the area Σ over the cells of
  ½ h² (sqrt(1 + |∇u|²) on the lower triangle + on the upper one), each gradient by
  forward differences. Each triangle couples its three corners: the 5-point pattern and
  one diagonal, m² + 4 m (m − 1) + 2 (m − 1)² nonzeros.
- ``lagrangian``: the Lagrangian f₀ + λᵀc of a sparse constrained problem, as one vector
  function F = (f₀, c) with weights (1, λ): f₀ = ½ Σ (x_i − 1)², c_i = x_i x_{i+1} +
  exp(x_{i+2}) + 2 x_i − x_{i+1} (i < n − 2); the linear terms drop out, n + 2 (n − 2)
  nonzeros.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

__all__ = ["PROBLEMS", "point", "size_for", "true_nnz", "weights"]


def rosenbrock(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def minsurf(u):
    m = u.shape[0]
    h = 1.0 / (m + 1)
    s = jnp.linspace(0.0, 1.0, m + 2)
    edge = 1.0 - (2.0 * s - 1.0) ** 2
    p = jnp.pad(u, 1)
    p = p.at[0, :].set(edge).at[-1, :].set(edge)
    dx_low = (p[1:, :-1] - p[:-1, :-1]) / h
    dy_low = (p[:-1, 1:] - p[:-1, :-1]) / h
    dx_up = (p[1:, 1:] - p[:-1, 1:]) / h
    dy_up = (p[1:, 1:] - p[1:, :-1]) / h
    area = jnp.sqrt(1.0 + dx_low**2 + dy_low**2) + jnp.sqrt(1.0 + dx_up**2 + dy_up**2)
    return 0.5 * h * h * jnp.sum(area)


def lagrangian(x):
    f0 = 0.5 * jnp.sum((x - 1.0) ** 2)
    c = x[:-2] * x[1:-1] + jnp.exp(x[2:]) + 2.0 * x[:-2] - x[1:-1]
    return jnp.concatenate([f0[None], c])


PROBLEMS = {"rosenbrock": rosenbrock, "minsurf": minsurf, "lagrangian": lagrangian}


def size_for(name: str, target: int) -> int:
    """The side (minsurf: of the m × m grid) or length nearest ``target`` unknowns."""
    return max(3, round(math.sqrt(target))) if name == "minsurf" else target


def shape(name: str, side: int) -> tuple[int, ...]:
    return (side, side) if name == "minsurf" else (side,)


def point(name: str, side: int) -> np.ndarray:
    """A reproducible point: entries in [0.5, 1.5) (minsurf: in [0, 0.5))."""
    rng = np.random.default_rng(7)
    if name == "minsurf":
        return rng.uniform(0.0, 0.5, shape(name, side))
    return rng.uniform(0.5, 1.5, shape(name, side))


def weights(name: str, side: int) -> np.ndarray | None:
    """The Lagrangian's weights (1, λ); None for a scalar objective."""
    if name != "lagrangian":
        return None
    lam = np.random.default_rng(8).uniform(0.5, 1.5, side - 2)
    return np.concatenate([[1.0], lam])


def true_nnz(name: str, side: int) -> int:
    if name == "rosenbrock":
        return 3 * side - 2
    if name == "minsurf":
        m = side
        return m * m + 4 * m * (m - 1) + 2 * (m - 1) ** 2
    return side + 2 * (side - 2)
