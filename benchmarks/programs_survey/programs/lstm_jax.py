import jax
import jax.numpy as jnp


def f(x, h, c, W, b):
    g = W @ jnp.concatenate([x, h]) + b
    i, fg, o, u = jnp.split(g, 4)
    cn = jax.nn.sigmoid(fg) * c + jax.nn.sigmoid(i) * jnp.tanh(u)
    hn = jax.nn.sigmoid(o) * jnp.tanh(cn)
    return hn, cn
