import jax
import jax.numpy as jnp

ALPHA = 0.25
GAMMA = 2.0


def f(w, X, y):
    z = X @ w
    logp = jax.nn.log_sigmoid(z)
    log1mp = jax.nn.log_sigmoid(-z)
    p = jax.nn.sigmoid(z)
    logpt = jnp.where(y == 1, logp, log1mp)
    pt = jnp.where(y == 1, p, 1 - p)
    at = jnp.where(y == 1, ALPHA, 1 - ALPHA)
    return -jnp.mean(at * (1 - pt) ** GAMMA * logpt)
