import jax.numpy as jnp
from jax.scipy.special import gammaln


def f(w, log_r, X, k):
    r = jnp.exp(log_r)
    mu = jnp.exp(X @ w)
    ll = (
        gammaln(k + r)
        - gammaln(r)
        - gammaln(k + 1)
        + r * jnp.log(r / (r + mu))
        + k * jnp.log(mu / (r + mu))
    )
    return -jnp.mean(ll)
