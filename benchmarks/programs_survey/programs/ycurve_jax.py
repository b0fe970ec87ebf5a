import jax.numpy as jnp


def f(s):
    n = len(s)
    D = jnp.zeros(n)
    for i in range(n):
        D = D.at[i].set((1 - s[i] * jnp.sum(D[:i])) / (1 + s[i]))
    return -jnp.log(D) / jnp.arange(1, n + 1)
