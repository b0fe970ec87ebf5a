import jax.numpy as jnp


def f(a, b):
    z = a + 1j * b
    w = z * z + jnp.exp(1j * a)
    return jnp.real(w) + jnp.imag(w * jnp.conj(z))
