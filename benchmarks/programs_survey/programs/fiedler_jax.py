import jax.numpy as jnp
import numpy as np

EDGES = np.array([[0, 1], [1, 2], [2, 3], [3, 0], [0, 2], [3, 4], [4, 5], [5, 3]])


def f(logw, n=6):
    w = jnp.exp(logw)
    i, j = EDGES[:, 0], EDGES[:, 1]
    L = jnp.zeros((n, n)).at[i, j].add(-w).at[j, i].add(-w).at[i, i].add(w).at[j, j].add(w)
    return jnp.linalg.eigvalsh(L)[1:3]
