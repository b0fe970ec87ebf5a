import jax.numpy as jnp

H = jnp.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.5]])
R = 0.2 * jnp.eye(2)
Z = jnp.array([0.3, -0.4])


def f(x, P):
    S = H @ P @ H.T + R
    K = jnp.linalg.solve(S, H @ P).T
    return x + K @ (Z - H @ x)
