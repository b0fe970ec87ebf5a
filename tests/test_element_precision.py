"""The element level keeps the digits its program keeps: ``np.expm1`` and ``np.log1p``
expand to sympy's ``expm1``/``log1p`` (printed as C99's and NumPy's), not ``exp(a) - 1``
and ``log(1 + a)``, which gave 2.2e-5 relative error at 2e-12 in generated code that the
check called verified; ``np.logaddexp`` of operands 40 apart keeps the smaller one's
4e-18; and a graph whose expressions name ``expm1``, ``log1p``, ``erfinv`` or ``ndtri``
reads back from its own JSON (``erfinv`` was "unknown function")."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sps

import dgraph
from dgraph.codegen.c import compiler

X = np.array([1e-10, 2e-12, -3e-13, 0.3])
PROGRAMS = {  # name: (program, its derivative)
    "expm1": (np.expm1, np.exp),
    "log1p": (np.log1p, lambda x: 1 / (1 + x)),
    "logaddexp": (lambda x: np.logaddexp(x, -40.0), lambda x: sps.expit(x + 40.0)),
    "softplus_tie": (lambda x: np.logaddexp(0.0, x), sps.expit),
}
# The method make_function's choice gives each program (the same generated text), named
# so that the cases do not each build and compare every candidate's program: the choice
# is codegen's (tests/test_codegen_choice.py).
CHOSEN = {
    "expm1": "forward",
    "log1p": "forward",
    "logaddexp": "layers",
    "softplus_tie": "layers",
    "log": "forward",
    "spring": "symbolic",
    "tan": "forward",
}


@pytest.mark.parametrize("lang", ["python", "c"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_generated_values_keep_small_digits(name: str, lang: str) -> None:
    if lang == "c" and compiler() is None:
        pytest.skip("needs a C compiler")
    f, derivative = PROGRAMS[name]
    fn = dgraph.make_function(f, "value_and_jacobian", point=[X], lang=lang, method=CHOSEN[name])
    value, J = fn(X)
    assert fn.generated.verified
    np.testing.assert_allclose(value, f(X), rtol=1e-15, atol=0)
    np.testing.assert_allclose(np.diag(np.asarray(J)), derivative(X), rtol=1e-15)


def test_logaddexp_second_derivative_at_a_tie() -> None:
    """Near a tie the formula is the one whose derivatives of every order are the smooth
    function's: softplus'' at 0 is 1/4."""
    h = dgraph.make_function(lambda x: np.sum(np.logaddexp(0.0, x)), "hessian", point=[X])
    z = np.array([0.0, 2.5, -7.0, 60.0])
    s = sps.expit(z)
    np.testing.assert_allclose(np.diag(np.asarray(h(z))), s * sps.expit(-z), rtol=1e-12)


@pytest.mark.parametrize(
    "f",
    [
        lambda x: np.log1p(np.expm1(x) * 2),
        lambda x: sps.erfinv(x * 0.5),
        lambda x: sps.ndtri(x * 0.5 + 0.3),
    ],
    ids=["expm1-log1p", "erfinv", "ndtri"],
)
def test_element_graph_reads_back_from_json(f) -> None:
    graph = dgraph.from_function(f, sizes=[2], point=[np.array([0.1, 0.2])])
    again = dgraph.from_json(graph.to_json())
    assert [str(again.expr(v)) for v in again.order()] == [
        str(graph.expr(v)) for v in graph.order()
    ]
    assert dgraph.accumulate(again, "reverse").verified


def test_latex_names_the_functions() -> None:
    """sympy's LaTeX took ``expm1``'s trailing digit for a subscript (``expm_1``)."""
    import sympy

    graph = dgraph.from_function(lambda x: np.log1p(np.expm1(x) * 2), sizes=[1])
    text = " ".join(sympy.latex(graph.expr(v)) for v in graph.order() if graph.expr(v) is not None)
    assert r"\operatorname{expm1}" in text and r"\operatorname{log1p}" in text
    assert "expm}_{1}" not in text


NEAR_ONE = np.array([1 + 1e-9, 1 + 3e-10, 2.0])  # x - 1 is exact (Sterbenz)
SCALED = {  # name: (program, its derivative), a constant times a difference
    "log": (
        lambda x: np.log(2.5 * (x - 1.0) + 1e-12),
        lambda x: 2.5 / (2.5 * (x - 1.0) + 1e-12),
    ),
    "spring": (lambda x: 3.7 * (x - 1.0) * x, lambda x: 3.7 * (x - 1.0) + 3.7 * x),
    "tan": (lambda x: 1.0 / np.tan(3.7 * (x - 1.0)), lambda x: -3.7 / np.sin(3.7 * (x - 1.0)) ** 2),
}


@pytest.mark.parametrize("lang", ["python", "c"])
@pytest.mark.parametrize("name", sorted(SCALED))
def test_a_number_stays_a_factor_of_a_difference(name: str, lang: str) -> None:
    """``2.5*(x - 1)`` substituted into its users was rebuilt by sympy as ``2.5*x - 2.5``
    (and ``+ 1e-12`` folded into ``-2.499999999999``): at x = 1 + 1e-9 the generated
    Jacobian of ``log(2.5*(x - 1) + 1e-12)`` was 1.2e-7 relative off, Cauchy's ``ppf``
    6.6e-11 at q = 1 - 1e-6. The number now stays a factor of the difference."""
    if lang == "c" and compiler() is None:
        pytest.skip("needs a C compiler")
    f, derivative = SCALED[name]
    graph = dgraph.from_function(f, sizes=[3], point=[NEAR_ONE], level="element")
    made = dgraph.make_function(graph, "value_and_jacobian", lang=lang, method=CHOSEN[name])
    value, J = made(NEAR_ONE)
    np.testing.assert_allclose(value, f(NEAR_ONE), rtol=2e-16, atol=0)
    np.testing.assert_allclose(np.diag(np.asarray(J)), derivative(NEAR_ONE), rtol=4e-16)


def test_cauchy_quantile_near_one_against_mpmath() -> None:
    """π/sin²(πq) at the double nearest 1 - 1e-6, by mpmath at 40 digits."""
    import scipy.stats as st

    q = np.array([1 - 1e-6, 0.3])
    exact = np.array([318309886166.53143, 4.799926459457307])
    for level in ("element", "array"):
        graph = dgraph.from_function(lambda q: st.cauchy.ppf(q), sizes=[2], point=[q], level=level)
        J = dgraph.make_function(graph, "jacobian")(q)
        np.testing.assert_allclose(np.diag(J), exact, rtol=1e-15)


def test_values_keep_an_inexact_factor_and_distribute_an_exact_one() -> None:
    """The closed forms (``DGraph.values``) rebuild products as sympy does but for an
    inexact number on a sum; a power of two still distributes (its products are exact)."""
    import sympy

    from dgraph.core.rebuild import replaced

    x, t = sympy.symbols("x t")
    assert replaced(3.7 * t, {t: x - 1}).args == (sympy.Float(3.7), x - 1)
    assert replaced(sympy.Rational(5, 2) * t, {t: x - 1}).args == (sympy.Rational(5, 2), x - 1)
    assert replaced(2 * t, {t: x - 1}) == 2 * x - 2
    assert replaced(-t, {t: x - 1}) == 1 - x
    graph = dgraph.from_function(lambda x: np.sin(3.7 * (x - 1.0)), sizes=[1], level="element")
    assert str(graph.values()["y0"]) == "sin(3.7*(x0 - 1))"
