import jax
import jax.numpy as jnp

DT = 0.5


def f(th, y0):
    beta, sigma, gamma = th

    def step(y, _):
        sus, exp_, inf, rec = y
        new = beta * sus * inf
        y = jnp.stack(
            [
                sus - DT * new,
                exp_ + DT * (new - sigma * exp_),
                inf + DT * (sigma * exp_ - gamma * inf),
                rec + DT * gamma * inf,
            ]
        )
        return y, y[2]

    _, infected = jax.lax.scan(step, y0, None, length=60)
    return infected
