"""Independent parts: exact vertex searches take the components of the intermediates one
by one, and the sum of the parts' optima is the optimum."""

from __future__ import annotations

from hypothesis import given, settings

from dgraph.bench.realworld import REAL_WORLD
from dgraph.core.graph import DGraph
from dgraph.elimination.kernel import effective_cost
from dgraph.elimination.parts import independent_parts, largest_part
from dgraph.elimination.vertex import vertex_elimination
from dgraph.elimination.vertex_optimal import _connected_search, vertex_optimal_search
from dgraph.frontends import from_trace
from dgraph.methods import accumulate
from dgraph.search.effective_optimal import effective_optimal_search

from .strategies import dags


def test_the_heart_dipole_falls_into_two_parts_of_14_and_twelve_vertices():
    g = REAL_WORLD["heart-dipole"]()
    sizes = [len(p.intermediates) for p in independent_parts(g)]
    assert sizes == [1] * 12 + [14, 14] and largest_part(g) == 14
    inner = set(g.intermediates)  # every edge at an intermediate is in exactly one part
    touching = [e for e in g.edges() if inner & set(e)]
    assert sum(p.n_edges for p in independent_parts(g)) == len(touching) == g.n_edges - 4


def test_the_heart_dipole_vertex_optima_are_proven_part_by_part():
    """No budget needed any more: 102 structural (Markowitz's count) and 24 effective
    (reverse mode's), both proven; so no vertex order beats reverse mode effectively."""
    g = REAL_WORLD["heart-dipole"]()
    structural = vertex_optimal_search(g)
    effective = effective_optimal_search(g)
    assert structural.proven and structural.cost == 102
    assert effective.proven and effective.cost == 24
    # each 14-vertex part proven at its start by the bracketing bound (12, reverse mode's),
    # after 2,048 sets priced by the A* (16,384 each, without it); the 12 others at their start
    assert effective.states == 14
    order = [v for _, v in effective.moves]
    assert sorted(order) == sorted(g.intermediates)
    assert effective_cost(g, order) == 24
    assert vertex_elimination(g, order).mults_effective == 24
    assert accumulate(g, "reverse").mults_effective == 24


# best reports the proven effective vertex optimum (24) on the heart dipole: asserted on
# the same run, best(heart dipole, budget=20), in tests/test_bracketing_bound.py::
# test_the_heart_dipole_is_optimal_in_reverse_mode (one run of ~4 CPU-s, not two)


def test_a_graph_of_two_parts_costs_what_its_parts_cost():
    g = from_trace("inputs: x\noutputs: y, z\na = sin(x)\nc = a*a\ny = cos(c)\nb = exp(x)\nz = b*b")
    parts = independent_parts(g)
    assert [p.intermediates for p in parts] == [["b"], ["a", "c"]]
    assert [p.inputs for p in parts] == [["x"], ["x"]]
    whole = vertex_optimal_search(g)
    assert whole.cost == sum(vertex_optimal_search(p).cost for p in parts)


def _side_by_side(g1: DGraph, g2: DGraph) -> DGraph:
    """g1 and g2 on shared inputs (g2's k-th input is g1's k-th, where g1 has one)."""
    out = DGraph("side by side")
    for v in g1.order():
        out.add_vertex(f"a{v}", g1.role(v))
    shared = {x: f"a{y}" for x, y in zip(g2.inputs, g1.inputs, strict=False)}
    for v in g2.order():
        if v not in shared:
            out.add_vertex(f"b{v}", g2.role(v))
    for u, v in g1.edges():
        out.add_edge(f"a{u}", f"a{v}")
    for u, v in g2.edges():
        out.add_edge(shared.get(u, f"b{u}"), f"b{v}")
    return out.validate()


@settings(max_examples=30, deadline=None)
@given(dags(max_intermediates=5), dags(max_intermediates=5))
def test_searching_by_parts_finds_the_whole_graphs_optimum(g1, g2):
    g = _side_by_side(g1, g2)
    by_parts = vertex_optimal_search(g)
    whole = _connected_search(g, None)  # the A* over the whole graph at once
    assert by_parts.proven and whole.proven
    assert (
        by_parts.cost == whole.cost == vertex_elimination(g, [v for _, v in by_parts.moves]).mults
    )
    assert len(independent_parts(g)) >= min(1, len(g1.intermediates)) + min(
        1, len(g2.intermediates)
    )
