"""Matrix-free Jacobian chaining (seed 002, DOMAIN.md §7): the paper's numbers, brute-force
agreement with and without a tape bound, numerical checks of the bracketings, the
ADMission format, the graph bridge and the ``dgraph chain`` command."""

from __future__ import annotations

import json
from functools import reduce

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dgraph.chain import (
    ChainProblem,
    ChainSolution,
    brute_force,
    bundled_problem,
    homogeneous_adjoint,
    homogeneous_tangent,
    notation,
    parse_problem,
    preaccumulation,
    preaccumulation_parts,
    random_problem,
    read_problem,
    reference_solve,
    solutions,
    solve,
    stages,
)
from dgraph.chain.bruteforce import count_solutions, evaluate
from dgraph.chain.notation import Node, tree_text
from dgraph.cli import main
from dgraph.errors import DGraphError, SearchTooLarge
from dgraph.frontends import bundled
from dgraph.frontends.random_graphs import random_layered
from dgraph.methods import compare_with_elimination

FACTORS_S5 = [(3, 3, 29), (1, 3, 14), (2, 1, 7)]  # §5: generate.exe 3 3 0 40
FACTORS_S4 = [(4, 8, 32), (2, 4, 16), (1, 2, 8)]  # §4: R^8 -> R^4 -> R^2 -> R
FACTORS_S6 = [  # §6: the OpenFOAM tunnel-flow partitioning
    (1531, 1531, 78172),
    (967, 1531, 24346),
    (1011, 967, 21090),
    (751, 1011, 75280),
    (1151, 751, 75980),
    (1531, 1151, 10020),
]


def chain(factors) -> ChainProblem:
    return ChainProblem.from_factors(factors)


# -- strategies ---------------------------------------------------------------------------


@st.composite
def problems(draw, max_q=5, max_size=6, max_edges=40):
    q = draw(st.integers(1, max_q))
    sizes = draw(st.lists(st.integers(1, max_size), min_size=q + 1, max_size=q + 1))
    edges = draw(st.lists(st.integers(0, max_edges), min_size=q, max_size=q))
    return ChainProblem.from_factors((sizes[i + 1], sizes[i], edges[i]) for i in range(q))


@st.composite
def bounded(draw, **kwargs):
    p = draw(problems(**kwargs))
    memory = draw(st.one_of(st.none(), st.integers(0, p.total_edges + 1)))
    return p, memory


# -- the paper's numbers ------------------------------------------------------------------


def test_dense_chain_of_four_costs_349():
    # F4 in R^{4x1}, F3 in R^{1x4}, F2 in R^{4x5}, F1 in R^{5x3} with fma_ii = 21, 5, 192, 84
    p = chain([(5, 3, 28), (4, 5, 48), (1, 4, 5), (4, 1, 21)])
    pre = preaccumulation(p)
    assert [int(pre.fma[i, i]) for i in range(4)] == [84, 192, 5, 21]
    assert pre.cost == 349 and preaccumulation_parts(pre) == (302, 47)
    assert pre.bracketing() == "F′₄·((F′₃·F′₂)·F′₁)"
    assert solve(p).cost <= 349


def test_three_factor_example_of_section_5():
    p = chain(FACTORS_S5)
    s = solve(p)
    assert (s.cost, homogeneous_tangent(p), homogeneous_adjoint(p)) == (56, 150, 100)
    pre = preaccumulation(p)
    assert preaccumulation_parts(pre) == (108, 15) and pre.cost == 123
    assert pre.bracketing() == "F′₃·(F′₂·F′₁)"
    # the reference's "Dynamic Programming Table" (cost, split and operation per subchain)
    rows = [(r["j"], r["i"], r["code"], r["split"] or 0, r["fma"]) for r in s.rows()]
    assert rows == [
        (1, 1, "GxM", 0, 87),
        (2, 2, "MxG", 0, 14),
        (2, 1, "MxG", 1, 43),
        (3, 3, "GxM", 0, 7),
        (3, 2, "MxM", 2, 27),
        (3, 1, "MxM", 2, 56),
    ]
    assert s.bracketing() == "(Ḟ₃·I₁)·(I₁·F̄₂·F̄₁)"  # the paper: (Ḟ3·I1)·((I1·F̄2)·F̄1)
    assert s.bracketing(latex=True).startswith(r"(\dot{F}_{3} \cdot I_{1})")
    # the adjoint sweep over F1 records |E1| = 29; the reference adds F2's 14 (its "M=43")
    assert s.tape_used == 29
    assert (reference_solve(p).cost, reference_solve(p).tape_used) == (56, 43)


def test_section_5_bounds():
    p = chain(FACTORS_S5)
    assert (reference_solve(p, 50).cost, reference_solve(p, 50).tape_used) == (56, 43)
    assert (reference_solve(p, 42).cost, reference_solve(p, 42).tape_used) == (123, 14)
    assert (reference_solve(p, 13).cost, reference_solve(p, 13).tape_used) == (142, 0)
    assert (solve(p, 42).cost, solve(p, 42).tape_used) == (56, 29)  # recurrence: 29 <= 42
    assert (solve(p, 28).cost, solve(p, 28).tape_used) == (123, 14)
    assert (solve(p, 13).cost, solve(p, 13).tape_used) == (142, 0)


# (n1, m1 = n2, m2), |E1| = |E2| = 100: the eight costs the paper lists, and the optimum
TWO_FACTORS = [
    ((2, 4, 8), [400, 600, 1600, 1200, 864, 1264, 1064, 664], 400, "Ḟ₂·Ḟ₁·I₂"),
    ((4, 2, 32), [800, 600, 6400, 3400, 656, 3656, 3856, 856], 600, "Ḟ₂·(I₂·F̄₁)"),
    ((8, 4, 2), [1600, 1200, 400, 600, 864, 664, 1064, 1264], 400, "I₂·F̄₂·F̄₁"),
    ((32, 2, 4), [6400, 3400, 800, 600, 656, 856, 3856, 3656], 600, "(Ḟ₂·I₂)·F̄₁"),
    ((4, 2, 4), [800, 600, 800, 600, 432, 632, 832, 632], 432, "(Ḟ₂·I₂)·(I₂·F̄₁)"),
]


@pytest.mark.parametrize(("shape", "listed", "optimum", "written"), TWO_FACTORS)
def test_two_factor_configurations_of_section_3(shape, listed, optimum, written):
    n1, m1, m2 = shape
    p = chain([(m1, n1, 100), (m2, m1, 100)])
    assert sorted(s.fma for s in solutions(p)) == sorted(listed)
    assert solve(p).cost == optimum and solve(p).bracketing() == written


def test_case_study_of_section_6():
    p = chain(FACTORS_S6)
    s = solve(p)
    assert s.cost == 279185368
    assert s.bracketing() == "Ḟ₆·((Ḟ₅·(I₇₅₁·F̄₄·F̄₃))·F̄₂·F̄₁)"  # the paper's F5,0, 0-based
    assert homogeneous_tangent(p) == homogeneous_adjoint(p) == 436163528
    assert preaccumulation_parts(preaccumulation(p)) == (288747224, 6690070967)
    printed = {284888: (279185368, 198888), 198887: (370959408, 102518), 102517: (436163528, 0)}
    for bound, expected in printed.items():
        r = reference_solve(p, bound)
        assert (r.cost, r.tape_used) == expected
        # the recurrence only needs the largest single sweep (|E1| = 78172) to fit
        assert (solve(p, bound).cost, solve(p, bound).tape_used) == (279185368, 78172)
    assert solve(p, 78171).cost == 436163528


# bound: (recurrence cost, its tape), (paper's table = reference accounting), cumulative optimum
LIMITED_MEMORY = {
    56: ((56, 32), (56, 56, "I₁·F̄₃·F̄₂·F̄₁"), 56),
    55: ((56, 32), (120, 48, "(I₁·F̄₃)·(I₂·F̄₂·F̄₁)"), 64),
    47: ((56, 32), (184, 32, "(I₁·F̄₃·F̄₂)·(I₄·F̄₁)"), 112),
    31: ((312, 16), (312, 24, "(I₁·F̄₃·F̄₂)·(Ḟ₁·I₈)"), 312),
    23: ((312, 16), (336, 16, "((I₁·F̄₃)·(I₂·F̄₂))·(Ḟ₁·I₈)"), 320),
    15: ((368, 8), (368, 8, "((I₁·F̄₃)·(Ḟ₂·I₄))·(Ḟ₁·I₈)"), 368),
    7: ((376, 0), (376, 0, "((Ḟ₃·I₂)·(Ḟ₂·I₄))·(Ḟ₁·I₈)"), 376),
}


@pytest.mark.parametrize("bound", list(LIMITED_MEMORY))
def test_limited_memory_table_of_section_4(bound):
    p = chain(FACTORS_S4)
    ours, paper, cumulative = LIMITED_MEMORY[bound]
    s = solve(p, bound)
    assert (s.cost, s.tape_used) == ours
    best = brute_force(p, bound)
    assert (best.fma, best.tape) == ours
    r = reference_solve(p, bound)
    assert (r.cost, r.tape_used, r.bracketing()) == paper
    assert brute_force(p, bound, "cumulative").fma == cumulative


# -- brute force agreement ------------------------------------------------------------------


def _check_against_brute_force(p: ChainProblem, memory: int | None) -> None:
    s = solve(p, memory)
    best = brute_force(p, memory)
    assert (s.cost, s.tape_used) == (best.fma, best.tape)
    again = evaluate(s.tree(), p)  # the DP's tree, recounted from the shapes
    assert (again.fma, again.tape) == (s.cost, s.tape_used)
    if memory is not None:
        assert s.tape_used <= memory
    r = reference_solve(p, memory)
    recount = evaluate(r.tree(), p, "cumulative")
    assert (recount.fma, recount.tape) == (r.cost, r.tape_used)
    assert r.cost >= brute_force(p, memory, "cumulative").fma >= s.cost


def test_brute_force_agrees_on_hundreds_of_random_chains():
    for seed in range(125):
        p = random_problem(1 + seed % 5, 6, seed=seed)
        edges = sorted(p.edges)
        for memory in (None, edges[len(edges) // 2], edges[0] - 1):
            _check_against_brute_force(p, memory)


@given(bounded())
def test_brute_force_agrees_on_drawn_chains(case):
    _check_against_brute_force(*case)


def test_large_numbers_use_exact_integers():
    p = chain(
        [(10**7, 3 * 10**7, 10**13), (2 * 10**7, 10**7, 5 * 10**12), (4 * 10**7, 2 * 10**7, 10**14)]
    )
    s = solve(p)
    assert s.fma.dtype == object
    best = brute_force(p)
    assert (s.cost, s.tape_used) == (best.fma, best.tape) and s.cost > 2**63


def test_solution_counts():
    assert [count_solutions(q) for q in range(1, 5)] == [2, 8, 52, 396]
    p = random_problem(4, 5, seed=3)
    assert sum(1 for _ in solutions(p)) == 396
    with pytest.raises(SearchTooLarge, match="q <= 7"):
        brute_force(random_problem(8, 3, seed=0))


# -- properties ---------------------------------------------------------------------------


@given(bounded(max_q=8, max_size=20, max_edges=400))
def test_a_bound_matters_only_through_the_factors_that_fit(case):
    p, memory = case
    if memory is None:
        return
    fitting = max((e for e in p.edges if e <= memory), default=0)
    assert solve(p, memory).cost == solve(p, fitting).cost
    assert solve(p, memory).cost >= solve(p).cost
    assert solve(p, memory).cost <= preaccumulation(p, memory).cost
    assert solve(p, memory).cost <= homogeneous_tangent(p)


@given(problems(max_q=8, max_size=20, max_edges=400))
def test_reversed_chain_swaps_tangents_and_adjoints(p):
    transposed = ChainProblem.from_factors((n, m, e) for m, n, e in reversed(p.factors))
    s, t = solve(p), solve(transposed)
    assert s.cost == t.cost
    assert homogeneous_tangent(p) == homogeneous_adjoint(transposed)
    assert s.cost <= min(homogeneous_tangent(p), homogeneous_adjoint(p), preaccumulation(p).cost)


def _apply(node: Node, jac: list[np.ndarray]) -> np.ndarray:
    """Evaluate a solution with dense Jacobians: runs of tangents and adjoints as the
    Jacobian-matrix and matrix-Jacobian products they stand for."""

    def run(top: int, bottom: int) -> np.ndarray:
        return reduce(np.matmul, [jac[v - 1] for v in range(top, bottom - 1, -1)])

    if node.is_leaf:
        j = jac[node.i - 1]
        seed = np.eye(j.shape[1] if node.op == "tangent" else j.shape[0])
        return j @ seed if node.op == "tangent" else seed @ j
    k = node.split
    if node.op == "product":
        return _apply(node.children[0], jac) @ _apply(node.children[1], jac)
    if node.op == "tangent":
        return run(node.j, k + 1) @ _apply(node.children[0], jac)
    return _apply(node.children[0], jac) @ run(k, node.i)


@given(bounded(max_q=7, max_size=5), st.integers(0, 2**32 - 1))
def test_bracketings_compute_the_jacobian(case, seed):
    p, memory = case
    rng = np.random.default_rng(seed)
    jac = [rng.standard_normal((m, n)) for m, n, _ in p.factors]
    expected = reduce(np.matmul, reversed(jac))
    for s in (solve(p, memory), reference_solve(p, memory), preaccumulation(p, memory)):
        np.testing.assert_allclose(_apply(s.tree(), jac), expected, rtol=1e-9, atol=1e-9)


def test_deep_trees_need_no_recursion():
    # a table whose optimum adjoins one factor at a time: F'_{q,1} nests q deep
    q = 1500
    p = chain([(1, 1, 1)] * q)
    rows = np.arange(q)
    op = np.full((q, q), 1, dtype=np.int8)
    split = np.zeros((q, q), dtype=np.int64)
    split[rows, q - 1] = rows
    fma = np.zeros((q, q), dtype=np.int64)
    fma[rows, q - 1] = q - rows
    table = ChainSolution(p, None, True, fma, fma.copy(), op, split)
    tree = table.tree()
    assert len(tree.walk()) == q and tree.children[0].j == q and tree.children[0].i == 2
    assert len(json.loads(json.dumps(tree.operations()))) == q
    assert notation(tree, p).count("F̄") == q and len(tree_text(tree, p).splitlines()) == q


def test_tree_and_text():
    p = chain(FACTORS_S5)
    tree = solve(p).tree()
    ops = tree.operations()
    assert [(o["subchain"], o["code"], o["split"], o["own_fma"], o["fma"]) for o in ops] == [
        ([3, 3], "GxM", None, 7, 7),
        ([2, 2], "MxG", None, 14, 14),
        ([2, 1], "MxG", 1, 29, 43),
        ([3, 1], "MxM", 2, 6, 56),
    ]
    assert ops[-1]["children"] == [[3, 3], [2, 1]] and ops[2]["children"] == [[2, 2]]
    text = tree_text(tree, p).splitlines()
    assert text[0] == "F′(3,1) = F′(3,3)·F′(2,1)  [MxM(2)]  fma 56 (own 6), tape 29"
    assert text[2] == "  F′(2,1) = F′(2,2)·F̄₁  [MxG(1)]  fma 43 (own 29), tape 29"
    assert notation(tree, p, seeds=False) == "F′₃·(F′₂·F̄₁)"  # leaves as Jacobians


# -- the ADMission format and the generator -----------------------------------------------


def test_format_round_trip_and_comments(tmp_path):
    p = chain(FACTORS_S5)
    assert parse_problem(p.to_text()) == chain(FACTORS_S5)
    path = tmp_path / "p.txt"
    path.write_text("# the §5 example\n3\n\n3 3 29   # F1\n1 3 14\n2 1 7\n")
    assert read_problem(path).factors == FACTORS_S5 and read_problem(path).name == "p"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "line 1: empty file"),
        ("0\n", "line 1: the chain is empty"),
        ("three\n", "line 1: expected the number of factors q"),
        ("2\n3 3 29\n1 x 14\n", "line 3: expected 'm n |E|' as integers, got '1 x 14'"),
        ("2\n3 3 29\n1 3\n", "line 3: expected 'm n |E|'"),
        (
            "3\n3 3 29\n1 2 14\n2 1 7\n",
            "line 3: factor 2 takes n = 2 inputs but factor 1 gives m = 3",
        ),
        ("2\n3 3 29\n1 3 14\n2 1 7\n", "line 4: more than q = 2 factors"),
        ("3\n3 3 29\n1 3 14\n", "line 3: q = 3 factors announced, 2 given"),
        ("1\n0 3 29\n", "line 2: factor 1: sizes m = 0, n = 3 must be positive"),
        ("1\n3 3 -1\n", "line 2: factor 1: the edge count |E| = -1 must not be negative"),
    ],
)
def test_bad_problem_files_name_the_line(text, message):
    with pytest.raises(DGraphError, match="^bad.txt: " + message.replace("|", r"\|")):
        parse_problem(text, "bad.txt")


@given(problems(max_q=10, max_size=50, max_edges=10**6))
def test_text_round_trip(p):
    assert parse_problem(p.to_text()).factors == p.factors


@given(st.integers(1, 30), st.integers(1, 12), st.integers(0, 10**6))
def test_random_problems_keep_the_reference_bounds(q, size, seed):
    p = random_problem(q, size, seed)
    assert p.q == q and all(1 <= s <= size for s in p.m + p.n)
    assert all(m + n <= e <= (m + n) ** 2 for m, n, e in p.factors)
    assert all(2 <= e <= 4 * size**2 for e in p.edges)
    assert random_problem(q, size, seed) == p
    fixed = random_problem(q, size, seed, edges=(2 * size, 4 * size**2))
    assert all(2 * size <= e <= 4 * size**2 for e in fixed.edges)


def test_bad_bounds_and_problems():
    p = chain(FACTORS_S5)
    with pytest.raises(DGraphError, match="tape bound must be >= 0"):
        solve(p, -1)
    with pytest.raises(DGraphError, match="neighbouring shapes must match"):
        chain([(3, 3, 29), (1, 2, 14)])
    with pytest.raises(DGraphError, match="empty"):
        ChainProblem((), (), ())
    with pytest.raises(DGraphError, match="no such bundled chain problem"):
        bundled_problem("nope.txt")
    with pytest.raises(DGraphError, match="the seed must be >= 0"):
        random_problem(3, 3, seed=-1)


# -- from graphs ------------------------------------------------------------------------------


def test_stages_of_the_sin_example():
    st_ = stages(bundled("naumann_sin.trace"))
    assert st_.cuts == [["x0", "x1"], ["v1", "x0@1"], ["v2", "v1@2"], ["y"]]
    assert st_.problem.factors == [(2, 2, 2), (2, 2, 3), (1, 2, 2)] and st_.copies == 2
    user = stages(bundled("naumann_sin.trace"), [["v1"]])  # v2 sits inside the top stage
    assert user.cuts == [["x0", "x1"], ["v1", "x0@1"], ["y"]]
    assert user.problem.factors == [(2, 2, 2), (1, 2, 4)] and user.copies == 1


@given(st.integers(0, 10**6), st.integers(3, 6), st.integers(1, 5), st.integers(1, 3))
def test_stages_of_layered_graphs(seed, layers, width, degree):
    g = random_layered(seed, layers, width, degree)
    st_ = stages(g)
    assert st_.copies == 0 and st_.problem.q == layers - 1
    assert st_.problem.total_edges == g.n_edges
    assert set(st_.problem.m) == set(st_.problem.n) == {width}


def test_stage_edges_add_up_with_copies():
    g = bundled("spherical_coordinates.trace")
    st_ = stages(g)
    assert st_.problem.total_edges == g.n_edges + st_.copies
    assert st_.problem.n[0] == len(g.inputs) and st_.problem.m[-1] == len(g.outputs)


def test_compare_with_elimination():
    got = compare_with_elimination(bundled("naumann_sin.trace"))
    assert got["chain"] == {"optimal": 7, "tangent": 14, "adjoint": 7, "preaccumulation": 20}
    assert {r["method"]: r["mults"] for r in got["methods"]} == {
        "forward": 4,
        "reverse": 3,
        "markowitz": 4,
        "layers": 3,
    }
    assert all(r["verified"] for r in got["methods"])


def test_bad_cuts():
    g = bundled("naumann_sin.trace")
    with pytest.raises(DGraphError, match="unknown vertex 'zz'"):
        stages(g, [["zz"]])
    with pytest.raises(DGraphError, match="cuts out of order"):
        stages(g, [["v1"], ["v2"]])
    with pytest.raises(DGraphError, match="cuts hold intermediates"):
        stages(g, [["x0"]])


# -- the command --------------------------------------------------------------------------------


def _json(capsys, *argv) -> dict:
    assert main(["chain", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_json(capsys, tmp_path):
    path = tmp_path / "p.txt"
    path.write_text(chain(FACTORS_S5).to_text())
    out = _json(capsys, str(path))
    assert (out["optimal"], out["tape"], out["tangent"], out["adjoint"]) == (56, 29, 150, 100)
    assert out["preaccumulation"] == 123 and out["preaccumulation_parts"] == [108, 15]
    assert out["bracketing"] == "(Ḟ₃·I₁)·(I₁·F̄₂·F̄₁)"
    assert out["reference"] == {"optimal": 56, "tape": 43, "bracketing": "(Ḟ₃·I₁)·(I₁·F̄₂·F̄₁)"}
    assert len(out["table"]) == 6 and out["table"][-1]["fma"] == 56
    assert [o["subchain"] for o in out["tree"]] == [[3, 3], [2, 2], [2, 1], [3, 1]]
    assert _json(capsys, str(path), "--memory", "13")["optimal"] == 142


def test_cli_readable_and_table(capsys):
    path = "dgraph/chain/data/example_s4.txt"
    assert main(["chain", path, "--memory", "55", "--table"]) == 0
    out = capsys.readouterr().out
    assert "optimal: 56 fma, tape 32" in out and "F_{3,1}: MxG(1); fma=56; M=32;" in out
    assert "reference solver's accounting: 120 fma, tape 48" in out
    assert "optimal preaccumulation: 168 + 40 = 208" in out


def test_cli_graph_and_random(capsys, tmp_path):
    out = _json(capsys, "--graph", "dgraph/data/naumann_sin.trace", "--methods", "reverse")
    assert out["factors"] == [[2, 2, 2], [2, 2, 3], [1, 2, 2]] and out["optimal"] == 7
    assert out["methods"] == [
        {"method": "reverse", "mults": 3, "mults_effective": 3, "verified": True}
    ]
    written = tmp_path / "r.txt"
    first = _json(capsys, "--random", "12", "--size", "9", "--seed", "5", "--write", str(written))
    assert first == _json(capsys, str(written)) | {"problem": first["problem"]}
    assert first["q"] == 12 and read_problem(written) == random_problem(12, 9, 5)


def test_cli_graph_of_a_function_of_a_vector(capsys, tmp_path):
    """``--graph file.py:f`` takes the shapes of its parameters (``--inputs``), as every
    other command reading a function does (it was refused as an unknown argument)."""
    (tmp_path / "arm.py").write_text(
        "import numpy as np\n\n\ndef f(t):\n"
        "    x = np.cos(t[0]) + 0.8 * np.cos(t[0] + t[1])\n"
        "    return np.array([x, np.sin(t[0]) + 0.8 * np.sin(t[0] + t[1])])\n"
    )
    out = _json(capsys, "--graph", f"{tmp_path / 'arm.py'}:f", "--inputs", "t:2")
    assert out["cuts"][0] == ["t0", "t1"] and out["cuts"][-1] == ["y0", "y1"]
    assert out["factors"][0][1] == 2 and out["factors"][-1][0] == 2 and out["methods"]
    assert all(row["verified"] for row in out["methods"])


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--memory", "-5", "P"], "--memory: must be >= 0, got -5"),
        (["P-nonnumeric"], "line 3: expected 'm n |E|' as integers"),
        (["P-mismatch"], "line 3: factor 2 takes n = 2 inputs but factor 1 gives m = 3"),
        (["P-empty"], "line 1: the chain is empty"),
        ([], "give exactly one of PROBLEM, --graph or --random"),
    ],
)
def test_cli_bad_input_exits_2(capsys, tmp_path, argv, message):
    files = {
        "P": "3\n3 3 29\n1 3 14\n2 1 7\n",
        "P-nonnumeric": "2\n3 3 29\n1 3 x\n",
        "P-mismatch": "2\n3 3 29\n1 2 14\n",
        "P-empty": "0\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    argv = [str(tmp_path / a) if a in files else a for a in argv]
    assert main(["chain", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dgraph: error: ") and message in err and err.count("\n") == 1


def test_cli_bad_input_without_traceback(tmp_path, capsys):
    path = tmp_path / "bad.txt"
    path.write_text("2\n3 3 29\n1 x 14\n")
    # in this process: the process's own exit is tests/test_cli.py's real-process test
    assert main(["chain", str(path)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and f"{path}: line 3" in err
