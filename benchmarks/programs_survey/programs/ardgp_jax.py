import jax.numpy as jnp
from jax.scipy.linalg import cho_factor, cho_solve


def f(log_ell, log_sf, log_sn, X, y):
    Xs = X / jnp.exp(log_ell)
    D2 = jnp.sum((Xs[:, None, :] - Xs[None, :, :]) ** 2, axis=-1)
    K = jnp.exp(2 * log_sf) * jnp.exp(-0.5 * D2) + (jnp.exp(2 * log_sn) + 1e-8) * jnp.eye(len(y))
    c, low = cho_factor(K, lower=True)
    alpha = cho_solve((c, low), y)
    return 0.5 * y @ alpha + jnp.sum(jnp.log(jnp.diag(c))) + 0.5 * len(y) * jnp.log(2 * jnp.pi)
