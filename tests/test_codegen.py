"""Generated Jacobian code: agreement with sympy's Jacobian, jvp/vjp, batches, counts."""

from __future__ import annotations

import functools
import importlib.util
import operator
from pathlib import Path

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from dgraph.bench.pendulum import n_link_pendulum
from dgraph.bench.suite import SUITES
from dgraph.codegen.c import c_source, compiler, load_c
from dgraph.codegen.counting import count_ops, fold_constants
from dgraph.codegen.generate import generate, generate_all
from dgraph.codegen.passes import straight_line
from dgraph.codegen.program import (
    jacobian_program,
    jvp_program,
    symbolic_program,
    vjp_program,
)
from dgraph.codegen.python import load_python, python_module
from dgraph.codegen.selection import cheapest_jacobian
from dgraph.core.graph import vertex_symbol
from dgraph.errors import DGraphError
from dgraph.frontends import bundled, from_dict, from_sympy, from_trace
from dgraph.methods import accumulate

from .strategies import programs
from .sympy_reference import complex_step_jacobian as _stepped
from .sympy_reference import sympy_jacobian as _sympy_jacobian

needs_cc = pytest.mark.skipif(compiler() is None, reason="no C compiler")
ROOT = Path(__file__).resolve().parents[1]
METHODS = ["forward", "reverse", "markowitz", "zhou", "layers", "dstar", "umbrella"]


def _functions():
    spec = importlib.util.spec_from_file_location(
        "codegen_functions", ROOT / "benchmarks" / "codegen_functions.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.FUNCTIONS


PHYSICS = _functions()
SUITE = SUITES["full"]
LABELED = [name for name in SUITE if not name.startswith(("random-dag", "naumann-disc", "zhou-"))]
# The suite but the largest size of its two families of recurrences: chebyshev-20 and
# spherical-harmonics-8 are the same statements as the sizes kept at more terms (their
# code takes no path the kept sizes do not), their builds and sympy references a fifth of
# this file's time
CHECKED = [name for name in LABELED if name not in ("chebyshev-20", "spherical-harmonics-8")]
# C compiled for values, never timed here: without optimization (a third of the compiler's time)
VALUES = ("-O0",)


def _chebyshev_jacobian(graph, n: int):
    """The graph's output checked to be the Chebyshev polynomial T_n (as polynomials), its
    derivative by the identity T_n' = n U_(n-1), lambdified: sympy's differentiation of the
    unexpanded recurrence takes seconds at n = 20."""
    (x,) = (vertex_symbol(v) for v in graph.inputs)
    (y,) = graph.outputs
    assert _polynomial(graph.values()[y], x) == sympy.Poly(sympy.chebyshevt(n, x), x)
    return sympy.lambdify([x], sympy.Matrix([[n * sympy.chebyshevu(n - 1, x)]]), "numpy")


def _polynomial(expr: sympy.Expr, x: sympy.Symbol) -> sympy.Poly:
    """``sympy.Poly(expr, x)``, each distinct subexpression converted once: the
    unexpanded recurrence repeats its subexpressions exponentially often as a tree, and
    ``Poly`` expands the tree (0.8 s at n = 20, 5 ms here). Raises ValueError on anything
    but sums, products and natural powers of numbers and ``x``."""
    poly: dict[sympy.Expr, sympy.Poly] = {}
    stack = [expr]
    while stack:
        e = stack[-1]
        waiting = [a for a in e.args if a not in poly]
        if waiting:
            stack.extend(waiting)
            continue
        stack.pop()
        if e.is_Number or e == x:
            poly[e] = sympy.Poly(e, x)
        elif e.is_Add or e.is_Mul:
            parts = [poly[a] for a in e.args]
            poly[e] = functools.reduce(operator.add if e.is_Add else operator.mul, parts)
        elif e.is_Pow and e.exp.is_Integer and e.exp >= 0:
            poly[e] = poly[e.base] ** int(e.exp)
        else:
            raise ValueError(f"not a polynomial in {x}: {e}")
    return poly[expr]


def _reference(function, points: np.ndarray) -> np.ndarray:
    """sympy's Jacobian, lambdified, at each point: (B, m, n)."""
    return np.array([np.asarray(function(*p), dtype=float) for p in points])


# each function's temperature, in kelvin (finite rates); black-scholes' T is a maturity in
# years, where 800 years made every derivative but dC/dS zero
KELVIN = {"reaction-rates": "T", "arrhenius": "temperature"}


def _points(graph, count: int, seed: int = 0, kelvin: str | None = None) -> np.ndarray:
    """Random points in (0.5, 1.5), away from the poles of the physics functions'
    divisions; the input named ``kelvin`` in (800, 2500)."""
    rng = np.random.default_rng(seed)
    ranges = [(800.0, 2500.0) if x == kelvin else (0.5, 1.5) for x in graph.inputs]
    return np.stack([rng.uniform(lo, hi, size=count) for lo, hi in ranges], axis=-1)


def _assert_close(actual: np.ndarray, expected: np.ndarray) -> None:
    assert np.isfinite(expected).all()
    scale = max(1.0, float(np.abs(expected).max()))
    np.testing.assert_allclose(actual, expected, rtol=1e-10, atol=1e-10 * scale)


# -- agreement with sympy's Jacobian ------------------------------------------------------


@functools.cache
def _graph(name: str):
    """The suite's or physics' graph ``name``, built once (no test changes it)."""
    return (SUITE.get(name) or PHYSICS[name])()


@functools.cache
def _built(name: str, method: str):
    """Graph ``name``, its expression set by ``method`` and that set's Jacobian program:
    built once for the tests that check the same function by the same method (neither
    jvp_program, vjp_program, cheapest_jacobian nor a printer changes them)."""
    graph = _graph(name)
    es = accumulate(graph, method)
    return graph, es, jacobian_program(es)


@pytest.mark.parametrize("name", CHECKED + list(PHYSICS))
def test_python_and_c_agree_with_sympy_on_the_suite(name):
    size = len(_graph(name))
    method = "forward" if size > 50 else METHODS[sum(map(ord, name)) % len(METHODS)]
    graph, _, program = _built(name, method)
    points = _points(graph, 5, kelvin=KELVIN.get(name))
    if name.startswith("chebyshev-"):
        expected = _reference(_chebyshev_jacobian(graph, int(name.split("-")[1])), points)
    else:
        expected = _stepped(graph)(points)
    names = {"title": name, "inputs": graph.inputs, "outputs": graph.outputs}
    python = python_module({"jacobian": program}, **names)
    _assert_close(load_python(python).jacobian(points), expected)
    if compiler() is not None:
        module = load_c(c_source({"jacobian": program}, **names), VALUES)
        _assert_close(module.jacobian(points), expected)


@pytest.mark.parametrize("name", ["naumann-discrepancy", "zhou-two-blocks", "random-dag-0"])
def test_graphs_without_partials_are_refused(name):
    with pytest.raises(DGraphError, match="no local partial"):
        generate(SUITE[name](), "python", "markowitz")


# 15 programs: the suite's 19 functions above are the explicit cases of the same property
@settings(max_examples=15)
@given(programs(), st.sampled_from(METHODS))
def test_random_programs_agree_with_sympy_in_python(graph, method):
    points = _points(graph, 4)
    expected = _reference(_sympy_jacobian(graph), points)
    module = load_python(generate(graph, "python", method, ("jacobian", "jvp", "vjp")).text)
    _assert_close(module.jacobian(points), expected)


@needs_cc
@settings(max_examples=8)
@given(programs(max_inputs=3, max_statements=10), st.sampled_from(METHODS))
def test_random_programs_agree_with_sympy_in_c(graph, method):
    points = _points(graph, 4)
    expected = _reference(_sympy_jacobian(graph), points)
    # both languages printed from one choice and one set of programs, as the CLI's
    # -o jac.c -o jac.py (each text checked against the graph)
    modes = {"c": ("jacobian", "jvp", "vjp"), "python": ("jacobian",)}
    c_text, python_text = (g.text for g in generate_all(graph, ("c", "python"), method, modes))
    module = load_c(c_text)
    _assert_close(module.jacobian(points), expected)
    # the primal in C against the NumPy module's (the primal program is the graph's)
    python = load_python(python_text)
    _assert_close(module.primal(points), python.primal(points))


# -- jvp and vjp ----------------------------------------------------------------------------


def _markowitz(name: str):
    """The graph, its Markowitz expression set and that set's Jacobian program: built once
    for both strategies below (neither jvp_program, vjp_program nor a printer changes them)."""
    return _built(name, "markowitz")


# Each function by one strategy, each strategy on two (4 of the 8 pairs: a strategy is
# one program builder, the same for every function; both languages print each case)
STRATEGIES = [
    ("spherical-coordinates", "jacobian"),
    ("gravity", "sweep"),
    ("euler-flux", "sweep"),
    ("chebyshev-5", "jacobian"),
]


@pytest.mark.parametrize(("name", "strategy"), STRATEGIES)
def test_jvp_and_vjp_agree_with_the_jacobian(name, strategy):
    graph, es, jacobian = _markowitz(name)
    programs_ = {
        "jacobian": jacobian,
        "jvp": jvp_program(es, strategy),
        "vjp": vjp_program(es, strategy),
    }
    names = {"title": name, "inputs": graph.inputs, "outputs": graph.outputs}
    modules = [load_python(python_module(programs_, **names))]
    if compiler() is not None:
        modules.append(load_c(c_source(programs_, **names), VALUES))
    rng = np.random.default_rng(3)
    x = _points(graph, 6)
    v = rng.normal(size=(6, len(graph.inputs)))
    w = rng.normal(size=(6, len(graph.outputs)))
    for module in modules:
        jac = module.jacobian(x)
        _assert_close(module.jvp(x, v), np.einsum("bij,bj->bi", jac, v))
        _assert_close(module.vjp(x, w), np.einsum("bij,bi->bj", jac, w))
        _assert_close(module.jvp(x[0], v[0]), jac[0] @ v[0])  # single points
        _assert_close(module.jvp(x, v[0]), np.einsum("bij,j->bi", jac, v[0]))  # broadcast


def test_sweeps_are_chosen_when_cheaper():
    # one direction through a long chain: the tangent sweep beats forming J then J v
    _, es, _ = _markowitz("gravity")
    auto, full = jvp_program(es), jvp_program(es, "jacobian")
    assert auto.ops.key() <= full.ops.key()
    assert auto.method == "tangent" and auto.mults < full.mults
    with pytest.raises(DGraphError, match="unknown strategy"):
        jvp_program(es, "sideways")


# -- shapes, sparsity, layout -----------------------------------------------------------------


@pytest.mark.parametrize("lang", ["python", pytest.param("c", marks=needs_cc)])
def test_batch_shapes(lang, sin_graph):
    gen = generate(sin_graph, lang, "reverse", ("jacobian", "jvp", "vjp"))
    module = load_python(gen.text) if lang == "python" else load_c(gen.text)
    x = np.array([[1.0, 0.5], [2.0, -1.0], [0.0, 3.0]])
    assert module.jacobian(x[0]).shape == (1, 2)
    assert module.jacobian(x).shape == (3, 1, 2)
    assert module.primal(x).shape == (3, 1)
    assert module.jvp(x, [1.0, 0.0]).shape == (3, 1)
    assert module.vjp(x[1], [2.0]).shape == (2,)
    x0, x1 = x[:, 0], x[:, 1]
    expected = np.stack([np.sin(x1) ** 2, 2 * x0 * np.sin(x1) * np.cos(x1)], axis=-1)
    _assert_close(module.jacobian(x)[:, 0, :], expected)
    with pytest.raises(ValueError, match="shape"):
        module.jacobian([1.0, 2.0, 3.0])


def test_numpy_blocks_give_the_unblocked_values():
    """Batches beyond BLOCK points run block by block (a parameter vector broadcast, batch
    shapes of two dimensions flattened): the values are those of one call per point."""
    pendulum = n_link_pendulum(2)
    graph = from_sympy(pendulum.rhs, pendulum.states, params=pendulum.params)
    modes = ("jacobian", "jvp", "value_and_jacobian")
    module = load_python(generate(graph, "python", "forward", modes).text)
    module.BLOCK = 7  # blocks of 7 points: 23 = 3 * 7 + 2
    rng = np.random.default_rng(6)
    x, p, v = rng.uniform(-1, 1, (23, 4)), rng.uniform(0.5, 2, (23, 5)), rng.normal(size=(23, 4))
    expected = np.stack([module.jacobian(x[b], p[b]) for b in range(23)])
    _same(module.jacobian(x, p), expected)
    one = np.stack([module.jacobian(x[b], p[0]) for b in range(23)])
    _same(module.jacobian(x, p[0]), one)
    grid = module.jacobian(x[:21].reshape(3, 7, 4), p[:21].reshape(3, 7, 5))
    _same(grid, expected[:21].reshape(3, 7, 4, 4))
    _same(module.jvp(x, v, p), np.einsum("bij,bj->bi", expected, v))
    value, jac = module.value_and_jacobian(x, p)
    _same(jac, expected)
    _same(value, np.stack([module.primal(x[b], p[b]) for b in range(23)]))
    assert module.jacobian(np.empty((0, 4)), p[0]).shape == (0, 4, 4)


def _same(actual, expected):
    np.testing.assert_allclose(actual, expected, rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("lang", ["python", pytest.param("c", marks=needs_cc)])
def test_sparse_output_lists_exactly_the_structural_nonzeros(lang):
    graph = bundled("spherical_coordinates.trace")
    gen = generate(graph, lang, "zhou", sparse=True)
    x = _points(graph, 3)
    if lang == "python":
        module = load_python(gen.text)
        rows, cols = module.JACOBIAN_ROWS, module.JACOBIAN_COLS
        values = module.jacobian_values(x)
    else:
        module = load_c(gen.text)
        assert module.nnz == 11
        rows = cols = None
        values = None
    dense = module.jacobian(x)
    # z = r cos(theta) does not depend on phi: the one structural zero of the 4 x 3 Jacobian
    assert gen.summary()["nonzeros"] == 11
    assert np.all(dense[:, 2, 2] == 0)
    if rows is not None:
        assert (2, 2) not in set(zip(rows.tolist(), cols.tolist(), strict=True))
        assert values.shape == (3, 11)
        _assert_close(dense[:, rows, cols], values)
    assert "J[i*3 + j]" in generate(graph, "c", "zhou").text  # the layout is documented


# -- what the program computes and counts -------------------------------------------------------


def test_plus_minus_one_labels_are_free_and_zeros_are_not_computed():
    graph = from_trace("inputs: a, b, c\noutputs: y, z\ny = a + b - c\nz = 3*a*b")
    program = jacobian_program(accumulate(graph, "forward"))
    results = dict(program.results)
    assert results[0, 0] == 1 and results[0, 1] == 1 and results[0, 2] == -1
    assert (1, 2) not in results  # z does not depend on c
    assert (program.mults, program.adds) == (2, 0)  # 3*b and 3*a; nothing for y's row


def test_constants_fold_and_partials_reuse_values():
    graph = from_trace("inputs: x\noutputs: y\nu = 3*x\nv = exp(u)\ny = 2*v")
    program = jacobian_program(accumulate(graph, "reverse"))
    # dy/dx = 2 * exp(u) * 3: one product of 6 and exp(3x), exp computed once
    assert (program.mults, program.ops.calls) == (2, 1)
    ((_, entry),) = program.results
    assert "6" in str(entry)


def test_counting_rule():
    a, b, c = sympy.symbols("a b c")
    ops = count_ops(
        [a**3, a * b / (c**2), -a * b + c, sympy.sqrt(2) * sympy.pi * a, 1 / sympy.sqrt(a)]
    )
    # a**3: 2; a*b/(c*c): 1 + 1 and a division; -a*b: 1; sqrt(2)*pi*a: one (constant folded)
    assert (ops.mults, ops.adds, ops.divs, ops.calls) == (2 + 2 + 1 + 1, 1, 2, 1)
    assert fold_constants(sympy.sqrt(2) * sympy.sqrt(8) * a) == 4 * a


def test_generated_code_beats_sympy_where_the_graph_shares_work():
    from dgraph.codegen.compare import sympy_jacobian

    for name, most in [("chebyshev-10", 27), ("spherical-harmonics-5", 55)]:
        graph, _, program = _built(name, "forward")
        assert program.mults <= most < sympy_jacobian(graph).ops.mults


def test_naumann_sin_program_is_the_optimum(sin_graph):
    # y = x0 sin(x1)^2: J = (s*s, 2*x0*s*cos(x1)) needs 1 + 3 multiplications
    gen = generate(sin_graph, "python", "reverse")
    assert (gen.mults, gen.adds) == (4, 0)
    symbolic = generate(sin_graph, "python", "symbolic")  # the path named, as by the choice
    assert (symbolic.method, symbolic.mults, symbolic.adds) == ("symbolic", 4, 0)


def test_cheapest_jacobian_is_the_minimum_over_methods():
    graph = bundled("spherical_coordinates.trace")
    program, es = cheapest_jacobian(graph, ["forward", "reverse", "zhou"])
    counts = [
        jacobian_program(accumulate(graph, m)).ops.key() for m in ("forward", "reverse", "zhou")
    ]
    assert program.ops.key() == min(counts) and es.verified


def test_no_compiler_is_a_clear_error(monkeypatch, sin_graph):
    monkeypatch.setenv("CC", "no-such-compiler-dgraph")
    with pytest.raises(DGraphError, match="no C compiler"):
        load_c(generate(sin_graph, "c", "reverse").text)


@needs_cc
def test_compiler_errors_are_reported():
    with pytest.raises(DGraphError, match="C compiler failed"):
        load_c("this is not C;\nnor is this\n")  # several lines: text, not a path


def test_labels_without_expressions_give_a_constant_jacobian_and_no_primal():
    graph = from_dict(
        {
            "format": "dgraph/1",
            "inputs": ["a", "b"],
            "outputs": ["y", "z"],
            "edges": [
                {"source": "a", "target": "k", "label": "2"},
                {"source": "b", "target": "k", "label": "-1"},
                {"source": "k", "target": "y", "label": "3"},
                {"source": "k", "target": "z", "label": "1"},
                {"source": "a", "target": "z", "label": "1/2"},
            ],
        }
    )
    gen = generate(graph, "python", "forward")
    assert set(gen.programs) == {"jacobian"} and gen.mults == 0
    module = load_python(gen.text)
    np.testing.assert_array_equal(module.jacobian([0.0, 0.0]), [[6, -3], [2.5, -1]])


def test_unknown_language_and_mode(sin_graph):
    with pytest.raises(DGraphError, match="unknown language"):
        generate(sin_graph, "fortran", "reverse")
    with pytest.raises(DGraphError, match="unknown mode"):
        generate(sin_graph, "python", "reverse", ("hessian",))


def test_bauer_formula_joins_the_candidates_and_can_win():
    # three-body gravity: listing every path and sharing through cse beats elimination
    graph, _, forward = _built("gravity", "forward")
    program, es = cheapest_jacobian(graph, ["forward", "paths"])
    assert es.method == "paths" and program.mults == 33
    assert forward.mults == 54


def test_powers_of_one_base_share_their_products():
    # x**2 once, x**3 = x**2*x, y/x**2 divides by the x**2 already there: 3 mults, where
    # cse alone computes x**2 and x**3 apart (1 + 2) before the two products (2)
    x, y = sympy.symbols("v_x v_y")
    named, results = [], [((0,), x**2 * y), ((1,), x**3 + y), ((2,), y / x**2), ((3,), y / x)]
    straight, out = straight_line(named, results, {x, y})
    ops = count_ops([e for _, e in straight] + [e for _, e in out])
    assert (ops.mults, ops.divs) == (3, 2)  # x*x, x2*x, x2*y; y/x2, y/x
    values = {x: 1.7, y: -0.3}
    env = dict(values)
    for s, e in straight:
        env[s] = float(e.xreplace(env))
    got = [float(e.xreplace(env)) for _, e in out]
    want = [float(e.xreplace(values)) for _, e in results]
    np.testing.assert_allclose(got, want, rtol=1e-14)


def test_symbolic_candidate_beats_sympy_on_the_heart_dipole():
    """Bauer's formula with sympy's algebra, then dgraph's passes: 46 multiplications
    where sympy's jacobian + cse needs 54 and the best graph elimination 58."""
    from dgraph.bench.realworld import heart_dipole
    from dgraph.codegen.compare import sympy_jacobian

    graph = heart_dipole()
    program = symbolic_program(graph)
    assert program.method == "symbolic" and program.mults == 46
    assert sympy_jacobian(graph).ops.mults == 54
    assert jacobian_program(accumulate(graph, "reverse")).mults == 58
    points = _points(graph, 4)
    names = {"title": "heart", "inputs": graph.inputs, "outputs": graph.outputs}
    module = load_python(python_module({"jacobian": program}, **names))
    _assert_close(module.jacobian(points), _stepped(graph)(points))
    best, es = cheapest_jacobian(graph, ["reverse", "paths"])
    assert best.method == "symbolic" and es.method == "paths" and best.mults == 46


def test_erf_uses_scipy_when_installed_and_math_otherwise(monkeypatch):
    from dgraph.bench.realworld import black_scholes

    graph = black_scholes()
    text = generate(graph, "python", "reverse").text
    assert "from scipy.special import erf as _math_erf" in text
    points = _points(graph, 3)
    expected = _stepped(graph)(points)
    modules = []
    if importlib.util.find_spec("scipy") is not None:
        modules.append(load_python(text))
    monkeypatch.setitem(__import__("sys").modules, "scipy.special", None)  # import fails
    fallback = load_python(text, name="dgraph_generated_no_scipy")
    assert isinstance(fallback._math_erf, np.vectorize)
    for module in [*modules, fallback]:
        _assert_close(module.jacobian(points), expected)


@pytest.mark.parametrize(
    "name", ["reaction-rates", "robot-arm", "mlp", "spherical-harmonics-5", "euler-flux"]
)
def test_symbolic_programs_agree_with_sympy_in_python_and_c(name):
    graph = _graph(name)
    program = symbolic_program(graph)
    points = _points(graph, 5, kelvin=KELVIN.get(name))
    expected = _stepped(graph)(points)
    names = {"title": name, "inputs": graph.inputs, "outputs": graph.outputs}
    _assert_close(
        load_python(python_module({"jacobian": program}, **names)).jacobian(points), expected
    )
    if compiler() is not None:
        module = load_c(c_source({"jacobian": program}, **names), VALUES)
        _assert_close(module.jacobian(points), expected)
