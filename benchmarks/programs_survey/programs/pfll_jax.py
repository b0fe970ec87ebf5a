import jax
import jax.numpy as jnp
from jax.scipy.special import logsumexp


def f(th, eps, y):
    phi, sig = jnp.tanh(th[0]), jnp.exp(th[1])
    n = eps.shape[1]

    def step(c, inp):
        x, logw, ll = c
        e, yt = inp
        x = phi * x + sig * e
        logw = logw - 0.5 * (yt - x) ** 2 / 0.3 - 0.5 * jnp.log(2 * jnp.pi * 0.3)
        c = logsumexp(logw)
        return (x, logw - c + jnp.log(n), ll + c - jnp.log(n)), None

    (_, _, ll), _ = jax.lax.scan(step, (jnp.zeros(n), jnp.zeros(n), 0.0), (eps, y))
    return -ll
