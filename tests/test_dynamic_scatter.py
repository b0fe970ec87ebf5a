"""Scatter-adds at positions computed from the inputs (``scatter_add_dynamic``, the
transpose of ``take_dynamic``): Jacobians, ``jvp`` and ``vjp`` of such scatters, and
Hessians through takes at run-time positions (JAX's gradient holds the scatter), in
NumPy and JAX, dense and sparse, equal JAX's at two points whose orders differ; a sparse
pattern is the union over positions; over its limit it is refused in one line."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
lax = jax.lax

import dgraph  # noqa: E402
from dgraph import from_jax  # noqa: E402
from dgraph.blocks.arrays import ArrayOp  # noqa: E402
from dgraph.blocks.dynamic_scatter import DYNAMIC_ADD, add_block, add_forward  # noqa: E402
from dgraph.codegen.function import make_function  # noqa: E402
from dgraph.errors import DGraphError  # noqa: E402

X0 = np.array([0.3, -0.7, 1.1, 0.5, -1.3, 0.9])
X1 = np.array([1.2, 0.4, -0.9, 0.8, 0.1, -0.5])  # another order, another argmax
W = jnp.arange(6.0)


@pytest.fixture(autouse=True)
def _float64():
    with jax.enable_x64(True):
        yield


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


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("lang", ["python", "jax"])
@pytest.mark.parametrize("name", sorted(HESSIANS))
def test_hessians_equal_jax_at_two_orders(name, lang, sparse):
    f = HESSIANS[name]
    h = dgraph.make_function(f, "hessian", lang, point=[X0], sparse=sparse)
    assert h.generated.verified
    reference = jax.jit(jax.hessian(f))
    for x in (X0, X1):
        got = h(x)
        got = (got.todense() if lang == "jax" else got.toarray()) if sparse else got
        np.testing.assert_allclose(np.asarray(got), reference(x), rtol=1e-12, atol=1e-13)


def test_a_sparse_hessian_s_pattern_is_the_union_over_positions():
    """take_along_axis(x, argsort(x))**2 · w: the take's union (36) times the scatter's
    (36): every entry stored at both points, those not hit stored as zeros (JAX's Hessian
    has 5 nonzeros, w[0] = 0), the values JAX's."""
    f = HESSIANS["take-along-squared"]
    h = dgraph.make_function(f, "hessian", "python", point=[X0], sparse=True)
    for x in (X0, X1):
        got = h(x)
        assert got.nnz == 36
        reference = np.asarray(jax.hessian(f)(x))
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
    for point in (x, -x[::-1]):  # another order
        y, tangent = jax.jvp(f, (point,), (v := rng.standard_normal(shape),))
        w = rng.standard_normal(np.shape(y))
        (bar,) = jax.vjp(f, point)[1](w)
        np.testing.assert_allclose(jvp(point, v), tangent, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(vjp(point, w), bar, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(jac(point), jax.jacfwd(f)(point), rtol=1e-12, atol=1e-14)


def test_a_sparse_jacobian_s_pattern_is_the_union_over_positions():
    f = JACOBIANS["1-d-argsort"][0]
    sparse = make_function(from_jax(f, X0, level="array"), "jacobian", "python", sparse=True)
    for point in (X0, X1):
        got = sparse(point)
        assert got.nnz == 36  # 6 hit, 30 stored as zeros
        np.testing.assert_array_equal(got.toarray(), jax.jacfwd(f)(point))


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


def test_c_prints_a_scatter_that_drops_and_refuses_one_that_clips():
    """C prints its statements where they translate: ``mode="drop"`` (the default), equal
    to JAX at positions out of range and repeated; a clipped one (``clip`` has no C shape
    rule, as for ``take_dynamic``) refused in one line."""
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
        np.testing.assert_array_equal(got.toarray(), jax.jacfwd(floor)(np.array(x)))
    clip = lambda x: x.at[jnp.floor(x).astype(jnp.int32)].add(x * 2.0, mode="clip")  # noqa: E731
    g = from_jax(clip, np.array([0.3, 1.7, 2.1, 0.5]), level="array")
    with pytest.raises(DGraphError, match="C values: cannot translate") as raised:
        make_function(g, "jacobian", "c", sparse=True)
    assert "\n" not in str(raised.value)


REFUSED = {
    "set-may-repeat": lambda x: jnp.zeros(6).at[jnp.argsort(x)].set(x**2),
    "set-into-x": lambda x: x.at[jnp.argmax(x)].set(x[0] ** 2),
    "update-into-x": lambda x: lax.dynamic_update_slice(x, x[:2] ** 2, (jnp.argmax(x),)),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_writes_that_would_not_be_exact_are_refused_in_one_line(name):
    """A ``.set`` at positions that may repeat (JAX keeps one update, no sum), and a write
    into anything but a constant zero (adding ``u - x`` would lose ``u`` beside a large
    ``x``): one line naming the operation."""
    with pytest.raises(dgraph.InputError) as raised:
        from_jax(REFUSED[name], X0, level="array")
    text = str(raised.value)
    assert "\n" not in text and ("scatter" in text or "dynamic_update_slice" in text), text
