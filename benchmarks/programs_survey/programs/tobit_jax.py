import jax.numpy as jnp
from jax.scipy.special import log_ndtr


def f(b, ls, X, y):
    s = jnp.exp(ls)
    z = (y - X @ b) / s
    cens = y <= 0.0
    ll = jnp.where(cens, log_ndtr(z), -0.5 * z**2 - ls - 0.5 * jnp.log(2 * jnp.pi))
    return -jnp.sum(ll)
