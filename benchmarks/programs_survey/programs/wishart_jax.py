import jax.numpy as jnp
from jax.scipy.special import multigammaln


def f(theta, nu, X):
    p = X.shape[0]
    L = jnp.zeros((p, p)).at[jnp.tril_indices(p)].set(theta)
    L = L.at[jnp.diag_indices(p)].set(jnp.exp(jnp.diag(L)))
    S = L @ L.T
    logdet_S = jnp.linalg.slogdet(S)[1]
    logdet_X = jnp.linalg.slogdet(X)[1]
    tr = jnp.trace(jnp.linalg.solve(S, X))
    return -(
        0.5 * (nu - p - 1) * logdet_X - 0.5 * tr - 0.5 * nu * p * jnp.log(2.0)
        - 0.5 * nu * logdet_S - multigammaln(0.5 * nu, p)
    )  # fmt: skip
