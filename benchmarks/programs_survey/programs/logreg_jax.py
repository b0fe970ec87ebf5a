import jax.numpy as jnp


def f(w, X, y):
    z = X @ w
    return jnp.mean(jnp.logaddexp(0.0, -y * z)) + 0.01 * jnp.dot(w, w)
