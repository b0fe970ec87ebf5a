import jax.numpy as jnp
from jax.scipy.stats import norm


def call(S, K, T, r, sigma):
    d1 = (jnp.log(S / K) + (r + 0.5 * sigma**2) * T) / (sigma * jnp.sqrt(T))
    d2 = d1 - sigma * jnp.sqrt(T)
    return S * norm.cdf(d1) - K * jnp.exp(-r * T) * norm.cdf(d2)


def f(S, sigma, r, K, T, w):
    c = call(S, K, T, r, sigma)
    p = c - S + K * jnp.exp(-r * T)
    return jnp.sum(jnp.abs(w) * jnp.where(w > 0, c, p))
