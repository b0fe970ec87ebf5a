"""Trip counts given as parameters on the command line, which gives no parameter values:
a NumPy ``range(n)``, a JAX ``fori_loop`` bound, a flag ``if bias:``."""

import jax.numpy as jnp
import numpy as np
from jax import lax


def steps(y, n):
    for _ in range(n):
        y = y + 0.1 * np.sin(y) * y[::-1]
    return y


def fori_steps(y, n):
    return lax.fori_loop(0, n, lambda i, y: y + 0.1 * jnp.sin(y) * y[::-1], y)


def biased(y, bias):
    if bias:
        y = y + 1.0
    return np.sin(y)
