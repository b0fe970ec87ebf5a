import jax
import jax.numpy as jnp


def f(h, x, Wz, Wr, Wh):
    hx = jnp.concatenate([h, x])
    z = jax.nn.sigmoid(Wz @ hx)
    r = jax.nn.sigmoid(Wr @ hx)
    cand = jnp.tanh(Wh @ jnp.concatenate([r * h, x]))
    return (1 - z) * h + z * cand
