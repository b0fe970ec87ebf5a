import jax
import jax.numpy as jnp

INPUTS = "X:5x3"


@jax.custom_jvp
def safe_norm(v):
    return jnp.sqrt(jnp.sum(v**2, axis=-1))


@safe_norm.defjvp
def _safe_norm_jvp(primals, tangents):
    (v,), (dv,) = primals, tangents
    n = safe_norm(v)
    return n, jnp.sum(v * dv, axis=-1) / jnp.where(n > 0, n, 1.0)


def f(X):
    """A bending energy of a polyline with a custom_jvp norm (the usual safe norm) on
    edges and a softplus on stretch."""
    e = X[1:] - X[:-1]
    ln = safe_norm(e)
    stretch = jax.nn.softplus(ln - 1.0)
    cosang = jnp.sum(e[1:] * e[:-1], axis=1) / (ln[1:] * ln[:-1])
    return jnp.sum(stretch**2) + jnp.sum(1.0 - cosang)
