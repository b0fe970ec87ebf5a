import jax
import jax.numpy as jnp

TEND = 100.0


def f(th, t):
    mu, alpha, beta = jnp.exp(th[0]), jnp.exp(th[1]), jnp.exp(th[2])
    gaps = jnp.diff(t)

    def step(A, g):
        A = jnp.exp(-beta * g) * (1.0 + A)
        return A, jnp.log(mu + alpha * A)

    _, lls = jax.lax.scan(step, 0.0, gaps)
    ll = jnp.log(mu) + jnp.sum(lls)
    comp = mu * TEND + alpha / beta * jnp.sum(1.0 - jnp.exp(-beta * (TEND - t)))
    return -(ll - comp)
