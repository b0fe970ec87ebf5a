"""Refusals survey44 left (benchmarks/RESULTS.md, session 44, defects 4, 6 and 7), one
small test each, values against closed forms (JAX's agree: benchmarks/RESULTS.md)."""

import numpy as np
import pytest

import dgraph


def test_jax_det_of_a_stack_of_matrices():
    """``jnp.linalg.det`` of a stack of 4×4 matrices over two batch axes: "triangular_solve:
    only one square matrix is supported" (its custom rule was read). Now one ``det`` per
    matrix, as NumPy's reader reads ``np.linalg.det`` of a stack:
    ``d(det²)/dA = 2·det²·A⁻ᵀ``, matrix by matrix."""
    jnp = pytest.importorskip("jax.numpy")

    def f(A):
        return jnp.linalg.det(A) ** 2

    A = np.random.default_rng(0).normal(size=(2, 3, 4, 4))
    J = np.asarray(dgraph.make_function(f, "jacobian", point=[A])(A))
    d = np.linalg.det(A)
    want = np.zeros((2, 3, 2, 3, 4, 4))
    for i, j in np.ndindex(2, 3):
        want[i, j, i, j] = 2 * d[i, j] ** 2 * np.linalg.inv(A[i, j]).T
    np.testing.assert_allclose(J, want, rtol=1e-12, atol=1e-12 * np.abs(want).max())
