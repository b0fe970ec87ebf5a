import jax
import jax.numpy as jnp


def forward(params, X):
    h = jnp.tanh(X @ params["l1"]["W"] + params["l1"]["b"])
    return h @ params["l2"]["W"] + params["l2"]["b"]


def f(W1, b1, W2, b2, X, Y, wd=1e-3):
    params = {"l1": {"W": W1, "b": b1}, "l2": {"W": W2, "b": b2}}
    sq = jax.tree_util.tree_map(lambda p: jnp.sum(p**2), params)
    l2 = jax.tree_util.tree_reduce(lambda a, b: a + b, sq)
    return jnp.mean((forward(params, X) - Y) ** 2) + wd * l2
