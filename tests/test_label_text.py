"""Labels printed at any depth (dgraph.core.label_text): sympy's printers below
SHALLOW levels, the loop above it. Deep labels come from a running value updated by
each statement (a Horner-like sum as deep as the program); sympy's printers recursed
past Python's limit at 1,000 statements ("internal error: RecursionError" from
``dgraph accumulate``)."""

from __future__ import annotations

import itertools
import re

import numpy as np
import sympy
from hypothesis import given
from hypothesis import strategies as st
from sympy.parsing.sympy_parser import parse_expr

import dgraph
from dgraph.core.algebra import nc_product, nc_sum, nc_symbol
from dgraph.core.block_costs import post_order
from dgraph.core.label_text import SHALLOW, depth, flat_latex, flat_str, label_str, split_deep
from dgraph.zhou.convert import expression_graph, span

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


def test_a_first_negated_sum_is_written_as_sympy_writes_it():
    """sympy's LaTeX writes a first term -(b + c) with plain parentheses (its product's
    own), a later one with \\left( \\right); hypothesis found the loop using the latter
    for both."""
    a = SYMBOLS["a"]
    s = nc_sum(a, a**2)
    names = {v: f"s_{{{v.name}}}" for v in SYMBOLS.values()}
    for e in (nc_sum(-1 * s, nc_product(s, a**2)), nc_sum(-1 * s, SYMBOLS["b"])):
        assert flat_latex(e, names) == sympy.latex(e, symbol_names=names)
        assert flat_str(e) == sympy.sstr(e)


def _symbols(e: sympy.Basic) -> set[str]:
    names, stack = set(), [e]
    while stack:
        a = stack.pop()
        names |= {a.name} if a.is_Symbol else set()
        stack.extend(a.args)
    return names


def test_a_deep_new_expression_is_walked_without_hashing_it_whole():
    """post_order knows nodes by identity: the first hash of a deep expression new from
    an elimination recursed through all of it (dgraph accumulate -m dstar at 1,000
    statements: internal error: RecursionError)."""
    a, b = nc_symbol("a"), nc_symbol("b")
    e = nc_symbol("c")
    for _ in range(3000):
        e = nc_sum(b, nc_product(a, e))
    order = post_order(e)
    assert order[-1] is e and len(order) == 3 + 2 * 3000


def test_forward_mode_and_dstar_on_a_running_value_count_verify_and_print():
    """Forward mode's labels of a running value nest twice per statement (599 levels at
    300): counting, checking and printing them recursed past Python's limit
    (core.algebra.fold). Forward mode's count is the chain's: a product and a product
    into a sum per statement."""
    n = 300
    source = "inputs: x, y\noutputs: t, u\nt0 = x\n"
    source += "".join(f"t{k + 1} = 0.9999*t{k} + {0.001 * (k % 7 + 1)}*y\n" for k in range(n))
    source += f"t = t{n}\nu = t{n}*y\n"
    graph = dgraph.from_trace(source)
    es = dgraph.accumulate(graph, "forward")
    labels = (*es.references.values(), *es.jacobian.values())
    assert es.verified and depth(max(labels, key=depth)) > 8 * SHALLOW
    assert es.mults == 5 * n + 1
    assert len(es.to_text().splitlines()) == len(es.references) + len(es.jacobian)
    # D* compares its organizations' sets by their text (sympy's hash and == recursed)
    # and inlines the winner's single-use references in a loop (nc_substitute)
    dstar = dgraph.accumulate(graph, "dstar")
    assert dstar.verified and (dstar.mults, dstar.adds) == (5 * n + 1, n)


def test_code_of_labels_deeper_than_sympy_recurses():
    """Forward mode on 600 statements (labels 1,199 levels deep): the labels are split
    into named temporaries 40 levels deep before sympy substitutes and prints them
    (its xreplace recursed past Python's limit), and the code's Jacobian is the chain's.
    The same set printed as text, JSON and LaTeX and drawn (sympy's printers recursed
    past the limit at some 60 levels): the deepest label's text names every symbol it
    holds and its parentheses balance (too deep for Python's parser to read back: the
    shallow labels above are read back)."""
    n = 600
    source = "inputs: x, y\noutputs: t, u\nt0 = x\n"
    source += "".join(f"t{k + 1} = 0.9999*t{k} + {0.001 * (k % 7 + 1)}*y\n" for k in range(n))
    graph = dgraph.from_trace(source + f"t = t{n}\nu = t{n}*y\n")
    es = dgraph.accumulate(graph, "forward", verify=False)
    _prints_and_draws(es)
    references, entries = split_deep(es.references, es.jacobian)
    assert max(depth(e) for e in (*references.values(), *entries.values())) <= 40
    assert len(references) > len(es.references) + 2 * n // 40
    jacobian = dgraph.make_function(es)  # this set's code: forward mode accumulated once
    x, y, h = 0.7, 1.3, 1e-6

    def f(x, y):
        t = x
        for k in range(n):
            t = 0.9999 * t + 0.001 * (k % 7 + 1) * y
        return np.array([t, t * y])

    by_x, by_y = (f(x + h, y) - f(x - h, y)) / (2 * h), (f(x, y + h) - f(x, y - h)) / (2 * h)
    np.testing.assert_allclose(jacobian(np.array([x, y])), np.stack([by_x, by_y]).T, rtol=1e-7)


def _prints_and_draws(es) -> None:
    """``es``'s deepest label (a reference, more than 16 times SHALLOW deep) in its text,
    JSON and LaTeX, and the set laid out as a graph, all without recursion (this was
    test_a_thousand_statements_print_and_draw: Markowitz on 1,000 statements, labels 253
    levels deep, 1,001 references whose layout took 2.4 CPU-s)."""
    deepest = max((*es.references.values(), *es.jacobian.values()), key=depth)
    assert depth(deepest) > 16 * SHALLOW
    text = flat_str(deepest)
    assert text in es.to_text() and text in {d for _, d in es.to_dict()["references"]}
    assert set(re.findall(r"[A-Za-z_]\w*", text)) == _symbols(deepest)
    opened = list(itertools.accumulate(1 if c == "(" else -1 if c == ")" else 0 for c in text))
    assert min(opened) == 0 and opened[-1] == 0 and max(opened) > 8 * SHALLOW
    rows = es.to_latex().split("\\\\\n")
    assert len(rows) == len(es.references) + len(es.jacobian)
    laid = expression_graph(es)  # the set drawn: laid out without recursion too
    assert len(laid.graph.order()) > len(es.graph.intermediates)
    assert all(span(es, e) == (y, x) for (y, x), e in es.jacobian.items())


def test_a_deep_label_is_written_once_not_level_by_level():
    """``b + a*(b + a*(…))`` 2,000 deep: each level's text was a string holding the
    next one's, n² characters in all (2,046 bytes at the peak per character printed;
    ``accumulate`` of ``s += w[i]*x[i]**2`` over 8,000 terms spent 47 s there). Written
    from pieces once, the peak is the pieces' (129 bytes a character); the text is
    the same in LaTeX too."""
    import tracemalloc

    a, b = nc_symbol("a"), nc_symbol("b")
    e = nc_symbol("c")
    for _ in range(2000):
        e = nc_sum(b, nc_product(a, e))
    tracemalloc.start()
    try:
        text = flat_str(e)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert text == "b + a*(" * 1999 + "b + a*c" + ")" * 1999
    assert peak < 400 * len(text)  # main: 2,054 bytes a character
    latex = flat_latex(e, {})
    assert latex == r"b + a \left(" * 1999 + "b + a c" + r"\right)" * 1999
