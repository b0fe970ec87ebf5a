import jax.numpy as jnp
from jax.scipy.special import logsumexp


def f(logits, mu, log_s, x):
    logw = logits - logsumexp(logits)
    z = (x[:, None] - mu[None, :]) / jnp.exp(log_s)[None, :]
    comp = -0.5 * z**2 - log_s[None, :] - 0.5 * jnp.log(2 * jnp.pi)
    return -jnp.sum(logsumexp(logw[None, :] + comp, axis=1))
