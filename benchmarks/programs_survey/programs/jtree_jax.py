from typing import NamedTuple

import jax
import jax.numpy as jnp

INPUTS = "x:9"


class Body(NamedTuple):
    m: jnp.ndarray
    inertia: jnp.ndarray
    c: jnp.ndarray


def unpack(x):
    L = jnp.array(
        [[jnp.exp(x[0]), 0.0, 0.0], [x[1], jnp.exp(x[2]), 0.0], [x[3], x[4], jnp.exp(x[5])]]
    )
    return Body(m=jnp.exp(x[6]), inertia=L @ L.T, c=x[6:9])


def f(x):
    """A rigid body's parameters as a NamedTuple pytree (inertia by a Cholesky factor),
    scaled by tree_map; the kinetic energy of a twist through jnp.linalg.solve and a
    log-det regulariser."""
    b = unpack(x)
    b = jax.tree_util.tree_map(lambda a: 1.5 * a, b)
    w = jnp.array([0.3, -0.2, 0.5])
    v = jnp.array([0.1, 0.0, -0.4])
    h = b.inertia @ w
    ke = 0.5 * w @ h + 0.5 * b.m * v @ v + b.m * v @ jnp.cross(w, b.c)
    return (
        ke
        + 0.01 * jnp.linalg.slogdet(b.inertia)[1]
        + 0.1 * jnp.sum(jnp.linalg.solve(b.inertia, w) ** 2)
    )
