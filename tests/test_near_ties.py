"""A comparison within rounding of its tie at the user's point (session 64, jaxopt64's
finding): jaxopt's ``projection_l2_ball`` at a point on the sphere took the identity
branch in dgraph's NumPy evaluation (norm 1.4999999999999998) and the scaling one in
XLA's (1.5000000000000002); JAX's ``jvp``, run as the graph's evaluation, agreed with the
identity, so a Jacobian 0.02 from ``jax.jacfwd``'s was "verified". Where an ordering
comparison's operands differ by at most ``NEAR_TIE`` of their size, the branch is the
rounding's: the point is compared only where one-sided differences of JAX's program
confirm ``J·v`` in two directions (``dgraph.core.value_check``)."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

import dgraph  # noqa: E402


def _ball(w):
    """The projection onto the unit ball (jaxopt/_src/projection.py,
    ``projection_l2_ball``, restated): ``w`` inside, ``w/‖w‖`` outside."""
    s = jnp.sum(w**2)
    return jax.lax.cond(s <= 1.0, lambda w: w, lambda w: w / jnp.sqrt(jnp.sum(w**2)), w)


def test_a_cond_within_rounding_of_its_tie_is_not_verified():
    # |w|² = 1 + 2⁻⁵² exactly in any evaluation order: one ulp outside the ball, where the
    # two branches meet and the slope jumps (identity inside, w/‖w‖'s outside)
    w = np.array([1.0, 2.0**-26])
    with jax.enable_x64(True):
        made = dgraph.make_function(_ball, "jacobian", point=(w,))
        want = np.asarray(jax.jacfwd(_ball)(jnp.asarray(w)))
    assert not made.generated.verified
    assert "within rounding of a tie" in made.generated.check.detail
    np.testing.assert_allclose(np.asarray(made(w)), want, atol=1e-12)  # JAX's side, here


def test_the_same_cond_away_from_its_tie_is_verified():
    w = np.array([0.6, -0.5])
    with jax.enable_x64(True):
        made = dgraph.make_function(_ball, "jacobian", point=(w,))
        want = np.asarray(jax.jacfwd(_ball)(jnp.asarray(w)))
    assert made.generated.verified
    np.testing.assert_allclose(np.asarray(made(w)), want, rtol=1e-13, atol=1e-15)
