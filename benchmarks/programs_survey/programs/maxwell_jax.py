import jax.numpy as jnp

C = 0.5


def f(E, H):
    E, H = jnp.asarray(E), jnp.asarray(H)
    Hn = H.at[:-1].set(H[:-1] + C * (E[1:] - E[:-1]))
    En = E.at[1:].set(E[1:] + C * (Hn[1:] - Hn[:-1]))
    return En, Hn
