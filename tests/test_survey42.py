"""Defects the session-42 survey of user programs found (benchmarks/programs_survey,
``common.NAMES42``), one test each: the values against JAX's."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402
import jax.scipy.special as jsp  # noqa: E402
from scipy.special import xlogy  # noqa: E402

from dgraph import make_function  # noqa: E402


@pytest.mark.parametrize("frontend", ["numpy", "jax"])
def test_xlogy_of_a_parameter_is_read_at_the_array_level(frontend):
    """``xlogy(a, y)``, ``y`` a parameter, reads ``a`` in ``where(a == 0, 1, y)``'s
    predicate only: that ``where`` is passive (folded into its reader), not a vertex no
    input reaches (a gamma GLM's log-likelihood was refused: "vertex 't10' is
    dangling"). 600 entries: past the element level's limit, the array level reads it."""
    if frontend == "numpy":

        def f(a, y):
            return np.sum(xlogy(a - 1.0, y) - a * y)
    else:

        def f(a, y):
            return jnp.sum(jsp.xlogy(a - 1.0, y) - a * y)

    rng = np.random.default_rng(0)
    a, y = rng.uniform(0.5, 2.0, 600), rng.gamma(2.0, size=600)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        J = make_function(f, "jacobian", params=["y"], point=[a, y])
    assert J.generated.verified
    np.testing.assert_allclose(np.ravel(J(a, y)), np.log(y) - y, rtol=1e-13)


def test_code_is_not_failed_at_a_kink_the_reference_passes_over():
    """The quantile (pinball) loss with 40 residuals exactly zero at the user's point:
    there max(τr, (τ-1)r) has no derivative and the generated code's ``X @ b`` rounds
    some of them to ±1e-16, picking the other side of the tie than NumPy's; the value
    check passes that point over (a kink), so the code is compared with the expression
    set where the reference checks it (the random point), not refused there; the
    result is not verified, the function having no derivative at the user's point
    (session 66: it was verified by the random point alone)."""
    tau = 0.75

    def f(b, X, y):
        r = y - X @ b
        return np.sum(np.maximum(tau * r, (tau - 1.0) * r))

    rng = np.random.default_rng(0)
    X, b = rng.normal(size=(100, 3)), np.array([1.0, 2.0, -1.0])
    y = X @ b + rng.normal(size=100)
    y[:40] = X[:40] @ b
    J = make_function(f, "jacobian", "jax", params=["X", "y"], point=[b, X, y])
    check = J.generated.check
    assert check.status == "not verified" and "the user's point" in check.detail, check.detail
    b2 = np.array([0.9, 1.7, -0.6])  # no residual zero there

    def g(b):
        r = y - X @ b
        return jnp.sum(jnp.maximum(tau * r, (tau - 1.0) * r))

    want = jax.jit(jax.grad(g))(b2)  # one compilation, not one an operation
    np.testing.assert_allclose(np.ravel(J(b2, X, y)), want, rtol=1e-12)


def test_a_fixed_point_loop_that_diverges_at_random_points_is_passed_over_there(monkeypatch):
    """A logit inversion by the contraction δ += log s − log share(δ), to 1e-12 (BLP's):
    it converges at the user's shares (sum < 1) and never where they sum past 1, as
    random shares in [0.5, 1.5) do; the value check ran the loop there towards its 10⁷
    trips (hours). A random point where it runs past DRAWN_POINT_TRIPS is passed over
    as a non-finite one is (the limit lowered to 1,000 here: the same points passed
    over, the same one checked). The Jacobian against the closed form diag(1/s) + 1/s₀."""
    from dgraph.core import value_check

    monkeypatch.setattr(value_check, "DRAWN_POINT_TRIPS", 1_000)

    def f(s):
        def cond(c):
            return c[1] > 1e-12

        def body(c):
            d, _ = c
            share = jax.nn.softmax(jnp.concatenate([jnp.zeros(1), d]))[1:]
            new = d + jnp.log(s) - jnp.log(share)
            return new, jnp.max(jnp.abs(new - d))

        return jax.lax.while_loop(cond, body, (jnp.zeros(3), 1.0))[0]

    s = np.array([0.2, 0.3, 0.1])
    J = make_function(f, "jacobian", point=[s])
    assert J.generated.verified
    assert "a random point in [0.05, 0.5)" in J.generated.check.detail  # the others passed
    np.testing.assert_allclose(J(s), np.diag(1 / s) + 1 / (1 - s.sum()), rtol=1e-9)
