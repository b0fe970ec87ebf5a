"""JAX and NumPy functions side by side (issue 40 item 4). Which reader takes a function
is decided per function, not per module: all but ``mixes`` must load (exit 0), ``mixes``
is refused with one line."""

import jax.numpy as jnp
import numpy as np
from scipy import stats


def pendulum(x):
    """NumPy only: traced as NumPy (it failed: the module imports JAX)."""
    theta, omega, length, g = x[0], x[1], x[2], x[3]
    return np.array([omega, -g / length * np.sin(theta) - 0.1 * omega])


def spring(q):
    """JAX: read from its jaxpr."""
    return jnp.sum((q[1:] - q[:-1]) ** 2)


def scaled(x):
    """Refers to ``jnp``, for a constant only: JAX cannot trace ``np.sin`` of its value,
    so it falls back to the NumPy tracer."""
    return np.sin(x[0]) * jnp.pi + x[1]


def mixes(x):
    """NumPy on a JAX value and JAX on a traced one: neither route takes it."""
    return np.sin(x[0]) * jnp.cos(x[1])


def cdf(x):
    """JAX, named as scipy.stats' method."""
    return jnp.sum(jnp.tanh(x))


def likelihood(x):
    """NumPy calling ``stats.norm.cdf``: an attribute, not the JAX ``cdf`` beside it
    (read with JAX first before, which failed: a note and a fallback, and the Hessian's
    route had none)."""
    return np.sum(stats.norm.logpdf(x) + stats.norm.cdf(x))
