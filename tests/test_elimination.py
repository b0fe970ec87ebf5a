"""Elimination methods and exact optima: the paper checks of DOMAIN.md §3-4."""

from __future__ import annotations

import itertools
import pickle

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import dgraph
from dgraph.core.expressions import Recipe, cheapest_inlined, make_expression_set
from dgraph.elimination.labeled import LabeledGraph, replay
from dgraph.elimination.metagraph import edge_optimal, metagraph
from dgraph.elimination.structure import BitGraph
from dgraph.elimination.vertex import markowitz_order, vertex_elimination
from dgraph.elimination.vertex_optimal import VERTEX_LIMIT, vertex_optimal
from dgraph.errors import DGraphError, SearchTooLarge
from dgraph.frontends import bundled
from dgraph.frontends.random_graphs import random_layered

from .strategies import labeled_dags


def test_metagraph_stages_of_naumann_sin(sin_graph):
    """Naumann's Figure 10: 14 stages in M, 7 in M_F, 8 in M_B (and 4 vertex subsets)."""
    counts = {
        m: metagraph(sin_graph, m).number_of_nodes()
        for m in ("full", "forward", "backward", "vertex")
    }
    assert counts == {"full": 14, "forward": 7, "backward": 8, "vertex": 4}


def test_metagraph_shortest_path_is_edge_optimal(sin_graph):
    import networkx as nx

    meta = metagraph(sin_graph)
    finals = [s for s, final in meta.nodes(data="final") if final]
    assert len(finals) == 1  # one bipartite graph: K_{2,1}
    dist = nx.shortest_path_length(meta, meta.graph["start"], finals[0], weight="cost")
    assert dist == edge_optimal(sin_graph).mults == 3


def test_vertex_edge_discrepancy(discrepancy_graph):
    g = discrepancy_graph
    assert vertex_elimination(g, ["i", "k"]).mults == 15
    assert vertex_elimination(g, ["k", "i"]).mults == 14
    es = replay(g, [("forward", ("i", "y1")), ("vertex", "k"), ("vertex", "i")], "edges")
    assert [s.mults for s in es.steps] == [1, 4, 8]
    assert es.mults == 13 and es.verify().ok
    assert dgraph.accumulate(g, "vertex-optimal").mults == 14
    best = dgraph.accumulate(g, "edge-optimal")
    assert best.mults == 13 and best.info["optimal"] is True and best.verified


def test_forward_cost_is_sum_of_markowitz_degrees_in_evaluation_order(discrepancy_graph, sin_graph):
    for g in (discrepancy_graph, sin_graph, bundled("spherical_coordinates.trace")):
        bits = BitGraph(g)
        state, degrees = bits.start, []
        for v in g.intermediates:  # evaluation order
            cost, state = bits.vertex(state, bits.index[v])
            degrees.append(cost)
        es = dgraph.accumulate(g, "forward")
        assert es.mults == sum(degrees) == sum(s.mults for s in es.steps)
        assert [s.mults for s in es.steps] == degrees


def test_zhou_two_chained_blocks(two_blocks_graph):
    """(r_a a_v + r_b b_v)(v_c c_t + v_d d_t): 5 multiplications; path by path 12."""
    assert dgraph.naive_cost(two_blocks_graph) == 12
    assert dgraph.accumulate(two_blocks_graph, "vertex-optimal").mults == 5
    assert dgraph.accumulate(two_blocks_graph, "markowitz").mults == 5


def test_markowitz_breaks_ties_by_evaluation_order(sin_graph):
    # v1 and v2 both have degree 2 at the start: v1 comes first in evaluation order
    assert markowitz_order(sin_graph) == ["v1", "v2"]


def test_reverse_and_forward_orders(sin_graph):
    assert dgraph.accumulate(sin_graph, "forward").info["order"] == ("v1", "v2")
    assert dgraph.accumulate(sin_graph, "reverse").info["order"] == ("v2", "v1")


def test_edge_sequences_forward_and_backward(sin_graph):
    forward_only = [("forward", ("v1", "v2")), ("forward", ("v1", "y")), ("forward", ("v2", "y"))]
    es = dgraph.accumulate(sin_graph, "edges", sequence=forward_only)
    assert es.verified and es.mults == sum(s.mults for s in es.steps)
    backward_only = [
        ("backward", ("x1", "v1")),
        ("backward", ("x0", "v2")),
        ("backward", ("x1", "v2")),
    ]
    es = dgraph.accumulate(sin_graph, "edges", sequence=backward_only)
    assert es.verified and es.mults == sum(s.mults for s in es.steps)


def test_illegal_eliminations_are_refused(sin_graph):
    with pytest.raises(DGraphError, match="intermediate source"):
        replay(sin_graph, [("forward", ("x0", "v2"))], "edges")
    with pytest.raises(DGraphError, match="intermediate target"):
        replay(sin_graph, [("backward", ("v2", "y"))], "edges")
    with pytest.raises(DGraphError, match="incomplete"):
        replay(sin_graph, [("vertex", "v1")], "edges")
    with pytest.raises(DGraphError, match="misses 'v2'"):
        vertex_elimination(sin_graph, ["v1"])


def test_restricted_metagraph_searches(discrepancy_graph):
    costs = {
        m: edge_optimal(discrepancy_graph, m).mults
        for m in ("full", "forward", "backward", "vertex")
    }
    assert costs == {"full": 13, "forward": 13, "backward": 14, "vertex": 14}


def test_exact_searches_refuse_without_budget():
    from dgraph.frontends.random_graphs import random_dag

    g = random_dag(7, 3, VERTEX_LIMIT + 4, 3, 0.2)
    with pytest.raises(SearchTooLarge, match="--budget"):
        vertex_optimal(g)
    with pytest.raises(SearchTooLarge, match="--budget"):
        edge_optimal(g)


def test_budgeted_search_returns_the_best_found_within_its_work():
    from dgraph.frontends.random_graphs import random_dag

    g = random_dag(3, 3, 26, 3, 0.3)
    es = dgraph.accumulate(g, "vertex-optimal", budget=0.5)
    assert es.verified
    assert es.info["optimal"] is False
    assert es.info["lower_bound"] <= es.mults
    assert es.mults <= dgraph.accumulate(g, "markowitz").mults
    # the budget is counted moves, not time: the same search every time
    again = dgraph.accumulate(g, "vertex-optimal", budget=0.5)
    assert (again.info["states"], again.info["lower_bound"]) == (
        es.info["states"],
        es.info["lower_bound"],
    )


def test_budgeted_search_proves_small_optimum(sin_graph):
    es = dgraph.accumulate(sin_graph, "edge-optimal", budget=5)
    assert es.info["optimal"] is True and es.mults == 3


@pytest.mark.parametrize("seed", range(4))
def test_vertex_optimal_is_the_minimum_over_all_orders(seed):
    from dgraph.frontends.random_graphs import random_dag

    g = random_dag(seed, 2, 5, 2, 0.4)
    best = min(
        vertex_elimination(g, order).mults for order in itertools.permutations(g.intermediates)
    )
    assert dgraph.accumulate(g, "vertex-optimal").mults == best


def _markowitz_by_definition(graph):
    """Naumann's greedy rule read literally: scan every remaining vertex each step."""
    import networkx as nx

    position = {v: i for i, v in enumerate(graph.order())}
    g = nx.DiGraph(graph.nx.edges)
    order, remaining = [], set(graph.intermediates)
    while remaining:
        v = min(remaining, key=lambda w: (g.in_degree(w) * g.out_degree(w), position[w]))
        g.add_edges_from((i, k) for i in g.predecessors(v) for k in g.successors(v))
        g.remove_node(v)
        remaining.discard(v)
        order.append(v)
    return order


@pytest.mark.parametrize("seed", range(40))
def test_incremental_markowitz_and_order_cost_match_their_definitions(seed):
    import random

    from dgraph.elimination.orders import order_cost
    from dgraph.frontends.random_graphs import random_layered

    g = random_layered(seed, 3 + seed % 5, 4 + seed % 7, 2 + seed % 3, None if seed % 2 else 3)
    assert markowitz_order(g) == _markowitz_by_definition(g)
    order = list(g.intermediates)
    random.Random(seed).shuffle(order)
    bits = BitGraph(g)
    state, expected = bits.start, 0
    for v in order:
        cost, state = bits.vertex(state, bits.index[v])
        expected += cost
    assert order_cost(g, order) == expected


# -- vertex elimination inlines while it builds ------------------------------------------


def _named_then_inlined(graph, order):
    """The general route: every label that is a factor named, single uses inlined after."""
    labeled = LabeledGraph(graph)
    for v in order:
        labeled.eliminate_vertex(v)
    return make_expression_set(
        graph, labeled.references, labeled.entries(), labeled.steps, "vertex", {}, inline=True
    )


# derandomized: these draws reach every line of dgraph that 150 random draws reached, or
# lines other tests reach (coverage, 2026-12)
@settings(max_examples=60, deadline=None, derandomize=True)
@given(labeled_dags(max_intermediates=8, labels=(None, None, None, 1, -1)), st.randoms())
def test_vertex_elimination_builds_what_naming_then_inlining_builds(graph, rnd):
    order = rnd.sample(graph.intermediates, len(graph.intermediates))
    es, general = vertex_elimination(graph, order), _named_then_inlined(graph, order)
    assert list(es.references) == list(general.references)
    assert list(es.jacobian) == list(general.jacobian)
    for a, b in [
        *zip(es.references.values(), general.references.values(), strict=True),
        *zip(es.jacobian.values(), general.jacobian.values(), strict=True),
    ]:
        assert sympy.srepr(a) == sympy.srepr(b)
    assert es.cost == general.cost
    computed, expected = es.as_computed, general.as_computed
    assert dict(computed.references) == dict(expected.references)
    assert dict(computed.jacobian) == dict(expected.jacobian)


def _named(graph, order):
    labeled = LabeledGraph(graph)
    for v in order:
        labeled.eliminate_vertex(v)
    return make_expression_set(graph, labeled.references, labeled.entries(), labeled.steps)


# derandomized: these draws reach every line of dgraph that 100 random draws reached, or
# lines other tests reach (coverage, 2026-12)
@settings(max_examples=40, deadline=None, derandomize=True)
@given(labeled_dags(max_intermediates=7), st.randoms())
def test_the_cheapest_candidate_is_the_cheapest_once_each_is_inlined(graph, rnd):
    orders = [rnd.sample(graph.intermediates, len(graph.intermediates)) for _ in range(3)]
    candidates = [_named(graph, order) for order in orders]
    inlined = [es.inline_single_use() for es in candidates]
    expected = min(inlined, key=lambda es: (es.mults, es.adds))
    got = cheapest_inlined(candidates)
    assert (got.mults, got.adds) == (expected.mults, expected.adds)
    assert dict(got.jacobian) == dict(expected.jacobian)


def test_the_as_computed_form_of_vertex_elimination_is_built_when_asked_for():
    g = bundled("zhou_two_blocks.json")
    es = vertex_elimination(g, g.intermediates)
    assert isinstance(es.computed, Recipe) and "as_computed" not in es.__dict__
    assert es.as_computed.mults == es.mults == 6
    assert (len(es.references), len(es.as_computed.references)) == (1, 3)
    back = pickle.loads(pickle.dumps(es))
    assert isinstance(back.computed, Recipe) and "as_computed" not in back.__dict__
    assert dict(back.as_computed.references) == dict(es.as_computed.references)


def test_markowitz_refuses_at_once_where_its_fill_in_outgrows_the_limit():
    g = random_layered(0, 6, 12, 3, 4)  # no constant labels: structural = built count
    products = dgraph.accumulate(g, "markowitz", limit=None).mults
    with pytest.raises(SearchTooLarge, match=f"more than {products - 1:,} multiplications"):
        dgraph.accumulate(g, "markowitz", limit=products - 1)
    assert dgraph.accumulate(g, "markowitz", limit=products).mults == products


def test_a_tensor_elimination_keeps_only_the_blocks_its_edges_hold():
    """After each move the symbolic labels' blocks are those of the edges left (a
    product summed into another, a label replaced by its name, go), and the steps'
    prices are the blocks' products all the same (the order's price is the set's)."""
    import numpy as np

    g = dgraph.from_function(
        lambda x: np.sin(x[1:] * x[:-1]) + np.exp(x[:-1]) * x[1:],
        sizes=[(6,)],
        level="array",
    )
    order = list(reversed(g.intermediates))
    labeled = LabeledGraph(g)
    for v in order:
        labeled.eliminate_vertex(v)
        live = {id(label) for out in labeled.succ.values() for label in out.values()}
        assert set(labeled.algebra.tensor) == live  # kept by identity, the label beside
    es = labeled.result("reverse")
    assert (
        sum(step.mults for step in labeled.steps) == es.mults == vertex_elimination(g, order).mults
    )


def test_the_as_computed_form_of_a_tensor_elimination_multiplies_no_block(monkeypatch):
    """The as-computed form replays the steps on labels alone: it forms no block
    product or sum (the elimination priced them; at 10⁶ unknowns some 30 products and
    15 sums of 10⁶–10⁷ entries), keeps the priced steps, and is the form a replay that
    prices every product again gives."""
    import numpy as np

    from dgraph.elimination import kernel

    g = dgraph.from_function(
        lambda x: np.sin(x[1:] * x[:-1]) + np.exp(x[:-1]) * x[1:] * x[1:],
        sizes=[(6,)],
        level="array",
    )
    order = markowitz_order(g)
    es = vertex_elimination(g, order)
    assert isinstance(es.computed, Recipe)
    formed = []
    for name in ("multiply", "add"):
        inner = getattr(kernel.BLOCKS, name)
        monkeypatch.setattr(
            kernel.BLOCKS, name, lambda *a, _inner=inner: formed.append(a) or _inner(*a)
        )
    computed = es.as_computed
    assert formed == []
    assert computed.steps == es.steps and computed.mults == es.mults
    monkeypatch.undo()
    priced = LabeledGraph(g)  # the replay as it was: every product priced again
    for v in order:
        priced.eliminate_vertex(v)
    assert tuple(priced.steps) == es.steps
    assert dict(computed.references) == dict(priced.references)
    assert dict(computed.jacobian) == dict(priced.entries())


def test_a_tensor_chain_elimination_hashes_no_long_product(monkeypatch):
    """A chain's products are as long as the chain: the blocks kept beside the symbolic
    labels are found by the labels' identity, so no product's factors are hashed again
    (by the expression: 107,653 hashes at 200 steps, 375,253 at 400; now 4,623)."""
    import sympy

    n = 200

    def f(x, y):
        t = x
        for k in range(n):
            t = t * 0.9999 + 0.001 * (k % 7 + 1) * y
        return t, t * y

    g = dgraph.from_function(f, level="array")
    assert g.is_tensor and len(g.intermediates) == 3 * n
    calls = [0]
    original = sympy.Basic.__hash__

    def counted(self):
        calls[0] += 1
        return original(self)

    monkeypatch.setattr(sympy.Basic, "__hash__", counted)
    es = dgraph.accumulate(g, "forward", verify=False)
    monkeypatch.undo()
    assert calls[0] <= 10 * len(g.intermediates)
    assert sum(step.mults for step in es.steps) == es.mults > 0  # priced as built
