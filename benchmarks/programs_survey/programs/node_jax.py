import jax
import jax.numpy as jnp

NSTEP = 20
DT = 0.05


def f(x0, W1, W2):
    def rhs(x):
        return W2 @ jnp.tanh(W1 @ x)

    def body(_, x):
        k1 = rhs(x)
        k2 = rhs(x + 0.5 * DT * k1)
        k3 = rhs(x + 0.5 * DT * k2)
        k4 = rhs(x + DT * k3)
        return x + DT / 6 * (k1 + 2 * k2 + 2 * k3 + k4)

    return jax.lax.fori_loop(0, NSTEP, body, x0)
