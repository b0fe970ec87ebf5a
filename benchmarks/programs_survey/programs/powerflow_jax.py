import jax.numpy as jnp
from powerflow_np import COL, ROW, B, G


def f(th, V, P, Q):
    d = th[ROW] - th[COL]
    vv = V[ROW] * V[COL]
    p = vv * (G[ROW, COL] * jnp.cos(d) + B[ROW, COL] * jnp.sin(d))
    q = vv * (G[ROW, COL] * jnp.sin(d) - B[ROW, COL] * jnp.cos(d))
    Pc = jnp.zeros(14).at[ROW].add(p)
    Qc = jnp.zeros(14).at[ROW].add(q)
    return jnp.concatenate([Pc - P, Qc - Q])
