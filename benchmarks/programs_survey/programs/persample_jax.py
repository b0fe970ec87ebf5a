import jax
import jax.numpy as jnp


def loss(W, b, x, y, margin=1.0):
    s = W @ x + b
    return jnp.sum(jnp.maximum(0.0, margin + s - s @ y) * (1.0 - y))


def f(W, b, X, Y):
    per = jax.vmap(loss, in_axes=(None, None, 0, 0))(W, b, X, Y)
    return jnp.mean(per) + 0.01 * jnp.sum(W**2)
