import jax
import jax.numpy as jnp
import numpy as np

NODES, WEIGHTS = np.polynomial.legendre.leggauss(8)


def f(P):
    def speed(t):
        B = lambda t: (  # noqa: E731
            (1 - t) ** 3 * P[0]
            + 3 * (1 - t) ** 2 * t * P[1]
            + 3 * (1 - t) * t**2 * P[2]
            + t**3 * P[3]
        )
        return jnp.linalg.norm(jax.jacfwd(B)(t))

    return 0.5 * jnp.dot(WEIGHTS, jax.vmap(speed)(0.5 * (NODES + 1.0)))
