"""Seed 000, Naumann (INRIA RR-3659, 1999): the report's claims not asserted elsewhere.

Figure 5, Fig. 10's stage counts and the shortest path live in tests/test_elimination.py;
docs/references.md ("Seed 000") lists every figure and claim and where it is checked.
Naumann numbers the sin example's vertices v₋₁ = x0, v₀ = x1, v₁ = v1, v₂ = v2, v₃ = y.
"""

from __future__ import annotations

import math

import networkx as nx
import sympy
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import dgraph
from dgraph import blocks
from dgraph.elimination.kernel import BLOCKS, COUNT, Elimination
from dgraph.elimination.labeled import LabeledGraph
from dgraph.elimination.metagraph import intermediate_edge_count, metagraph
from dgraph.elimination.structure import BitGraph
from dgraph.frontends import bundled

from .strategies import dags

# -- §2.3: L, the total length of all paths, and the lemma L_new <= L_old - n^b n^f ----------


def _paths(state: Elimination) -> tuple[dict, dict, int]:
    """n^b (paths from the inputs into v), n^f (paths from v to the outputs) and L, by
    Naumann's recurrences over the current graph."""
    g = nx.DiGraph([(u, v) for u, out in state.succ.items() for v in out])
    g.add_nodes_from(state.succ)
    order = list(nx.topological_sort(g))
    nb = {v: 1 if state.role[v] == "input" else 0 for v in order}
    nf = {v: 1 if state.role[v] == "output" else 0 for v in order}
    lb = dict.fromkeys(order, 0)
    for v in order:
        for u in g.pred[v]:
            nb[v] += nb[u]
        lb[v] = sum(lb[u] + nb[u] for u in g.pred[v])
    for v in reversed(order):
        for w in g.succ[v]:
            nf[v] += nf[w]
    length = sum(lb[v] for v in order if state.role[v] == "output")
    return nb, nf, length


@settings(max_examples=80)
@given(dags(max_intermediates=6), st.randoms(use_true_random=False))
def test_section_2_3_every_elimination_lowers_L_by_nb_times_nf(g, rnd):
    """Naumann §2.3: eliminating (i, j), forward or backward, shortens or merges the
    n^b(v_i)·n^f(v_j) paths through it, so L_new <= L_old - n^b(v_i)·n^f(v_j); a vertex
    elimination (all of v's in-edges backward) lowers L by at least n^b(v)·n^f(v)."""
    state = Elimination(g, COUNT)
    while not state.done():
        nb, nf, before = _paths(state)
        moves = [
            (d, (i, j))
            for i, out in state.succ.items()
            for j in out
            for d in ("forward", "backward")
            if state.role[i if d == "forward" else j] == "intermediate"
        ]
        moves += [("vertex", v) for v in state.intermediates()]
        op, target = rnd.choice(moves)
        drop = nb[target] * nf[target] if op == "vertex" else nb[target[0]] * nf[target[1]]
        state.apply((op, target))
        assert _paths(state)[2] <= before - drop
    assert _paths(state)[2] == len(state.entries())  # bipartite: every path one edge


# -- §2.4: the vertex-edge discrepancy ---------------------------------------------------------

P2_BOUND = 1 / (math.sqrt(2) * (2 - math.sqrt(2)))  # 1.2071...: Naumann's bound for p = 2


def _optima(g: dgraph.DGraph) -> tuple[int, int]:
    vertex = dgraph.accumulate(g, "vertex-optimal", verify=False).mults
    edge = dgraph.accumulate(g, "edge-optimal", verify=False).mults
    return vertex, edge


@settings(max_examples=60)
@given(dags(max_inputs=4, max_intermediates=2, max_outputs=5))
def test_section_2_4_discrepancy_bound_for_two_intermediates(g):
    """§2.4: with p <= 2 intermediate vertices, the best vertex elimination costs at most
    (√2(2 − √2))⁻¹ ≈ 1.207 times the best edge elimination."""
    vertex, edge = _optima(g)
    assert edge <= vertex <= P2_BOUND * edge + 1e-9


@settings(max_examples=40)
@given(dags(max_inputs=3, max_intermediates=5, max_outputs=4))
def test_section_4_conjecture_discrepancy_at_most_2(g):
    """§2.4 and §4: the conjecture that the vertex-edge discrepancy never exceeds 2, on
    graphs small enough for both exact optima (at most 12 intermediate edges). The
    largest ratio found is in docs/references.md."""
    assume(intermediate_edge_count(g) <= 12)
    vertex, edge = _optima(g)
    assert edge <= vertex <= 2 * edge


def _figure_5_shape(outputs: int) -> dgraph.DGraph:
    """Fig. 5's graph with ``outputs`` outputs: a, b -> k -> i, k -> y1, i -> y1..ym."""
    ys = [f"y{j}" for j in range(1, outputs + 1)]
    edges = [("a", "k"), ("b", "k"), ("k", "i"), ("k", "y1")] + [("i", y) for y in ys]
    return dgraph.from_dict(
        {
            "format": "dgraph/1",
            "inputs": ["a", "b"],
            "outputs": ys,
            "vertices": [{"id": "k"}, {"id": "i"}],
            "edges": [{"source": u, "target": v} for u, v in edges],
        }
    )


def test_figure_5_discrepancy_ratio():
    """Fig. 5: 14 against 13, a ratio of 14/13 ≈ 1.077, inside the p = 2 bound. With m
    outputs the vertex orders cost 2·2 + 2m (k first) and m + 2m (i first), Fig. 5's edge
    sequence 1 + 2·2 + 2(m − 1) (the edge optimum is the smaller of the two): the ratio
    peaks at m = 4, 12/11 ≈ 1.091."""
    vertex, edge = _optima(bundled("naumann_discrepancy.json"))
    assert (vertex, edge) == (14, 13) and vertex / edge <= P2_BOUND
    optima = {m: _optima(_figure_5_shape(m)) for m in range(2, 8)}
    for m, (vertex, edge) in optima.items():
        assert (vertex, edge) == (2 * m + min(4, m), min(2 * m + min(4, m), 3 + 2 * m))
    assert max(optima.values(), key=lambda ve: ve[0] / ve[1]) == (12, 11) == optima[4]


# -- §3.1, §3.2: the metagraph, Fig. 8's stage sets, the 2^|E*| bound, Fig. 10 -------------


def _after(bits: BitGraph, moves: list[tuple]) -> tuple:
    state = bits.start
    for wanted in moves:
        state = next(nxt for move, _, nxt in bits.moves(state) if move == wanted)
    return state


def test_figure_8_stage_sets(sin_graph):
    """Fig. 8: M_F = {0, 1, 2, 7, 12, 3, 13}, M_B = {0, 3, 4, 5, 9, 11, 7, 13} and
    M_V = {0, 3, 7, 13}: M_F ∩ M_B = M_V; 11 stages lie in M_F ∪ M_B and three (6, 8,
    10) only in M. CG₁ (forward (1,2)) and CG₂ (forward (1,3)) are in M_F; CG₁₀ in
    neither."""
    full, forward, backward, vertex = (
        set(metagraph(sin_graph, m)) for m in ("full", "forward", "backward", "vertex")
    )
    assert (len(full), len(forward), len(backward), len(vertex)) == (14, 7, 8, 4)
    assert forward & backward == vertex
    assert forward | backward | vertex <= full
    assert len(forward | backward) == 11 and len(full - forward - backward) == 3
    bits = BitGraph(sin_graph)
    cg1 = _after(bits, [("forward", ("v1", "v2"))])
    cg2 = _after(bits, [("forward", ("v1", "y"))])
    cg10 = _after(bits, [("forward", ("v1", "v2")), ("backward", ("x1", "v2"))])
    assert {cg1, cg2} <= forward and cg10 in full - forward - backward
    # the vertex metagraph has 2^p = 4 stages (one per set of eliminated vertices); the
    # report's count 1 + Σ_{i<p} Π_{j<=i} (p - j) gives 5 for p = 2: it counts the
    # prefixes of elimination orders, and both orders end in the same K_{2,1}
    p = len(sin_graph.intermediates)
    prefixes = 1 + sum(math.prod(p - j for j in range(i + 1)) for i in range(p))
    assert (len(vertex), 2**p, prefixes) == (4, 4, 5)


@settings(max_examples=40)
@given(dags(max_inputs=2, max_intermediates=3, max_outputs=2))
def test_section_3_1_metagraph_has_at_most_2_to_E_star_stages(g):
    """§3.1: every stage's edges lie in the transitive closure of the c-graph (elimination
    only joins vertices a path already joined), so |V_M| <= 2^|E*|."""
    assume(intermediate_edge_count(g) <= 8)
    closure = nx.transitive_closure_dag(g.nx).number_of_edges()
    assert metagraph(g).number_of_nodes() <= 2**closure


def test_section_3_1_bounds_on_the_sin_example(sin_graph):
    """The sin example: 14 stages; 2^|E*| = 2^8 = 256 holds, while 2^C(p,2) = 2 (stated
    for p much larger than n and m) does not hold at p = 2."""
    closure = nx.transitive_closure_dag(sin_graph.nx).number_of_edges()
    p = len(sin_graph.intermediates)
    assert (metagraph(sin_graph).number_of_nodes(), closure, 2 ** math.comb(p, 2)) == (14, 8, 2)


def test_figure_10_same_structure_different_labels(sin_graph):
    """§3.2, Fig. 10: CG₁₀ is reached by (1,3) forward then (1,2) backward (via CG₂), or by
    (1,2) forward then (0,2) backward (via CG₁): one structure, two labellings,
    c₃₀ = c₃₁c₁₀ against c₃₂c₂₁c₁₀."""
    via_cg2, via_cg1 = LabeledGraph(sin_graph), LabeledGraph(sin_graph)
    via_cg2.apply(("forward", ("v1", "y")))
    via_cg2.apply(("backward", ("v1", "v2")))
    via_cg1.apply(("forward", ("v1", "v2")))
    via_cg1.apply(("backward", ("x1", "v2")))
    assert set(via_cg2.g.edges) == set(via_cg1.g.edges)
    assert set(via_cg2.g.edges) == {
        ("x0", "v2"),
        ("x1", "v1"),
        ("v1", "y"),
        ("v2", "y"),
        ("x1", "y"),
    }

    def word(lg: LabeledGraph, u: str, v: str) -> str:
        return str(lg.label(u, v).subs(lg.references).subs(lg.references))

    c = {e: str(sin_graph.symbol(*e)) for e in sin_graph.edges()}
    c30_via_cg2 = f"{c['v1', 'y']}*{c['x1', 'v1']}"
    c30_via_cg1 = f"{c['v2', 'y']}*{c['v1', 'v2']}*{c['x1', 'v1']}"
    assert (word(via_cg2, "x1", "y"), word(via_cg1, "x1", "y")) == (c30_via_cg2, c30_via_cg1)
    assert word(via_cg2, "v1", "y") == f"{c['v2', 'y']}*{c['v1', 'v2']}"
    assert word(via_cg1, "v1", "y") == c["v1", "y"]


def test_figure_10_labels_are_equal_in_value_for_the_reports_function():
    """The report evaluates the two c₃₀ for y = x0·sin(x1)·sin(x1) as sin·cos·sin and
    x0·sin·cos. With c₃₂ = v₁ = sin x1, c₂₁ = x0 and c₁₀ = cos x1, c₃₂c₂₁c₁₀ is
    sin(x1)·x0·cos(x1): the first value is a slip, and both labels equal x0·sin·cos
    (c₃₁ = v₂ = x0·v₁ = c₃₂c₂₁ for this function). The same structure with y = v₂ + v₁
    gives labels that differ in value: cos x1 against x0·cos x1."""
    x0, x1 = sympy.symbols("x0 x1")
    v1 = sympy.sin(x1)
    c10, c21, c32, c31 = sympy.cos(x1), x0, v1, x0 * v1  # y = v2*v1, v2 = x0*v1
    assert sympy.simplify(c32 * c21 * c10 - c31 * c10) == 0
    assert sympy.simplify(c32 * c21 * c10 - v1 * c10 * v1) != 0  # the report's sin·cos·sin
    c32, c31 = 1, 1  # y = v2 + v1
    assert sympy.simplify(c32 * c21 * c10 - c31 * c10) == (x0 - 1) * sympy.cos(x1)


# -- §2.5: vector c-graphs -----------------------------------------------------------------


def test_section_2_5_vector_c_graph_costs():
    """§2.5: vertex v_j holds d_j values and edges carry dense d_j × d_i blocks. Forward
    elimination of (j, k) costs OPS_F = d_k·d_j·Σ_{i∈P_j} d_i, backward elimination of
    (i, j) d_i·d_j·Σ_{k∈S_j} d_k (the report prints S_i, a slip: the products pair
    (i, j) with j's successors), a vertex d_j·Σ_{i∈P_j} d_i·Σ_{k∈S_j} d_k. Fig. 5's
    sequence ((i, y1) forward, k, i) on the discrepancy graph with vector sizes:
    1·5·4 + 4·(2+3)·(5+1) + 5·(2+3)·(2+1+3+2) = 20 + 120 + 200 = 340."""
    g = bundled("naumann_discrepancy.json")
    d = {"a": 2, "b": 3, "k": 4, "i": 5, "y1": 1, "y2": 2, "y3": 1, "y4": 3, "y5": 2}

    def vector_graph() -> Elimination:
        return Elimination(
            g, BLOCKS, labels={(u, v): blocks.dense((d[v],), (d[u],)) for u, v in g.edges()}
        )

    state = vector_graph()
    for i, j in [("k", "i"), ("k", "y1"), ("i", "y1"), ("i", "y2")]:
        if state.role[i] == "intermediate":
            ops_f = d[j] * d[i] * sum(d[h] for h in state.pred[i])
            assert state.edge_cost(i, j, "forward") == ops_f
        if state.role[j] == "intermediate":
            ops_b = d[i] * d[j] * sum(d[k] for k in state.succ[j])
            assert state.edge_cost(i, j, "backward") == ops_b
    for v in ("k", "i"):
        assert state.vertex_cost(v) == d[v] * sum(d[h] for h in state.pred[v]) * sum(
            d[k] for k in state.succ[v]
        )
    costs = [state.apply(m) for m in [("forward", ("i", "y1")), ("vertex", "k"), ("vertex", "i")]]
    assert costs == [20, 120, 200]
    # with every d_j = 1 the vector counts are the scalar ones of Fig. 5: 1 + 4 + 8
    d = dict.fromkeys(d, 1)
    state = vector_graph()
    assert [
        state.apply(m) for m in [("forward", ("i", "y1")), ("vertex", "k"), ("vertex", "i")]
    ] == [1, 4, 8]


def test_section_2_5_tensor_graph_with_vector_vertices():
    """The same count on one of dgraph's tensor graphs: y = B·tanh(A·x) with x ∈ R³,
    A: 4×3 and B: 2×4 fixed, as NumPy code traced at the array level. Its blocks are
    structured (tanh's is diagonal), so elimination costs at most the dense formula:
    eliminating t2 = tanh(t1) (d = 4 between 4 and 2) costs 4·4·2 = 32 as dense blocks
    and 2·4 = 8 with the diagonal; t1 = A·x (d = 4 between 3 and 4) 48 and 4·3 = 12."""
    import numpy as np

    A = np.arange(1.0, 13.0).reshape(4, 3) / 10  # no zero: a zero narrows the block
    B = np.arange(1.0, 9.0).reshape(2, 4) / 10

    def f(x):
        return B @ np.tanh(A @ x)

    g = dgraph.from_function(f, sizes=[(3,)], level="array")
    assert g.is_tensor and g.edges() == [("x", "t1"), ("t1", "t2"), ("t2", "y")]
    assert [g.block(*e).type_name for e in g.edges()] == ["dense", "diagonal", "dense"]
    d = {v: math.prod(g.shape(v)) for v in g.order()}  # x 3, t1 = A·x 4, t2 = tanh 4, y 2
    state = Elimination(g, BLOCKS)
    dense = {v: d[v] * d[g.order()[k - 1]] * d[g.order()[k + 1]] for k, v in [(1, "t1"), (2, "t2")]}
    assert dense == {"t1": 48, "t2": 32}
    assert {v: state.vertex_cost(v) for v in ("t1", "t2")} == {"t1": 12, "t2": 8}
