import jax.numpy as jnp

X = jnp.array([[0.0, 1.0], [1.0, 0.0]])
Z = jnp.diag(jnp.array([1.0, -1.0]))
I2 = jnp.eye(2)
CNOT = jnp.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]], float)


def ry(a):
    c, s = jnp.cos(a / 2), jnp.sin(a / 2)
    return jnp.array([[c, -s], [s, c]])


def f(theta):
    H = -jnp.kron(Z, Z) - 0.7 * (jnp.kron(X, I2) + jnp.kron(I2, X))
    psi = jnp.zeros(4).at[0].set(1.0)
    for layer in range(3):
        psi = CNOT @ (jnp.kron(ry(theta[2 * layer]), ry(theta[2 * layer + 1])) @ psi)
    return psi @ H @ psi
