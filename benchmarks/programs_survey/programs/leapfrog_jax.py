import jax
import jax.numpy as jnp


def V(q, alpha):
    d = jnp.diff(jnp.concatenate([jnp.zeros(1), q, jnp.zeros(1)]))
    return jnp.sum(0.5 * d**2 + alpha / 3.0 * d**3)


def f(q, p, alpha, dt=0.1, steps=40):
    dV = jax.grad(V)

    def step(carry, _):
        q, p = carry
        p = p - 0.5 * dt * dV(q, alpha)
        q = q + dt * p
        p = p - 0.5 * dt * dV(q, alpha)
        return (q, p), None

    (q, p), _ = jax.lax.scan(step, (q, p), None, length=steps)
    return q, p
