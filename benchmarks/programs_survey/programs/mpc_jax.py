import jax
import jax.numpy as jnp


def f(u, x0, dt=0.1, umax=1.0):
    def step(x, ut):
        a = jnp.clip(ut, -umax, umax)
        x = jnp.array([x[0] + dt * x[1] + 0.5 * dt**2 * a, x[1] + dt * a])
        return x, (x[0] - 1.0) ** 2 + 0.1 * x[1] ** 2 + 0.01 * a**2

    _, costs = jax.lax.scan(step, x0, u)
    return jnp.sum(costs) + 10.0 * jnp.sum(jax.nn.relu(jnp.abs(u) - umax) ** 2)
