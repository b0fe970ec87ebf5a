import jax
import jax.numpy as jnp


def f(x0, q):
    def step(x, qk):
        ca, T = x[0], x[1]
        r = 7.2e10 * jnp.exp(-8750.0 / T) * ca
        dca = qk / 100.0 * (1.0 - ca) - r
        dT = qk / 100.0 * (350.0 - T) + 209.2 * r + 2.09 * (300.0 - T)
        x = jnp.stack([ca + 0.01 * dca, T + 0.01 * dT])
        return x, x[1]

    _, Ts = jax.lax.scan(step, x0, q)
    return Ts
