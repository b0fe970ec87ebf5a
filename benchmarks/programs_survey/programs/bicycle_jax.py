from functools import partial

import jax
import jax.numpy as jnp

M, IZ, LF, LR, U = 1500.0, 2500.0, 1.2, 1.4, 20.0


def pacejka(alpha, B, C, D, E):
    x = B * alpha
    return D * jnp.sin(C * jnp.arctan(x - E * (x - jnp.arctan(x))))


def f(tire, delta, dt=0.02):
    tire_fn = partial(pacejka, B=tire[0], C=tire[1], D=tire[2], E=tire[3])

    def step(s, d):
        vy, r = s
        Fyf = tire_fn(d - jnp.arctan2(vy + LF * r, U))
        Fyr = tire_fn(-jnp.arctan2(vy - LR * r, U))
        dvy = (Fyf * jnp.cos(d) + Fyr) / M - U * r
        dr = (LF * Fyf * jnp.cos(d) - LR * Fyr) / IZ
        s = jnp.stack([vy + dt * dvy, r + dt * dr])
        return s, s[1]

    return jax.lax.scan(step, jnp.zeros(2), delta)[1]
