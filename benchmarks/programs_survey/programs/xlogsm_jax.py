import jax.numpy as jnp
from jax.nn import log_softmax
from jax.scipy.special import xlogy


def f(W, X, Y):
    logp = log_softmax(X @ W, axis=1)
    return -jnp.sum(Y * logp) + jnp.sum(xlogy(Y, Y)) + 0.01 * jnp.sum(W**2)
