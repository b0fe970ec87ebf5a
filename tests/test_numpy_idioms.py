"""Idioms that open NumPy objectives: ``x = np.asarray(x, dtype=float)``, ``np.array(x)``
(a copy, then written into), and a library function that converts its argument inside
(scipy.optimize's ``rosen``: its Hessian by the element level, the array tracer's route
refusing it). Each was refused on main in Hessian mode ("converting an array that depends
on the inputs to a NumPy array"); scipy's own ``rosen_der`` and ``rosen_hess`` judge."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import rosen, rosen_der, rosen_hess

import dgraph
from dgraph.errors import DGraphError, InputError

_X = np.array([0.3, -0.2, 0.5, -0.4, 0.6, 0.1, 0.9])


def as_float(x):
    x = np.asarray(x, dtype=float)
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def copies_then_writes(x):
    y = np.array(x)
    y[0] = 2.0 * x[0]  # the copy is written; x is not
    return np.sum(100.0 * (y[1:] - y[:-1] ** 2) ** 2 + (1.0 - y[:-1]) ** 2) + x[0] ** 2


def _dense(h):
    return h.toarray() if hasattr(h, "toarray") else np.asarray(h)


@pytest.mark.parametrize("f", [as_float, rosen], ids=["asarray-float", "scipy-rosen"])
def test_rosenbrock_hessian_equals_scipy(f):
    """``rosen``'s Hessian, dense and sparse (its 3n - 2 entries), and gradient equal
    scipy's ``rosen_hess`` and ``rosen_der``."""
    np.testing.assert_allclose(_dense(dgraph.hessian(f, _X)(_X)), rosen_hess(_X), rtol=1e-12)
    sparse = dgraph.hessian(f, _X, sparse=True)(_X)
    assert sparse.nnz == 3 * _X.size - 2
    np.testing.assert_allclose(sparse.toarray(), rosen_hess(_X), rtol=1e-12)
    gradient = dgraph.make_function(f, "jacobian", "python", point=[_X])
    np.testing.assert_allclose(np.asarray(gradient(_X)).reshape(-1), rosen_der(_X), rtol=1e-12)


def test_a_written_copy_is_its_own_array():
    """``y = np.array(x); y[0] = 2·x[0]``: the Hessian of the written copy (rosen of y,
    y₀ = 2x₀), x itself unchanged (+ x₀²)."""
    y = _X.copy()
    y[0] *= 2.0
    expected = rosen_hess(y)
    expected[0, :] *= 2.0
    expected[:, 0] *= 2.0
    expected[0, 0] += 2.0
    np.testing.assert_allclose(_dense(dgraph.hessian(copies_then_writes, _X)(_X)), expected)


def test_an_integer_asarray_is_refused_in_one_line():
    def f(x):
        return np.sum(np.asarray(x, dtype=int) * x)

    with pytest.raises(InputError, match=r"numpy\.asarray\(dtype=int64\)"):
        dgraph.hessian(f, _X)


def test_a_library_converting_two_arguments_is_still_refused():
    """The element-level route is for a function of one vector; with two arguments the
    array tracer's refusal stands, in one line."""

    def f(x, a):
        return rosen(x) * a

    with pytest.raises(DGraphError, match="converting an array that depends on the inputs"):
        dgraph.hessian(f, _X, 2.0)
