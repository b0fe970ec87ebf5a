import jax
import jax.numpy as jnp

H = 0.05


def rhs(y, th):
    a, b, c, d = th
    return jnp.array([a * y[0] - b * y[0] * y[1], c * y[0] * y[1] - d * y[1]])


def f(y0, th):
    def step(_, y):
        k1 = rhs(y, th)
        k2 = rhs(y + H / 2 * k1, th)
        k3 = rhs(y + H / 2 * k2, th)
        k4 = rhs(y + H * k3, th)
        return y + H / 6 * (k1 + 2 * k2 + 2 * k3 + k4)

    return jax.lax.fori_loop(0, 20, step, y0)
