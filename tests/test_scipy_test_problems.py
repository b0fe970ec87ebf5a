"""SciPy's solver test problems, whose Jacobians and Hessians SciPy's authors wrote by
hand: an independent judge of dgraph's values and of its generated code inside the
solvers (session 66; ``benchmarks/scipy_tests_survey.py`` runs the originals from the
installed SciPy 1.17.1). Each function is restated here as written in the file cited."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.integrate import solve_ivp
from scipy.optimize import least_squares

import dgraph
from dgraph.errors import InputError


def fun_rational(t, y):
    """scipy/integrate/_ivp/tests/test_ivp.py ``fun_rational``."""
    return np.array([y[1] / t, y[1] * (y[0] + 2 * y[1] - 1) / (t * (y[0] - 1))])


def jac_rational(t, y):
    """test_ivp.py ``jac_rational``, written by hand."""
    return np.array(
        [
            [0, 1 / t],
            [-2 * y[1] ** 2 / (t * (y[0] - 1) ** 2), (y[0] + 4 * y[1] - 1) / (t * (y[0] - 1))],
        ]
    )


def test_rational_ode_jacobian_in_bdf_takes_the_steps_of_the_hand_written_one() -> None:
    """test_ivp.py ``test_integration``: ``t`` a parameter, the made function ``J(y, t)``
    equal to ``jac_rational`` at two times, and BDF over [5, 9] with it takes exactly the
    steps it takes with ``jac_rational``, within the test's error bound of
    ``sol_rational``."""
    y0 = np.array([1 / 3, 2 / 9])
    J = dgraph.make_function(fun_rational, "jacobian", point=[5.0, y0], params=["t"])
    assert J.generated.verified is True
    for t, y in ((5.0, y0), (7.5, np.array([0.4, 0.15]))):
        np.testing.assert_allclose(J(y, t), jac_rational(t, y), rtol=1e-14, atol=1e-15)
    ours = solve_ivp(
        fun_rational, [5, 9], y0, method="BDF", rtol=1e-3, atol=1e-6, jac=lambda t, y: J(y, t)
    )
    theirs = solve_ivp(
        fun_rational, [5, 9], y0, method="BDF", rtol=1e-3, atol=1e-6, jac=jac_rational
    )
    assert ours.success and (ours.nfev, ours.njev, ours.nlu) == (
        theirs.nfev,
        theirs.njev,
        theirs.nlu,
    )
    np.testing.assert_allclose(ours.y, theirs.y, rtol=1e-12)
    exact = np.asarray((ours.t / (ours.t + 10), 10 * ours.t / (ours.t + 10) ** 2))
    assert np.all(np.abs(ours.y - exact) / (1e-6 + 1e-3 * np.abs(exact)) < 5)


def fun_robertson(t, state):
    """test_ivp.py ``test_integration_stiff``'s ``fun_robertson``: a list of three."""
    x, y, z = state
    return [-0.04 * x + 1e4 * y * z, 0.04 * x - 1e4 * y * z - 3e7 * y * y, 3e7 * y * y]


def test_robertson_list_output_nests_as_jax_and_its_rows_are_the_jacobian() -> None:
    """A list output: one row per entry, as ``jax.jacobian`` nests it (``np.vstack`` for
    the solver). Hand-derived rows at (x, y, z): (-0.04, 1e4 z, 1e4 y), (0.04, -1e4 z -
    6e7 y, -1e4 y), (0, 6e7 y, 0)."""
    s = np.array([0.9, 3e-5, 0.1])
    J = dgraph.make_function(fun_robertson, "jacobian", point=[0.0, s], params=["t"])
    rows = J(s, 0.0)
    assert isinstance(rows, tuple) and len(rows) == 3 and J.generated.verified is True
    _, y, z = s
    hand = [[-0.04, 1e4 * z, 1e4 * y], [0.04, -1e4 * z - 6e7 * y, -1e4 * y], [0, 6e7 * y, 0]]
    np.testing.assert_allclose(np.vstack(rows), hand, rtol=1e-14, atol=1e-12)


def sl_fun(x, y, p):
    """scipy/integrate/tests/test_bvp.py ``sl_fun``: vectorised over the mesh ``x``."""
    return np.vstack((y[1], -(p[0] ** 2) * y[0]))


def sl_bc(ya, yb, p):
    """test_bvp.py ``sl_bc``."""
    return np.hstack((ya[0], yb[0], ya[1] - p[0]))


def test_bvp_sturm_liouville_blocks_match_sl_fun_jac_and_sl_bc_jac() -> None:
    """test_bvp.py ``sl_fun_jac``'s ``df_dy`` (2, 2, m) per mesh point is the block
    diagonal of dgraph's (2, m, 2, m), its ``df_dp`` (2, 1, m) dgraph's (2, m, 1); and
    ``sl_bc_jac``'s three blocks, as written there."""
    x = np.linspace(0, 1, 3)
    y = np.array([[0.2, 0.5, 0.9], [-0.3, 0.1, 0.4]])
    p = np.array([1.3])
    J = dgraph.make_function(sl_fun, "jacobian", point=[x, y, p], params=["x"])
    dy, dp = J(y, p, x)
    assert dy.shape == (2, 3, 2, 3) and dp.shape == (2, 3, 1) and J.generated.verified is True
    for k in range(3):
        np.testing.assert_allclose(dy[:, k, :, k], [[0, 1], [-(p[0] ** 2), 0]], rtol=1e-15)
        others = np.delete(dy[:, k], k, axis=2)
        assert not others.any()  # df(x_k)/dy(x_l) = 0 for l != k
    np.testing.assert_allclose(dp[:, :, 0], [[0, 0, 0], -2 * p[0] * y[0]], rtol=1e-15)
    B = dgraph.make_function(sl_bc, "jacobian", point=[y[:, 0], y[:, -1], p])
    dya, dyb, dbp = B(y[:, 0], y[:, -1], p)
    np.testing.assert_array_equal(dya, [[1, 0], [0, 0], [0, 1]])
    np.testing.assert_array_equal(dyb, [[0, 0], [1, 0], [0, 0]])
    np.testing.assert_array_equal(dbp, [[0], [0], [-1]])


def broyden_fun(x):
    """scipy/optimize/tests/test_least_squares.py ``BroydenTridiagonal.fun``."""
    f = (3 - x) * x + 1
    f[1:] -= x[:-1]
    f[:-1] -= 2 * x[1:]
    return f


def test_broyden_tridiagonal_sparse_jacobian_is_their_sparsity_and_solves_in_trf() -> None:
    """``BroydenTridiagonal``: dgraph's sparse pattern is the test's ``sparsity``
    (tridiagonal), its values ``_jac``'s (3 - 2x on the diagonal, -1 below, -2 above), and
    ``least_squares(method="trf")`` with it takes the steps it takes with ``_jac``."""
    n = 12
    x0 = -np.ones(n) + 0.1 * np.sin(np.arange(n))
    J = dgraph.make_function(broyden_fun, "jacobian", point=[x0], sparse=True)
    got = J(x0)
    assert sp.issparse(got) and J.generated.verified is True
    hand = sp.diags([-np.ones(n - 1), 3 - 2 * x0, -2 * np.ones(n - 1)], [-1, 0, 1])
    np.testing.assert_array_equal((got != 0).toarray(), (hand != 0).toarray())
    np.testing.assert_allclose(got.toarray(), hand.toarray(), rtol=1e-15)
    ours = least_squares(broyden_fun, x0, jac=J, method="trf")
    theirs = least_squares(
        broyden_fun,
        x0,
        jac=lambda x: sp.diags(
            [-np.ones(n - 1), 3 - 2 * x, -2 * np.ones(n - 1)], [-1, 0, 1]
        ).tocsr(),
        method="trf",
    )
    assert ours.status > 0 and ours.nfev == theirs.nfev and ours.cost < 1e-20
    np.testing.assert_allclose(ours.x, theirs.x, rtol=1e-10)


def test_scalar_constraint_lagrangian_takes_one_weight_as_trust_constr_passes_it() -> None:
    """scipy/optimize/tests/test_minimize_constrained.py ``Maratos.constr``: a scalar
    ``fun(x) = x0² + x1²`` whose ``hess(x, v)`` is ``2 v[0] I``, ``v`` of shape (1,) as
    ``NonlinearConstraint`` passes it; ``HyperbolicIneq.constr``'s ``1/(x0 + 1) - x1``:
    ``2 v[0] / (x0 + 1)³`` at (0, 0). One weight was refused ("f returns a scalar"); two
    still are."""
    x = np.array([0.5, 0.866])
    H = dgraph.make_function(
        lambda x: x[0] ** 2 + x[1] ** 2, "hessian", point=[x], weights=np.ones(1)
    )
    assert H.generated.verified is True
    np.testing.assert_allclose(H(x, np.array([-0.75])), -1.5 * np.eye(2), rtol=1e-15)
    G = dgraph.make_function(
        lambda x: 1 / (x[0] + 1) - x[1], "hessian", point=[x], weights=np.ones(1)
    )
    z = np.array([0.3, 0.2])
    np.testing.assert_allclose(G(z, np.array([2.0])), [[4 / 1.3**3, 0], [0, 0]], rtol=1e-14)
    with pytest.raises(InputError, match=r"weights of shape \(2,\): f returns a scalar"):
        dgraph.make_function(lambda x: x[0] * x[1], "hessian", point=[x], weights=np.ones(2))


def pressure_network(flow_rates, Qtot, k):
    """scipy/optimize/tests/test_minpack.py ``pressure_network``."""
    P = k * flow_rates**2
    return np.hstack((P[1:] - P[0], flow_rates.sum() - Qtot))


def test_pressure_network_jacobian_is_the_derivative_not_the_tests_zero_block() -> None:
    """test_minpack.py ``pressure_network_jacobian`` writes ``pdiff * 0`` into the
    pressure rows (a zero block; fsolve converges with it all the same); the derivative
    of ``k_i Q_i² - k_0 Q_0²`` is ``2 k_i Q_i`` at ``Q_i`` and ``-2 k_0 Q_0`` at ``Q_0``,
    which dgraph gives, and central differences agree."""
    Q, k = np.array([2.0, 1.5, 1.2, 1.0]), np.array([1.0, 2.0, 3.0, 4.0])
    J = dgraph.make_function(pressure_network, "jacobian", point=[Q, 4.0, k], params=["Qtot", "k"])
    hand = np.zeros((4, 4))
    hand[:3, 0] = -2 * k[0] * Q[0]
    hand[np.arange(3), np.arange(1, 4)] = 2 * k[1:] * Q[1:]
    hand[3] = 1
    np.testing.assert_allclose(J(Q, 4.0, k), hand, rtol=1e-15)
    h = 1e-6
    fd = np.column_stack(
        [
            (pressure_network(Q + h * e, 4.0, k) - pressure_network(Q - h * e, 4.0, k)) / (2 * h)
            for e in np.eye(4)
        ]
    )
    np.testing.assert_allclose(J(Q, 4.0, k), fd, atol=1e-8)


def test_a_branch_on_the_time_is_refused_naming_it_and_np_where_is_read() -> None:
    """test_ivp.py ``fun_medazko``'s ``phi = 2 if t <= 5 else 0``, t a parameter: the
    refusal names t and ``np.where`` (it said the value "depends on the inputs"); written
    so, its Jacobian is right on both sides of t = 5 (here a smaller system of the same
    kind: the boundary value phi enters the first equation)."""

    def branching(t, y):
        phi = 2 if t <= 5 else 0
        return np.hstack((phi * y[0] - y[1] ** 2, y[0] * y[1]))

    def where(t, y):
        phi = np.where(t <= 5, 2.0, 0.0)
        return np.hstack((phi * y[0] - y[1] ** 2, y[0] * y[1]))

    y = np.array([0.3, 0.7])
    with pytest.raises(InputError, match=r"parameter \(t\).*np\.where\(t <= 5"):
        dgraph.make_function(branching, "jacobian", point=[1.0, y], params=["t"])
    J = dgraph.make_function(where, "jacobian", point=[1.0, y], params=["t"])
    np.testing.assert_allclose(J(y, 1.0), [[2.0, -1.4], [0.7, 0.3]], rtol=1e-15)
    np.testing.assert_allclose(J(y, 7.0), [[0.0, -1.4], [0.7, 0.3]], rtol=1e-15)


def lbfgsb_fun(x, p=2.0):
    """scipy/optimize/tests/test_optimize.py ``TestLBFGSBBounds.fun``; its ``jac`` is
    ``x**(p - 1)``."""
    return 1.0 / p * (x[0] ** p + x[1] ** p)


def test_a_parameter_exponent_at_a_zero_base_is_finite_and_verified() -> None:
    """``TestLBFGSBBounds`` starts at x0 = (0, -1) with p = 2.0 a parameter (``args``):
    the partial of ``x**p`` was sympy's ``x**p*p/x`` and the code's ``x**p/x`` (the value
    reused), 0/0 at x = 0: not verified, NaN for L-BFGS-B's first step. Now ``x**(p -
    1)``, the test's own ``jac``: (0, -1) at x0, and L-BFGS-B with it reaches the test's
    solution (1, 0)."""
    from scipy.optimize import minimize

    x0 = np.array([0.0, -1.0])
    J = dgraph.make_function(lbfgsb_fun, "jacobian", point=[x0, 2.0], params=["p"])
    assert J.generated.verified is True
    np.testing.assert_array_equal(J(x0, 2.0), [0.0, -1.0])
    np.testing.assert_allclose(J(np.array([0.5, 2.0]), 3.0), [0.25, 4.0], rtol=1e-15)
    res = minimize(
        lbfgsb_fun,
        x0,
        args=(2.0,),
        jac=lambda x, p: J(x, p),
        method="L-BFGS-B",
        bounds=((1, None), (None, None)),
    )
    assert res.success
    np.testing.assert_allclose(res.x, [1.0, 0.0], atol=1e-5)


def test_a_parameter_exponent_hessian_graph_is_checked_at_the_given_parameter() -> None:
    """The graph of scalars' Hessian (Dixon's) of ``TestLBFGSBBounds.fun`` at x0 = (0, -1),
    p = 2.0: the Hessian graph kept the point but not p's value, so the check drew p from
    [0.5, 1.5) there, where ``x0**(p - 1)`` is infinite at 0: right but not verified. Now
    checked at the given p: the identity, verified."""
    from dgraph.frontends import from_function

    x0 = np.array([0.0, -1.0])
    H = dgraph.make_function(from_function(lbfgsb_fun, point=[x0, 2.0], params=["p"]), "hessian")
    assert H.generated.verified is True
    np.testing.assert_array_equal(H(x0, 2.0), np.eye(2))
