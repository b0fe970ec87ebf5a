import jax
import jax.numpy as jnp


def f(W, b, X, Y):
    logp = jax.nn.log_softmax(X @ W + b, axis=1)
    return -jnp.sum(Y * logp) / X.shape[0] + 0.01 * jnp.sum(W**2)
