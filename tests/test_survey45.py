"""Defects found by survey45 (held-out-style programs through every command and API,
``benchmarks/programs_survey``), one small test each."""

import numpy as np
import pytest

import dgraph
from dgraph.errors import DGraphError


def test_params_with_a_defaulted_trailing_argument():
    """``dgraph.jacobian(f, point=[w, X], params=["X"])`` of ``def f(w, X, l2=0.5)``
    (a logistic loss with a default penalty, an Elo model with ``scale=400.0``) was
    refused: "with params=, give sizes= for every argument beside point=" (the default
    counted as an argument), and JAX's reader then "point= gives 2 shapes for 3
    arguments". Trailing defaulted arguments keep their defaults, as without params=."""
    import jax.numpy as jnp

    def f(w, X, l2=0.5):
        return np.sum((X @ w) ** 2) + l2 * np.sum(w**2)

    def fj(w, X, l2=0.5):
        return jnp.sum((X @ w) ** 2) + l2 * jnp.sum(w**2)

    w, X = np.array([1.0, 2.0]), np.array([[1.0, 0.5], [0.3, -1.0]])
    grad = 2 * X.T @ X @ w + w  # l2 = 0.5 kept
    es = dgraph.jacobian(f, point=[w, X], params=["X"])
    assert es.verified
    G = dgraph.make_function(f, "jacobian", "python", params=["X"], point=[w, X])
    np.testing.assert_allclose(np.ravel(G(w, X.ravel())), grad, rtol=1e-13)
    Gj = dgraph.make_function(fj, "jacobian", "python", params=["X"], point=[w, X])
    np.testing.assert_allclose(np.ravel(Gj(w, X.ravel())), grad, rtol=1e-13)
    with pytest.raises(DGraphError, match="give sizes= for every argument"):
        dgraph.jacobian(f, point=[w, X], params=["X", "l2"])  # a parameter left out


def test_numpy_diag_of_a_vector_holding_a_sign():
    """Kabsch's ``R = Vt.T @ np.diag(np.array([1.0, 1.0, d])) @ U.T`` with ``d =
    np.sign(np.linalg.det(...))`` was refused: "numpy.diag of a comparison on an array that
    depends on the inputs is not supported". A vector of passive entries makes its
    diagonal matrix as an active one does, the sign read at each call."""

    def f(x):
        d = np.sign(x[0] * x[1])
        return np.diag(np.array([1.0, 1.0, d])) @ x**2

    G = dgraph.make_function(f, "jacobian", "python", point=[np.array([1.0, 2.0, 3.0])])
    assert G.generated.verified
    for x in (np.array([1.0, 2.0, 3.0]), np.array([-1.5, 2.0, 0.5])):
        s = np.sign(x[0] * x[1])
        np.testing.assert_allclose(G(x), np.diag(2 * x * np.array([1.0, 1.0, s])), rtol=1e-14)


def test_svd_tangent_has_an_exact_zero_diagonal_in_jax_code():
    """The JAX code of a Kabsch RMSD (``np.linalg.svd`` of the 3×3 cross-covariance, the
    rotation ``V·diag(1, 1, d)·Uᵀ``) differed from ``jax.jacfwd`` by 1.8e-9 of J (python
    and C code: 1e-16): the SVD tangent's ``F = 1/(s_j² - s_i² + I) - I`` is 0 on the
    diagonal only if ``s_i·s_i - s_i·s_i`` is, and XLA fuses it into one multiply-add
    (1e-12 left); at the optimal rotation the SVD's terms cancel, so that was all of
    their sum. The diagonal is now masked to 0."""
    import jax

    def rmsd(P, Q, m=np):
        Pc, Qc = P - P.mean(axis=0), Q - Q.mean(axis=0)
        U, _, Vt = m.linalg.svd(Pc.T @ Qc)
        d = m.sign(m.linalg.det(Vt.T @ U.T))
        R = Vt.T @ m.diag(m.array([1.0, 1.0, d])) @ U.T
        return m.sqrt(m.mean(m.sum((Pc @ R.T - Qc) ** 2, axis=1)))

    rng = np.random.default_rng(0)
    P = rng.normal(size=(10, 3)) * np.array([3.0, 2.0, 1.0])
    c, s = np.cos(0.7), np.sin(0.7)
    Q = P @ np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]).T + 0.1 * rng.normal(
        size=P.shape
    )
    G = dgraph.make_function(rmsd, "jacobian", "jax", point=[P, Q])
    Pc, Qc = P - P.mean(axis=0), Q - Q.mean(axis=0)
    U, _, Vt = np.linalg.svd(Pc.T @ Qc)
    R = Vt.T @ np.diag([1.0, 1.0, np.sign(np.linalg.det(Vt.T @ U.T))]) @ U.T
    r = Pc @ R.T - Qc  # at the optimal R only the residuals move: R^T r_i / (n f)
    want = r @ R / (len(P) * rmsd(P, Q))
    with jax.enable_x64(True):
        got = np.asarray(G(P, Q)[0]).reshape(want.shape)
    assert np.abs(got - want).max() <= 1e-13 * np.abs(want).sum()


def test_logaddexp_of_two_minus_infinities():
    """A CTC forward pass written with ``-np.inf`` for log 0 was refused: "read wrongly:
    at the point, output entry 0 of the graph is nan where the function gives 13.2"
    (``np.logaddexp(-inf, -inf)`` read as ``m + log1p(exp(-|a - b|))``: -inf - -inf is
    NaN; NumPy gives -inf), and with the value right its derivatives were NaN there
    (``max``'s ``H(a - b)`` and the formulas of NaN). Now -inf, derivatives finite."""

    def f(x):
        a = np.concatenate([x, np.full(2, -np.inf)])
        for _ in range(2):  # two steps of a left-to-right lattice
            a = np.logaddexp(a, np.concatenate([np.full(1, -np.inf), a[:-1]]))
        return a

    from dgraph.frontends import from_python

    x = np.array([0.3, -0.4])
    G = dgraph.make_function(from_python(f, point=[x], level="array"), "jacobian", "python")
    assert G.generated.verified
    e0, e1 = np.exp(x)
    want = np.array([[1, 0], [2 * e0, e1], [e0, 2 * e1], [0, 1]]) / np.array(
        [[1], [e1 + 2 * e0], [2 * e1 + e0], [1]]
    )
    np.testing.assert_allclose(np.asarray(G(x)).reshape(4, 2), want, rtol=1e-13, atol=1e-15)
