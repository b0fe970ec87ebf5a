import jax
import jax.numpy as jnp

DT = 0.4


def f(u0, c):
    def body(_, st):
        u_prev, u = st
        lap = jnp.zeros_like(u).at[1:-1].set(u[2:] - 2 * u[1:-1] + u[:-2])
        return u, 2 * u - u_prev + (DT * c) ** 2 * lap

    return jax.lax.fori_loop(0, 40, body, (u0, u0))[1]
