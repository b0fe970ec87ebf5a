"""The Hessian's lower bound (dgraph.second_order.bound, issue 55 item 2): one
multiplication for each lower-triangle entry with a path of two edges or more. It never
exceeds any method's count, symmetric counts included (drawn programs), is met on
sin(x)·y, and compare_hessian reports it under the Jacobian compare's field names."""

from __future__ import annotations

import sympy
from hypothesis import HealthCheck, given, settings

import dgraph
from dgraph.core.hessian_graph import hessian_graph
from dgraph.frontends import from_sympy
from dgraph.second_order import HESSIAN_BOUND_FOR, hessian_lower_bound

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
