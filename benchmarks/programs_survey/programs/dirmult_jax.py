import jax.numpy as jnp
from jax.scipy.special import gammaln


def f(log_alpha, counts):
    a = jnp.exp(log_alpha)
    A = jnp.sum(a)
    n = jnp.sum(counts, axis=1)
    ll = (
        gammaln(A) - gammaln(n + A)
        + jnp.sum(gammaln(counts + a) - gammaln(a), axis=1)
        + gammaln(n + 1) - jnp.sum(gammaln(counts + 1), axis=1)
    )  # fmt: skip
    return -jnp.sum(ll)
