"""A JAX module's jitted functions given their index arrays as arguments
(``dgraph.codegen.tensor.jit_arguments``, used from ``ARGUMENTS_FROM`` index entries on:
here from 0, at a small size): a Lagrangian's sparse Hessian equals ``jax.hessian`` in
float64, with its pattern's nonzeros."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

import dgraph  # noqa: E402
from dgraph.codegen.tensor import jit_arguments  # noqa: E402

from .dense import dense as as_dense  # noqa: E402


def constraints(x):
    return x[:-2] * x[1:-1] + jnp.exp(x[2:]) + 2.0 * x[:-2] - x[1:-1]


def test_index_arrays_as_arguments_give_jax_hessians_values(monkeypatch):
    monkeypatch.setattr(jit_arguments, "ARGUMENTS_FROM", 0)
    rng = np.random.default_rng(3)
    x, v = rng.uniform(0.0, 0.5, 12), rng.standard_normal(10)
    H = dgraph.make_function(constraints, "hessian", "jax", point=[x], weights=v, sparse=True)
    assert "_bound(_jacobian_arrays, _K" in H.generated.text  # indices as arguments
    with jax.enable_x64(True):
        reference = np.asarray(
            jax.jit(jax.hessian(lambda u: jnp.dot(v, constraints(u))))(jnp.asarray(x))
        )
        h = H(x, v)
        got = as_dense(h)
    np.testing.assert_allclose(got, reference, rtol=1e-12, atol=1e-12)
    assert h.nse == np.count_nonzero(reference)
