import jax
import jax.numpy as jnp

EPS = 0.1


def f(W, X, y):
    logp = jax.nn.log_softmax(X @ W, axis=1)
    target = optax_like(y.astype(jnp.int32))
    return -jnp.mean(jnp.sum(target * logp, axis=1))


def optax_like(labels):
    return jax.nn.one_hot(labels, 8) * (1 - EPS) + EPS / 8
