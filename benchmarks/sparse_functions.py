"""The residuals of the sparse-Jacobian benchmark (issue 42), in ``jax.numpy`` and NumPy.

Each residual maps one flat float64 vector to one flat vector of the same length (the
form every candidate accepts: sparsejac and asdex's SciPy output want rank 1):

- :func:`brusselator`: the 2-D Brusselator reaction–diffusion right-hand side on an
  N x N periodic grid of [0, 1)^2, two species u and v stacked (2 N^2 unknowns), as in
  asdex's and SciML's sparse-Jacobian examples (Hairer and Wanner 1991, §I.1 for the
  reaction; the localized forcing term of SciML's version does not depend on the state
  and is left out): ``u_t = 1 + u^2 v - 4.4 u + alpha lap(u)``,
  ``v_t = 3.4 u - u^2 v + alpha lap(v)``, alpha = 10, the 5-point Laplacian with
  ``jnp.roll`` for the periodic wrap. Six nonzeros per row.
- :func:`laplace3d`: ``lap(u) + exp(u)`` on an n x n x n grid with zero Dirichlet
  boundary (``jnp.pad`` by one, then slices), the 7-point Laplacian with unit spacing
  (a Bratu-type problem). Seven nonzeros per interior row.

:func:`grid` picks the grid for a target count of unknowns; :func:`point` a state at
which every candidate is evaluated. The NumPy twins (``*_numpy``) compute the same
values, for the time of one NumPy evaluation.

>>> import numpy as np
>>> grid("brusselator", 10**4), grid("laplace3d", 10**4)
(71, 22)
>>> x = point("laplace3d", 3)
>>> bool(np.allclose(np.asarray(laplace3d(x)), laplace3d_numpy(x), atol=1e-5))
True
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = [
    "ALPHA",
    "FUNCTIONS",
    "brusselator",
    "brusselator_numpy",
    "grid",
    "laplace3d",
    "laplace3d_numpy",
    "point",
    "unknowns",
]

ALPHA = 10.0  # the Brusselator's diffusion coefficient (asdex's and SciML's)


def _jnp():
    import jax.numpy as jnp

    return jnp


def _periodic_laplacian(w, h: float, xp):
    """The 5-point Laplacian of an N x N field on a periodic grid of spacing h."""
    roll = xp.roll
    return (
        roll(w, 1, axis=0) + roll(w, -1, axis=0) + roll(w, 1, axis=1) + roll(w, -1, axis=1) - 4 * w
    ) / (h * h)


def _brusselator(x, xp):
    m = round((x.shape[0] // 2) ** 0.5)
    u = x[: m * m].reshape(m, m)
    v = x[m * m :].reshape(m, m)
    h = 1.0 / m
    uuv = u * u * v
    du = 1.0 + uuv - 4.4 * u + ALPHA * _periodic_laplacian(u, h, xp)
    dv = 3.4 * u - uuv + ALPHA * _periodic_laplacian(v, h, xp)
    return xp.concatenate([du.ravel(), dv.ravel()])


def brusselator(x):
    """The 2-D Brusselator right-hand side of the flat state ``x = [u, v]`` (JAX)."""
    return _brusselator(x, _jnp())


def brusselator_numpy(x):
    """:func:`brusselator` in NumPy."""
    return _brusselator(np.asarray(x), np)


def _laplace3d(x, xp):
    n = round(x.shape[0] ** (1 / 3))
    u = x.reshape(n, n, n)
    p = xp.pad(u, 1)
    lap = (
        p[:-2, 1:-1, 1:-1]
        + p[2:, 1:-1, 1:-1]
        + p[1:-1, :-2, 1:-1]
        + p[1:-1, 2:, 1:-1]
        + p[1:-1, 1:-1, :-2]
        + p[1:-1, 1:-1, 2:]
        - 6 * u
    )
    return (lap + xp.exp(u)).ravel()


def laplace3d(x):
    """``lap(u) + exp(u)`` of the flat n^3 state ``x``, zero Dirichlet padding (JAX)."""
    return _laplace3d(x, _jnp())


def laplace3d_numpy(x):
    """:func:`laplace3d` in NumPy."""
    return _laplace3d(np.asarray(x), np)


# name: (JAX residual, NumPy residual, unknowns of grid side m)
FUNCTIONS: dict[str, tuple[Callable, Callable, Callable[[int], int]]] = {
    "brusselator": (brusselator, brusselator_numpy, lambda m: 2 * m * m),
    "laplace3d": (laplace3d, laplace3d_numpy, lambda m: m**3),
}


def grid(name: str, target: int) -> int:
    """The grid side whose count of unknowns is nearest ``target`` (at least 3)."""
    count = FUNCTIONS[name][2]
    side = max(3, round((target / count(1)) ** (1 / (2 if name == "brusselator" else 3))))
    return min(
        (s for s in (side - 1, side, side + 1) if s >= 3), key=lambda s: abs(count(s) - target)
    )


def unknowns(name: str, side: int) -> int:
    """The count of unknowns of ``name`` on a grid of side ``side``."""
    return FUNCTIONS[name][2](side)


def point(name: str, side: int, seed: int = 0) -> np.ndarray:
    """A state in (0.5, 1.5) of ``name`` on a grid of side ``side``, float64."""
    return np.random.default_rng(seed).uniform(0.5, 1.5, unknowns(name, side))
