"""Hessians at points where the program, or a derivative, is not finite (issue 55): the
values are JAX's (a NaN where JAX's is NaN, a number where JAX's is one) and a result
with a NaN at the user's point is never called verified."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dgraph

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jss = pytest.importorskip("jax.scipy.special")
special = pytest.importorskip("scipy.special")
jax.config.update("jax_enable_x64", True)

X = np.array([0.0, 0.5, 2.0, 0.0, -1.0])  # zeros: log, sqrt and x**0.5 at their edge


def _quiet(make):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make()


def test_a_nan_hessian_at_the_user_s_point_is_not_verified():
    """``np.where(x > 0, np.log(x), 0)`` at x = 0: the untaken ``log`` is -inf there, its
    partial infinite; JAX's Hessian is NaN on those diagonal entries (0·inf in its
    reverse sweep), and so is dgraph's. It was called verified (checked only at a random
    point, a note in the detail); the scalar check's rule now holds for arrays too."""

    def f(x):
        w = np.where(x > 0, np.log(x), 0.0)
        return np.sum(w * w + w)

    def ref(x):
        w = jnp.where(x > 0, jnp.log(x), 0.0)
        return jnp.sum(w * w + w)

    H = _quiet(lambda: dgraph.hessian(f, X))
    expected = np.asarray(jax.hessian(ref)(X))
    got = np.asarray(H(X))
    assert np.isnan(np.diag(got)).tolist() == [True, False, False, True, False]
    np.testing.assert_allclose(np.diag(got), np.diag(expected), rtol=1e-12, equal_nan=True)
    assert not H.generated.verified
    assert H.generated.check.detail.startswith("not verified at the user's point")


def test_nan_in_both_the_code_and_its_expression_set_fails_no_check():
    """``jnp.maximum(x, 0) ** 1.5``: at x = 0 the Hessian's diagonal is inf (JAX's too)
    and at -1 NaN; the code and its expression set are both non-finite there, which the
    check counted as an error ``inf`` ("check FAILED", a VerificationError, reported at
    the random point). Now it is made, its values JAX's, and not verified."""

    def f(x):
        return jnp.sum(jnp.maximum(x, 0.0) ** 1.5)

    H = _quiet(lambda: dgraph.hessian(f, X))
    expected = np.diag(np.asarray(jax.hessian(f)(X)))
    got = np.diag(np.asarray(H(X)))
    np.testing.assert_allclose(got, expected, rtol=1e-12, equal_nan=True)
    assert np.isinf(got[[0, 3]]).all() and np.isnan(got[4])
    assert not H.generated.verified


def test_a_vjp_with_nan_at_the_user_s_point_is_made_and_not_verified():
    """``np.where(x > 0, np.sqrt(x), 0)`` at the array level: its vjp at x = 0 is NaN, as
    JAX's is (0·inf); the dot-product test compared NaN with NaN and raised."""
    g = dgraph.from_function(
        lambda x: np.where(x > 0, np.sqrt(x), 0.0), sizes=[(5,)], point=[X], level="array"
    )
    vjp = _quiet(lambda: dgraph.make_function(g, "vjp"))
    w = np.array([1.0, -2.0, 0.5, 3.0, 1.5])
    _, pullback = jax.vjp(lambda x: jnp.where(x > 0, jnp.sqrt(x), 0.0), X)
    np.testing.assert_allclose(vjp(X, w), pullback(w)[0], rtol=1e-12, equal_nan=True)
    assert not vjp.generated.verified
