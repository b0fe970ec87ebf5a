import jax.numpy as jnp
from jax.scipy.special import gammaln


def f(a, P):
    al = jnp.exp(a)
    n = P.shape[0]
    return -(n * (gammaln(jnp.sum(al)) - jnp.sum(gammaln(al))) + jnp.sum((al - 1.0) * jnp.log(P)))
