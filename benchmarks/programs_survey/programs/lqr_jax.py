import jax
import jax.numpy as jnp

A = jnp.array([[1.0, 0.1, 0, 0], [0, 1.0, 0.1, 0], [0, 0, 1.0, 0.1], [0.01, 0, 0, 0.98]])
B = jnp.array([[0, 0], [0.1, 0], [0, 0], [0, 0.1]])


def f(Kg, x0):
    def body(_, c):
        x, J = c
        u = -Kg @ x
        return A @ x + B @ u, J + x @ x + 0.1 * (u @ u)

    _, J = jax.lax.fori_loop(0, 60, body, (x0, 0.0))
    return J
