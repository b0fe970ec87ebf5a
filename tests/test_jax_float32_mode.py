"""A JAX function's Hessian where the user has not enabled ``jax_enable_x64``: dgraph
traces in float64 throughout. JAX (0.10) keeps the conversion of a NumPy constant it made
once, by the array's identity, across ``jax_enable_x64``'s settings, so a single trace in
float32 (the gradient's guard looked for a select that way) put a float32 copy of the
constant into every later float64 trace: the reference's ``jvp`` then failed with
"lax.sub requires arguments to have the same dtypes" (a traceback, not a result)."""

from __future__ import annotations

import numpy as np
import pytest

import dgraph

jax = pytest.importorskip("jax")
jnp = jax.numpy


def test_a_hessian_of_a_function_with_a_numpy_constant_in_float32_mode():
    y = np.random.default_rng(5).normal(size=8)  # a new array: no conversion kept yet

    def f(x):
        return jnp.sum((x - y) ** 2 * jnp.sin(x))

    x = np.linspace(0.2, 0.8, 8)
    with jax.enable_x64(False):
        made = dgraph.hessian(f, x)
        got = made(x)
    with jax.enable_x64(True):
        want = np.asarray(jax.jit(jax.hessian(f))(jnp.asarray(x)))  # one compilation
    assert made.generated.verified
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
