"""Loading is linear: the sympy work per statement does not grow with the trace (issue 23).

No timings: spies count the calls that cost (sympy evaluating a template, the restricted
parser running, ``xreplace``) while traces and JSON of doubling length load; the counts
must stay constant (templates) or grow exactly with the statements (instantiations).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import sympy

import dgraph
from dgraph.cli import main
from dgraph.core import parse, templates
from dgraph.errors import InputError
from dgraph.frontends import from_json, from_trace
from dgraph.frontends.random_graphs import add_dead_code, random_layered
from dgraph.methods.structure import structure

SIZES = (100, 200, 400)


def recurrence(n: int) -> str:
    """benchmarks/trust.py's trace: ``n`` statements of a recurrence with sin, *, +."""
    lines = ["inputs: a, b", "outputs: y"]
    previous = ("a", "b")
    for k in range(n - 1):
        lines.append(f"v{k} = sin({previous[1]})*{previous[0]} + 0.5*{previous[1]}")
        previous = (previous[1], f"v{k}")
    lines.append(f"y = {previous[0]}*{previous[1]}")
    return "\n".join(lines)


class _Spy:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.xreplace = 0
        self.parses = 0
        original_xreplace = sympy.Basic.xreplace
        original_parse = parse._parse

        def xreplace(expr, *args, **kwargs):
            self.xreplace += 1
            return original_xreplace(expr, *args, **kwargs)

        def parse_(*args, **kwargs):
            self.parses += 1
            return original_parse(*args, **kwargs)

        monkeypatch.setattr(sympy.Basic, "xreplace", xreplace)
        monkeypatch.setattr(parse, "_parse", parse_)

    def count(self, load) -> tuple[int, int, int, int]:
        templates.clear()
        self.xreplace = self.parses = 0
        before = dict(templates.stats)
        load()
        built = templates.stats["built"] - before["built"]
        made = templates.stats["instantiated"] - before["instantiated"]
        return self.parses, self.xreplace, built, made


@pytest.mark.parametrize("granularity", ["statement", "elemental", "binary"])
def test_trace_loading_does_constant_sympy_work_per_statement(monkeypatch, granularity):
    spy = _Spy(monkeypatch)
    counts = [spy.count(lambda n=n: from_trace(recurrence(n), granularity)) for n in SIZES]
    parses, xreplaces, built, made = zip(*counts, strict=True)
    # every statement has one shape: parsed (and evaluated by sympy) a few times in all
    assert len(set(parses)) == 1 and parses[0] <= 4, parses
    assert len(set(xreplaces)) == 1 and xreplaces[0] <= 20, xreplaces
    assert len(set(built)) == 1, built
    # each vertex expression is instantiated from a template: as many per statement
    assert made[0] > 0 and (made[1] - made[0]) * 2 == made[2] - made[1], made


def test_json_loading_does_constant_sympy_work_per_vertex(monkeypatch):
    texts = [from_trace(recurrence(n), "statement").to_json() for n in SIZES]
    spy = _Spy(monkeypatch)
    parses, xreplaces, _, made = zip(
        *(spy.count(lambda t=t: from_json(t)) for t in texts), strict=True
    )
    assert len(set(parses)) == 1 and parses[0] <= 4, parses
    assert len(set(xreplaces)) == 1 and xreplaces[0] <= 20, xreplaces
    assert [m - n for m, n in zip(made, SIZES, strict=True)] == [made[0] - SIZES[0]] * 3


# the kinds of name, 20 ordered pairs (was 8 names, 56 pairs: "b", "x" sort as "a" does,
# "t1" as "v9"): a letter, a longer name it prefixes, digits that sort as text ("v10"
# before "v9"), an underscore
NAMES = ("a", "aa", "v9", "v10", "y_2")
TEXTS = (
    "sin({q})*{p} + 0.5*{q}",
    "{p} - {q}",
    "sin({p} - {q}) + cos({q} - {p})",
    "({p} - {q})**2 - exp(-({q} - {p}))",
    "{p}/{q} - {q}/{p} + sqrt({p}*{q})",
    "max({p}, {q}) - min({q}, {p})",
    "Piecewise(({p}, {p} > {q}), ({q}, True))",
    "abs({p} - {q})*sign({q} - {p}) + log({p}**2 + {q}**2)",
    "{p}*{q}*{p}/{q} + 2*{p} - {p}",
    "atan2({p}, {q}) + tanh({p})**-2",
)


@pytest.mark.parametrize("text", TEXTS)
def test_template_parse_equals_the_parser_for_every_name_order(text):
    """A template built for one pair of names serves every pair in the same order; the
    expression is the one sympy builds over the real names (same tree, same printing)."""
    for first in NAMES:
        for second in NAMES:
            if first == second:
                continue
            renamed = text.format(p=first, q=second)
            names = {first, second}
            fast = parse.parse_expression(renamed, names)
            slow = parse._parse_slowly(renamed, names, "<test>")
            assert sympy.srepr(fast) == sympy.srepr(slow), (renamed, fast, slow)
            assert str(fast) == str(slow)


def test_statement_graph_expressions_are_canonical_for_their_final_names():
    """A renamed variable (assigned twice, or an output copied) gets a name that sorts
    elsewhere; its users' expressions are sympy's for the final names."""
    g = from_trace(
        "inputs: x, b\noutputs: y, z\ny = b - x\ny = y - x\nz = sin(y - b)*2\n", "statement"
    )
    for v in g.intermediates + g.outputs:
        names = {u for u in g.predecessors(v)}
        expected = parse._parse_slowly(parse.format_expression(g.expr(v)), names, "<test>")
        assert sympy.srepr(g.expr(v)) == sympy.srepr(expected), v


def test_a_constant_that_makes_a_statement_complex_is_one_input_error():
    with pytest.raises(InputError, match=r"^<trace>:4: 'x \+ log\(c\)' with its names'"):
        from_trace("inputs: x\noutputs: y\nc = -1\ny = x + log(c)\n")
    with pytest.raises(InputError, match="not finite"):
        from_trace("inputs: x\noutputs: y\nc = 0\ny = x/c\n", "statement")


def _statement_graph_text(seed: int, names: list[str]) -> str:
    """A random statement trace over input names ``names`` (sums, products, powers,
    quotients, functions, constants of several kinds)."""
    import random

    rng = random.Random(seed)
    pieces = [
        "{a}*{b}",
        "{a} - {b}",
        "{b} - {a}",
        "sin({a})*{b} + 0.5*{a}",
        "{a}/{b}",
        "{a}**2*{b}",
        "exp(-{a})*1e-5 + {b}",
        "-{a}*{b} + 3*{b}**3",
        "sqrt({a}**2 + {b}**2)",
        "2.5*{b} - cos({a}*{b})/7",
    ]
    lines = [f"inputs: {', '.join(names)}", "outputs: out"]
    known = list(names)
    for k in range(12):
        a, b = rng.sample(known, 2)
        name = f"{rng.choice(['t', 'u', 'zz', 'a_'])}{k}"
        lines.append(f"{name} = {rng.choice(pieces).format(a=a, b=b)}")
        known.append(name)
    lines.append(f"out = {' + '.join(known)}")  # every value used
    return "\n".join(lines)


@pytest.mark.parametrize("seed", range(30))
def test_printing_by_shape_equals_sympys_printer(seed):
    """format_expression prints each shape once and renames: the text must be exactly the
    printer's, whichever names an earlier graph of the same shapes had."""
    for names in (["x", "y", "w"], ["b", "a", "q"], ["y0", "x9", "m_1"]):
        g = from_trace(_statement_graph_text(seed, names), "statement")
        for v in g.order():
            e = g.expr(v)
            if e is not None:
                assert parse.format_expression(e) == parse._RoundTripPrinter().doprint(e)


def test_printing_by_shape_leaves_names_it_cannot_rename_to_the_printer():
    odd = sympy.Symbol("E", real=True), sympy.Symbol("x y", real=True), sympy.Symbol("x")
    a = sympy.Symbol("a", real=True)
    for s in odd:
        e = s * sympy.E + a
        assert parse.format_expression(e) == parse._RoundTripPrinter().doprint(e)
        f = a * sympy.E + s  # the same shape with the names swapped
        assert parse.format_expression(f) == parse._RoundTripPrinter().doprint(f)


# -- dead code: vertices no output depends on are dropped with one note (issue 40 item 10)

DEAD_JSON = {
    "format": "dgraph/1",
    "inputs": ["x0", "x1"],
    "outputs": ["y"],
    "vertices": [
        {"id": "v1", "expr": "sin(x1)"},
        {"id": "L1_14", "expr": "cos(x0)"},  # dead: only another dead vertex uses it
        {"id": "L1_15", "expr": "L1_14*v1"},  # dead: no output uses it
        {"id": "y", "expr": "x0*v1"},
    ],
    "edges": [
        {"source": "x1", "target": "v1"},
        {"source": "x0", "target": "L1_14"},
        {"source": "L1_14", "target": "L1_15"},
        {"source": "v1", "target": "L1_15"},
        {"source": "x0", "target": "y"},
        {"source": "v1", "target": "y"},
    ],
}
DEAD_TRACE = "inputs: x0, x1\noutputs: y\nv1 = sin(x1)\nw = cos(x0)\nu = w*v1\ny = x0*v1\n"


def _accumulated(tmp_path, name: str, text: str, capsys) -> tuple[dict, list[str]]:
    path = tmp_path / name
    path.write_text(text)
    assert main(["accumulate", str(path), "-m", "reverse", "--json"]) == 0
    captured = capsys.readouterr()
    return json.loads(captured.out), captured.err.splitlines()


@pytest.mark.parametrize(
    "name,text,dead",
    [
        ("dead.json", json.dumps(DEAD_JSON), "2 vertices no output depends on (L1_14, L1_15)"),
        ("dead.trace", DEAD_TRACE, "2 vertices no output depends on (w, u)"),
    ],
    ids=["json", "trace"],
)
def test_dead_vertices_are_dropped_with_one_note(tmp_path, capsys, name, text, dead):
    """Refused before (exit 2, "vertex 'L1_14' is dangling" / "'w' is computed but no
    output uses it"): dropped now, named in one note line, the Jacobian unchanged."""
    data, err = _accumulated(tmp_path, name, text, capsys)
    assert err == [f"dgraph: note: {tmp_path / name}: dead code dropped: {dead}"]
    assert data["verified"]
    graph = (from_json if name.endswith(".json") else from_trace)(text)
    assert graph.inputs == ["x0", "x1"] and graph.intermediates == ["v1"]
    for x0, x1 in [(0.7, -1.3), (-0.2, 2.1)]:  # y = x0 sin(x1)
        jacobian = dgraph.accumulate(graph, "reverse").evaluate([x0, x1])
        np.testing.assert_allclose(jacobian, [[np.sin(x1), x0 * np.cos(x1)]], rtol=1e-12)


def test_a_layered_graph_with_dead_branches_has_the_structure_of_its_live_part():
    """A random layered graph with dead vertices (some fed by other dead ones) loads as
    the graph without them: the same vertices, edges and structure."""
    live = random_layered(3, 6, 8, 3, 4)
    text = add_dead_code(random_layered(3, 6, 8, 3, 4), 30, seed=1).to_json()
    loaded = from_json(text, source="g.json")
    assert loaded.n_edges == live.n_edges and loaded.vertices == live.vertices
    assert structure(loaded) == structure(live)
    assert len(loaded.notes) == 1
    assert loaded.notes[0].startswith("g.json: dead code dropped: 30 vertices no output")
    assert loaded.notes[0].endswith(
        "(dead0, dead1, dead2, dead3, dead4, dead5, dead6, dead7 and 22 more)"
    )
