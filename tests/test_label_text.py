"""Labels printed at any depth (dgraph.core.label_text): sympy's printers below
SHALLOW levels, the loop above it. Deep labels come from a running value updated by
each statement (a Horner-like sum as deep as the program); sympy's printers recursed
past Python's limit at 1,000 statements ("internal error: RecursionError" from
``dgraph accumulate``)."""

from __future__ import annotations

import itertools
import re

import sympy
from hypothesis import given
from hypothesis import strategies as st
from sympy.parsing.sympy_parser import parse_expr

import dgraph
from dgraph.core.algebra import nc_product, nc_sum, nc_symbol
from dgraph.core.label_text import SHALLOW, depth, flat_latex, flat_str, label_str

NAMES = ["a", "b", "c", "d_t1_x", "r12"]
SYMBOLS = {n: nc_symbol(n) for n in NAMES}
COEFFICIENTS = [1, -1, 2, -3, sympy.Float(0.5), sympy.Float(-2.5)]


def _parsed(text: str) -> sympy.Expr:
    return parse_expr(text, local_dict=SYMBOLS)


@st.composite
def labels(draw, levels: int = 4):
    """Sums and products of noncommutative symbols, some scaled, some squared, built as
    eliminations build them (nc_sum, nc_product)."""
    if levels == 0 or draw(st.booleans()):
        e = SYMBOLS[draw(st.sampled_from(NAMES))]
        if draw(st.integers(0, 5)) == 0:
            e = e**2
        return e
    a, b = draw(labels(levels - 1)), draw(labels(levels - 1))
    e = nc_sum(a, b) if draw(st.booleans()) else nc_product(a, b)
    k = draw(st.sampled_from(COEFFICIENTS))
    return e if k == 1 else k * e


@given(labels())
def test_the_loop_prints_what_sympy_prints(e):
    """The same expression back (terms in the order held, which sympy may sort), and,
    where the order is sympy's, the same text and LaTeX."""
    text = flat_str(e)
    assert _parsed(text) == e
    if text == sympy.sstr(e):
        names = {s: f"s_{{{s.name}}}" for s in SYMBOLS.values()}
        assert flat_latex(e, names) == sympy.latex(e, symbol_names=names)
    assert label_str(e) == sympy.sstr(e)  # shallow: sympy's own


def _symbols(e: sympy.Basic) -> set[str]:
    names, stack = set(), [e]
    while stack:
        a = stack.pop()
        names |= {a.name} if a.is_Symbol else set()
        stack.extend(a.args)
    return names


def test_a_thousand_statements_print_as_text_json_and_latex():
    """The set of a 1,000-statement chain: text, JSON and LaTeX (sympy's printers
    recursed past the limit). The deepest label's text names every symbol it holds and
    its parentheses balance (too deep for Python's parser to read back: the shallow
    labels above are read back)."""
    n = 1000
    source = "inputs: x, y\noutputs: t, u\nt0 = x\n"
    source += "".join(f"t{k + 1} = 0.9999*t{k} + {0.001 * (k % 7 + 1)}*y\n" for k in range(n))
    source += f"t = t{n}\nu = t{n}*y\n"
    es = dgraph.accumulate(dgraph.from_trace(source), "markowitz", verify=False)
    deepest = max((*es.references.values(), *es.jacobian.values()), key=depth)
    assert depth(deepest) > 4 * SHALLOW
    text = flat_str(deepest)
    assert text in es.to_text() and text in {d for _, d in es.to_dict()["references"]}
    assert set(re.findall(r"[A-Za-z_]\w*", text)) == _symbols(deepest)
    opened = list(itertools.accumulate(1 if c == "(" else -1 if c == ")" else 0 for c in text))
    assert min(opened) == 0 and opened[-1] == 0 and max(opened) > 2 * SHALLOW
    rows = es.to_latex().split("\\\\\n")
    assert len(rows) == len(es.references) + len(es.jacobian)
