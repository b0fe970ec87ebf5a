"""The C values of a sparse tensor Jacobian for its fixed pattern (issue 42): printed from
the array statements of the NumPy module, equal to the NumPy module's J; every statement
kind against the same statements written by hand in NumPy; the index file, the CLI's two
files, one clear refusal."""

from __future__ import annotations

import importlib.util
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import dgraph
from dgraph.cli import main
from dgraph.codegen.c import compiler
from dgraph.codegen.cuda import cxx_compiler
from dgraph.codegen.ir import (
    ArrayProgram,
    ArrayStatement,
    AsType,
    BinOp,
    Call,
    Const,
    Formula,
    Index,
    Name,
    Scatter,
    ScatterAdd,
    SegmentSum,
    Seq,
    Slice,
    SparseMatrix,
    UnaryOp,
)
from dgraph.codegen.python import NumPyArrayPrinter, load_python
from dgraph.codegen.tensor.c_values import c_values, read_index_file
from dgraph.errors import DGraphError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import test_codegen_arrays as arrays

from tests import jax_reference as jref
from tests.c_linalg_cases import diagonal_program as _diagonal_program

# built at the -O2 users get (the other test modules build at -O0: tests/c_builds.py), so
# code that is wrong only when optimized is still caught here
pytestmark = [
    pytest.mark.skipif(compiler() is None, reason="no C compiler"),
    pytest.mark.c_optimized,
]
# the graphs traced from JAX; the rest runs without it
needs_jax = pytest.mark.skipif(
    importlib.util.find_spec("jax") is None, reason="JAX is not installed"
)


def _points(g, seed=1):
    rng = np.random.default_rng(seed)
    return [rng.uniform(0.5, 1.5, g.shape(x)) for x in g.inputs]


def _same(g, rows: dict[str, int] | None = None):
    """The C values and the NumPy module's J at a random point: same pattern, values to
    1e-13. ``rows``: the names of consecutive blocks of J's rows and their counts (the
    functions of one graph), each block compared apart and every failing one named."""
    J_np = dgraph.make_function(g, "jacobian", lang="python", sparse=True)
    J_c = dgraph.make_function(J_np.generated.expression_set, "jacobian", lang="c", sparse=True)
    assert J_c.generated.lang == "c" and J_c.generated.verified
    assert "void jacobian_values(" in J_c.generated.text
    xs = _points(g)
    a, b = J_np.stacked(*xs), J_c.stacked(*xs)  # one matrix each, as the C values fill it
    assert a.shape == b.shape and a.nnz == b.nnz
    got = {"C": b}
    if cxx_compiler() is not None:  # the CUDA kernels, one host thread each, in order
        got["CUDA"] = J_c.generated.values.load_cuda_host()(*xs)
    rows = rows or {"J": a.shape[0]}
    assert sum(rows.values()) == a.shape[0]
    failed = []
    for target, c in got.items():
        start = 0
        for name, count in rows.items():
            want, have = a[start : start + count], c[start : start + count]
            start += count
            try:
                np.testing.assert_array_equal(have.indices, want.indices)
                np.testing.assert_array_equal(have.indptr, want.indptr)
                scale = abs(want.data).max(initial=0.0)
                np.testing.assert_allclose(have.data, want.data, rtol=1e-13, atol=1e-13 * scale)
            except AssertionError as error:
                failed.append(f"{name} in {target}: {error}")
    assert not failed, "\n".join(failed)


@pytest.mark.parametrize("build", ["stencil_1d", "stencil_2d", "moves", "chain"])
def test_stencil_graphs_equal_the_numpy_module(build):
    built = getattr(arrays, build)()
    _same(built[0] if isinstance(built, tuple) else built)


@needs_jax
@pytest.mark.parametrize("name", ["brusselator", "laplace3d"])
def test_the_benchmark_residuals_equal_the_numpy_module(name):
    from sparse_functions import FUNCTIONS, grid, point

    from dgraph.frontends import from_jax

    x = np.asarray(point(name, grid(name, 60)))
    _same(from_jax(FUNCTIONS[name][0], x, level="array"))


def _residuals():
    import jax.numpy as jnp

    return {
        "pad-gather": lambda u: jnp.exp(jnp.pad(u, 1)[1:-1, 2:] * jnp.pad(u, 1)[1:-1, :-2]) + u**3,
        "steps": lambda u: jnp.sin(jnp.concatenate([u[::2], u[1::2]], axis=0)) * jnp.cos(u[::-1]),
        "roll": lambda u: jnp.tanh(jnp.roll(u, 1, axis=0) * u + jnp.roll(u, -1, axis=1) ** 2),
        "sum": lambda u: jnp.sqrt(1 + (u[:, :1] * u) ** 2) / (1 + u.T[::2].sum() * 0.1 + u),
        "where": lambda u: (
            jnp.maximum(u, 0.9) * jnp.minimum(u[::-1], 1.1) + jnp.where(u > 1, u**2, -u)
        ),
        "stack": lambda u: (
            jnp.sin(jnp.stack([u[:, 0], u[:, 1] ** 2, u.sum(1)], axis=1)) * u[:, :3]
            + jnp.cos(jnp.stack([u[0] * u[1], u[2]], axis=-2)).sum()
        ),
        "cumsum": lambda u: jnp.sin(jnp.cumsum(u**2, axis=1)) + jnp.cos(jnp.cumsum(u[:, 2] * u[0])),
        "piecewise": lambda u: jnp.piecewise(
            u, [u < 0.9, u > 1.2], [lambda s: s**2, jnp.sin, lambda s: jnp.exp(s) * s]
        ),
    }


@needs_jax
def test_nonlinear_stencils_equal_the_numpy_module():
    """Each against the NumPy module (``stack``, ``cumsum`` and ``jnp.piecewise``'s
    ``argmax`` were refused: 'stack is not in the C values vocabulary'): all in one graph,
    their raveled values concatenated, so one C library and one CUDA host build (the
    compilers' start was most of a residual's time); each residual's rows compared apart
    and named where they differ."""
    import jax
    import jax.numpy as jnp

    from dgraph.frontends import from_jax

    residuals = _residuals()
    u = np.random.default_rng(0).uniform(0.5, 1.5, (6, 6))
    rows = {name: math.prod(jax.eval_shape(f, u).shape) for name, f in residuals.items()}

    def every(u):
        return jnp.concatenate([jnp.ravel(f(u)) for f in residuals.values()])

    _same(from_jax(every, u, level="array"), rows)


MODULE = '''
import numpy
import scipy.sparse

INPUTS = ('x',)
SHAPES = {'x': (4, 6), 'y': (52,)}
_K0 = numpy.array([3, 0, 17, 5, 5, 9, 11, 2, 14, 8], dtype=numpy.int32)
_K1 = numpy.array([0, 2, 4, 6, 8, 10, 12, 14, 16, 1], dtype=numpy.int64)
_K2 = numpy.arange(18, dtype=numpy.int32) % 7
_K3 = numpy.arange(52, dtype=numpy.int32)
_K4 = numpy.arange(53, dtype=numpy.int32)
_K5 = numpy.linspace(0.5, 2.0, 7)
_K6 = numpy.array([3, 0, 17, 5, 6, 9, 11, 2, 14, 8], dtype=numpy.int32)  # each once


def _scatter(size, flat, data):
    out = numpy.zeros(size)
    out[flat] = data
    return out


def _scatter_add(base, *parts):
    out = numpy.array(base, dtype=float)
    for flat, data in zip(parts[::2], parts[1::2]):
        out[flat] += data
    return out


def jacobian(x):
    """Every statement kind of the C values vocabulary, once."""
    x_ = numpy.reshape(numpy.asarray(x, dtype=float), (4, 6))
    a = x_[::2, 1::2]
    b = numpy.pad(a, ((1, 0), (0, 1)), constant_values=0.5)
    c = numpy.concatenate([numpy.ravel(b), numpy.ravel(numpy.flip(a, (1,)))])
    d = numpy.exp(c) + numpy.sin(c) * c ** 3 - numpy.sqrt(numpy.abs(c)) / 2 + 1 / c ** 2
    e = numpy.ravel(d)[_K0]
    f = _scatter(18, _K1, e)
    g = _scatter_add(f, _K6, numpy.tanh(e), _K1, e * e)  # two parts, one copy
    h = numpy.bincount(_K2, weights=g, minlength=7)
    n = numpy.arange(7)
    z = numpy.full((7,), 2.0)
    w = numpy.full((7,), 2.0) + n * _K5 + z
    t = numpy.transpose(x_, (1, 0))
    s = numpy.concatenate([t[0:3], numpy.maximum(t[3:6], 1.0)], axis=1)
    r = numpy.broadcast_to(numpy.reshape(x_[1, ::-2], (1, 3)), (3, 3))
    q = numpy.heaviside(r - 1.0, 0.5) + numpy.where(r > 1.0, r, -r) + numpy.einsum('ab->ba', r)
    m = numpy.sum(x_ * numpy.cos(x_), axis=(0,), keepdims=True)
    p = numpy.ravel(m)
    out = numpy.concatenate([h * w, numpy.ravel(s), numpy.ravel(q) ** 2, -numpy.ravel(a), p])
    J = scipy.sparse.csr_array((out, _K3, _K4), shape=(52, 52))
    return J
'''


def _every_kind() -> ArrayProgram:
    """MODULE's jacobian as array statements (:mod:`dgraph.codegen.ir`), one per line."""
    k = {n: Name(n) for n in ("_K0", "_K1", "_K2", "_K3", "_K4", "_K5", "_K6")}
    v = {n: Name(n) for n in "xabcdefghnzwtsrqmp" if n != "x"}
    x_ = Name("x_")

    def f(func, *args, **keywords):
        return Call(func, tuple(args), tuple(keywords.items()))

    def c(value):
        return Const(value)

    def op(left, o, right):
        return BinOp(o, left, right)

    d = op(
        op(
            op(f("exp", v["c"]), "+", op(f("sin", v["c"]), "*", op(v["c"], "**", c(3)))),
            "-",
            op(f("sqrt", f("abs", v["c"])), "/", c(2)),
        ),
        "+",
        op(c(1), "/", op(v["c"], "**", c(2))),
    )
    r = v["r"]
    q = op(
        op(
            f("heaviside", op(r, "-", c(1.0)), c(0.5)),
            "+",
            f("where", op(r, ">", c(1.0)), r, UnaryOp("-", r)),
        ),
        "+",
        f("einsum", c("ab->ba"), r),
    )
    t = v["t"]
    statements = [
        ("x_", f("reshape", f("asarray", Name("x"), dtype=Const(float)), c((4, 6)))),
        ("a", Index(x_, (Slice(None, None, 2), Slice(1, None, 2)))),
        ("b", f("pad", v["a"], c(((1, 0), (0, 1))), constant_values=c(0.5))),
        ("c", f("concatenate", Seq((f("ravel", v["b"]), f("ravel", f("flip", v["a"], c((1,)))))))),
        ("d", d),
        ("e", Index(f("ravel", v["d"]), (k["_K0"],))),
        ("f", Scatter(18, k["_K1"], v["e"])),
        (
            "g",
            ScatterAdd(
                v["f"], ((k["_K6"], f("tanh", v["e"])), (k["_K1"], op(v["e"], "*", v["e"])))
            ),
        ),
        ("h", SegmentSum(v["g"], k["_K2"], 7)),
        ("n", f("arange", c(7))),
        ("z", f("full", c((7,)), c(2.0))),
        ("w", op(op(f("full", c((7,)), c(2.0)), "+", op(v["n"], "*", k["_K5"])), "+", v["z"])),
        ("t", f("transpose", x_, c((1, 0)))),
        (
            "s",
            f(
                "concatenate",
                Seq((Index(t, (Slice(0, 3),)), f("maximum", Index(t, (Slice(3, 6),)), c(1.0)))),
                axis=c(1),
            ),
        ),
        (
            "r",
            f(
                "broadcast_to",
                f("reshape", Index(x_, (c(1), Slice(None, None, -2))), c((1, 3))),
                c((3, 3)),
            ),
        ),
        ("q", q),
        ("m", f("sum", op(x_, "*", f("cos", x_)), axis=c((0,)), keepdims=c(True))),
        ("p", f("ravel", v["m"])),
        (
            "out",
            f(
                "concatenate",
                Seq(
                    (
                        op(v["h"], "*", v["w"]),
                        f("ravel", v["s"]),
                        op(f("ravel", v["q"]), "**", c(2)),
                        UnaryOp("-", f("ravel", v["a"])),
                        v["p"],
                    )
                ),
            ),
        ),
        ("J", SparseMatrix(Name("out"), k["_K3"], k["_K4"], (52, 52))),
    ]
    module = load_python(MODULE)
    constants = {n: getattr(module, n) for n in k}
    return ArrayProgram(
        "jacobian",
        ("x",),
        ((4, 6),),
        ("x",),
        [ArrayStatement(t, value) for t, value in statements],
        ["J"],
        constants,
    )


def test_every_statement_kind_equals_numpy():
    """The C and CUDA printers of every statement kind against MODULE, the same statements
    written by hand in NumPy; the NumPy printer of the same statements prints MODULE's
    lines."""
    program = _every_kind()
    printer = NumPyArrayPrinter()
    printed = [printer.statement(s).strip() for s in program.statements]
    assert "g = _scatter_add(f, _K6, numpy.tanh(e), _K1, e * e)" in printed
    assert "h = numpy.bincount(_K2, weights=g, minlength=7)" in printed
    values = c_values(program)
    x = np.random.default_rng(2).uniform(0.5, 1.5, (4, 6))
    expected = load_python(MODULE).jacobian(x)
    got = values.load()(x)
    np.testing.assert_allclose(got.data, expected.data, rtol=1e-13, atol=1e-13)
    np.testing.assert_array_equal(got.indices, expected.indices)
    if cxx_compiler() is not None:  # the CUDA kernels (the bincount's atomicAdd too)
        np.testing.assert_allclose(values.load_cuda_host()(x).data, expected.data, rtol=1e-13)
    arrays_read = read_index_file(values.index_bytes())
    assert list(arrays_read)[-3:] == ["indices", "indptr", "shape"]
    assert arrays_read["shape"].tolist() == [52, 52]
    for name, array in values.constants.items():
        np.testing.assert_array_equal(arrays_read[name], array.ravel())
        assert f"*restrict {name}" in values.text


def test_a_formula_and_a_cast_print_in_c_as_in_numpy():
    """An elementwise sympy formula (the scalar C printer's text) and a cast to int, in C
    and in NumPy, from the same statements."""
    import sympy

    a0, a1 = sympy.symbols("a0 a1", real=True)
    x_ = Name("x_")
    formula = Formula(
        sympy.exp(a0) * a1**2 + sympy.Max(a0, a1) + sympy.Heaviside(a0 - 1),
        ((a0, x_), (a1, Call("sin", (x_,)))),
    )
    cast = AsType(BinOp("*", Const(3.0), x_), "int")
    statements = [
        ArrayStatement("x_", Call("reshape", (Call("asarray", (Name("x"),)), Const((6,))))),
        ArrayStatement("y", BinOp("+", formula, cast)),
        ArrayStatement("J", SparseMatrix(Name("y"), Name("_K0"), Name("_K1"), (6, 6))),
    ]
    constants = {"_K0": np.arange(6, dtype=np.int32), "_K1": np.arange(7, dtype=np.int32)}
    program = ArrayProgram("jacobian", ("x",), ((6,),), ("x",), statements, ["J"], constants)
    x = np.array([0.2, 0.5, 0.9, 1.1, 1.4, 2.0])
    got = c_values(program).load()(x).data
    s = np.sin(x)
    expected = np.exp(x) * s**2 + np.maximum(x, s) + np.heaviside(x - 1, 0.5) + (3 * x).astype(int)
    np.testing.assert_allclose(got, expected, rtol=1e-14)
    space = {"numpy": np, "x": x, **constants}
    for s_ in statements[:2]:
        exec(NumPyArrayPrinter().statement(s_).strip(), space)
    np.testing.assert_allclose(space["y"], expected, rtol=1e-14)


def _read_inside(kind: str) -> ArrayProgram:
    """``J`` the diagonal ``kind(x * x) * x`` (a reduction read inside an expression)."""
    x_ = Name("x_")
    statements = [
        ArrayStatement("x_", Call("reshape", (Call("asarray", (Name("x"),)), Const((6,))))),
        ArrayStatement("y", BinOp("*", Call(kind, (BinOp("*", x_, x_),)), x_)),
        ArrayStatement("J", SparseMatrix(Name("y"), Name("_K0"), Name("_K1"), (6, 6))),
    ]
    constants = {"_K0": np.arange(6, dtype=np.int32), "_K1": np.arange(7, dtype=np.int32)}
    return ArrayProgram("jacobian", ("x",), ((6,),), ("x",), statements, ["J"], constants)


def test_an_unsupported_statement_is_refused_in_one_line():
    # median has no C; argmax and min (of all axes, refused before session 35) read
    # inside an expression have (their buffer first)
    needle = r"numpy.median\(x_ \* x_\) \* x_.*no shape rule for the array function median"
    with pytest.raises(DGraphError, match=needle) as caught:
        c_values(_read_inside("median"))
    assert "\n" not in str(caught.value)
    x = np.array([0.5, -2.0, 1.5, 0.25, -1.0, 1.75])
    for kind in ("argmax", "min"):
        J = c_values(_read_inside(kind)).load()(x)
        np.testing.assert_array_equal(J.diagonal(), getattr(np, kind)(x * x) * x)


def test_an_inverse_of_a_numpy_function_prints_in_c():
    """``numpy.linalg.inv`` in a NumPy program: the C values call ``dgraph_inv`` (it was
    refused, 'linalg.inv: linear algebra is not in the C values vocabulary'), its
    Jacobian NumPy's."""

    def f(x):
        K = np.diag(np.exp(x)) + np.ones((4, 4))
        return np.trace(np.linalg.inv(K))

    x = np.linspace(-0.5, 0.5, 4)
    fn = dgraph.make_function(f, "jacobian", "c", point=[np.zeros(4)])
    expected = dgraph.make_function(f, "jacobian", "python", point=[np.zeros(4)])(x)
    assert fn.generated.verified and "dgraph_inv(" in fn.generated.text
    np.testing.assert_allclose(np.asarray(fn(x)), np.asarray(expected), rtol=1e-12)


def test_linear_algebra_in_a_loop_prints_in_c():
    """A ``jnp.linalg.solve`` inside ``lax.scan`` (an implicit Euler step): the loop's body
    calls ``dgraph_inv`` (it was refused as 'linalg.inv: linear algebra is not in the C
    values vocabulary'); its Jacobian JAX's."""
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    A = np.eye(3) + 0.1 * np.ones((3, 3))

    def f(u0):
        def step(u, _):
            return jnp.linalg.solve(A, u + 0.1 * jnp.sin(u)), None

        return jax.lax.scan(step, u0, None, length=3)[0]

    x = np.array([0.3, 0.7, 1.1])
    with jax.enable_x64(True):
        fn = dgraph.make_function(f, "jacobian", "c", point=[np.ones(3)])
        expected = np.asarray(jref.jacobian(f)(x))
    assert fn.generated.verified and "dgraph_inv(" in fn.generated.text
    np.testing.assert_allclose(np.asarray(fn(x)), expected, rtol=1e-12, atol=1e-14)


EINSUMS = [
    ("ab,bc->ac", (4, 3), (3, 5)),  # a dense layer W @ x
    ("ab,b->a", (4, 3), (3,)),
    ("ba,bc->ca", (3, 4), (3, 5)),  # both operands read transposed
    ("ab,ac->bc", (3, 4), (3, 5)),  # an adjoint step's Jᵀ·W
    ("abc,ac->b", (2, 3, 4), (2, 4)),
    ("ij,ij->i", (4, 3), (4, 3)),
    ("a,b->ab", (4,), (3,)),  # nothing summed: assigned
    ("aa,a->a", (3, 3), (3,)),  # a diagonal
    ("ab,bc,c->a", (2, 3), (3, 4), (4,)),
]


@pytest.mark.parametrize(("spec", "first", *"bc"), [(*e, None)[:4] for e in EINSUMS], ids=str)
def test_a_contraction_einsum_in_c_and_cuda_equals_numpy(spec, first, b, c):
    """A contraction (``W @ x`` of a dense layer, and others: transposed operands, a
    diagonal, three operands, nothing summed) in C and in CUDA on the host, against
    NumPy's einsum of the same statements; the first operand the input, the others
    constant arrays (one read transposed through a view). A product of two matrices,
    either read transposed, is a ``dgraph_matmul`` call in C."""
    rng = np.random.default_rng(7)
    shapes = [s for s in (b, c) if s is not None]
    constants = {f"_K{k}": rng.uniform(-1, 1, s) for k, s in enumerate(shapes)}
    operands = [Name("x_"), *(Name(n) for n in constants)]
    if spec.startswith("ba,"):  # the input read through a transpose view
        spec = "ab,bc->ca"
        operands[0] = Call("transpose", (Name("x_"),))
    statements = [ArrayStatement("y", Call("einsum", (Const(spec), *operands)))]
    program, body = _diagonal_program(statements, first, constants)
    values = c_values(program)
    x = rng.uniform(0.5, 1.5, first)
    space = {"x": x, "numpy": np, **constants}
    for s_ in body:
        exec(NumPyArrayPrinter().statement(s_).strip(), space)
    expected = np.ravel(space["y"])
    np.testing.assert_allclose(values.load()(x).data, expected, rtol=1e-13, atol=1e-14)
    if cxx_compiler() is not None:
        np.testing.assert_allclose(values.load_cuda_host()(x).data, expected, rtol=1e-13)
    summed = "->" in spec and set(spec.split("->")[0]) - set(spec.split("->")[1]) - {","}
    assert ("atomicAdd(&" in values.cuda) == bool(summed)  # a kernel adds atomically
    products = ("ab,bc->ac", "ab,bc->ca", "ab,ac->bc")  # of two matrices: dgraph_matmul
    assert ("dgraph_matmul(" in values.text) == (spec in products)


@pytest.mark.parametrize("kind", ["max", "min"])
def test_max_over_axes_in_c_and_cuda_equals_numpy(kind):
    """``max`` (``min``: a matrix's ``ord=-inf`` norm, refused in C before) over one axis
    of an expression, over two axes, and with keepdims read inside an expression (the
    derivative of a max: ``x == max(x, keepdims)``), NaN propagated as NumPy's does."""
    x_ = Name("x_")
    keep = Call(kind, (x_,), (("axis", Const((1,))), ("keepdims", Const(True))))
    statements = [
        ArrayStatement("m1", Call(kind, (Call("sin", (x_,)),), (("axis", Const(0)),))),
        ArrayStatement("m2", Call(kind, (x_,), (("axis", Const((0, 2))),))),
        ArrayStatement("w", Call("where", (BinOp("==", x_, keep), Const(1.0), Const(0.0)))),
        ArrayStatement("m1f", Call("ravel", (Name("m1"),))),
        ArrayStatement(
            "y", Call("concatenate", (Seq((Name("m1f"), Call("ravel", (Name("w"),)), Name("m2"))),))
        ),
    ]
    shape = (3, 4, 2)
    program, body = _diagonal_program(statements, shape)
    values = c_values(program)
    assert f"dgraph_atomic_{kind}" in values.cuda and "atomicCAS" in values.cuda
    rng = np.random.default_rng(8)
    for x in (
        rng.uniform(-1.5, 1.5, shape),
        np.where(np.arange(24).reshape(shape) == 5, np.nan, 1.0),
    ):
        space = {"x": x, "numpy": np}
        for s_ in body:
            exec(NumPyArrayPrinter().statement(s_).strip(), space)
        expected = np.ravel(space["y"])
        np.testing.assert_array_equal(values.load()(x).data, expected)
        if cxx_compiler() is not None:
            np.testing.assert_array_equal(values.load_cuda_host()(x).data, expected)


@pytest.mark.parametrize("make", [arrays.mlp, arrays.extremes], ids=lambda m: m.__name__)
def test_a_dense_layer_and_a_max_graph_in_c_equal_the_numpy_module(make):
    """The graphs the C printer used to refuse (a dense layer's einsum, a max over axes)."""
    g = make()[0]
    rng = np.random.default_rng(9)
    xs = [rng.uniform(0.5, 1.5, g.shape(x)) for x in g.inputs]
    for method in ("forward", "reverse"):
        es = dgraph.accumulate(g, method)
        got = dgraph.make_function(es, "jacobian", lang="c", sparse=True)(*xs)
        want = dgraph.make_function(es, "jacobian", lang="python", sparse=True)(*xs)
        got, want = (got, want) if isinstance(got, tuple) else ((got,), (want,))
        for a, b in zip(got, want, strict=True):
            np.testing.assert_array_equal(a.indices, b.indices)
            np.testing.assert_allclose(a.data, b.data, rtol=1e-13, atol=1e-15)


def _two_by_two(u, v, xp=np):
    return u * v[:3], xp.sin(u).sum() * v


def two_by_two():
    """Two outputs of two inputs at the array level."""
    return dgraph.from_function(_two_by_two, sizes=[(3,), (2, 3)], level="array")


@pytest.mark.parametrize(
    "make", [arrays.stencil_1d, arrays.mlp, two_by_two], ids=lambda m: m.__name__
)
def test_c_dense_is_the_numpy_modules_dense_jacobian(make):
    """``lang="c"`` without ``sparse``: the C values' blocks as dense arrays, in the NumPy
    module's (``jax.jacobian``'s) nesting and shapes, also in ``value_and_jacobian``
    (it was refused: 'C code is the values of the sparse jacobian'); a vjp in C too."""
    g = make()
    g = g[0] if isinstance(g, tuple) else g
    xs = _points(g)
    modes = ("jacobian", "value_and_jacobian") if make is two_by_two else ("jacobian",)
    for mode in modes:
        got = dgraph.make_function(g, mode, lang="c")
        assert got.generated.verified
        want = dgraph.make_function(g, mode, lang="python")(*xs)
        flat_got, flat_want = jax_free_leaves(got(*xs)), jax_free_leaves(want)
        assert len(flat_got) == len(flat_want)
        for a, b in zip(flat_got, flat_want, strict=True):
            assert isinstance(a, np.ndarray) and a.shape == np.shape(b)
            np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-13)
    if make is two_by_two and importlib.util.find_spec("jax") is not None:
        import jax
        import jax.numpy as jnp

        with jax.enable_x64(True):
            ref = jref.jacobian(lambda u, v: _two_by_two(u, v, jnp), argnums=(0, 1))(*xs)
        for a, b in zip(jax_free_leaves(got(*xs)[1]), jax_free_leaves(ref), strict=True):
            np.testing.assert_allclose(a, np.asarray(b), rtol=1e-12, atol=1e-12)
    assert dgraph.make_function(g, "vjp", lang="c").generated.verified  # once refused


def jax_free_leaves(tree) -> list:
    """The arrays of nested tuples, in order."""
    if isinstance(tree, tuple):
        return [leaf for part in tree for leaf in jax_free_leaves(part)]
    return [tree]


MODEL = """
import numpy as np


def F(u):
    lap = -4 * u[1:-1, 1:-1] + u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]
    return lap + np.exp(u[1:-1, 1:-1]) * u[1:-1, 1:-1] ** 2


def E(u):
    return np.sum(F(u) ** 2) + np.sum(np.sin(u[1:, :] * u[:-1, :]))
"""


def test_the_cli_writes_the_c_file_and_its_index_file(tmp_path, capsys):
    model = tmp_path / "model.py"
    model.write_text(MODEL)
    target = tmp_path / "jac.c"
    argv = ["codegen", f"{model}:F", "--inputs", "u:8x8", "--sparse", "-o", str(target)]
    assert main(argv) == 0
    assert "jac.bin" in capsys.readouterr().out
    arrays_read = read_index_file(tmp_path / "jac.bin")
    assert arrays_read["shape"].tolist() == [36, 64]
    text = target.read_text()
    assert f"data[{arrays_read['indices'].size}]" in text
    dense = ["codegen", f"{model}:F", "--inputs", "u:8x8", "-o", str(tmp_path / "dense.c")]
    assert main([*dense, "--mode", "value_and_jacobian"]) == 2  # C without --sparse
    assert "--sparse" in capsys.readouterr().err
    assert not (tmp_path / "dense.c").exists() and not (tmp_path / "dense.bin").exists()


def test_the_cuda_text_has_one_kernel_per_statement_launched_in_order(tmp_path):
    values = c_values(_every_kind())
    kernels = re.findall(r'extern "C" __global__ void (jacobian_values_k\d+)\(', values.cuda)
    launched = re.findall(r"DGRAPH_LAUNCH\((jacobian_values_k\d+),", values.cuda)
    assert kernels and launched == kernels
    assert 'extern "C" void jacobian_values_launch(' in values.cuda
    assert "atomicAdd(&" in values.cuda  # the bincount: positions repeat
    if shutil.which("nvcc") is None:
        return  # text only: it cannot be run here
    source = tmp_path / "values.cu"
    source.write_text(values.cuda)
    command = ["nvcc", "-arch=sm_80", "-c", "-o", str(tmp_path / "values.o"), str(source)]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_cli_writes_the_cuda_file_and_its_index_file(tmp_path, capsys):
    model = tmp_path / "model.py"
    model.write_text(MODEL)
    target = tmp_path / "jac.cu"
    argv = ["codegen", f"{model}:F", "--inputs", "u:8x8", "--sparse", "-o", str(target)]
    assert main(argv) == 0
    assert "jac.bin" in capsys.readouterr().out
    assert "__global__" in target.read_text()
    assert read_index_file(tmp_path / "jac.bin")["shape"].tolist() == [36, 64]


def test_the_c_file_reads_its_own_index_file(tmp_path):
    """Compiled with DGRAPH_LOADER, the C file loads jac.bin and fills the same values."""
    import ctypes

    values = c_values(_every_kind())
    (tmp_path / "jac.bin").write_bytes(values.index_bytes())
    source, library = tmp_path / "jac.c", tmp_path / "jac.so"
    source.write_text(values.text)
    command = [compiler(), "-O2", "-DDGRAPH_LOADER", "-shared", "-fPIC", "-o", str(library)]
    subprocess.run([*command, str(source), "-lm"], check=True)
    lib = ctypes.CDLL(str(library))
    count = len(values.constants) + 3
    arrays, counts = (ctypes.c_void_p * count)(), (ctypes.c_longlong * count)()
    path = str(tmp_path / "jac.bin").encode()
    assert lib.jacobian_values_load(path, arrays, counts, count) == 0
    assert lib.jacobian_values_load(path, arrays, counts, count + 1) == -2
    assert list(counts)[-1] == 2 and list(counts)[-3] == values.nnz
    x = np.random.default_rng(3).uniform(0.5, 1.5, (4, 6))
    data = np.empty(values.nnz)
    lib.jacobian_values.argtypes = [ctypes.c_void_p] * (len(values.constants) + 2)
    lib.jacobian_values(x.ctypes.data, *list(arrays)[: count - 3], data.ctypes.data)
    np.testing.assert_array_equal(data, values.load()(x).data)


def _dense_from_file(tmp_path, argv: list[str], function: str, x, shape) -> np.ndarray:
    """``main(argv)`` writes <function>.c and .bin; the C ``function(x, K…, indices,
    indptr, out)`` compiled with the loader and called on the arrays the .bin holds."""
    import ctypes

    source, library = tmp_path / f"{function}.c", tmp_path / f"{function}.so"
    index = tmp_path / f"{function}.bin"
    assert main([*argv, "-o", str(source)]) == 0
    command = [compiler(), "-O2", "-DDGRAPH_LOADER", "-shared", "-fPIC", "-o", str(library)]
    subprocess.run([*command, str(source), "-lm"], check=True)
    lib = ctypes.CDLL(str(library))
    count = len(read_index_file(index))
    arrays, counts = (ctypes.c_void_p * count)(), (ctypes.c_longlong * count)()
    assert lib.jacobian_values_load(str(index).encode(), arrays, counts, count) == 0
    out = np.full(shape, np.nan)
    getattr(lib, function).argtypes = [ctypes.c_void_p] * (count + 1)
    x = np.ascontiguousarray(x)
    getattr(lib, function)(x.ctypes.data, *list(arrays)[:-1], out.ctypes.data)  # no shape
    return out


def test_the_cli_writes_a_dense_c_jacobian_without_sparse(tmp_path):
    """``codegen model.py:F -o jac.c`` without ``--sparse`` writes the values and a dense
    ``jacobian(in…, K…, indices, indptr, J)`` (it was refused: 'a tensor graph's C code is
    the values of the sparse jacobian; give --sparse'); compiled with the loader, J from
    jac.bin equals NumPy's dense J, zeros off the pattern. ``--mode hessian`` (refused:
    'give --sparse') writes ``hessian(…, H)``, symmetric, equal to the NumPy Hessian."""
    model = tmp_path / "model.py"
    model.write_text(MODEL)
    u = np.random.default_rng(4).uniform(-1, 1, (5, 4))
    argv = ["codegen", f"{model}:F", "--inputs", "u:5x4"]
    J = _dense_from_file(tmp_path, argv, "jacobian", u, (6, 20))
    namespace: dict = {}
    exec(MODEL, namespace)
    graph = dgraph.from_function(namespace["F"], sizes=[(5, 4)], level="array")
    want = dgraph.make_function(graph, lang="python")(u)
    assert np.count_nonzero(J) == 6 * 5  # the pattern's entries, the rest zero (not NaN)
    np.testing.assert_allclose(J, np.reshape(want, (6, 20)), rtol=1e-14, atol=1e-14)
    argv = ["codegen", f"{model}:E", "--inputs", "u:3x3", "--level", "array", "--mode"]
    H = _dense_from_file(tmp_path, [*argv, "hessian"], "hessian", u[:3, :3], (9, 9))
    graph = dgraph.from_function(namespace["E"], sizes=[(3, 3)], level="array")
    want = dgraph.make_function(graph, "hessian")(u[:3, :3])
    np.testing.assert_array_equal(H, H.T)
    np.testing.assert_allclose(H, np.reshape(want, (9, 9)), rtol=1e-13, atol=1e-13)


def test_no_codegen_module_reads_generated_text_back():
    """One IR, printed per target: no module of dgraph.codegen parses Python text (the C
    values once translated the NumPy module's text with ast)."""
    root = Path(dgraph.__file__).parent / "codegen"
    for path in root.rglob("*.py"):
        text = path.read_text()
        assert not re.search(r"^\s*(import ast|from ast import)", text, re.M), path
        assert "ast.parse(" not in text and "literal_eval(" not in text, path


def test_moved_and_new_axes_in_c_and_cuda_equal_numpy():
    """``moveaxis``, ``swapaxes`` and ``expand_dims`` of views, read inside expressions:
    strided views in C (main: 'no shape rule for the array function moveaxis', the C
    printers' shape inference had none; the shared table of
    :mod:`dgraph.codegen.call_shapes` has)."""
    x_ = Name("x_")
    column = Index(x_, (Slice(None, None, None), Const(0), Const(1)))
    swapped = Call("swapaxes", (x_, Const(0), Const(2)))
    flat = Seq((Call("ravel", (Name("a"),)), Call("ravel", (Name("b"),))))
    statements = [
        ArrayStatement("a", Call("sin", (Call("moveaxis", (x_, Const(0), Const(-1))),))),
        ArrayStatement("b", BinOp("*", swapped, Call("expand_dims", (column, Const(0))))),
        ArrayStatement("y", Call("concatenate", (flat,))),
    ]
    shape = (3, 4, 2)
    program, body = _diagonal_program(statements, shape)
    values = c_values(program)
    x = np.random.default_rng(3).uniform(-1.5, 1.5, shape)
    space = {"x": x, "numpy": np}
    for s_ in body:
        exec(NumPyArrayPrinter().statement(s_).strip(), space)
    expected = np.ravel(space["y"])
    assert expected.size == 48
    np.testing.assert_array_equal(values.load()(x).data, expected)
    if cxx_compiler() is not None:
        np.testing.assert_array_equal(values.load_cuda_host()(x).data, expected)


def test_the_cuda_text_finds_each_kernels_pointers_without_a_pattern_per_pointer(monkeypatch):
    """A NumPy loop of 12 steps makes many kernels and many scratch pointers: their pointer
    lists come from one word set per kernel body (a regex per pointer and kernel was
    kernels × pointers compilations: 111 s of rk4_loop's 140 in real_programs7); the
    Jacobian equals the hand-derived product of the steps' Jacobians."""
    from dgraph.codegen.tensor import c_values as module
    from dgraph.codegen.tensor.function import TensorGenerated

    searches = []

    class Counting:
        def __getattr__(self, name):
            if name == "search":
                searches.append(1)
            return getattr(re, name)

    monkeypatch.setattr(module, "re", Counting())

    def f(y):
        for _ in range(12):
            y = y + 0.1 * np.sin(np.roll(y, 1)) * y
        return y

    x = np.linspace(-0.7, 1.1, 8)  # 8 entries: a tensor graph (3 would be scalars)
    J = dgraph.make_function(f, "jacobian", "c", point=[x])
    assert isinstance(J.generated, TensorGenerated)
    want, y = np.eye(8), x.copy()
    P = np.roll(np.eye(8), 1, 0)  # d roll(y, 1) / dy
    for _ in range(12):
        r = np.roll(y, 1)
        step = np.diag(1 + 0.1 * np.sin(r)) + 0.1 * np.diag(y * np.cos(r)) @ P
        want, y = step @ want, y + 0.1 * np.sin(r) * y
    np.testing.assert_allclose(np.asarray(J(x)), want, rtol=1e-12)
    assert len(searches) == 0


def test_prod_and_cumprod_inside_expressions_in_c_and_cuda_equal_numpy():
    """``prod`` over one axis with keepdims and over every axis, ``cumprod`` and
    ``cumsum`` along an axis, read inside expressions and through views (a flip, an
    expand_dims), a cumprod of a concatenate: each computed into a buffer of its own
    first, in C and in CUDA on the host (a product over axes by ``dgraph_atomic_mul``),
    against NumPy (main: 'prod is not in the C values vocabulary')."""
    x_ = Name("x_")

    def f(func, *args, **keywords):
        return Call(func, args, tuple((k, Const(v)) for k, v in keywords.items()))

    joined = f("concatenate", Seq((f("ones", Const((3, 1))), x_)), axis=1)
    flipped = f("flip", f("cumsum", x_, axis=0), Const(0))
    statements = [
        ArrayStatement("a", BinOp("*", f("sin", x_), f("prod", x_, axis=0, keepdims=True))),
        ArrayStatement("b", BinOp("+", f("cumprod", x_, axis=-1), Name("a"))),
        ArrayStatement("c", BinOp("*", flipped, f("prod", x_))),
        ArrayStatement("d", f("expand_dims", f("cumprod", joined, axis=1), Const(0))),
        ArrayStatement("y", f("concatenate", Seq(tuple(f("ravel", Name(n)) for n in "abcd")))),
    ]
    shape = (3, 4)
    program, body = _diagonal_program(statements, shape)
    values = c_values(program)
    x = np.random.default_rng(5).uniform(-1.5, 1.5, shape)
    space = {"x": x, "numpy": np}
    for s_ in body:
        exec(NumPyArrayPrinter().statement(s_).strip(), space)
    expected = np.ravel(space["y"])
    assert expected.size == 3 * 12 + 15
    np.testing.assert_allclose(values.load()(x).data, expected, rtol=1e-14, atol=1e-15)
    assert "dgraph_atomic_mul" not in values.text  # C: a plain product, no helper
    if cxx_compiler() is not None:
        cuda = values.load_cuda_host()(x).data
        np.testing.assert_allclose(cuda, expected, rtol=1e-14, atol=1e-15)
        assert values.cuda.count("void dgraph_atomic_mul(") == 2  # the host's and the GPU's


@needs_jax
def test_a_cumprod_and_prod_program_in_c_equals_numpy_and_jax():
    """The generated C of a program using ``cumprod`` and ``prod`` along axes (its
    Jacobian's program holds cumprods of concatenates inside expressions, flipped and with
    an axis added): the NumPy module's values and JAX's Jacobian (main: 'cumprod is not in
    the C values vocabulary')."""
    import jax
    import jax.numpy as jnp

    from dgraph.frontends import from_jax

    def f(u):
        rows = jnp.sin(jnp.cumprod(u, axis=1)) * jnp.prod(u, axis=0)
        return rows + jnp.cumprod(u[:, 1] * u[:, 0])[:, None]

    u = np.random.default_rng(0).uniform(0.5, 1.5, (4, 5))
    g = from_jax(f, u, level="array")
    _same(g)
    J_c = dgraph.make_function(g, "jacobian", lang="c", sparse=True)
    with jax.enable_x64(True):
        want = np.asarray(jref.jacobian(f)(jnp.asarray(u))).reshape(20, 20)
    np.testing.assert_allclose(J_c.stacked(u).toarray(), want, rtol=1e-13, atol=1e-14)


def test_scratch_buffers_share_entries_where_their_lives_do_not_meet():
    """A scan's Jacobian in C: its buffers share the scratch where one is last read
    before another is made, loop bodies included (each step makes them again; what a
    loop reads from outside, here w, lives through its last statement: without that
    rule a body buffer took w's entries and the code check refused the module, error 2.8
    of the magnitudes); those that share are not ``restrict``. Values equal JAX's.
    Before, every buffer had entries of its own (every offset different)."""
    jax = pytest.importorskip("jax")
    import re

    import jax.numpy as jnp

    def f(x):
        w = jnp.sin(x) * x  # computed before the loop, read by every step
        body = lambda c, _: (jnp.tanh(c * w + x) * jnp.cos(c), None)  # noqa: E731
        return jax.lax.scan(body, x, None, length=4)[0]

    x = np.linspace(-0.9, 0.8, 12)
    with jax.enable_x64(True):
        J = dgraph.make_function(f, "jacobian", "c", point=[x], sparse=True)
        want = np.asarray(jref.jacfwd(f)(x))
    assert J.generated.verified
    np.testing.assert_allclose(J(x).toarray(), want, rtol=1e-12, atol=1e-14)
    text = J.generated.text
    places = re.findall(r"double \*(restrict )?(b\d+\w*) = scratch_double \+ (\d+)L;", text)
    offsets = [int(at) for _, _, at in places]
    assert len(places) > 10 and len(set(offsets)) < len(offsets)  # entries shared
    assert any(not flag for flag, _, _ in places)
    assert all(offsets.count(int(at)) == 1 for flag, _, at in places if flag)


def test_a_matrix_norm_by_minima_in_c_equals_jax():
    """``np.linalg.norm(M, -inf)`` and ``np.min`` over an axis in a sparse C Hessian
    (survey34b: "min is not in the C values vocabulary"), against ``jax.hessian``."""
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    jax.config.update("jax_enable_x64", True)

    def program(xp):
        def f(x):
            M = x.reshape(3, 4)
            by_rows = xp.linalg.norm(M, ord=-xp.inf) ** 2
            return by_rows + xp.sum(xp.min(M**2 + M, axis=1)) + xp.min(x) ** 2

        return f

    x = np.random.default_rng(0).normal(size=12)
    H = dgraph.hessian(program(np), x, lang="c", sparse=True)
    want = np.asarray(jref.hessian(program(jnp))(jnp.asarray(x)))
    np.testing.assert_allclose(H(x).toarray(), want, rtol=1e-12, atol=1e-12)


def test_a_long_unrolled_body_is_printed_in_parts_without_loops_of_one_entry(monkeypatch):
    """A biquad run by a Python loop (each step scalar statements): over PART_LINES lines
    the C body is printed as functions of whole statements called in turn (GCC's time
    grew faster than the body: a 720-step cascade's 38,000-line function took 24 CPU-s
    at -O1, in parts 7.6), a statement of one entry has no loop, and a part and a CUDA
    kernel take only the arrays they read. J·x is the filter itself (linear in x): its columns are
    the impulse responses, run here by NumPy."""
    from dgraph.codegen.tensor import c_values as module

    monkeypatch.setattr(module, "PART_LINES", 40)

    def f(x, sos):
        b0, b1, b2, a0, a1, a2 = sos[0], sos[1], sos[2], sos[3], sos[4], sos[5]
        z1, z2, out = 0.0, 0.0, []
        for n in range(x.shape[0]):
            v = (b0 * x[n] + z1) / a0
            z1 = b1 * x[n] - a1 * v + z2
            z2 = b2 * x[n] - a2 * v
            out.append(v)
        return np.stack(out)

    x, sos = np.linspace(-1.0, 1.0, 24), np.array([0.3, 0.6, 0.3, 1.0, -0.2, 0.1])
    J = dgraph.make_function(f, "jacobian", "c", sparse=True, params=["sos"], point=[x, sos])
    text = J.generated.text
    parts = re.findall(r"static void jacobian_values_part\d+\(", text)
    assert len(parts) >= 3 and "i < 1L" not in text
    body = text[text.index("void jacobian_values_with(") :]
    assert body[: body.index("\n}")].count("jacobian_values_part") == len(parts)
    whole = body[: body.index(")")].count(",")  # each part takes the arguments it reads
    assert max(s.count(",") for s in re.findall(r"static void \w+\(([^)]*)\)", text)) < whole
    want = np.stack([f(e, sos) for e in np.eye(24)], axis=1)
    got = J(x, sos)
    np.testing.assert_allclose(got.toarray(), want, rtol=1e-13, atol=1e-15)
    kernels = re.findall(r'extern "C" __global__ void \w+\(([^)]*)\)', J.generated.values.cuda)
    assert kernels and max(k.count("*__restrict__ K") for k in kernels) <= 2
