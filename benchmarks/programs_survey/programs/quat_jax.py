import jax.numpy as jnp


def f(q, v):
    q = q / jnp.linalg.norm(q)
    w, r = q[0], q[1:]
    t = 2.0 * jnp.cross(r, v)
    return v + w * t + jnp.cross(r, t)
