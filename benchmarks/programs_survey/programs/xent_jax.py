import jax.numpy as jnp
from jax.scipy.special import logsumexp


def f(z, y):
    return logsumexp(z) - jnp.dot(z, y)
