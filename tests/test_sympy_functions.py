"""sympy functions in graphs of scalars whose derivatives sympy does not finish
(:func:`dgraph.core.graph.local_derivative`, :mod:`dgraph.core.numeric`): ``Mod`` (as
``a − b·floor(a/b)``: its derivatives 1 and ``−floor(a/b)``; sympy left
``Subs(Derivative(Mod(...)))``, printed as a ValueError out of the value check), a
function it cannot differentiate (``zeta`` in its first argument: one line), one whose
derivative has no NumPy counterpart (``uppergamma``'s ``meijerg``: one line, not a
NameError), and the Hessian of a step (``Heaviside(x)·y²``: the adjoint no output reads
left out; a KeyError out of ``make_function(g, "hessian")`` before)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

import dgraph
from dgraph.errors import DGraphError

a, b = sympy.symbols("a b", real=True)


def test_mod_s_derivatives():
    es = dgraph.accumulate(
        dgraph.from_sympy([sympy.Mod(a * b, 0.9) + sympy.Mod(a, b) * a], [a, b]), "forward"
    )
    assert es.verified
    at = (0.7, 1.3)  # a·b = 0.91: Mod(a·b, 0.9) = a·b − 0.9; a/b < 1: Mod(a, b) = a
    np.testing.assert_allclose(np.asarray(es.evaluate(at), dtype=float), [[1.3 + 2 * 0.7, 0.7]])


@pytest.mark.parametrize(
    ("expr", "words"),
    [
        (sympy.zeta(a + 2, b), "no derivative of zeta("),
        (sympy.uppergamma(a, b), "cannot evaluate meijerg(...) numerically"),
    ],
)
def test_what_sympy_cannot_differentiate_or_numpy_evaluate_is_one_line(expr, words):
    with pytest.raises(DGraphError) as e:
        g = dgraph.from_sympy([expr], [a, b])
        dgraph.accumulate(g, "forward").evaluate([1.7, 1.3])
    assert words in str(e.value) and "\n" not in str(e.value)


def test_the_hessian_of_a_step():
    g = dgraph.from_sympy([sympy.Heaviside(a) * b**2 + sympy.Abs(a - b) * b], [a, b])
    H = dgraph.make_function(g, "hessian", method="paths")  # the choice's (the same text)
    at = np.array([0.7, 1.3])  # |a − b|·b = (b − a)·b here
    np.testing.assert_allclose(np.asarray(H(at)).reshape(2, 2), [[0.0, -1.0], [-1.0, 2.0 + 2.0]])


# -- written in other terms (dgraph.frontends.functions.elementary), printed through SciPy

k = sympy.Symbol("k", integer=True)


@pytest.mark.parametrize(
    ("expr", "same", "method"),
    [  # factorial(b) printed math.factorial, a TypeError on a float; frac had no derivative;
        # a Sum or Product's index was printed as an undefined name. method: the one
        # make_function's choice gives (the same generated text), named so that no case
        # builds and costs every candidate (the choice is tests/test_codegen_choice.py's)
        (sympy.factorial(b) * a, sympy.gamma(b + 1) * a, "paths"),
        (sympy.RisingFactorial(b, 3) + sympy.FallingFactorial(b, 2) * a, None, "forward"),
        (sympy.frac(3 * b) * a**2, (3 * b - 3) * a**2, "forward"),  # floor(3.9) = 3 near the point
        (sympy.Sum(a**k * b, (k, 1, 4)), a * b + a**2 * b + a**3 * b + a**4 * b, "paths"),
        (sympy.Product(a + k * b, (k, 1, 3)), (a + b) * (a + 2 * b) * (a + 3 * b), "symbolic"),
    ],
)
def test_rewritten_functions_against_sympy_s_hessian(expr, same, method):
    at = {a: 0.7, b: 1.3}
    want = sympy.hessian(expr.doit() if same is None else same, [a, b]).subs(at)
    H = dgraph.make_function(dgraph.from_sympy([expr], [a, b]), "hessian", method=method)
    got = np.asarray(H(np.array([0.7, 1.3]))).reshape(2, 2)
    if same is None:  # the rising and falling factorials: sympy's own polynomial
        want = sympy.hessian(sympy.expand_func(expr), [a, b]).subs(at)
    np.testing.assert_allclose(got, np.array(want, dtype=float), rtol=1e-12)


def test_an_unbounded_sum_is_one_line():
    with pytest.raises(DGraphError) as e:
        dgraph.from_sympy([sympy.Sum(a**k / sympy.factorial(k), (k, 0, sympy.oo))], [a])
    assert "is not a finite range of at most 10,000 terms" in str(e.value)


def test_bessel_and_elliptic_functions_through_scipy():
    """Bessel functions of any order and the complete elliptic integrals: SciPy's ``jv``,
    ``yv``, ``iv``, ``kv``, ``ellipk``, ``ellipe`` in NumPy code ("cannot print besselj"
    before); their derivatives sympy's recurrences; C and JAX have none: one line."""
    from scipy import special

    expr = (
        sympy.besselj(0, a) * b
        + sympy.bessely(1, b)
        + sympy.besseli(1, a) * sympy.besselk(0, b)
        + sympy.elliptic_k(a / 2) * sympy.elliptic_e(b / 3)
    )
    g = dgraph.from_sympy([expr], [a, b])
    J = dgraph.make_function(g, "jacobian", method="paths")  # the choice's (the same text)
    x, y = 0.7, 1.3
    h = 1e-6  # central differences of SciPy's own values
    f = lambda x, y: (  # noqa: E731
        special.jv(0, x) * y + special.yv(1, y) + special.iv(1, x) * special.kv(0, y)
        + special.ellipk(x / 2) * special.ellipe(y / 3)
    )  # fmt: skip
    want = [(f(x + h, y) - f(x - h, y)) / (2 * h), (f(x, y + h) - f(x, y - h)) / (2 * h)]
    np.testing.assert_allclose(np.ravel(J(np.array([x, y]))), want, rtol=1e-8)
    H = dgraph.make_function(g, "hessian", method="paths")  # the choice's
    assert np.asarray(H(np.array([x, y]))).shape in ((2, 2), (4,))
    for lang, words in (("c", "in C: cannot print bessel"), ("jax", "cannot print math.")):
        with pytest.raises(DGraphError) as e:
            dgraph.make_function(g, "jacobian", lang=lang)
        assert words in str(e.value) and "\n" not in str(e.value)


def test_a_vector_parameter_named_t_leaves_the_temporaries_other_names():
    """sympy's route names a vector parameter's elements ``t0, t1, …`` and its temporaries
    ``t1, t2, …``: a parameter named ``t`` (a time grid) took a temporary's name
    (GraphError "vertex 't1' has the name of a parameter"); the temporaries now skip it."""

    def f(c, t):
        return sympy.Matrix([c[0] * t[0] + c[1] * t[1] ** 2 + sympy.sin(c[0] * c[1])])

    es = dgraph.jacobian(f, sizes=[2, 3], params=["t"])
    assert es.graph.traced_with == "sympy" and es.verified
    assert set(es.graph.parameters) == {"t0", "t1", "t2"}
    c, t = np.array([0.3, -0.7]), np.array([2.0, 5.0, 1.0])
    want = [t[0] + c[1] * np.cos(c[0] * c[1]), t[1] ** 2 + c[0] * np.cos(c[0] * c[1])]
    made = dgraph.make_function(f, "jacobian", sizes=[2, 3], params=["t"], method="forward")
    np.testing.assert_allclose(np.ravel(made(c, t)), want, rtol=1e-14)
