import math

import jax.numpy as jnp
from jax.scipy.special import ndtr


def bs_call(S, K, T, r, v):
    d1 = (jnp.log(S / K) + (r + 0.5 * v**2) * T) / (v * jnp.sqrt(T))
    return S * ndtr(d1) - K * jnp.exp(-r * T) * ndtr(d1 - v * jnp.sqrt(T))


def f(S, sigma, lam, muj, dj, K, T, r=0.03, nterms=20):
    k = jnp.exp(muj + 0.5 * dj**2) - 1
    lp = lam * (1 + k)
    price = 0.0
    for n in range(nterms):
        vn = jnp.sqrt(sigma**2 + n * dj**2 / T)
        rn = r - lam * k + n * jnp.log(1 + k) / T
        weight = jnp.exp(-lp * T + n * jnp.log(lp * T) - math.lgamma(n + 1))
        price = price + weight * bs_call(S, K, T, rn, vn)
    return price
