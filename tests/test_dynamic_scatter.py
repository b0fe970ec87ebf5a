"""Scatter-adds at positions computed from the inputs (``scatter_add_dynamic``, the
transpose of ``take_dynamic``): Jacobians, ``jvp`` and ``vjp`` of such scatters, and
Hessians through takes at run-time positions (JAX's gradient holds the scatter), in
NumPy and JAX, dense and sparse, equal JAX's at two points whose orders differ; a sparse
pattern is the union over positions; over its limit it is refused in one line."""

from __future__ import annotations

import functools

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
lax = jax.lax

import dgraph  # noqa: E402
from dgraph import from_jax  # noqa: E402
from dgraph.blocks.arrays import ArrayOp  # noqa: E402
from dgraph.blocks.dynamic_scatter import (  # noqa: E402
    DYNAMIC_ADD,
    add_block,
    add_forward,
    add_value,
)
from dgraph.codegen.function import make_function  # noqa: E402
from dgraph.errors import DGraphError  # noqa: E402

X0 = np.array([0.3, -0.7, 1.1, 0.5, -1.3, 0.9])
X1 = np.array([1.2, 0.4, -0.9, 0.8, 0.1, -0.5])  # another order, another argmax
W = jnp.arange(6.0)


@pytest.fixture(autouse=True)
def _float64():
    with jax.enable_x64(True):
        yield


@functools.cache
def _hessian_of(f):
    """``jax.hessian(f)`` jitted, once per function: one compilation for all its tests."""
    return jax.jit(jax.hessian(f))


@functools.cache
def _derivatives_of(f):
    """JAX's value, ``jvp`` along ``v``, ``vjp`` of ``w`` and Jacobian (``jacfwd``) of ``f``
    at ``x``: one jitted program per function, where each operation run eagerly compiles
    a program of its own (most of this file's time)."""

    def derivatives(x, v, w):
        y, tangent = jax.jvp(f, (x,), (v,))
        (bar,) = jax.vjp(f, x)[1](w)
        return y, tangent, bar, jax.jacfwd(f)(x)

    return jax.jit(derivatives)


@functools.cache
def _value_and_jacobian_of(f):
    """JAX's value and Jacobian (``jacfwd``) of ``f``, one jitted program per function."""
    return jax.jit(lambda x: (f(x), jax.jacfwd(f)(x)))


def _start(x):
    return jnp.argmax(x) // 2


HESSIANS = {
    "sort-weighted": lambda x: jnp.sum(jnp.sort(x) * W) + jnp.sum(x**2),
    "largest-times-norm": lambda x: x[jnp.argmax(x)] * jnp.sum(x**2),
    "take-along-squared": lambda x: jnp.sum(
        jnp.take_along_axis(x, jnp.argsort(x), axis=0) ** 2 * W
    ),
    "window-at-traced-start": lambda x: jnp.sum(lax.dynamic_slice(x, (_start(x),), (3,)) ** 3),
}


# each function in each language, and dense and sparse; each language dense and sparse
# (every pair of the three choices met, not the 16 triples: the same printers again);
# take-along-squared sparse in NumPy, the build the union test below reads too
HESSIAN_RUNS = [
    (name, lang, sparse != (k % 2 == 1 or name == "take-along-squared"))
    for k, name in enumerate(sorted(HESSIANS))
    for lang, sparse in (("python", False), ("jax", True))
]


@functools.cache
def _hessian(name: str, lang: str, sparse: bool):
    """``make_function(HESSIANS[name], "hessian", lang, ...)`` at X0, made once."""
    return dgraph.make_function(HESSIANS[name], "hessian", lang, point=[X0], sparse=sparse)


@pytest.mark.parametrize(("name", "lang", "sparse"), HESSIAN_RUNS)
def test_hessians_equal_jax_at_two_orders(name, lang, sparse):
    f = HESSIANS[name]
    h = _hessian(name, lang, sparse)
    assert h.generated.verified
    reference = _hessian_of(f)
    for x in (X0, X1):
        got = h(x)
        got = (got.todense() if lang == "jax" else got.toarray()) if sparse else got
        np.testing.assert_allclose(np.asarray(got), reference(x), rtol=1e-12, atol=1e-13)


def test_a_sparse_hessian_s_pattern_is_the_union_over_positions():
    """take_along_axis(x, argsort(x))**2 · w: the scatter-add at argsort's positions is
    the inverse of the take at them (one order, ``blocks.orders``), so the Hessian is
    Pᵀ·diag·P, diagonal at every point: its union the 6 diagonal entries, not the 36 of
    the take's union times the scatter's; the entry w[0] weighs is stored as a zero at
    both points (JAX's Hessian has 5 nonzeros), the values JAX's."""
    f = HESSIANS["take-along-squared"]
    h = _hessian("take-along-squared", "python", True)
    for x in (X0, X1):
        got = h(x)
        assert got.nnz == 6
        reference = np.asarray(_hessian_of(f)(x))
        assert np.count_nonzero(reference) == 5
        np.testing.assert_allclose(got.toarray(), reference, rtol=1e-12, atol=1e-13)


def _drop(x):
    return jnp.zeros(6).at[jnp.argsort(x)[:4] + 3].add(x[:4] ** 2, mode="drop")


def _clip(x):
    return jnp.zeros(6).at[jnp.argsort(x)[:4] + 3].add(x[:4] ** 2, mode="clip")


def _rows(x):  # the transpose of take_along_axis of an n-d array: one position per update
    return jax.grad(lambda y: jnp.sum(jnp.take_along_axis(y, jnp.argsort(y, axis=1), 1) ** 3))(x)


JACOBIANS = {
    "1-d-argsort": (lambda x: jnp.zeros(6).at[jnp.argsort(x)].add(x**2), (6,)),
    "1-d-repeated": (lambda x: jnp.zeros(3).at[jnp.argsort(x) // 2].add(jnp.sin(x)), (6,)),
    "0-d-update": (lambda x: jnp.sin(x).at[jnp.argmax(x)].add(x[0] * x[1]), (6,)),
    "fill-drops": (_drop, (6,)),
    "clip": (_clip, (6,)),
    "n-d-along": (_rows, (2, 3)),
    "n-d-column": (lambda m: jnp.zeros((3, 4)).at[:, jnp.argsort(m[0])].add(m**2), (3, 4)),
    "n-d-row": (lambda m: m.at[jnp.argmax(m[:, 0])].add(m[0] ** 2), (3, 4)),
    "window-2-d": (
        lambda m: lax.dynamic_update_slice(
            jnp.zeros((3, 3)), m[:2, :2] ** 2, (jnp.argmax(m[:, 0]), 1)
        ),
        (3, 3),
    ),
    "set-one": (lambda x: jnp.zeros(6).at[jnp.argmax(x)].set(x[0] * x[1]), (6,)),
    "set-distinct": (
        lambda x: jnp.zeros(6).at[jnp.argsort(x)[:4]].set(x[:4] ** 2, unique_indices=True),
        (6,),
    ),
    "window-clamped": (
        lambda x: lax.dynamic_update_slice(jnp.zeros(5), x[:2] ** 2, (jnp.argmax(x) + 3,)),
        (4,),
    ),
}
RUNS = [(n, "python") for n in sorted(JACOBIANS)] + [("1-d-argsort", "jax"), ("window-2-d", "jax")]


@pytest.mark.parametrize(("name", "lang"), RUNS)
def test_jacobian_jvp_and_vjp_equal_jax(name, lang):
    f, shape = JACOBIANS[name]
    rng = np.random.default_rng(12)
    x = rng.uniform(-1.0, 1.0, shape)
    g = from_jax(f, x, level="array")
    assert DYNAMIC_ADD in {g.op(v).primitive for v in g.nx if g.op(v) is not None}
    jvp, vjp = make_function(g, "jvp", lang), make_function(g, "vjp", lang)
    jac = make_function(g, "jacobian", lang)
    for F in (jvp, vjp, jac):
        assert F.generated.verified
    out_shape = jax.eval_shape(f, x).shape
    for point in (x, -x[::-1]):  # another order
        v, w = rng.standard_normal(shape), rng.standard_normal(out_shape)
        _, tangent, bar, reference = _derivatives_of(f)(point, v, w)
        np.testing.assert_allclose(jvp(point, v), tangent, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(vjp(point, w), bar, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(jac(point), reference, rtol=1e-12, atol=1e-14)


def test_a_sparse_jacobian_s_pattern_is_the_union_over_positions():
    f = JACOBIANS["1-d-argsort"][0]
    sparse = make_function(from_jax(f, X0, level="array"), "jacobian", "python", sparse=True)
    for point in (X0, X1):
        got = sparse(point)
        assert got.nnz == 36  # 6 hit, 30 stored as zeros
        np.testing.assert_array_equal(got.toarray(), _value_and_jacobian_of(f)(point)[1])


def _op(mode: str, size: int, n: int, **more) -> ArrayOp:
    params = {"axis": 0, "mode": mode, "size": size, "length": n, "fill": 0.0, **more}
    return ArrayOp(DYNAMIC_ADD, ("x", "i", "u"), tuple(params.items()), (n,))


def test_the_value_adds_repeats_and_drops_out_of_range():
    x, u = np.arange(4.0), np.array([10.0, 20.0, 30.0, 40.0])
    at = np.array([1, 1, 5, -1])
    np.testing.assert_array_equal(add_forward(_op("fill", 4, 4), [x, at, u]), [0, 31, 2, 3])
    np.testing.assert_array_equal(add_forward(_op("clip", 4, 4), [x, at, u]), [40, 31, 2, 33])
    window = add_forward(_op("window", 2, 4), [x, np.array(7), u[:2]])  # start clamped: 2
    np.testing.assert_array_equal(window, [0, 1, 12, 23])


def test_the_union_is_refused_over_its_limit():
    with pytest.raises(DGraphError, match="union over positions") as raised:
        add_block(_op("clip", 8000, 8000), 2, (8000,))
    assert "\n" not in str(raised.value)
    assert add_block(_op("clip", 8000, 8000), 0, (8000,)).type_name == "identity"


def test_c_prints_a_scatter_that_drops_and_one_that_clips():
    """C prints ``mode="drop"`` (the default) and ``mode="clip"`` (C values print ``clip``
    since clinalg24; it was refused in one line), each equal to JAX at positions out of
    range and repeated."""
    from dgraph.codegen.c import compiler

    if compiler() is None:
        pytest.skip("no C compiler")
    floor = lambda x: x.at[jnp.floor(x).astype(jnp.int32)].add(x * 2.0)  # noqa: E731
    g = from_jax(floor, np.array([0.3, 1.7, 2.1, 0.5]), level="array")
    sparse = make_function(g, "jacobian", "c", sparse=True)
    assert sparse.generated.verified
    for x in ([0.3, 1.7, 2.1, 0.5], [3.5, 3.2, -0.5, 7.0], [1.1, 1.2, 1.3, 0.1]):
        got = sparse(np.array(x))
        assert got.nnz == 16
        np.testing.assert_array_equal(got.toarray(), _value_and_jacobian_of(floor)(np.array(x))[1])
    clip = lambda x: x.at[jnp.floor(x).astype(jnp.int32)].add(x * 2.0, mode="clip")  # noqa: E731
    g = from_jax(clip, np.array([0.3, 1.7, 2.1, 0.5]), level="array")
    clipped = make_function(g, "jacobian", "c", sparse=True)
    assert clipped.generated.verified
    for x in ([0.3, 1.7, 2.1, 0.5], [3.5, 3.2, -0.5, 7.0], [1.1, 1.2, 1.3, 0.1]):
        want = _value_and_jacobian_of(clip)(np.array(x))[1]
        np.testing.assert_array_equal(clipped(np.array(x)).toarray(), want)


REFUSED = {  # JAX has no derivative of either
    "apply": lambda x: x.at[jnp.argmax(x)].apply(jnp.sin),
    "mul-may-repeat": lambda x: x.at[jnp.argsort(x) // 2].mul(x),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_writes_jax_does_not_differentiate_are_refused_in_one_line(name):
    """A ``scatter`` applying a function (``.at[].apply``: JAX's ``_scatter_jvp`` refuses
    its ``update_jaxpr``) and a product at positions that may repeat (JAX differentiates
    ``scatter_mul`` only with ``unique_indices``): one line naming the operation."""
    with pytest.raises(dgraph.InputError) as raised:
        from_jax(REFUSED[name], X0, level="array")
    text = str(raised.value)
    assert "\n" not in text and "scatter" in text and "not supported" in text, text


# -- replacing writes: .set into anything, at positions that may repeat ----------------------
# The positions are the inputs' floors, so each point chooses them: P[0] repeats 0 and 5
# (the ends) and has -1 (JAX reads it as 5), P[1] repeats 5 three times, P[2] has 6 and
# -7 (out of range: dropped, or clipped by mode="clip"), P[3] is drawn.

P = [
    np.array([0.5, 0.2, 5.7, 5.1, 2.3, -0.5]),
    np.array([5.5, 5.2, 5.9, 0.1, 0.4, 3.3]),
    np.array([1.5, 2.5, 3.5, 4.5, 6.5, -6.5]),
    np.random.default_rng(7).uniform(0.0, 6.0, 6),
]


def _at(x):
    return jnp.floor(x).astype(jnp.int32)


def _grid(x):
    return jnp.outer(x, x[:4])


SETS = {
    "1-d-into-x": lambda x: jnp.sin(x).at[_at(x)].set(x**2),
    "1-d-clip": lambda x: (3.0 * x).at[_at(x)].set(x**2, mode="clip"),
    "0-d-update-into-x": lambda x: jnp.asarray(x).at[_at(x[0])].set(x[1] * x[2]),
    "into-zeros-repeated": lambda x: jnp.zeros(6).at[_at(x)].set(x**3),
    "into-a-constant": lambda x: jnp.arange(6.0).at[_at(x[:4])].set(x[2:] ** 2),
    "n-d-rows": lambda x: _grid(x).at[_at(x[:3])].set(jnp.outer(x[:3], x[2:]) ** 2),
    "n-d-columns": lambda x: _grid(x).at[:, _at(x[3:])].set(jnp.outer(x, x[:3])),
    "n-d-along": lambda x: jax.vmap(lambda r: r.at[_at(r) % 3].set(r**2))(x.reshape(2, 3)),
    "unique-into-x": lambda x: jnp.cos(x).at[jnp.argsort(x)[:3]].set(x[:3], unique_indices=True),
    "window-into-x": lambda x: lax.dynamic_update_slice(jnp.cos(x), x[:2] ** 2, (_at(x[0]),)),
    "window-2-d-into-x": lambda x: lax.dynamic_update_slice(
        _grid(x), jnp.outer(x[:2], x[1:3]), (_at(x[0]), jnp.int32(1))
    ),
    "window-2-d-both-computed": lambda x: lax.dynamic_update_slice(
        _grid(x), jnp.outer(x[:2], x[1:3]) ** 2, (_at(x[0]), _at(x[1]) - 2)
    ),
}


def _set_hessian_program(name):
    """The scalar whose Hessian goes through ``SETS[name]``: Σ sin(y)·y²."""
    inner = SETS[name]

    def f(x):
        y = inner(x)
        return jnp.sum(jnp.sin(y) * y**2)

    return f


@functools.cache
def _set_references() -> tuple[dict, dict]:
    """JAX's value and Jacobian (``jacfwd``) of every set at every point of P, and the
    Hessian (``jax.hessian``) of each :data:`SET_HESSIANS` program at them, by name:
    one jitted program for all, run at each point (19 small programs compiled as one)."""
    programs = {name: _set_hessian_program(name) for name, *_ in SET_HESSIANS}

    def every(x):
        values = {n: (f(x), jax.jacfwd(f)(x)) for n, f in SETS.items()}
        return values, {n: jax.hessian(f)(x) for n, f in programs.items()}

    compiled = jax.jit(every)  # compiled once, run at each point
    found = [compiled(jnp.asarray(x)) for x in P]
    return (
        {n: [tuple(np.asarray(a) for a in at[0][n]) for at in found] for n in SETS},
        {n: [np.asarray(at[1][n]) for at in found] for n in programs},
    )


@pytest.mark.parametrize("name", sorted(SETS))
def test_a_set_s_value_and_jacobian_equal_jax_where_positions_repeat(name):
    """``x.at[i].set(u)`` into anything at positions that may repeat, and
    ``dynamic_update_slice`` into anything: the value and Jacobian (NumPy, dense and
    sparse) equal JAX's at every point; ∂/∂x is 0 at the positions written and ∂/∂u keeps
    the update JAX keeps (the last)."""
    f = SETS[name]
    g = from_jax(f, P[0], level="array")
    written = [g.op(v) for v in g.nx if g.op(v) is not None and g.op(v).primitive == DYNAMIC_ADD]
    assert any(op.param.get("replace") for op in written)
    both = make_function(g, "value_and_jacobian", "python")
    sparse = make_function(g, "jacobian", "python", sparse=True)
    assert both.generated.verified and sparse.generated.verified
    for x, (want, reference) in zip(P, _set_references()[0][name], strict=True):
        value, jac = both(x)
        np.testing.assert_allclose(value, want, rtol=1e-15, atol=0)  # x**3's rounding
        reference = np.asarray(reference)
        np.testing.assert_array_equal(jac, reference)
        np.testing.assert_array_equal(sparse(x).toarray(), reference.reshape(sparse(x).shape))


def test_a_set_s_jvp_and_vjp_in_jax_equal_jax():
    """One position per update in its own fibre (``along``), repeated: JAX's code."""
    f = SETS["n-d-along"]
    g = from_jax(f, P[0], level="array")
    jvp, vjp = make_function(g, "jvp", "jax"), make_function(g, "vjp", "jax")
    rng = np.random.default_rng(5)
    for x in P:
        v, w = rng.standard_normal(6), rng.standard_normal(jax.eval_shape(f, x).shape)
        _, tangent, bar, _ = _derivatives_of(f)(x, v, w)
        np.testing.assert_allclose(jvp(x, v), tangent, rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(vjp(x, w), bar, rtol=1e-13, atol=1e-15)


# (name, lang, sparse): each set's Hessian built once; NumPy's dense and sparse code each
# met by sets of both kinds (positions of updates, windows), not both per set (the same
# accumulation printed twice); JAX's sparse
SET_HESSIANS = [
    ("1-d-into-x", "jax", True),
    ("1-d-clip", "python", True),
    ("0-d-update-into-x", "python", False),
    ("n-d-rows", "python", True),
    ("n-d-along", "jax", True),
    ("unique-into-x", "python", False),
    ("window-2-d-both-computed", "python", True),
]


@pytest.mark.parametrize(("name", "lang", "sparse"), SET_HESSIANS)
def test_a_hessian_through_a_set_equals_jax(name, lang, sparse):
    """JAX's gradient of a ``.set`` at positions that may repeat scatters update ids and
    gathers them back (``_scatter_jvp``): read as replacing ``scatter_add_dynamic``s and
    takes, the Hessian (NumPy dense or sparse; JAX's sparse) equals ``jax.hessian`` at
    every point, a sparse one's pattern the union (the same at every point)."""
    f = _set_hessian_program(name)
    h = dgraph.make_function(f, "hessian", lang, point=[P[0]], sparse=sparse)
    assert h.generated.verified
    stored = set()
    for x, reference in zip(P, _set_references()[1][name], strict=True):
        got = h(x)
        if sparse:
            stored.add(got.nse if lang == "jax" else got.nnz)
            got = got.todense() if lang == "jax" else got.toarray()
        np.testing.assert_allclose(np.asarray(got), reference, rtol=1e-12, atol=1e-12)
    assert len(stored) == int(sparse)


def test_the_kept_update_is_the_last_as_on_jax_s_cpu():
    """Of repeated positions the last update in range is kept (``mode="drop"``: one out
    of range is no candidate), as JAX's CPU scatter keeps it; ∂/∂x is 0 where written."""
    op = _op("fill", 5, 4, replace=True)
    x, u = np.arange(4.0), np.array([10.0, 20.0, 30.0, 40.0, 50.0])
    at = np.array([1, 1, 3, 1, 4])
    got = add_forward(op, [x, at, u])
    np.testing.assert_array_equal(got, [0.0, 40.0, 2.0, 30.0])
    np.testing.assert_array_equal(got, jnp.arange(4.0).at[at].set(u))
    np.testing.assert_array_equal(add_value(op, 0, [x, at, u]), [1.0, 0.0, 1.0, 0.0])
    kept = np.zeros((4, 5))
    kept[1, 3] = kept[3, 2] = 1.0
    np.testing.assert_array_equal(add_value(op, 2, [x, at, u]), kept)


def test_a_set_made_wrong_is_caught_by_the_check():
    """The check catches a kept update other than JAX's (the first, not the last) and a
    mask that keeps ``x`` where an update was written."""
    from dgraph.blocks import dynamic_scatter
    from dgraph.core.value_check import check_expression_set
    from dgraph.methods import accumulate

    f = SETS["1-d-into-x"]

    def first(op, index, shape=None):  # the first update in range that lands, not the last
        at, n = np.asarray(index).astype(int).reshape(-1), int(op.param["length"])
        out = np.full(n, -1)
        for o in reversed(range(len(at))):
            if 0 <= at[o] < n:
                out[at[o]] = o
        return out

    def kept_everywhere(op, last):
        return np.ones(op.shape)

    for name, wrong in (("last_update", first), ("_kept_mask", kept_everywhere)):
        with pytest.MonkeyPatch.context() as m:
            m.setattr(dynamic_scatter, name, wrong)
            g = from_jax(f, P[0], level="array")
            assert check_expression_set(accumulate(g, "forward", verify=False)).status == "wrong"
    g = from_jax(f, P[0], level="array")
    assert check_expression_set(accumulate(g, "forward", verify=False)).status == "verified"


def test_c_and_cuda_print_a_set_that_drops():
    """C prints a replacing scatter where its statements translate (``mode="drop"``, the
    default, positions along one axis), equal to JAX at repeats, ends and out of range;
    so do the CUDA kernels of the same values program (one host thread each, where a C++
    compiler exists)."""
    from dgraph.codegen.c import compiler
    from dgraph.codegen.cuda import cxx_compiler

    if compiler() is None:
        pytest.skip("no C compiler")
    for name in ("0-d-update-into-x", "n-d-columns"):
        f = SETS[name]
        g = from_jax(f, P[0], level="array")
        c = make_function(g, "jacobian", "c", sparse=True)
        assert c.generated.verified
        values = c.generated.values  # the C values' program: its CUDA text too
        cuda = values.load_cuda_host() if cxx_compiler() is not None else None
        for x, (_, reference) in zip(P, _set_references()[0][name], strict=True):
            got = c(x)
            reference = reference.reshape(got.shape)
            np.testing.assert_array_equal(got.toarray(), reference)
            if cuda is not None:
                np.testing.assert_array_equal(cuda(x).data, got.data)


def test_the_value_is_a_segment_sum_not_a_one_hot():
    """The scatter's value in generated code adds each update at its flat position
    (``numpy.bincount`` / ``jax.ops.segment_sum``), not through an (n, size) one-hot:
    a trimmed least-squares Hessian (``np.sort``'s gradient scatters back through the
    order) held 8·10⁸ entries at 20,000 unknowns and was refused (at 4,000: 0.52 s a
    call, 0.002 s now). At 40 its code has no one-hot and equals JAX's."""
    n, keep = 40, 30
    y = np.linspace(-1.0, 1.0, n)

    def loss(xp):
        def f(x):
            res = xp.tanh(x) + 0.1 * x**3 - y
            return xp.sum(xp.sort(res**2)[:keep])

        return f

    x = np.random.default_rng(4).normal(size=n)
    want = np.asarray(jax.jit(jax.hessian(loss(jnp)))(jnp.asarray(x)))
    for lang, name in (("python", "numpy.bincount("), ("jax", "jax.ops.segment_sum(")):
        H = dgraph.hessian(loss(np), x, sparse=True, lang=lang)
        text = H.gradient.generated.text
        assert name in text and f"arange({n}), ({n}, 1))" not in text  # no one-hot rows
        got = H(x)
        got = got.toarray() if hasattr(got, "toarray") else np.asarray(got.todense())
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
