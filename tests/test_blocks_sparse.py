"""Sparse block patterns: the fast products, sums and patterns of :mod:`dgraph.blocks`
against a straightforward reference (dense 0/1 matrices, and the label grid enumerated
entry by entry), with the invariants a :class:`Sparse` block keeps."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dgraph import blocks
from dgraph.blocks import (
    CONSTANT,
    GENERAL,
    ONES,
    Labelled,
    Sparse,
    add,
    add_values,
    as_sparse,
    multiply,
    multiply_values,
    pattern,
    sparse,
    to_matrix,
)

KINDS = st.sampled_from([ONES, CONSTANT, GENERAL])


def _dense(b) -> np.ndarray:
    """The 0/1 matrix of a block's pattern, from its entries one by one."""
    m = np.zeros((math.prod(b.out_shape), math.prod(b.in_shape)), dtype=np.int64)
    s = as_sparse(b)
    for r, c in zip(s.rows.tolist(), s.cols.tolist(), strict=True):
        m[r, c] += 1
    return m


def _values(b, seed: int) -> np.ndarray:
    """Small integer values for a block (one per stored value): sums cancel at times."""
    shape = (b.nnz,) if isinstance(b, Sparse) else tuple(b.sizes[k] for k in b.value)
    return np.random.default_rng(seed).integers(-1, 3, size=shape).astype(float)


def _reference_pattern(b: Labelled) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every assignment of the labels in C order, each index read axis by axis."""
    grids = (
        np.indices(b.sizes, dtype=np.int64).reshape(len(b.sizes), -1)
        if b.sizes
        else np.zeros((0, 1), np.int64)
    )

    def flat(axes, shape):
        index = np.zeros(grids.shape[1], dtype=np.int64)
        for (labels, off), length in zip(axes, shape, strict=True):
            position = np.zeros(grids.shape[1], dtype=np.int64)
            for k in labels:
                position = position * b.sizes[k] + grids[k]
            index = index * length + position + off
        return index

    values = np.zeros(grids.shape[1], dtype=np.int64)
    for k in b.value:
        values = values * b.sizes[k] + grids[k]
    return flat(b.out_axes, b.out_shape), flat(b.in_axes, b.in_shape), values


def _check_invariants(s: Sparse, limit: int = 2**31) -> None:
    """Row-major, each entry once, in range, read-only, its row pointer right; rows
    int64, columns and row pointer int32 where the columns and entries fit it."""
    width = max(1, math.prod(s.in_shape))
    index = np.int32 if max(math.prod(s.in_shape), s.nnz) < limit else np.int64
    assert s.rows.dtype == np.int64 and s.cols.dtype == s.indptr.dtype == index
    assert not s.rows.flags.writeable and not s.cols.flags.writeable
    assert not s.indptr.flags.writeable
    keys = s.rows * width + s.cols
    assert (np.diff(keys) > 0).all()
    assert s.nnz == 0 or (s.cols.min() >= 0 and s.cols.max() < width)
    assert s.nnz == 0 or (s.rows.min() >= 0 and s.rows.max() < math.prod(s.out_shape))
    counts = np.bincount(s.rows, minlength=math.prod(s.out_shape))
    assert (np.diff(s.indptr) == counts).all() and s.indptr[0] == 0


@st.composite
def _sides(draw, labels: list[int], sizes: list[int], lengths=None):
    """Axes reading some of ``labels``: one label and an offset, or two labels row-major;
    the axis lengths drawn too unless given."""
    axes, shape = [], []
    count = len(lengths) if lengths is not None else draw(st.integers(1, 2))
    for i in range(count):
        length = None if lengths is None else lengths[i]
        k = draw(st.sampled_from(labels))
        if length is None and len(labels) > 1 and draw(st.booleans()):
            j = draw(st.sampled_from([x for x in labels if x != k]))
            axes.append(((k, j), 0))
            shape.append(sizes[k] * sizes[j])
            continue
        if length is not None and sizes[k] > length:
            k = None
        if k is None:  # a new label that fits the given length
            k = len(sizes)
            sizes.append(draw(st.integers(1, length)))
            labels.append(k)
        room = (length - sizes[k]) if length is not None else draw(st.integers(0, 2))
        off = draw(st.integers(0, room))
        axes.append(((k,), off))
        shape.append(length if length is not None else sizes[k] + room)
    return tuple(axes), tuple(shape)


@st.composite
def labelled_blocks(draw, out_shape=None):
    """A labelled block: a few labels read by the axes of both sides, every label read
    somewhere (each assignment a different entry), values along some of them."""
    sizes = [draw(st.integers(1, 3)) for _ in range(draw(st.integers(1, 3)))]
    labels = list(range(len(sizes)))
    out_axes, out = draw(_sides(labels, sizes, out_shape))
    in_axes, inn = draw(_sides(labels, sizes))
    read = {k for ls, _ in (*out_axes, *in_axes) for k in ls}
    missing = [k for k in range(len(sizes)) if k not in read]
    if missing:  # an extra input axis for each label no axis reads
        in_axes = (*in_axes, *(((k,), 0) for k in missing))
        inn = (*inn, *(sizes[k] for k in missing))
    value = tuple(sorted(draw(st.sets(st.sampled_from(range(len(sizes)))))))
    return Labelled(out, inn, out_axes, in_axes, tuple(sizes), value, draw(KINDS))


@st.composite
def sparse_blocks(draw, out_shape=None, in_shape=None, large=False):
    """A random pattern (density drawn; at times over ``blocks.SMALL`` entries, the
    size the caches stop at)."""
    out = out_shape if out_shape is not None else (draw(st.integers(1, 6)),)
    inn = in_shape if in_shape is not None else (draw(st.integers(1, 6)),)
    if large:
        out, inn = (72,) if out_shape is None else out, (90,) if in_shape is None else inn
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    density = draw(st.sampled_from([0.0, 0.2, 0.6, 1.0] if not large else [0.7, 0.9]))
    m = rng.random((math.prod(out), math.prod(inn))) < density
    rows, cols = np.nonzero(m)
    order = rng.permutation(rows.size)  # sparse() sorts them
    return sparse(out, inn, rows[order], cols[order], draw(KINDS))


def _as_other(draw, b, large):
    """A block of ``b``'s input shape as its output: sparse or labelled."""
    if not large and draw(st.booleans()):
        return draw(labelled_blocks(out_shape=b.in_shape))
    return draw(sparse_blocks(out_shape=b.in_shape, large=large))


@st.composite
def products(draw):
    large = draw(st.integers(0, 4)) == 0
    upper = (
        draw(labelled_blocks())
        if not large and draw(st.booleans())
        else draw(sparse_blocks(large=large))
    )
    lower = _as_other(draw, upper, large)
    if isinstance(upper, Labelled) and isinstance(lower, Labelled):
        lower = as_sparse(lower)  # a sparse product, not a labelled one
    return upper, lower


@st.composite
def sums(draw):
    large = draw(st.integers(0, 4)) == 0
    first = draw(sparse_blocks(large=large)) if large or draw(st.booleans()) else None
    if first is None:
        first = draw(labelled_blocks())
    if large or draw(st.booleans()):
        second = draw(sparse_blocks(first.out_shape, first.in_shape, large=large))
    else:
        second = as_sparse(draw(labelled_blocks(out_shape=first.out_shape)))
        if second.in_shape != first.in_shape:
            second = draw(sparse_blocks(first.out_shape, first.in_shape))
    return (first, second) if draw(st.booleans()) else (second, first)


@settings(max_examples=60, deadline=None)
@given(labelled_blocks())
def test_a_labelled_blocks_pattern_is_its_label_grid(b):
    """The broadcast sums give each entry's row, column and value index as the grid of
    every label assignment does, in the same order."""
    for got, expected in zip(pattern(b), _reference_pattern(b), strict=True):
        assert got.dtype == np.int64 and got.tolist() == expected.tolist()
    s = as_sparse(b)
    _check_invariants(s)
    rows, cols, _ = _reference_pattern(b)
    assert sorted(zip(rows.tolist(), cols.tolist(), strict=True)) == list(
        zip(s.rows.tolist(), s.cols.tolist(), strict=True)
    )


@settings(max_examples=60, deadline=None)
@given(products(), st.integers(0, 2**16))
def test_sparse_products_are_the_dense_products(pair, seed):
    """The product's pattern is that of the 0/1 matrices' product, its price the pairs
    that meet, Σ_k nnz(A[:, k]) · nnz(B[k, :]) (nothing with a factor of ones or two
    constants), its kind the larger (ones summed: a constant); again from the cache."""
    upper, lower = pair
    a, b = _dense(upper), _dense(lower)
    counts = a @ b
    free = ONES in (upper.kind, lower.kind) or max(upper.kind, lower.kind) == CONSTANT
    pairs = int((a.sum(axis=0) * b.sum(axis=1)).sum())
    for _ in range(2):
        cost, product = multiply(upper, lower)
        direct = blocks._sparse_product(as_sparse(upper), as_sparse(lower))
        assert direct[0] == cost == (0 if free else pairs)
        if not counts.any():
            assert product is None and direct[1] is None
            continue
        for p in (product, direct[1]):
            _check_invariants(p)
            assert (_dense(p) == (counts > 0)).all()
            kind = max(upper.kind, lower.kind)
            assert p.kind == (CONSTANT if kind == ONES and counts.max() > 1 else kind)
        assert product == direct[1] and hash(product) == hash(direct[1])
    assert multiply(upper, lower)[1] is multiply(upper, lower)[1]  # remembered
    vu, vl = _values(upper, seed), _values(lower, seed + 1)
    block, values = multiply_values(upper, lower, vu, vl)
    expected = to_matrix(upper, vu).toarray() @ to_matrix(lower, vl).toarray()
    if block is None:
        assert not counts.any()
    else:
        assert block == product and (to_matrix(block, values).toarray() == expected).all()


@settings(max_examples=60, deadline=None)
@given(sums(), st.integers(0, 2**16))
def test_sparse_sums_are_the_dense_unions(pair, seed):
    """A sum's pattern is the union of the two (each entry once, in row order), its
    values no longer all ones; the same either way round."""
    first, second = pair
    expected = (_dense(first) + _dense(second)) > 0
    total = add(first, second)
    assert (_dense(total) == expected).all() and total.kind >= CONSTANT
    assert total.kind == max(first.kind, second.kind, CONSTANT)
    assert add(second, first) == total
    direct = blocks._add(first, second)
    assert direct == total
    if isinstance(total, Sparse):
        _check_invariants(total)
        _check_invariants(direct)
    va, vb = _values(first, seed), _values(second, seed + 1)
    block, values = add_values(first, second, va, vb)
    expected = to_matrix(first, va).toarray() + to_matrix(second, vb).toarray()
    assert block == total and (to_matrix(block, values).toarray() == expected).all()


def test_sparse_blocks_are_equal_by_pattern_and_hash_it_when_asked():
    """Equality is the pattern's (shapes, kind and indices), however it was built; the
    hash of the indices is computed the first time it is needed, not before."""
    one = sparse((3,), (4,), np.array([2, 0, 1]), np.array([3, 1, 0]), GENERAL)
    two = sparse((3,), (4,), np.array([0, 1, 2]), np.array([1, 0, 3]), GENERAL)
    assert "digest" not in one.__dict__
    assert one == two and hash(one) == hash(two) and len({one, two}) == 1
    assert one.rows.tolist() == [0, 1, 2] and one.cols.tolist() == [1, 0, 3]
    assert one != sparse((3,), (4,), np.array([0, 1, 2]), np.array([1, 0, 2]), GENERAL)
    assert one != sparse((3,), (4,), np.array([0, 1]), np.array([1, 0]), GENERAL)
    assert one != sparse((3,), (4,), np.array([0, 1, 2]), np.array([1, 0, 3]), ONES)
    assert one != sparse((1, 3), (4,), np.array([0, 1, 2]), np.array([1, 0, 3]), GENERAL)
    assert blocks.scale(sparse((3,), (4,), one.rows, one.cols, ONES)) == one.__class__(
        (3,), (4,), one.rows, one.cols, CONSTANT
    )
    with pytest.raises(ValueError):
        one.rows[0] = 1  # read-only: the digest, once computed, stays the pattern's
    m = to_matrix(one, np.array([1.0, 2.0, 3.0]))
    assert m.toarray().tolist() == [[0, 1, 0, 0], [2, 0, 0, 0], [0, 0, 0, 3]]
    m.indices[0] = 2  # the matrix is the caller's: the block keeps its pattern
    assert one.cols.tolist() == [1, 0, 3]


def test_the_recent_products_go_with_their_operands():
    """A large product is remembered while both factors live, then forgotten."""
    import gc

    n = blocks.SMALL + 10
    rows = np.arange(n)
    a = sparse((n,), (n,), rows, rows, GENERAL)
    b = sparse((n,), (n,), rows, (rows + 1) % n, GENERAL)
    cost, p = multiply(a, b)
    assert cost == n and p.nnz == n and multiply(a, b)[1] is p
    key = ("product", id(a), id(b))
    assert key in blocks.RECENT.entries
    del b
    if key in blocks.RECENT.entries:  # b in a cycle: only a collection frees it
        gc.collect()  # a walk over the process's whole heap (a second late in a worker)
    assert key not in blocks.RECENT.entries


def test_the_recent_results_stay_within_their_budget():
    """At most ``size`` results and ``budget`` pattern entries are held, oldest out first;
    a result larger than the budget is not held at all."""
    recent = blocks._Recent(2, 25)
    ops = [sparse((10,), (10,), np.arange(10), np.arange(10), GENERAL) for _ in range(4)]
    small = sparse((10,), (10,), np.arange(5), np.arange(5), GENERAL)
    recent.put("sum", ops[0], ops[1], ops[0])
    recent.put("sum", ops[1], ops[2], small)
    assert recent.get("sum", ops[0], ops[1]) is ops[0] and recent.held == 15
    recent.put("sum", ops[2], ops[3], ops[3])  # 25 entries: the oldest goes
    assert recent.get("sum", ops[1], ops[2]) is None and recent.held == 20
    assert recent.get("sum", ops[0], ops[1]) is ops[0]
    recent.put("product", ops[0], ops[3], (9, ops[2]))  # over the budget: the oldest goes
    assert recent.get("sum", ops[2], ops[3]) is None and recent.held == 20
    big = sparse((6,), (6,), *np.nonzero(np.ones((6, 6))), GENERAL)
    recent.put("sum", ops[0], ops[2], big)
    assert recent.get("sum", ops[0], ops[2]) is None and recent.held == 20
    recent.clear()
    assert recent.held == 0 and not recent.entries


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**16), KINDS, KINDS, st.booleans())
def test_a_product_with_a_diagonal_keeps_the_other_pattern(seed, kind, diagonal_kind, left):
    """Above the small sizes a product with a block on the diagonal (an elementwise
    operation's) is the other factor's pattern with its index arrays shared: the same
    pattern, price and kind as the general product, and its values the dense product's."""
    rng = np.random.default_rng(seed)
    n = 90  # 8100 places, some 5000 entries: above blocks.SMALL
    rows, cols = np.nonzero(rng.random((n, n)) < 0.6)
    other = sparse((n,), (n,), rows, cols, kind)
    assert other.nnz > blocks.SMALL
    values = None if diagonal_kind != GENERAL else (0,)
    diagonal = Labelled((n,), (n,), (((0,), 0),), (((0,), 0),), (n,), values or (), diagonal_kind)
    assert blocks.on_the_diagonal(diagonal)
    upper, lower = (diagonal, other) if left else (other, diagonal)
    cost, product = multiply(upper, lower)
    general = blocks._sparse_product(as_sparse(upper), as_sparse(lower))
    assert np.shares_memory(product.indptr, other.indptr)
    assert np.shares_memory(product.cols, other.cols)
    assert (cost, product, product.kind) == (general[0], general[1], general[1].kind)
    vu, vl = _values(upper, seed), _values(lower, seed + 1)
    block, got = multiply_values(upper, lower, vu, vl)
    expected = to_matrix(upper, vu).toarray() @ to_matrix(lower, vl).toarray()
    assert (to_matrix(block, got).toarray() == expected).all()


def test_only_square_blocks_with_every_diagonal_entry_are_on_the_diagonal():
    assert blocks.on_the_diagonal(
        Labelled(
            (3, 2), (3, 2), (((0,), 0), ((1,), 0)), (((0,), 0), ((1,), 0)), (3, 2), (0, 1), GENERAL
        )
    )
    shifted = Labelled((3,), (4,), (((0,), 0),), (((0,), 1),), (3,), (), ONES)
    transposed = Labelled(
        (3, 2), (2, 3), (((0,), 0), ((1,), 0)), (((1,), 0), ((0,), 0)), (3, 2), (), ONES
    )
    outer = Labelled((3,), (3,), (((0,), 0),), (((1,), 0),), (3, 3), (0, 1), GENERAL)
    assert not any(map(blocks.on_the_diagonal, (shifted, transposed, outer)))


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**16), KINDS, st.sampled_from(["monotone", "permuted", "pad", "slice"]))
def test_a_product_with_a_move_is_the_general_product(seed, kind, move):
    """Above the small sizes a product with a move (ones, at most one entry per row and
    column: a pad, a slice, a permutation, a partial selection), either side, is the
    general product's pattern, price and kind, without a product of patterns; its values
    the dense product's."""
    rng = np.random.default_rng(seed)
    n = 90  # some 5000 entries: above blocks.SMALL
    if move in ("pad", "slice"):  # labelled: a pad embeds n - 2 entries, a slice takes them
        out, inn = ((n,), (n - 2,)) if move == "pad" else ((n - 2,), (n,))
        offsets = (1, 0) if move == "pad" else (0, 1)
        m = Labelled(out, inn, (((0,), offsets[0]),), (((0,), offsets[1]),), (n - 2,), (), ONES)
    else:
        rows = np.sort(rng.choice(n, n - 5, replace=False))
        cols = rng.choice(n, n - 5, replace=False)
        m = sparse((n,), (n,), rows, np.sort(cols) if move == "monotone" else cols, ONES)
    assert blocks._move(m) is not None
    for left in (True, False):
        size = math.prod(m.in_shape if left else m.out_shape)
        rows, cols = np.nonzero(rng.random((size, n) if left else (n, size)) < 0.6)
        other = sparse(*(((size,), (n,)) if left else ((n,), (size,))), rows, cols, kind)
        assert other.nnz > blocks.SMALL
        upper, lower = (m, other) if left else (other, m)
        cost, product = multiply(upper, lower)
        general = blocks._sparse_product(as_sparse(upper), as_sparse(lower))
        assert (cost, product, product.kind) == (general[0], general[1], general[1].kind)
        _check_invariants(product)
        vu, vl = _values(upper, seed), _values(lower, seed + 1)
        block, got = multiply_values(upper, lower, vu, vl)
        expected = to_matrix(upper, vu).toarray() @ to_matrix(lower, vl).toarray()
        assert block == product and (to_matrix(block, got).toarray() == expected).all()


def test_only_ones_with_one_entry_per_row_and_column_are_moves():
    one = np.arange(4)
    assert blocks._move(sparse((4,), (4,), one, one[::-1], ONES)).monotone is False
    assert blocks._move(sparse((4,), (4,), one, one, CONSTANT)) is None  # not ones
    assert blocks._move(sparse((4,), (4,), [0, 0], [1, 2], ONES)) is None  # two in a row
    assert blocks._move(sparse((4,), (4,), [0, 1], [2, 2], ONES)) is None  # two in a column
    assert blocks._move(blocks.identity((4,))).monotone
    assert blocks._move(blocks.diagonal((4,))) is None  # values


def test_the_heap_is_kept_for_the_outermost_call_only(monkeypatch):
    """The allocator's thresholds are raised when the outermost scoped call starts and set
    to glibc's dynamic bounds, free memory returned, when it ends (also on an error)."""
    calls = []

    class Libc:
        def mallopt(self, what, value):
            calls.append(("mallopt", what, value))
            return 1

        def malloc_trim(self, pad):
            calls.append(("trim", pad))
            return 1

    monkeypatch.setattr(blocks.heap, "_libc", Libc)
    mmap, trim = blocks.heap.M_MMAP_THRESHOLD, blocks.heap.M_TRIM_THRESHOLD
    kept = [("mallopt", mmap, blocks.heap.KEPT[0]), ("mallopt", trim, blocks.heap.KEPT[1])]
    after = [("mallopt", mmap, blocks.heap.AFTER[0]), ("mallopt", trim, blocks.heap.AFTER[1])]
    with pytest.raises(KeyError), blocks.scoped():
        assert calls == kept
        with blocks.scoped():
            pass
        assert calls == kept  # an inner call changes nothing
        raise KeyError
    assert calls == [*kept, *after, ("trim", 0)]


@pytest.mark.parametrize("before", [True, False])
def test_numpy_s_huge_page_request_is_off_within_a_call_and_restored(monkeypatch, before):
    """Within the outermost scoped call NumPy asks for no huge pages; afterwards its
    setting is what it was (also on an error), and an inner call changes nothing."""
    state = [before]

    def switch(enabled):
        previous, state[0] = state[0], enabled
        return previous

    monkeypatch.setattr(blocks.heap, "_madvise_switch", lambda: switch)
    with pytest.raises(KeyError), blocks.scoped():
        assert state == [False]
        with blocks.scoped():
            pass
        assert state == [False]
        raise KeyError
    assert state == [before]


def test_numpy_s_huge_page_setting_in_the_environment_is_left_alone(monkeypatch):
    monkeypatch.setenv("NUMPY_MADVISE_HUGEPAGE", "1")
    assert blocks.heap._madvise_switch() is None
    monkeypatch.delenv("NUMPY_MADVISE_HUGEPAGE")
    switch = blocks.heap._madvise_switch()  # NumPy's private switch: gone, this fails
    assert callable(switch), f"NumPy {np.__version__} has no _set_madvise_hugepage"
    assert switch.__name__ == "_set_madvise_hugepage"


def test_a_sum_whose_summand_holds_the_other_is_that_pattern_without_a_merge(monkeypatch):
    """Within a call, a union remembers its summands' patterns (sparse ones by their
    arrays, shared with a product by a diagonal; labelled ones by their labels): a later
    sum of it, or of a block of its pattern, with one of them is its pattern at once,
    the arrays shared, no merge made; outside a call, or after it, each sum is merged."""
    n = blocks.SMALL + 10
    rows = np.arange(n)
    shift = Labelled((n,), (n + 1,), (((0,), 0),), (((0,), 1),), (n,), (), ONES)
    a = sparse((n,), (n + 1,), rows, rows, GENERAL)
    b = sparse((n,), (n + 1,), rows, rows + 1, CONSTANT)
    expected = (_dense(a) + _dense(b)) > 0
    merges = []
    made = blocks._pattern_matrix
    monkeypatch.setattr(blocks, "_pattern_matrix", lambda *x: merges.append(1) or made(*x))
    with blocks.scoped():
        total = blocks._add(a, shift)  # a labelled summand: known by its labels
        assert len(merges) == 2 and (_dense(total) == expected).all()
        scaled = multiply(blocks.diagonal((n,)), total)[1]  # the same arrays
        assert np.shares_memory(scaled.cols, total.cols)
        sums = {}
        for other in (a, b, shift, total):  # b: its pattern is shift's, not known as such
            sums[id(other)] = again = blocks._add(other, scaled)
            assert (_dense(again) == expected).all() and again.kind == GENERAL
            assert np.shares_memory(again.cols, total.cols) is (other is not b)
        assert len(merges) == 4  # only b's sum merged
        with_b = sums[id(b)]
        for part in (a, shift, total, scaled):  # what its parts held, it holds
            nested = blocks._add(part, with_b)
            assert np.shares_memory(nested.cols, with_b.cols) and len(merges) == 4
        key = blocks.PARTS.key(total, total)
        assert blocks.PARTS.held[key]
        keep = blocks.PARTS.alive[key]
        blocks.PARTS.alive[key] = (keep[1], keep[0])  # as if other arrays had these ids
        assert blocks.PARTS.holding(total, total, a, a) is None  # forgotten, not trusted
    assert not blocks.PARTS.held and not blocks.PARTS.alive  # forgotten with the call
    assert not np.shares_memory(blocks._add(scaled, a).cols, total.cols)
    assert len(merges) == 6


def test_column_indices_are_int32_where_they_fit_and_products_and_sums_stay_exact():
    """A pattern's columns and row pointer are int32 up to 2³¹ columns, int64 past it;
    sums across the two keep every entry (flat keys past 2³¹ in int64)."""
    wide, wider = 2**31 - 1, 2**31 + 5
    narrow = sparse((3,), (wide,), [0, 1, 2], [wide - 1, 7, wide - 2])
    broad = sparse((3,), (wider,), [0, 2], [wider - 1, 3])
    assert narrow.cols.dtype == narrow.indptr.dtype == np.int32
    assert broad.cols.dtype == broad.indptr.dtype == np.int64
    assert narrow.rows.dtype == broad.rows.dtype == np.int64
    _check_invariants(narrow)
    _check_invariants(broad)
    other = sparse((3,), (wide,), [0, 2, 2], [3, 0, wide - 1])
    total = add(narrow, other)
    _check_invariants(total)
    expected = {(0, wide - 1), (0, 3), (1, 7), (2, 0), (2, wide - 2), (2, wide - 1)}
    assert set(zip(total.rows.tolist(), total.cols.tolist(), strict=True)) == expected
    assert total.digest == sparse((3,), (wide,), *zip(*sorted(expected), strict=True)).digest


def test_products_across_the_int32_limit_keep_every_entry(monkeypatch):
    """A product taking rows of a pattern with int32 columns, and of one past the limit
    (lowered to 1,000 here: SciPy's product holds a workspace as wide as the columns,
    16 GB at 2³¹), keeps every entry and stores each side's index type."""
    monkeypatch.setattr(blocks, "INT32_LIMIT", 1000)
    pick = sparse((2,), (3,), [0, 1], [2, 0], ONES)  # rows 2 and 0
    for width, index in ((999, np.int32), (1005, np.int64)):
        total = sparse(
            (3,), (width,), [0, 0, 1, 2, 2, 2], [3, width - 1, 7, 0, width - 2, width - 1]
        )
        assert total.cols.dtype == index
        _, taken = multiply(pick, total)
        _check_invariants(taken, limit=1000)
        assert taken.cols.dtype == index
        assert taken.cols.tolist() == [0, width - 2, width - 1, 3, width - 1]
