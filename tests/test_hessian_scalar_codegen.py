"""Generated Hessians of graphs of scalars (sympy, traces, JSON): make_function's Hessian
modes on Dixon's Hessian graph (dgraph.core.hessian_graph), against sympy.hessian."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
import sympy

import dgraph
from dgraph.codegen.c import compiler
from dgraph.errors import DGraphError
from dgraph.frontends import from_trace

from .dense import dense as as_dense

DOMAIN_11 = "inputs: x, y\noutputs: f\nv1 = x*y\nv2 = sin(x)\nf = v1 + v2"
needs_cc = pytest.mark.skipif(compiler() is None, reason="no C compiler")
TWO_OUTPUTS = "inputs: x, y\noutputs: f, h\nf = x*y\nh = sin(x)*y*y"


def _sympy_hessian(weights: tuple[float, ...], point: tuple[float, float]) -> np.ndarray:
    x, y = sympy.symbols("x y")
    outputs = (x * y, sympy.sin(x) * y * y)
    lagrangian = sum(w * f for w, f in zip(weights, outputs, strict=True))
    h = sympy.hessian(lagrangian, (x, y)).subs({x: point[0], y: point[1]})
    return np.array(h.evalf(), dtype=float)


def test_domain_worked_check_dense_sparse_and_lower_triangle():
    g = from_trace(DOMAIN_11)
    x = [0.5, 0.3]
    expected = np.array([[-np.sin(0.5), 1.0], [1.0, 0.0]])
    dense = dgraph.make_function(g, "hessian")
    assert dense.generated.verified
    np.testing.assert_allclose(dense(x), expected, atol=1e-14)
    sparse = dgraph.make_function(g, "hessian", sparse=True)(x)
    assert sparse.nnz == 3  # the structural pattern: H[1, 1] is not in it
    np.testing.assert_allclose(sparse.toarray(), expected, atol=1e-14)
    lower = dgraph.make_function(g, "hessian", tril=True)(x)
    np.testing.assert_allclose(lower, np.tril(expected), atol=1e-14)


def test_a_graph_of_scalars_sparse_hessian_in_jax_is_a_bcoo():
    jax = pytest.importorskip("jax")
    H = dgraph.make_function(from_trace(DOMAIN_11), "hessian", lang="jax", sparse=True)
    with jax.enable_x64(True):
        h = H(np.array([0.5, 0.3]))
        assert type(h).__name__ == "BCOO" and h.nse == 3
        np.testing.assert_allclose(as_dense(h), [[-np.sin(0.5), 1.0], [1.0, 0.0]], atol=1e-14)


def test_hvp_of_a_graph_of_scalars_is_h_times_t():
    hvp = dgraph.make_function(from_trace(DOMAIN_11), "hvp")
    t = np.array([1.0, 2.0])
    expected = np.array([[-np.sin(0.5), 1.0], [1.0, 0.0]]) @ t
    np.testing.assert_allclose(hvp([0.5, 0.3], t), expected, atol=1e-14)


@pytest.mark.parametrize("weights", [(2.0, 3.0), (-1.0, 0.5)])
def test_a_lagrangian_takes_its_weights_per_call(weights):
    H = dgraph.make_function(from_trace(TWO_OUTPUTS), "hessian")
    point = (0.5, 0.3)
    np.testing.assert_allclose(
        H(list(point), list(weights)), _sympy_hessian(weights, point), atol=1e-13
    )


def _sympy_value_gradient_hessian(outputs, weights, point):
    """``(λᵀy, ∇, H)`` by sympy at ``point`` (x, y)."""
    x, y = sympy.symbols("x y")
    lagrangian = sum(w * f for w, f in zip(weights, outputs(x, y), strict=True))
    at = {x: point[0], y: point[1]}
    gradient = [sympy.diff(lagrangian, s).subs(at) for s in (x, y)]
    hessian = sympy.hessian(lagrangian, (x, y)).subs(at)
    return (
        float(lagrangian.subs(at)),
        np.array(gradient, dtype=float),
        np.array(hessian.evalf(), dtype=float),
    )


@pytest.mark.parametrize("lang", ["python", pytest.param("c", marks=needs_cc)])
def test_value_gradient_hessian_of_domain_11_is_sympy_s(lang):
    point = (0.5, 0.3)
    f, grad, h = _sympy_value_gradient_hessian(lambda x, y: (x * y + sympy.sin(x),), (1,), point)
    vgh = dgraph.make_function(from_trace(DOMAIN_11), "value_gradient_hessian", lang=lang)
    assert vgh.generated.verified and vgh.mode == "value_gradient_hessian"
    value, gradient, hessian = vgh(list(point))
    assert float(value) == pytest.approx(f, rel=1e-14)
    np.testing.assert_allclose(gradient, grad, rtol=1e-14)
    np.testing.assert_allclose(hessian, h, atol=1e-14)
    _, _, sparse = dgraph.make_function(
        from_trace(DOMAIN_11), "value_gradient_hessian", lang=lang, sparse=True
    )(list(point))
    assert sparse.nnz == 3  # the structural pattern, as mode hessian's
    np.testing.assert_allclose(sparse.toarray(), h, atol=1e-14)


@pytest.mark.parametrize("weights", [(2.0, 3.0), (-1.0, 0.5)])
def test_value_gradient_hessian_of_a_lagrangian_takes_weights_per_call(weights):
    point = (0.5, 0.3)
    f, grad, h = _sympy_value_gradient_hessian(
        lambda x, y: (x * y, sympy.sin(x) * y * y), weights, point
    )
    vgh = dgraph.make_function(from_trace(TWO_OUTPUTS), "value_gradient_hessian", tril=True)
    value, gradient, hessian = vgh(list(point), list(weights))
    assert float(value) == pytest.approx(f, rel=1e-14)
    np.testing.assert_allclose(gradient, grad, rtol=1e-14)
    np.testing.assert_allclose(hessian, np.tril(h), atol=1e-13)


@needs_cc
def test_the_hessian_of_a_graph_of_scalars_in_c():
    H = dgraph.make_function(from_trace(TWO_OUTPUTS), "hessian", lang="c", sparse=True)
    assert H.lang == "c" and H.generated.verified
    weights, point = (2.0, -1.0), (0.5, 0.3)
    np.testing.assert_allclose(
        H(list(point), list(weights)).toarray(), _sympy_hessian(weights, point), atol=1e-13
    )


@needs_cc
def test_command_line_writes_a_graph_of_scalars_hessian_in_c(tmp_path, monkeypatch):
    import ctypes
    import subprocess

    from dgraph.cli import main

    (tmp_path / "two.trace").write_text(TWO_OUTPUTS)
    monkeypatch.chdir(tmp_path)
    argv = ["codegen", "two.trace", "--mode", "hessian", "--sparse", "-o", "hess.c"]
    assert main(argv) == 0
    command = [compiler(), "-O2", "-shared", "-fPIC", "-o", "hess.so", "hess.c", "-lm"]
    subprocess.run(command, check=True, capture_output=True)
    lib = ctypes.CDLL(str(tmp_path / "hess.so"))
    weights, point = np.array([2.0, -1.0]), np.array([0.5, 0.3])
    expected = _sympy_hessian(tuple(weights), tuple(point))
    H = np.zeros(4)
    pointers = [a.ctypes.data_as(ctypes.c_void_p) for a in (point, weights, H)]
    lib.hessian(*pointers)
    np.testing.assert_allclose(H.reshape(2, 2), expected, atol=1e-13)
    values = np.zeros(ctypes.c_int.in_dll(lib, "dgraph_nnz").value)
    lib.hessian_values(*pointers[:2], values.ctypes.data_as(ctypes.c_void_p))
    rows = np.ctypeslib.as_array((ctypes.c_int * values.size).in_dll(lib, "jacobian_rows"))
    cols = np.ctypeslib.as_array((ctypes.c_int * values.size).in_dll(lib, "jacobian_cols"))
    np.testing.assert_allclose(values, expected[rows, cols], atol=1e-13)


def test_a_batch_of_points_gives_a_stack_of_hessians():
    points, weights = np.array([[0.5, 0.3], [1.0, 2.0], [-0.2, 0.7]]), [2.0, 3.0]
    g = from_trace(TWO_OUTPUTS)
    expected = np.stack([_sympy_hessian(tuple(weights), tuple(p)) for p in points])
    np.testing.assert_allclose(dgraph.make_function(g, "hessian")(points, weights), expected)
    value, gradient, h = dgraph.make_function(g, "value_gradient_hessian")(points, weights)
    assert value.shape == (3,) and gradient.shape == (3, 2)
    np.testing.assert_allclose(h, expected, atol=1e-13)
    with pytest.raises(DGraphError, match=r"^a sparse Hessian is of one point"):
        dgraph.make_function(g, "hessian", sparse=True)(points, weights)


_SUBS_MODEL = """import sympy as sp

a, b = sp.symbols("a b")
GRAD = sp.Matrix([sp.exp(a * b) + a**3 * b]).jacobian([a, b])


def f(x):
    g = GRAD.subs({a: x[0], b: x[1]})
    return g[0] ** 2 + g[1] ** 2
"""


def test_command_line_hessian_of_sympy_code_on_a_vector_s_entries(tmp_path, monkeypatch):
    """``GRAD.subs({a: x[0], b: x[1]})`` (a gradient derived with ``Matrix.jacobian``,
    benchmarks/real_programs14.py): ``make_function``'s Hessian falls back from the array
    tracer to sympy symbols, ``codegen --mode hessian`` refused it ("float() of a value that
    depends on the inputs"); now it takes the same element level."""
    from dgraph.cli import main

    (tmp_path / "model.py").write_text(_SUBS_MODEL)
    monkeypatch.chdir(tmp_path)
    argv = ["codegen", "model.py:f", "--inputs", "x:2", "--mode", "hessian", "-o", "h.py"]
    assert main(argv) == 0
    spec = importlib.util.spec_from_file_location("h", tmp_path / "h.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    a, b = sympy.symbols("a b")
    g = sympy.Matrix([sympy.exp(a * b) + a**3 * b]).jacobian([a, b])
    want = sympy.hessian(g[0] ** 2 + g[1] ** 2, (a, b)).subs({a: 0.4, b: -0.7})
    found = module.hessian(np.array([0.4, -0.7]))
    np.testing.assert_allclose(found, np.array(want.evalf(), dtype=float), rtol=1e-12)


def test_a_graph_of_scalars_lagrangian_hessian_says_it_takes_x_and_p():
    """Its docstring named ``H(a, b, y_bar, z_bar)``; it takes the inputs as one vector
    and the weights as another (survey36b)."""
    g = from_trace("inputs: a, b\noutputs: y, z\ny = exp(a)*b\nz = a*b")
    H = dgraph.make_function(g, "hessian", weights=[1.0, 2.0])
    assert H.__doc__.startswith("H(x, p; x = (a, b), p = (y_bar, z_bar)): the Hessian")
    a, b, w = 0.3, 0.5, np.array([1.0, 2.0])  # w·(exp(a)·b, a·b)
    want = [[np.exp(a) * b, np.exp(a) + 2.0], [np.exp(a) + 2.0, 0.0]]
    np.testing.assert_allclose(H(np.array([a, b]), w), want, rtol=1e-14)


def test_command_line_hessian_of_a_linear_function_at_the_element_level_is_checked(
    tmp_path, monkeypatch, capsys
):
    """A linear objective's gradient graph has no path from an input to an output: its
    ``|J|·|v|`` is zero, so central differences "could not resolve" it and the zero
    Hessian was NOT verified; the structure makes its ``J·v`` exactly zero. The report is
    the scalar check's line (it printed a bare "agrees")."""
    from dgraph.cli import main

    (tmp_path / "lin.py").write_text("def f(x):\n    return 3.0 * x[0] + 2.0 * x[1] - x[2]\n")
    monkeypatch.chdir(tmp_path)
    argv = ["codegen", "lin.py:f", "--inputs", "x:3", "--mode", "hessian", "--level", "element"]
    assert main([*argv, "-o", "h.py"]) == 0
    report = capsys.readouterr().out.splitlines()[-1]
    assert report.startswith("checked: jacobian agrees with the graph's partials at 4 points")
    assert report.endswith("J·v agrees with central differences of primal to 0e+00")
    spec = importlib.util.spec_from_file_location("h", tmp_path / "h.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    np.testing.assert_array_equal(module.hessian(np.array([0.4, -0.7, 2.0])), np.zeros((3, 3)))
