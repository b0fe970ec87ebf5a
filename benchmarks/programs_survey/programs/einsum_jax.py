import jax.numpy as jnp


def f(a, b, M):
    c = jnp.cross(a, b)
    y = jnp.einsum("ij,j->i", M, c)
    return y * jnp.einsum("i,i->", a, b) + jnp.einsum("ii->", M)
