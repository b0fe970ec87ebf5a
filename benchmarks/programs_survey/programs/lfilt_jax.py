import jax
import jax.numpy as jnp

INPUTS = "b:3,x:32"
A = jnp.array([1.0, -1.2, 0.5])


def f(b, x):
    xp = jnp.concatenate([jnp.zeros(2), x])

    def step(carry, t):
        y1, y2 = carry
        y = b[0] * xp[t + 2] + b[1] * xp[t + 1] + b[2] * xp[t] - A[1] * y1 - A[2] * y2
        return (y, y1), y

    _, y = jax.lax.scan(step, (0.0, 0.0), jnp.arange(32))
    return jnp.sum(y.reshape(4, 8) ** 2, axis=1)
