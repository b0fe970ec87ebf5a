import jax.numpy as jnp


def f(w, A, b):
    r = A @ w - b
    d = 0.5
    loss = jnp.where(jnp.abs(r) <= d, 0.5 * r**2, d * (jnp.abs(r) - 0.5 * d))
    return jnp.sum(loss) + 0.01 * jnp.linalg.norm(w) ** 2
