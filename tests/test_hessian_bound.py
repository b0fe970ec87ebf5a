"""The Hessian's lower bound (dgraph.second_order.bound, issue 55 item 2): one
multiplication for each lower-triangle entry with a path of two edges or more. It never
exceeds any method's count, symmetric counts included (drawn programs), is met on
sin(x)·y, and compare_hessian reports it under the Jacobian compare's field names; the
searches' bounds, which bound every entry and not the lower triangle, are kept apart."""

from __future__ import annotations

import sympy
from hypothesis import HealthCheck, given, settings

import dgraph
from dgraph.core.expressions import price
from dgraph.core.hessian_graph import hessian_graph
from dgraph.frontends import from_sympy, from_trace
from dgraph.methods.hessian import COMPARED_HESSIAN
from dgraph.second_order import HESSIAN_BOUND_FOR, HESSIAN_METHODS, hessian_lower_bound

from .strategies import programs

x, y = sympy.symbols("x y")


def _counts(comparison) -> dict[str, int]:
    """Every count the methods report: as written, and the symmetric and sweep counts."""
    counts = {}
    for method, es in comparison.results.items():
        counts[method] = es.mults
        for key in ("mults_symmetric", "mults_dense", "mults_colored"):
            if key in es.info:
                counts[f"{method} {key}"] = es.info[key]
    return counts


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(max_inputs=3, max_statements=5))
def test_the_bound_never_exceeds_a_count(g):
    comparison = dgraph.compare_hessian(g)
    bound = comparison.lower_bound
    assert bound.bounds == HESSIAN_BOUND_FOR
    assert bound.mults == hessian_lower_bound(comparison.graph)
    assert all(es.verified for es in comparison.results.values())
    for what, count in _counts(comparison).items():
        assert bound.mults <= count, what
    assert all(row["to_bound"] >= 0 for row in comparison.rows() if "to_bound" in row)
    # and every entry as the pair eliminations build it (lower=False)
    for method in ("edge-pushing", "symmetric"):
        full = dgraph.accumulate(comparison.graph, HESSIAN_METHODS[method], lower=False)
        assert full.verified and bound.mults <= comparison.results[method].mults <= full.mults


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(max_inputs=3, max_statements=5))
def test_no_bound_a_hessian_comparison_claims_exceeds_a_built_count(g):
    """With the searches run on the Hessian graph, every bound claimed for every method
    is at most every built count, lower triangles included (effective bounds against
    effective counts); the searches' bounds, kept apart, are at most every count of every
    entry (issue 55: vertex elimination's bound 21 against edge pushing's lower 16)."""
    comparison = dgraph.compare_hessian(g, [*COMPARED_HESSIAN, "vertex-optimal", "best"])
    assert all(es.verified for es in comparison.results.values())
    built = list(comparison.results.values())
    full = [
        dgraph.accumulate(comparison.graph, HESSIAN_METHODS[m], lower=False)
        for m in ("edge-pushing", "symmetric")
    ]
    claimed = comparison.lower_bound
    assert comparison.effective_lower_bound is None and comparison.elimination_lower_bound is None
    assert comparison.edge_elimination is None
    for es in [*built, *full]:
        assert claimed.mults <= price(es)[1], es.method
    report = comparison.to_dict()
    assert report["lower_bound"] == claimed.mults and report["elimination_lower_bound"] is None
    every_entry = [es for es in [*built, *full] if es.info.get("triangle") != "lower"]
    search = comparison.search_lower_bound
    for es in every_entry:
        effective, structural = price(es)
        if search is not None:
            assert search.mults <= structural, es.method
        for key in ("search_effective_lower_bound", "search_elimination_lower_bound"):
            if report[key] is not None:
                assert report[key] <= effective, (key, es.method)
    # each claim against its own kind of count: the proven bound (of the lower triangle)
    # against every row's lower triangle, the search's (of every entry) against every
    # entry; a pair elimination's every entry is its whole elimination's price
    rows = {row["method"]: row for row in report["methods"] if "skipped" not in row}
    assert report["ranked_on"] == "lower triangle"
    for method, row in rows.items():
        assert row["to_bound"] == row["mults_lower_triangle"] - claimed.mults >= 0, method
        assert row["mults_lower_triangle"] <= row["mults_every_entry"], method
        if search is not None:
            assert row["search_to_bound"] >= 0, method
    for es in full:
        row = rows[es.method]
        assert (row["mults_effective_every_entry"], row["mults_every_entry"]) == price(es)
        assert row["adds_every_entry"] == es.adds
    cheapest = min(rows.values(), key=lambda r: r["mults_effective_lower_triangle"])
    assert (
        cheapest["mults_effective_lower_triangle"]
        == rows[comparison.best]["mults_effective_lower_triangle"]
    )


def test_met_on_a_small_case_and_reported_as_the_jacobian_compare_does():
    # H of sin(x)·y: one lower entry has a path of two edges; symmetric spends one
    g = from_sympy(sympy.sin(x) * y, [x, y])
    comparison = dgraph.compare_hessian(
        g, ["symmetric", "edge-pushing", "reverse", "vertex-optimal"]
    )
    symmetric = comparison.results["symmetric"]
    assert comparison.lower_bound.mults == 1 == symmetric.mults == symmetric.info["mults_symmetric"]
    report = comparison.to_dict()
    assert (report["lower_bound"], report["lower_bound_for"]) == (1, HESSIAN_BOUND_FOR)
    # a search's own bound (vertex elimination on H, counts as written) is kept beside it
    assert report["search_lower_bound"] == comparison.search_lower_bound.mults
    assert report["search_lower_bound"] <= comparison.results["vertex-optimal"].mults
    # sin(x·y): three lower entries, each needs one; the methods spend five
    H = hessian_graph(from_sympy(sympy.sin(x * y), [x, y]))
    assert hessian_lower_bound(H) == 3
    assert dgraph.accumulate_hessian(from_sympy(sympy.sin(x * y), [x, y])).mults == 5


def test_an_entry_that_is_one_edge_needs_nothing():
    assert hessian_lower_bound(hessian_graph(from_sympy(x * y, [x, y]))) == 0


def test_constants_a_product_folds_keep_one_per_path():
    """A drawn program (hypothesis found it) whose Hessian graph has 2 on x0 -> t1 and on
    t1_bar -> x0_bar: D* writes 2·r·2, which folds to 4·r, one multiplication where the
    junction bound counted two, and paid 7 effective multiplications against a claimed
    bound of 8 for every elimination (and best called its 7 proven optimal over 8). The
    two 2s share a path: the bounds keep the topmost and read the other as a unit (a
    product of constants larger than 1 is never ±1, so the fold leaves one factor): 7,
    which D* meets."""
    trace = (
        "inputs: x0\noutputs: y0, y1\nt1 = 2*x0\nt2 = exp(t1)\nt3 = t2 + 1\nt4 = cos(x0)\n"
        "t5 = t4**2\nt6 = t5 + 1\ny0 = sqrt(t3)\ny1 = sqrt(t6)"
    )
    comparison = dgraph.compare_hessian(from_trace(trace), [*COMPARED_HESSIAN, "best"])
    report = comparison.to_dict()
    built = [price(es).effective for es in comparison.results.values()]
    assert report["search_elimination_lower_bound"] == 7 == min(built)
    best = comparison.results["best"].info
    assert best["objective_lower_bound"] <= price(comparison.results["best"]).effective


def test_one_constant_per_path_stays_where_no_product_of_them_is_a_unit():
    """On sin(3·sin(2x)) the 2 and the 3 share a path: a product folds them into one
    factor, 6, never ±1, so the bounds keep the topmost (2) and read the 3 as a unit. On
    sin(sin(2x)/2) the fold is 2·(1/2) = 1, no multiplication at all: both read as
    units. Either way no bound exceeds what forward and reverse pay."""
    from dgraph.core.kinds import CONSTANT, UNIT
    from dgraph.search.junction_bounds import bound_kinds, elimination_lower_bound

    body = "inputs: x\noutputs: y\nt1 = 2*x\nt2 = sin(t1)\nt3 = {c}*t2\ny = sin(t3)"
    same = from_trace(body.format(c="3"))
    kinds = bound_kinds(same).pred
    assert (kinds["t1"]["x"], kinds["t3"]["t2"]) == (CONSTANT, UNIT)
    mixed = from_trace(body.format(c="1/2"))
    kinds = bound_kinds(mixed).pred
    assert (kinds["t1"]["x"], kinds["t3"]["t2"]) == (UNIT, UNIT)
    for g in (same, mixed):
        built = min(dgraph.accumulate(g, m).mults_effective for m in ("forward", "reverse"))
        assert elimination_lower_bound(g) <= built
