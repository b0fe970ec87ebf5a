import jax
import jax.numpy as jnp

DT = 0.5


def f(th, y0):
    beta, sigma, gamma = th

    def step(y, _):
        S, E, I, R = y
        new = beta * S * I
        y = jnp.stack([S - DT * new, E + DT * (new - sigma * E),
                       I + DT * (sigma * E - gamma * I), R + DT * gamma * I])  # fmt: skip
        return y, y[2]

    _, infected = jax.lax.scan(step, y0, None, length=60)
    return infected
