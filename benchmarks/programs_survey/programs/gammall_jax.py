import jax.numpy as jnp
from jax.scipy.special import gammaln, xlogy


def f(la, w, X, y):
    a = jnp.exp(la)
    mu = jnp.exp(X @ w)
    b = a / mu
    return -jnp.sum(a * jnp.log(b) - gammaln(a) + xlogy(a - 1.0, y) - b * y)
