import jax.numpy as jnp
from jax.scipy.special import i0e


def f(mu, lk, th):
    k = jnp.exp(lk)
    logi0 = jnp.log(i0e(k)) + k
    return -jnp.sum(k * jnp.cos(th - mu) - jnp.log(2 * jnp.pi) - logi0)
