"""Defects found by loops58's survey of control flow as users write it (NumPy loops and
recurrences, ``lax.scan`` / ``while_loop`` / ``cond``), one small test each, against
closed forms or JAX's derivatives of the same program."""

import numpy as np

import dgraph

RETURNS = np.abs(np.random.default_rng(1).normal(size=(8, 3))) * 0.5


def drawdown_gradient(w: np.ndarray, r: np.ndarray) -> np.ndarray:
    """∇ Σ_t (1 - W_t/P_t)², W = cumprod(1 + r·w), P its running maximum: W_t/P_t =
    exp(L_t - L_m(t)), L the cumulative sum of log(1 + r_s·w), m(t) where the peak was."""
    wealth = np.cumprod(1 + r @ w)
    peak_at = np.array([np.argmax(wealth[: t + 1]) for t in range(len(wealth))])
    ratio = wealth / wealth[peak_at]
    dlog = np.cumsum(r / (1 + r @ w)[:, None], axis=0)
    return np.sum((-2 * (1 - ratio) * ratio)[:, None] * (dlog - dlog[peak_at]), axis=0)


def test_drawdown_whose_jacobian_is_zero_at_the_check_points():
    # was a VerificationError in every mode and language ("error 3.4e+276 of the
    # magnitudes"): at a new peak 1 - wealth/peak is exactly 0 in the graph's values, so
    # every |J|·|v| was 0, while the code's wealth·(1/peak) rounds; a label reading a
    # cancelling sum now counts its terms (numeric._with_sums)
    def drawdown(w, r=RETURNS):
        wealth = np.cumprod(1 + r @ w)
        peak = np.maximum.accumulate(wealth)
        return np.sum((1 - wealth / peak) ** 2)

    w = np.array([0.5, 0.3, 0.2])
    J = dgraph.make_function(drawdown, "jacobian", point=[w])
    assert J.generated.verified
    for x in (w, np.array([-2.0, 0.4, 0.3])):  # a rising path, then one with drawdowns
        np.testing.assert_allclose(
            np.ravel(J(x)), drawdown_gradient(x, RETURNS), rtol=1e-12, atol=1e-15
        )


def test_vector_function_with_a_matrix_or_several_parameters():
    # was refused at the call, "p needs shape (12,) or (B, 12), not (4, 3)", and a
    # TypeError for two parameters: a function of one vector to a vector took its
    # parameters as the flat p; now its own arguments, as jax.jacobian's function does
    returns = np.arange(12.0).reshape(4, 3) * 0.05
    w = np.array([0.5, 0.3, 0.2])

    def wealth(w, r):
        return np.cumprod(1 + r @ w)

    def wealth2(w, a, b):
        return np.cumprod(1 + a * w + b)

    growth = 1 + returns @ w
    want = np.cumprod(growth)[:, None] * np.cumsum(returns / growth[:, None], axis=0)
    J = dgraph.make_function(wealth, "jacobian", point=[w, returns], params=["r"])
    np.testing.assert_allclose(J(w, returns), want, rtol=1e-13)
    J2 = dgraph.make_function(wealth2, "jacobian", point=[w, 0.3, 0.1], params=["a", "b"])
    growth2 = 1 + 0.3 * w + 0.1
    want2 = np.tril(np.cumprod(growth2)[:, None] * 0.3 / growth2[None, :])
    np.testing.assert_allclose(J2(w, 0.3, 0.1), want2, rtol=1e-13)
