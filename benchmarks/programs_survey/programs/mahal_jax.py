import jax.numpy as jnp
import jax.scipy.linalg


def f(mu, Lraw, X):
    L = jnp.tril(Lraw, -1) + jnp.diag(jnp.exp(jnp.diag(Lraw)))
    S = L @ L.T + 1e-6 * jnp.eye(3)
    C = jax.scipy.linalg.cholesky(S, lower=True)
    Z = jax.scipy.linalg.solve_triangular(C, (X - mu).T, lower=True)
    return jnp.sum(Z**2, axis=0), 2.0 * jnp.sum(jnp.log(jnp.diag(C)))
