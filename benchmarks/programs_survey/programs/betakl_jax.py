import jax
import jax.numpy as jnp
from jax.scipy.special import betaln, digamma


def f(u, v, k, n, a0=1.0, b0=1.0):
    a, b = jax.nn.softplus(u) + 1e-3, jax.nn.softplus(v) + 1e-3
    ell = jnp.sum(k * (digamma(a) - digamma(a + b)) + (n - k) * (digamma(b) - digamma(a + b)))
    kl = (betaln(a0, b0) - betaln(a, b) + (a - a0) * digamma(a) + (b - b0) * digamma(b)
          + (a0 - a + b0 - b) * digamma(a + b))  # fmt: skip
    return -(ell - jnp.sum(kl))
