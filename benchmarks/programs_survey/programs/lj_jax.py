import jax.numpy as jnp


def f(pos):
    d = pos[:, None, :] - pos[None, :, :]
    r2 = jnp.sum(d**2, axis=-1)
    i, j = jnp.triu_indices(4, k=1)
    s6 = 1.0 / r2[i, j] ** 3
    return jnp.sum(4.0 * (s6**2 - s6))
