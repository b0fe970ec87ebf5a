"""Expression sets: costs as written, verification that catches wrong sets, printing."""

from __future__ import annotations

import json

import pytest
import sympy

import dgraph
from dgraph.core.expressions import ExpressionSet, make_expression_set, reference_symbol
from dgraph.core.verify import EXACT_PATH_LIMIT, verify

from .conftest import SIN_TRACE


def _sym(name: str) -> sympy.Symbol:
    return sympy.Symbol(name, commutative=False)


@pytest.fixture
def sin_symbols():
    return {n: _sym(n) for n in ("d_v1_x1", "d_v2_x0", "d_v2_v1", "d_y_v1", "d_y_v2")}


def _set(graph, jacobian, references=None) -> ExpressionSet:
    return make_expression_set(graph, references or {}, jacobian)


def test_reverse_mode_expression_set(sin_graph, sin_symbols):
    s = sin_symbols
    es = dgraph.accumulate(sin_graph, "reverse")
    assert es.jacobian[("y", "x0")] == s["d_y_v2"] * s["d_v2_x0"]
    assert es.jacobian[("y", "x1")] == (s["d_y_v1"] + s["d_y_v2"] * s["d_v2_v1"]) * s["d_v1_x1"]
    assert (es.mults, es.adds) == (3, 1)
    assert es.verified and es.verification.mode == "exact"


def test_costs_count_references_once(sin_graph, sin_symbols):
    s = sin_symbols
    r1 = reference_symbol(1)
    es = _set(
        sin_graph,
        {("y", "x0"): s["d_y_v2"] * s["d_v2_x0"], ("y", "x1"): r1 * s["d_v1_x1"]},
        {r1: s["d_y_v1"] + s["d_y_v2"] * s["d_v2_v1"]},
    )
    assert (es.mults, es.adds) == (3, 1)
    assert es.verify().ok


def test_effective_mults_skip_unit_labels():
    g = dgraph.from_trace("inputs: a, b\noutputs: y\nu = a - b\nv = sin(u)\ny = v*a")
    es = dgraph.accumulate(g, "forward")
    labels = {g.partial(*e) for e in g.edges()}
    assert -1 in labels and 1 in labels
    assert es.mults_effective < es.mults
    # effective count by hand: every product with a +-1 factor is free
    expected = 0
    for entry in es.resolved().values():
        for term in sympy.Add.make_args(entry):
            general = [
                f
                for f in sympy.Mul.make_args(term)
                if g.constant_label(*g.edge_of(f)) not in (1, -1)
            ]
            expected += max(len(general) - 1, 0)
    assert es.mults_effective == expected


def test_constant_times_constant_folds():
    g = dgraph.from_trace("inputs: x\noutputs: y\nu = 2*x\ny = 3*u")
    es = dgraph.accumulate(g, "forward")
    assert es.mults == 1
    assert es.mults_effective == 0


def test_inlining_preserves_costs(discrepancy_graph):
    es = dgraph.accumulate(discrepancy_graph, "edge-optimal")
    before = (es.mults, es.adds, es.mults_effective)
    inlined = es.inline_single_use()
    assert (inlined.mults, inlined.adds, inlined.mults_effective) == before
    assert inlined.verify().ok


# -- verification catches what is wrong --------------------------------------------------------


@pytest.mark.parametrize("mode", ["exact", "random-point"])
def test_verification_accepts_bauer(sin_graph, sin_symbols, mode):
    s = sin_symbols
    es = _set(
        sin_graph,
        {
            ("y", "x0"): s["d_y_v2"] * s["d_v2_x0"],
            ("y", "x1"): s["d_y_v1"] * s["d_v1_x1"] + s["d_y_v2"] * s["d_v2_v1"] * s["d_v1_x1"],
        },
    )
    result = verify(es, mode)
    assert result.ok and result.mode == mode


@pytest.mark.parametrize("mode", ["exact", "random-point"])
@pytest.mark.parametrize(
    ("entry", "why"),
    [
        # factors in the wrong (commuted) order: wrong for matrix labels
        ("d_v1_x1*d_y_v1 + d_y_v2*d_v2_v1*d_v1_x1", "order"),
        # a path missing
        ("d_y_v1*d_v1_x1", "missing"),
        # a path counted twice
        ("2*d_y_v1*d_v1_x1 + d_y_v2*d_v2_v1*d_v1_x1", "twice"),
        # a term that is no path
        ("d_y_v1*d_v1_x1 + d_y_v2*d_v2_v1*d_v1_x1 + d_y_v2*d_v1_x1", "extra"),
    ],
)
def test_verification_rejects_wrong_sets(sin_graph, sin_symbols, mode, entry, why):
    s = sin_symbols
    wrong = sympy.sympify(entry, locals=s)
    es = _set(sin_graph, {("y", "x0"): s["d_y_v2"] * s["d_v2_x0"], ("y", "x1"): wrong})
    result = verify(es, mode)
    assert not result.ok, why
    assert "(y, x1)" in result.detail


def test_verification_rejects_structural_faults(sin_graph, sin_symbols):
    s = sin_symbols
    missing = _set(sin_graph, {("y", "x0"): s["d_y_v2"] * s["d_v2_x0"]})
    assert "missing" in verify(missing).detail
    r1 = reference_symbol(1)
    undefined = _set(sin_graph, {("y", "x0"): s["d_y_v2"] * s["d_v2_x0"], ("y", "x1"): r1})
    assert "undefined" in verify(undefined).detail
    assert not undefined.verified


def test_random_point_mode_above_the_exact_limit():
    from dgraph.bench.suite import chebyshev

    g = chebyshev(12)
    assert dgraph.count_paths(g) > 50
    es = dgraph.accumulate(g, "reverse", verify=False)
    check = verify(es, exact_path_limit=50)
    assert check and check.mode == "random-point"
    assert verify(es, exact_path_limit=10**6).mode == "exact"
    assert EXACT_PATH_LIMIT == 20_000


def test_verified_is_false_until_checked(sin_graph):
    es = dgraph.accumulate(sin_graph, "forward", verify=False)
    assert es.verification is None and es.verified is False
    assert es.to_dict()["verified"] is False


# -- values and printing -------------------------------------------------------------------------


def test_substitute_gives_the_gradient(sin_graph):
    es = dgraph.accumulate(sin_graph, "markowitz")
    x0, x1 = sympy.symbols("x0 x1", real=True)  # vertex symbols are real
    got = es.substitute()
    assert sympy.simplify(got[("y", "x0")] - sympy.sin(x1) ** 2) == 0
    assert sympy.simplify(got[("y", "x1")] - 2 * x0 * sympy.sin(x1) * sympy.cos(x1)) == 0


def test_to_dict_is_the_accumulate_contract(sin_graph):
    data = json.loads(json.dumps(dgraph.accumulate(sin_graph, "reverse").to_dict()))
    for key in (
        "method",
        "mults",
        "adds",
        "mults_effective",
        "verified",
        "steps",
        "references",
        "jacobian",
    ):
        assert key in data
    assert data["jacobian"][0] == ["y", "x0", "d_y_v2*d_v2_x0"]
    assert data["steps"][0] == {"op": "vertex", "target": "v2", "mults": 2}
    # the strings parse back to the same noncommutative expressions
    names = {str(s): s for s in dgraph.from_trace(SIN_TRACE).edge_symbols}
    parsed = sympy.sympify(data["jacobian"][1][2], locals=names)
    assert parsed == dgraph.accumulate(sin_graph, "reverse").jacobian[("y", "x1")]


def test_latex_and_text(discrepancy_graph):
    es = dgraph.accumulate(discrepancy_graph, "edge-optimal")
    tex = es.to_latex()
    assert tex.startswith("\\begin{align*}") and tex.rstrip().endswith("\\end{align*}")
    assert "c_{i,k}" in tex and "r_{1} &=" in tex
    assert es.to_text().splitlines()[0].startswith("r1 = ")


def test_built_expressions_are_what_sympy_itself_builds():
    """Elimination forms products of two symbols without sympy's flattening and inlines
    references with one substitution: every node must equal sympy's own rebuild of it."""
    from dgraph.bench.realworld import REAL_WORLD

    def rebuilt(e: sympy.Expr) -> sympy.Expr:
        return e if not e.args else e.func(*(rebuilt(a) for a in e.args))

    for method in ("forward", "reverse", "markowitz", "zhou"):
        es = dgraph.accumulate(REAL_WORLD["roe-flux"](), method, verify=False)
        for e in [*es.references.values(), *es.jacobian.values()]:
            assert rebuilt(e) == e and rebuilt(e).args == e.args


@pytest.mark.parametrize("method", ["forward", "markowitz", "dstar", "zhou"])
def test_pickling_rebuilds_the_same_expressions(method):
    """Results come back from child processes pickled: the packed table must rebuild every
    expression exactly (srepr), the references in order, the check and the inlined-from set."""
    import pickle

    from dgraph.frontends.random_graphs import random_layered

    es = dgraph.accumulate(random_layered(2, 5, 6, 3, None), method)
    back = pickle.loads(pickle.dumps(es))
    assert list(back.references) == list(es.references)
    for a, b in [
        *zip(es.references.values(), back.references.values(), strict=True),
        *zip(es.jacobian.values(), back.jacobian.values(), strict=True),
    ]:
        assert sympy.srepr(a) == sympy.srepr(b)
    assert list(back.jacobian) == list(es.jacobian) and back.verified and back.mults == es.mults
    if es.as_computed is not None:
        assert dict(back.as_computed.references) == dict(es.as_computed.references)
