"""A matrix product rounds as the user's ``X @ b`` does (``numpy.matmul``: BLAS's sums)
in the graph's values and the generated NumPy, not as ``einsum`` sums (survey42's
pinball loss): where the user's residual ``y - X @ b`` is exactly 0, the graph's was
±1e-16 and the Jacobian took one side of ``maximum(τr, (τ-1)r)``'s kink, 3e-2 away from
JAX's and from the tie rule's value on NumPy's own residuals."""

from __future__ import annotations

import numpy as np
import pytest

import dgraph
from dgraph.blocks.arrays import is_matmul

jax = pytest.importorskip("jax")
jnp = jax.numpy

TAU = 0.75


def pinball(b, X, y):
    r = y - X @ b
    return np.mean(np.maximum(TAU * r, (TAU - 1.0) * r)) + 1e-3 * np.sum(b**2)


def test_a_quantile_loss_at_exact_zero_residuals_is_jax_s_gradient():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(5000, 3))
    b = np.array([1.0, 2.0, -1.0])
    y = X @ b + rng.normal(size=5000)
    y[:50] = X[:50] @ b  # residuals exactly 0 in NumPy: the kink
    r = y - X @ b
    assert np.count_nonzero(r == 0) == 50
    J = dgraph.make_function(pinball, "jacobian", point=[b, X, y], params=["X", "y"])
    got = np.ravel(J(b, X, y))
    ties = np.where(r > 0, TAU, np.where(r < 0, TAU - 1.0, TAU - 0.5))  # JAX's max at a tie
    np.testing.assert_allclose(got, -(X.T @ ties) / r.size + 2e-3 * b, rtol=1e-12)
    with jax.enable_x64(True):
        want = jax.grad(
            lambda c: (
                jnp.mean(jnp.maximum(TAU * (y - X @ c), (TAU - 1.0) * (y - X @ c)))
                + 1e-3 * jnp.sum(c**2)
            )
        )(b)
    np.testing.assert_allclose(got, np.asarray(want), rtol=1e-12)
    assert "numpy.matmul(X_, b_)" in J.generated.text


@pytest.mark.parametrize(
    ("spec", "matmul"),
    [("ab,bc->ac", True), ("ab,b->a", True), ("a,ab->b", True), ("a,a->", True),
     ("ab,bc->ca", False), ("ab,cb->ac", False), ("ab,ab->", False), ("abc,cd->abd", False),
     ("ab,bc->abc", False), ("a,b->ab", False), ("ab,bc,cd->ad", False)],
)  # fmt: skip
def test_the_subscripts_numpy_matmul_computes(spec, matmul):
    assert is_matmul(spec) is matmul
    if matmul:  # the same products as einsum, to rounding
        rng = np.random.default_rng(1)
        ins = spec.split("->")[0].split(",")
        sizes = {"a": 4, "b": 3, "c": 5}
        a, c = (rng.normal(size=[sizes[k] for k in part]) for part in ins)
        np.testing.assert_allclose(np.matmul(a, c), np.einsum(spec, a, c), rtol=1e-13)
