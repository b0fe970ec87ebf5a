import jax.numpy as jnp


def f(xy):
    r = jnp.hypot(xy[:, 0], xy[:, 1])
    th = jnp.arctan2(xy[:, 1], xy[:, 0])
    return jnp.stack([r * jnp.cos(2 * th), r * jnp.sin(2 * th), jnp.log1p(r)], axis=1)
