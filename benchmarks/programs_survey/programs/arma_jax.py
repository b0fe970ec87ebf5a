import jax
import jax.numpy as jnp


def f(th, y):
    phi, theta, ls = th[0], th[1], th[2]

    def step(e_prev, yy):
        yt, ylag = yy
        e = yt - phi * ylag - theta * e_prev
        return e, e

    _, es = jax.lax.scan(step, y[0], (y[1:], y[:-1]))
    s2 = jnp.exp(2 * ls)
    return 0.5 * (y[0] ** 2 + jnp.sum(es**2)) / s2 + 400 * ls + 200 * jnp.log(2 * jnp.pi)
