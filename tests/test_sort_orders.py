"""Permutations of one order (dgraph/blocks/orders.py): a sort's block, a take at an
``argsort``'s positions and the scatter-add at them (JAX's transpose of either) carry
the ``argsort`` they follow, so that a product of one with its inverse is the identity's
pattern and a sum of two of one order stays a permutation. A Hessian through a sort,
``Pᵀ·diag·P``, then has the diagonal as its pattern (the union over every order: n
entries, not n² per fibre), its values JAX's; a tie made wrong on purpose is caught by
the check."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from dgraph.blocks import (
    ONES,
    add,
    add_values,
    diagonal,
    multiply,
    multiply_values,
    orders,
    sparse,
    to_matrix,
)
from dgraph.blocks import permutation as perm
from dgraph.blocks.permutation import Permutation, ones

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

import dgraph  # noqa: E402
from dgraph.blocks.arrays import ArrayOp, Const  # noqa: E402
from dgraph.errors import DGraphError  # noqa: E402
from tests import jax_reference as jref  # noqa: E402
from tests.jax_reference import Reference as Ref  # noqa: E402

from .dense import dense as as_dense  # noqa: E402

jax.config.update("jax_enable_x64", True)
RNG = np.random.default_rng(11)
TIE = (("x",), 1, (3, 4))


def _tied(shape, axis, inverse, keys=None):
    """A block of the order ``argsort(keys)`` (or its inverse) with random row values."""
    keys = RNG.normal(size=shape) if keys is None else keys
    order = np.argsort(keys, axis=axis, kind="stable")
    source = np.argsort(order, axis=axis, kind="stable") if inverse else order
    values = np.stack([RNG.normal(size=shape), source.astype(float)])
    return Permutation(shape, axis, tie=TIE, inverse=inverse), values, keys


@pytest.mark.parametrize("first_inverse", [False, True])
def test_a_permutation_times_its_inverse_is_a_diagonal(first_inverse):
    keys = RNG.normal(size=(3, 4))
    a, va, _ = _tied((3, 4), 1, first_inverse, keys)
    b, vb, _ = _tied((3, 4), 1, not first_inverse, keys)
    product = multiply(a, b)
    assert product.product == diagonal((3, 4)) and product.cost == 12
    got = multiply_values(a, b, va, vb)
    np.testing.assert_allclose(
        to_matrix(got.block, got.values).toarray(),
        to_matrix(a, va).toarray() @ to_matrix(b, vb).toarray(),
        rtol=1e-15,
    )


def test_without_the_same_tie_the_product_is_the_union():
    """Untied, of another tie, or both of one orientation: no claim of the identity."""
    keys = RNG.normal(size=(3, 4))
    a, _, _ = _tied((3, 4), 1, False, keys)
    b, _, _ = _tied((3, 4), 1, True, keys)
    for upper, lower in (
        (Permutation((3, 4), 1), b),
        (a, Permutation((3, 4), 1, tie=(("y",), 1, (3, 4)), inverse=True)),
        (a, a),
    ):
        assert not perm.inverses(upper, lower)
        assert multiply(upper, lower).product.nnz == 3 * 4 * 4  # each row dense on its fibre


def test_two_permutations_of_one_order_add_up_to_one():
    keys = RNG.normal(size=(3, 4))
    a, va, _ = _tied((3, 4), 1, False, keys)
    b, vb, _ = _tied((3, 4), 1, False, keys)
    assert add(a, b) == a
    got = add_values(a, b, va, vb)
    np.testing.assert_allclose(
        to_matrix(got.block, got.values).toarray(),
        to_matrix(a, va).toarray() + to_matrix(b, vb).toarray(),
        rtol=1e-15,
    )
    assert add(a, Permutation((3, 4), 1)).nnz == 48  # untied: the unions' sum


def test_a_diagonal_with_holes_times_a_permutation_keeps_it():
    """An elementwise product with a constant that has zeros (a sparse block on the
    diagonal) times a permutation: again the permutation, zeros where it had none."""
    a, va, _ = _tied((5,), 0, False)
    d = sparse((5,), (5,), np.array([1, 3, 4]), np.array([1, 3, 4]))
    vd = RNG.normal(size=3)
    for upper, lower, vu, vl in ((d, a, vd, va), (a, d, va, vd)):
        product = multiply(upper, lower)
        assert isinstance(product.product, Permutation) and product.product.tie == TIE
        got = multiply_values(upper, lower, vu, vl)
        np.testing.assert_allclose(
            to_matrix(got.block, got.values).toarray(),
            to_matrix(upper, vu).toarray() @ to_matrix(lower, vl).toarray(),
            rtol=1e-15,
        )


def _moves_around(shape):
    """A slice of the rows, a pad back and a reshape: the moves a permutation takes in."""
    n = int(np.prod(shape))
    keep = np.arange(1, n - 1)
    slice_ = sparse((n - 2,), shape, np.arange(n - 2), keep, ONES)
    pad = sparse(shape, (n - 2,), keep, np.arange(n - 2), ONES)
    reshape = sparse(shape, (3, n // 3), np.arange(n), np.arange(n), ONES)
    return slice_, pad, reshape


def test_moves_are_taken_in_and_let_go_as_the_matrices_say():
    """Each product of a permutation with a move (on either side), of two such with
    moves between them (an inverse pair: a diagonal between the moves; else their
    unions), and of one with a row that is no move (the moves let go) equals the
    product of the matrices."""
    keys = RNG.normal(size=(12,))
    p, vp, _ = _tied((12,), 0, False, keys)
    q, vq, _ = _tied((12,), 0, True, keys)
    slice_, pad, reshape = _moves_around((12,))
    cases = [
        (slice_, p, ones(slice_), vp),
        (q, pad, vq, ones(pad)),
        (p, reshape, vp, ones(reshape)),
    ]
    for upper, lower, vu, vl in cases:
        got = multiply_values(upper, lower, vu, vl)
        assert isinstance(got.block, Permutation) and not got.block.plain
        want = to_matrix(upper, vu).toarray() @ to_matrix(lower, vl).toarray()
        np.testing.assert_allclose(to_matrix(got.block, got.values).toarray(), want)
        union = perm.structural(got.block)  # between the moves, its values entry by entry
        assert perm.entries_between(got.block) is not None
        spread = to_matrix(union, perm.structural_values(got.block, got.values))
        np.testing.assert_array_equal(spread.toarray(), want)
    sliced = multiply_values(slice_, p, ones(slice_), vp)
    padded = multiply_values(q, pad, vq, ones(pad))
    pair = multiply_values(padded.block, sliced.block, padded.values, sliced.values)
    assert pair.block.nnz == 12  # the diagonal: any entry may be one the slice keeps
    want = to_matrix(padded.block, padded.values) @ to_matrix(sliced.block, sliced.values)
    np.testing.assert_allclose(to_matrix(pair.block, pair.values).toarray(), want.toarray())
    row = sparse((), (10,), np.zeros(10, int), np.arange(10))
    vrow = RNG.normal(size=10)
    released = multiply_values(row, sliced.block, vrow, sliced.values)
    assert released.block.nnz == 12  # the row made dense (n), not the union's slice
    want = to_matrix(row, vrow).toarray() @ to_matrix(sliced.block, sliced.values).toarray()
    np.testing.assert_allclose(to_matrix(released.block, released.values).toarray(), want)


def _argsort(keys="x", d=0, shape=(6,)):
    return ArrayOp("argsort", (keys,), (("dimension", d),), shape)


def test_positions_are_read_as_an_argsort_through_moves_and_the_negative_wrap():
    a = _argsort()
    column = ArrayOp("broadcast_in_dim", (a,), (("broadcast_dimensions", (0,)),), (6, 1))
    flat = ArrayOp("reshape", (column,), (), (6,))
    wrapped = ArrayOp(
        "select_n",
        (
            ArrayOp("lt", (flat, Const.of(0)), (), (6,)),
            flat,
            ArrayOp("add", (flat, Const.of(6)), (), (6,)),
        ),
        (),
        (6,),
    )
    assert orders.order_of(wrapped) == (("x",), 0, (6,))
    positive = ArrayOp(
        "select_n",
        (
            ArrayOp("lt", (flat, Const.of(2)), (), (6,)),
            flat,
            ArrayOp("add", (flat, Const.of(6)), (), (6,)),
        ),
        (),
        (6,),
    )
    assert orders.order_of(positive) is None  # a < 2 picks a + 6 for some entries
    assert orders.order_of(ArrayOp("add", (a, Const.of(1)), (), (6,))) is None
    transposed = ArrayOp(
        "broadcast_in_dim", (_argsort(shape=(2, 3)),), (("broadcast_dimensions", (1, 0)),), (3, 2)
    )
    assert orders.order_of(transposed) is None


FUNCTIONS = {  # each with a diagonal Hessian at every point: n = 12 entries
    "sort, rows": lambda X: jnp.sum(jnp.sin(jnp.sort(X, axis=1))),
    "sort, columns, weighted": lambda X: jnp.sum(jnp.sort(X, axis=0) ** 3 * jnp.arange(4.0)),
    "take_along_axis by argsort": lambda X: jnp.sum(
        jnp.take_along_axis(X, jnp.argsort(X, axis=1), axis=1) ** 3
    ),
    "columns by a row's argsort": lambda X: jnp.sum(jnp.exp(X[:, jnp.argsort(X[0])])),
    "a sort used twice": lambda X: jnp.sum(jnp.sort(X, axis=1) ** 2 * jnp.sort(X, axis=1)),
    "a flat sort": lambda X: jnp.sum(jnp.cos(jnp.sort(X.reshape(-1)))),
}
X0 = np.random.default_rng(3).normal(size=(3, 4))
X1 = np.random.default_rng(4).normal(size=(3, 4))


def _grid(x):
    return jnp.sum(jnp.sort(x.reshape(3, 4), axis=1) ** 3)


def _summed(X):
    return jnp.sum(jnp.cumsum(jnp.sort(X.reshape(-1))) ** 2)


@functools.cache
def _references() -> dict:
    """Every small JAX derivative this file compares with (the Hessians of FUNCTIONS at
    X0 and X1, of MOVED, :func:`_grid` and :func:`_summed` at X1, the Jacobians of
    STATISTICS at X1), stored as data (tests/jax_reference_store.py), the misses in one
    jitted program: one compile, not one per function nor one per eager primitive
    (read-only arrays)."""
    flat = X1.reshape(-1)
    wanted = [Ref("hessian", f, (x,)) for f in FUNCTIONS.values() for x in (X0, X1)]
    wanted += [Ref("hessian", f, (X1,)) for f in MOVED.values()]
    wanted += [Ref("hessian", _grid, (flat,)), Ref("hessian", _summed, (X1,))]
    wanted += [Ref("jacfwd", f, (X1 if x.ndim == 2 else flat,)) for f, x, _ in STATISTICS.values()]
    found = iter(jref.references(wanted))
    return {
        "functions": {n: [next(found), next(found)] for n in FUNCTIONS},
        "moved": {n: next(found) for n in MOVED},
        "grid": next(found),
        "summed": next(found),
        "statistics": {n: next(found) for n in STATISTICS},
    }


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_a_hessian_through_a_sort_is_diagonal_and_jax_s(name):
    f = FUNCTIONS[name]
    h = dgraph.make_function(f, "hessian", "python", point=[X0], sparse=True)
    assert h.generated.verified
    for x, reference in zip((X0, X1), _references()["functions"][name], strict=True):
        got = h(x)
        assert got.nnz == 12  # the diagonal: it was 48 (rows), 36 (columns), 144 (flat)
        rows, cols = got.nonzero()
        assert np.array_equal(rows, cols)
        want = reference.reshape(12, 12)
        np.testing.assert_allclose(got.toarray(), want, rtol=1e-12, atol=1e-13)


def test_a_sort_of_a_vector_read_as_a_grid_is_diagonal():
    """x (12,) reshaped to (3, 4), sorted along rows: the reshapes beside the permutations
    are taken into them (``Permutation.inner`` / ``outer``), so the inverse pair still
    meets; where a cumulative sum sits between, the union holds (every entry of JAX's
    Hessian is nonzero there), through the reshapes, its values JAX's."""
    for f, x0, x1, nnz in ((_grid, X0.ravel(), X1.ravel(), 12), (_summed, X0, X1, 144)):
        h = dgraph.make_function(f, "hessian", "python", point=[x0], sparse=True)
        got = h(x1)
        assert got.nnz == nnz
        want = _references()[f.__name__.strip("_")].reshape(12, 12)
        assert np.count_nonzero(want) == nnz
        np.testing.assert_allclose(got.toarray(), want, rtol=1e-12, atol=1e-12)


MOVED = {  # moves between the sort and its transpose: slices, pads, reshapes, an index
    "the k largest": lambda X: jnp.sum(jnp.exp(-jnp.sort(-X.reshape(-1))[:5])),
    "a trimmed sum": lambda X: jnp.sum(jnp.sin(jnp.sort(X.reshape(-1))[2:-2]) * jnp.arange(8.0)),
    "middle columns": lambda X: jnp.sum(jnp.sort(X, axis=1)[:, 1:3] ** 3),
    "one order statistic": lambda X: jnp.sort(X.reshape(-1))[7] ** 2 + jnp.sum(X**2),
    "negated on both sides": lambda X: jnp.sum(jnp.exp(-jnp.sort(-X.reshape(-1)))),
}


JAX_TOO = {"the k largest", "negated on both sides"}  # a move's values taken in, in JAX


@pytest.mark.parametrize("name", sorted(MOVED))
def test_moves_between_a_sort_and_its_transpose_keep_the_diagonal(name):
    """A slice of the sorted values, the pad that is its transpose, an index, a reshape
    and a negation are taken into the permutations (``left``, ``right``, their values
    into the rows), so the inverse pair still meets: the pattern is the diagonal (the
    union over every order; it was 144), the values JAX's, in NumPy and JAX code."""
    f = MOVED[name]
    want = _references()["moved"][name].reshape(12, 12)
    for lang in ("python", "jax") if name in JAX_TOO else ("python",):
        h = dgraph.make_function(f, "hessian", lang, point=[X0], sparse=True)
        got = h(X1)
        assert (got.nnz if lang == "python" else got.nse) == 12
        dense = got.toarray() if lang == "python" else as_dense(got)
        np.testing.assert_allclose(dense.reshape(12, 12), want, rtol=1e-12, atol=1e-13)


def test_a_move_taken_in_never_makes_a_product_larger():
    """A row times a slice of a sort (the gradient of a weighted sum of the k smallest):
    the slice, taken into the permutation, is let go again for the row (``release``),
    whose product is made dense first: n entries, as without the move, not the n² of the
    union; at n = 20,000 (where the union would be 4·10⁸ entries) the gradient's pattern
    is n."""
    n, k = 20_000, 2_000
    weights = jnp.linspace(0.0, 1.0, k)
    x = np.random.default_rng(8).normal(size=n)
    g = dgraph.make_function(
        lambda x: jnp.sum(jnp.sort(x)[:k] * weights), "jacobian", "python", point=[x], sparse=True
    )
    got = g(x)
    assert got.nnz == n
    want = np.asarray(jref.jacrev(lambda x: jnp.sum(jnp.sort(x)[:k] * weights))(x))
    np.testing.assert_allclose(got.toarray().reshape(-1), want, rtol=1e-13)
    h = dgraph.make_function(
        lambda x: jnp.sum(jnp.exp(-jnp.sort(-x)[:k])), "hessian", "python", point=[x], sparse=True
    )
    assert h(x).nnz == n  # refused before: the union of the k largest's Hessian, n²


def test_the_jax_code_takes_the_same_path():
    f = FUNCTIONS["a sort used twice"]
    h = dgraph.make_function(f, "hessian", "jax", point=[X0], sparse=True)
    got = h(X1)
    assert got.nse == 12
    want = _references()["functions"]["a sort used twice"][1].reshape(12, 12)
    np.testing.assert_allclose(as_dense(got).reshape(12, 12), want, rtol=1e-12)


def test_a_tie_made_wrong_is_caught(monkeypatch):
    """The scatter-add's sources left as the positions (not their inverse): the diagonal's
    values are wrong, and the Hessian does not verify."""
    real = orders.sources
    monkeypatch.setattr(
        orders, "sources", lambda op, positions, inverse: real(op, positions, False)
    )
    from dgraph.blocks import array_extra

    monkeypatch.setattr(array_extra, "sources", orders.sources)
    f = FUNCTIONS["columns by a row's argsort"]
    with pytest.raises(DGraphError, match="verif"):
        dgraph.make_function(f, "hessian", "python", point=[X0], sparse=True)


def test_a_move_s_values_dropped_on_purpose_are_caught(monkeypatch):
    """The generated code taking a negated move into a permutation without its values
    (the sign lost, as a first version of this code did): the code's check against the
    expression set fails."""
    from dgraph.codegen.tensor import permutation_code

    monkeypatch.setattr(permutation_code, "_weighted", lambda ops, p, values, *rest: values)
    with pytest.raises(DGraphError, match="FAILED"):
        dgraph.make_function(
            MOVED["negated on both sides"], "hessian", "python", point=[X0], sparse=True
        )


X0_FLAT, X1_FLAT = X0.ravel(), X1.ravel()
STATISTICS = {  # name: function, point, the union (rows kept × their fibres)
    "one order statistic": (lambda x: jnp.sort(x)[3], X0_FLAT, 12),
    "the 4 largest": (lambda x: jnp.sort(x)[-4:], X0_FLAT, 4 * 12),
    "middle columns": (lambda X: jnp.sort(X, axis=1)[:, 1:3], X0, 6 * 4),
    "the least of a slice": (lambda x: jnp.sort(x[2:9])[0], X0_FLAT, 7),
    "reversed, the 3 largest": (lambda x: jnp.sort(x)[::-1][:3], X0_FLAT, 3 * 12),
    "of a reshape": (lambda X: jnp.sort(X.reshape(-1))[5], X0, 12),
    "a row of the transpose": (lambda X: jnp.sort(X, axis=0).T[1], X0, 3 * 3),
    "negated": (lambda x: -jnp.sort(-x)[:2], X0_FLAT, 2 * 12),
}


def test_order_statistics_as_outputs_read_only_their_rows():
    """The Jacobian of a few sorted values (``sort(x)[k]``, the k largest, a slice of a
    sort of a slice): the moves taken in are kept, its ``sparse=True`` pattern the union
    of the rows they keep (each dense on its fibre), its values read entry by entry from
    the sources (``permutation.entries_between``), never the sort's own union of n²; the
    values JAX's, in NumPy and JAX code."""
    for name, (f, x0, union) in STATISTICS.items():
        x1 = X1 if x0.ndim == 2 else X1_FLAT
        want = _references()["statistics"][name]
        for lang in ("python", "jax") if name in ("the 4 largest", "negated") else ("python",):
            got = dgraph.make_function(f, "jacobian", lang, point=[x0], sparse=True)(x1)
            assert (got.nnz if lang == "python" else got.nse) == union, name
            dense = got.toarray() if lang == "python" else as_dense(got)
            np.testing.assert_array_equal(dense.reshape(want.shape), want, err_msg=name)


def test_order_statistics_of_many_stay_linear():
    """At n = 20,000, where the sort's union would be 4·10⁸ entries (refused before), the
    Jacobian of one order statistic has n entries and that of the 5 largest 5·n; the
    values one-hot at JAX's positions, equal to the NumPy values (the pattern checked
    against the rows dense on the fibre)."""
    n = 20_000
    x = np.random.default_rng(9).normal(size=n)
    order = np.argsort(x, kind="stable")
    for f, rows, taken in (
        (lambda x: jnp.sort(x)[7], 1, order[[7]]),
        (lambda x: jnp.sort(x)[-5:], 5, order[-5:]),
    ):
        got = dgraph.make_function(f, "jacobian", "python", point=[x], sparse=True)(x)
        assert got.nnz == rows * n
        want = np.zeros((rows, n))
        want[np.arange(rows), taken] = 1.0
        np.testing.assert_array_equal(got.toarray().reshape(rows, n), want)


def test_order_statistics_read_from_the_wrong_rows_are_caught(monkeypatch):
    """The generated code reading each entry's row value and source from another row:
    the code's check against the expression set fails."""
    from dgraph.codegen.tensor import permutation_code

    real = permutation_code._entries_valued

    def reversed_rows(ops, p, values, block, rows, cols):
        return real(ops, p, values, block, rows[::-1].copy(), cols)

    monkeypatch.setattr(permutation_code, "_entries_valued", reversed_rows)
    with pytest.raises(DGraphError, match="FAILED"):
        dgraph.make_function(
            STATISTICS["the 4 largest"][0], "jacobian", "python", point=[X0_FLAT], sparse=True
        )
