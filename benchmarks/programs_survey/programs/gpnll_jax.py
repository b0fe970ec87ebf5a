import jax.numpy as jnp
from jax.scipy.linalg import cho_solve, cholesky


def f(hyp, X, y):
    ell, sf2, sn2 = jnp.exp(hyp[0]), jnp.exp(2 * hyp[1]), jnp.exp(2 * hyp[2])
    d2 = jnp.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = sf2 * jnp.exp(-0.5 * d2 / ell**2) + sn2 * jnp.eye(X.shape[0])
    L = cholesky(K, lower=True)
    alpha = cho_solve((L, True), y)
    return 0.5 * y @ alpha + jnp.sum(jnp.log(jnp.diag(L))) + 0.5 * X.shape[0] * jnp.log(2 * jnp.pi)
