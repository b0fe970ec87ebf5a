import jax.numpy as jnp
import numpy as np

INPUTS = "q:3"
LINKS = np.array([0.5, 0.4, 0.25])


def rot2(a):
    c, s = jnp.cos(a), jnp.sin(a)
    return jnp.array([[c, -s], [s, c]])


def f(q):
    R = jnp.eye(2)
    p = jnp.zeros(2)
    joints = []
    for i in range(3):
        R = R @ rot2(q[i])
        p = p + R @ jnp.array([LINKS[i], 0.0])
        joints.append(p)
    phi = jnp.arctan2(R[1, 0], R[0, 0])
    return jnp.concatenate([jnp.stack(joints).ravel(), jnp.array([phi])])
