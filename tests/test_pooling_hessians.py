"""Hessians through max and min pooling: the gradient JAX writes holds
``select_and_scatter_add`` (pooling's transpose), read as the vjp of the pooling's own
reading, so each window's derivative goes to its first extreme entry, as XLA's does;
ties, overlapping windows and padding included."""

from __future__ import annotations

import numpy as np
import pytest

import dgraph

jax = pytest.importorskip("jax")
jnp, lax = jax.numpy, jax.lax


def _pool(kind: str, window, strides, padding):
    init, op = (-jnp.inf, lax.max) if kind == "max" else (jnp.inf, lax.min)

    def f(x):
        pooled = lax.reduce_window(x.reshape(1, 4, 4, 1), init, op, window, strides, padding)
        return jnp.sum(pooled**2 * jnp.sin(pooled)) + jnp.sum(x**3) * 0.1

    return f


TIES = np.array([0.7, 0.7, 0.2, 0.9, 1.0, 0.5, 1.0, -0.3, 0.4, 0.4, 0.4, 0.4, 0.8, 0.1, 0.8, 0.2])


@pytest.mark.parametrize(
    "kind, window, strides, padding",
    [
        ("max", (1, 2, 2, 1), (1, 2, 2, 1), "VALID"),  # disjoint windows
        ("min", (1, 3, 3, 1), (1, 1, 1, 1), "SAME"),  # overlapping, padded
        ("max", (1, 2, 2, 1), (1, 1, 2, 1), ((0, 0), (1, 0), (0, 1), (0, 0))),
    ],
    ids=["max-disjoint", "min-overlapping-same", "max-padded"],
)
def test_pooling_hessian_equals_jax_at_ties(kind, window, strides, padding):
    f = _pool(kind, window, strides, padding)
    with jax.enable_x64(True):
        jaxpr = str(jax.make_jaxpr(jax.grad(f))(TIES))
        want = np.asarray(jax.hessian(f)(TIES))
    assert "select_and_scatter_add" in jaxpr and np.isfinite(want).all() and want.any()
    np.testing.assert_allclose(dgraph.hessian(f, TIES)(TIES), want, atol=1e-13)
