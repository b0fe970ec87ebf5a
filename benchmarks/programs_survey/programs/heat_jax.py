import jax.numpy as jnp


def f(u):
    dx = 0.1
    g = jnp.gradient(u, dx)
    flux = (1 + u**2) * g
    return jnp.gradient(flux, dx) - jnp.sin(u)
