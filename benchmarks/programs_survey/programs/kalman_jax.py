import jax.numpy as jnp

H = jnp.array([[1.0, 0.0]])
R = jnp.array([[0.1]])
Z = jnp.array([0.7])


def f(x, P):
    S = H @ P @ H.T + R
    K = P @ H.T @ jnp.linalg.inv(S)
    xn = x + K @ (Z - H @ x)
    Pn = (jnp.eye(2) - K @ H) @ P
    return xn, Pn
