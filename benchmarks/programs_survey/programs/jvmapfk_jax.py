import jax
import jax.numpy as jnp

INPUTS = "L:3,Q:6x3"


def fk(L, q):
    th = jnp.cumsum(q)
    return jnp.array([jnp.sum(L * jnp.cos(th)), jnp.sum(L * jnp.sin(th))])


def f(L, Q):
    """Link-length calibration residuals: forward kinematics vmapped over six recorded
    configurations, distance to a fixed target."""
    P = jax.vmap(fk, in_axes=(None, 0))(L, Q)
    return jnp.linalg.norm(P - jnp.array([0.5, 0.5]), axis=1)
