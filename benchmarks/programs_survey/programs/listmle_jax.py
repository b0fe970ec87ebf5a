import jax
import jax.numpy as jnp


def f(w, X, rel):
    s = (X @ w)[jnp.argsort(-rel, stable=True)]
    suffix = jax.lax.cumlogsumexp(s, reverse=True)
    return jnp.sum(suffix - s) + 0.01 * jnp.dot(w, w)
