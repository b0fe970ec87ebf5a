"""Defects session 42's survey left (benchmarks/RESULTS.md, "Session 42: survey42"),
one test each, the values against JAX's."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402

from dgraph import make_function  # noqa: E402

TAU = 0.75


def _pinball(b, X, y):
    r = y - X @ b
    return jnp.sum(jnp.maximum(TAU * r, (TAU - 1.0) * r))


def _tie_rule(b, X, y):
    """The pinball loss's gradient by JAX's rule for ``maximum``: half of each side where
    they tie (the residual exactly 0 in NumPy's ``X @ b``, as in JAX's own by default;
    the suite's XLA flags may round its product otherwise)."""
    r = y - X @ b
    return -(np.where(r > 0, TAU, np.where(r < 0, TAU - 1.0, TAU - 0.5)) @ X)


def test_a_jax_function_at_a_kink_gets_jax_tie_rule_or_is_not_verified():
    """Pinball loss of a JAX function with 40 residuals exactly zero at the user's point
    (X 100×20): JAX's tie rule averages ``maximum``'s sides there. The reference run by
    NumPy rounded ``X @ b`` by einsum's sums, took sides, and refused the right expression
    set; the C code's own loops round ±1e-16 and take sides too: it was refused
    (VerificationError) though only the kink, which the differences detect, separates it.
    Now NumPy's code gives JAX's answer at the kink, verified; C's is not verified there
    (a warning naming the kink), and right where the slope is smooth."""
    rng = np.random.default_rng(0)
    X, b = rng.normal(size=(100, 20)), rng.normal(size=20)
    y = X @ b + rng.normal(size=100)
    y[:40] = X[:40] @ b
    J = make_function(_pinball, "jacobian", params=["X", "y"], point=[b, X, y])
    assert J.generated.verified
    np.testing.assert_allclose(np.ravel(J(b, X, y)), _tie_rule(b, X, y), rtol=1e-12)
    with pytest.warns(UserWarning, match="on a kink"):
        C = make_function(_pinball, "jacobian", "c", params=["X", "y"], point=[b, X, y])
    assert not C.generated.verified and "user's point" in C.generated.check.detail
    b2 = b + 0.1  # no residual zero there
    np.testing.assert_allclose(np.ravel(C(b2, X, y)), _tie_rule(b2, X, y), rtol=1e-12)


def test_the_vjp_of_a_correlation_and_a_convolution_is_printed_in_c():
    """``jnp.correlate``/``jnp.convolve`` (300 and 9 entries): their transposes in the
    vjp are a slice of a sum of padded shifted copies, which C's values refused ("cannot
    translate `t2 = numpy.pad(...`", a message thousands of characters long). A pad
    and a slice of a computed value now print as NumPy's do: against ``jax.vjp``."""

    def f(x, k):
        a = jnp.correlate(x, k, mode="valid")
        b = jnp.convolve(x, k[::-1] * 0.5, mode="same")
        return jnp.concatenate([a, b[::3]])

    rng = np.random.default_rng(0)
    x, k = rng.normal(size=300), rng.normal(size=9)
    V = make_function(f, "vjp", "c", point=[x, k])
    assert V.generated.verified
    w = rng.normal(size=392)
    got = V(x, k, w)
    want = jax.vjp(f, x, k)[1](w)
    for g, e in zip(got, want, strict=True):
        np.testing.assert_allclose(np.ravel(g), e, rtol=1e-12, atol=1e-12)
