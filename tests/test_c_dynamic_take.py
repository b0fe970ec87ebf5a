"""Run-time takes in the C values (issue 55): a take at an ``argmax``, at ``argsort``'s
positions (a stable merge sort in C, :mod:`dgraph.codegen.c_sort`), at a position computed
from the values, ``take_along_axis`` and ``sort`` — their Jacobians and Hessians in C equal
``jax.jacfwd`` and ``jax.hessian`` at points where the positions differ; and ``cumsum``
sliced or reversed (``flip(cumsum(flip(x)))``, from JAX and from NumPy) printed as the
running sum, its ones never an array: one index array of nnz entries, as a plain
``cumsum``'s."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
lax = jax.lax

import dgraph  # noqa: E402
from dgraph import from_jax  # noqa: E402
from dgraph.blocks.cumulative import CumsumPattern  # noqa: E402
from dgraph.codegen.c import compiler  # noqa: E402
from dgraph.codegen.cuda import cxx_compiler  # noqa: E402
from dgraph.codegen.ir import (  # noqa: E402
    ArrayProgram,
    ArrayStatement,
    BinOp,
    Call,
    Const,
    Name,
    SparseMatrix,
)
from dgraph.codegen.tensor.c_values import c_values  # noqa: E402
from dgraph.frontends.functions import from_function  # noqa: E402
from tests import jax_reference as jref  # noqa: E402

pytestmark = [
    pytest.mark.skipif(compiler() is None, reason="no C compiler"),
]


@pytest.fixture(autouse=True)
def _float64():
    with jax.enable_x64(True):
        yield


JACOBIANS = {
    "argmax": (lambda x: x[jnp.argmax(x)] * jnp.sum(x**2), (6,)),
    "argsort-head": (lambda x: x[jnp.argsort(x)[:3]] * x[:3], (5,)),
    "computed-index": (lambda x: x[jnp.clip(jnp.floor(x[0] * 3 + 2).astype(int), 0, 4)] * x, (5,)),
    "take-along-argsort": (
        lambda x: jnp.take_along_axis(x, jnp.argsort(x, axis=1), axis=1),
        (2, 3),
    ),
    "take-along-argmax": (
        lambda x: jnp.sin(jnp.take_along_axis(x, jnp.argmax(x, axis=1)[:, None], axis=1)),
        (3, 4),
    ),
    "sort-columns": (lambda x: jnp.sort(x, axis=0) ** 2, (3, 4)),
    "lexsort": (lambda x: x[0][jnp.lexsort((x[1], jnp.round(x[0] * 2)))] * x[1], (2, 5)),
    "ties": (lambda x: x[jnp.argsort(jnp.round(x * 2))] * jnp.arange(1.0, 7.0), (6,)),
}


def _points(shape, count=3, seed=5):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1.0, 1.0, shape) for _ in range(count)]


def _dense(J):
    return J.toarray() if hasattr(J, "toarray") else np.asarray(J)


@pytest.mark.parametrize("name", sorted(JACOBIANS))
def test_jacobian_in_c_equals_jax(name):
    f, shape = JACOBIANS[name]
    first, *others = _points(shape)
    J = dgraph.make_function(f, "jacobian", point=(first,), lang="c")
    assert J.generated.lang == "c" and J.generated.verified
    for x in (first, *others):  # other points: other positions, other orders
        want = np.asarray(jref.jacfwd(f)(x))
        np.testing.assert_allclose(_dense(J(x)).reshape(want.shape), want, atol=1e-13)


def test_the_positions_differ_between_the_points():
    """The points above are not one order under another name: argsort differs."""
    orders = {tuple(np.argsort(x)) for x in _points((5,))}
    assert len(orders) == 3


def test_argsort_in_c_is_a_merge_sort_and_runs_as_cuda_on_the_host(tmp_path):
    """The sparse Jacobian's C text calls the stable sort; the CUDA kernels (run by one
    host thread) give the same values, with ties in the keys."""
    f = lambda x: x[jnp.argsort(jnp.round(x * 2))] * x  # noqa: E731 (ties in the keys)
    x = np.array([0.3, -0.2, 0.9, 0.1, 0.26, -0.9, 0.7, 0.05, -0.45])
    J = dgraph.make_function(f, "jacobian", point=(x,), lang="c", sparse=True)
    assert "dgraph_argsort(" in J.generated.text
    for z in (x, x[::-1].copy()):
        want = np.asarray(jref.jacfwd(f)(z))
        np.testing.assert_allclose(_dense(J(z)), want, atol=1e-13)
        if cxx_compiler() is not None:
            got = J.generated.values.load_cuda_host()(z)
            np.testing.assert_allclose(got.toarray(), want, atol=1e-13)
    if shutil.which("nvcc") is not None:  # the sort a __device__ function: nvcc takes it
        source = tmp_path / "values.cu"
        source.write_text(J.generated.values.cuda)
        out = str(tmp_path / "values.cubin")  # device code (the launcher: c_values' tests)
        command = ["nvcc", "-arch=sm_80", "-cubin", "-o", out, str(source)]
        done = subprocess.run(command, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr


def test_argsort_in_c_puts_nan_last_as_jax():
    """NaN keys sort after every number, in their order (JAX's and NumPy's rule): the
    permutation's Jacobian is JAX's at a point with NaN."""
    f = lambda x: x[jnp.argsort(x)]  # noqa: E731
    J = dgraph.make_function(f, "jacobian", point=(np.linspace(-1, 1, 7),), lang="c")
    z = np.array([0.2, np.nan, -0.4, 0.2, 0.9, np.nan, 0.0])
    want = np.asarray(jref.jacfwd(f)(z))
    assert np.isfinite(want).all()
    np.testing.assert_array_equal(_dense(J(z)), want)


def test_arange_read_inside_an_expression_has_its_start_and_step():
    """``x * arange(2, 14, 2)`` (the arange a buffer of its own first): J's diagonal is
    2, 4, ..., 12, not 0..5."""
    x_ = Name("x_")
    bounds = (Const(2), Const(14), Const(2))
    statements = [
        ArrayStatement("x_", Call("reshape", (Call("asarray", (Name("x"),)), Const((6,))))),
        ArrayStatement("y", BinOp("*", x_, Call("arange", bounds))),
        ArrayStatement("J", SparseMatrix(Name("y"), Name("_K0"), Name("_K1"), (6, 6))),
    ]
    constants = {"_K0": np.arange(6, dtype=np.int32), "_K1": np.arange(7, dtype=np.int32)}
    program = ArrayProgram("jacobian", ("x",), ((6,),), ("x",), statements, ["J"], constants)
    x = np.linspace(0.5, 1.0, 6)
    np.testing.assert_array_equal(c_values(program).load()(x).diagonal(), x * np.arange(2, 14, 2))


HESSIANS = {
    "argmax": (lambda x: x[jnp.argmax(x)] * jnp.sum(x**2), (6,)),
    "argsort-head": (lambda x: jnp.sum(jnp.sin(x[jnp.argsort(x)[:3]]) * x[:3]), (5,)),
    "computed-index": (
        lambda x: jnp.sum(jnp.sin(x[jnp.clip(jnp.floor(x[0] * 3 + 2).astype(int), 0, 4)] * x)),
        (5,),
    ),
    "take-along-argsort": (
        lambda x: jnp.sum(jnp.take_along_axis(x, jnp.argsort(x, axis=1), axis=1) ** 3 * x),
        (2, 3),
    ),
    "argmax-in-loop": (  # the hostile corpus's argmax_in_loop: once refused in C
        lambda c: lax.fori_loop(0, 3, lambda i, y: y * jnp.sin(y[jnp.argmax(y)]), c).sum(),
        (3,),
    ),
}


@pytest.mark.parametrize("name", sorted(HESSIANS))
def test_hessian_in_c_equals_jax(name):
    f, shape = HESSIANS[name]
    first, *others = _points(shape, seed=8)
    H = dgraph.make_function(f, "hessian", point=(first,), lang="c")
    assert H.generated.verified
    for x in (first, *others):
        want = np.asarray(jref.hessian(f)(x))
        got = _dense(H(x))
        np.testing.assert_allclose(got.reshape(want.shape), want, atol=1e-12)


# -- cumsum sliced and reversed: the running sum, not explicit triangles ---------------------

N = 40


def _numpy_reversed(x):
    return np.sin(np.flip(np.cumsum(np.flip(x))))


def _numpy_sliced(x):
    return np.sin(np.cumsum(x[::-1])[::-1][3:])


RUNNING = {  # name: (function, graph, J at x by hand: cos(y_i) on its running sum's entries)
    "cumsum": lambda x: jnp.sin(jnp.cumsum(x)),
    "sliced": lambda x: jnp.sin(jnp.cumsum(x)[5:]),
    "stepped": lambda x: jnp.sin(jnp.cumsum(x)[::2]),
    "flipped": lambda x: jnp.sin(jnp.flip(jnp.cumsum(jnp.flip(x)))),
    "reversed": lambda x: jnp.sin(lax.cumsum(x, reverse=True)),
}


def _running_case(name: str, x: np.ndarray):
    """The graph and J at ``x`` (JAX's, or for the NumPy functions by hand)."""
    if name in RUNNING:
        f = RUNNING[name]
        return from_jax(f, x, level="array"), np.asarray(jref.jacfwd(f)(x))
    f = {"numpy-reversed": _numpy_reversed, "numpy-sliced": _numpy_sliced}[name]
    g = from_function(f, sizes=[(N,)], level="array", point=[x])
    upper = np.triu(np.ones((N, N)))  # d y_i / d x_j = cos(y_i) for j >= i
    J = np.cos(np.cumsum(x[::-1])[::-1])[:, None] * upper
    return g, J[3:] if name == "numpy-sliced" else J


@pytest.mark.parametrize("name", [*RUNNING, "numpy-reversed", "numpy-sliced"])
def test_cumsum_sliced_or_reversed_stays_a_running_sum_in_c(name):
    x = np.random.default_rng(2).uniform(-1.0, 1.0, N)
    g, want = _running_case(name, x)
    assert any(isinstance(g.block(s, t), CumsumPattern) for s, t in g.edges())
    J = dgraph.make_function(g, "jacobian", lang="c", sparse=True)
    values = J.generated.values
    assert values.nnz == np.count_nonzero(want)
    # one index array of nnz entries (the gather of cos(y) onto the entries), as a plain
    # cumsum's: no constant of ones, no second triangle of indices
    assert [a.size for a in values.constants.values()] == [values.nnz]
    assert all(a.dtype.kind in "iu" for a in values.constants.values())
    assert values.text.count("for (long j = 1;") == 1  # the running sum: one loop
    np.testing.assert_allclose(J(x).toarray(), want, atol=1e-13)


def test_a_reversed_cumsum_hessian_in_c_multiplies_by_no_ones():
    """The Hessian of ``sum(sin(flip(cumsum(flip(x)))))`` in C: JAX's, and its float
    constants those of the plain cumsum's Hessian (the gradient's seed), not an array of
    ones per entry beside them (the flips' ones, one per pair, were gathered and
    multiplied in: 1,600 of them at n = 40)."""
    x = np.random.default_rng(4).uniform(-1.0, 1.0, N)

    def floats(f):
        H = dgraph.make_function(f, "hessian", point=(x,), lang="c", sparse=True)
        np.testing.assert_allclose(H(x).toarray(), np.asarray(jref.hessian(f)(x)), atol=1e-12)
        constants = H.generated.values.constants.values()
        return sorted(a.size for a in constants if a.dtype.kind == "f")

    plain = floats(lambda x: jnp.sum(jnp.sin(jnp.cumsum(x))))
    flipped = floats(lambda x: jnp.sum(jnp.sin(jnp.flip(jnp.cumsum(jnp.flip(x))))))
    assert flipped == plain and max(plain) < N * N
