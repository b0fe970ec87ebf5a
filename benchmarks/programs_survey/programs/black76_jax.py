import jax.numpy as jnp
from jax.scipy.special import ndtr


def black76(F, K, T, sigma, r=0.02, call=True):
    df = jnp.exp(-r * T)
    srt = sigma * jnp.sqrt(T)
    live = srt > 0
    s = jnp.where(live, srt, 1.0)
    d1 = (jnp.log(F / K) + 0.5 * s**2) / s
    d2 = d1 - s
    sign = 1.0 if call else -1.0
    price = sign * df * (F * ndtr(sign * d1) - K * ndtr(sign * d2))
    return jnp.where(live, price, df * jnp.maximum(sign * (F - K), 0.0))


def f(F, sigma, K, T):
    return black76(F, K, T, sigma) - black76(F, K, T, sigma, call=False)
