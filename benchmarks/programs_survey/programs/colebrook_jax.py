import jax
import jax.numpy as jnp


def f(Re, rel_rough, iters=12):
    def cond(c):
        return c[0] < iters

    def body(c):
        i, x = c
        return i + 1, -2.0 * jnp.log10(rel_rough / 3.7 + 2.51 * x / Re)

    _, x = jax.lax.while_loop(cond, body, (0, jnp.full(Re.shape, 8.0)))
    return 1.0 / x**2
