import jax.numpy as jnp
from jax.scipy.special import ndtr

R = 0.02


def f(S, sig, K, T):
    sq = sig * jnp.sqrt(T)
    d1 = (jnp.log(S / K) + (R + 0.5 * sig**2) * T) / sq
    d2 = d1 - sq
    return S * ndtr(d1) - K * jnp.exp(-R * T) * ndtr(d2)
