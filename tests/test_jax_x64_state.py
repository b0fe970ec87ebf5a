"""A JAX function from ``make_function`` runs whatever the x64 flag is when it is called:
its check runs in double precision, and ``jax.jit`` keeps that trace, which failed to
compile once x64 was off again (``broadcast_in_dim`` between f64 and f32). Found as
docs/sparse.md's block failing when run alone and passing after any x64 test."""

from __future__ import annotations

import functools

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="JAX is not installed")
jnp = pytest.importorskip("jax.numpy")

import dgraph  # noqa: E402
from dgraph.frontends.jaxpr import from_jax  # noqa: E402


def _residual(u):
    lap = jnp.roll(u, 1, 0) + jnp.roll(u, -1, 0) + jnp.roll(u, 1, 1) - 3 * u
    return lap + 2.0 * jnp.exp(u)


@functools.cache
def _graph():
    """The array-level graph of :func:`_residual`, read once for the three cases."""
    return from_jax(_residual, np.linspace(0.1, 0.9, 16).reshape(4, 4), level="array")


@pytest.mark.parametrize(
    ("mode", "sparse"), [("jacobian", True), ("jacobian", False), ("jvp", False)]
)
def test_a_jax_tensor_function_runs_with_x64_off(mode, sparse):
    u = np.linspace(0.1, 0.9, 16).reshape(4, 4)
    f = dgraph.make_function(_graph(), mode, lang="jax", sparse=sparse)
    with jax.enable_x64(False):
        args = (jnp.asarray(u, jnp.float32),)
        if mode == "jvp":
            args += (jnp.ones((4, 4), jnp.float32),)
        out = jax.jit(f)(*args)
        out = out.todense() if sparse else out
        assert out.dtype == jnp.float32
    with jax.enable_x64(True):
        transform = (
            jax.jacfwd if mode == "jacobian" else lambda g: lambda a, v: jax.jvp(g, (a,), (v,))[1]
        )
        # jitted: one compilation, not one per eager operation
        ref = jax.jit(transform(_residual))(*(jnp.asarray(a, jnp.float64) for a in args))
    np.testing.assert_allclose(np.asarray(out).reshape(np.shape(ref)), ref, rtol=1e-5)
