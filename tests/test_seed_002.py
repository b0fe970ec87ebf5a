"""Seed 002, Naumann, *Matrix-Free Jacobian Chaining*: the examples of §1 and §7 and the
vertex-cut partition of §6, with the paper's own numbers. (The §1 dense chain, §3's five
configurations, §4's limited-memory table, the §5 example and the §6 case study are in
tests/test_chain.py.)"""

from __future__ import annotations

import json

import pytest
import sympy
from hypothesis import given, settings

import dgraph
from dgraph.chain import (
    ChainProblem,
    cut_profile,
    homogeneous_adjoint,
    homogeneous_tangent,
    preaccumulation,
    solve,
    stages,
    vertex_cuts,
)
from dgraph.cli import main
from dgraph.elimination.orders import order_cost
from dgraph.errors import DGraphError

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
    with pytest.raises(DGraphError, match="parts must be at least 1"):
        vertex_cuts(g, parts=0)
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
    assert main(["accumulate", str(path), "-m", "layers", "--cuts", "auto"]) == 0
    assert "verified" in capsys.readouterr().out


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


# §5, Table 1: len, homogeneous tangent, homogeneous adjoint, optimal preaccumulation,
# optimum, and the rounded ratio of the best homogeneous method to the optimum.
TABLE_1 = [
    (10, 3_708, 5_562, 2_618, 1_344, 2),
    (50, 1_283_868, 1_355_194, 1_687_575, 71_668, 18),
    (100, 3_677_565, 44_866_293, 40_880_996, 1_471_636, 2),
    (250, 585_023_794, 1_496_126_424, 1_196_618_622, 9_600_070, 61),
    (500, 21_306_718_862, 19_518_742_454, 18_207_565_409, 149_147_898, 122),
]


def test_table_1_random_instances():
    """§5, Table 1: the five random test problems of the paper, whose specifications the
    paper leaves to its repository (github.com/un110076/ADMission, GDJCPB/ex_sec_4,
    transcribed below as numbers). Every cost of every row is reproduced, and the last
    column is the rounded ratio min(tangent, adjoint, preaccumulation) / optimum."""
    for q, tangent, adjoint, preacc, optimum, ratio in TABLE_1:
        numbers = [int(w) for w in TABLE_1_CHAINS[q].split()]
        p = ChainProblem.from_factors(zip(*[iter(numbers)] * 3, strict=True))
        assert p.q == q
        assert (homogeneous_tangent(p), homogeneous_adjoint(p)) == (tangent, adjoint)
        assert int(preaccumulation(p).fma[0, -1]) == preacc
        assert solve(p).cost == optimum
        assert round(min(tangent, adjoint, preacc) / optimum) == ratio


# un110076/ADMission, GDJCPB/ex_sec_4/p_{q}_{q}.1: the paper's Table 1 chains, one
# 'm n |E|' triple per factor, factor 1 first (flattened).
TABLE_1_CHAINS = {
    10: ("2 6 19 3 2 18 7 3 62 10 7 156 2 10 73 2 2 14 9 2 30 3 9 132 2 3 12 9 2 102 "),
    50: (
        "39 18 903 12 39 1156 1 12 109 21 1 55 39 21 2401 24 39 270 13 24 843 46 13 614 35 46 "
        "5495 15 35 1814 3 15 277 26 3 406 49 26 4487 29 49 4100 33 29 1850 26 33 649 23 26 1444 "
        "23 23 1461 27 23 2095 22 27 316 13 22 312 5 13 76 27 5 872 9 27 1145 42 9 929 27 42 3183 "
        "45 27 1099 7 45 1648 39 7 1199 34 39 4342 18 34 468 40 18 2164 9 40 463 20 9 707 16 20 "
        "1190 8 16 107 24 8 609 49 24 2158 3 49 1180 6 3 62 12 6 154 34 12 1411 29 34 3458 35 29 "
        "3625 31 35 2609 42 31 1339 36 42 1807 18 36 1058 39 18 665 19 39 542 "
    ),
    100: (
        "43 5 1580 61 43 9347 17 61 1140 96 17 7137 81 96 14268 38 81 7641 64 38 5503 54 64 2794 "
        "70 54 15333 9 70 2403 19 9 133 92 19 5312 33 92 13163 99 33 3049 98 99 29980 65 98 19541 "
        "44 65 9387 19 44 2539 10 19 460 84 10 8780 13 84 4274 68 13 5139 16 68 1604 12 16 569 35 "
        "12 1464 30 35 2767 39 30 2148 76 39 11442 38 76 11396 61 38 5661 58 61 12220 73 58 15820 "
        "46 73 13945 68 46 9304 43 68 9024 87 43 2001 86 87 23221 96 86 14660 63 96 19461 3 63 "
        "3111 84 3 7484 85 84 2206 34 85 8624 53 34 6899 57 53 4595 71 57 9875 83 71 2549 93 83 "
        "27590 84 93 22181 43 84 12045 73 43 12800 38 73 8525 19 38 2973 95 19 5221 55 95 3978 87 "
        "55 1139 49 87 5599 25 49 4911 23 25 1004 38 23 3097 94 38 287 94 94 27893 61 94 7822 79 "
        "61 8361 64 79 7828 60 64 5105 79 60 8746 2 79 4317 24 2 138 52 24 1168 3 52 219 62 3 "
        "3342 37 62 6944 11 37 1897 88 11 956 87 88 23690 76 87 15804 94 76 13002 88 94 9331 7 88 "
        "3333 4 7 71 52 4 1544 65 52 10376 10 65 216 61 10 4823 89 61 14885 13 89 7890 56 13 397 "
        "9 56 2112 31 9 473 54 31 1507 20 54 2811 56 20 2929 24 56 3637 58 24 3847 23 58 6037 98 "
        "23 10045 65 98 17776 45 65 6332 61 45 5606 "
    ),
    250: (
        "186 61 6376 102 186 39293 221 102 23935 141 221 127386 189 141 90101 112 189 53864 49 "
        "112 12780 74 49 5731 74 74 1194 6 74 2521 201 6 10514 112 201 62188 244 112 106465 249 "
        "244 171248 21 249 5254 118 21 13072 142 118 37212 136 142 1808 18 136 2815 108 18 5485 "
        "230 108 24139 187 230 71091 28 187 23776 142 28 12912 38 142 5674 14 38 1994 99 14 1505 "
        "108 99 37108 191 108 22989 231 191 81429 27 231 32067 172 27 21116 73 172 29144 159 73 "
        "24805 51 159 5821 220 51 68010 11 220 50804 151 11 3169 234 151 93349 11 234 46036 167 "
        "11 20770 146 167 32930 119 146 23306 76 119 15527 141 76 15022 196 141 18646 172 196 "
        "118880 164 172 49524 118 164 29461 163 118 66682 191 163 124245 239 191 143613 3 239 "
        "9446 109 3 899 194 109 88386 122 194 27569 106 122 29007 82 106 10229 98 82 27775 239 98 "
        "89156 42 239 12205 12 42 1081 124 12 291 159 124 32805 225 159 111998 120 225 30589 228 "
        "120 49550 214 228 161978 49 214 39908 141 49 33882 206 141 24635 245 206 190185 22 245 "
        "48399 15 22 137 220 15 41526 183 220 112753 28 183 40968 186 28 7069 179 186 117611 93 "
        "179 34126 19 93 5549 226 19 51060 28 226 43155 68 28 3620 41 68 5228 82 41 14684 235 82 "
        "1888 174 235 55707 24 174 30693 113 24 5406 208 113 9788 237 208 174686 112 237 121678 "
        "74 112 30131 212 74 67308 28 212 15405 120 28 5055 174 120 38277 166 174 41354 126 166 "
        "65884 105 126 7050 57 105 20681 43 57 9055 12 43 1239 187 12 36725 200 187 60229 119 200 "
        "50120 238 119 55478 239 238 76010 25 239 43432 46 25 670 69 46 6250 126 69 17276 161 126 "
        "27300 45 161 19291 114 45 22346 26 114 3935 151 26 14739 150 151 81345 234 150 2343 217 "
        "234 182767 197 217 113049 20 197 13526 13 20 216 35 13 1226 34 35 4552 114 34 8732 121 "
        "114 45093 242 121 98690 249 242 49085 89 249 31653 92 89 2424 30 92 9878 190 30 29220 93 "
        "190 14849 167 93 59054 135 167 67162 86 135 44594 109 86 21598 185 109 69722 184 185 "
        "5695 65 184 49268 71 65 17535 118 71 8371 110 118 26764 30 110 15532 190 30 23067 215 "
        "190 107024 69 215 78796 85 69 19461 137 85 9729 213 137 92698 1 213 797 8 1 77 137 8 "
        "7192 158 137 53410 175 158 23572 232 175 129493 143 232 92574 52 143 29864 58 52 1886 79 "
        "58 14858 246 79 25049 26 246 40144 64 26 4386 215 64 7708 201 215 166381 17 201 45453 "
        "182 17 16798 80 182 30620 62 80 5851 5 62 2444 215 5 15523 113 215 61046 5 113 7796 241 "
        "5 15082 25 241 37263 39 25 412 233 39 73420 71 233 53153 190 71 43792 33 190 26505 85 33 "
        "10359 198 85 15720 20 198 30364 20 20 883 49 20 2574 36 49 4432 134 36 17456 230 134 "
        "84377 247 230 193387 154 247 123073 134 154 31032 47 134 32695 103 47 20595 178 103 "
        "25453 5 178 19083 37 5 561 83 37 582 47 83 15342 246 47 75355 84 246 74106 94 84 22565 "
        "44 94 430 210 44 45325 204 210 66986 126 204 79306 104 126 2800 91 104 31764 50 91 7014 "
        "127 50 9261 3 127 15761 178 3 2214 197 178 63476 119 197 89507 4 119 14344 59 4 1579 127 "
        "59 4565 236 127 78883 178 236 120051 79 178 16400 208 79 66426 51 208 46890 55 51 11196 "
        "89 55 16623 27 89 7951 232 27 48857 208 232 109749 131 208 36131 200 131 24035 101 200 "
        "85752 17 101 8841 155 17 24010 124 155 27298 164 124 51555 63 164 1709 174 63 33376 155 "
        "174 60491 14 155 8730 236 14 56111 207 236 31049 3 207 27434 163 3 3068 227 163 28604 "
        "159 227 26104 127 159 63925 130 127 33164 54 130 22996 71 54 8487 156 71 5734 "
    ),
    500: (
        "151 286 64163 446 151 312515 278 446 437576 313 278 205272 301 313 213969 96 301 36378 "
        "225 96 28028 116 225 41474 347 116 76581 285 347 135924 424 285 114276 181 424 271384 "
        "261 181 146001 299 261 26895 473 299 185752 474 473 491782 489 474 245621 240 489 318974 "
        "206 240 167500 195 206 69884 219 195 38424 40 219 28377 470 40 230263 79 470 19282 193 "
        "79 40377 119 193 81884 364 119 86202 66 364 150886 283 66 119784 118 283 5699 66 118 "
        "33578 294 66 51266 490 294 210561 497 490 127437 82 497 210337 402 82 182745 168 402 "
        "170511 50 168 8331 306 50 38100 245 306 175186 443 245 172296 279 443 416399 316 279 "
        "180894 396 316 241286 475 396 671181 93 475 43715 359 93 132422 33 359 59323 325 33 "
        "60920 414 325 176029 59 414 70255 422 59 166597 66 422 205762 405 66 113039 374 405 "
        "212223 48 374 67658 191 48 39244 348 191 126846 28 348 41765 234 28 39184 69 234 84529 "
        "38 69 1571 340 38 16027 314 340 158842 436 314 513657 141 436 167116 140 141 42822 65 "
        "140 16114 252 65 68404 134 252 129591 5 134 19297 159 5 18596 106 159 19025 451 106 "
        "246225 469 451 830463 494 469 247848 439 494 401554 170 439 1481 297 170 31821 152 297 "
        "37222 162 152 63981 263 162 160297 400 263 273616 239 400 142782 182 239 30283 99 182 "
        "12813 25 99 1546 122 25 13287 438 122 127261 241 438 233238 458 241 282781 8 458 90307 "
        "42 8 1061 221 42 57731 323 221 232453 155 323 145738 493 155 261761 85 493 292016 368 85 "
        "198626 39 368 26147 432 39 131333 257 432 391613 316 257 182657 8 316 9557 455 8 129981 "
        "47 455 66116 248 47 49129 75 248 72173 188 75 21378 490 188 172002 250 490 40900 499 250 "
        "198110 275 499 166220 95 275 80965 360 95 162361 473 360 396394 412 473 527791 304 412 "
        "370003 206 304 242905 319 206 169690 384 319 313098 437 384 269165 206 437 113997 479 "
        "206 430946 368 479 435610 125 368 80219 485 125 356893 2 485 165842 332 2 10964 120 332 "
        "29171 375 120 98650 182 375 251784 305 182 220210 132 305 101005 235 132 48089 33 235 "
        "2525 129 33 1794 434 129 315745 375 434 223876 485 375 711660 24 485 124892 344 24 "
        "108651 340 344 115257 106 340 56827 233 106 88575 22 233 60466 443 22 188957 389 443 "
        "608519 49 389 83009 46 49 1526 277 46 7394 329 277 61481 242 329 49712 295 242 136623 "
        "172 295 190369 412 172 50062 153 412 23962 26 153 2532 232 26 39114 414 232 263282 465 "
        "414 483069 354 465 559226 416 354 4091 128 416 168043 13 128 16443 146 13 17379 96 146 "
        "44208 375 96 161890 125 375 186888 216 125 7817 394 216 266039 35 394 33821 190 35 23736 "
        "118 190 71095 261 118 39330 203 261 108183 64 203 39484 168 64 42105 342 168 163333 68 "
        "342 29772 424 68 124738 338 424 533311 415 338 250071 88 415 118176 409 88 147408 387 "
        "409 449524 466 387 101279 380 466 282928 439 380 124121 430 439 409979 334 430 284922 "
        "361 334 371319 334 361 102522 480 334 623149 155 480 380262 440 155 328722 218 440 "
        "316940 7 218 7151 406 7 147204 206 406 264061 84 206 47167 79 84 11987 318 79 5788 159 "
        "318 195105 379 159 233189 71 379 123337 296 71 47897 16 296 80508 268 16 17500 9 268 "
        "18634 249 9 26874 156 249 66669 126 156 16553 477 126 246552 366 477 215928 49 366 20298 "
        "43 49 7832 264 43 46911 335 264 267868 14 335 117957 230 14 1937 493 230 177633 366 493 "
        "57714 101 366 89072 168 101 14786 192 168 11776 289 192 228609 86 289 42957 301 86 80670 "
        "125 301 66311 44 125 16370 78 44 437 317 78 153802 116 317 103745 142 116 37430 471 142 "
        "234225 200 471 213388 61 200 24220 495 61 308024 445 495 760020 69 445 151659 340 69 "
        "48098 398 340 140598 238 398 100977 243 238 4136 46 243 48914 208 46 16819 169 208 "
        "114649 169 169 100573 26 169 30356 260 26 61657 496 260 265683 105 496 231174 47 105 "
        "18797 31 47 5119 34 31 417 64 34 6320 289 64 16598 152 289 168818 471 152 237903 440 471 "
        "779524 363 440 390100 498 363 11917 475 498 482873 185 475 153281 50 185 53811 213 50 "
        "11948 51 213 24819 323 51 7137 395 323 319232 258 395 248323 86 258 23942 204 86 6525 "
        "219 204 146546 376 219 207482 55 376 49796 351 55 119977 325 351 149030 10 325 18877 81 "
        "10 2274 154 81 30001 282 154 117379 212 282 102458 38 212 3172 453 38 115884 140 453 "
        "64104 265 140 19592 410 265 303847 162 410 43134 102 162 46947 491 102 157304 194 491 "
        "274599 412 194 166541 154 412 248294 84 154 5479 386 84 190372 19 386 42181 494 19 2368 "
        "353 494 177404 439 353 276286 21 439 186947 150 21 14807 60 150 24272 492 60 188996 184 "
        "492 157176 18 184 34349 336 18 95589 56 336 76012 317 56 74585 357 317 384772 425 357 "
        "345536 390 425 211577 227 390 330311 379 227 187837 255 379 28269 174 255 50798 128 174 "
        "13775 51 128 20483 491 51 161254 412 491 749635 295 412 311747 213 295 134664 257 213 "
        "207173 11 257 66555 491 11 115214 150 491 262760 122 150 5550 256 122 97725 345 256 "
        "262269 175 345 96338 32 175 31887 157 32 20004 250 157 87304 409 250 93161 14 409 70860 "
        "375 14 38772 55 375 132839 179 55 38957 289 179 123252 188 289 22410 270 188 159376 338 "
        "270 189180 207 338 284914 431 207 155566 6 431 11067 307 6 84504 270 307 150223 15 270 "
        "6539 369 15 99785 419 369 244605 111 419 253092 58 111 22037 415 58 67416 48 415 83576 "
        "68 48 7091 443 68 161142 497 443 363670 62 497 127836 145 62 30350 131 145 29492 238 131 "
        "90806 70 238 24610 241 70 22779 438 241 319199 348 438 280807 300 348 5615 64 300 90302 "
        "351 64 67289 378 351 74944 39 378 110324 48 39 3694 296 48 84791 320 296 53282 137 320 "
        "200455 219 137 118696 318 219 264078 407 318 392869 274 407 405672 252 274 230924 266 "
        "252 228157 403 266 399360 35 403 38591 497 35 149518 459 497 693919 409 459 363103 110 "
        "409 18962 437 110 289380 66 437 1206 398 66 166851 435 398 488092 70 435 133156 51 70 "
        "5080 221 51 14131 75 221 32357 402 75 23968 456 402 48414 410 456 2310 200 410 180405 "
        "142 200 94585 83 142 43720 459 83 168613 306 459 529061 346 306 148677 440 346 121329 42 "
        "440 162189 425 42 162102 458 425 1387 446 458 696030 19 446 199472 423 19 5438 409 423 "
        "38753 413 409 497509 127 413 227454 350 127 32700 111 350 110011 410 111 101662 488 410 "
        "541312 397 488 325256 35 397 39311 154 35 21741 120 154 50531 453 120 138403 371 453 "
        "649870 135 371 45764 379 135 97195 140 379 151903 477 140 264617 421 477 540239 207 421 "
        "190310 57 207 9023 124 57 26023 322 124 167751 311 322 142303 368 311 450517 46 368 "
        "155698 40 46 6026 93 40 15241 47 93 17646 310 47 21759 81 310 859 329 81 118044 407 329 "
        "403420 274 407 11725 408 274 413442 103 408 168202 139 103 36871 181 139 42439 321 181 "
        "216580 342 321 14396 414 342 478028 126 414 216783 272 126 116602 242 272 115032 73 242 "
        "18076 498 73 126746 254 498 181022 58 254 29580 256 58 89142 139 256 32669 125 139 49484 "
        "496 125 32821 242 496 174619 343 242 60364 239 343 29117 69 239 45484 234 69 88557 498 "
        "234 193202 489 498 449320 235 489 302902 32 235 13186 113 32 18295 157 113 60881 365 157 "
        "210427 273 365 200608 339 273 246903 51 339 150946 472 51 138633 200 472 261576 339 200 "
        "239867 61 339 62382 16 61 2251 9 16 316 343 9 10238 462 343 65800 395 462 113314 72 395 "
        "120334 267 72 70413 90 267 29530 399 90 98218 16 399 80599 394 16 20511 333 394 208587 "
        "400 333 374689 369 400 396401 194 369 61608 304 194 82214 344 304 321228 8 344 103894 "
        "480 8 231267 262 480 437942 "
    ),
}
