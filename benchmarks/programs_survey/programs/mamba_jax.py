import jax
import jax.numpy as jnp


def f(x, Wd, WB, WC, A_log):
    delta = jax.nn.softplus(x @ Wd)
    Bm = x @ WB
    Cm = x @ WC
    A = -jnp.exp(A_log)
    dA = jnp.exp(delta[:, :, None] * A)
    dBx = delta[:, :, None] * Bm[:, None, :] * x[:, :, None]

    def combine(a, b):
        return a[0] * b[0], b[0] * a[1] + b[1]

    _, hs = jax.lax.associative_scan(combine, (dA, dBx))
    y = jnp.einsum("ldn,ln->ld", hs, Cm)
    return jnp.mean((y - x[::-1]) ** 2)
