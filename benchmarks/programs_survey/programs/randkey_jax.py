import jax
import jax.numpy as jnp

INPUTS = "mu:6,log_sigma:6,y:6"
PARAMS = "y"


def f(mu, log_sigma, y):
    # a reparameterised ELBO with a fixed key inside the function
    k1, k2 = jax.random.split(jax.random.PRNGKey(0))
    eps = jax.random.normal(k1, (32, 6))
    drop = jax.random.bernoulli(k2, 0.8, (32, 6))
    z = mu + jnp.exp(log_sigma) * eps
    ll = -0.5 * jnp.sum(jnp.where(drop, (y - jnp.tanh(z)) ** 2, 0.0), axis=1)
    kl = 0.5 * jnp.sum(jnp.exp(2 * log_sigma) + mu**2 - 1 - 2 * log_sigma)
    return -jnp.mean(ll) + kl


def POINT(rng):
    return [0.3 * rng.normal(size=6), -1.0 + 0.1 * rng.normal(size=6), rng.normal(size=6)]
