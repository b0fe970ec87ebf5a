import jax.numpy as jnp
from jax.scipy.special import gammaln


def f(beta, log_nu, log_s, X, y):
    nu, s = jnp.exp(log_nu), jnp.exp(log_s)
    r = (y - X @ beta) / s
    ll = (
        gammaln((nu + 1) / 2)
        - gammaln(nu / 2)
        - 0.5 * jnp.log(nu * jnp.pi)
        - jnp.log(s)
        - (nu + 1) / 2 * jnp.log1p(r**2 / nu)
    )
    return -jnp.sum(ll)
