import jax
import jax.numpy as jnp


def f(A, servers=6):
    B = jax.lax.fori_loop(1, servers + 1, lambda n, B: A * B / (n + A * B), jnp.ones_like(A))
    rho = A / servers
    C = B / (1.0 - rho * (1.0 - B))
    return jnp.concatenate([B, C, C / (servers - A)])
