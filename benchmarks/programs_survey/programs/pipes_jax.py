import jax.numpy as jnp
import numpy as np
from pipes_np import DEMAND, PIPES, D, L

INC = np.zeros((5, 6))
INC[PIPES[:, 0], np.arange(6)] = -1.0
INC[PIPES[:, 1], np.arange(6)] = 1.0


def f(Q, H, C, H0=50.0):
    Hn = jnp.concatenate([jnp.array([H0]), H])
    hl = 10.67 * L / (C**1.852 * D**4.87) * jnp.sign(Q) * jnp.abs(Q) ** 1.852
    r_energy = Hn[PIPES[:, 0]] - Hn[PIPES[:, 1]] - hl
    return jnp.concatenate([r_energy, INC[1:] @ Q - DEMAND])
