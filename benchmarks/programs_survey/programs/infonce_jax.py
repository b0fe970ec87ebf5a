import jax.numpy as jnp
from jax.nn import logsumexp


def f(z1, z2):
    a = z1 / jnp.linalg.norm(z1, axis=1, keepdims=True)
    b = z2 / jnp.linalg.norm(z2, axis=1, keepdims=True)
    s = a @ b.T / 0.1
    return jnp.mean(logsumexp(s, axis=1) - jnp.diag(s))
