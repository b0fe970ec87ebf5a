"""The run-time permutation block of ``sort`` (dgraph/blocks/permutation.py): its products
with the other block kinds against the matrices they stand for, their structure (one
entry per row where a rule keeps it, the union over permutations elsewhere), and the
generated functions of programs that sort against JAX (ties as JAX's rule: stable)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dgraph.blocks import (
    Labelled,
    Sparse,
    add,
    add_values,
    dense,
    diagonal,
    identity,
    multiply,
    multiply_values,
    sparse,
    to_matrix,
)
from dgraph.blocks import permutation as perm
from dgraph.blocks.permutation import Permutation, structural
from dgraph.core.block_values import apply_block, apply_transposed
from dgraph.errors import DGraphError

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from dgraph import from_jax, make_function  # noqa: E402
from dgraph.methods.structure import jacobian_pattern  # noqa: E402

jax.config.update("jax_enable_x64", True)
RNG = np.random.default_rng(7)


def _permutation(shape: tuple[int, ...], axis: int, rows: bool = True):
    """A permutation block with random row values (or ones) and random sources."""
    keys = RNG.normal(size=shape)
    source = np.argsort(keys, axis=axis, kind="stable")
    v = RNG.normal(size=shape) if rows else np.ones(shape)
    return Permutation(shape, axis), np.stack([v, source.astype(float)])


def _matrix(block, values) -> np.ndarray:
    return to_matrix(block, values).toarray()


def _values(block) -> np.ndarray:
    """Random values for a labelled block (over its value labels) or a sparse one."""
    if isinstance(block, Sparse):
        return RNG.normal(size=block.nnz)
    return RNG.normal(size=[block.sizes[k] for k in block.value])


SHAPES = [((5,), 0), ((3, 4), 1), ((3, 4), 0), ((2, 3, 2), 1)]


@pytest.mark.parametrize(("shape", "axis"), SHAPES)
def test_the_block_is_one_entry_per_row_and_its_matrix_the_permutation(shape, axis):
    p, vp = _permutation(shape, axis)
    m = _matrix(p, vp)
    assert p.nnz == math.prod(shape) and p.type_name == "run-time permutation"
    assert ((m != 0).sum(axis=1) == 1).all()
    union = structural(p)  # each row dense along its fibre
    assert union.nnz == math.prod(shape) * shape[axis]
    np.testing.assert_array_equal(_matrix(union, perm.structural_values(p, vp)), m)
    x = RNG.normal(size=math.prod(shape))
    np.testing.assert_allclose(apply_block(p, vp, x), m @ x)
    np.testing.assert_allclose(apply_transposed(p, vp, x), x @ m)


@pytest.mark.parametrize(("shape", "axis"), SHAPES)
def test_products_with_diagonals_stay_one_entry_per_row(shape, axis):
    p, vp = _permutation(shape, axis)
    for d in (diagonal(shape), identity(shape)):
        vd = _values(d) if d.value else np.asarray(1.0)
        for upper, lower, vu, vl in ((d, p, vd, vp), (p, d, vp, vd)):
            block, values = multiply_values(upper, lower, vu, vl)
            assert isinstance(block, Permutation) and multiply(upper, lower).product == block
            want = _matrix(upper, vu) @ _matrix(lower, vl)
            np.testing.assert_allclose(_matrix(block, values), want)


def _reduction(shape: tuple[int, ...], axes: tuple[int, ...]) -> Labelled:
    kept = tuple(j for j in range(len(shape)) if j not in axes)
    ins = tuple(((j,), 0) for j in range(len(shape)))
    outs = tuple(((j,), 0) for j in kept)
    return Labelled(tuple(shape[j] for j in kept), shape, outs, ins, shape, (), 0)


@pytest.mark.parametrize(("shape", "axis"), SHAPES)
def test_products_that_keep_the_other_pattern(shape, axis):
    """A reduction or a dense block times P (P times a dense block): the other factor's
    pattern, its values gathered along the axis; no entry of the union formed."""
    p, vp = _permutation(shape, axis)
    n = math.prod(shape)
    cases = [
        (_reduction(shape, tuple(range(len(shape)))), p),
        (_reduction(shape, (axis,)), p),
        (dense((2,), shape), p),
        (p, dense(shape, (3,))),
    ]
    for upper, lower in cases:
        vu = _values(upper) if not isinstance(upper, Permutation) else vp
        vl = _values(lower) if not isinstance(lower, Permutation) else vp
        if isinstance(upper, Labelled) and not upper.value:
            vu = np.asarray(1.0)
        block, values = multiply_values(upper, lower, vu, vl)
        other = lower if isinstance(upper, Permutation) else upper
        assert isinstance(block, Labelled) and block.nnz == other.nnz
        assert multiply(upper, lower).product == block
        assert np.size(values) <= max(other.nnz, n)
        np.testing.assert_allclose(
            _matrix(block, values), _matrix(upper, vu) @ _matrix(lower, vl), atol=1e-12
        )


def test_other_products_and_sums_are_the_union_over_permutations():
    """A sparse block, another permutation, a sum: the structural block's, exact values."""
    p, vp = _permutation((4,), 0)
    q, vq = _permutation((4,), 0)
    s = sparse((4,), (4,), np.array([0, 1, 3]), np.array([2, 0, 3]))
    vs = RNG.normal(size=3)
    for upper, lower, vu, vl in ((s, p, vs, vp), (p, s, vp, vs), (p, q, vp, vq)):
        block, values = multiply_values(upper, lower, vu, vl)
        assert not isinstance(block, Permutation)
        want = _matrix(upper, vu) @ _matrix(lower, vl)
        np.testing.assert_allclose(_matrix(block, values), want, atol=1e-12)
    d = diagonal((4,))
    vd = _values(d)
    total, values = add_values(p, d, vp, vd)
    assert total == add(p, d) and total.nnz == 16
    np.testing.assert_allclose(_matrix(total, values), _matrix(p, vp) + np.diag(vd))


def test_a_row_or_a_column_over_part_of_the_axis_is_made_dense():
    """A gradient row reading a slice of the sorted values (``sort(x)[-2:]``), and a
    tangent column: n entries, no union."""
    p, vp = _permutation((6,), 0)
    row = Labelled((), (6,), (), (((0,), 4),), (2,), (0,), 2)  # entries 4, 5 of the row
    column = Labelled((6,), (), (((0,), 1),), (), (3,), (0,), 2)  # entries 1, 2, 3
    for upper, lower in ((row, p), (p, column)):
        vu = _values(upper) if isinstance(upper, Labelled) else vp
        vl = _values(lower) if isinstance(lower, Labelled) else vp
        block, values = multiply_values(upper, lower, vu, vl)
        assert block.nnz == 6 and multiply(upper, lower).product == block
        np.testing.assert_allclose(_matrix(block, values), _matrix(upper, vu) @ _matrix(lower, vl))


def test_spreading_past_the_limit_is_refused(monkeypatch):
    monkeypatch.setattr(perm, "UNION_LIMIT", 10)
    p, vp = _permutation((4,), 0)
    with pytest.raises(DGraphError, match="union over permutations, 16 entries"):
        perm.structural_values(p, vp)


W = np.array([0.5, -1.0, 2.0, 0.25, 1.5, -0.75])
X = np.array([0.3, -1.2, 0.3, 2.0, -0.4, 0.9])  # a tie: 0.3 twice
M = RNG.normal(size=(3, 4))


def _loss(x):
    return jnp.sum(W * jnp.sort(x) ** 2)


def _rows(x):
    return jnp.sum(jnp.tanh(jnp.sort(x, axis=1)) * jnp.arange(4.0))


def _carried(x, y):
    return jax.lax.sort((x, y), num_keys=1)[1] ** 2


def _top_two(x):  # a row that covers part of the axis: made dense, not the union
    return jnp.sum(jnp.sort(x)[-2:] ** 2)


def _in_a_loop(x):  # a loop body's pattern: the union over permutations
    return jax.lax.scan(lambda c, _: (jnp.sin(jnp.sort(c)) * 0.9, None), x, None, length=3)[0]


@pytest.mark.parametrize(
    ("f", "args", "mode", "lang"),
    [
        (_loss, (X,), "jacobian", "python"),
        (_loss, (X,), "jvp", "python"),
        (_loss, (X,), "vjp", "jax"),
        (_rows, (M,), "jacobian", "python"),
        (_rows, (M,), "vjp", "python"),
        (_carried, (X, W), "jvp", "python"),
        (_in_a_loop, (X,), "jacobian", "python"),
        (_top_two, (X,), "vjp", "python"),
    ],
    ids=[
        "loss-jacobian",
        "loss-jvp",
        "loss-vjp-jax",
        "rows-jacobian",
        "rows-vjp",
        "carried",
        "scan",
        "top-two",
    ],
)
def test_generated_functions_agree_with_jax(f, args, mode, lang):
    g = from_jax(f, *args, level="array")
    made = make_function(g, mode, lang)
    argnums = tuple(range(len(args)))
    if mode == "jacobian":
        got = made(*args)
        want = jax.jacrev(f, argnums=argnums)(*args)
        for a, b in zip(got if len(args) > 1 else (got,), want, strict=True):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), atol=1e-12)
        return
    out = jax.eval_shape(f, *args)
    if mode == "jvp":
        tangents = tuple(RNG.normal(size=np.shape(a)) for a in args)
        got = made(*args, *tangents)
        want = jax.jvp(f, args, tangents)[1]
    else:
        cotangent = RNG.normal(size=out.shape)
        got = made(*args, cotangent)
        want = jax.vjp(f, *args)[1](cotangent)
        want = want if len(args) > 1 else want[0]
    got = got[-1] if mode == "jvp" and isinstance(got, tuple) else got
    for a, b in zip(
        got if isinstance(got, tuple) else (got,),
        want if isinstance(want, tuple) else (want,),
        strict=True,
    ):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), atol=1e-12)


def test_the_sparse_jacobian_of_a_sort_is_its_union_with_zeros():
    """A sort's own Jacobian: the pattern users see from ``structure`` is one entry per
    row; the sparse matrix generated code returns stores the union (fixed per call), the
    entries the permutation does not take as zeros."""
    g = from_jax(lambda x: jnp.sort(x) * 2.0, X, level="array")
    (entry,) = jacobian_pattern(g)
    assert entry["type"] == "run-time permutation" and entry["nnz"] == X.size
    assert entry["per_row"] == [1, 1.0, 1]
    J = make_function(g, "jacobian", sparse=True)(X)
    assert J.nnz == X.size**2
    want = jax.jit(jax.jacfwd(lambda x: jnp.sort(x) * 2.0))(X)
    np.testing.assert_array_equal(J.toarray(), want)


@pytest.mark.parametrize("f", [lambda x: 2 * jax.numpy.sort(x), lambda x: -jax.numpy.sort(-x)])
def test_a_scaled_sort_is_made_and_counted(f):
    """A scalar factor of a sort through the default path, its program's operations
    counted (before sort's run-time block, an einsum there was given an operand of the
    wrong axis count: a ValueError out of make_function)."""
    from dgraph import make_function

    x = np.array([0.9, 0.1, 0.5, 0.3, 0.7])
    with jax.enable_x64(True):
        expected = np.asarray(jax.jit(jax.jacfwd(f))(x))
        made = make_function(f, point=[x])
        np.testing.assert_allclose(made(x), expected, atol=1e-15)
