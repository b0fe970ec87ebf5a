"""Linear systems M(x) s = F(x): the residual's graph, solved by code generation with one
LU factorization and the implicit function theorem (dgraph.codegen.implicit)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import sympy

from dgraph import DGraph, from_json, from_linear_system
from dgraph.bench.pendulum import n_link_pendulum
from dgraph.cli import main
from dgraph.codegen.c import compiler, load_c
from dgraph.codegen.cuda import cxx_compiler, load_cuda_host
from dgraph.codegen.generate import generate, generate_all
from dgraph.codegen.python import load_python
from dgraph.errors import DGraphError, GraphError, InputError
from dgraph.frontends import from_sympy

MODES = ("jacobian", "value_and_jacobian", "jvp", "vjp")


@pytest.fixture(scope="module")
def pendulum():
    p = n_link_pendulum(2)
    graph = from_linear_system(
        p.kane.mass_matrix_full, p.kane.forcing_full, p.states, params=p.params, name="p2"
    )
    return p, graph


def _plain(p, exprs):
    """``exprs`` over plain symbols q0, ..., u1 instead of functions of time."""
    plain = {s: sympy.Symbol(s.func.__name__) for s in p.states}
    return [e.xreplace(plain) for e in exprs], list(plain.values())


def test_residual_graph_has_the_unknowns_as_solved_parameters(pendulum):
    _, graph = pendulum
    assert graph.solved == ("y0", "y1", "y2", "y3")
    assert graph.outputs == ["r0", "r1", "r2", "r3"]
    assert graph.parameters == ("m0", "l0", "m1", "l1", "g", *graph.solved)
    assert graph.inputs == ["q0", "q1", "u0", "u1"]


def test_generated_code_is_the_derivative_of_kane_rhs(pendulum):
    """primal equals kane.rhs() (sympy's LU solve) and jacobian equals sympy's Jacobian of
    it, at random states and parameters; value_and_jacobian, jvp and vjp agree."""
    p, graph = pendulum
    generated = generate(graph, "python", modes=MODES)
    assert generated.verified
    module = load_python(generated.text)
    rhs, states = _plain(p, p.rhs)
    params = list(p.params)
    f = sympy.lambdify([states, params], rhs, "numpy")
    jac = sympy.lambdify([states, params], sympy.Matrix(rhs).jacobian(states), "numpy")
    rng = np.random.default_rng(1)
    for _ in range(3):
        x, k = rng.uniform(-1, 1, 4), rng.uniform(0.5, 1.5, 5)
        np.testing.assert_allclose(module.primal(x, k), f(x, k), rtol=1e-12, atol=1e-12)
        expected = np.array(jac(x, k), dtype=float)
        np.testing.assert_allclose(module.jacobian(x, k), expected, rtol=1e-11, atol=1e-11)
        value, jacobian = module.value_and_jacobian(x, k)
        np.testing.assert_allclose(value, f(x, k), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(jacobian, expected, rtol=1e-11, atol=1e-11)
        v, w = rng.normal(size=4), rng.normal(size=4)
        np.testing.assert_allclose(module.jvp(x, v, k), expected @ v, rtol=1e-10, atol=1e-11)
        np.testing.assert_allclose(module.vjp(x, w, k), w @ expected, rtol=1e-10, atol=1e-11)


def test_fewer_multiplications_than_through_the_solve(pendulum):
    """The factorization is not differentiated: fewer operations than the graph of
    kane.rhs() itself, whose default program is 70 multiplications."""
    p, graph = pendulum
    through = generate(from_sympy(p.rhs, p.states, params=p.params), "python", check=False)
    solved = generate(graph, "python", check=False)
    assert solved.mults < through.mults
    assert solved.mults <= 56


@pytest.mark.skipif(compiler() is None, reason="no C compiler")
def test_c_and_python_from_one_choice(pendulum):
    _, graph = pendulum
    python, c = generate_all(graph, ("python", "c"), modes=MODES)
    assert python.verified and c.verified
    assert python.programs["jacobian"] == c.programs["jacobian"]
    assert "OUTPUTS = ('y0', 'y1', 'y2', 'y3')" in python.text
    assert "PARAMETERS = ('m0', 'l0', 'm1', 'l1', 'g')" in python.text
    for text in (python.text, c.text):
        assert "y0, y1, y2, y3 solve the linear system of the residuals r0, r1, r2, r3" in text


def test_json_round_trip_keeps_the_unknowns(pendulum):
    _, graph = pendulum
    data = graph.to_dict()
    assert data["solved"] == list(graph.solved)
    again = from_json(json.dumps(data))
    assert again == graph and again.solved == graph.solved
    assert graph.copy().solved == graph.solved
    other = graph.copy()
    other.solve_for(())
    assert other != graph


def test_small_system_by_hand():
    """y0 = sin(x)/k, y1 = 1 - x*y0: the values and derivatives written out."""
    x, k = sympy.symbols("x k")
    graph = from_linear_system([[k, 0], [x, 1]], [sympy.sin(x), 1], [x], params=[k])
    module = load_python(generate(graph, "python", modes=MODES).text)
    a, b = 0.7, 1.3
    y0 = np.sin(a) / b
    np.testing.assert_allclose(module.primal([a], [b]), [y0, 1 - a * y0], rtol=1e-15)
    dy0 = np.cos(a) / b
    np.testing.assert_allclose(module.jacobian([a], [b])[:, 0], [dy0, -y0 - a * dy0], rtol=1e-14)


def test_a_batch_and_one_parameter_vector(pendulum):
    _, graph = pendulum
    module = load_python(generate(graph, "python").text)
    x = np.random.default_rng(2).uniform(-1, 1, (7, 4))
    k = np.array([1.0, 1.1, 1.2, 0.9, 9.81])
    batch = module.jacobian(x, k)
    assert batch.shape == (7, 4, 4)
    np.testing.assert_array_equal(batch[3], module.jacobian(x[3], k))


@pytest.mark.parametrize(
    ("matrix", "rhs", "error", "needle"),
    [
        ([[1, 2, 3], [4, 5, 6]], [1, 2], InputError, "square"),
        ([[1, 0], [0, 1]], [1, 2, 3], InputError, "give 2 values"),
    ],
)
def test_malformed_systems_are_refused(matrix, rhs, error, needle):
    x = sympy.Symbol("x")
    with pytest.raises(error, match=needle):
        from_linear_system(matrix, [r * x for r in rhs], [x])


def test_text_is_refused_not_evaluated(capsys):
    """Input is data: a string entry would be sympified (evaluated) by sympy.Matrix."""
    x = sympy.Symbol("x")
    hostile = '__import__("builtins").print("EVALUATED") or 1'
    with pytest.raises(InputError, match="contains text"):
        from_linear_system([[hostile]], [x], [x])
    with pytest.raises(InputError, match="contains text"):
        from_linear_system([[1]], (hostile,), [x])
    assert "EVALUATED" not in capsys.readouterr().out


def test_unknown_names_clash_with_inputs():
    x = sympy.Symbol("x")
    with pytest.raises(InputError, match="both an input and a parameter"):
        from_linear_system([[1]], [x], [x], solve_for=["x"])
    graph = from_linear_system([[2]], [x], [x], solve_for=["speed"])
    assert graph.solved == ("speed",)


def test_solve_for_checks_its_names():
    graph = DGraph()
    graph.add_parameter("s")
    graph.add_vertex("x", "input")
    graph.add_vertex("r", "output", sympy.Symbol("x") - sympy.Symbol("s"))
    graph.add_edge("x", "r")
    with pytest.raises(GraphError, match="not a parameter"):
        graph.solve_for(["t"])
    with pytest.raises(GraphError, match="twice"):
        graph.solve_for(["s", "s"])
    graph.solve_for(["s"])
    assert graph.solved == ("s",)


def test_not_affine_and_symbolic_are_refused():
    x, s = sympy.symbols("x s")
    graph = from_sympy({"r": x - s**2}, [x], params=[s])
    graph.solve_for(["s"])
    with pytest.raises(DGraphError, match="not affine"):
        generate(graph, "python")
    linear = from_linear_system([[2]], [x], [x])
    with pytest.raises(DGraphError, match="accumulation method"):
        generate(linear, "python", method="symbolic")


def test_codegen_command_on_a_json_system(tmp_path, capsys, pendulum):
    _, graph = pendulum
    path = tmp_path / "p2.json"
    path.write_text(graph.to_json())
    out = tmp_path / "jac.py"
    assert main(["codegen", str(path), "-o", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["verified"] is True
    module = load_python(out.read_text())
    assert module.jacobian(np.zeros(4), np.ones(5)).shape == (4, 4)


def test_reports_say_the_outputs_are_residuals(tmp_path, capsys, pendulum):
    _, graph = pendulum
    path = tmp_path / "p2.json"
    path.write_text(graph.to_json())
    assert main(["accumulate", str(path), "-m", "forward"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "4 residual outputs" in first
    assert first.endswith("code solves them for y0, y1, y2, y3")


def test_solve_option_on_a_python_residual(tmp_path, capsys):
    """``--solve`` on a Python function that returns residuals F - M s: the generated
    code returns s and ds/dx (y0 = sin(x)/k, y1 = 1 - x*y0, as by hand above)."""
    source = tmp_path / "model.py"
    source.write_text(
        "import math\n\n\ndef residual(x, k, s0, s1):\n"
        "    return math.sin(x) - k * s0, 1 - x * s0 - s1\n"
    )
    out = tmp_path / "jac.py"
    argv = ["codegen", f"{source}:residual", "--params", "k,s0,s1", "--solve", "s0,s1"]
    assert main([*argv, "-o", str(out)]) == 0
    capsys.readouterr()
    module = load_python(out.read_text())
    assert module.OUTPUTS == ("s0", "s1") and module.PARAMETERS == ("k",)
    a, b = 0.7, 1.3
    y0, dy0 = np.sin(a) / b, np.cos(a) / b
    np.testing.assert_allclose(module.primal([a], [b]), [y0, 1 - a * y0], rtol=1e-15)
    np.testing.assert_allclose(module.jacobian([a], [b])[:, 0], [dy0, -y0 - a * dy0], rtol=1e-14)


def test_sweep_strategy_is_refused_for_a_system():
    from dgraph.codegen.program import jvp_program, vjp_program
    from dgraph.methods import accumulate

    x, k = sympy.symbols("x k")
    es = accumulate(from_linear_system([[k]], [sympy.sin(x)], [x], params=[k]), "forward")
    assert jvp_program(es, "jacobian").ops == jvp_program(es).ops
    for program in (jvp_program, vjp_program):
        with pytest.raises(DGraphError, match="strategy sweep"):
            program(es, "sweep")


# -- pivots that vanish at run time ------------------------------------------------------


def _pivot_system():
    """[[k, x], [x, 1]] s = [sin x, 1]: the first pivot is k, the second 1 - x²/k (zero
    where k = x², the matrix singular)."""
    x, k = sympy.symbols("x k")
    return from_linear_system([[k, x], [x, 1]], [sympy.sin(x), 1], [x], params=[k])


@pytest.fixture(scope="module")
def pivot_modules():
    """The system's code in Python, C and CUDA's host build (with compilers) and JAX
    (where installed)."""
    graph = _pivot_system()
    out = [("python", load_python(generate(graph, "python", modes=MODES, check=False).text))]
    if compiler() is not None:
        out.append(("c", load_c(generate(graph, "c", modes=MODES, check=False).text)))
    if cxx_compiler() is not None:  # the .cu file's host build: the kernels' own code
        text = generate(graph, "cuda", modes=MODES, check=False).text
        out.append(("cuda host", load_cuda_host(text)))
    try:
        import jax  # noqa: F401
    except ImportError:
        return out
    out.append(("jax", load_python(generate(graph, "jax", modes=MODES, check=False).text)))
    return out


@pytest.mark.parametrize(
    ("x", "k", "why"),
    [
        (0.7, 0.0, "first pivot zero"),
        (0.7, 1e-17, "first pivot tiny beside its column"),
        (0.5, 0.25, "second pivot zero: k = x**2, M singular"),
    ],
)
def test_a_vanishing_pivot_gives_nan_in_every_language(pivot_modules, x, k, why):
    """Without pivoting, the old code divided by the pivot as it was: inf, or a finite
    and wrong value for a tiny one. Now every output is NaN there, in every mode."""
    for language, module in pivot_modules:
        with np.errstate(divide="ignore", invalid="ignore"):
            values = [
                module.primal([x], [k]),
                module.jacobian([x], [k]),
                module.value_and_jacobian([x], [k])[1],
                module.jvp([x], [1.0], [k]),
                module.vjp([x], [1.0, 1.0], [k]),
            ]
        for v in values:
            assert np.isnan(np.asarray(v, dtype=float)).all(), (language, why)


def test_pivots_well_away_from_zero_solve_exactly(pivot_modules):
    """At k = 1.3, x = 0.7 the solution is that of numpy's solve, in every language."""
    x, k = 0.7, 1.3
    expected = np.linalg.solve([[k, x], [x, 1.0]], [np.sin(x), 1.0])
    for language, module in pivot_modules:
        rtol = 1e-6 if language == "jax" else 1e-14  # JAX computes in float32 by default
        np.testing.assert_allclose(module.primal([x], [k]), expected, rtol=rtol, err_msg=language)


def test_cuda_source_guards_its_pivots():
    """CUDA cannot run here: its source holds the same NaN guards as the C source."""
    text = generate(_pivot_system(), "cuda", modes=("jacobian",), check=False).text
    assert "? ((T(1)/v_k)) : (NAN))" in text
    assert text.count(": (NAN))") >= 2
