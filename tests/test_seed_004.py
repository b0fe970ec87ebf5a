"""Seed 004, Murota–Kubota 1989 (in Japanese; DOMAIN.md §6): Fig. 1, Props. 3.2 and 3.3,
Δ(G') >= 0 for umbrellas, and §5's rounding-error estimate after contraction.

Prop. 3.1 and Props. 4.1–4.2 are checked against brute force in tests/test_umbrellas.py;
docs/references.md ("Seed 004") lists every claim and where it is checked. Umbrellas here
are the paper's, without variable copying: contractible subgraphs with one maximal
vertex, enumerated as unions of Prop. 3.1's pieces (a single vertex, with no edge, is
the trivial umbrella, and closed umbrella, of itself).
"""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import dgraph
from dgraph.core.numeric import edge_values, vertex_values
from dgraph.dominance.umbrellas import (
    closed_umbrellas,
    contractible_components,
    contraction,
    umbrellas,
)

from .strategies import dags, programs

FIGURE_1 = """\
inputs: x1, x2
outputs: f1, f2
v1 = x1*x2
s = sin(v1)
e = exp(v1)
p = s*e
c = cos(v1)
v2 = p + c
f1 = x1*v2
f2 = x2*v2
"""  # g(v1) = sin(v1)·exp(v1) + cos(v1): "a scalar function of one variable with many
# intermediate variables"
G_EDGES = {("v1", "s"), ("v1", "e"), ("v1", "c"), ("s", "p"), ("e", "p"), ("p", "v2"), ("c", "v2")}


def contractible_sets(graph: dgraph.DGraph) -> list[frozenset]:
    """Every contractible edge set but the empty one: the unions of Prop. 3.1's pieces."""
    pieces = contractible_components(graph)
    return [
        frozenset(e for piece in chosen for e in piece)
        for k in range(1, len(pieces) + 1)
        for chosen in itertools.combinations(pieces, k)
    ]


def paper_umbrellas(graph: dgraph.DGraph, closed: bool = False) -> dict[frozenset, frozenset]:
    """Vertex set -> edge set of every umbrella (``closed``: closed umbrella), the trivial
    one-vertex ones included."""
    found = {frozenset([v]): frozenset() for v in graph.nx}
    for edges in contractible_sets(graph):
        sub = nx.DiGraph(edges)
        sinks = [v for v in sub if sub.out_degree(v) == 0]
        sources = [v for v in sub if sub.in_degree(v) == 0]
        if len(sinks) == 1 and (not closed or len(sources) == 1):
            found[frozenset(sub)] = edges
    return found


def _small(graph: dgraph.DGraph) -> bool:
    return len(contractible_components(graph)) <= 9


# -- Fig. 1 -----------------------------------------------------------------------------


def test_figure_1_umbrella_of_g():
    """Fig. 1: f1 = x1·g(x1x2), f2 = x2·g(x1x2). g's part, from v1 to v2, is the one
    maximal umbrella and closed umbrella; contracting it leaves Fig. 1(b): the edge
    v1 -> v2 in place of g's seven edges (Δ = 7 - 1 = 6). Accumulating ∂g/∂v1 first (4
    multiplications) and then the rest (2 for v1, 4 for v2) costs 10, against 9 + 9 for
    the two rows (∂f1/∂x1, ∂f1/∂x2) and (∂f2/∂x1, ∂f2/∂x2) by separate reverse sweeps."""
    g = dgraph.from_trace(FIGURE_1)
    g_part = ["v1", "s", "e", "p", "c", "v2"]
    assert [(c.input, c.output, c.vertices) for c in closed_umbrellas(g, True)] == [
        ("v1", "v2", g_part)
    ]
    assert [(u.output, u.vertices, u.copies) for u in umbrellas(g)] == [("v2", g_part, [])]
    found = paper_umbrellas(g)
    maximal = [v for v in found if len(v) > 1 and not any(v < w for w in found)]
    assert maximal == [frozenset(g_part)]  # and the one-vertex x1, x2, f1, f2
    assert found[frozenset(g_part)] == G_EDGES
    contracted, delta = contraction(g, sorted(G_EDGES))
    assert set(contracted.edges) == {
        ("x1", "v1"),
        ("x2", "v1"),
        ("v1", "v2"),
        ("x1", "f1"),
        ("x2", "f2"),
        ("v2", "f1"),
        ("v2", "f2"),
    }
    assert delta == 6
    es = dgraph.accumulate(g, "umbrella")
    assert es.verified and es.mults == 10
    rows = [
        dgraph.from_trace(FIGURE_1.replace("f1, f2", f).replace(f"{other} = ", "# "))
        for f, other in (("f1", "f2"), ("f2", "f1"))
    ]
    assert [dgraph.accumulate(r, "reverse").mults for r in rows] == [9, 9]


# -- Props. 3.2 and 3.3, Δ >= 0 -----------------------------------------------------------------


@settings(max_examples=60)
@given(dags(max_inputs=3, max_intermediates=5, max_outputs=3))
def test_proposition_3_2_umbrellas_are_vertex_induced(g):
    """Prop. 3.2: an umbrella holds every edge of G between two of its vertices."""
    assume(_small(g))
    for vertices, edges in paper_umbrellas(g).items():
        assert edges == frozenset(g.nx.subgraph(vertices).edges)


@settings(max_examples=60)
@given(dags(max_inputs=3, max_intermediates=5, max_outputs=3))
def test_proposition_3_3_intersecting_families(g):
    """Prop. 3.3: for umbrella vertex sets V1, V2 that meet, V1 ∪ V2 and V1 ∩ V2 are
    umbrella vertex sets; likewise for closed umbrellas. So the maximal ones are
    disjoint."""
    assume(_small(g))
    for closed in (False, True):
        family = set(paper_umbrellas(g, closed))
        for a, b in itertools.combinations(family, 2):
            if a & b:
                assert a | b in family and a & b in family
        maximal = [v for v in family if not any(v < w for w in family)]
        assert all(not (a & b) for a, b in itertools.combinations(maximal, 2))


@settings(max_examples=60)
@given(dags(max_inputs=3, max_intermediates=5, max_outputs=3))
def test_section_2_contracting_an_umbrella_never_adds_edges(g):
    """§2: Δ(G') = edges removed - edges added has no fixed sign in general, but Δ >= 0
    for an umbrella (each of its inputs has an edge of its own in G' and gets one edge)."""
    assume(_small(g))
    for edges in paper_umbrellas(g).values():
        if edges:
            assert contraction(g, sorted(edges))[1] >= 0


def test_section_2_delta_of_a_general_contractible_subgraph_can_be_negative():
    """Two inputs through one vertex to three outputs: the whole graph is contractible
    (no umbrella: three outputs); contracting it removes 5 edges and adds 6."""
    g = dgraph.from_dict(
        {
            "format": "dgraph/1",
            "inputs": ["a", "b"],
            "outputs": ["y1", "y2", "y3"],
            "vertices": [{"id": "m"}],
            "edges": [{"source": u, "target": "m"} for u in "ab"]
            + [{"source": "m", "target": y} for y in ("y1", "y2", "y3")],
        }
    )
    assert contractible_sets(g)[-1] == frozenset(g.nx.edges)
    assert contraction(g, sorted(g.nx.edges))[1] == -1


# -- §5: the rounding-error estimate with one work area per umbrella ---------------------------

EPS = 2.0**-53


def _adjoints(h: nx.DiGraph, output: str) -> dict[str, float]:
    """∂output/∂v for every v, by a reverse sweep over edge values ``c``."""
    adj = dict.fromkeys(h, 0.0)
    adj[output] = 1.0
    for v in reversed(list(nx.topological_sort(h))):
        for w in h.succ[v]:
            adj[v] += adj[w] * h.edges[v, w]["c"]
    return adj


def _estimates(graph: dgraph.DGraph, point: np.ndarray) -> tuple[list[float], list[float]]:
    """Iri's estimate of f's rounding error, ε·Σ_v |∂f/∂v|·|v| over the computed v, on G
    and on G with its maximal umbrellas contracted, each umbrella keeping one work area:
    ε·Σ_{v inner} |∂w/∂v|·|v| for its output w, which the sweep over the contracted graph
    multiplies by |∂f/∂w|."""
    values = {v: float(x) for v, x in vertex_values(graph, point).items()}
    labels = edge_values(graph, vertex_values(graph, point))
    h = nx.DiGraph()
    h.add_nodes_from(graph.nx)
    for u, v in graph.edges():
        h.add_edge(u, v, c=float(labels[graph.symbol(u, v)]))
    computed = [v for v in graph.nx if graph.role(v) != "input"]
    found = paper_umbrellas(graph)
    maximal = [v for v, e in found.items() if e and not any(v < w for w in found)]
    contracted, areas = h.copy(), []
    for vertices in maximal:
        sub = h.edge_subgraph(found[vertices])
        (w,) = [v for v in sub if sub.out_degree(v) == 0]
        inputs = [v for v in sub if sub.in_degree(v) == 0]
        inner = set(sub) - set(inputs) - {w}
        inside = _adjoints(nx.DiGraph(sub), w)
        areas.append((w, EPS * sum(abs(inside[v]) * abs(values[v]) for v in inner)))
        contracted.remove_edges_from(found[vertices])  # (u, w) too, if G has it
        contracted.remove_nodes_from(inner)
        for u in inputs:  # the new edge u -> w: the sum of the path products inside
            contracted.add_edge(u, w, c=inside[u])
    original, reduced = [], []
    for f in graph.outputs:
        adj = _adjoints(h, f)
        original.append(EPS * sum(abs(adj[v]) * abs(values[v]) for v in computed))
        adj = _adjoints(contracted, f)
        kept = [v for v in computed if v in contracted]
        reduced.append(
            EPS * sum(abs(adj[v]) * abs(values[v]) for v in kept)
            + sum(abs(adj[w]) * area for w, area in areas)
        )
    return original, reduced


def test_section_5_rounding_error_estimate_on_figure_1():
    """§5: after contracting g's umbrella, one extra work area per umbrella gives the same
    rounding-error estimate as the uncontracted graph."""
    g = dgraph.from_trace(FIGURE_1)
    original, reduced = _estimates(g, np.array([0.7, -1.3]))
    assert np.allclose(original, reduced, rtol=1e-12, atol=0) and min(original) > 0


@settings(max_examples=40)
@given(programs(max_inputs=3, max_statements=7), st.integers(0, 2**32 - 1))
def test_section_5_rounding_error_estimate_survives_contraction(g, seed):
    """§5 on random programs: every path from an inner vertex of an umbrella passes its
    output w, so |∂f/∂v| = |∂f/∂w|·|∂w/∂v| and the estimate splits exactly."""
    assume(_small(g))
    point = np.random.default_rng(seed).uniform(0.5, 1.5, len(g.inputs))
    original, reduced = _estimates(g, point)
    assume(all(np.isfinite(original)))
    assert np.allclose(original, reduced, rtol=1e-9, atol=0)
