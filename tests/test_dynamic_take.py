"""Takes at positions computed from the inputs (``take_dynamic``): the generated
Jacobian (dense and sparse), ``jvp`` and ``vjp``, in NumPy and JAX, equal ``jax.jacfwd``,
``jax.jvp`` and ``jax.vjp``; a sparse Jacobian's pattern is the union over positions."""

from __future__ import annotations

import functools

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
lax = jax.lax

from dgraph import from_jax  # noqa: E402
from dgraph.blocks.arrays import ArrayOp  # noqa: E402
from dgraph.blocks.dynamic_take import DYNAMIC_TAKE, dynamic_block  # noqa: E402
from dgraph.codegen.function import make_function  # noqa: E402
from dgraph.errors import DGraphError  # noqa: E402

CASES = {
    "0-d": (lambda x: jnp.sin(x[jnp.argmax(x)]), (4,)),
    "1-d": (lambda x: x[jnp.argsort(x)][:3] * x[:3], (4,)),
    "n-d-along": (lambda x: jnp.take_along_axis(x, jnp.argsort(x, axis=1), axis=1), (2, 3)),
    "n-d-column": (lambda x: x[:, jnp.argmin(x[0])] ** 2, (2, 3)),
    "n-d-window": (lambda x: lax.dynamic_slice(x, (jnp.argmax(x[:, 0]), 1), (2, 2)), (3, 3)),
}


@pytest.fixture(autouse=True)
def _float64():
    with jax.enable_x64(True):
        yield


RUNS = [(n, "python") for n in sorted(CASES)] + [("1-d", "jax"), ("n-d-window", "jax")]


def _arguments(name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The case's point ``x``, tangent ``v`` and cotangent ``w`` (drawn in that order)."""
    f, shape = CASES[name]
    rng = np.random.default_rng(11)
    x = rng.uniform(-1.0, 1.0, shape)
    v = rng.standard_normal(shape)
    w = rng.standard_normal(jax.eval_shape(f, x).shape)
    return x, v, w


def _permuted(x):
    return x[jnp.argsort(x)]


PERMUTED_AT = np.array([0.3, -0.2, 0.9, 0.1])


@functools.cache
def _references() -> dict:
    """JAX's ``jvp`` along ``v``, ``vjp`` of ``w`` and Jacobian (``jacfwd``) of every
    case, and the Jacobian of :func:`_permuted` at two points, in one jitted program:
    one compile, not one per eager primitive (read-only arrays)."""

    def program(arguments):
        out = {}
        for name, (x, v, w) in arguments.items():
            f = CASES[name][0]
            (bar,) = jax.vjp(f, x)[1](w)
            out[name] = (jax.jvp(f, (x,), (v,))[1], bar, jax.jacfwd(f)(x))
        out["permuted"] = [jax.jacfwd(_permuted)(p) for p in (PERMUTED_AT, PERMUTED_AT[::-1])]
        return out

    found = jax.jit(program)({name: _arguments(name) for name in CASES})
    out = jax.tree_util.tree_map(np.array, found)
    for a in jax.tree_util.tree_leaves(out):
        a.flags.writeable = False
    return out


@pytest.mark.parametrize(("name", "lang"), RUNS)
def test_jacobian_jvp_and_vjp_equal_jax(name, lang):
    f = CASES[name][0]
    x, v, w = _arguments(name)
    g = from_jax(f, x, level="array")
    tangent, bar, jacobian = _references()[name]
    jvp, vjp = make_function(g, "jvp", lang), make_function(g, "vjp", lang)
    jac = make_function(g, "jacobian", lang)
    for F in (jvp, vjp, jac):
        assert F.generated.verified
    np.testing.assert_allclose(jvp(x, v), tangent, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(vjp(x, w), bar, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(jac(x), jacobian, rtol=1e-12, atol=1e-14)


def test_a_sparse_jacobian_s_pattern_is_the_union_over_positions():
    """``x[argsort(x)]``: each output row holds all n columns (zeros where not taken),
    whatever the point; its values are JAX's permutation."""
    x = PERMUTED_AT
    sparse = make_function(from_jax(_permuted, x, level="array"), "jacobian", "python", sparse=True)
    for point, want in zip((x, x[::-1].copy()), _references()["permuted"], strict=True):
        got = sparse(point)
        assert got.nnz == 16
        np.testing.assert_array_equal(got.toarray(), want)


def test_the_union_is_refused_over_its_limit():
    op = ArrayOp(
        DYNAMIC_TAKE,
        ("x", "i"),
        (("axis", 0), ("mode", "clip"), ("size", 8000), ("length", 8000), ("fill", 0.0)),
        (8000,),
    )
    with pytest.raises(DGraphError, match="union over positions"):
        dynamic_block(op, (8000,))


def test_a_take_of_a_clipped_square_root_verifies_where_the_untaken_partial_is_nan():
    """1.5-entmax's ``sqrt(clip(z, 0))`` read at the support's position: at a clipped
    entry the partial is ∞·0 = NaN, and the take does not read it; the one-hot's zeros
    are structural (a gather), so J·v is finite, as ``jax.jacfwd``'s (0.5, 0, 0)."""
    import dgraph
    from dgraph.core.block_values import jacobian_blocks, vertex_values
    from dgraph.frontends import from_function
    from dgraph.methods.registry import accumulate

    def f(z):
        return np.sqrt(np.clip(z, 0, None))[np.argmax(z)]

    z = np.array([1.0, -1.0, 0.5])
    assert dgraph.jacobian(f, point=[z]).verification.status == "verified"
    graph = from_function(f, sizes=[3], level="array", point=[z])
    es = accumulate(graph, "forward")
    assert es.verification.status == "verified"
    (found,) = jacobian_blocks(es, vertex_values(graph, {"z": z})).values()
    np.testing.assert_array_equal(found.values, [0.5, 0.0, 0.0])
    want = jax.jacfwd(lambda u: jnp.sqrt(jnp.clip(u, 0, None))[jnp.argmax(u)])(jnp.asarray(z))
    np.testing.assert_array_equal(np.asarray(want), [0.5, 0.0, 0.0])
    for lang in ("python", "c", "jax"):  # the code's product with the one-hot: a where
        made = make_function(f, "jacobian", lang, method="forward", point=[z])
        assert made.generated.verified
        np.testing.assert_array_equal(np.asarray(made(z)), want)
