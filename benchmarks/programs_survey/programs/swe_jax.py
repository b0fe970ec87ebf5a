import jax.numpy as jnp


def f(h, hu):
    g = 9.81
    u = hu / h
    F1 = hu
    F2 = hu * u + 0.5 * g * h**2
    c = jnp.abs(u) + jnp.sqrt(g * h)
    a = jnp.maximum(c[:-1], c[1:])
    G1 = 0.5 * (F1[:-1] + F1[1:]) - 0.5 * a * (h[1:] - h[:-1])
    G2 = 0.5 * (F2[:-1] + F2[1:]) - 0.5 * a * (hu[1:] - hu[:-1])
    return jnp.concatenate([-jnp.diff(G1), -jnp.diff(G2)])
