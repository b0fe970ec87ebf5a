import jax.numpy as jnp


def f(x):
    X = jnp.fft.rfft(x)
    return jnp.abs(X) ** 2
