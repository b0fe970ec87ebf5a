import jax
import jax.numpy as jnp


def f(b, X, ev):
    eta = X @ b
    lrisk = jax.lax.cumlogsumexp(eta, reverse=True)
    return -jnp.sum(ev * (eta - lrisk))
