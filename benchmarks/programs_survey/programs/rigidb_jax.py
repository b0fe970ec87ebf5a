import jax
import jax.numpy as jnp


def quat_mul(a, b):
    w1, v1 = a[0], a[1:]
    w2, v2 = b[0], b[1:]
    return jnp.concatenate([jnp.array([w1 * w2 - v1 @ v2]), w1 * v2 + w2 * v1 + jnp.cross(v1, v2)])


def rhs(s, inertia):
    w, q = s[:3], s[3:]
    dw = -jnp.cross(w, inertia * w) / inertia
    dq = 0.5 * quat_mul(q, jnp.concatenate([jnp.zeros(1), w]))
    return jnp.concatenate([dw, dq])


def f(w0, q0, Ivec, dt=0.05, steps=20):
    def body(_, s):
        k1 = rhs(s, Ivec)
        k2 = rhs(s + 0.5 * dt * k1, Ivec)
        k3 = rhs(s + 0.5 * dt * k2, Ivec)
        k4 = rhs(s + dt * k3, Ivec)
        return s + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)

    s = jax.lax.fori_loop(0, steps, body, jnp.concatenate([w0, q0 / jnp.linalg.norm(q0)]))
    return s[3:]
