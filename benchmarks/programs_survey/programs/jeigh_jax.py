import jax.numpy as jnp

INPUTS = "P:6x3,m:6"


def f(P, m):
    """Principal moments of inertia of a point-mass cloud (eigvalsh of the inertia tensor
    about the centre of mass) and a QR / Cholesky of the covariance."""
    c = m @ P / jnp.sum(m)
    Q = P - c
    r2 = jnp.sum(Q**2, axis=1)
    inertia = jnp.sum(m * r2) * jnp.eye(3) - (Q * m[:, None]).T @ Q
    moments = jnp.linalg.eigvalsh(inertia)
    C = Q.T @ Q + 0.1 * jnp.eye(3)
    R = jnp.linalg.qr(C)[1]
    Lc = jnp.linalg.cholesky(C)
    return jnp.concatenate([moments, jnp.abs(jnp.diag(R)), jnp.diag(Lc)])


def POINT(rng):
    import numpy as np

    return [rng.normal(size=(6, 3)), np.exp(0.3 * rng.normal(size=6))]
