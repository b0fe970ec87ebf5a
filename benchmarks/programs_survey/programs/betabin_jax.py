import jax.numpy as jnp
from jax.scipy.special import betaln, gammaln


def f(la, lb, k, n):
    a, b = jnp.exp(la), jnp.exp(lb)
    lc = gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)
    return -jnp.sum(lc + betaln(k + a, n - k + b) - betaln(a, b))
