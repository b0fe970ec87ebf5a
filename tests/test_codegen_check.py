"""Generated code that is right and checked: kinks (abs, max, min, Piecewise), big
constants, the check of the printed text (and that it can fail), the language from the
suffix, and the same file from the same command."""

from __future__ import annotations

import functools
import json
import re
from importlib import resources

import numpy as np
import pytest
import sympy

from dgraph.cli import main
from dgraph.codegen import c as c_module
from dgraph.codegen import python as python_module
from dgraph.codegen.c import compiler, load_c
from dgraph.codegen.check import check_generated
from dgraph.codegen.counting import count_ops
from dgraph.codegen.generate import Generated, generate
from dgraph.codegen.printing import double_literal
from dgraph.codegen.program import jacobian_program, primal_program
from dgraph.codegen.python import load_python
from dgraph.core.graph import DGraph, vertex_symbol
from dgraph.errors import DGraphError, VerificationError
from dgraph.frontends import from_trace
from dgraph.methods import accumulate

needs_cc = pytest.mark.skipif(compiler() is None, reason="no C compiler")
SIN = str(resources.files("dgraph.data").joinpath("naumann_sin.trace"))
SPHERICAL = str(resources.files("dgraph.data").joinpath("spherical_coordinates.trace"))
LANGS = ["python", pytest.param("c", marks=needs_cc)]
MODES = ("jacobian", "jvp", "vjp")

FUNCTION = """\
import sympy


def f(x, y, z):  # Python's abs, max and min, as a model is written
    a = abs(x) * y
    b = max(x, y) + min(x, 2 * z)
    c = sympy.Piecewise((x**2 * z, x > 0), (-x + z, True))
    return a + b, c * y, max([a, z])
"""

TRACE = """\
inputs: x, y, z
outputs: u, w, t
a = Abs(x)*y
b = Max(x, y) + Min(x, 2*z)
c = Piecewise((x**2*z, x > 0), (-x + z, True))
u = a + b
w = c*y
t = Max(a, z)
"""


@functools.cache
def _sympy_reference():
    """sympy's own Jacobian of the function above, lambdified: once per process (the four
    kink tests share it; printing its Piecewise entries simplifies their conditions, most
    of a reference's cost)."""
    x, y, z = (sympy.Symbol(s, real=True) for s in "xyz")
    a = sympy.Abs(x) * y
    outputs = [
        a + sympy.Max(x, y) + sympy.Min(x, 2 * z),
        sympy.Piecewise((x**2 * z, x > 0), (-x + z, True)) * y,
        sympy.Max(a, z),
    ]
    return sympy.lambdify([x, y, z], sympy.Matrix(outputs).jacobian([x, y, z]), "numpy")


def _away_from_kinks(count: int, seed: int = 1) -> np.ndarray:
    """Points in (-2, 2)^3 at least 0.05 from every kink: x = 0, x = y, x = 2z, |x|y = z."""
    rng = np.random.default_rng(seed)
    points = rng.uniform(-2, 2, size=(50 * count, 3))
    x, y, z = points.T
    gaps = [np.abs(x), np.abs(x - y), np.abs(x - 2 * z), np.abs(np.abs(x) * y - z)]
    return points[np.min(gaps, axis=0) > 0.05][:count]


def _assert_matches_sympy(module, points: np.ndarray) -> None:
    reference = _sympy_reference()
    rng = np.random.default_rng(2)
    for point in points:
        expected = np.asarray(reference(*point), dtype=float)
        v, w = rng.normal(size=3), rng.normal(size=3)
        np.testing.assert_allclose(module.jacobian(point), expected, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(module.jvp(point, v), expected @ v, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(module.vjp(point, w), w @ expected, rtol=1e-12, atol=1e-12)


def _load(lang: str, text: str):
    return load_python(text) if lang == "python" else load_c(text)


# -- kinks: abs, max, min, Piecewise ----------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_python_function_with_kinks_matches_sympy(tmp_path, capsys, lang):
    source = tmp_path / "model.py"
    source.write_text(FUNCTION)
    points = _away_from_kinks(6)
    modules = []
    for mode in MODES:
        target = tmp_path / f"{mode}.{'py' if lang == 'python' else 'c'}"
        argv = ["codegen", f"{source}:f", "-o", str(target), "--mode", mode, "--json"]
        assert main([*argv, *(["-m", "reverse"] if mode != "jacobian" else [])]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["verified"] is True and data["check"]["ok"] is True
        assert data["check"]["difference_error"] < 1e-6
        modules.append(_load(lang, target.read_text()))
    jacobian, jvp, vjp = modules

    class Module:  # the three functions, each from its own file
        pass

    Module.jacobian, Module.jvp, Module.vjp = (
        staticmethod(jacobian.jacobian),
        staticmethod(jvp.jvp),
        staticmethod(vjp.vjp),
    )
    _assert_matches_sympy(Module, points)


@pytest.mark.parametrize("lang", LANGS)
def test_trace_with_abs_max_min_matches_sympy(lang):
    graph = from_trace(TRACE)
    generated = generate(graph, lang, "markowitz", MODES)
    assert generated.verified and set(generated.check.errors) == {"primal", *MODES}
    module = _load(lang, generated.text)
    _assert_matches_sympy(module, _away_from_kinks(6))
    # a kink's one-sided values: sign(0) = 0, H(0) = 1/2 (sympy's conventions)
    at_zero = module.jacobian([0.0, 1.0, 1.0])
    assert at_zero[0, 0] == pytest.approx(0.0 * 1.0 + 0.0 + 1.0)  # sign(0)*y + H(x-y) + H(2z-x)


def test_comparisons_count_as_compares_not_multiplications():
    x, y = sympy.symbols("x y", real=True)
    ops = count_ops([sympy.Heaviside(x - y), sympy.sign(x), sympy.Max(x, y, 2 * x)])
    assert (ops.mults, ops.adds, ops.compares) == (1, 1, 4)
    piecewise = sympy.Piecewise((x * y, (x > 0) & (y < 1)), (-x, True))
    assert count_ops([piecewise]).compares == 2 and count_ops([piecewise]).mults == 1


def test_unprintable_expression_is_one_line_naming_the_function():
    graph = DGraph("lambert")  # neither NumPy nor C has Lambert's W
    graph.add_vertex("x", "input")
    graph.add_vertex("y", "output", expr=sympy.LambertW(vertex_symbol("x")))
    graph.add_edge("x", "y")
    for lang in ("python", "c"):
        with pytest.raises(DGraphError) as info:
            generate(graph, lang, "forward", check=False)
        message = str(info.value)
        assert "the generated primal()" in message and "cannot print LambertW" in message
        assert "\n" not in message


# -- constants beyond a 32-bit int ------------------------------------------------------------


@pytest.mark.parametrize(
    "body", ["y = 10**19*x", "y = x*(10**30 + 1)/3", "y = 2**70*x**2", "y = x**70 - 3*10**12"]
)
@pytest.mark.parametrize("lang", LANGS)
def test_big_constants_agree_with_sympy(lang, body):
    graph = from_trace(f"inputs: x\noutputs: y\n{body}")
    module = _load(lang, generate(graph, lang, "forward").text)
    x = sympy.Symbol("x", real=True)
    f = sympy.sympify(body.split("=")[1], locals={"x": x})
    points = np.random.default_rng(0).uniform(0.5, 1.5, size=5)
    for point in points:
        exact = sympy.Float(point, 30)
        value, slope = (float(e.subs(x, exact).evalf(30)) for e in (f, sympy.diff(f, x)))
        np.testing.assert_allclose(module.primal([point]), [value], rtol=1e-15)
        np.testing.assert_allclose(module.jacobian([point]), [[slope]], rtol=1e-15)


def test_constants_print_as_doubles():
    assert double_literal(sympy.Integer(2**31 - 1)) == "2147483647"
    assert double_literal(sympy.Integer(2**31)) == "2147483648.0"
    assert double_literal(sympy.Integer(10) ** 19) == "1e+19"
    assert double_literal(sympy.Rational(1, 3)) == "0.3333333333333333"
    assert double_literal(sympy.Float("0.1")) == "0.1"
    with pytest.raises(DGraphError, match="beyond the range of a double"):
        double_literal(sympy.Integer(10) ** 400)
    with pytest.raises(DGraphError, match="beyond the range of a double"):
        double_literal(sympy.Rational(1, 10**400))


# -- the check: it runs, it can fail ----------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_tampered_printer_fails_the_check(monkeypatch, tmp_path, capsys, lang, sin_graph):
    """A printer that flips the sign of the Jacobian's entries (NumPy: the scalar printer
    the array printer calls; C: the element printer's scalar text) fails the check."""
    if lang == "python":
        original = python_module._print

        def flipped(p, expr, function):
            text = original(p, expr, function)
            return f"-({text})" if function == "jacobian" and expr.free_symbols else text

        monkeypatch.setattr(python_module, "_print", flipped)
    else:
        scalar_text = c_module.CElementPrinter._scalar_text

        def flipped_c(self, expr):
            text = scalar_text(self, expr)
            return f"-({text})" if self.function == "jacobian" and expr.free_symbols else text

        monkeypatch.setattr(c_module.CElementPrinter, "_scalar_text", flipped_c)
    with pytest.raises(VerificationError, match=r"jacobian\(\) disagrees with the graph"):
        generate(sin_graph, lang, "reverse")
    target = tmp_path / ("j.py" if lang == "python" else "j.c")
    assert main(["codegen", SIN, "-o", str(target)]) == 2
    _, err = capsys.readouterr()
    assert err.startswith("dgraph: error: ") and err.count("\n") == 1
    assert "disagrees" in err and not target.exists()
    assert not list(tmp_path.iterdir())  # no temporary file left either


def test_partials_that_are_not_the_derivatives_fail_the_differences():
    x = vertex_symbol("x")
    graph = DGraph("wrong label")
    graph.add_vertex("x", "input")
    graph.add_vertex("y", "output", expr=sympy.sin(x))
    graph.add_edge("x", "y", 2 * x)  # not cos(x): the sweep agrees with the code, FD cannot
    es = accumulate(graph, "forward", verify=False)  # Bauer's check refuses such labels too
    programs = {"primal": primal_program(graph), "jacobian": jacobian_program(es)}
    text = python_module.python_module(
        programs, title="wrong", inputs=graph.inputs, outputs=graph.outputs
    )
    result = check_generated(Generated(text, "python", ("jacobian",), programs, es), graph)
    assert not result.ok and result.ran and result.errors["jacobian"] < 1e-12
    assert "central differences" in result.detail and "\n" not in result.detail


def test_a_wrong_result_at_a_long_point_is_one_short_line():
    """A failed check names its point in one line however many inputs there are: the
    first and last entries (NumPy's summarization) and the count, not all 300 numbers."""
    n = 300
    xs = [vertex_symbol(f"x{i}") for i in range(n)]
    graph = DGraph("long wrong label")
    for i in range(n):
        graph.add_vertex(f"x{i}", "input")
    graph.add_vertex("y", "output", expr=sympy.sin(xs[0]) + sympy.Add(*xs[1:]))
    graph.add_edge("x0", "y", 2 * xs[0])  # not cos(x0)
    for i in range(1, n):
        graph.add_edge(f"x{i}", "y", sympy.Integer(1))
    graph.set_point({f"x{i}": 0.5 + i / n for i in range(n)})
    es = accumulate(graph, "forward", verify=False)
    programs = {"primal": primal_program(graph), "jacobian": jacobian_program(es)}
    text = python_module.python_module(
        programs, title="wrong", inputs=graph.inputs, outputs=graph.outputs
    )
    result = check_generated(Generated(text, "python", ("jacobian",), programs, es), graph)
    assert not result.ok and result.ran
    assert "\n" not in result.detail and len(result.detail) < 300, result.detail
    shown = r"\(([^,()]+, ){3}\.\.\., ([^,()]+, ){2}[^,();]+; 300 numbers\)"
    assert re.search(shown, result.detail), result.detail


def test_check_reports_what_it_compared(sin_graph):
    generated = generate(sin_graph, "python", "reverse", MODES)
    check = generated.check
    assert check.ok and check.ran and len(check.points) == 4
    assert max(check.errors.values()) < 1e-12 and check.difference_error < 1e-8
    assert "central differences of primal" in check.against
    summary = check.summary()
    assert summary.startswith("checked: jacobian, jvp, vjp agree with the graph's partials at 4")
    assert generated.summary()["verified"] is True
    assert generated.summary()["check"]["ok"] is True
    unchecked = generate(sin_graph, "python", "reverse", check=False)
    assert unchecked.check is None and unchecked.summary()["verified"] is False


def test_a_kink_at_a_random_point_is_skipped_once():
    # y = |x - c| with c just beside the first random point: every step straddles the kink
    from dgraph.core.value_check import RANGES

    first = float(np.random.default_rng(0).uniform(*RANGES[0], size=(10, 1))[0, 0])
    graph = from_trace(f"inputs: x\noutputs: y\ny = Abs(x - {first + 1e-7!r})")
    check = generate(graph, "python", "forward").check
    assert check.ok and check.skipped == pytest.approx((first,))
    assert "one point on a kink replaced" in check.summary()


def test_no_compiler_means_not_checked(monkeypatch, sin_graph):
    monkeypatch.setattr("dgraph.codegen.check.compiler", lambda: None)
    generated = generate(sin_graph, "c", "reverse")
    assert not generated.verified and not generated.check.ran
    assert generated.check.summary().startswith("NOT checked: no C compiler")


# -- the command: language from the suffix, atomic and deterministic output ------------------


@pytest.mark.parametrize("name", ["j.cpp", "j.txt", "j"])
def test_unknown_suffix_is_refused_without_lang(tmp_path, capsys, name):
    target = tmp_path / name
    assert main(["codegen", SIN, "-o", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "suffix" in err and ".py (python)" in err
    assert not target.exists()


@needs_cc
def test_any_suffix_with_lang(tmp_path, capsys):
    target = tmp_path / "j.cpp"
    argv = ["codegen", SIN, "-o", str(target), "--lang", "c"]
    assert main([*argv, "-m", "reverse"]) == 0
    assert "void jacobian(const double *x, double *J)" in target.read_text()
    assert "checked: jacobian agrees" in capsys.readouterr().out


def test_output_directory_refused_before_any_work(tmp_path, capsys):
    assert main(["codegen", SIN, "-o", str(tmp_path)]) == 2
    assert "is a directory" in capsys.readouterr().err


@pytest.mark.parametrize("lang", LANGS)
def test_the_same_command_twice_gives_the_same_file(tmp_path, capsys, lang):
    suffix = ".py" if lang == "python" else ".c"
    first, second = tmp_path / f"a{suffix}", tmp_path / f"b{suffix}"
    for target in (first, second):
        assert main(["codegen", SPHERICAL, "-o", str(target)]) == 0
    capsys.readouterr()
    assert first.read_bytes() == second.read_bytes()


def test_best_joins_the_candidates_only_with_a_budget(choice_runs, sin_graph):
    from dgraph.codegen.selection import cheapest_jacobian

    calls = choice_runs
    program, es = cheapest_jacobian(sin_graph)
    assert calls and "best" not in [m for m, _ in calls] and es.verified and program.mults == 4
    assert all(budget is None for _, budget in calls)  # nothing depends on time
    calls.clear()
    program, es = cheapest_jacobian(sin_graph, budget=0.5)
    ((_, left),) = [(m, b) for m, b in calls if m == "best"]
    assert 0 <= left <= 0.5 and program.mults == 4
