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


def _sum_and_product(xs, ys):
    return xs[0] + ys[0], xs[1] * ys[1]


def _argmax(a, b):
    take = a[0] >= b[0]
    return jnp.where(take, a[0], b[0]), jnp.where(take, a[1], b[1])


def test_a_reduce_of_a_pair_is_jax_s_tree():
    """``lax.reduce`` of two operands (jax's testReducePairGrad: a sum and a product at
    once; "primitive 'reduce' is not supported" before), read as the tree reduction JAX's
    jvp differentiates: the Jacobian JAX's over axes (0, 2) of a 2×3×3; an argmax written
    by hand over an integer iota, which JAX's own jvp cannot take (a zero tangent it
    reshapes), against central differences."""
    rng = np.random.default_rng(0)
    xs, ys = rng.uniform(0.5, 1.5, (2, 3, 3)), rng.uniform(0.5, 1.5, (2, 3, 3))

    def pair(xs, ys):
        return jax.lax.reduce((xs, ys), (np.array(0.0), np.array(1.0)), _sum_and_product, (0, 2))

    J = dgraph.make_function(pair, point=[xs, ys])
    assert J.generated.verified is True
    want = jref.jacfwd(pair, argnums=(0, 1))(xs, ys)
    leaves = jax.tree_util.tree_leaves
    assert len(leaves(want)) == 4
    for got, ref in zip(leaves(J(xs, ys)), leaves(want), strict=True):
        np.testing.assert_allclose(got, ref, rtol=1e-13, atol=1e-15)

    def largest(x):
        index = jax.lax.broadcasted_iota(jnp.int64, x.shape, 1)
        init = (np.array(-np.inf), np.array(0, dtype=np.int64))
        value, at = jax.lax.reduce((x, index), init, _argmax, (1,))
        return value * jnp.take_along_axis(x**2, at[:, None], axis=1)[:, 0]

    x = xs[0]
    G = dgraph.make_function(largest, point=[x])
    assert G.generated.verified is True
    steps = np.eye(9).reshape(9, 3, 3) * 1e-6
    fd = np.stack([(largest(x + s) - largest(x - s)) / 2e-6 for s in steps], -1)
    np.testing.assert_allclose(G(x), fd.reshape(3, 3, 3), atol=1e-7)
