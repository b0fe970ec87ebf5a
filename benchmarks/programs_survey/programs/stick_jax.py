import jax
import jax.numpy as jnp
from jax.scipy.special import logsumexp


def stick_breaking(a):
    v = jax.nn.sigmoid(a)
    rest = jnp.cumprod(1.0 - v)
    return jnp.append(v, 1.0) * jnp.concatenate([jnp.ones(1), rest])


def f(a, m, log_s, x):
    w = stick_breaking(a)
    z = (x[:, None] - m) / jnp.exp(log_s)
    comp = jnp.log(w) - 0.5 * z**2 - log_s - 0.5 * jnp.log(2 * jnp.pi)
    return -jnp.sum(logsumexp(comp, axis=1))
