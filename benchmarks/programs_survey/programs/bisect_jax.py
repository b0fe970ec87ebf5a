import jax
import jax.numpy as jnp
from jax.scipy.special import ndtr


def mixture_cdf(q, p, mu, s):
    return jnp.sum(p * ndtr((q - mu) / s))


def f(w, mu, log_s, alpha, iters=60):
    p = jax.nn.softmax(w)
    s = jnp.exp(log_s)

    def body(_, bracket):
        lo, hi = bracket
        mid = 0.5 * (lo + hi)
        below = mixture_cdf(mid, p, mu, s) < alpha
        return jnp.where(below, mid, lo), jnp.where(below, hi, mid)

    lo, hi = jax.lax.fori_loop(0, iters, body, (jnp.array(-50.0), jnp.array(50.0)))
    q = 0.5 * (lo + hi)
    pdf = jnp.sum(p * jnp.exp(-0.5 * ((q - mu) / s) ** 2) / (s * jnp.sqrt(2 * jnp.pi)))
    return q - (mixture_cdf(q, p, mu, s) - alpha) / pdf
