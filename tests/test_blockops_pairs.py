"""The pairs of entries that meet in a sparse product and the product entry each adds
to (dgraph.codegen.tensor.blockops): the shortcuts for a factor on the diagonal and for
a partial permutation give what the general search gives, and so do the merge that
places a sum's summands and the placing of a sum's parts kept by their origins."""

from __future__ import annotations

import contextlib

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dgraph.blocks import ONES, add, diagonal, multiply, sparse
from dgraph.codegen.ir import Name
from dgraph.codegen.tensor import blockops
from dgraph.codegen.tensor.blockops import (
    MERGE_SHARE,
    _looked_up,
    _meeting_pairs,
    _merged,
    _permuted_positions,
    _positions,
    _resolved,
    _sum_placed,
    _through_move,
    entries,
    every,
    fills,
)
from dgraph.codegen.tensor.constants import DECODER, _checksum, _text
from dgraph.codegen.tensor.triangle import mirror_positions


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


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**16))
def test_a_general_products_entries_are_looked_up_in_their_rows_as_searched(seed):
    """Each pair's product entry looked up within its row of the product's pattern
    (:func:`_looked_up`) is the place the search of the flat keys finds, every place in
    order (the very ``every`` array) where the pairs are the product's entries in order."""
    rng = np.random.default_rng(seed)
    n, m, p = (int(x) for x in rng.integers(1, 9, size=3))
    density = float(rng.uniform(0.1, 0.9))
    a = sparse((n,), (m,), *np.nonzero(rng.random((n, m)) < density))
    b = sparse((m,), (p,), *np.nonzero(rng.random((m, p)) < density))
    _, product = multiply(a, b)
    if product is None:
        return
    ia, ib = _meeting_pairs(a.cols, b.rows, m)
    want = _searched(a, b, product, ia, ib)
    got = _looked_up(product, a.rows[ia], b.cols[ib])
    np.testing.assert_array_equal(got, want)
    assert (got is every(got.size)) == (want is every(want.size))


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


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**16), st.booleans())
def test_a_large_sum_from_one_merge_is_adds_sum_placed_as_the_search_does(seed, nested):
    """Two patterns above the size of the remembered small sums: the sum formed with
    its summands' places (one merge) has add's pattern, and the places are where a
    search of each summand's flat indices finds them (every entry, in order, for a
    summand holding the other's pattern)."""
    rng = np.random.default_rng(seed)
    n, m = 80, 90
    masks = [rng.random((n, m)) < rng.uniform(0.3, 0.9) for _ in range(2)]
    if nested:
        masks[1] &= masks[0]
    a, b = (sparse((n,), (m,), *np.nonzero(mask)) for mask in masks)
    if min(a.nnz, b.nnz) == 0:
        return
    total, placed = _sum_placed(a, b)
    union = np.nonzero(masks[0] | masks[1])
    assert np.array_equal(total.rows, union[0]) and np.array_equal(total.cols, union[1])
    keys = total.rows * m + total.cols
    if placed is None:  # a smaller pair: add's own sum
        return
    for block, where in zip((a, b), placed, strict=True):
        assert np.array_equal(where, np.searchsorted(keys, block.rows * m + block.cols))
    if nested:
        assert np.array_equal(placed[0], np.arange(total.nnz))


@contextlib.contextmanager
def _merge_from(size: int):
    kept = blockops.MERGE_FROM
    blockops.MERGE_FROM = size
    try:
        yield
    finally:
        blockops.MERGE_FROM = kept


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**16), st.booleans())
def test_keyed_parts_are_placed_where_a_search_of_their_flat_keys_finds_them(seed, merged):
    """A sum's parts kept by their origins (``Terms``' keyed form: a summand block, the
    part's positions among its entries or all of them, its values) placed in the sum's
    pattern: an origin of the sum's own pattern (another object) as its positions, a
    large one by a merge (``merged``: small sums too), a small one or a diagonal by a
    search; each where the search of the part's flat keys among the sum's finds it, None
    for every entry in order."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 12))
    m = n if rng.random() < 0.5 else int(rng.integers(1, 12))
    mask = rng.random((n, m)) < rng.uniform(0.2, 0.9)
    if n == m:
        mask |= np.eye(n, dtype=bool)
    if not mask.any():
        return
    total = sparse((n,), (m,), *np.nonzero(mask))
    origins = [sparse((n,), (m,), *np.nonzero(mask))]  # the sum's pattern, other arrays
    for share in (0.95, 0.6, 1 / (2 * MERGE_SHARE)):  # merged, merged, searched
        sub = mask & (rng.random((n, m)) < share)
        if sub.any():
            origins.append(sparse((n,), (m,), *np.nonzero(sub)))
    if n == m:
        origins.append(diagonal((n,)))  # labelled: its entries searched
    keyed = []
    for k, origin in enumerate(origins):
        keyed.append((origin, None, Name(f"all{k}")))
        at = np.flatnonzero(rng.random(origin.nnz) < 0.5)
        keyed.append((origin, rng.permutation(at), Name(f"some{k}")))
    with _merge_from(0 if merged else blockops.MERGE_FROM):  # small sums merged too, or not
        parts = _resolved(total, tuple(keyed), total.nnz)
    keys = total.rows * m + total.cols
    for (origin, at, data), (where, values) in zip(keyed, parts, strict=True):
        rows, cols, _ = entries(origin)
        want = np.searchsorted(keys, rows.astype(np.int64) * m + cols)
        want = want if at is None else want[at]
        assert values is data
        assert (where is None) == fills(want, total.nnz)
        got = every(total.nnz) if where is None else where
        np.testing.assert_array_equal(got, want)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**16))
def test_mirror_positions_of_a_row_major_pattern_as_of_any_order(seed):
    """Each entry's value source (its own on and below the diagonal, its mirror image's
    above): the transposition used for a row-major pattern gives what the search used
    for entries in any order gives."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 30))
    mask = rng.random((n, n)) < rng.uniform(0.05, 0.6)
    mask |= mask.T
    rows, cols = np.nonzero(mask)
    take, keep = mirror_positions(rows, cols, n, tril=False)
    perm = rng.permutation(rows.size)
    shuffled, _ = mirror_positions(rows[perm], cols[perm], n, tril=False)
    assert np.array_equal(perm[shuffled], take[perm])
    lower = rows >= cols
    assert np.array_equal(keep, lower)
    assert np.array_equal(rows[take], np.where(lower, rows, cols))
    assert np.array_equal(cols[take], np.where(lower, cols, rows))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**16), st.sampled_from([np.int32, np.int64]), st.integers(0, 3))
def test_an_index_constant_decodes_to_itself(seed, dtype, spread):
    """Index arrays stored as steps in the narrowest type that holds them (the first
    apart where only it does not fit) decode to the array, its type and shape."""
    import base64
    import zlib

    rng = np.random.default_rng(seed)
    size = int(rng.integers(9, 400))
    scale = [3, 200, 40_000, 2**33][spread]
    start = int(rng.integers(0, 2**30))
    steps = rng.integers(-scale, scale, size)
    array = (start + np.cumsum(steps)).astype(np.int64)
    if dtype is np.int32:
        array = np.clip(array, 0, 2**31 - 1).astype(np.int32)
    array = array.reshape((3, -1)) if size % 3 == 0 else array
    scope = {"numpy": np, "base64": base64, "zlib": zlib}
    exec(DECODER, scope)
    got = eval(_text(array, True), scope)
    assert got.dtype == array.dtype and got.shape == array.shape
    assert np.array_equal(got, array)


def test_a_large_constants_checksum_sees_a_change_in_its_sample():
    flat = np.arange(10**6, dtype=np.int64)
    changed = flat.copy()
    changed[-1] += 1
    assert _checksum(flat) == _checksum(flat.copy())
    assert _checksum(flat) != _checksum(changed)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**16), st.integers(1, 20))
def test_a_float_constant_of_few_values_decodes_bit_for_bit(seed, distinct):
    """A float array of a few distinct values (kept as each entry's level, ±0 apart)
    and any other float array decode to the array, bit for bit."""
    import base64
    import zlib

    rng = np.random.default_rng(seed)
    levels = np.concatenate([[0.0, -0.0], rng.normal(size=distinct) * 1e3])
    array = rng.choice(levels, size=int(rng.integers(100, 3000)))
    scope = {"numpy": np, "base64": base64, "zlib": zlib}
    exec(DECODER, scope)
    got = eval(_text(array, False), scope)
    assert got.dtype == array.dtype and got.shape == array.shape
    assert np.array_equal(got.view(np.int64), array.view(np.int64))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**16), st.sampled_from(["python", "jax"]))
def test_a_scatters_places_decode_from_one_bit_an_entry(seed, lang):
    """An index vector of 0s and 1, 2, 3, … in order (a scatter's places read as a
    gather from a vector padded with one 0) is stored as its bits and decodes to itself
    (NumPy's widened to intp); one entry out of that order keeps the differences' form."""
    import base64
    import zlib

    from dgraph.codegen.tensor.constants import decoder

    rng = np.random.default_rng(seed)
    bits = rng.random(int(rng.integers(64, 3000))) < rng.random()
    array = (np.cumsum(bits) * bits).astype(np.int32)
    scope = {"numpy": np, "base64": base64, "zlib": zlib}
    exec(decoder(lang), scope)
    text = _text(array, True)
    assert "count=" in text
    got = eval(text, scope)
    assert np.array_equal(got, array) and got.shape == array.shape
    assert got.dtype == (np.intp if lang == "python" else np.int32)
    if bits.any():
        changed = array.copy()
        changed[np.flatnonzero(bits)[-1]] += 1
        assert "count=" not in _text(changed, True)
        assert np.array_equal(eval(_text(changed, True), scope), changed)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 9))
def test_narrow_nonzero_is_flatnonzero_across_chunks(seed, chunk):
    """A flagged merge's positions found a chunk at a time (int32, the chunk made small
    here so that a few hundred flags cross several) are ``np.flatnonzero``'s, in order;
    ``every`` gives the same positions as ``arange`` in the narrower integers."""
    from dgraph.codegen.tensor import blockops

    rng = np.random.default_rng(seed)
    flags = (rng.random(int(rng.integers(0, 300))) < rng.random()).astype(np.int8)
    saved = blockops._CHUNK
    blockops._CHUNK = chunk
    try:
        found = blockops._nonzero_narrow(flags, int(np.count_nonzero(flags)))
    finally:
        blockops._CHUNK = saved
    assert found.dtype == np.int32
    assert np.array_equal(found, np.flatnonzero(flags))
    assert every(flags.size).dtype == np.int32
    assert np.array_equal(every(flags.size), np.arange(flags.size))


def test_a_block_freed_at_exit_lets_its_rows_go_without_the_module_s_names(monkeypatch):
    """At interpreter exit a module's names are cleared to None before the last blocks
    are freed: the weakref callback that drops a block's kept rows must not read the
    module's global then ("Exception ignored ... 'NoneType' object has no attribute
    'get'" printed after a test run)."""
    import weakref

    from dgraph.codegen.tensor import blockops

    class Held:
        pass

    block = Held()
    key = id(block)
    forget = blockops._forget_rows(key)
    kept = blockops._ROWS
    ref = weakref.ref(block)
    kept[key] = (ref, None)
    monkeypatch.setattr(blockops, "_ROWS", None)  # what interpreter exit leaves
    forget(ref)
    assert key not in kept
