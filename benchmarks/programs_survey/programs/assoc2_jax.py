import jax
import jax.numpy as jnp


def f(a, b, u):
    # the same recurrence as a product of 3x3 companion matrices, by associative_scan
    n = a.shape[0]
    z, o = jnp.zeros(n), jnp.ones(n)
    M = jnp.stack([jnp.stack([a, b, u], -1), jnp.stack([o, z, z], -1),
                   jnp.stack([z, z, o], -1)], 1)  # fmt: skip

    def combine(p, q):
        return jnp.einsum("...ij,...jk->...ik", q, p)

    P = jax.lax.associative_scan(combine, M)
    ys = P[:, 0, 2]  # state (y, y_prev, 1) from (0, 0, 1)
    return jnp.sum(ys**2) / n
