"""The pairs of entries that meet in a sparse product and the product entry each adds
to (dgraph.codegen.tensor.blockops): the shortcuts for a factor on the diagonal and for
a partial permutation give what the general search gives, and so does the merge that
places a sum's summands."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dgraph.blocks import ONES, add, diagonal, multiply, sparse
from dgraph.codegen.tensor.blockops import (
    _meeting_pairs,
    _merged,
    _permuted_positions,
    _positions,
    _through_move,
    entries,
)


def _searched(a, b, product, ia, ib):
    width = max(1, int(np.prod(b.in_shape)))
    keys = a.rows[ia] * width + b.cols[ib]
    return _positions(product.rows * width + product.cols, keys)


def _partial_permutation(rng, rows: int, cols: int, increasing: bool):
    """At most one entry in each row and column (a slice, a pad, a shift)."""
    k = int(rng.integers(1, min(rows, cols) + 1))
    r = np.sort(rng.choice(rows, k, replace=False))
    c = rng.choice(cols, k, replace=False)
    return sparse((rows,), (cols,), r, np.sort(c) if increasing else c)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**16), st.booleans(), st.booleans())
def test_a_partial_permutation_places_the_pairs_as_the_search_does(seed, left, increasing):
    rng = np.random.default_rng(seed)
    n, m, p = (int(x) for x in rng.integers(2, 9, size=3))
    density = float(rng.uniform(0.2, 0.8))
    if left:
        a = _partial_permutation(rng, n, m, increasing)
        b = sparse((m,), (p,), *np.nonzero(rng.random((m, p)) < density))
    else:
        a = sparse((n,), (m,), *np.nonzero(rng.random((n, m)) < density))
        b = _partial_permutation(rng, m, p, increasing)
    _, product = multiply(a, b)
    if product is None:
        return
    ia, ib = _meeting_pairs(a.cols, b.rows, m)
    found = _permuted_positions(a.rows, a.cols, b.rows, b.cols, ia, ib, product)
    if left or increasing:  # on the right, one that keeps the columns' order
        assert found is not None
    if found is not None:
        assert np.array_equal(found, _searched(a, b, product, ia, ib))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**16), st.booleans(), st.booleans())
def test_a_move_pairs_each_entry_it_meets_once_in_order(seed, left, increasing):
    """A factor of ones with at most one entry per row and column, both in order: the
    pairs are those the search finds, one per product entry, in the product's order;
    a move that reorders columns is left to the search."""
    rng = np.random.default_rng(seed)
    n, m, p = (int(x) for x in rng.integers(2, 9, size=3))
    density = float(rng.uniform(0.2, 0.8))
    if left:
        move = _partial_permutation(rng, n, m, increasing)
        a = sparse(move.out_shape, move.in_shape, move.rows, move.cols, ONES)
        b = sparse((m,), (p,), *np.nonzero(rng.random((m, p)) < density))
    else:
        a = sparse((n,), (m,), *np.nonzero(rng.random((n, m)) < density))
        move = _partial_permutation(rng, m, p, increasing)
        b = sparse(move.out_shape, move.in_shape, move.rows, move.cols, ONES)
    _, product = multiply(a, b)
    if product is None:
        return
    found = _through_move(a, b, product)
    in_order = bool(np.all(np.diff(move.cols) > 0))
    assert (found is not None) == in_order
    if found is None:
        return
    ia, ib, ic, single = found
    assert single and np.array_equal(ic, np.arange(product.nnz))
    sa, sb = (x.tolist() for x in _meeting_pairs(a.cols, b.rows, m))
    assert sorted(zip(ia.tolist(), ib.tolist(), strict=True)) == sorted(zip(sa, sb, strict=True))
    assert np.array_equal(_searched(a, b, product, ia, ib), np.arange(product.nnz))


def test_a_general_product_is_left_to_the_search():
    a = sparse((2,), (2,), [0, 0, 1], [0, 1, 1])
    b = sparse((2,), (2,), [0, 1, 1], [1, 0, 1])
    _, product = multiply(a, b)
    ia, ib = _meeting_pairs(a.cols, b.rows, 2)
    assert _permuted_positions(a.rows, a.cols, b.rows, b.cols, ia, ib, product) is None


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**16), st.booleans())
def test_a_sum_places_its_summands_as_the_search_does(seed, on_the_diagonal):
    """Where each summand's entries sit in the sum: the merge of the two patterns gives
    the positions a search of their flat indices gives, with a diagonal summand too."""
    rng = np.random.default_rng(seed)
    n, m = (int(x) for x in rng.integers(1, 9, size=2))
    if on_the_diagonal:
        m = n
    blocks = [
        sparse((n,), (m,), *np.nonzero(rng.random((n, m)) < rng.uniform(0.1, 0.9)))
        for _ in range(2)
    ]
    if on_the_diagonal:
        blocks[int(rng.integers(2))] = diagonal((n,))
    a, b = blocks
    total = add(a, b)
    if a.nnz == 0 or b.nnz == 0 or not hasattr(total, "indptr"):
        return
    placed = _merged(a, b, total)
    assert placed is not None
    width = max(1, m)
    keys = total.rows * width + total.cols
    for block, where in zip((a, b), placed, strict=True):
        rows, cols, _ = entries(block)
        assert np.array_equal(where, _positions(keys, rows * width + cols))
