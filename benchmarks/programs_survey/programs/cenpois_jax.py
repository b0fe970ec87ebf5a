import jax.numpy as jnp
from jax.scipy.special import gammainc, gammaln


def f(beta, x, y, cens):
    eta = beta[0] + beta[1] * x
    mu = jnp.exp(eta)
    exact = y * eta - mu - gammaln(y + 1)
    tail = jnp.log(gammainc(jnp.maximum(y, 1.0), mu))
    return -jnp.sum(jnp.where(cens > 0, tail, exact))
