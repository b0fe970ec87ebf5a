"""Session 44 (left44): survey43's defects 6 and 7.

6. ``x[i.astype(int)]`` with ``i`` a *parameter* (index arrays passed as data, as ranking
   and metric-learning code does) was refused by the NumPy reader ("astype(int64) on an
   array that depends on the inputs"); it is now the JAX reader's graph: a
   ``take_dynamic`` at positions read from the parameter at run time, never baked in.
7. A JAX function at a kink (lasso's ``|b|`` at coefficients exactly 0, where JAX's
   ``jvp`` takes +1 and dgraph ``sign(0) = 0``) was refused; the user's point is now
   passed over where central differences of the *user's* function (JAX's primal, the
   graph's program checked against it) show that JAX's ``jvp`` is no derivative there.
"""

import re

import numpy as np
import pytest

import dgraph
from dgraph.errors import InputError

N = 6  # strengths
I0 = np.array([0.0, 1.0, 5.0, 2.7, -1.0, 3.0, 4.0, 0.0])  # 2.7 -> 2, -1 -> the last
J0 = np.array([1.0, 2.0, 0.0, 4.0, 3.0, 5.0, 1.0, 3.0])
I1 = np.array([5.0, 5.0, 4.0, 0.0, 1.0, -2.0, 2.0, 3.0])  # other index data
J1 = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 0.0, 3.0, 1.0])


def btrank(s, i, j):
    """Bradley-Terry's negative log-likelihood of pairs (i beat j) plus a ridge."""
    d = s[i.astype(int)] - s[j.astype(np.int64)]
    return np.sum(np.logaddexp(0.0, -d)) + 0.5 * np.sum(s**2)


def btrank_derivatives(s, i, j):
    """Its gradient and Hessian in closed form (NumPy's indexing of the cast positions)."""
    a, b = i.astype(int) % N, j.astype(int) % N
    d = s[a] - s[b]
    g, h = -1.0 / (1.0 + np.exp(d)), 1.0 / (2.0 + np.exp(d) + np.exp(-d))
    grad, hess = s.copy(), np.eye(N)
    np.add.at(grad, a, g)
    np.add.at(grad, b, -g)
    for p, q, w in zip(a, b, h, strict=True):
        hess[p, p] += w
        hess[q, q] += w
        hess[p, q] -= w
        hess[q, p] -= w
    return grad, hess


def dense(m):
    return m.toarray() if hasattr(m, "toarray") else np.asarray(m)


def test_index_data_cast_from_a_parameter_is_read_at_run_time():
    """Defect 6: the gradient (dense, sparse, C), jvp, vjp and the Hessian of btrank
    with ``i``, ``j`` parameters against the closed form, at the point and called again
    with OTHER index data (so the positions are not baked in); the other spellings
    (``np.take``, a row gather of a matrix, a constant table at them, ``(i + 1).astype(int)
    % n``) likewise."""
    rng = np.random.default_rng(4)
    s = rng.normal(size=N)
    point = [s, I0, J0]
    for lang, sparse in (("python", False), ("python", True), ("c", False)):
        G = dgraph.make_function(
            btrank, "jacobian", lang, params=["i", "j"], point=point, sparse=sparse
        )
        assert G.generated.verified
        for i, j in ((I0, J0), (I1, J1)):
            got = dense(G(s, i, j)).reshape(-1)
            np.testing.assert_allclose(got, btrank_derivatives(s, i, j)[0], rtol=1e-13, atol=1e-14)
    v, w = rng.normal(size=N), np.array(1.7)
    jvp = dgraph.make_function(btrank, "jvp", "python", params=["i", "j"], point=point)
    vjp = dgraph.make_function(btrank, "vjp", "python", params=["i", "j"], point=point)
    grad1 = btrank_derivatives(s, I1, J1)[0]
    np.testing.assert_allclose(np.ravel(jvp(s, v, I1, J1))[-1], grad1 @ v, rtol=1e-13)
    np.testing.assert_allclose(np.ravel(vjp(s, w, I1, J1)), 1.7 * grad1, rtol=1e-13)
    H = dgraph.hessian(btrank, s, I0, J0, params=["i", "j"])
    for i, j in ((I0, J0), (I1, J1)):
        np.testing.assert_allclose(dense(H(s, i, j)), btrank_derivatives(s, i, j)[1], atol=1e-13)

    weight = np.linspace(1.0, 2.0, N)  # a constant table read at the index data too

    def spellings(s, E, i, r):
        rows = np.sum(E[r.astype(int)] ** 2, axis=1)
        return (
            weight[i.astype(int)] * np.take(s, i.astype(int)) ** 3
            + s[(i + 1).astype(int) % N] * rows
        )

    E, r0, r1 = rng.normal(size=(4, 3)), np.array([3.0, 0.0, 1.0, 3.0]), np.array([2.0] * 4)
    i0, i1 = np.array([0.0, 5.0, 2.0, -3.0]), np.array([1.0, 1.0, 4.0, 5.0])
    G = dgraph.make_function(
        spellings, "jacobian", "python", params=["i", "r"], point=[s, E, i0, r0]
    )
    for i, r in ((i0, r0), (i1, r1)):
        a, b, rr = i.astype(int) % N, (i.astype(int) + 1) % N, r.astype(int)
        rows = np.sum(E[rr] ** 2, axis=1)
        ds, dE = np.zeros((4, N)), np.zeros((4, 4, 3))
        ds[np.arange(4), a] += 3 * weight[a] * s[a] ** 2
        ds[np.arange(4), b] += rows
        dE[np.arange(4), rr] = 2 * E[rr] * s[b][:, None]
        got = G(s, E, i, r)
        np.testing.assert_allclose(dense(got[0]), ds, rtol=1e-13, atol=1e-14)
        np.testing.assert_allclose(dense(got[1]).reshape(4, 4, 3), dE, rtol=1e-13, atol=1e-14)


def test_index_data_out_of_range():
    """At the point an index NumPy refuses is refused in one line; at a later call of
    the generated code a position past the axis is clamped into it, as JAX's ``x[i]``
    (and ``jax.jacfwd``) does."""
    s = np.arange(1.0, N + 1.0)
    with pytest.raises(InputError, match=r"index 9 .* out of bounds for an axis of length 6"):
        dgraph.make_function(btrank, "jacobian", "python", params=["i", "j"], point=[s, I0 + 9, J0])
    with pytest.raises(InputError, match=r"index -7 .* out of bounds for an axis of length 6"):
        dgraph.hessian(btrank, s, I0, J0 - 8, params=["i", "j"])
    G = dgraph.make_function(btrank, "jacobian", "python", params=["i", "j"], point=[s, I0, J0])
    far, clamped = I0.copy(), I0.copy()
    far[0], clamped[0] = 40.0, N - 1.0
    np.testing.assert_allclose(np.ravel(G(s, far, J0)), btrank_derivatives(s, clamped, J0)[0])


X = np.random.default_rng(2).normal(size=(12, 4))
B = np.array([0.8, 0.0, -1.3, 0.0])  # two coefficients exactly 0
Y = X @ B + 0.1 * np.random.default_rng(3).normal(size=12)


def lasso(b):
    import jax.numpy as jnp

    r = jnp.asarray(X) @ b - Y
    return 0.5 * jnp.mean(r**2) + 0.1 * jnp.sum(jnp.abs(b))


def test_a_jax_lasso_at_its_kink_is_passed_over_at_the_point_and_a_wrong_rule_is_not():
    """Defect 7: the expression set of a JAX lasso at coefficients exactly 0 is checked
    (the user's point passed over: JAX's ``jvp`` takes ``d|b|/db = +1`` there, the
    differences of JAX's own values the average, 0) and its gradient is the closed form
    with ``sign(0) = 0``, not verified there: the lasso has no derivative at a zero
    coefficient, its one-sided slopes ±0.1 (session 65); a wrong ``abs`` rule is still
    failed (at the random point: the
    user's point, where an |x| reads 0, is not compared for it), a graph whose program is
    not the user's function at the user's point."""
    from dgraph.blocks import arrays
    from dgraph.core.value_check import check_expression_set
    from dgraph.methods import accumulate

    g = dgraph.from_jax(lasso, B, level="array")
    found = check_expression_set(accumulate(g, "forward", verify=False))
    assert found.status == "not verified" and "the user's point" not in found.points
    assert re.search(r"its abs \(\w+\) is at its break there", found.detail), found.detail
    assert "agrees with JAX's jvp at a random point" in found.detail
    expected = X.T @ (X @ B - Y) / 12 + 0.1 * np.sign(B)
    G = dgraph.make_function(g, "jacobian", "python")
    np.testing.assert_allclose(np.ravel(G(B)), expected, rtol=1e-12, atol=1e-15)
    # the element level, by the choice's method (named: no candidate program is built)
    G = dgraph.make_function(lasso, "jacobian", "python", point=[B], method="symbolic")
    check = G.generated.check
    assert not G.generated.verified and check.skipped == tuple(B)  # the point's
    assert "its Abs" in check.detail and "is at its break there" in check.detail, check.detail
    np.testing.assert_allclose(np.ravel(G(B)), expected, rtol=1e-12, atol=1e-15)
    import sympy

    a = arrays.A
    for name, rule in (
        ("rule", (np.abs, (2 * sympy.sign(a),))),
        ("program", (lambda u: 1.5 * np.abs(u), (1.5 * sympy.sign(a),))),
    ):
        with pytest.MonkeyPatch.context() as m:
            m.setitem(arrays.ELEMENTWISE, "abs", rule)
            arrays._derivative_function.cache_clear()  # the rules' functions, cached
            g = dgraph.from_jax(lasso, B, level="array")
            found = check_expression_set(accumulate(g, "forward", verify=False))
        arrays._derivative_function.cache_clear()
        assert found.status == "wrong", name  # at a random point where an |x| reads 0 here
        if name == "program":  # not the user's function: failed at the point itself
            assert "at the user's point" in found.detail
