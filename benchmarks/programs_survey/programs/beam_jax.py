import jax.numpy as jnp
from beam_np import FE, KE, NE


def f(EI, q):
    n = 2 * (NE + 1)
    K = jnp.zeros((n, n))
    F = jnp.zeros(n)
    for e in range(NE):
        K = K.at[2 * e : 2 * e + 4, 2 * e : 2 * e + 4].add(EI[e] * KE)
        F = F.at[2 * e : 2 * e + 4].add(q * FE)
    u = jnp.linalg.solve(K[2:, 2:], F[2:])
    return u[-2], u[-1], jnp.max(jnp.abs(u[::2]))
