import jax.numpy as jnp
from jax.scipy.special import gammaln


def f(w, g, X, y):
    eta = X @ w
    lam = jnp.exp(eta)
    lpi = -jnp.logaddexp(0.0, -g)
    l1pi = -jnp.logaddexp(0.0, g)
    ll0 = jnp.logaddexp(lpi, l1pi - lam)
    llp = l1pi + y * eta - lam - gammaln(y + 1)
    return -jnp.sum(jnp.where(y == 0, ll0, llp))
