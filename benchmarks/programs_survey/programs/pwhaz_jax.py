import jax.numpy as jnp

CUTS = jnp.array([0.0, 1.0, 2.0, 4.0, jnp.inf])


def f(log_h, beta, t, z, d):
    h = jnp.exp(log_h)
    expo = jnp.clip(t[:, None] - CUTS[:-1], 0.0, jnp.diff(CUTS))
    k = jnp.searchsorted(CUTS[1:-1], t, side="left")
    eta = beta * z
    return -jnp.sum(d * (log_h[k] + eta) - jnp.exp(eta) * (expo @ h))
