import jax.numpy as jnp
from femp1_np import KE, TRI


def f(u, kappa):
    ue = u[TRI]
    re = kappa[:, None] * jnp.einsum("eij,ej->ei", KE, ue)
    r = jnp.zeros(64).at[TRI].add(re)
    return r - 0.1 * u**3
