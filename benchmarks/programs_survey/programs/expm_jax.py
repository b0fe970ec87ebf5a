import jax.numpy as jnp
from jax.scipy.linalg import expm


def f(k, x0, t=(0.5, 1.0, 2.0, 4.0)):
    A = jnp.array([[-k[0], 0.0, 0.0], [k[0], -k[1], k[2]], [0.0, k[1], -k[2]]])
    return jnp.stack([expm(A * ti) @ x0 for ti in t])
