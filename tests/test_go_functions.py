"""SciPy's global-optimization benchmark functions (scipy's
``benchmarks/benchmarks/go_benchmark_functions``, each a class whose ``fun(self, x,
*args)`` is NumPy), restated here idiom for idiom and given to dgraph as a user would:
the bound method ``problem.fun`` itself (session 62, ``benchmarks/go_functions_survey.py``
runs the originals). Gradients against hand-derived ones, Hessians against hand-derived
ones or central differences of the hand-derived gradient."""

import importlib.util
import sys

import numpy as np
import pytest
from numpy import abs, arange, atleast_2d, cos, exp, pi, roll, sqrt, sum, where
from scipy.optimize import rosen, rosen_der, rosen_hess

from dgraph.codegen.function import make_function


class Ackley01:
    """go_funcs_A.py, ``Ackley01``: means by ``sum(...) / self.N`` inside ``exp``."""

    N = 2

    def fun(self, x, *args):
        u = sum(x**2)
        v = sum(cos(2 * pi * x))
        return -20.0 * exp(-0.2 * sqrt(u / self.N)) - exp(v / self.N) + 20.0 + exp(1.0)

    def grad(self, x):
        r = sqrt(sum(x**2) / self.N)
        first = 4.0 * exp(-0.2 * r) * x / (self.N * r)
        second = exp(sum(cos(2 * pi * x)) / self.N) * 2 * pi * np.sin(2 * pi * x) / self.N
        return first + second


class Rosenbrock:
    """go_funcs_R.py, ``Rosenbrock``: SciPy's own ``scipy.optimize.rosen`` called inside
    (``array_namespace``, ``xp.sum(..., dtype=x.dtype)``)."""

    def fun(self, x, *args):
        return rosen(x)

    def grad(self, x):
        return rosen_der(x)

    def hess(self, x):
        return rosen_hess(x)


class Bohachevsky1:
    """go_funcs_B.py, ``Bohachevsky1``, at its global optimum (0, 0): a stationary point,
    where every path's partial is zero."""

    def fun(self, x, *args):
        return x[0] ** 2 + 2 * x[1] ** 2 - 0.3 * cos(3 * pi * x[0]) - 0.4 * cos(4 * pi * x[1]) + 0.7

    def grad(self, x):
        return np.array(
            [
                2 * x[0] + 0.9 * pi * np.sin(3 * pi * x[0]),
                4 * x[1] + 1.6 * pi * np.sin(4 * pi * x[1]),
            ]
        )

    def hess(self, x):
        return np.diag(
            [
                2 + 2.7 * pi**2 * np.cos(3 * pi * x[0]),
                4 + 6.4 * pi**2 * np.cos(4 * pi * x[1]),
            ]
        )


class Hartmann3:
    """go_funcs_H.py, ``Hartmann3``: ``np.atleast_2d(x)`` broadcast against a (4, 3)
    table, ``sum(..., axis=1)``."""

    a = np.array([[3.0, 10.0, 30.0], [0.1, 10.0, 35.0], [3.0, 10.0, 30.0], [0.1, 10.0, 35.0]])
    p = np.array(
        [
            [0.3689, 0.117, 0.2673],
            [0.4699, 0.4387, 0.747],
            [0.1091, 0.8732, 0.5547],
            [0.03815, 0.5743, 0.8828],
        ]
    )
    c = np.array([1.0, 1.2, 3.0, 3.2])

    def fun(self, x, *args):
        xx = np.atleast_2d(x)
        d = sum(self.a * (xx - self.p) ** 2, axis=1)
        return -sum(self.c * exp(-d))

    def grad(self, x):
        w = self.c * np.exp(-np.sum(self.a * (x - self.p) ** 2, axis=1))
        return (w[:, None] * 2 * self.a * (x - self.p)).sum(axis=0)

    def hess(self, x):
        w = self.c * np.exp(-np.sum(self.a * (x - self.p) ** 2, axis=1))
        g = 2 * self.a * (x - self.p)  # ∂d_i/∂x_j
        return np.einsum("i,ij->j", w, 2 * self.a) * np.eye(3) - np.einsum("i,ij,ik->jk", w, g, g)


class Penalty01:
    """go_funcs_P.py, ``Penalty01``: ``where(abs(x) > a, b * (abs(x) - a) ** c, 0.0)``
    and ``y[:-1]`` against ``y[1:]``."""

    def fun(self, x, *args):
        xx = abs(x)
        u = where(xx > 10.0, 100.0 * (xx - 10.0) ** 4.0, 0.0)
        y = 1.0 + (x + 1.0) / 4.0
        return sum(u) + (pi / 30.0) * (
            10.0 * np.sin(pi * y[0]) ** 2.0
            + sum((y[:-1] - 1.0) ** 2.0 * (1.0 + 10.0 * np.sin(pi * y[1:]) ** 2.0))
            + (y[-1] - 1) ** 2.0
        )

    def grad(self, x):
        y = 1.0 + (x + 1.0) / 4.0
        g = np.where(np.abs(x) > 10.0, 400.0 * (np.abs(x) - 10.0) ** 3 * np.sign(x), 0.0)
        s = 1.0 + 10.0 * np.sin(pi * y[1:]) ** 2
        dy = np.zeros_like(x)
        dy[0] += 20.0 * np.sin(pi * y[0]) * np.cos(pi * y[0]) * pi
        dy[:-1] += 2 * (y[:-1] - 1.0) * s
        dy[1:] += (y[:-1] - 1.0) ** 2 * 20.0 * np.sin(pi * y[1:]) * np.cos(pi * y[1:]) * pi
        dy[-1] += 2 * (y[-1] - 1)
        return g + (pi / 30.0) * dy / 4.0


class Sargan:
    """go_funcs_S.py, ``Sargan``: ``roll(x, -1)[:-1]`` and a sum inside a sum."""

    N = 3

    def fun(self, x, *args):
        x0 = x[:-1]
        x1 = roll(x, -1)[:-1]
        return sum(self.N * (x**2 + 0.4 * sum(x0 * x1)))

    def grad(self, x):
        inner = np.zeros_like(x)
        inner[:-1] += x[1:]
        inner[1:] += x[:-1]
        return self.N * (2 * x + 0.4 * self.N * inner)


class PermFunction01:
    """go_funcs_P.py, ``PermFunction01``: ``atleast_2d(arange(N) + 1).T`` against a row,
    integer powers ``j ** k`` broadcast to a table."""

    N = 3

    def fun(self, x, *args):
        k = atleast_2d(arange(self.N) + 1).T
        j = atleast_2d(arange(self.N) + 1)
        s = (j**k + 0.5) * ((x / j) ** k - 1)
        return sum(sum(s, axis=1) ** 2)

    def grad(self, x):
        k = np.arange(1, self.N + 1)[:, None]
        j = np.arange(1, self.N + 1)[None, :]
        s = ((j**k + 0.5) * ((x / j) ** k - 1)).sum(axis=1)
        return (2 * s[:, None] * (j**k + 0.5) * k * x ** (k - 1) / j**k).sum(axis=0)


class Schwefel21:
    """go_funcs_S.py, ``Schwefel21``: Python's builtin ``max`` of a vector (the module
    imports no ``max`` of NumPy's); it was "maximum() takes from 2 to 3 positional
    arguments" (session 62)."""

    def fun(self, x, *args):
        return max(abs(x))

    def grad(self, x):
        k = np.argmax(np.abs(x))
        return np.sign(x[k]) * np.eye(len(x))[k]

    def hess(self, x):
        return np.zeros((len(x), len(x)))


class ZimmermanMax:
    """go_funcs_Z.py, ``Zimmerman``'s idiom: Python's builtin ``max`` of five traced
    numbers (here three terms, not its five penalties); it was "maximum() takes from 2 to
    3 positional arguments but 5 were given" (session 62)."""

    def fun(self, x, *args):
        return max(x[0] ** 2, 2 * x[1], x[0] + x[1])

    def grad(self, x):
        k = np.argmax([x[0] ** 2, 2 * x[1], x[0] + x[1]])
        return np.array([[2 * x[0], 0.0], [0.0, 2.0], [1.0, 1.0]])[k]


def _central(g, x, h=1e-5):
    cols = [(g(x + h * e) - g(x - h * e)) / (2 * h) for e in np.eye(len(x))]
    return np.stack(cols, axis=1)


CASES = [
    (Ackley01(), np.array([0.7, -1.3])),
    (Rosenbrock(), np.array([0.4, 1.7])),
    (Bohachevsky1(), np.zeros(2)),
    (Hartmann3(), np.array([0.2, 0.55, 0.85])),
    (Penalty01(), np.array([12.5, -3.0])),
    (Sargan(), np.array([0.3, -0.8, 1.1])),
    (PermFunction01(), np.array([1.2, 1.9, 3.3])),
    (Schwefel21(), np.array([0.4, -1.7, 1.1])),
    (ZimmermanMax(), np.array([1.6, 0.9])),
]


@pytest.mark.parametrize(("problem", "x"), CASES, ids=lambda c: type(c).__name__)
def test_scipy_benchmark_function_gradient_and_hessian(problem, x):
    """``problem.fun`` (a bound method with ``*args``, as scipy.optimize calls it): the
    gradient and the Hessian, dense, verified and right."""
    made = make_function(problem.fun, "value_gradient_hessian", point=[x])
    assert made.generated.verified, made.generated.check.detail
    value, gradient, hessian = made(x)
    np.testing.assert_allclose(value, problem.fun(x), rtol=1e-14)
    want = problem.grad(x)
    np.testing.assert_allclose(
        np.ravel(gradient), want, rtol=1e-12, atol=1e-12 * np.abs(want).max()
    )
    if hasattr(problem, "hess"):
        np.testing.assert_allclose(hessian, problem.hess(x), rtol=1e-11, atol=1e-11)
    else:
        reference = _central(problem.grad, x)
        np.testing.assert_allclose(
            hessian, reference, rtol=1e-6, atol=1e-6 * np.abs(reference).max()
        )


_MODULE = '''
from numpy import asarray, atleast_2d, repeat, size, sqrt, sum, tril


class Cola:
    """go_funcs_C.py, ``Cola`` (three points, not ten): a list of constants and traced
    entries made an array by ``asarray``, ``repeat``, ``tril``."""

    d = [[0, 0, 0], [1.27, 0, 0], [1.69, 1.43, 0]]

    def fun(self, x, *args):
        xi = atleast_2d(asarray([0.0, x[0]] + list(x[1::2])))
        xj = repeat(xi, size(xi, 1), axis=0)
        xi = xi.T
        yi = atleast_2d(asarray([0.0, 0.0] + list(x[2::2])))
        yj = repeat(yi, size(yi, 1), axis=0)
        yi = yi.T
        inner = (sqrt((xi - xj) ** 2 + (yi - yj) ** 2 + 1.0) - asarray(self.d)) ** 2
        return sum(sum(tril(inner, -1), axis=1))
'''


def test_a_method_of_another_modules_object_reads_its_modules_numpy(tmp_path):
    """``lambda x: problem.fun(x)`` where ``problem``'s class lives in another module that
    imports ``asarray`` from NumPy: its method is reached, so that module's ``asarray``
    of a list holding traced entries is read (it was refused with "converting an array
    that depends on the inputs to a NumPy array")."""
    path = tmp_path / "go62_user_problems.py"
    path.write_text(_MODULE)
    spec = importlib.util.spec_from_file_location("go62_user_problems", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        problem = module.Cola()
        x = np.array([0.9, -0.4, 1.6])
        made = make_function(lambda x: problem.fun(x), "jacobian", point=[x])
        assert made.generated.verified
        np.testing.assert_allclose(
            np.ravel(made(x)), _central(lambda y: np.atleast_1d(problem.fun(y)), x)[0], rtol=1e-7
        )
    finally:
        del sys.modules[spec.name]
