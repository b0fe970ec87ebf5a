import jax.numpy as jnp


def f(p, t):
    y = jnp.polyval(p, t)
    area = jnp.trapezoid(y**2, t)
    cum = jnp.concatenate([jnp.zeros(1), jnp.cumsum(0.5 * (y[1:] + y[:-1]) * jnp.diff(t))])
    return jnp.concatenate([cum, area[None]])
