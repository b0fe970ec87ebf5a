import jax
import jax.numpy as jnp
import numpy as np

EPS = jnp.asarray(np.random.default_rng(46).normal(size=(8, 3)))


def elbo(q, X, y, prior_sd):
    sigma = jax.nn.softplus(q["rho"])
    w = q["mu"] + sigma * EPS
    z = w @ X.T
    loglik = jnp.sum(y * jax.nn.log_sigmoid(z) + (1 - y) * jax.nn.log_sigmoid(-z), axis=1).mean()
    kl = jnp.sum(jnp.log(prior_sd / sigma) + (sigma**2 + q["mu"] ** 2) / (2 * prior_sd**2) - 0.5)
    return loglik - kl


def f(mu, rho, X, y, prior_sd=1.0):
    q = {"mu": mu, "rho": rho}
    penalty = sum(jax.tree_util.tree_leaves(jax.tree_util.tree_map(lambda a: jnp.sum(a**2), q)))
    return -elbo(q, X, y, prior_sd) + 1e-3 * jnp.sum(jax.nn.sigmoid(rho)) + 1e-4 * penalty
