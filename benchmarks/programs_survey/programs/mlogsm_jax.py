import jax
import jax.numpy as jnp
from mlogsm_np import TARGET


def f(x, mask):
    ok = mask > 0
    logp = jnp.where(ok, jax.nn.log_softmax(x, axis=1, where=ok), 0.0)
    Y = jax.nn.one_hot(TARGET, 7)
    return -jnp.sum(Y * logp) + 0.1 * jnp.sum(jnp.exp(logp) * logp)
