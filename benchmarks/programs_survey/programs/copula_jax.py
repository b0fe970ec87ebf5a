import jax.numpy as jnp
from jax.scipy.linalg import solve_triangular
from jax.scipy.special import ndtri


def f(rho, u):
    r = jnp.tanh(rho)
    R = jnp.array([[1.0, r[0], r[1]], [r[0], 1.0, r[2]], [r[1], r[2], 1.0]])
    L = jnp.linalg.cholesky(R)
    z = ndtri(u)
    w = solve_triangular(L, z.T, lower=True)
    n = u.shape[0]
    return n * jnp.sum(jnp.log(jnp.diag(L))) + 0.5 * jnp.sum(w**2) - 0.5 * jnp.sum(z**2)
