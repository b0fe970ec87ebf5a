"""JAX calls the array-level reader rewrites (:mod:`dgraph.frontends.jaxpr_rewrites`):
``jnp.signbit`` (``bitcast_convert_type``, in ``jnp.copysign`` and
``jax.scipy.special.gamma``/``beta``: "primitive 'bitcast_convert_type' is not supported
at the array level" before) and the inverse of a stack of matrices, whose gradient solves
by each matrix's transpose ("a batched matvec other than a product with one matrix
each" before); Hessians against ``jax.hessian``."""

from __future__ import annotations

import numpy as np
import pytest

import dgraph
from tests import jax_reference as jref

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jsps = pytest.importorskip("jax.scipy.special")
jax.config.update("jax_enable_x64", True)

X = np.array([0.3, -0.7, 1.1, 0.5, -0.4, 0.9])
C = jnp.array([[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 1.5]])


def signs(x):
    negative_zero = -(jnp.abs(x) * 0.0)  # -0.0 everywhere: copysign reads its sign bit
    return jnp.sum(jnp.copysign(x**2, x - 0.35) + jnp.copysign(x**3, negative_zero)) + jnp.sum(
        jsps.gamma(x**2 - 1.3)
    )


def stacked_inverse(x):
    stack = jnp.stack([jnp.diag(x[:3]) + C, C * x[3]])
    return jnp.sum(jnp.linalg.inv(stack) ** 2) + jnp.sum(jnp.linalg.det(stack))


@pytest.mark.parametrize("f", [signs, stacked_inverse], ids=lambda f: f.__name__)
def test_read_calls_against_jax(f):
    want = np.asarray(jref.hessian(f)(jnp.asarray(X)))
    np.testing.assert_allclose(dgraph.hessian(f, X)(X), want, rtol=1e-10, atol=1e-10)
