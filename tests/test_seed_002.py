"""Seed 002, Naumann, *Matrix-Free Jacobian Chaining*: the examples of §1 and §7 and the
vertex-cut partition of §6, with the paper's own numbers. (The §1 dense chain, §3's five
configurations, §4's limited-memory table, the §5 example and the §6 case study are in
tests/test_chain.py.)"""

from __future__ import annotations

import json

import sympy
from hypothesis import given, settings

import dgraph
from dgraph.chain import (
    ChainProblem,
    cut_profile,
    homogeneous_adjoint,
    homogeneous_tangent,
    solve,
    stages,
    vertex_cuts,
)
from dgraph.cli import main
from dgraph.elimination.orders import order_cost

from .strategies import dags


def _graph(name: str, edges: list[tuple[str, str]], inputs: list[str], outputs: list[str]):
    data = {
        "format": "dgraph/1",
        "name": name,
        "inputs": inputs,
        "outputs": outputs,
        "edges": [{"source": a, "target": b} for a, b in edges],
    }
    return dgraph.from_json(json.dumps(data))


def _sparse_product_cost(a: set[tuple[int, int]], b: set[tuple[int, int]]) -> tuple[int, set]:
    """Multiplications of a sparse product A·B (one per pair A[i,k], B[k,j]) and its pattern."""
    pairs = [(i, j) for i, k in a for k2, j in b if k == k2]
    return len(pairs), set(pairs)


# §7 "Exploitation of DAG Structure": M² (2×3) · M¹ (3×3) · M⁰ (3×2), nonzeros (row, col)
M2 = {(0, 0), (1, 1), (1, 2)}
M1 = {(0, 0), (0, 1), (1, 1), (1, 2), (2, 2)}
M0 = {(0, 0), (1, 0), (2, 1)}


def _sparse_chain_graph():
    """The DAG of the §7 product: x → a (M⁰) → b (M¹) → y (M²)."""
    edges = [(f"x{j}", f"a{i}") for i, j in M0]
    edges += [(f"a{j}", f"b{i}") for i, j in M1]
    edges += [(f"b{j}", f"y{i}") for i, j in M2]
    return _graph("naumann_mfjc_sparse_chain", sorted(edges), ["x0", "x1"], ["y0", "y1"])


def test_section_7_sparse_chain_both_bracketings_9_elimination_8():
    """§7: both bracketings of the sparse chain cost 9 fma; distributivity gives 8, 'easily
    translated into a vertex elimination' — the exact vertex-elimination optimum is 8."""
    left, m21 = _sparse_product_cost(M2, M1)
    left_total = left + _sparse_product_cost(m21, M0)[0]
    right, m10 = _sparse_product_cost(M1, M0)
    right_total = right + _sparse_product_cost(M2, m10)[0]
    assert (left_total, right_total) == (9, 9)

    g = _sparse_chain_graph()
    layered = dgraph.accumulate(g, "layers")  # the bracketings of the level chain
    assert layered.verified and layered.mults == 9
    optimal = dgraph.accumulate(g, "vertex-optimal")
    assert optimal.verified and optimal.mults == 8
    # one vertex order attaining it: b2, a0, a1, b0, b1, a2 (1 + 1 + 2 + 1 + 2 + 1)
    assert order_cost(g, ["b2", "a0", "a1", "b0", "b1", "a2"]) == 8
    assert min(order_cost(g, o) for o in (g.intermediates, g.intermediates[::-1])) == 9
    # the paper's closed form: m²₀₀(m¹₀₀m⁰₀₀ + m¹₀₁m⁰₁₀), m²₁₁m¹₁₁m⁰₁₀, (m²₁₁m¹₁₂ + m²₁₂m¹₂₂)m⁰₂₁
    text = optimal.to_text()
    assert "dy1/dx1 = (d_y1_b1*d_b1_a2 + d_y1_b2*d_b2_a2)*d_a2_x1" in text
    assert "dy0/dx0 = d_y0_b0*(d_b0_a0*d_a0_x0 + d_b0_a1*d_a1_x0)" in text


def test_section_7_matrix_dag_96_then_88():
    """§7 "From Matrix Chains to Matrix DAGs": F = (F₂∘F₁, F₃∘F₁), F₁: R²→R⁴, F₂: R⁴→R,
    F₃: R⁴→R⁴, |E_i| = 16. Optimizing the two chains apart: adjoint for F₂∘F₁ (32), tangent
    for F₃∘F₁ (64), 96 in all. Sharing F′₁ = Ḟ₁·I₂: 2·16 + 1·16 + 1·4·2 + 2·16 = 88. (The
    paper prints the product term as 1·4·8, which would make 112; its dimensions are
    1×4 times 4×2, so 1·4·2 = 8, and 88 holds.)"""
    f21 = ChainProblem.from_factors([(4, 2, 16), (1, 4, 16)])
    f31 = ChainProblem.from_factors([(4, 2, 16), (4, 4, 16)])
    assert (solve(f21).cost, homogeneous_adjoint(f21)) == (32, 32)
    assert (solve(f31).cost, homogeneous_tangent(f31)) == (64, 64)
    assert solve(f21).cost + solve(f31).cost == 96 == 1 * (16 + 16) + 2 * (16 + 16)

    shared = 2 * 16  # Ḟ₁·I₂, computed once for both rows of F
    upper = 1 * 16 + 1 * 4 * 2  # (I₁·F̄₂)·F′₁
    lower = 2 * 16  # Ḟ₃·F′₁
    assert shared + upper + lower == 88
    assert 1 * 4 * 8 != 1 * 4 * 2  # the printed term is not the product's cost
    # each branch, given F′₁, by its cheaper way: adjoint + product (24) beats tangent (32);
    # tangent (32) beats preaccumulating F′₃ (64) and multiplying (32)
    assert min(16 + 4 * 2, 2 * 16) == upper and min(2 * 16, 4 * 16 + 4 * 4 * 2) == lower


def test_section_1_commutativity_diag_6_7_times_diag_7_6():
    """§1: diag(6, 7)·diag(7, 6) = diag(42, 42) takes one fma with commutativity, two
    without. dgraph's products are noncommutative (block labels): it counts 2, and only a
    commutative common-subexpression pass finds the shared product."""
    a, b = sympy.symbols("a b")
    assert sympy.diag(6, 7) * sympy.diag(7, 6) == sympy.diag(42, 42)
    g = _graph("diag_product", [("x0", "u0"), ("x1", "u1"), ("u0", "y0"), ("u1", "y1")],
               ["x0", "x1"], ["y0", "y1"])  # fmt: skip
    es = dgraph.accumulate(g, "best")
    assert es.verified and es.mults == 2
    commutative = sympy.diag(a, b) * sympy.diag(b, a)
    replaced, _ = sympy.cse([commutative[0, 0], commutative[1, 1]])
    assert len(replaced) == 1  # a·b = b·a: one product, reused
    p, q = sympy.symbols("p q", commutative=False)
    nc = sympy.Matrix([[p, 0], [0, q]]) * sympy.Matrix([[q, 0], [0, p]])
    assert nc[0, 0] != nc[1, 1]  # p·q and q·p: two products


# A composition of three subprograms with narrow interfaces: 2 values ({s, t}), then 1 (w).
COMPOSED = """inputs: a, b, c
outputs: y, z
s = a*b
t = b*c
u = s + t
v = s*t
w = sin(u)*cos(v)
p = exp(w)
q = p*p
r = sin(p)
y = q + r
z = q*r
"""


def test_section_6_partition_by_vertex_cuts():
    """§6: the DAG is cut into elemental functions at local minima of the vertex-cut size
    (the active values after each step): here at {s, t} and {w}. The plateau of 2 at
    {u, v}, {v, t1}, {t1, t2} falls to 1, so it is no minimum."""
    g = dgraph.from_trace(COMPOSED)
    assert cut_profile(g) == [3, 2, 3, 2, 2, 2, 1, 1, 2, 2, 2]
    cuts = vertex_cuts(g)
    assert cuts == [["w"], ["s", "t"]]
    st = stages(g, cuts)
    assert st.copies == 0
    assert st.cuts == [["a", "b", "c"], ["s", "t"], ["w"], ["y", "z"]]
    assert st.problem.factors == [(2, 3, 4), (1, 2, 8), (2, 1, 7)]
    assert vertex_cuts(g, parts=2) == [["w"]]
    assert vertex_cuts(g, parts=1) == []
    es = dgraph.accumulate(g, "layers", cuts=cuts)
    assert es.verified


def test_cli_chain_with_automatic_cuts(capsys, tmp_path):
    g = dgraph.from_trace(COMPOSED)
    assert vertex_cuts(g) == [["w"], ["s", "t"]]
    path = tmp_path / "composed.trace"
    path.write_text(COMPOSED)
    assert main(["chain", "--graph", str(path), "--cuts", "auto", "--methods", "none"]) == 0
    out = capsys.readouterr().out
    assert "q = 3 factors" in out and "cut 1: s, t" in out and "cut 2: w" in out


@settings(max_examples=40, deadline=None)
@given(dags())
def test_vertex_cuts_are_cuts(g):
    """On any DAG the chosen cuts are accepted by the stages and the layers method, and the
    product of the local Jacobians verifies."""
    cuts = vertex_cuts(g)
    st = stages(g, cuts)
    assert len(st.cuts) == len(cuts) + 2 and st.problem.q == len(cuts) + 1
    assert all(set(c) <= set(s) for c, s in zip(cuts, st.cuts[-2:0:-1], strict=True))
    assert dgraph.accumulate(g, "layers", cuts=cuts).verified


# STCE-at-RWTH/Jacobian-Chaining, additionals/package/test/data/{01,02}/chain.json: the
# reference implementation's test chains, factor 1 first, as (m, n, |E|) (its tangent and
# adjoint costs per evaluation equal |E|), and the costs of the operations of the schedule
# its dynamic program returns (01/dp_bnb.json and 02/dp_none.json, the versions that list costs).
STCE_01 = [(56, 168, 63834), (195, 56, 44366), (162, 195, 17957), (63, 162, 20301),
           (349, 63, 25538), (58, 349, 13803), (257, 58, 10088)]  # fmt: skip
STCE_01_DP = [2484496, 1005592, 1136856, 1430128, 772968, 3574704, 545664, 1694784]
STCE_02 = [(437, 418, 72211), (198, 437, 47016), (190, 198, 73840), (495, 190, 63985),
           (335, 495, 43578), (166, 335, 60077), (279, 166, 4225), (139, 279, 72361),
           (106, 139, 71444), (62, 106, 27090), (436, 62, 80214)]  # fmt: skip
STCE_02_DP = [4973268, 1679580, 4429528, 4486382, 261950, 3724774, 2701836, 3967070,
              4578080, 9309168, 14297778, 5131368, 11299376]  # fmt: skip


def test_reference_implementation_test_chains():
    """The reference implementation (github.com/STCE-at-RWTH/Jacobian-Chaining) ships two
    test chains (q = 7 and 11) with the schedules its DP returns for 2 and 3 threads. Its
    operation costs are dgraph's cost model (tangent n·|E|, adjoint m·|E|, product
    m·k·n): the first operations are I·F̄₁ = 56·63834, Ḟ₂·I = 56·44366 and so on. Those
    schedules minimize the makespan on several threads, so they cost more fma in total
    than the single-thread optimum dgraph finds; the repository prints no single-thread
    cost for these chains (its single-thread results, additionals/acda25, are for chains
    drawn by its C++ generator and are not listed)."""
    p1, p2 = ChainProblem.from_factors(STCE_01), ChainProblem.from_factors(STCE_02)
    m, n, e = zip(*STCE_01, strict=True)
    assert STCE_01_DP[:2] == [n[1] * e[1], n[1] * (e[2])]  # Ḟ₂·I₅₆, then Ḟ₃ on it
    assert STCE_01_DP[5] == m[0] * e[0]  # I₅₆·F̄₁
    assert STCE_01_DP[6] == m[5] * m[0] * n[0]  # F′₆..₂ · F′₁: 58·56·168
    assert STCE_01_DP[7] == n[0] * e[6]  # Ḟ₇ on the 168 columns
    m, n, e = zip(*STCE_02, strict=True)
    assert STCE_02_DP[0] == n[10] * e[10] and STCE_02_DP[1] == m[9] * e[9]
    assert STCE_02_DP[-1] == m[10] * m[9] * n[0]  # 436·62·418
    s1, s2 = solve(p1), solve(p2)
    assert (s1.cost, sum(STCE_01_DP)) == (12227196, 12645192)
    assert (s2.cost, sum(STCE_02_DP)) == (49493918, 70840158)
    assert s1.bracketing() == "Ḟ₇·((Ḟ₆·Ḟ₅·Ḟ₄·Ḟ₃·Ḟ₂·I₅₆)·F̄₁)"


def test_figure_1_one_adjoint_gives_the_gradient_two_tangents_needed():
    """Fig. 1: v3 = v1·v2, v4 = sin(v3), a factor R² → R with |E| = 3. One adjoint sweep
    gives both gradient entries (3 fma), two tangent sweeps are needed (6): as a chain of
    one factor the optimum is the adjoint, I₁·F̄₁."""
    g = dgraph.from_trace("inputs: z1, z2\noutputs: y\nv3 = z1*z2\ny = sin(v3)")
    st = stages(g, [])
    assert st.problem.factors == [(1, 2, 3)]
    s = solve(st.problem)
    assert (s.cost, homogeneous_tangent(st.problem), s.bracketing()) == (3, 6, "I₁·F̄₁")
