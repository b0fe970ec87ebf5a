"""The restricted expression parser reads nesting with an explicit stack: it neither
recurses per level nor touches the interpreter's recursion limit (a global that other
threads share)."""

from __future__ import annotations

import inspect
import sys

import pytest
import sympy

from dgraph.core.parse import MAX_DEPTH, parse_expression
from dgraph.errors import InputError

x = sympy.Symbol("x", real=True)

NESTED = {
    "parentheses": ("(" * MAX_DEPTH + "x" + ")" * MAX_DEPTH, x),
    "signs": ("-" * MAX_DEPTH + "x", x),
    "signs and parentheses": ("(-" * (MAX_DEPTH // 2) + "x" + ")" * (MAX_DEPTH // 2), x),
    "negations": (
        "Piecewise((x, " + "~" * (MAX_DEPTH - 4) + "(x > 0)), (-x, True))",
        sympy.Piecewise((x, x > 0), (-x, True)),
    ),
    "signed exponents": ("x**-x**-x**-2", x ** (-(x ** (-(x**-2))))),
}


@pytest.mark.parametrize("name", list(NESTED))
def test_deep_nesting_leaves_the_recursion_limit_alone(monkeypatch, name):
    """The old parser raised the limit to 12 * MAX_DEPTH + 2000 while it ran."""
    text, expected = NESTED[name]

    def refuse(limit: int) -> None:
        raise AssertionError(f"the parser set the recursion limit to {limit}")

    monkeypatch.setattr(sys, "setrecursionlimit", refuse)
    assert parse_expression(text, {"x"}) == expected


def test_deep_nesting_parses_near_the_recursion_limit():
    """MAX_DEPTH levels of parentheses and signs with 80 frames to spare: the parser's own
    frames do not grow with the nesting."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack(0)) + 80)
    try:
        assert parse_expression(NESTED["signs and parentheses"][0], {"x"}) == x
    finally:
        sys.setrecursionlimit(old)


def test_nesting_beyond_the_limit_is_one_error():
    with pytest.raises(InputError, match=f"nested more than {MAX_DEPTH} levels deep"):
        parse_expression("(" * (MAX_DEPTH + 1) + "x" + ")" * (MAX_DEPTH + 1), {"x"})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("-x**2", -(x**2)),
        ("2^-x^2", 2 ** (-(x**2))),
        ("x*-3", -3 * x),
        ("Piecewise((x, x > 0), (-x, True))", sympy.Piecewise((x, x > 0), (-x, True))),
        (
            "Piecewise((x, ~(x > 0) & (x < 2) | (x > 5)), (0, True))",
            sympy.Piecewise((x, (~(x > 0) & (x < 2)) | (x > 5)), (0, True)),
        ),
        ("atan2(x, 1 + x)", sympy.atan2(x, 1 + x)),
        ("((x))", x),
    ],
)
def test_the_grammar_is_unchanged(text, expected):
    assert parse_expression(text, {"x"}) == expected


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("(x, 1)", "a tuple is not an expression"),
        ("sin()", "sin() needs arguments"),
        ("x < 1 < 2", "chained comparisons"),
        ("(x", "unexpected end; expected ')'"),
        ("x y", "unexpected 'y'"),
    ],
)
def test_the_errors_are_unchanged(text, needle):
    with pytest.raises(InputError, match=needle.replace("(", r"\(").replace(")", r"\)")):
        parse_expression(text, {"x"})


def test_a_loggamma_hessian_graph_reads_back_from_its_json(tmp_path):
    """The derivatives of ``loggamma`` are ``polygamma(n, ·)``: a Hessian graph's JSON of a
    log-likelihood with ``loggamma`` was refused by ``dgraph.load`` (unknown function
    'polygamma'; hessian_methods_survey's gamma_loglik_sympy), so ``dgraph compare`` and
    ``dgraph render`` could not read it. It reads back with the same Hessian."""
    import numpy as np

    import dgraph
    from dgraph.core.hessian_graph import hessian_graph

    a, b = sympy.symbols("a b")
    g = dgraph.from_sympy([sympy.loggamma(a * b) + a], [a, b])
    H = hessian_graph(g)
    path = tmp_path / "H.json"
    path.write_text(H.to_json())
    back = dgraph.load(str(path))
    assert "polygamma" in path.read_text()
    got = np.asarray(dgraph.accumulate(back, "reverse").evaluate([1.3, 0.7]), float)
    # loggamma(t)'' = polygamma(1, t), t = ab: H = ψ1(t)·[[b², tb'],...] + ψ0(t)·[[0,1],[1,0]]
    import scipy.special

    t = 1.3 * 0.7
    p0, p1 = scipy.special.polygamma(0, t), scipy.special.polygamma(1, t)
    want = np.array([[p1 * 0.7**2, p1 * t + p0], [p1 * t + p0, p1 * 1.3**2]])
    assert np.allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("text", ["polygamma(x, x)", "polygamma(-1, x)", "polygamma(0.5, x)"])
def test_polygamma_s_order_is_a_whole_number(text):
    with pytest.raises(InputError, match="polygamma's order must be a whole number"):
        parse_expression(text, {"x"})


def test_digamma_reads_as_polygamma_of_order_0():
    assert parse_expression("digamma(x) + polygamma(2, x)", {"x"}) == sympy.polygamma(
        0, x
    ) + sympy.polygamma(2, x)


def test_a_trace_reads_every_function_a_graph_of_sympy_expressions_takes():
    """``Mod``, the Bessel functions and the complete elliptic integrals: ``from_sympy``
    reads them (their derivatives, SciPy's code), so a trace or a JSON label may name
    them too (a trace with ``Mod(x2, 1)`` was refused: unknown function 'Mod'); the
    generated Jacobian equals sympy's (``Mod(x1, 1)`` is ``x1 - 1`` near 1.3), by mpmath."""
    import numpy as np

    import dgraph

    text = (
        "inputs: x0, x1\noutputs: y\n"
        "v = Mod(x1, 1) * x0 + besselj(1, x0) * bessely(0, x1) + besseli(2, x0) * x1\n"
        "y = v + besselk(1, x1) + elliptic_k(x0 / 4) * elliptic_e(x1 / 4)\n"
    )
    graph = dgraph.from_trace(text)
    jac = dgraph.make_function(graph, "jacobian")
    a, b = sympy.symbols("x0 x1", real=True)
    y = (
        (b - 1) * a + sympy.besselj(1, a) * sympy.bessely(0, b) + sympy.besseli(2, a) * b
        + sympy.besselk(1, b) + sympy.elliptic_k(a / 4) * sympy.elliptic_e(b / 4)
    )  # fmt: skip
    point = {a: 0.7, b: 1.3}
    want = [float(sympy.diff(y, v).subs(point).evalf(30)) for v in (a, b)]
    np.testing.assert_allclose(np.ravel(jac(np.array([0.7, 1.3]))), want, rtol=1e-12)
