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
