"""Defects session 42's survey left (benchmarks/RESULTS.md, "Session 42: survey42"),
one test each, the values against JAX's."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402

from dgraph import from_jax, make_function  # noqa: E402

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
    Now NumPy's code gives JAX's answer at the kink and C's is right where the slope is
    smooth; at the kink the loss has no derivative (its one-sided slopes differ), so
    both are not verified there, a warning naming the break (session 65)."""
    rng = np.random.default_rng(0)
    X, b = rng.normal(size=(100, 20)), rng.normal(size=20)
    y = X @ b + rng.normal(size=100)
    y[:40] = X[:40] @ b
    with pytest.warns(UserWarning, match="is at its break there"):
        J = make_function(_pinball, "jacobian", params=["X", "y"], point=[b, X, y])
    assert not J.generated.verified and "user's point" in J.generated.check.detail
    np.testing.assert_allclose(np.ravel(J(b, X, y)), _tie_rule(b, X, y), rtol=1e-12)
    with pytest.warns(UserWarning, match="is at its break there"):
        C = make_function(_pinball, "jacobian", "c", params=["X", "y"], point=[b, X, y])
    assert not C.generated.verified and "user's point" in C.generated.check.detail
    b2 = b + 0.1  # no residual zero there
    np.testing.assert_allclose(np.ravel(C(b2, X, y)), _tie_rule(b2, X, y), rtol=1e-12)


def test_the_vjp_of_a_correlation_and_a_convolution_is_printed_in_c():
    """``jnp.correlate``/``jnp.convolve`` (60 and 9 entries; survey42's were 300 and 9):
    their transposes in the vjp are a slice of a sum of padded shifted copies, which C's
    values refused ("cannot translate `t6 = (numpy.pad(...`", a message hundreds of
    characters long). A pad inside an expression and a slice of a computed value now
    print as NumPy's do: against ``jax.vjp``."""

    def f(x, k):
        a = jnp.correlate(x, k, mode="valid")
        b = jnp.convolve(x, k[::-1] * 0.5, mode="same")
        return jnp.concatenate([a, b[::3]])

    rng = np.random.default_rng(0)
    x, k = rng.normal(size=60), rng.normal(size=9)
    V = make_function(f, "vjp", "c", point=[x, k])
    assert V.generated.verified
    w = rng.normal(size=72)
    got = V(x, k, w)
    want = jax.jit(lambda x, k, w: jax.vjp(f, x, k)[1](w))(x, k, w)  # one compile
    for g, e in zip(got, want, strict=True):
        np.testing.assert_allclose(np.ravel(g), e, rtol=1e-12, atol=1e-12)


def test_a_long_jax_body_is_jitted_in_pieces_not_run_operation_by_operation(monkeypatch):
    """A dense JAX body longer than ``JIT_MOST`` lines ran eagerly: each operation lowered
    and compiled for each shape it met (a reactor's 40 unrolled steps: 724 programs, 25
    CPU-s). It is now cut into runs of at most ``PIECE`` lines, each one jitted program
    (here, with both made small, six steps' body: 19 pieces). Counted, never timed:
    the build lowers a program per piece, the caller's first call none; the Jacobian
    against its closed form (diagonal: d ← x·cos(y)·d + sin(y), y ← x·sin(y))."""
    from dgraph.codegen.tensor import jit_arguments
    from tests.jax_events import counted

    monkeypatch.setattr(jit_arguments, "JIT_MOST", 3)
    monkeypatch.setattr(jit_arguments, "PIECE", 2, raising=False)  # (none before)

    def f(x):
        y = x
        for _ in range(6):
            y = jnp.sin(y) * x
        return y

    x = np.linspace(0.1, 0.9, 13)
    with jax.enable_x64(True):
        g = from_jax(f, x, level="array")
        lowered, J = counted(lambda: make_function(g, "jacobian", "jax"))
        text = J.generated.text
        pieces = text.count(" = _quick(_jacobian_piece")
        assert J.generated.verified and pieces >= 3
        assert lowered <= pieces + 2  # eagerly: one per operation and shape
        again, got = counted(lambda: J(x))
    assert again == 0
    y, d = x, np.ones_like(x)
    for _ in range(6):
        y, d = np.sin(y) * x, np.cos(y) * d * x + np.sin(y)
    np.testing.assert_allclose(np.diag(np.asarray(got)), d, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(got) - np.diag(np.diag(got)), 0.0, atol=1e-14)
