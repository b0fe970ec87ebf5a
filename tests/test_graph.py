"""The graph model and its builders: roles, labels, JSON round trips, paths, levels."""

from __future__ import annotations

import json

import numpy as np
import pytest
import sympy
from hypothesis import given

import dgraph
from dgraph.blocks.arrays import evaluate
from dgraph.core import parse
from dgraph.core.graph import vertex_symbol
from dgraph.core.paths import path_counts
from dgraph.errors import GraphError, InputError

from .conftest import SIN_TRACE
from .strategies import dags, programs


def test_trace_builds_naumann_sin(sin_graph):
    g = sin_graph
    assert g.inputs == ["x0", "x1"]
    assert g.intermediates == ["v1", "v2"]
    assert g.outputs == ["y"]
    assert sorted(g.edges()) == sorted(
        [("x1", "v1"), ("x0", "v2"), ("v1", "v2"), ("v1", "y"), ("v2", "y")]
    )
    x0, x1, _v1, v2 = sympy.symbols("x0 x1 v1 v2", real=True)
    assert g.partial("x1", "v1") == sympy.cos(x1)
    assert g.partial("v1", "y") == v2
    assert g.symbol("x0", "v2") == sympy.Symbol("d_v2_x0", commutative=False)
    assert not g.symbol("x0", "v2").is_commutative
    assert g.values()["y"] == x0 * sympy.sin(x1) ** 2


def test_path_count_and_length_by_dynamic_programming(sin_graph, discrepancy_graph):
    # sin: paths x0-v2-y, x1-v1-y, x1-v1-v2-y: N = 3, L = 2 + 2 + 3 = 7
    assert dgraph.count_paths(sin_graph) == 3
    assert dgraph.path_length(sin_graph) == 7
    assert dgraph.naive_cost(sin_graph) == 4
    # discrepancy: per input 6 paths (k-y1, k-i-y1..y5) of lengths 2 and 3
    assert dgraph.count_paths(discrepancy_graph) == 12
    assert dgraph.path_length(discrepancy_graph) == 2 * (2 + 5 * 3)


@given(dags(max_intermediates=7))
def test_path_counts_match_enumeration(g):
    import networkx as nx

    total = length = 0
    for x in g.inputs:
        for y in g.outputs:
            paths = list(nx.all_simple_paths(g.nx, x, y))
            total += len(paths)
            length += sum(len(p) - 1 for p in paths)
            assert path_counts(g).get((y, x), 0) == len(paths)
    assert dgraph.count_paths(g) == total
    assert dgraph.path_length(g) == length


def test_depth_levels(sin_graph, two_blocks_graph):
    assert dgraph.depth_levels(sin_graph) == [["y"], ["v2"], ["v1"], ["x0", "x1"]]
    assert dgraph.depth_levels(two_blocks_graph) == [["r"], ["a", "b"], ["v"], ["c", "d"], ["t"]]


def test_json_round_trip_with_exprs(sin_graph):
    text = sin_graph.to_json()
    data = json.loads(text)
    assert data["format"] == "dgraph/1"
    assert data["inputs"] == ["x0", "x1"]
    again = dgraph.from_json(text)
    assert again == sin_graph
    assert again.to_json() == text


def test_json_labels_without_exprs(discrepancy_graph):
    text = json.dumps(
        {
            "format": "dgraph/1",
            "inputs": ["x"],
            "outputs": ["y"],
            "edges": [
                {"source": "x", "target": "v", "label": "cos(x)"},
                {"source": "v", "target": "y", "label": "2*v"},
            ],
        }
    )
    g = dgraph.from_json(text)
    assert g.partial("x", "v") == sympy.cos(vertex_symbol("x"))
    assert g.expr("v") is None
    assert dgraph.from_json(g.to_json()) == g
    assert dgraph.from_json(discrepancy_graph.to_json()) == discrepancy_graph


@given(programs())
def test_json_round_trip_random_programs(g):
    assert dgraph.from_json(g.to_json()) == g


@given(dags())
def test_json_round_trip_random_dags(g):
    again = dgraph.from_json(g.to_json())
    assert again == g
    assert again.order() == g.order()


def test_statement_granularity():
    g = dgraph.from_trace(SIN_TRACE, granularity="statement")
    assert g.intermediates == ["v1", "v2"]
    g = dgraph.from_trace("inputs: a, b\noutputs: y\ny = sin(a*b) + a", granularity="statement")
    assert g.intermediates == []
    a, b = sympy.symbols("a b", real=True)
    assert g.partial("a", "y") == b * sympy.cos(a * b) + 1


def test_elemental_granularity_splits_operations():
    g = dgraph.from_trace("inputs: a, b\noutputs: y\ny = sin(a*b) + a")
    # a*b and sin(a*b) are vertices of their own; the sum is the output
    assert len(g.intermediates) == 2
    assert g.n_edges == 5


def test_binary_granularity_records_two_operands_per_vertex():
    text = "inputs: a, b, c, d\noutputs: y\ny = 2*a*b*c + d + 3"
    g = dgraph.from_trace(text, granularity="binary")
    assert [str(g.expr(v)) for v in [*g.intermediates, "y"]] == ["a*b", "2*c*t1", "d + t2 + 3"]
    assert dgraph.from_trace(text).intermediates == ["t1"]  # elemental: 2*a*b*c is one
    with pytest.raises(InputError, match="elemental, binary or statement"):
        dgraph.from_trace(text, granularity="tape")


@pytest.mark.parametrize("name", ["heart-dipole", "roe-flux", "mlp"])
def test_binary_graphs_compute_the_same_function(name):
    from dgraph.bench.realworld import REAL_WORLD

    elemental, binary = REAL_WORLD[name](), REAL_WORLD[name](binary=True)
    assert len(binary.intermediates) > len(elemental.intermediates)
    assert all(len(binary.predecessors(v)) <= 2 for v in binary)
    point = {vertex_symbol(x): 0.3 + 0.1 * k for k, x in enumerate(elemental.inputs)}
    for y in elemental.outputs:
        want = float(elemental.values()[y].evalf(subs=point))
        assert float(binary.values()[y].evalf(subs=point)) == pytest.approx(want, rel=1e-12)
    es = dgraph.accumulate(binary, "reverse")
    assert es.verified and es.mults > dgraph.accumulate(elemental, "reverse").mults


def test_equal_subexpressions_share_a_vertex():
    g = dgraph.from_trace("inputs: x\noutputs: y, z\ny = sin(x)*2\nz = sin(x) + 1")
    sins = [v for v in g.intermediates if g.expr(v).func == sympy.sin]
    assert len(sins) == 1


def test_outputs_are_made_maximal_with_copies():
    g = dgraph.from_trace("inputs: x\noutputs: u, w\nu = sin(x)\nw = u*x")
    assert set(g.outputs) == {"u", "w"}
    assert all(g.nx.out_degree(y) == 0 for y in g.outputs)
    (source,) = g.predecessors("u")
    assert g.partial(source, "u") == 1
    g = dgraph.from_trace("inputs: x\noutputs: y\ny = x")
    assert g.partial("x", "y") == 1


def test_reassignment_is_single_assignment():
    g = dgraph.from_trace("inputs: x\noutputs: x\nx = sin(x)\nx = x*x", granularity="statement")
    assert g.inputs == ["x"]
    assert g.outputs == ["x_out"]
    assert g.intermediates == ["x_2"]
    assert g.values()[g.outputs[0]] == sympy.sin(vertex_symbol("x")) ** 2


def test_from_function_and_from_sympy():
    g = dgraph.from_function(lambda a, b: (a * b, sympy.exp(a)))
    assert g.inputs == ["a", "b"] and g.outputs == ["y0", "y1"]
    g = dgraph.from_function(lambda x: [x[0] * x[1]], n_inputs=2)
    assert g.inputs == ["x0", "x1"]
    x, y = sympy.symbols("x y")
    g = dgraph.from_sympy({"f": x * y, "g": sympy.sin(x)}, [x, y])
    assert g.outputs == ["f", "g"]


def test_load_python_function(tmp_path):
    path = tmp_path / "model.py"
    path.write_text("import sympy\n\ndef f(a, b):\n    return a*sympy.sin(b), a + b\n")
    g = dgraph.load(f"{path}:f")
    assert g.inputs == ["a", "b"] and len(g.outputs) == 2


@given(programs())
def test_traced_jacobian_matches_sympy(g):
    values = g.values()
    xs = [vertex_symbol(x) for x in g.inputs]
    jac = sympy.Matrix([values[y] for y in g.outputs]).jacobian(xs)
    f = sympy.lambdify(xs, jac, "numpy")
    es = dgraph.accumulate(g, "markowitz")
    rng = np.random.default_rng(0)
    for point in rng.uniform(0.3, 1.2, size=(3, len(xs))):
        expected = np.array(f(*point), dtype=float)
        np.testing.assert_allclose(es.evaluate(point), expected, rtol=1e-10, atol=1e-12)
    batch = rng.uniform(0.3, 1.2, size=(4, len(xs)))
    assert es.evaluate(batch).shape == (4, len(g.outputs), len(xs))


# -- bad input ----------------------------------------------------------------------------


def _json(**kw):
    data = {"format": "dgraph/1", "inputs": ["x"], "outputs": ["y"], "edges": []}
    data.update(kw)
    return json.dumps(data)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            _json(
                edges=[
                    {"source": "x", "target": "v"},
                    {"source": "v", "target": "w"},
                    {"source": "w", "target": "v"},
                    {"source": "w", "target": "y"},
                ]
            ),
            "cycle",
        ),
        (
            _json(
                inputs=["a", "x"],
                edges=[{"source": "a", "target": "x"}, {"source": "x", "target": "y"}],
            ),
            "input 'x' has an in-edge",
        ),
        (
            _json(
                outputs=["y", "z"],
                edges=[{"source": "x", "target": "y"}, {"source": "y", "target": "z"}],
            ),
            "output 'y' has an out-edge",
        ),
        (
            _json(edges=[{"source": "x", "target": "y", "label": "z*x"}]),
            "unknown name 'z'",
        ),
        (
            _json(
                vertices=[{"id": "v", "expr": "sin(x)"}],
                edges=[
                    {"source": "x", "target": "v"},
                    {"source": "v", "target": "y", "label": "x*v"},
                ],
            ),
            "not an argument of 'y'",
        ),
        (_json(edges=[{"source": "x", "target": "y", "label": 1e999}]), "Infinity is not a number"),
        (_json(edges=[{"source": "x", "target": "y", "label": "1e999"}]), "beyond a double"),
        (_json(edges=[{"source": "x", "target": "y", "label": "x/0"}]), "not finite"),
        (_json(edges=[{"source": "x", "target": "y", "label": "I*x"}]), "unknown name 'I'"),
        (_json(edges=[{"source": "x", "target": "y", "label": "sqrt(-1)*x"}]), "complex"),
        (_json(edges=[{"source": "x", "target": "y", "label": True}]), "string or a number"),
        (_json(edges=[{"source": "x", "target": "y", "label": [1]}]), "string or a number"),
        (_json(edges=[{"source": "x", "target": "y", "label": "@"}]).replace('"@"', "NaN"), "NaN"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        (
            _json(
                vertices=[{"id": "y", "expr": "x**2"}],
                edges=[{"source": "x", "target": "y", "label": "3"}],
            ),
            "edge x -> y: the label 3 is not dy/dx = 2*x",
        ),
        (_json(inputs=[]), "no inputs"),
        (_json(outputs=[]), "no outputs"),
        ('{"format": "dgraph/1", "inputs": ["x"]', "invalid JSON"),
        (_json(format="other/2"), "format"),
        (_json(edges=[{"source": "x", "target": "y", "label": "cos(("}]), "cannot parse"),
        (_json(edges=[{"source": "x", "target": "y"}, {"source": "x", "target": "y"}]), "twice"),
        (
            _json(edges=[{"source": "x", "target": "v-1"}, {"source": "v-1", "target": "y"}]),
            "identifiers",
        ),
        (_json(inputs=["x", "y"]), "both an input and an output"),
    ],
)
def test_bad_json_names_the_fault(text, message):
    with pytest.raises((GraphError, InputError)) as info:
        dgraph.from_json(text, source="g.json")
    assert message in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("inputs: x\noutputs: y\ny = foo(x)", "unknown function 'foo'"),
        ("inputs: x\noutputs: y\ny = x + z", "unknown name 'z'"),
        ("inputs: x\noutputs: y\ny = x +", "cannot parse"),
        ("inputs: x\noutputs: y\nthis is not an assignment", "expected 'name = expression'"),
        ("inputs: x\noutputs: y\nv = sin(x)", "never assigned"),
        ("outputs: y\ny = 1", "'inputs:' must come before"),
        ("inputs: x\ny = x", "no 'outputs:'"),
    ],
)
def test_bad_trace_names_the_fault(text, message):
    with pytest.raises(InputError) as info:
        dgraph.from_trace(text, source="t.trace")
    assert message in str(info.value)
    assert str(info.value).startswith("t.trace")


def test_trace_error_names_the_line():
    with pytest.raises(InputError, match=r"t.trace:4: unknown function 'foo'"):
        dgraph.from_trace("inputs: x\noutputs: y\n# comment\ny = foo(x)", source="t.trace")


def test_edge_symbol_collisions_are_refused():
    g = dgraph.DGraph()
    for v, role in (("b", "input"), ("a_b", "input"), ("c", "intermediate"), ("c_a", "output")):
        g.add_vertex(v, role)
    g.add_edge("a_b", "c")  # d_c_a_b
    with pytest.raises(GraphError, match="share the symbol"):
        g.add_edge("b", "c_a")  # d_c_a_b again


def test_labels_agreeing_with_their_expressions_are_kept():
    g = dgraph.from_json(
        _json(
            vertices=[{"id": "y", "expr": "x**2*sin(x)"}],
            edges=[{"source": "x", "target": "y", "label": "x*(2*sin(x) + x*cos(x))"}],
        )
    )
    x = vertex_symbol("x")
    assert g.partial("x", "y") == x * (2 * sympy.sin(x) + x * sympy.cos(x))


def test_a_wrong_label_is_caught_by_verification_too():
    from dgraph.core.labels import label_mismatch

    g = dgraph.DGraph()
    g.add_vertex("x", "input")
    g.add_vertex("y", "output", "x**2")
    g.add_edge("x", "y", 3)
    assert "is not dy/dx" in label_mismatch(g, "x", "y")
    es = dgraph.accumulate(g, "forward")
    assert not es.verified and es.verification.mode == "labels"
    assert "edge x -> y: the label 3 is not dy/dx" in es.verification.detail


def test_passive_vertices_are_folded_with_a_note():
    g = dgraph.from_json(
        _json(
            vertices=[
                {"id": "c", "expr": "2*pi"},
                {"id": "d", "expr": "c**2"},
                {"id": "y", "expr": "d*x"},
            ],
            edges=[
                {"source": "c", "target": "d"},
                {"source": "d", "target": "y"},
                {"source": "x", "target": "y"},
            ],
        )
    )
    assert g.intermediates == [] and g.n_edges == 1
    assert g.expr("y") == 4 * sympy.pi**2 * vertex_symbol("x")
    assert g.partial("x", "y") == 4 * sympy.pi**2
    assert any(n.startswith("c: no input reaches it") for n in g.notes)
    es = dgraph.accumulate(g, "forward")
    assert es.verified
    assert es.evaluate([1.0])[0, 0] == pytest.approx(4 * np.pi**2)


def test_a_passive_vertex_without_a_value_cannot_be_used():
    text = _json(
        vertices=[{"id": "y", "expr": "c*x"}],
        edges=[{"source": "c", "target": "y"}, {"source": "x", "target": "y"}],
    )
    with pytest.raises(GraphError, match="'c', which no input reaches"):
        dgraph.from_json(text)
    # without expressions the passive edge is simply dropped
    g = dgraph.from_json(
        _json(edges=[{"source": "q", "target": "y"}, {"source": "x", "target": "y"}])
    )
    assert g.edges() == [("x", "y")] and "q" not in g


def test_vertex_symbols_are_real():
    g = dgraph.from_trace("inputs: u, w\noutputs: y\ny = Abs(u) + Max(u, w)")
    u = vertex_symbol("u")
    assert u.is_real
    partials = {g.partial(p, s) for p, s in g.edges()}
    assert sympy.sign(u) in partials
    assert not any(p.has(sympy.re, sympy.im, sympy.Derivative) for p in partials)


@pytest.mark.parametrize("extreme", [sympy.Max, sympy.Min])
@pytest.mark.parametrize("n", [2, 3, 5])
def test_the_partials_of_a_max_or_min_of_vertices_share_ties_as_jax(extreme, n):
    """The edges of a Max or Min of n vertices: for two, sympy's derivative exactly (the
    same tree: a step of the difference to the other); for more, JAX's ``[x == m] / k``
    over the maximum m (:func:`dgraph.core.extremes.share`, where sympy's step gives each
    of three tied arguments 1/2). It evaluates to 1 on the extreme argument only, and to
    1/k on each of k tied ones, as ``jax.numpy.max``."""
    from dgraph.core.extremes import share

    xs = [vertex_symbol(f"x{i}") for i in range(n)]
    g = dgraph.from_sympy([extreme(*xs)], xs)
    (y,) = g.outputs
    e = extreme(*xs)
    for x in xs:
        want = sympy.diff(e, x) if n == 2 else share(extreme, e.args, e.args.index(x))
        assert sympy.srepr(g.partial(x.name, y)) == sympy.srepr(want)
    point = np.linspace(-1.0, 1.0, n)[::-1] * (1 if extreme is sympy.Max else -1)
    es = dgraph.accumulate(g, "forward", verify=False)
    assert np.array_equal(es.evaluate(point), [[1.0] + [0.0] * (n - 1)])
    tied = point.copy()
    tied[: min(n, 3)] = tied[0]
    k = min(n, 3)
    np.testing.assert_allclose(es.evaluate(tied), [[1 / k] * k + [0.0] * (n - k)])


@pytest.mark.parametrize(
    "text",
    [
        'y = x*__import__("os").system("touch PWNED")',
        "y = x.__class__",
        "y = x[0]",
        "y = eval(x)",
        "y = (lambda: x)()",
    ],
)
def test_trace_text_is_never_executed(text, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError):
        dgraph.from_trace(f"inputs: x\noutputs: y\n{text}")
    with pytest.raises(InputError):
        dgraph.from_json(
            _json(edges=[{"source": "x", "target": "y", "label": text.partition("= ")[2]}])
        )
    with pytest.raises((InputError, GraphError)):
        dgraph.DGraph().add_vertex("y", "output", text.partition("= ")[2])
    assert list(tmp_path.iterdir()) == []


def test_json_round_trip_keeps_every_digit():
    g = dgraph.from_trace("inputs: x\noutputs: y\ny = 0.1*x**3 + 0.30000000000000004*x + 1e-300")
    h = dgraph.from_json(g.to_json())
    assert h == g
    floats = sorted(
        float(f) for v in h.vertices if h.expr(v) is not None for f in h.expr(v).atoms(sympy.Float)
    )
    assert floats == [1e-300, 0.1, 0.30000000000000004]
    assert "0.30000000000000004" in g.to_json()


@pytest.mark.parametrize("seed", range(20))
def test_elemental_partials_are_what_diff_gives(seed):
    """The fast path for a sum's or product's argument builds exactly diff's result."""
    import sympy

    from dgraph.core.graph import _elemental_derivative, vertex_symbol
    from dgraph.frontends.random_graphs import random_program

    g = random_program(seed, 3, 14, 2)
    hits = 0
    for u, v in g.edges():
        x = vertex_symbol(u)
        fast = _elemental_derivative(g.expr(v), x)
        if fast is not None:
            hits += 1
            assert sympy.srepr(fast) == sympy.srepr(sympy.diff(g.expr(v), x))
    assert hits > 0


_NOT_UNARY = ("atan2", "Piecewise", "Eq", "Ne", "And", "Or", "Not", "polygamma", "Mod")
_NOT_UNARY += ("besselj", "bessely", "besseli", "besselk")  # an order, then the argument
_NOT_UNARY += ("rule_value",)  # a custom rule's output: the primal's value, t's partials
_UNARY = [name for name in sorted(parse.FUNCTIONS) if name not in _NOT_UNARY]
_DECLINED = {"Abs", "abs", "sign", "floor", "ceiling", "Heaviside", "Max", "Min", "max", "min"}
_DECLINED |= {"stop_gradient"}  # its own rule: 0, without differentiating its argument
_DECLINED |= {"isnan", "isinf", "isfinite"}  # IEEE's tests: no derivative of their own
_DECLINED |= {"digamma"}  # polygamma(0, x): no fast rule, diff's


@pytest.mark.parametrize("name", _UNARY)
def test_unary_partials_are_what_diff_gives(name):
    """The fast path for a function of the vertex itself builds exactly diff's result; it
    declines the functions with a rule of their own (Abs) or that diff's result is
    cleaned up for (the steps), which keep diff."""
    from dgraph.core.graph import _unary_derivative

    x = vertex_symbol("x")
    expr = parse.FUNCTIONS[name](x)
    fast = _unary_derivative(expr, x)
    if name in _DECLINED:
        assert fast is None
    else:
        assert sympy.srepr(fast) == sympy.srepr(sympy.diff(expr, x))


@pytest.mark.parametrize("n", [2, 3, -1, -2, 0.5, 2.5, sympy.Rational(3, 2)])
def test_power_partials_are_what_diff_gives(n):
    from dgraph.core.graph import _unary_derivative

    x = vertex_symbol("x")
    assert sympy.srepr(_unary_derivative(x**n, x)) == sympy.srepr(sympy.diff(x**n, x))
    # a variable exponent: the array level's n*x**(n - 1), not diff's x**n*n/x (0/0 at 0)
    m = vertex_symbol("n")
    assert _unary_derivative(x**m, x) == m * x ** (m - 1)


def test_a_term_of_a_sum_is_derived_as_diff_derives_it():
    """The shortcut for ``x`` a factor of one term of a sum (a matrix product's entry at
    the element level) gives ``diff``'s expression, and leaves every other case to it."""
    from dgraph.core.graph import _term_derivative, local_derivative

    w0, w1, x0, x1, y = (vertex_symbol(n) for n in ("w0", "w1", "x0", "x1", "y"))
    for expr, x in [
        (w0 * x0 + w1 * x1, x0),
        (w0 * x0 + w1 * x1, w1),
        (x0 - y, y),
        (3 * w0 * x0 + sympy.sin(x1), x0),
        (-2 * x0 + w0, x0),
    ]:
        got = _term_derivative(expr, x)
        assert got is not None and sympy.srepr(got) == sympy.srepr(sympy.diff(expr, x))
        assert local_derivative(expr, x.name) == got
    for expr, x in [(w0 * x0 + x0 * x1, x0), (x0**2 * w0 + y, x0), (sympy.sin(x0) * w0 + y, x0)]:
        assert _term_derivative(expr, x) is None
        assert local_derivative(expr, x.name) == sympy.diff(expr, x)


def _op(primitive: str, *operands, **params) -> dict:
    return {"primitive": primitive, "operands": list(operands), "params": params}


# ``f = solve(m + 3I, x)·(y sorted by x) + x[argsort(y)]²``: a ``linear_solve`` of two
# operands, a ``sort`` carrying a second one, a ``take_dynamic`` (its mode a name, its
# fill NaN), as ``from_jax`` writes them
READ_BACK = {
    "format": "dgraph/1",
    "inputs": ["x", "y", "m"],
    "outputs": ["f"],
    "vertices": [
        {"id": "x", "shape": [3]},
        {"id": "y", "shape": [3]},
        {"id": "m", "shape": [3, 3]},
        {
            "id": "a",
            "shape": [3, 3],
            "op": _op("add", "m", {"const": np.eye(3).tolist(), "shape": [3, 3]}),
        },
        {"id": "s", "shape": [3], "op": _op("linear_solve", "a", "x", rows=True)},
        {"id": "t", "shape": [3], "op": _op("sort", "x", "y", dimension=0)},
        {"id": "p", "shape": [3], "op": _op("mul", "s", "t")},
        {
            "id": "k",
            "shape": [3],
            "op": _op(
                "take_dynamic",
                "x",
                {**_op("argsort", "y", dimension=0), "shape": [3]},
                axis=0,
                mode="fill",
                size=3,
                length=3,
                fill="nan",
            ),
        },
        {"id": "k2", "shape": [3], "op": _op("integer_pow", "k", y=2)},
        {"id": "f", "shape": [3], "op": _op("add", "p", "k2")},
    ],
    "edges": [
        {"source": u, "target": v}
        for u, v in [
            ("m", "a"),
            ("a", "s"),
            ("x", "s"),
            ("y", "t"),
            ("s", "p"),
            ("t", "p"),
            ("x", "k"),
            ("k", "k2"),
            ("p", "f"),
            ("k2", "f"),
        ]
    ],
}


def test_json_reads_back_what_it_writes_of_solves_sorts_and_run_time_takes():
    """Session 66 (benchmarks/fuzz_inputs.py's seeds): ``linear_solve`` (two operands), a
    ``sort`` carrying a second operand and a ``take_dynamic`` (its ``mode`` a name, its
    ``fill`` NaN, written ``"nan"``) were written as dgraph/1 that the reader refused."""
    g = dgraph.from_json(json.dumps(READ_BACK))
    again = g.to_json()
    assert '"fill": "nan"' in again and dgraph.from_json(again).to_json() == again
    x, y, m = np.array([0.5, -1.0, 2.0]), np.array([3.0, 1.0, 2.0]), np.eye(3) * 0.1
    values = {"x": x, "y": y, "m": m}
    for v in g.intermediates + g.outputs:
        values[v] = evaluate(g.op(v), values)
    want = np.linalg.solve(m + np.eye(3), x) * y[np.argsort(x)] + x[np.argsort(y)] ** 2
    assert np.allclose(values["f"], want)
