import jax.numpy as jnp


def f(x):
    def rosen(v):
        return jnp.sum(100.0 * (v[1:] - v[:-1] ** 2.0) ** 2.0 + (1 - v[:-1]) ** 2.0)

    return rosen(x) + 0.1 * rosen(x[::-1])
