import jax
import jax.numpy as jnp


def f(s, beta, X):
    def cond(c):
        return c[1] > 1e-12

    def body(c):
        delta, _ = c
        u = delta + X @ beta
        share = jax.nn.softmax(jnp.concatenate([jnp.zeros(1), u]))[1:]
        new = delta + jnp.log(s) - jnp.log(share)
        return new, jnp.max(jnp.abs(new - delta))

    delta, _ = jax.lax.while_loop(cond, body, (jnp.zeros(20), 1.0))
    return delta
