import jax.numpy as jnp
from cotan_np import TRI


def cot(a, b):
    return jnp.sum(a * b, axis=1) / jnp.linalg.norm(jnp.cross(a, b), axis=1)


def f(x):
    L = jnp.zeros((25, 3))
    for k in range(3):
        i, j, o = TRI[:, k], TRI[:, (k + 1) % 3], TRI[:, (k + 2) % 3]
        w = 0.5 * cot(x[i] - x[o], x[j] - x[o])
        L = L.at[i].add(w[:, None] * (x[j] - x[i]))
        L = L.at[j].add(w[:, None] * (x[i] - x[j]))
    return L
