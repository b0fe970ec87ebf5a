import jax.numpy as jnp


def f(q, p):
    m, length, g = 1.0, 1.0, 9.81
    kinetic = 0.5 * jnp.sum(p**2) / (m * length**2)
    y = -length * jnp.cumsum(jnp.cos(q))
    potential = m * g * jnp.sum(y)
    springs = 0.5 * 3.0 * jnp.sum(jnp.diff(q) ** 2)
    return kinetic + potential + springs
