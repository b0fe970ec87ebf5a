import jax.numpy as jnp


def f(x, y, p=2):
    w = jnp.mean(jnp.abs(jnp.sort(x) - jnp.sort(y)) ** p)
    q = jnp.quantile(x, jnp.array([0.1, 0.5, 0.9]))
    return w + 0.1 * jnp.sum(q**2)
