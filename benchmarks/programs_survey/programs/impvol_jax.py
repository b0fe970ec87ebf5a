import jax
import jax.numpy as jnp
from jax.scipy.special import ndtr

S, T, R = 100.0, 0.5, 0.01


def f(price, K):
    def body(_, sig):
        sq = sig * jnp.sqrt(T)
        d1 = (jnp.log(S / K) + (R + 0.5 * sig**2) * T) / sq
        c = S * ndtr(d1) - K * jnp.exp(-R * T) * ndtr(d1 - sq)
        vega = S * jnp.sqrt(T) * jax.scipy.stats.norm.pdf(d1)
        return sig - (c - price) / vega

    return jax.lax.fori_loop(0, 8, body, jnp.full_like(price, 0.3))
