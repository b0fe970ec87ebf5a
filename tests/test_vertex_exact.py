"""The CP-SAT model of optimal vertex elimination (dgraph.elimination.vertex_exact): the
same optimum as the exhaustive searches, the same certificate on every run, and a bound
at most the optimum when the budget cuts it."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dgraph
from dgraph.bench.realworld import REAL_WORLD
from dgraph.elimination import vertex_optimal as vertex_optimal_module
from dgraph.elimination.kernel import VALUES, Closure, effective_cost, move_costs
from dgraph.elimination.structure import BitGraph
from dgraph.elimination.vertex import markowitz_order
from dgraph.elimination.vertex_exact import (
    Floors,
    available,
    conditional_cuts,
    exact_vertex_search,
)
from dgraph.elimination.vertex_optimal import vertex_optimal_search
from dgraph.errors import SearchTooLarge
from dgraph.frontends import bundled
from dgraph.frontends.random_graphs import random_dag, random_program
from dgraph.search.effective_optimal import effective_optimal_search

needs_ortools = pytest.mark.skipif(not available(), reason="OR-Tools is not installed")
FAST = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))


@needs_ortools
def test_paper_numbers():
    # Naumann's discrepancy example: 14 by vertex elimination, 3 on the sin graph
    assert exact_vertex_search(bundled("naumann_discrepancy.json")).cost == 14
    result = exact_vertex_search(bundled("naumann_sin.trace"), "effective")
    assert (result.cost, result.proven) == (3, True)


@FAST
@given(st.integers(0, 10_000), st.integers(2, 9), st.floats(0.1, 0.5))
@needs_ortools
def test_structural_optimum_equals_the_subset_search(seed, inner, density):
    g = random_dag(seed, 3, inner, 3, density)
    exact, astar = exact_vertex_search(g), vertex_optimal_search(g)
    assert exact.proven and exact.cost == exact.lower_bound == astar.cost
    assert move_costs(g, exact.moves)[1] == exact.cost


@FAST
@given(st.integers(0, 10_000), st.integers(3, 9))
@needs_ortools
def test_effective_optimum_equals_the_subset_search(seed, statements):
    g = random_program(seed, 2, statements, 2)
    if not Closure(g, VALUES).exact() or any(g.constant_label(u, v) == 0 for u, v in g.edges()):
        return  # the model refuses these (a label then depends on the order)
    exact, astar = exact_vertex_search(g, "effective"), effective_optimal_search(g)
    assert exact.proven and astar.proven and exact.cost == astar.cost
    assert effective_cost(g, [v for _, v in exact.moves]) == exact.cost


@needs_ortools
def test_same_certificate_on_every_run():
    g = random_dag(5, 4, 40, 4, 0.25)
    runs = [exact_vertex_search(g, budget=0.2) for _ in range(2)]
    assert [(r.moves, r.cost, r.lower_bound, r.proven, r.states) for r in runs[:1]] == [
        (r.moves, r.cost, r.lower_bound, r.proven, r.states) for r in runs[1:]
    ]


@needs_ortools
def test_a_cut_search_brackets_the_optimum():
    g = random_dag(11, 3, 14, 3, 0.3)
    optimum = vertex_optimal_search(g)
    start = move_costs(g, [("vertex", v) for v in markowitz_order(g)])[1]
    cut = exact_vertex_search(g, budget=0.001)
    assert cut.lower_bound <= optimum.cost <= cut.cost <= start
    assert cut.proven == (cut.lower_bound == cut.cost)


@needs_ortools
def test_vertex_optimal_uses_it_beyond_the_subset_search():
    g = REAL_WORLD["reaction-rates"]()  # an independent part of 22 intermediates
    with pytest.raises(SearchTooLarge):
        vertex_optimal_search(g)  # no budget: beyond the exhaustive limit, as before
    es = dgraph.accumulate(g, "vertex-optimal", budget=5)
    assert es.verified and es.info["optimal"] is True
    assert es.mults == es.info["lower_bound"] == 79
    assert es.info["solver"] == "A* and CP-SAT"  # the single vertices, then the part of 22


@needs_ortools
def test_a_short_solve_keeps_the_cut_bound():
    """Black-Scholes (one part of 37): within a short budget CP-SAT's own bound is 0; the
    Menger cuts' sum (65, what the A* starts from) still bounds every vertex order, and
    the proven optimum (76, CP-SAT with a 3-second budget) is above it."""
    g = REAL_WORLD["black-scholes"]()
    bits = BitGraph(g)
    cut_in, cut_out = bits.cuts()
    assert sum(cut_in[v] * cut_out[v] for v in bits.intermediates) == 65
    assert exact_vertex_search(g, budget=0.05).lower_bound < 65  # the solver alone
    found = vertex_optimal_search(g, 0.05)
    assert found.solver == "CP-SAT" and found.lower_bound == 65 <= 76 <= found.cost
    assert not found.proven


def test_without_ortools_the_subset_search_runs(monkeypatch):
    monkeypatch.setattr(vertex_optimal_module, "available", lambda: False)
    g = random_dag(3, 3, 20, 3, 0.2)
    result = vertex_optimal_search(g, budget=0.2)  # the A*, within its work budget
    assert result.solver == "A*"
    assert result.lower_bound <= result.cost
    assert move_costs(g, result.moves)[1] == result.cost


@FAST
@given(st.integers(0, 10_000), st.integers(2, 12), st.floats(0.1, 0.5), st.randoms())
def test_separator_floors_hold_in_every_order(seed, inner, density, rnd):
    # every floor the model is given holds in a random order: a vertex's predecessors
    # (successors) number at least the conditional cut of any set eliminated before it,
    # and a group's costs add up to at least its least order's floors
    g = random_dag(seed, 3, inner, 3, density)
    bits, floors = BitGraph(g), Floors(g)
    order = list(bits.intermediates)
    rnd.shuffle(order)
    done, cost = 0, {}
    for v in order:
        preds, succs = bits.closure(done)
        before = {w for w in order if done >> w & 1}
        for separators, found in ((floors.into, preds[v]), (floors.out_of, succs[v])):
            for t, cut, shared in conditional_cuts(separators, v, set(order)):
                assert found.bit_count() >= cut - sum(shared.get(w, 0) for w in t - before)
        cost[v] = preds[v].bit_count() * succs[v].bit_count()
        assert cost[v] >= floors.cost(v, frozenset(before))
        done |= 1 << v
    for group in (tuple(order[:2]), tuple(order[-3:]), tuple(order[1:5])):
        assert sum(cost[v] for v in group) >= floors.least(group)


@FAST
@given(st.integers(0, 10_000), st.integers(1, 30), st.floats(0.1, 0.5))
def test_min_cut_floors_are_node_connectivities(seed, inner, density):
    # BitGraph.cuts (the flows of dgraph.elimination.separators) equals networkx's local
    # node connectivity from a source joined to the inputs (to the outputs, reversed)
    import networkx as nx

    g = random_dag(seed, 3, inner, 3, density)
    bits = BitGraph(g)
    for cut, reverse, ends in (
        (bits.cuts()[0], False, g.inputs),
        (bits.cuts()[1], True, g.outputs),
    ):
        net = nx.DiGraph(g.nx.edges)
        net.add_nodes_from(bits.names)
        net = net.reverse() if reverse else net
        net.add_edges_from(("__s__", x) for x in ends)
        for v in bits.intermediates:
            expected = nx.algorithms.connectivity.local_node_connectivity(
                net, "__s__", bits.names[v]
            )
            assert cut[v] == expected


@FAST
@given(st.integers(0, 10_000), st.integers(2, 9), st.floats(0.1, 0.5))
@needs_ortools
def test_the_bound_search_alone_finds_the_optimum(seed, inner, density):
    # the budgeted search's second phase (CP-SAT's lower-bound tree search) on its own
    g = random_dag(seed, 3, inner, 3, density)
    exact = exact_vertex_search(g, budget=100, search_share=0.0)
    astar = vertex_optimal_search(g)
    assert exact.proven and exact.cost == exact.lower_bound == astar.cost


@needs_ortools
def test_mlp_optimum_proven():
    # dgraph's sympy MLP: 56 intermediates in one part; min-cut floors alone give 103
    result = exact_vertex_search(REAL_WORLD["mlp"](), budget=30)
    assert (result.cost, result.lower_bound, result.proven) == (168, 168, True)


def test_floors_reuse_only_separators_that_still_fit():
    """Floors price a vertex from a separator found before (holding fewer vertices) where
    it still avoids every held vertex: each floor, asked in a random order, equals its
    own flow (Separators, nothing reused), and a smallest separator, where there is one,
    avoids the target and every held vertex."""
    rnd = __import__("random").Random(4)
    for seed in range(6):
        g = random_dag(seed, 3, 24, 3, 0.2)
        floors, fresh = Floors(g), Floors(g)
        inner = sorted({i for i in range(floors.into.n) if floors.up[i] or floors.down[i]})
        asked = [(v, frozenset(rnd.sample(inner, rnd.randint(0, 6)))) for v in inner * 4]
        rnd.shuffle(asked)
        for v, before in asked:
            held_in, held_out = sorted(before & floors.up[v]), sorted(before & floors.down[v])
            into, out_of = fresh.into(v, held_in), fresh.out_of(v, held_out)
            assert floors.cost(v, before) == into.size * out_of.size, (seed, v, before)
            for found, held in ((into, held_in), (out_of, held_out)):
                if found.size < fresh.into.big:  # else no separator: an edge from a source
                    assert len(found.cut) == found.size and not set(found.cut) & {v, *held}
