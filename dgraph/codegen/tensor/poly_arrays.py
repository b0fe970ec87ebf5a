"""Arrays whose entries are polynomials: exact coefficients, unknowns that are entries of
named arrays, every entry's polynomial multiplied out and kept in one canonical form.

An entry's polynomial is a list of rows ``(position, monomial, coefficient)``: the
monomial a sorted tuple of factor keys ``atom << 32 | element`` (the ``element``-th entry
of the array numbered ``atom``; a power repeats its factor), the coefficient a double
that is exactly the coefficient (every sum and product of coefficients is checked exact,
:func:`_exact_sums`, :func:`_exact_products`; where one is not, the entry is *tainted*).
Rows are sorted by position and monomial, equal monomials of one position added, zero
coefficients left out: so an entry is the zero polynomial exactly when it has no row and
is not tainted. A tainted entry has no rows and stands for a value nothing is known of
(a sum cut, a rounded coefficient): it is never claimed zero and makes nothing it enters
zero. Every operation is a few NumPy passes over the rows (sorts, gathers, segment sums),
none per entry, so arrays of 10⁶ entries take seconds at most.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = [
    "MAX_DEGREE",
    "MAX_TERMS",
    "SHIFT",
    "GiveUp",
    "PolyArray",
    "add",
    "atom_array",
    "broadcast",
    "constant",
    "gather",
    "multiply",
    "negate",
    "place",
    "restricted",
    "segment_sum",
    "vector",
]

SHIFT = 32  # a factor key: the atom's number above these bits, the element below
PAD = -1  # no factor (sorts first in a monomial's row)
MAX_DEGREE = 12  # a monomial of more factors taints its entry
MAX_TERMS = 64  # an entry of more monomials is tainted (as core.cancellation cuts sums)
MAX_PRODUCT = 1 << 25  # factor keys of one product's rows before they are added (256 MiB)


class GiveUp(Exception):
    """Too large or not modelled: nothing is claimed."""


@dataclass(frozen=True)
class PolyArray:
    """An array of ``shape`` whose entries are polynomials (module docstring): rows
    ``pos`` (flat C-order position), ``fac`` (factor keys, one row per monomial, ``PAD``
    first), ``coef``; ``taint`` per entry."""

    shape: tuple[int, ...]
    pos: np.ndarray
    fac: np.ndarray
    coef: np.ndarray
    taint: np.ndarray

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def rows(self) -> int:
        return int(self.pos.size)

    def counts(self) -> np.ndarray:
        """The number of monomials of each entry."""
        return np.bincount(self.pos, minlength=self.size)

    def zero(self) -> np.ndarray:
        """Per entry, whether it is the zero polynomial (no row, not tainted)."""
        return (self.counts() == 0) & ~self.taint

    def described(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per entry: its kind (0 zero, 1 a number, 2 a number times one unknown, 3
        anything else or tainted), the unknown's array, the number and the unknown's
        element (-1 where it has none)."""
        n = self.size
        counts = self.counts()
        kind = np.where(counts == 0, 0, 3).astype(np.int8)
        atom = np.zeros(n, dtype=np.int64)
        coef = np.zeros(n)
        element = np.full(n, -1, dtype=np.int64)
        alone = counts[self.pos] == 1
        degree = (self.fac != PAD).sum(axis=1)
        at = self.pos[alone & (degree == 0)]
        kind[at], coef[at] = 1, self.coef[alone & (degree == 0)]
        one = alone & (degree == 1)
        at, key = self.pos[one], self.fac[one, -1] if self.fac.shape[1] else self.pos[:0]
        kind[at], coef[at] = 2, self.coef[one]
        atom[at], element[at] = key >> SHIFT, key & ((1 << SHIFT) - 1)
        kind[self.taint] = 3
        return kind, atom, coef, element


def _ints(n: int) -> np.ndarray:
    return np.arange(n, dtype=np.int64)


def constant(values: np.ndarray) -> PolyArray:
    """The entries of a numeric array as polynomials of degree 0 (a value that is not a
    finite number: tainted)."""
    values = np.asarray(values)
    if values.dtype == bool or np.issubdtype(values.dtype, np.integer):
        values = values.astype(float)
    flat = np.asarray(values, dtype=float).reshape(-1)
    finite = np.isfinite(flat)
    pos = np.flatnonzero(finite & (flat != 0.0))
    return PolyArray(
        tuple(values.shape), pos, np.zeros((pos.size, 0), np.int64), flat[pos], ~finite
    )


def atom_array(atom: int, shape: tuple[int, ...]) -> PolyArray:
    """Each entry the unknown of its own element of the array numbered ``atom``."""
    n = math.prod(shape)
    keys = (np.int64(atom) << SHIFT) | _ints(n)
    return PolyArray(shape, _ints(n), keys[:, None], np.ones(n), np.zeros(n, bool))


def _significant(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each nonzero double's significant bits (from the leading to the last set bit) and
    the exponent of its last set bit (read from its bits; a subnormal: 54 bits, so that
    no product with it counts as exact, and its last bit at most 2^-1074)."""
    bits = np.ascontiguousarray(values, dtype=np.float64).view(np.int64)
    field = (bits >> 52) & 0x7FF
    mantissa = (bits & ((1 << 52) - 1)) | (1 << 52)
    low = mantissa & -mantissa  # a power of two: its exponent read from its double
    trailing = ((low.astype(np.float64).view(np.int64) >> 52) & 0x7FF) - 1023
    normal = field > 0
    significant = np.where(normal, 53 - trailing, 54)
    last = np.where(normal, field - 1075 + trailing, -1074)
    return significant, last


NUMBER_ATOM = (1 << 31) - 1  # the unknowns that stand for exact products of two doubles
_NUMBERS: dict[tuple[int, int], int] = {}  # (hi, lo) bits -> element of NUMBER_ATOM


def _two_products(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``a · b = hi + lo`` exactly (Dekker's product: each factor split in two halves of
    26 bits, whose products are exact), and where that holds (no overflow in the split,
    no underflow in ``lo``)."""

    def halves(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        c = 134217729.0 * v  # 2^27 + 1
        high = c - (c - v)
        return high, v - high

    with np.errstate(all="ignore"):
        hi = a * b
        ah, al = halves(a)
        bh, bl = halves(b)
        lo = ((ah * bh - hi) + ah * bl + al * bh) + al * bl
        ok = np.isfinite(hi) & np.isfinite(lo)
        ok &= (np.abs(a) < 2.0**995) & (np.abs(b) < 2.0**995) & (np.abs(hi) > 2.0**-900)
    return hi, lo, ok


def _number_keys(hi: np.ndarray, lo: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Factor keys of unknowns standing for the exact numbers ``hi + lo``, their
    coefficients, and where that holds: ``hi + lo = c · (h + l)`` with ``c = ±2^e`` and
    ``h`` in [1, 2) (both scalings exact), equal pairs ``(h, l)`` one unknown, so that a
    number and its negation or double cancel as monomials do."""
    _, exponent = np.frexp(hi)
    scale = np.ldexp(np.sign(hi), exponent - 1)
    head = np.ldexp(np.abs(hi), 1 - exponent)
    tail = np.ldexp(lo * np.sign(hi), 1 - exponent)
    ok = (np.ldexp(tail, exponent - 1) * np.sign(hi) == lo) & np.isfinite(scale) & (scale != 0)
    pairs = np.stack([head.view(np.int64), tail.view(np.int64)], axis=1)[ok]
    distinct, inverse = np.unique(pairs, axis=0, return_inverse=True)
    ids = np.array(
        [_NUMBERS.setdefault((int(a), int(b)), len(_NUMBERS)) for a, b in distinct.tolist()],
        dtype=np.int64,
    )
    if ids.size and ids.max() >= 1 << SHIFT:
        raise GiveUp("too many numbers")
    keys = np.full(hi.size, PAD, dtype=np.int64)
    keys[ok] = (np.int64(NUMBER_ATOM) << SHIFT) | ids[inverse.reshape(-1)]
    return keys, scale, ok


def _exact_products(
    a: np.ndarray, b: np.ndarray, ia: np.ndarray, ib: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``a[ia] * b[ib]`` and whether each is exact: the significands' bits fit in 53, or
    what rounding left (:func:`_two_products`) is 0; and the product is a normal double
    (the bits read once per value of ``a`` and ``b``, not per product)."""
    x, y = a[ia], b[ib]
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        product = x * y
        normal = np.isfinite(product) & (np.abs(product) >= np.finfo(float).tiny)
    bits_a, bits_b = (_significant(v)[0].astype(np.int8) for v in (a, b))  # at most 54
    exact = (bits_a[ia] + bits_b[ib] <= 53) & normal
    rest = np.flatnonzero(~exact & normal)
    if rest.size:
        _, lo, ok = _two_products(x[rest], y[rest])
        exact[rest] = ok & (lo == 0.0)
    return product, exact


def _exact_sums(values: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sums of ``values[starts[k]:starts[k + 1]]`` and whether each is the exact sum.
    A group of several is added as integers: each value is an odd integer times 2^e, so
    times 2^(e − the group's least e) it is an integer, and their sum is exact while it
    fits 62 bits; it is a double exactly where its significant bits fit 53 (otherwise,
    or where the integers would not fit, the sum is not claimed exact)."""
    sums = np.add.reduceat(values, starts)
    exact = np.isfinite(sums)
    sizes = np.diff(np.append(starts, values.size))
    many = np.flatnonzero(sizes > 1)
    if many.size == 0:
        return sums, exact
    sub = sizes[many]
    offsets = np.cumsum(sub) - sub
    picked = values[_ragged(starts[many], sub)]
    bits, last = _significant(picked)
    lowest = np.minimum.reduceat(last, offsets)
    shift = last - np.repeat(lowest, sub)
    room = 61 - np.ceil(np.log2(sub)).astype(np.int64)  # the sum of |integers| < 2^62
    fits = np.minimum.reduceat(np.repeat(room, sub) - bits - shift, offsets) >= 0
    odd = np.ldexp(picked, -last)  # exact: an odd integer below 2^53
    whole = np.where(np.repeat(fits, sub), odd, 0.0).astype(np.int64) << np.minimum(shift, 62)
    total = np.add.reduceat(whole, offsets)
    value = np.ldexp(total.astype(np.float64), lowest)
    with np.errstate(invalid="ignore"):
        same = total.astype(np.float64).astype(np.int64) == total
        normal = (value == 0.0) | (np.abs(value) >= np.finfo(float).tiny)
    ok = fits & same & normal & np.isfinite(value)
    sums[many] = np.where(ok, value, sums[many])
    exact[many] = ok
    return sums, exact


def _canonical(
    shape: tuple[int, ...],
    pos: np.ndarray,
    fac: np.ndarray,
    coef: np.ndarray,
    taint: np.ndarray,
) -> PolyArray:
    """The canonical form of rows in any order (module docstring); ``taint`` is owned
    (changed in place)."""
    keep = (coef != 0.0) & ~taint[pos]
    table, codes = _coded(fac[keep])
    return _ordered(shape, pos[keep], _sorted_rows(codes), table, coef[keep], taint)


def _coded(fac: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Factor keys as their ranks: ``table`` the distinct keys sorted, ``PAD`` first, and
    ``codes`` with ``table[codes] == fac`` in the smallest integer type that holds them
    (``PAD`` is code 0; an order-preserving renumbering, so rows compare as before).
    Where each atom's elements are not too spread out, a key's code is looked up in a
    table indexed by its atom's offset plus its element; else it is searched for."""
    values = np.sort(fac, axis=None)
    new = np.ones(values.size, dtype=bool)
    new[1:] = values[1:] != values[:-1]
    table = values[new]
    if not table.size or table[0] != PAD:
        table = np.concatenate([np.array([PAD], dtype=np.int64), table])
    dtype = np.int16 if table.size <= 1 << 15 else np.int32 if table.size <= 1 << 31 else np.int64
    atom, element = table >> SHIFT, table & ((1 << SHIFT) - 1)
    first = np.flatnonzero(np.concatenate([[True], atom[1:] != atom[:-1]]))
    low = element[first]
    span = np.append(element[first[1:] - 1], element[-1]) - low + 1
    if fac.size < 64 or int(span.sum()) > 4 * table.size + 4096:
        return table, np.searchsorted(table, fac).astype(dtype, copy=False)
    offset = np.cumsum(span) - span - low  # a key's slot: offset[its atom's] + element
    lookup = np.zeros(int(span.sum()), dtype=dtype)
    group = np.repeat(_ints(first.size), np.diff(np.append(first, table.size)))
    lookup[offset[group] + element] = _ints(table.size)
    slot = fac & ((1 << SHIFT) - 1)
    if first.size == 1:
        slot += offset[0]
    elif atom[-1] - atom[0] < 1 << 16:  # the atom's offset looked up too
        by_atom = np.zeros(int(atom[-1] - atom[0]) + 1, dtype=np.int64)
        by_atom[atom[first] - atom[0]] = offset
        slot += by_atom[(fac >> SHIFT) - atom[0]]
    else:
        slot += offset[np.searchsorted(atom[first], fac >> SHIFT)]
    return table, lookup[slot]


def _sorted_rows(codes: np.ndarray) -> np.ndarray:
    """Each row's codes in increasing order (a monomial's factors, ``PAD`` first)."""
    if codes.shape[1] == 2:
        return np.stack([codes.min(axis=1), codes.max(axis=1)], axis=1)
    return np.sort(codes, axis=1) if codes.shape[1] > 2 else codes


def _ordered(
    shape: tuple[int, ...],
    pos: np.ndarray,
    codes: np.ndarray,
    table: np.ndarray,
    coef: np.ndarray,
    taint: np.ndarray,
    degree: np.ndarray | None = None,
) -> PolyArray:
    """:func:`_canonical` of rows with nonzero coefficients at entries not tainted, each
    monomial's factors given as increasing codes into ``table`` (:func:`_coded`; their
    numbers of factors ``degree`` where known): a monomial of more than ``MAX_DEGREE``
    factors taints its entry, the columns no row uses are dropped, rows sorted by
    position and monomial (one stable sort of the rows' keys packed into as few
    integers as hold them, :func:`_packed`), equal monomials of an entry added
    (exactly, or the entry is tainted), an entry of more than ``MAX_TERMS`` monomials
    tainted, zero coefficients dropped. The codes are gathered once, at the end."""
    n = math.prod(shape)
    rows = None  # the rows of ``codes`` that the rows kept are, where not all in order
    if codes.shape[1]:
        if degree is None:
            degree = np.count_nonzero(codes, axis=1)
        high = degree > MAX_DEGREE
        if high.any():
            taint[pos[high]] = True
            rows = np.flatnonzero(~high)
            pos, coef, degree = pos[rows], coef[rows], degree[rows]
        width = int(degree.max()) if degree.size else 0
        codes = codes[:, codes.shape[1] - width :]
    words = _packed(pos, codes if rows is None else codes[rows], n, table.size)
    order = _lexicographic(words)
    if order is not None:
        pos, coef = pos[order], coef[order]
        words = [w[order] for w in words]
        rows = order if rows is None else rows[order]
    differ = _differs(words)
    if not differ.all():  # equal monomials of an entry, next to each other: added
        starts = np.flatnonzero(np.concatenate([[True], differ]))
        coef, exact = _exact_sums(coef, starts)
        pos = pos[starts]
        rows = starts if rows is None else rows[starts]
        taint[pos[~exact]] = True
    counts = np.bincount(pos, minlength=n)
    taint[counts > MAX_TERMS] = True
    keep = (coef != 0.0) & ~taint[pos]
    if not keep.all():
        keep = np.flatnonzero(keep)
        pos, coef = pos[keep], coef[keep]
        rows = keep if rows is None else rows[keep]
    fac = table[codes if rows is None else codes[rows]]
    return PolyArray(shape, pos, fac, coef, taint)


def _packed(pos: np.ndarray, codes: np.ndarray, n: int, kinds: int) -> list[np.ndarray]:
    """Each row's position and codes as bit fields of a few nonnegative int64 words,
    most significant first, so that rows compare as the words do lexicographically
    (positions below ``n``, codes below ``kinds``; a field never straddles two words)."""
    pos_bits = max(1, (n - 1).bit_length())
    code_bits = max(1, (kinds - 1).bit_length())
    words, word, used = [], pos.astype(np.int64, copy=True), pos_bits
    for column in codes.T:
        if used + code_bits > 63:
            words.append(word)
            word, used = np.zeros(pos.size, dtype=np.int64), 0
        word <<= code_bits
        word |= column
        used += code_bits
    words.append(word)
    return words


def _differs(words: list[np.ndarray]) -> np.ndarray:
    """For each row after the first, whether it differs from the row before."""
    first, *rest = words
    differ = first[1:] != first[:-1]
    for w in rest:
        differ |= w[1:] != w[:-1]
    return differ


def _lexicographic(words: list[np.ndarray]) -> np.ndarray | None:
    """The stable order of rows sorted lexicographically by ``words`` (None: in order
    already): one stable sort by the first word (rows of an entry are mostly next to
    each other, which the sort takes advantage of), the rows it leaves tied sorted
    again by the rest."""
    first = words[0]
    if len(words) == 1 and not (first[1:] < first[:-1]).any():
        return None
    order = np.argsort(first, kind="stable")
    if len(words) > 1:
        first = first[order]
        tied = np.zeros(order.size, dtype=bool)
        same = first[1:] == first[:-1]
        tied[1:] |= same
        tied[:-1] |= same
        at = np.flatnonzero(tied)
        if at.size:
            rows = order[at]
            order[at] = rows[np.lexsort([w[rows] for w in reversed(words)])]
    if (order[1:] > order[:-1]).all():
        return None
    return order


def _ragged(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``starts[k], starts[k] + 1, ..., starts[k] + counts[k] - 1`` for every k, in order."""
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    ends = np.cumsum(counts)
    return np.repeat(starts - (ends - counts), counts) + _ints(total)


def _starts(p: PolyArray) -> tuple[np.ndarray, np.ndarray]:
    counts = p.counts()
    return np.cumsum(counts) - counts, counts


def gather(p: PolyArray, index: np.ndarray, shape: tuple[int, ...]) -> PolyArray:
    """The array of ``shape`` whose entry k is ``p``'s flat entry ``index[k]``."""
    index = np.asarray(index, dtype=np.int64).reshape(-1)
    starts, counts = _starts(p)
    take = counts[index]
    rows = _ragged(starts[index], take)
    pos = np.repeat(_ints(index.size), take)
    return PolyArray(shape, pos, p.fac[rows], p.coef[rows], p.taint[index])


def broadcast(p: PolyArray, shape: tuple[int, ...]) -> PolyArray:
    """``p`` broadcast to ``shape`` (NumPy's rules)."""
    if p.shape == shape:
        return p
    index = np.broadcast_to(_ints(p.size).reshape(p.shape), shape)
    return gather(p, index.reshape(-1), shape)


def place(p: PolyArray, where: np.ndarray, size: int) -> PolyArray:
    """A vector of ``size`` zeros with ``p``'s entries at the distinct positions ``where``."""
    where = np.asarray(where, dtype=np.int64).reshape(-1)
    pos = where[p.pos]
    order = np.argsort(pos, kind="stable")
    taint = np.zeros(size, dtype=bool)
    taint[where] = p.taint
    return PolyArray((size,), pos[order], p.fac[order], p.coef[order], taint)


def vector(p: PolyArray) -> PolyArray:
    """``p`` flattened (C order)."""
    return PolyArray((p.size,), p.pos, p.fac, p.coef, p.taint)


def restricted(p: PolyArray, mask: np.ndarray) -> PolyArray:
    """``p`` with the entries outside ``mask`` made zero."""
    keep = mask[p.pos]
    return PolyArray(p.shape, p.pos[keep], p.fac[keep], p.coef[keep], p.taint & mask)


def segment_sum(p: PolyArray, ids: np.ndarray, n: int, shape=None) -> PolyArray:
    """Entry k: the sum of ``p``'s entries whose id is k, for k < ``n``."""
    ids = np.asarray(ids, dtype=np.int64).reshape(-1)
    taint = np.zeros(n, dtype=bool)
    taint[ids[p.taint]] = True
    return _canonical(shape or (n,), ids[p.pos], p.fac, p.coef, taint)


def _padded(fac: np.ndarray, width: int) -> np.ndarray:
    if fac.shape[1] == width:
        return fac
    pad = np.full((fac.shape[0], width - fac.shape[1]), PAD, dtype=np.int64)
    return np.hstack([pad, fac])


def add(a: PolyArray, *rest: PolyArray) -> PolyArray:
    """``a + b + ...`` entrywise (broadcast), the terms gathered in one pass."""
    shape = tuple(np.broadcast_shapes(a.shape, *(b.shape for b in rest)))
    terms = [broadcast(p, shape) for p in (a, *rest)]
    width = max(p.fac.shape[1] for p in terms)
    taint = terms[0].taint.copy()
    for p in terms[1:]:
        taint |= p.taint
    return _canonical(
        shape,
        np.concatenate([p.pos for p in terms]),
        np.vstack([_padded(p.fac, width) for p in terms]),
        np.concatenate([p.coef for p in terms]),
        taint,
    )


def negate(a: PolyArray) -> PolyArray:
    """``−a``."""
    return PolyArray(a.shape, a.pos, a.fac, -a.coef, a.taint)


def multiply(a: PolyArray, b: PolyArray) -> PolyArray:
    """``a * b`` entrywise (broadcast), multiplied out: each row of an entry of ``a``
    times each row of the same entry of ``b`` (entries that either taints left out),
    their factors' codes (:func:`_coded`) side by side and sorted, then
    :func:`_ordered`. :class:`GiveUp` where those rows would hold more than
    :data:`MAX_PRODUCT` factor keys (each entry's rows times the other's, before equal
    monomials are added: 64 by 64 monomials over 16,000 entries took 20 GB)."""
    shape = np.broadcast_shapes(a.shape, b.shape)
    a, b = broadcast(a, shape), broadcast(b, shape)
    taint = a.taint | b.taint
    starts_b, counts_b = _starts(b)
    copies = np.where(taint[a.pos], 0, counts_b[a.pos])
    if int(copies.sum()) * (a.fac.shape[1] + b.fac.shape[1] + 1) > MAX_PRODUCT:
        raise GiveUp("a product of too many terms")  # before its rows are formed
    ia = np.repeat(_ints(a.rows), copies)
    ib = _ragged(starts_b[a.pos], copies)
    pos = a.pos[ia]
    coef, exact = _exact_products(a.coef, b.coef, ia, ib)
    number = None
    if not exact.all():  # a product that no double holds: a factor standing for it
        rows = np.flatnonzero(~exact)
        hi, lo, ok = _two_products(a.coef[ia[rows]], b.coef[ib[rows]])
        rows, hi, lo = rows[ok], hi[ok], lo[ok]
        keys, scale, ok = _number_keys(hi, lo)
        rows, keys, scale = rows[ok], keys[ok], scale[ok]
        number = np.full(pos.size, PAD, dtype=np.int64)
        number[rows] = keys
        coef[rows] = scale
        exact[rows] = True
    taint[pos[~exact]] = True
    keep = (coef != 0.0) & ~taint[pos]
    ia, ib, pos, coef = ia[keep], ib[keep], pos[keep], coef[keep]
    parts = [a.fac.reshape(-1), b.fac.reshape(-1)]
    if number is not None:
        number = number[keep]
        parts.append(number)
    table, codes = _coded(np.concatenate(parts))
    na, nb = a.fac.size, b.fac.size
    codes_a, codes_b = codes[:na].reshape(a.fac.shape), codes[na : na + nb].reshape(b.fac.shape)
    degree = np.count_nonzero(codes_a, axis=1)[ia] + np.count_nonzero(codes_b, axis=1)[ib]
    columns = [codes_a[ia], codes_b[ib]]
    if number is not None:
        columns.append(codes[na + nb :, None])
        degree += number != PAD
    codes = _sorted_rows(np.hstack(columns))
    return _ordered(shape, pos, codes, table, coef, taint, degree)
