import jax.numpy as jnp
from jax.nn import softmax
from jax.scipy.special import rel_entr


def f(z, p):
    return jnp.sum(rel_entr(p, softmax(z)))
