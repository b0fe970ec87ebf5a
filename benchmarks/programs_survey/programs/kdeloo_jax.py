import jax.numpy as jnp


def f(log_h, x):
    h = jnp.exp(log_h)
    n, d = x.shape
    d2 = jnp.sum((x[:, None, :] - x[None, :, :]) ** 2, axis=-1)
    K = jnp.exp(-0.5 * d2 / h**2) / (2 * jnp.pi * h**2) ** (d / 2)
    K = jnp.where(jnp.eye(n, dtype=bool), 0.0, K)
    return -jnp.sum(jnp.log(K.sum(axis=1) / (n - 1)))
