"""D* (Guenter) and the umbrella method: verified results, sharing, factor subgraphs."""

from __future__ import annotations

import networkx as nx
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import dgraph
from dgraph.dominance.dstar import dstar, factor_subgraphs, pair_graph
from dgraph.dominance.umbrella_method import umbrella
from dgraph.frontends.random_graphs import random_composition, random_layered
from dgraph.render.regions import (
    closed_umbrella_regions,
    factor_subgraph_regions,
    umbrella_regions,
)

from .strategies import dags


def test_factor_subgraphs_of_two_blocks(two_blocks_graph):
    """Each simple block is a factor subgraph: v..r (r dominates v, which has two
    parents a, b) and t..v (its two-parent node t is dominated by v); each is found once
    although both a dominator and a postdominator relation span it."""
    g = pair_graph(two_blocks_graph, "r", "t")
    found = {(s.low, s.high): s for s in factor_subgraphs(g, "r", "t")}
    assert set(found) == {("v", "r"), ("t", "v")}
    upper = {(u, v) for u, v, _ in found["v", "r"].edges}
    assert upper == {("v", "a"), ("v", "b"), ("a", "r"), ("b", "r")}


def test_dstar_on_paper_graphs(two_blocks_graph, discrepancy_graph, sin_graph):
    assert dstar(two_blocks_graph).mults == 5
    es = dgraph.accumulate(discrepancy_graph, "dstar")
    # one factor subgraph (k's two paths to y1), and i's path down to a and to b
    # multiplied once for all five outputs: 13, the edge-elimination optimum
    assert es.verified and es.mults == 13 and es.info["factor_subgraphs"] == 1
    assert dgraph.accumulate(sin_graph, "dstar").mults == 3


def test_dstar_shares_a_subgraph_between_pairs():
    """y1 = g(u) x0 and y2 = g(u) x1 with u = x0 x1 and g(u) = sin u + cos u: the sum over
    g's two paths is one reference, used by all four entries."""
    a, b = sympy.symbols("x0 x1")
    u = a * b
    gu = sympy.sin(u) + sympy.cos(u)
    g = dgraph.from_sympy({"y1": gu * a, "y2": gu * b}, [a, b])
    es = dgraph.accumulate(g, "dstar")
    assert es.verified
    uses = {name: sum(str(name) in str(e) for e in es.jacobian.values()) for name in es.references}
    assert max(uses.values(), default=0) >= 2, es.to_text()


# derandomized: these draws reach every line of dgraph that 60 random draws reached, or
# lines other tests reach (coverage, 2026-12)
@settings(max_examples=30, derandomize=True)
@given(dags(max_intermediates=8))
def test_every_dstar_organization_verifies(g):
    results = {org: dstar(g, org) for org in ("pairs", "roots", "leaves")}
    for org, es in results.items():
        assert es.verify().ok, org
        assert es.mults == sum(s.mults for s in es.steps), org
    assert dstar(g).mults == min(es.mults for es in results.values())


@given(dags(max_intermediates=8))
def test_dstar_and_umbrella_verify_on_random_dags(g):
    for method in ("dstar", "umbrella"):
        es = dgraph.accumulate(g, method)
        assert es.verified, (method, es.verification)
        assert es.mults == sum(s.mults for s in es.steps), method
        assert es.mults <= dgraph.naive_cost(g), method


@given(st.integers(0, 10**6), st.integers(1, 4), st.integers(1, 3))
def test_dstar_and_umbrella_on_compositions(seed, parts, outputs):
    g = random_composition(seed, parts, outputs)
    for method in ("dstar", "umbrella"):
        assert dgraph.accumulate(g, method).verified


def test_dstar_on_a_layered_graph():
    g = random_layered(2, 6, 8, 3, 3)
    es = dgraph.accumulate(g, "dstar")
    assert es.verified and es.verification.mode == "exact"


def test_umbrella_contracts_umbrellas(two_blocks_graph):
    es = umbrella(two_blocks_graph)
    assert es.mults == 5 and es.info["umbrellas_contracted"] >= 1
    assert any(s.op.startswith("umbrella") for s in es.steps)


def test_regions_for_highlighting(two_blocks_graph):
    (um,) = umbrella_regions(two_blocks_graph)
    assert um.vertices == frozenset(two_blocks_graph.nx)
    (closed,) = closed_umbrella_regions(two_blocks_graph)
    assert closed.name == "closed umbrella t->r"
    assert len(closed_umbrella_regions(two_blocks_graph, hierarchy=True)) == 3
    factors = factor_subgraph_regions(two_blocks_graph)
    assert factors and all(n == 1 for _, n in factors)
    assert all(nx.is_directed_acyclic_graph(nx.DiGraph(list(r.edges))) for r, _ in factors)


def _graph(edges: list[tuple[str, str]], inputs: list[str], outputs: list[str]) -> dgraph.DGraph:
    inner = sorted({v for e in edges for v in e} - {*inputs, *outputs})
    return dgraph.from_dict(
        {
            "format": "dgraph/1",
            "inputs": inputs,
            "outputs": outputs,
            "vertices": [{"id": v} for v in inner],
            "edges": [{"source": u, "target": v} for u, v in edges],
        }
    )


def test_guenter_order_and_inner_order_differ():
    """Guenter factors the most frequent subgraph first; dgraph's default the innermost.
    Nested diamonds x -> l -> {a, b}, a -> {c, d}, {c, d, b} -> H -> y: the subgraphs
    a..H and l..H tie (one pair holds both). Inner first builds a..H (2) and then l..H
    over its label (2), 4 plus 2 for the path x, l, H, y; taking l..H first (as found, in
    evaluation order) builds its sum over all five edges below H (5): 7."""
    g = _graph(
        [
            ("x", "l"),
            ("l", "a"),
            ("l", "b"),
            ("a", "c"),
            ("a", "d"),
            ("c", "H"),
            ("d", "H"),
            ("b", "H"),
            ("H", "y"),
        ],
        ["x"],
        ["y"],
    )
    inner, frequent = dstar(g, "pairs", "inner"), dstar(g, "pairs", "frequent")
    assert inner.verify().ok and frequent.verify().ok
    assert [s.target for s in inner.steps][:2] == [("a", "H"), ("l", "H")]
    assert [s.target for s in frequent.steps][:1] == [("l", "H")]
    assert (inner.mults, frequent.mults) == (6, 7)
    assert inner.info["priority"] == "inner" and frequent.info["priority"] == "frequent"
    # the other way round: one graph per root, where taking x..t9 first saves the
    # product inner-first spends on t2..t9 (18 against 17)
    c = random_composition(3, 3, 2)
    assert (dstar(c, "roots", "inner").mults, dstar(c, "roots", "frequent").mults) == (18, 17)


def test_unknown_dstar_priority_is_refused(two_blocks_graph):
    with pytest.raises(dgraph.DGraphError, match="unknown D\\* priority 'most'"):
        dstar(two_blocks_graph, priority="most")


def test_joined_pairs_are_the_pairs_a_path_joins():
    """One sweep of reachability bits gives what ``has_path`` per pair gives, in the same
    order (targets, then each one's sources), on random graphs with inputs that are
    outputs too."""
    import networkx as nx

    from dgraph.core.paths import joined_pairs
    from dgraph.frontends.random_graphs import random_dag

    for seed in range(20):
        g = random_dag(seed, 4, 12, 3, 0.3).nx
        nodes = list(nx.topological_sort(g))
        sources, targets = nodes[:5], nodes[-4:] + nodes[:1]
        expected = [(y, x) for y in targets for x in sources if nx.has_path(g, x, y)]
        assert joined_pairs(g, sources, targets) == expected
