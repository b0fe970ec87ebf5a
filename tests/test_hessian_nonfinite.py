"""Hessians at points where the program, or a derivative, is not finite (issue 55): the
values are JAX's (a NaN where JAX's is NaN, a number where JAX's is one) and a result
with a NaN at the user's point is never called verified; an untaken branch of
``log_ndtr`` no longer makes a NaN where JAX's Hessian is finite."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dgraph
from tests import jax_reference as jref

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
    """``l = log(x); where(l > -1, l, 0)`` at x = 0: the untaken ``l`` is -inf there, its
    partial infinite, and the condition reads it too, so it is not guarded
    (:mod:`dgraph.core.untaken`); JAX's Hessian is NaN on those diagonal entries (0·inf in
    its reverse sweep), and so is dgraph's. It was called verified (checked only at a
    random point, a note in the detail); the scalar check's rule now holds for arrays
    too."""

    def f(x):
        l = np.log(x)  # noqa: E741
        w = np.where(l > -1, l, 0.0)
        return np.sum(w * w + w)

    def ref(x):
        l = jnp.log(x)  # noqa: E741
        w = jnp.where(l > -1, l, 0.0)
        return jnp.sum(w * w + w)

    H = _quiet(lambda: dgraph.hessian(f, X))
    expected = np.asarray(jref.hessian(ref)(X))
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
    expected = np.diag(np.asarray(jref.hessian(f)(X)))
    got = np.diag(np.asarray(H(X)))
    np.testing.assert_allclose(got, expected, rtol=1e-12, equal_nan=True)
    assert np.isinf(got[[0, 3]]).all() and np.isnan(got[4])
    assert not H.generated.verified


def test_a_vjp_with_nan_at_the_user_s_point_is_made_and_not_verified():
    """``s = sqrt(x); where(s > 0, s, 0)`` at the array level (``s`` read by the
    condition: not guarded): its vjp at x = 0 was NaN, as ``jax.vjp``'s is (0·inf); the
    dot-product test compared NaN with NaN and raised. Now the untaken case's partial is
    left out, not multiplied by 0: ``jax.jacfwd``'s values (0 there); not verified, since
    the user's point, where ``sqrt``'s partial is infinite, is a kink differences cannot
    resolve."""

    def f(x):
        s = np.sqrt(x)
        return np.where(s > 0, s, 0.0)

    g = dgraph.from_function(f, sizes=[(5,)], point=[X], level="array")
    vjp = _quiet(lambda: dgraph.make_function(g, "vjp"))
    w = np.array([1.0, -2.0, 0.5, 3.0, 1.5])
    forward = jax.jit(jax.jacfwd(lambda x: jnp.where(jnp.sqrt(x) > 0, jnp.sqrt(x), 0.0)))(X)
    np.testing.assert_allclose(vjp(X, w), w @ np.asarray(forward), rtol=1e-12)
    assert not vjp.generated.verified
    assert vjp.generated.check.detail.startswith("not verified at the user's point")


def test_log_ndtr_s_hessian_is_finite_where_jax_s_is():
    """``special.log_ndtr`` above 8 is ``-ndtr(-x)``; its untaken ``log(ndtr(-x))`` was
    ``log(0)`` past 38, and the Hessian's ``-a/b²`` of it ``0/0`` past 27: NaN at 45 and
    30 where JAX gives -0 and -8.8e-195 (called verified). At -25 dgraph's ten-term
    series is exact to 2e-15 (mpmath), JAX's three-term one off by 4e-7."""
    mpmath = pytest.importorskip("mpmath")
    x = np.array([45.0, 30.0, 10.0, -1.0, -25.0])
    weights = np.arange(1.0, 6.0)
    H = dgraph.hessian(lambda x: np.sum(special.log_ndtr(x) * weights), x)
    got = np.diag(np.asarray(H(x)))
    expected = np.diag(np.asarray(jref.hessian(lambda x: jnp.sum(jss.log_ndtr(x) * weights))(x)))
    assert np.isfinite(got).all() and H.generated.verified
    np.testing.assert_allclose(got[:4], expected[:4], rtol=1e-12, atol=1e-300)
    mpmath.mp.dps = 40
    z = mpmath.mpf(-25)
    ratio = mpmath.npdf(z) / mpmath.ncdf(z)
    exact = float(-ratio * (z + ratio)) * 5
    assert got[4] == pytest.approx(exact, rel=1e-13)


def test_a_probit_likelihood_s_hessian_in_the_tails_is_jax_s():
    """statsmodels' probit ``loglike`` (``log(clip(ndtr(q·Xβ), eps, 1))`` plus
    ``log_ndtr(q·Xβ)``) with ``q·Xβ`` = (44, -17.1, 30.9, -14.3): every entry was NaN
    (verified True); ``real_programs9.py``'s sm_probit at 300 regressors failed its check with
    "error inf" for the same reason at its random point (``q·Xβ`` near ±35)."""
    eps = np.finfo(float).eps
    X = np.array([[1.0, 0.5, -0.2], [0.3, -1.0, 0.8], [-0.7, 0.2, 1.0], [0.1, 0.9, -0.4]])
    q = np.array([1.0, -1.0, 1.0, -1.0])

    def f(p):
        z = q * np.dot(X, p)
        return -(np.sum(np.log(np.clip(special.ndtr(z), eps, 1))) + np.sum(special.log_ndtr(z)))

    def ref(p):
        z = q * jnp.dot(X, p)
        return -(jnp.sum(jnp.log(jnp.clip(jss.ndtr(z), eps, 1))) + jnp.sum(jss.log_ndtr(z)))

    p = np.array([37.0, 34.0, 50.0])
    H = dgraph.hessian(f, p)
    np.testing.assert_allclose(np.asarray(H(p)), np.asarray(jref.hessian(ref)(p)), rtol=1e-10)
    assert H.generated.verified
