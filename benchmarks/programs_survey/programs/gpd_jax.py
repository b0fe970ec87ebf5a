import jax.numpy as jnp


def f(log_sigma, xi, y, u=5.0):
    exc = y - u
    sigma = jnp.exp(log_sigma)
    small = jnp.abs(xi) < 1e-8
    xs = jnp.where(small, 1.0, xi)
    ll = jnp.where(
        small,
        -log_sigma - exc / sigma,
        -log_sigma - (1.0 + 1.0 / xs) * jnp.log1p(xs * exc / sigma),
    )
    return -jnp.sum(ll)
