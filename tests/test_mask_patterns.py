"""Exact sparse patterns where a constant mask fixes entries (dgraph.core.constant_entries):
causal attention's ``-inf`` scores make ``exp`` 0 there and ``a @ v`` never reads the
later rows of ``v``; a mask that depends on the inputs fixes nothing. Each pattern is
checked against the union of JAX's nonzeros at random points, each value against JAX."""

from __future__ import annotations

import numpy as np
import pytest

import dgraph
from dgraph import blocks
from dgraph.blocks.arrays import ArrayOp, Const
from dgraph.blocks.known_entries import known_result
from dgraph.codegen.tensor import module as tensor_module
from dgraph.frontends import from_function, from_jax, from_json

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

from tests import jax_reference as jref  # noqa: E402

jax.config.update("jax_enable_x64", True)

R = np.random.default_rng(61)
WQ, WK, WV = (R.normal(size=(3, 3)) for _ in range(3))
T = 4
CAUSAL = np.tril(np.ones((T, T), dtype=bool))
VALID = np.arange(T) < 3  # the last position is padding


def _attention(xp, mask):
    def f(X):
        s = (X @ WQ) @ (X @ WK).T / 2.0
        s = xp.where(mask, s, -xp.inf)
        s = s - s.max(axis=-1, keepdims=True)
        a = xp.exp(s)
        return (a / a.sum(axis=-1, keepdims=True)) @ (X @ WV)

    return f


def _union(d, shape, n=3):
    """The union of ``d``'s nonzeros (``d`` jitted: JAX's eager Hessian costs seconds) at
    ``n`` random points, as a (rows, inputs) mask."""
    rng = np.random.default_rng(0)
    found = [np.asarray(d(jnp.asarray(rng.normal(size=shape)))) != 0 for _ in range(n)]
    return np.logical_or.reduce(found).reshape(-1, int(np.prod(shape)))


def _pattern(m) -> np.ndarray:
    out = np.zeros(m.shape, dtype=bool)
    coo = m.tocoo()
    out[coo.row, coo.col] = True
    return out


def test_causal_attention_jacobian_is_exact():
    """Row t of the output reads X[:t+1] only: 144 stored of 144 true (was 192, every
    row of X); NumPy's and JAX's readings alike, values JAX's."""
    x = R.normal(size=(T, 3))
    d = jref.jacfwd(_attention(jnp, CAUSAL))  # stored (tests/jax_reference.py)
    true, reference = _union(d, (T, 3)), np.asarray(d(jnp.asarray(x))).reshape(12, 12)
    graphs = (
        from_function(_attention(np, CAUSAL), sizes=[(T, 3)], level="array"),
        from_jax(_attention(jnp, CAUSAL), x, level="array"),
    )
    for g in graphs:
        J = dgraph.make_function(g, sparse=True)
        got = J(x)
        assert J.generated.verified
        assert (_pattern(got) == true).all() and got.nnz == true.sum() == 90
        np.testing.assert_allclose(got.toarray(), reference, rtol=1e-12, atol=1e-14)


def test_padding_mask_hessian_is_exact():
    """A padding mask on the keys, the padded query left out of the loss: X's padded row
    meets nothing (its rows and columns of H are empty, 81 of 144 stored); the Hessian's
    code writes the mask's ``-inf`` fill as ``numpy.inf`` (it printed ``-inf``, a
    NameError, before)."""
    f_np, f_jax = _attention(np, VALID[None, :]), _attention(jnp, VALID[None, :])

    def loss_np(X):
        return np.sum(np.where(VALID[:, None], np.sin(f_np(X)), 0.0))

    def loss_jax(X):
        return jnp.sum(jnp.where(VALID[:, None], jnp.sin(f_jax(X)), 0.0))

    x = R.normal(size=(T, 3))
    H = dgraph.make_function(loss_np, "hessian", point=[x], sparse=True)
    got = H(x)
    d = jref.hessian(loss_jax)
    true, reference = _union(d, (T, 3)), np.asarray(d(jnp.asarray(x))).reshape(12, 12)
    assert H.generated.verified
    assert (_pattern(got) == true).all() and got.nnz == true.sum() == 81
    np.testing.assert_allclose(got.toarray(), reference, rtol=1e-11, atol=1e-13)


def test_a_mask_of_the_inputs_fixes_nothing():
    """``where(x > 0, x, -inf)`` chooses by the inputs: every softmax entry stays, as
    the union of JAX's nonzeros over points of both signs has it."""

    def f(x):
        s = np.where(x > 0, x, -np.inf)
        e = np.exp(s - s.max())
        return e / e.sum()

    def f_jax(x):
        return jax.nn.softmax(jnp.where(x > 0, x, -jnp.inf))

    x = np.array([0.5, -0.3, 1.2, 0.7])
    g = from_function(f, sizes=[(4,)], level="array")
    got = dgraph.make_function(g, sparse=True)(x)
    d = jref.jacfwd(f_jax)
    true, reference = _union(d, (4,), n=6), np.asarray(d(jnp.asarray(x)))
    assert got.nnz == 16 and true.sum() == 16
    np.testing.assert_allclose(got.toarray(), reference, rtol=1e-12, atol=1e-15)


def test_known_result_rules():
    """Each rule on a small case: a select with a constant predicate, ``-inf - x``,
    ``exp(-inf)``, ``0 · x``, ``0 / x``, a product whose pairs all meet a zero, a move; an
    input-dependent predicate and ``-1e9 - x`` know nothing."""
    nan = np.nan
    masked = ArrayOp("select_n", (Const.of([False, True]), "s", Const.of(-np.inf)), (), (2,))
    got = known_result(masked, lambda v: None, [(2,), (2,), ()])
    np.testing.assert_array_equal(got, [nan, -np.inf])
    known = {"m": got}
    cases = [
        (ArrayOp("sub", ("m", "x"), (), (2,)), [nan, -np.inf]),
        (ArrayOp("exp", ("m",), (), (2,)), [nan, 0.0]),
        (ArrayOp("mul", ("x", "z"), (), (2,)), [nan, 0.0]),
        (ArrayOp("div", ("z", "x"), (), (2,)), [nan, 0.0]),
        (ArrayOp("reshape", ("z",), (("new_sizes", (1, 2)),), (1, 2)), [[nan, 0.0]]),
    ]
    known["z"] = np.array([nan, 0.0])
    for op, want in cases:
        shapes = [(2,)] * len(op.operands)
        np.testing.assert_array_equal(known_result(op, known.get, shapes), want)
    dims = (((1,), (0,)), ((), ()))
    a = np.array([[1.0, nan], [0.0, 0.0]])
    dot = ArrayOp("dot_general", ("a", "x"), (("dimension_numbers", dims),), (2, 2))
    got = known_result(dot, {"a": a}.get, [(2, 2), (2, 2)])
    np.testing.assert_array_equal(got, [[nan, nan], [0.0, 0.0]])
    chosen = ArrayOp("select_n", ("p", "x", Const.of(-np.inf)), (), (2,))
    assert known_result(chosen, lambda v: None, [(2,), (2,), ()]) is None
    large = ArrayOp("sub", (Const.of(-1e9), "x"), (), (2,))
    assert known_result(large, lambda v: None, [(), (2,)]) is None


def test_narrowed_blocks_survive_json():
    """A graph written as dgraph/1 drops the recorded entries and finds them again when
    read: the same blocks, the same pattern."""
    g = from_function(_attention(np, CAUSAL), sizes=[(T, 3)], level="array")
    h = from_json(g.to_json())
    assert [g.block(*e).nnz for e in g.edges()] == [h.block(*e).nnz for e in h.edges()]
    assert g.block("s", "a").nnz == 10  # exp's diagonal: the 10 kept scores of 16


def _staircase(t: int, d: int):
    """∂(a @ v)/∂v of a causal ``a``: entry (i, k) ← (j, k) for j ≤ i (a triangle per
    column k), times ∂v/∂x of ``v = x @ W`` (each row of x its own dense block)."""
    i, j, k = np.nonzero(np.tril(np.ones((t, t)))[:, :, None] * np.ones(d))
    upper = blocks.sparse((t, d), (t, d), i * d + k, j * d + k)
    lower = blocks.Labelled((t, d), (t, d), (((0,), 0), ((1,), 0)), (((0,), 0), ((2,), 0)),
                            (t, d, d), (0, 1, 2))  # fmt: skip
    return upper, lower


def test_a_split_product_keeps_the_pattern_its_pairs_meet():
    """The triangle split into one rectangular part (its zeros stored: dense storage)
    times a labelled block: the product is the entries some pair meets (75,264 of
    147,456, the pattern scipy's product of the two gives), its values those of the
    matrices' product. Main kept the rectangle's product: every entry."""
    upper, lower = _staircase(48, 8)
    _, product = blocks.multiply(upper, lower)
    exact = (blocks.to_matrix(upper) @ blocks.to_matrix(lower)).tocsr()
    exact.sum_duplicates()
    assert product.nnz == exact.nnz == 75264 < 48 * 8 * 48 * 8
    split = blocks.split_of(upper, lower, product)
    assert split is not None and split.kept is not None  # the split's path, narrowed
    rng = np.random.default_rng(1)
    vu, vl = rng.normal(size=upper.nnz), rng.normal(size=(48, 8, 8))
    found = blocks.multiply_values(upper, lower, vu, vl)
    want = blocks.to_matrix(upper, vu) @ blocks.to_matrix(lower, vl)
    got = blocks.to_matrix(found.block, found.values)
    assert (_pattern(got) == _pattern(exact)).all()
    np.testing.assert_allclose(got.toarray(), want.toarray(), rtol=1e-13, atol=1e-13)


def test_split_products_keep_causal_attention_exact(monkeypatch):
    """Every product split (as large ones are: causal attention at T = 48, D = 8 by
    forward) and the cancellation pass off, so that the block algebra alone gives the
    pattern: 336 of 576 at T = 6, D = 4, values JAX's, the code's gathers of the split's
    entries checked (main: all 576, the split's rectangles, which only the cancellation
    pass took out, and only at small sizes)."""
    monkeypatch.setattr(blocks, "SPLIT_FROM", 0)
    monkeypatch.setattr(blocks, "SMALL", 0)
    monkeypatch.setattr(tensor_module, "drop_cancelled", lambda w, valued, symmetric=False: valued)
    rng = np.random.default_rng(61)
    w = [rng.normal(size=(4, 4)) for _ in range(3)]
    causal = np.tril(np.ones((6, 6), dtype=bool))

    def attention(xp):
        def f(X):
            s = xp.where(causal, (X @ w[0]) @ (X @ w[1]).T / 2.0, -xp.inf)
            a = xp.exp(s - s.max(axis=-1, keepdims=True))
            return (a / a.sum(axis=-1, keepdims=True)) @ (X @ w[2])

        return f

    x = rng.normal(size=(6, 4))
    reference = np.asarray(jref.jacfwd(attention(jnp))(jnp.asarray(x))).reshape(24, 24)
    J = dgraph.make_function(attention(np), sparse=True, point=[x], method="forward")
    got = J(x)
    assert J.generated.verified
    true = np.kron(np.tril(np.ones((6, 6))), np.ones((4, 4))) != 0  # row t reads X[:t+1]
    assert (_pattern(got) == true).all() and got.nnz == 336
    np.testing.assert_allclose(got.toarray(), reference, rtol=1e-12, atol=1e-13)
