import jax
import jax.numpy as jnp


def f(E, T, tags):
    Y = jax.nn.one_hot(tags, 4)
    gold = jnp.sum(E * Y) + jnp.einsum("ti,tj,ij->", Y[:-1], Y[1:], T)

    def step(alpha, e):
        return jax.nn.logsumexp(alpha[:, None] + T, axis=0) + e, None

    alpha, _ = jax.lax.scan(step, E[0], E[1:])
    return jax.nn.logsumexp(alpha) - gold
