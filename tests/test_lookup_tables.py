"""Table lookups as simulations write them: ``jnp.interp`` and ``jnp.searchsorted`` (its
binary search a ``scan`` of integer carries; its comparisons JAX's totalOrder ``lt_to`` /
``le_to``), a gather that keeps the axis it indexes (``vmap`` of ``dynamic_slice``), and
integer values built from one another step by step, whose nested operations share their
parts: each is read once, not once per path to it."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import dgraph
from dgraph.blocks.arrays import ArrayOp, operand_value
from dgraph.frontends import from_python

jax = pytest.importorskip("jax")
jnp = jax.numpy

from tests import jax_reference as jref  # noqa: E402
from tests.jax_reference import Reference as Ref  # noqa: E402

XP = np.linspace(0.0, 1.0, 7)
FP = np.sin(3.0 * XP)
X = np.array([0.05, 0.3, 0.5, 0.5, 0.99, 0.71])  # 0.5 is a knot: the sides differ there


def _interp(x):
    return jnp.sum(jnp.interp(x, XP, FP) ** 2 * x)


def _lookup(method: str, side: str):
    def f(x):
        i = jnp.clip(jnp.searchsorted(XP, x, side=side, method=method), 1, len(XP) - 1)
        lo, hi = jnp.asarray(XP)[i - 1], jnp.asarray(XP)[i]
        t = (x - lo) / (hi - lo)
        return jnp.sum((jnp.asarray(FP)[i - 1] * (1 - t) + jnp.asarray(FP)[i] * t) ** 2 * x)

    return f


def _gathered(x):
    """``vmap`` of ``dynamic_slice`` of one entry at positions the inputs choose."""
    at = jnp.argsort(x)[:3]
    rows = jax.vmap(lambda i: jax.lax.dynamic_slice(x, (i,), (1,)))(at)
    return jnp.sum(rows[:, 0] ** 3) + jnp.sum(rows * x[:3, None])


def _stepped(x):
    """An integer read thirty times from itself (2**30 paths)."""
    k = jnp.argmax(x)
    for _ in range(30):
        k = (k + k) % 7
    return jnp.sum(jnp.where(k > 2, x**2, jnp.sin(x)))


def _top_k(x):
    return jnp.sum(jax.lax.top_k(x, 3)[0] ** 2 * jnp.arange(1.0, 4.0)) + jnp.sum(jnp.sin(x))


X_GATHER = np.array([0.7, 0.2, 0.9, 0.4, 0.1])
X_STEPPED = np.array([0.3, 0.9, 0.1])
X_TOP_K = np.array([0.7, 1.2, 0.7, 0.1, 1.2, 0.3])
METHODS = [(m, side) for m in ("scan", "compare_all") for side in ("left", "right")]


@functools.cache
def _references() -> dict:
    """Every JAX derivative this file compares with (float64), stored as data
    (tests/jax_reference_store.py), the misses in one jitted program: one compile, not
    one per eager primitive (read-only arrays)."""
    wanted = {
        "interp-grad": Ref("grad", _interp, (X,)),
        "interp-hessian": Ref("hessian", _interp, (X,)),
        "interp-grad-moved": Ref("grad", _interp, (X + 0.03,)),
        "gather": Ref("grad", _gathered, (X_GATHER,)),
        "stepped": Ref("jacfwd", _stepped, (X_STEPPED,)),
        "top_k": Ref("hessian", _top_k, (X_TOP_K,)),
    }
    for method, side in METHODS:
        wanted[f"{method}-{side}"] = Ref("grad", _lookup(method, side), (X,))
    with jax.enable_x64(True):
        return dict(zip(wanted, jref.references(list(wanted.values())), strict=True))


def test_interp_gradient_and_hessian_equal_jax():
    grad = dgraph.make_function(_interp, "jacobian", point=[X])
    hess = dgraph.hessian(_interp, X)
    want = _references()
    np.testing.assert_allclose(np.ravel(grad(X)), want["interp-grad"], rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(hess(X), want["interp-hessian"], atol=1e-13)
    moved = X + 0.03  # other intervals than the point it was built at
    np.testing.assert_allclose(
        np.ravel(grad(moved)), want["interp-grad-moved"], rtol=1e-13, atol=1e-15
    )


@pytest.mark.parametrize("method", ["scan", "compare_all"])  # "sort": plain comparisons
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_each_method_and_side_gives_jax_s_gradient(method, side):
    """At a knot (x = 0.5, in X) left and right pick other intervals, so other slopes
    (asserted of JAX's): the binary search's rewrite must find the side asked for."""
    f = _lookup(method, side)
    want = _references()[f"{method}-{side}"]
    other = _references()[f"{method}-{'right' if side == 'left' else 'left'}"]
    assert not np.allclose(want, other)
    grad = dgraph.make_function(f, "jacobian", point=[X])
    np.testing.assert_allclose(np.ravel(grad(X)), want, rtol=1e-13, atol=1e-15)


def test_compare_all_is_jax_s_total_order_comparisons():
    """``method="compare_all"`` compares with ``lt_to`` (left) and ``le_to`` (right), which
    the reader takes as ``lt`` with NaN last: the gradients above equal JAX's through them."""
    for side, primitive in (("left", "lt_to"), ("right", "le_to")):
        with jax.enable_x64(True):
            traced = jax.make_jaxpr(_lookup("compare_all", side))(X)
        assert primitive in str(traced)


def test_a_gather_keeping_its_axis_at_computed_positions():
    """``vmap`` of ``dynamic_slice`` of one entry: a gather whose sliced axis stays (size
    1) at positions the inputs choose."""
    x = X_GATHER
    with jax.enable_x64(True):
        kept = jax.make_jaxpr(_gathered)(x)
    gathers = [e for e in kept.jaxpr.eqns if e.primitive.name == "gather"]
    assert gathers and not gathers[0].params["dimension_numbers"].collapsed_slice_dims
    grad = dgraph.make_function(_gathered, "jacobian", point=[x])
    np.testing.assert_allclose(np.ravel(grad(x)), _references()["gather"], rtol=1e-14)


def _shared_chain(depth: int) -> ArrayOp:
    """``k_{t+1} = k_t + k_t``: 2**depth paths to the vertex, ``depth`` operations."""
    k: ArrayOp | str = "x"
    for _ in range(depth):
        k = ArrayOp("add", (k, k), (), ())
    return ArrayOp("mul", (k, "y"), (), ())


def test_nested_operations_sharing_parts_are_walked_once():
    op = _shared_chain(200)  # walked path by path: 2**200 visits
    assert op.vertices() == ["x", "y"]
    np.testing.assert_equal(
        operand_value(op, {"x": np.array(1.0), "y": np.array(3.0)}), 3.0 * 2.0**200
    )


def test_an_integer_built_step_by_step_from_itself():
    """Thirty steps each reading the last twice (2**30 paths): the graph, its element
    level and the generated code read each step once."""
    x = X_STEPPED
    grad = dgraph.make_function(_stepped, "jacobian", point=[x])
    np.testing.assert_allclose(np.ravel(grad(x)), _references()["stepped"], rtol=1e-14)


def test_top_k_hessian_equals_jax():
    """The gradient of ``top_k`` scatter-adds at its indices: read as a stable argsort's
    first k, the Hessian through it is built (refused before) and equals JAX's, ties
    included."""
    x = X_TOP_K
    np.testing.assert_allclose(dgraph.hessian(_top_k, x)(x), _references()["top_k"], atol=1e-14)


# -- np.searchsorted as one operation (session 50): a binary search per query ----------

TABLE = np.array([0.0, 0.25, 0.25, 0.5, 1.0])  # a tie at 0.25
# outside, at each knot (the tie too), between, NaN (NumPy: after every number), -0.0, ±inf
QUERIES = np.array([-1.0, 0.0, 0.25, 0.3, 0.5, 1.0, 2.0, np.nan, -0.0, np.inf, -np.inf, 0.7])


def _positions(x):
    """Its gradient is both sides' positions, ``left + 100·right``: exact integers."""
    return np.sum(x * (np.searchsorted(TABLE, x) + 100 * np.searchsorted(TABLE, x, "right")))


def _numpy_positions(z):
    return np.searchsorted(TABLE, z) + 100 * np.searchsorted(TABLE, z, side="right")


@pytest.mark.parametrize(
    "level, lang", [("array", "python"), ("array", "c"), ("array", "jax"), ("element", "python")]
)
def test_searchsorted_positions_are_numpy_s(level, lang):
    """Left and right, ties, queries outside, NaN (position m on either side: the
    comparisons gave 0), ±0 and ±inf: NumPy's positions from the generated code (a binary
    search at the array level; the count of comparisons at the element level)."""
    if lang == "c":
        from dgraph.codegen.c import compiler

        if compiler() is None:
            pytest.skip("no C compiler")
    z = QUERIES if level == "array" else QUERIES[[2, 4, 7, 10]]  # sympy's: fewer
    point = np.linspace(-0.2, 1.2, z.size) + 0.013  # no knot: the check's point
    graph = from_python(_positions, point=[point], level=level)
    method = "forward" if level == "element" else None  # the choice's (the same code)
    made = dgraph.make_function(graph, "vjp", lang=lang, method=method)
    assert made.generated.verified
    w = np.ones(()) if level == "array" else np.ones(1)
    np.testing.assert_array_equal(np.ravel(made(z, w)), _numpy_positions(z))


def test_searchsorted_in_c_is_a_binary_search_and_runs_as_cuda_on_the_host():
    """The sparse Jacobian's C text calls ``dgraph_searchsorted``, counted as its
    ``ceil(log2(m + 1))`` comparisons a query (3 in a table of 5: the comparisons were 5,
    and 4 adds); its CUDA kernels (run by one host thread) give the same positions, NaN's
    included."""
    from dgraph.codegen.c import compiler
    from dgraph.codegen.cuda import cxx_compiler

    if compiler() is None:
        pytest.skip("no C compiler")
    point = np.linspace(-0.2, 1.2, QUERIES.size) + 0.013
    graph = from_python(_positions, point=[point], level="array")
    J = dgraph.make_function(graph, "jacobian", lang="c", sparse=True)
    assert J.generated.verified and "dgraph_searchsorted(" in J.generated.text
    ops = J.generated.ops.ops
    assert (ops.compares, ops.adds) == (2 * 3 * QUERIES.size, QUERIES.size)
    want = _numpy_positions(QUERIES)
    np.testing.assert_array_equal(np.ravel(J(QUERIES).toarray()), want)
    if cxx_compiler() is not None:
        got = J.generated.values.load_cuda_host()(QUERIES)
        np.testing.assert_array_equal(np.ravel(got.toarray()), want)


def test_searchsorted_of_passive_queries():
    """Queries that are themselves passive (``np.floor``'s, ``np.round``'s, in
    ``np.interp`` too): refused before ("numpy.searchsorted of a comparison"); now the
    operation of their nested operation: NumPy's positions and values."""

    def f(x):
        cells = np.searchsorted(TABLE, np.floor(x * 4) / 4, "right")
        return np.sum(x * cells) + np.sum(x * np.interp(np.round(x * 2) / 2, XP, FP))

    point = np.linspace(-0.2, 1.2, 30) + 0.013
    made = dgraph.make_function(from_python(f, point=[point], level="array"), "jacobian")
    z = np.concatenate([QUERIES, point[QUERIES.size :]])
    want = np.searchsorted(TABLE, np.floor(z * 4) / 4, "right")
    want = want + np.interp(np.round(z * 2) / 2, XP, FP)
    assert made.generated.verified
    np.testing.assert_array_equal(np.ravel(made(z)), want)


def _largest(op) -> int:
    """The most entries an operation nested in ``op`` (or ``op``) makes."""
    inner = [_largest(u) for u in op.operands if isinstance(u, ArrayOp)]
    return max([int(np.prod(op.shape)), *inner])


def test_searchsorted_and_interp_make_no_array_of_queries_by_table():
    """n queries in a table of m = 900: the graph's largest array (nested operations
    included) has n entries, not n × m (each query compared with each entry), and the
    generated code calls searchsorted (C: its binary search)."""
    n, table = 2000, np.linspace(0.0, 1.0, 900)
    fp = np.sin(3.0 * table)

    def f(x):
        return np.sum(x * np.searchsorted(table, x, "right") + np.interp(x, table, fp) ** 2)

    x = np.linspace(-0.1, 1.1, n) + 1e-4
    g = from_python(f, point=[x], level="array")
    assert max(_largest(g.op(v)) for v in g.vertices if g.op(v) is not None) == n
    assert "numpy.searchsorted(" in dgraph.make_function(g, "vjp").generated.text
