import jax.numpy as jnp


def f(W1, b1, w2, X, t):
    H = jnp.tanh(X @ W1.T + b1)
    pred = H @ w2
    return 0.5 * jnp.mean((pred - t) ** 2) + 1e-3 * jnp.sum(W1**2)
