import jax
import jax.numpy as jnp
from jax.scipy.special import gammaln


def f(beta, gamma, log_alpha, X, y, expo):
    mu = expo * jnp.exp(X @ beta)
    pi = jax.nn.sigmoid(gamma)
    r = jnp.exp(-log_alpha)
    log_nb = (
        gammaln(y + r) - gammaln(r) - gammaln(y + 1)
        + r * jnp.log(r / (r + mu)) + y * jnp.log(mu / (r + mu))
    )  # fmt: skip
    p0 = (r / (r + mu)) ** r
    ll = jnp.where(y == 0, jnp.log(pi + (1 - pi) * p0), jnp.log1p(-pi) + log_nb)
    return -jnp.sum(ll)
