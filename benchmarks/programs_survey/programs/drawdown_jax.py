import jax
import jax.numpy as jnp


def f(z, R, lam=5.0, q=0.1):
    w = jax.nn.softmax(z)
    r = R @ w
    wealth = jnp.cumprod(1.0 + r)
    peak = jax.lax.cummax(wealth)
    mdd = jnp.max(1.0 - wealth / peak)
    return -jnp.mean(jnp.log1p(r)) + lam * mdd - jnp.quantile(r, q)
