import jax
import jax.numpy as jnp

INPUTS = "x:8"


def piece(i, v):
    return jax.lax.switch(i, [lambda u: u**2, lambda u: jnp.sin(u), lambda u: jnp.exp(-u)], v)


def f(x):
    """A piecewise law by region (lax.switch on an index from the value), and a
    lax.cond clamp, both under vmap."""
    idx = jnp.clip(jnp.floor(x + 1.0).astype(jnp.int32), 0, 2)
    y = jax.vmap(piece)(idx, x)
    z = jax.vmap(lambda v: jax.lax.cond(v > 0.5, lambda u: u - 0.25 * u**2, lambda u: u, v))(y)
    return z * x
