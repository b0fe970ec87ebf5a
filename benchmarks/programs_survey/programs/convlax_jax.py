import jax.numpy as jnp
from jax import lax

INPUTS = "x:8,k:2x3"


def f(x, k):
    # batch 1, 1 channel, width 8; kernel (out 2, in 1, 3)
    y = lax.conv_general_dilated(x[None, None, :], k[:, None, :], (1,), "SAME")
    return jnp.sum(jnp.tanh(y) ** 2)
