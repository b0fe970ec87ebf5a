import jax.numpy as jnp
from jax.scipy.special import gammaln


def f(theta, y):
    mu, log_s, log_nu = theta[0], theta[1], theta[2]
    s, nu = jnp.exp(log_s), jnp.exp(log_nu)
    z = (y - mu) / s
    ll = (
        gammaln((nu + 1) / 2)
        - gammaln(nu / 2)
        - 0.5 * jnp.log(nu * jnp.pi)
        - log_s
        - (nu + 1) / 2 * jnp.log1p(z**2 / nu)
    )
    return -jnp.sum(ll)
