import jax.numpy as jnp


def f(lam, b, x, y):
    ly = jnp.log(y)
    safe = jnp.where(lam == 0.0, 1.0, lam)
    z = jnp.where(lam == 0.0, ly, jnp.expm1(safe * ly) / safe)
    r = z - b[0] - b[1] * x
    return 0.5 * y.size * jnp.log(jnp.mean(r**2)) - (lam - 1.0) * jnp.sum(ly)
