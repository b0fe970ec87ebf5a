import jax
import jax.numpy as jnp


def f(img):
    a = jax.lax.reduce_window(img, 0.0, jax.lax.add, (1, 1, 2, 2), (1, 1, 2, 2), "VALID") / 4.0
    s = jax.lax.reduce_window(a, 0.0, jax.lax.add, (1, 1, 3, 3), (1, 1, 1, 1), "SAME") / 9.0
    return jnp.tanh(s)
