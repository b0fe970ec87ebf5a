"""Defects the session-47 survey of held-out-style programs found
(``benchmarks/programs_survey``, ``common.NAMES47``), one small test each."""

import numpy as np
import pytest

import dgraph
from dgraph.codegen.c import compiler

# method= below: the one make_function's choice gives each program ("the choice's": the
# same generated text), named so that no test builds and costs every candidate's program;
# the choice is codegen's (tests/test_codegen_choice.py).


def _reversed_logsumexp(s):
    """ListMLE's and the Cox model's suffix log-sum-exps, as NumPy users write them."""
    return np.logaddexp.accumulate(s[::-1])[::-1]


def test_numpy_logaddexp_accumulate_reversed():
    """``np.logaddexp.accumulate(s[::-1])[::-1]`` (refused before: "numpy.logaddexp.accumulate
    on an array that depends on the inputs"; JAX's ``lax.cumlogsumexp`` was read): now
    JAX's ``cumlogsumexp``, checked by differences (its element level's shift cancels).
    Against ``dy_i/ds_j = exp(s_j - y_i)`` for ``j >= i``, a tie included."""
    s = np.array([0.3, -1.0, 2.0, 2.0, 0.5])
    jac = dgraph.make_function(
        _reversed_logsumexp, "jacobian", point=[s], method="forward"
    )  # the choice's (the same text)
    assert jac.generated.verified
    y = _reversed_logsumexp(s)
    want = np.triu(np.exp(s[None, :] - y[:, None]))
    np.testing.assert_allclose(np.asarray(jac(s)), want, rtol=1e-13, atol=1e-15)


def test_hessian_of_numpy_logaddexp_accumulate():
    """The Hessian's gradient program prints ``logaddexp.accumulate``, which the array
    evaluator that checks it had no function for. ``f = Σ_i y_i`` with ``y`` the
    running log-sum-exp of ``x``: ``∇f_j = Σ_{i≥j} p_ij`` with ``p_ij = exp(x_j - y_i)``,
    ``H_jk = Σ_{i≥max(j,k)} (δ_jk p_ij - p_ij p_ik)``."""

    def f(x):
        return np.sum(np.logaddexp.accumulate(x))

    x = np.array([0.2, -0.5, 1.0, 0.1])
    hess = dgraph.hessian(f, x, method="forward")  # the choice's
    y = np.logaddexp.accumulate(x)
    p = np.tril(np.exp(x[None, :] - y[:, None]))  # p[i, j], j <= i
    want = np.diag(p.sum(axis=0)) - p.T @ p
    np.testing.assert_allclose(np.asarray(hess(x)), want, rtol=1e-12, atol=1e-14)


@pytest.mark.skipif(compiler() is None, reason="no C compiler")
def test_c_hessian_of_a_permuted_gather():
    """A score vector permuted by ``np.argsort`` of a parameter (ListMLE's order): the C
    Hessian's ``einsum('cb->bc', where(mask, take(K, order), 0))`` was refused ("einsum
    of a computed expression"); the operand is now computed into a buffer. Against
    ``H = Σ_k c_k exp(s_k) x_{π_k} x_{π_k}ᵀ``."""
    X = np.arange(12.0).reshape(4, 3) / 7 - 0.5
    c = np.arange(4.0)

    def f(w, rank):
        s = (X @ w)[np.argsort(rank)]
        return np.sum(c * np.exp(s))

    w, rank = np.array([0.3, -0.2, 0.5]), np.array([2.0, 0.0, 3.0, 1.0])
    hess = dgraph.hessian(f, w, rank, params=["rank"], lang="c", method="reverse")  # the choice's
    Xp = X[np.argsort(rank)]
    want = (Xp * (c * np.exp(Xp @ w))[:, None]).T @ Xp
    np.testing.assert_allclose(np.asarray(hess(w, rank)), want, rtol=1e-12, atol=1e-14)


def test_scipy_boxcox_is_smooth_at_lambda_zero():
    """``scipy.special.boxcox(y, lam)`` at ``lam = 0`` (the log model, where a Box-Cox fit
    starts): its derivatives in ``lam`` were 0 there, verified (a select of ``log y``),
    instead of ``(log y)²/2`` and ``(log y)³/3``; ``inv_boxcox``'s ``-e^y y²/2`` likewise."""
    import scipy.special as sc

    y = np.array([0.5, 2.0, 3.0])
    ly = np.log(y)
    lam = np.array(0.0)

    def f(lam):
        return np.sum(sc.boxcox(y, lam))

    def g(lam):
        return np.sum(sc.inv_boxcox(y, lam))

    jac = dgraph.jacobian(f, point=[lam])
    assert jac.verified
    np.testing.assert_allclose(np.ravel(jac.evaluate([0.0])), [np.sum(ly**2) / 2], rtol=1e-14)
    hess = dgraph.hessian(f, lam, method="markowitz")  # the choice's
    np.testing.assert_allclose(np.ravel(hess(lam)), [np.sum(ly**3) / 3], rtol=1e-14)
    inv = dgraph.jacobian(g, point=[lam]).evaluate([0.0])
    np.testing.assert_allclose(np.ravel(inv), [-np.sum(np.exp(y) * y**2) / 2], rtol=1e-14)


def test_numpy_polyfit_at_abscissae_given_as_a_parameter():
    """``np.polyfit(x, y, deg)`` with ``x`` a parameter (data read at each call) was
    refused ("x must be a constant vector"): now ``lstsq`` of the traced Vandermonde
    matrix. The coefficients are linear in ``y``: ``J = pinv(vander(x))`` at each
    call's ``x``."""

    def f(y, x):
        return np.polyfit(x, y, 2)

    x = np.linspace(0.0, 2.0, 6)
    jac = dgraph.make_function(
        f, "jacobian", point=[np.sin(x), x], params=["x"], method="reverse"
    )  # the choice's
    assert jac.generated.verified
    for xs in (x, x**2 + 0.5):
        want = np.linalg.pinv(np.vander(xs, 3))
        np.testing.assert_allclose(np.asarray(jac(np.cos(xs), xs)), want, rtol=1e-11, atol=1e-12)


def test_numpy_fmax_at_a_tie_is_jax_s():
    """``np.fmax(0, 1 - m)²`` (a squared hinge) at a margin exactly 1: read as ``maximum``,
    whose derivative at a tie is ½ of each side, so its second derivative was ½; JAX's
    ``jnp.fmax`` (a select: ``x2`` at a tie) gives 2, the reference the survey compares
    with. ``fmin`` likewise; ``fmax`` of a NaN is the other argument."""

    def f(m):
        return np.sum(np.fmax(0.0, 1.0 - m) ** 2) + np.sum(np.fmin(m, 0.5) ** 2)

    m = np.array([1.0, 0.5, 0.2, 1.5])  # fmax's tie, fmin's tie, inside both, outside both
    hess = dgraph.hessian(f, m, method="forward")  # the choice's
    np.testing.assert_array_equal(np.asarray(hess(m)), np.diag([2.0, 2.0, 4.0, 0.0]))
    x = np.array([2.0, 3.0])
    g = dgraph.jacobian(lambda x: np.fmax(x, np.array([np.nan, 1.0])), point=[x])
    np.testing.assert_array_equal(np.asarray(g.evaluate(x)), np.eye(2))
