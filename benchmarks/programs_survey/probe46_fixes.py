"""survey46's probes of the linspace and flipud/fliplr fixes."""

import sys

import jax.numpy as jnp
import numpy as np
from probe46 import run

M = np.array([[2.0, 0.5, 0.1], [0.3, 1.5, 0.2], [0.0, 0.4, 3.0]])
P = {
    "linspace_traced": (
        lambda L: np.sum(np.sin(np.linspace(0.0, L, 5))),
        lambda L: jnp.sum(jnp.sin(jnp.linspace(0.0, L, 5))),
        np.array(2.0),
    ),
    "linspace_both": (
        lambda a, b: np.linspace(a, b, 4) ** 2,
        lambda a, b: jnp.linspace(a, b, 4) ** 2,
        np.array(-1.0),
        np.array(2.0),
    ),
    "linspace_noend": (
        lambda a, b: np.linspace(a, b, 4, endpoint=False) ** 2,
        lambda a, b: jnp.linspace(a, b, 4, endpoint=False) ** 2,
        np.array(-1.0),
        np.array(2.0),
    ),
    "linspace_retstep": (
        lambda b: np.linspace(0.0, b, 6, retstep=True)[1] * np.linspace(0.0, b, 6),
        lambda b: jnp.linspace(0.0, b, 6, retstep=True)[1] * jnp.linspace(0.0, b, 6),
        np.array(3.0),
    ),
    "linspace_vec": (
        lambda a, b: np.linspace(a, b, 3),
        lambda a, b: jnp.linspace(a, b, 3),
        np.array([0.0, 1.0]),
        np.array([2.0, -1.0]),
    ),
    "linspace_one": (
        lambda a: np.linspace(a, 2.0, 1) * a,
        lambda a: jnp.linspace(a, 2.0, 1) * a,
        np.array(0.5),
    ),
    "rot90_flip": (
        lambda M: np.rot90(M) * np.flipud(M),
        lambda M: jnp.rot90(M) * jnp.flipud(M),
        M,
    ),
    "fliplr": (lambda M: np.fliplr(M) @ M, lambda M: jnp.fliplr(M) @ M, M),
}
for k, v in P.items():
    if len(sys.argv) < 2 or k in sys.argv[1:]:
        run(k, *v)
