"""Inverse accumulation (Pearlmutter & Siskind, seed 003): widths, lumps, the four sweeps."""

from __future__ import annotations

import itertools
import json
import random

import networkx as nx
import numpy as np
import pytest
import sympy
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import dgraph
from dgraph.cli import main
from dgraph.core.graph import vertex_symbol
from dgraph.core.numeric import edge_values, vertex_values
from dgraph.errors import DGraphError, SearchTooLarge
from dgraph.inverse import (
    SingularJacobian,
    adjoint,
    adjoint_inverse_expressions,
    check_width,
    exact_order,
    forward_inverse,
    greedy_order,
    inverse_expressions,
    inverse_product,
    is_constant_width,
    jacobian_matrix,
    linearize,
    linearize_symbolic,
    live_sets,
    lump_cost,
    lumps,
    resolve_order,
    reverse_inverse,
    step_matrices,
    tangent,
    width_profile,
)
from dgraph.inverse.lumps import min_live_order
from dgraph.inverse.programs import (
    FIGURE_4,
    constant_width_program,
    program_with_temporaries,
    relaxation_program,
)

# Fig. 2 of the paper with p and q made concrete: z1 overwrites x1, z2 overwrites x3.
FIGURE_2 = """\
inputs: x1, x2, x3
outputs: z1, y2, z2
z1 = x1*exp(x2)
z2 = x3 + sin(z1)
y2 = x2
"""


def statement(text: str) -> dgraph.DGraph:
    return dgraph.from_trace(text, "statement")


def dense_jacobian(g: dgraph.DGraph, x) -> np.ndarray:
    """J by forward accumulation over the graph's own local partials (no steps, no lumps)."""
    values = vertex_values(g, np.asarray(x, dtype=float))
    labels = edge_values(g, values)
    n = len(g.inputs)
    rows = {x: np.eye(n)[i] for i, x in enumerate(g.inputs)}
    for v in g.order():
        if v not in rows:
            rows[v] = sum(float(labels[g.symbol(u, v)]) * rows[u] for u in g.predecessors(v))
    return np.array([rows[y] for y in g.outputs])


def sympy_jacobian(g: dgraph.DGraph) -> sympy.Matrix:
    values = g.values()
    return sympy.Matrix([values[y] for y in g.outputs]).jacobian(sympy.symbols(g.inputs, real=True))


def random_topological_order(g: dgraph.DGraph, rng: random.Random) -> list[str]:
    order, done = [], set(g.inputs)
    todo = [v for v in g.order() if v not in done]
    while todo:
        ready = [v for v in todo if all(u in done for u in g.predecessors(v))]
        v = rng.choice(ready)
        order.append(v)
        done.add(v)
        todo.remove(v)
    return order


def agrees(result, reference, cond: float) -> bool:
    scale = max(1.0, float(np.abs(reference).max()))
    return float(np.abs(result - reference).max()) <= 1e-12 * cond * scale


@st.composite
def square_programs(draw, temporaries: bool | None = None, max_n: int = 4):
    n = draw(st.integers(1 if temporaries is False else 2, max_n))
    steps = draw(st.integers(1, 3 * n))
    seed = draw(st.integers(0, 10**6))
    with_temps = draw(st.booleans()) if temporaries is None else temporaries
    maker = program_with_temporaries if with_temps else constant_width_program
    g = statement(maker(n, steps, seed))
    x = np.random.default_rng(seed).uniform(-1, 1, n)
    return g, x


# -- width ------------------------------------------------------------------------------


def test_live_sets_of_figure_2():
    """The builder copies z1 (an output used by z2) to the end of the evaluation order,
    which then holds four values; the order of the paper's code keeps three."""
    g = statement(FIGURE_2)
    assert g.order()[3:] == ["z1_2", "z1", "y2", "z2"]
    assert width_profile(g) == [3, 3, 4, 4, 3]
    paper = ["z1_2", "z2", "y2", "z1"]
    assert [sorted(s) for s in live_sets(g, paper)] == [
        ["x1", "x2", "x3"],
        ["x2", "x3", "z1_2"],
        ["x2", "z1_2", "z2"],
        ["y2", "z1_2", "z2"],
        ["y2", "z1", "z2"],
    ]
    assert is_constant_width(g, paper) and not is_constant_width(g)
    assert is_constant_width(g, greedy_order(g))


def test_figure_4_lumps_depend_on_the_order():
    """Fig. 4: ordered t1 t2 y1 y2 one lump of width four with l = k = 2; ordered
    t1 y1 t2 y2 two lumps of width three with l = k = 1 each."""
    g = statement(FIGURE_4)
    one = lumps(g, ["t1", "t2", "y1", "y2"])
    assert width_profile(g, ["t1", "t2", "y1", "y2"]) == [2, 3, 4, 3, 2]
    assert [(lump.vertices, lump.l, lump.k) for lump in one] == [(("t1", "t2", "y1", "y2"), 2, 2)]
    two = lumps(g, ["t1", "y1", "t2", "y2"])
    assert width_profile(g, ["t1", "y1", "t2", "y2"]) == [2, 3, 2, 3, 2]
    assert [(lump.vertices, lump.l, lump.k) for lump in two] == [
        (("t1", "y1"), 1, 1),
        (("t2", "y2"), 1, 1),
    ]
    assert lump_cost(one) == (2, 4) and lump_cost(two) == (1, 2)
    for order in (greedy_order(g), exact_order(g), min_live_order(g)):
        assert lump_cost(lumps(g, order)) == (1, 2)


@settings(max_examples=30)
@given(square_programs(temporaries=False, max_n=5))
def test_constant_width_programs_are_found_constant_width(case):
    """Every statement of these programs overwrites one slot: the greedy order keeps n
    values live, every lump is one statement (2.6c), and a sweep costs one
    multiplication per edge, as a tangent sweep does."""
    g, x = case
    order = greedy_order(g)
    assert is_constant_width(g, order)
    found = lumps(g, order)
    assert all(len(lump.vertices) == 1 and lump.l == 1 for lump in found)
    assert lump_cost(found)[1] == g.n_edges
    assert linearize(g, x, order).mults == g.n_edges


def test_width_drop_is_reported():
    g = statement("inputs: a, b\noutputs: y, z\ns = a + b\ny = sin(s)\nz = cos(s)")
    with pytest.raises(SingularJacobian, match=r"drops to 1 < n = 2 after step 1 \(s, the last"):
        lumps(g)
    with pytest.raises(SingularJacobian, match=r"drops to 1 < n = 2 after step 1"):
        check_width(g)
    assert check_width(statement(FIGURE_2), ["z1_2", "z2", "y2", "z1"]) == [3] * 5
    with pytest.raises(SingularJacobian, match="only 1 < n = 2 values are live"):
        exact_order(g)
    with pytest.raises(SingularJacobian, match="only 1 < n = 2"):
        greedy_order(g)
    unused = statement("inputs: a, b\noutputs: y, z\ny = a + 1\nz = 2*a")
    with pytest.raises(SingularJacobian, match=r"width is 1 < n = 2 before the first step"):
        lumps(unused)


def test_not_square_or_bad_order():
    g = statement("inputs: a, b\noutputs: y\ny = a*b")
    with pytest.raises(DGraphError, match=r"as many outputs as inputs: 2 inputs, 1 output$"):
        lumps(g)
    g = statement(FIGURE_4)
    with pytest.raises(DGraphError, match="'y1' comes before its predecessor 't1'"):
        lumps(g, ["y1", "t1", "t2", "y2"])
    with pytest.raises(DGraphError, match="'y2' is missing"):
        lumps(g, ["t1", "t2", "y1"])
    with pytest.raises(DGraphError, match="unknown order"):
        resolve_order(g, "fastest")


# -- orders ------------------------------------------------------------------------------


@settings(max_examples=25)
@given(st.integers(0, 10**6), st.integers(2, 3), st.integers(2, 5))
def test_exact_order_is_the_best_of_all_topological_orders(seed, n, steps):
    """The dynamic program over downsets equals brute force over every topological order,
    and no other rule beats it."""
    g = statement(program_with_temporaries(n, steps, seed))
    dag = g.nx.subgraph([v for v in g.nx if v not in g.inputs])
    orders = list(itertools.islice(nx.all_topological_sorts(dag), 20000))
    assume(len(orders) < 20000)
    best = min(lump_cost(lumps(g, order)) for order in orders)
    exact = lump_cost(lumps(g, exact_order(g)))
    assert exact == best
    for rule in (greedy_order, min_live_order):
        assert exact <= lump_cost(lumps(g, rule(g)))


def test_greedy_beats_the_min_live_rule():
    """A program where always taking the vertex that leaves fewest values live opens a
    lump with l = 2; looking for the nearest point with n live values keeps l = 1,
    as the exact search does."""
    g = statement(program_with_temporaries(2, 5, 132))
    assert lump_cost(lumps(g, min_live_order(g)))[0] == 2
    assert lump_cost(lumps(g, greedy_order(g)))[0] == 1
    assert lump_cost(lumps(g, exact_order(g))) == (1, 5)


def test_exact_order_refuses_large_searches():
    g = statement(relaxation_program(6, 2, temporaries=True))
    with pytest.raises(SearchTooLarge, match="more than 50 downset visits"):
        exact_order(g, max_states=50)


# -- results against dense solves -----------------------------------------------------


@settings(max_examples=40)
@given(square_programs(), st.randoms(use_true_random=False), st.integers(0, 2**32 - 1))
def test_inverse_products_equal_dense_solves(case, rng, vseed):
    """J⁻¹v and J⁻ᵀv along the evaluation, greedy, min-live and a random topological
    order (so several lumpings) equal numpy.linalg.solve on J formed densely."""
    g, x = case
    J = dense_jacobian(g, x)
    cond = np.linalg.cond(J)
    assume(cond < 1e8)
    v = np.random.default_rng(vseed).normal(size=len(x))
    solve, solve_t = np.linalg.solve(J, v), np.linalg.solve(J.T, v)
    orders = ["evaluation", "greedy", "min-live", random_topological_order(g, rng)]
    for order in orders:
        lin = linearize(g, x, order)
        assert np.allclose(jacobian_matrix(lin), J, rtol=1e-12, atol=1e-12)
        assert agrees(reverse_inverse(lin, v), solve, cond)
        assert agrees(forward_inverse(lin, v), solve_t, cond)


@settings(max_examples=40)
@given(square_programs(), st.integers(0, 2**32 - 1))
def test_invariants_4_7(case, vseed):
    """(4.7a) ȳ·(Jẋ) = (Jᵀȳ)·ẋ, (4.7b) x̄·(J⁻¹ẏ) = (J⁻ᵀx̄)·ẏ, (4.7c) J∘J⁻¹ = J⁻¹∘J = id,
    (4.7d) Jᵀ∘J⁻ᵀ = J⁻ᵀ∘Jᵀ = id, with every product a sweep."""
    g, x = case
    lin = linearize(g, x)
    cond = np.linalg.cond(jacobian_matrix(lin))
    assume(cond < 1e8)
    a, b = np.random.default_rng(vseed).normal(size=(2, len(x)))
    tol = 1e-12 * cond * (1 + np.abs(a).max() * np.abs(b).max())
    assert (
        abs(b @ tangent(lin, a) - adjoint(lin, b) @ a) <= tol * np.abs(jacobian_matrix(lin)).max()
    )
    assert abs(b @ reverse_inverse(lin, a) - forward_inverse(lin, b) @ a) <= tol * cond
    for v in (a, b):
        assert agrees(tangent(lin, reverse_inverse(lin, v)), v, cond)
        assert agrees(reverse_inverse(lin, tangent(lin, v)), v, cond)
        assert agrees(adjoint(lin, forward_inverse(lin, v)), v, cond)
        assert agrees(forward_inverse(lin, adjoint(lin, v)), v, cond)


def test_batches_of_vectors():
    g = statement(relaxation_program(5, 2, temporaries=True))
    lin = linearize(g, np.linspace(-1, 1, 5))
    V = np.random.default_rng(0).normal(size=(5, 3))
    J = dense_jacobian(g, np.linspace(-1, 1, 5))
    assert np.allclose(reverse_inverse(lin, V), np.linalg.solve(J, V))
    assert np.allclose(forward_inverse(lin, V), np.linalg.solve(J.T, V))


def test_jacobian_from_steps_matches_sympy():
    g = statement(FIGURE_2)
    x = [0.3, -0.7, 1.1]
    J = np.array(
        sympy_jacobian(g).subs(dict(zip(map(vertex_symbol, g.inputs), x, strict=True))),
        dtype=float,
    )
    assert np.allclose(jacobian_matrix(linearize(g, x)), J)
    assert np.allclose(dense_jacobian(g, x), J)


def test_step_inverses_have_the_same_sparsity():
    """(2.6): J_t and J_t⁻¹ differ from the identity in the same entries; their product
    is the identity; the product of the steps, read in the output slots, is J."""
    g = statement(program_with_temporaries(3, 8, 7))
    x = [0.2, -0.4, 0.9]
    lin = linearize(g, x, "evaluation")
    n = lin.n
    product = np.eye(n)
    for step in lin.steps:
        jt, inv = step_matrices(step, n)
        assert np.array_equal(jt != np.eye(n), inv != np.eye(n))
        assert np.allclose(jt @ inv, np.eye(n)) and np.allclose(inv @ jt, np.eye(n))
        product = jt @ product
    assert np.allclose(product[list(lin.output_slots)], dense_jacobian(g, x))
    assert any(step.lump.l > 1 for step in lin.steps)


def test_doctest_example_by_hand():
    """y = ab, z = b + a²b² at (2, 3): J = [[3, 2], [36, 25]], det J = 3 = a·1·1."""
    g = statement("inputs: a, b\noutputs: y, z\nu = a*b\nz = b + u**2\ny = u")
    p = inverse_product(g, [2.0, 3.0], [1.0, 0.0])
    assert np.allclose(p.result, [25 / 3, -12])
    assert [step.A[0, 0] for step in p.linearization.steps] == [3.0, 1.0, 1.0]
    q = inverse_product(g, [2.0, 3.0], [1.0, 0.0], transpose=True)
    assert np.allclose(q.result, np.linalg.solve(np.array([[3.0, 2.0], [36.0, 25.0]]).T, [1, 0]))
    assert p.mults == q.mults == 5 and p.residual < 1e-12 and q.residual < 1e-12


# -- symbolic ---------------------------------------------------------------------------


def test_symbolic_sweeps_equal_the_inverse_jacobian():
    g = statement(FIGURE_2)
    J = sympy_jacobian(g)
    ydot = sympy.Matrix(sympy.symbols("ydot_z1 ydot_y2 ydot_z2"))
    xbar = sympy.Matrix(sympy.symbols("xbar_x1 xbar_x2 xbar_x3"))
    forward = sympy.Matrix(inverse_expressions(g))
    reverse = sympy.Matrix(adjoint_inverse_expressions(g))
    assert sympy.simplify(forward - J.inv() * ydot) == sympy.zeros(3, 1)
    assert sympy.simplify(reverse - J.T.inv() * xbar) == sympy.zeros(3, 1)


def test_symbolic_labels_are_those_of_figure_2f():
    """Fig. 2(f), reverse-inverse mode (J⁻¹ẏ), over vertex symbols:
    ẋ₁ = ż₁/(∂p/∂x₁) − (∂p/∂x₂)/(∂p/∂x₁)·ẏ₂ with p = x₁eˣ²."""
    g = statement(FIGURE_2)
    x1, x2, x3 = inverse_expressions(g, substitute=False)
    z1, y2, z2 = sympy.symbols("ydot_z1 ydot_y2 ydot_z2")
    a, b = sympy.exp(vertex_symbol("x2")), vertex_symbol("x1") * sympy.exp(vertex_symbol("x2"))
    assert sympy.simplify(x1 - (z1 / a - b / a * y2)) == 0
    assert x2 == y2
    assert sympy.simplify(x3 - (z2 - sympy.cos(vertex_symbol("z1_2")) * z1)) == 0


def test_symbolic_labels_are_those_of_figure_2e():
    """Fig. 2(e), forward-inverse mode (J⁻ᵀx̄), over vertex symbols: the transposed step
    inverses (2.6f) first step first give z̄₁ = x̄₁/(∂p/∂x₁) − (∂q/∂z₁)·x̄₃,
    ȳ₂ = x̄₂ − (∂p/∂x₂)/(∂p/∂x₁)·x̄₁ and z̄₂ = x̄₃."""
    g = statement(FIGURE_2)
    z1, y2, z2 = adjoint_inverse_expressions(g, substitute=False)
    x1, x2, x3 = sympy.symbols("xbar_x1 xbar_x2 xbar_x3")
    a, b = sympy.exp(vertex_symbol("x2")), vertex_symbol("x1") * sympy.exp(vertex_symbol("x2"))
    c = sympy.cos(vertex_symbol("z1_2"))  # ∂q/∂z₁ with q = x₃ + sin z₁; ∂q/∂x₃ = 1
    assert sympy.simplify(z1 - (x1 / a - c * x3)) == 0
    assert sympy.simplify(y2 - (x2 - b / a * x1)) == 0
    assert z2 == x3


def test_mode_names_follow_the_paper():
    """Forward-inverse (2.4a) is J⁻ᵀx̄, processed first step first (no tape); reverse-
    inverse (2.4b) is J⁻¹ẏ, processed last step first; ``inverse_product`` names the mode
    it ran."""
    g = statement(FIGURE_2)
    x = [1.0, 0.5, 2.0]
    J = dense_jacobian(g, x)
    lin = linearize(g, x, "evaluation")
    v = np.array([1.0, 2.0, 3.0])
    assert np.allclose(forward_inverse(lin, v), np.linalg.solve(J.T, v))
    assert np.allclose(reverse_inverse(lin, v), np.linalg.solve(J, v))
    assert inverse_product(g, x, v, transpose=True).mode == "forward-inverse"
    assert inverse_product(g, x, v).mode == "reverse-inverse"


def test_symbolic_lumps_and_numbers_agree():
    g = statement(FIGURE_4)
    point = {vertex_symbol("x1"): 0.3, vertex_symbol("x2"): -0.6}
    for order in (["t1", "t2", "y1", "y2"], ["t1", "y1", "t2", "y2"]):
        lin = linearize_symbolic(g, order)
        numbers = [float(e.subs(point)) for e in reverse_inverse(lin, [1.0, 2.0])]
        assert np.allclose(numbers, inverse_product(g, [0.3, -0.6], [1, 2], order=order).result)


# -- singular steps ---------------------------------------------------------------------


def test_singular_scalar_step_is_named():
    g = statement("inputs: a, b\noutputs: y, z\nu = a*b\nz = b + u**2\ny = u")
    with pytest.raises(SingularJacobian, match=r"step 1 \(u\) is singular: a = ∂u/∂a = 0\.0"):
        inverse_product(g, [2.0, 0.0], [1.0, 0.0])


def test_singular_lump_is_named():
    """y1 = x1·e^x1 has ∂y1/∂x1 = 0 at x1 = -1: in the one-lump order A is singular."""
    g = statement(FIGURE_4)
    with pytest.raises(SingularJacobian, match=r"lump 1 \(t1, t2, y1, y2\) is singular: its 2×2"):
        inverse_product(g, [-1.0, 0.5], [1.0, 0.0], order=["t1", "t2", "y1", "y2"])
    with pytest.raises(SingularJacobian, match=r"lump 1 \(t1, y1\) is singular: a = ∂y1/∂x1"):
        inverse_product(g, [-1.0, 0.5], [1.0, 0.0])


def test_structurally_singular_lump_symbolically():
    g = statement("inputs: a, b\noutputs: y, z\ns = a + b\nt = 2*a + 2*b\ny = s*t\nz = s - t")
    with pytest.raises(SingularJacobian, match="determinant 0"):
        linearize_symbolic(g, "evaluation")
    with pytest.raises(SingularJacobian, match="rank 1"):
        linearize(g, [0.5, 0.25], "evaluation")


# -- command line -----------------------------------------------------------------------


@pytest.fixture
def figure_2_file(tmp_path):
    path = tmp_path / "figure2.trace"
    path.write_text(FIGURE_2)
    return path


def test_cli_json(figure_2_file, capsys):
    assert (
        main(["inverse", str(figure_2_file), "--at", "1,0.5,2", "--vector", "1,2,3", "--json"]) == 0
    )
    out = json.loads(capsys.readouterr().out)
    g = statement(FIGURE_2)
    J = dense_jacobian(g, [1, 0.5, 2])
    assert np.allclose(out["result"], np.linalg.solve(J, [1, 2, 3]))
    assert out["mults"] == 6 and isinstance(out["mults"], int)
    assert out["residual"] < 1e-12
    assert [lump["l"] for lump in out["lumps"]] == [1, 1, 1, 1]
    assert out["inputs"] == ["x1", "x2", "x3"] and out["outputs"] == ["z1", "y2", "z2"]
    args = ["inverse", str(figure_2_file), "--at", "1,0.5,2", "--vector", "1,2,3"]
    assert main([*args, "--transpose", "--order", "evaluation", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert np.allclose(out["result"], np.linalg.solve(J.T, [1, 2, 3]))
    assert out["max_l"] == 3 and out["width"] == [3, 3, 4, 4, 3]
    assert out["mode"] == "forward-inverse" and out["transpose"] is True


def test_cli_negative_numbers_after_a_space(figure_2_file, capsys):
    """``--at -1,0.5,2`` is the point as ``--at=-1,0.5,2`` is (argparse alone takes a
    value that starts with a minus and holds a comma for an unknown option)."""
    args = ["inverse", str(figure_2_file), "--at", "-1,0.5,2", "--vector", "-1,2e-1,-3"]
    assert main([*args, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    J = dense_jacobian(statement(FIGURE_2), [-1, 0.5, 2])
    assert np.allclose(out["result"], np.linalg.solve(J, [-1, 0.2, -3]))
    assert main(["inverse", str(figure_2_file), "--at", "-x,1,2"]) == 2
    assert "argument --at: expected one argument" in capsys.readouterr().err


def test_cli_report(figure_2_file, capsys):
    assert main(["inverse", str(figure_2_file), "--vector", "1,0,0", "--order", "evaluation"]) == 0
    out = capsys.readouterr().out
    assert "n = 3, 4 steps in 2 lumps (largest l = 3); width 3 3 4 4 3" in out
    assert "J^-1 v (reverse-inverse), per input, at x1 = 1, x2 = 1, x3 = 1:" in out
    assert "lump z1, y2, z2: l = 3, k = 3 (z1_2, x2, x3 -> z1, y2, z2)" in out


def test_cli_errors(figure_2_file, capsys):
    base = ["inverse", str(figure_2_file)]
    assert main([*base, "--vector", "1,2"]) == 2
    assert "it needs 3, one per output (z1, y2, z2)" in capsys.readouterr().err
    assert main([*base, "--vector", "1,2,x"]) == 2
    assert "--vector needs comma-separated numbers" in capsys.readouterr().err
    assert main([*base, "--vector", "1,2,3", "--order", "z1,z2"]) == 2
    assert "order:" in capsys.readouterr().err


def test_cli_singular_exits_2_without_traceback(tmp_path, capsys):
    path = tmp_path / "singular.trace"
    path.write_text("inputs: a, b\noutputs: y, z\nu = a*b\nz = b + u**2\ny = u\n")
    # in this process: the process's own exit is tests/test_cli.py's real-process test
    assert main(["inverse", str(path), "--at", "2,0", "--vector", "1,0"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "step 1 (u) is singular" in err


def test_linear_json_graph_needs_no_expressions():
    """Constant labels and no vertex expressions: the partials are the labels."""
    g = dgraph.from_dict(
        {
            "format": "dgraph/1",
            "inputs": ["a", "b"],
            "outputs": ["y", "z"],
            "edges": [
                {"source": "a", "target": "y", "label": "2"},
                {"source": "b", "target": "y", "label": "1"},
                {"source": "b", "target": "z", "label": "3"},
            ],
        }
    )
    p = inverse_product(g, [0.0, 0.0], [1.0, 1.0])
    assert np.allclose(p.result, np.linalg.solve([[2.0, 1.0], [0.0, 3.0]], [1.0, 1.0]))
    with pytest.raises(DGraphError, match="it needs 2, one per output"):
        inverse_product(g, [0.0, 0.0], [1.0, 1.0, 1.0])


def test_cli_elemental_granularity(figure_2_file, capsys):
    """At elemental granularity exp(x2) and sin(z1) are temporaries: lumps of two vertices."""
    args = ["inverse", str(figure_2_file), "--at", "1,0.5,2", "--vector", "1,2,3", "--json"]
    assert main([*args, "--granularity", "elemental"]) == 0
    out = json.loads(capsys.readouterr().out)
    J = dense_jacobian(statement(FIGURE_2), [1, 0.5, 2])
    assert np.allclose(out["result"], np.linalg.solve(J, [1, 2, 3]))
    assert [len(lump["vertices"]) for lump in out["lumps"]] == [2, 1, 2, 1]
    assert out["max_l"] == 1 and out["mults"] == 6
