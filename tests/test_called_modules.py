"""The functions a traced function calls are read with traced arrays in their own
modules too (dgraph.frontends.array_tracer.called_namespaces): a ``sympy.lambdify``-ed
function, whose namespace is NumPy's own names (``array``, ``sin``), and a helper in
another file of the user's that calls :mod:`math`; an installed library's modules are
left alone, and every namespace is given back as it was."""

from __future__ import annotations

import importlib.util
import statistics

import numpy as np
import pytest
import sympy as sp

import dgraph
from dgraph.frontends.array_tracer import called_namespaces


@pytest.fixture(scope="module")
def potential():
    """A potential's gradient as sympy's lambdify writes it: ``array([[…], […], […]])``."""
    x, y, z = sp.symbols("x y z")
    V = sp.exp(-(x**2) - y**2) * sp.cos(z) + sp.log(1 + x**2 * z**2) + x * y * z
    grad = sp.Matrix([V]).jacobian([x, y, z]).T
    return sp.lambdify((x, y, z), grad, "numpy"), sp.hessian(V, (x, y, z)), (x, y, z)


def test_a_lambdified_gradients_jacobian_is_the_sympy_hessian(potential):
    gradient, hessian, symbols = potential
    assert gradient.__globals__["array"] is np.array  # lambdify's own NumPy namespace

    def f(q):
        return gradient(*q).ravel()

    q = np.array([0.4, -0.3, 0.7])
    made = dgraph.make_function(f, "jacobian", "python", point=[q], method="symbolic")  # choice's
    J = made(q)
    want = np.array(hessian.subs(dict(zip(symbols, q, strict=True))).evalf(), dtype=float)
    np.testing.assert_allclose(J, want, rtol=1e-13, atol=1e-14)
    assert gradient.__globals__["array"] is np.array  # given back


def test_a_helper_in_another_users_module_may_call_math(tmp_path):
    path = tmp_path / "user_helpers_called.py"
    path.write_text(
        "import math\n\n\ndef bump(t):\n    return math.exp(-t * t) * math.sin(3.0 * t)\n"
    )
    spec = importlib.util.spec_from_file_location("user_helpers_called", path)
    helpers = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(helpers)

    def f(x):
        return np.stack([helpers.bump(x[0]) * x[1], x[0] + helpers.bump(x[1])])

    x = np.array([0.3, -0.8])
    J = dgraph.make_function(f, "jacobian", "python", point=[x])(x)

    def dbump(t):
        return np.exp(-t * t) * (3.0 * np.cos(3.0 * t) - 2.0 * t * np.sin(3.0 * t))

    want = [[dbump(x[0]) * x[1], helpers.bump(x[0])], [1.0, dbump(x[1])]]
    np.testing.assert_allclose(J, want, rtol=1e-13, atol=1e-14)
    assert helpers.math.exp is __import__("math").exp  # given back


def test_only_the_users_namespaces_are_read(potential):
    gradient = potential[0]

    def helper(t):
        return statistics.fmean([t, t])  # a standard library's function: not the user's

    def f(q):
        return gradient(*q).ravel() + helper(q[0]) + (lambda u: np.sin(u))(q[1])

    found = called_namespaces(f)
    assert found[0] is f.__globals__
    assert any(n is gradient.__globals__ for n in found)
    assert not any(n is statistics.fmean.__globals__ for n in found)
    assert not any(
        n is np.linalg.solve.__globals__ for n in found if hasattr(np.linalg.solve, "__globals__")
    )
