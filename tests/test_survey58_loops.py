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
