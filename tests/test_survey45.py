"""Defects found by survey45 (held-out-style programs through every command and API,
``benchmarks/programs_survey``), one small test each."""

import numpy as np

import dgraph


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
