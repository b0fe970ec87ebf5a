import jax.numpy as jnp
from jax.scipy.integrate import trapezoid


def f(y, x):
    return trapezoid(y**2, x) + trapezoid(jnp.sin(y), x) ** 2
