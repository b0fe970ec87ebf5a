import jax.numpy as jnp


def f(c, a, b, p, x):
    fit = jnp.vander(x, 4) @ c
    normal = jnp.cross(a, b)
    r = jnp.hypot(p[0], p[1])
    ang = jnp.mod(jnp.arctan2(p[1], p[0]), 2 * jnp.pi)
    moments = jnp.vander(a, 3, increasing=True).ravel()
    return jnp.concatenate([fit, normal, jnp.stack([r, ang]), moments])
