import jax.numpy as jnp
from jax.scipy.special import erfc


def f(mu, log_sigma, log_lam, rt):
    s, lam = jnp.exp(log_sigma), jnp.exp(log_lam)
    z = (mu + lam * s**2 - rt) / (jnp.sqrt(2.0) * s)
    return -jnp.sum(jnp.log(lam / 2) + lam / 2 * (2 * mu + lam * s**2 - 2 * rt) + jnp.log(erfc(z)))
