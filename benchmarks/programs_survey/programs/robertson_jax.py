import jax.numpy as jnp


def f(y):
    y1, y2, y3 = y
    r1 = 0.04 * y1
    r2 = 1e4 * y2 * y3
    r3 = 3e7 * y2**2
    return jnp.array([-r1 + r2, r1 - r2 - r3, r3])
