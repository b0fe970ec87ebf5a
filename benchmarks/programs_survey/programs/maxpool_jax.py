import jax.numpy as jnp
from jax import lax


def f(img, w):
    y = jnp.tanh(img * w)
    p = lax.reduce_window(y, -jnp.inf, lax.max, (3, 3), (2, 2), "SAME")
    s = lax.reduce_window(y, 0.0, lax.add, (2, 2), (1, 1), ((1, 0), (0, 1)))
    return jnp.sum(p**2) + jnp.mean(s)
