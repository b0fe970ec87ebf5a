import jax
import jax.numpy as jnp


def f(x, g, b):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    h = (x - mu) / jnp.sqrt(var + 1e-5) * g + b
    return jax.nn.gelu(h, approximate=False) + 0.5 * jax.nn.gelu(h, approximate=True)
