import jax
import jax.numpy as jnp


def f(W1, b1, W2, x):
    h = jnp.tanh(W1 @ x + b1)
    return W2 @ jax.nn.gelu(h)
