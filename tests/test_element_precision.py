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


@pytest.mark.parametrize("lang", ["python", "c"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_generated_values_keep_small_digits(name: str, lang: str) -> None:
    if lang == "c" and compiler() is None:
        pytest.skip("needs a C compiler")
    f, derivative = PROGRAMS[name]
    fn = dgraph.make_function(f, "value_and_jacobian", point=[X], lang=lang)
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
