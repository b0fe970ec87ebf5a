import jax
import jax.numpy as jnp


def f(a, b):
    def cond(c):
        _, dx, k = c
        return (jnp.max(jnp.abs(dx)) > 1e-13) & (k < 50)

    def body(c):
        x, _, k = c
        dx = (x**3 + a * x - b) / (3 * x**2 + a)
        return x - dx, dx, k + 1

    x, _, _ = jax.lax.while_loop(cond, body, (jnp.cbrt(b), jnp.ones_like(b), 0))
    return x
