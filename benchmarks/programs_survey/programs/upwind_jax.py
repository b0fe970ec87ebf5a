import jax.numpy as jnp


def f(u):
    flux = 0.5 * u * u
    a = 0.5 * (u[:-1] + u[1:])
    F = jnp.where(a > 0, flux[:-1], flux[1:])
    return -jnp.diff(F) / 0.1
