"""Hessians where JAX's gradient program breaks (session 64): a gradient that jumps or
kinks at the user's point (``|x|``, relu, ``where``, ``clip`` at 0) has no Hessian there,
and JAX's ``jvp`` of its ``select`` and the graph both say 0: not verified. A gradient
smooth through the break (``|x|³``, ``cos|x|``) is confirmed by its one-sided differences
and verified; ``|x|`` in the gradient program takes JAX's +1 at 0, so ``cos|x|``'s Hessian
there is JAX's -1 (it was ``sign(0) = 0``)."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="JAX is not installed")
jnp = jax.numpy

from dgraph import make_function  # noqa: E402
from tests import jax_reference as jref  # noqa: E402


@pytest.fixture(autouse=True)
def _float64():
    with jax.enable_x64(True):
        yield


def _hessian(f, x):
    made = make_function(f, "hessian", point=[x])
    expected = jref.hessian(f)(jnp.asarray(x))  # stored (tests/jax_reference.py)
    np.testing.assert_allclose(made(x), expected, atol=1e-12)
    return made.generated.check


def test_a_gradient_that_jumps_at_the_point_is_not_verified() -> None:
    """|x|, relu, where and clip, each with an entry at its kink: the gradient jumps
    there (its one-sided differences grow as 1/t); JAX's Hessian and the graph's are 0,
    and the result was "verified"."""

    def f(x):
        relu = jnp.maximum(x[1], 0.0)
        flipped = jnp.where(x[2] > 0, x[2], -x[2])
        return jnp.abs(x[0]) + relu + flipped + jnp.clip(x[3], -1.0, 1.0) + x[4] ** 2

    check = _hessian(f, np.array([0.0, 0.0, 0.0, 1.0, 0.5]))
    assert check.status == "not verified"
    assert "at its break" in check.detail and "do not converge" in check.detail


def test_a_gradient_smooth_through_the_break_is_verified() -> None:
    """|x|³ at 0 (gradient 3x|x|: its one-sided differences approach 0 as t) and cos|x|
    at 0 (gradient -sin x): verified, -1 where ``sign(0)`` gave 0, not verified."""
    w = np.array([1.0, 2.0])
    check = _hessian(lambda x: jnp.sum(jnp.abs(x) ** 3 + w * jnp.cos(jnp.abs(x))), np.zeros(2))
    assert check.status == "verified"


def test_a_sum_of_absolutes_squared_at_zero_is_not_verified() -> None:
    """``(|a| + |b|)²`` at (0, 0): JAX's values (2 2 2 2; ``sign(0)`` gave 0 0 0 0), not
    verified: the gradient is linear along every line through 0, so only the second direction
    (signs flipped) finds that its slope ``2(|v_a| + |v_b|)·sign(v)`` is not linear.
    (The axis, (1, 0): JAX's 2 2 2 2 too, not verified; not run here, for time.)"""
    f = lambda x: (jnp.abs(x[0]) + jnp.abs(x[1])) ** 2  # noqa: E731
    assert _hessian(f, np.zeros(2)).status == "not verified"
