"""The edge-elimination lower bound: never above the metagraph's exact optimum, equal to it
where every part is solved exactly, and a bound on the vertex optimum too."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from hypothesis import assume, given, settings

from dgraph.bench.realworld import REAL_WORLD
from dgraph.elimination.metagraph import (
    EDGE_LIMIT,
    edge_moves_expression_set,
    edge_optimal_search,
    intermediate_edge_count,
)
from dgraph.elimination.vertex_optimal import vertex_optimal_search
from dgraph.frontends import bundled
from dgraph.frontends.random_graphs import random_dag
from dgraph.methods import compare
from dgraph.search.best import best
from dgraph.search.bracketing_bound import bracketing_lower_bound
from dgraph.search.edge_bound import edge_elimination_bound, structural
from dgraph.search.junction_bounds import elimination_lower_bound

from .strategies import dags, programs

NO_CEILING = 600.0  # seconds of wall clock: on a loaded machine only counted work decides


def _exact(g) -> int:
    """The metagraph's edge-elimination optimum, structural mults."""
    return edge_optimal_search(g, "full").cost


# 20 examples: each an exact edge-optimal search, > 50 ms
@settings(max_examples=20, deadline=None)
@given(dags(max_inputs=3, max_intermediates=6, max_outputs=3))
def test_structural_bounds_at_most_the_edge_optimum(g):
    assume(intermediate_edge_count(g) <= EDGE_LIMIT)
    optimum = _exact(g)
    general = structural(g)
    assert elimination_lower_bound(general) <= bracketing_lower_bound(general) <= optimum
    found = edge_elimination_bound(g)
    assert found.proven and found.cost == found.lower_bound == optimum
    built = edge_moves_expression_set(g, found.moves, "edge-bound")
    assert built.mults == optimum and built.verify()


@settings(max_examples=20, deadline=None)  # as above
@given(programs(max_inputs=3, max_statements=8))
def test_bound_without_exact_parts_is_sound_on_labeled_programs(g):
    """With no part solved exactly (the limit at -1): junctions and bracketings only, in
    structural mults whatever the constant labels; below the edge and vertex optima."""
    assume(intermediate_edge_count(g) <= EDGE_LIMIT)
    vertex = vertex_optimal_search(g).cost
    found = edge_elimination_bound(g, seconds=5.0, upper=vertex, edge_limit=-1)
    optimum = _exact(g)
    assert found.moves is None and found.cost == vertex
    assert found.lower_bound <= optimum <= vertex
    assert found.proven == (found.lower_bound == vertex)


def test_discrepancy_graph_bounds():
    """Inputs a, b; k; i; five outputs: the edge optimum is 13, no vertex order below 14.
    Alone, the junctions prove 12 (the group across k -> i: 2·5 + 2), the bracketing
    program 13."""
    g = bundled("naumann_discrepancy.json")
    general = structural(g)
    assert elimination_lower_bound(general) == 12
    assert bracketing_lower_bound(general) == 13 == _exact(g)
    found = edge_elimination_bound(g)
    assert (found.cost, found.lower_bound, found.proven, found.gap) == (13, 13, True, 0)
    assert found.as_info() == {"lower_bound": 13, "cost": 13, "gap": 0, "proven": True}


def test_gap_reported_against_an_upper_bound():
    found = edge_elimination_bound(bundled("naumann_discrepancy.json"), upper=14, edge_limit=-1)
    assert (found.moves, found.cost, found.lower_bound, found.proven, found.gap) == (
        None,
        14,
        12,
        False,
        2,
    )


def test_best_and_compare_report_the_edge_bound():
    """The heart dipole (sympy): 102 structural mults, the vertex optimum, is proven optimal
    among every edge elimination by the junctions alone (its parts exceed the metagraph)."""
    g = REAL_WORLD["heart-dipole"]()
    es = best(g, budget=1, objective="structural", ceiling=NO_CEILING)
    assert es.mults == 102
    assert es.info["edge_elimination"] == {
        "lower_bound": 102,
        "cost": 102,
        "gap": 0,
        "proven": True,
    }
    assert es.info["lower_bounds"]["edge elimination"] == 102
    assert es.info["optimal_among"] == "edge elimination"
    comparison = compare(g, ["markowitz", "best"], budget=4, ceiling_slack=NO_CEILING)
    report = comparison.to_dict()["edge_elimination"]
    assert report["lower_bound"] == 102 and report["cost"] >= 102


def test_time_indexed_program_equals_the_metagraph_on_small_graphs():
    """benchmarks/edge_milp_probe.py, the exact program RESULTS.md measures against the
    metagraph: the same optimum where HiGHS solves it (tiny graphs: it does not scale)."""
    spec = importlib.util.spec_from_file_location(
        "edge_milp_probe", Path(__file__).resolve().parents[1] / "benchmarks" / "edge_milp_probe.py"
    )
    probe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(probe)
    for g in (
        bundled("naumann_sin.trace"),
        random_dag(0, 2, 3, 2, 0.4),
        random_dag(18, 2, 3, 2, 0.4),
    ):
        optimum = _exact(g)
        found, _, _ = probe.edge_milp(g, optimum + 1, time_limit=60)
        assert found == str(optimum)
