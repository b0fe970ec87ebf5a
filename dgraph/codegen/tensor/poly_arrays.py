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


def _exact_products(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a * b`` and whether each is exact: the significands' bits fit in 53, or what
    rounding left (:func:`_two_products`) is 0; and the product is a normal double."""
    product = a * b
    bits_a, _ = _significant(a)
    bits_b, _ = _significant(b)
    with np.errstate(invalid="ignore"):
        normal = np.isfinite(product) & (np.abs(product) >= np.finfo(float).tiny)
    exact = (bits_a + bits_b <= 53) & normal
    rest = np.flatnonzero(~exact & normal)
    if rest.size:
        _, lo, ok = _two_products(a[rest], b[rest])
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
    n = math.prod(shape)
    keep = (coef != 0.0) & ~taint[pos]
    pos, fac, coef = pos[keep], fac[keep], coef[keep]
    if fac.shape[1] == 2:
        fac = np.stack([np.minimum(fac[:, 0], fac[:, 1]), np.maximum(fac[:, 0], fac[:, 1])], 1)
    elif fac.shape[1] > 2:
        fac = np.sort(fac, axis=1)
    if fac.shape[1]:
        degree = (fac != PAD).sum(axis=1)
        high = degree > MAX_DEGREE
        if high.any():
            taint[pos[high]] = True
            pos, fac, coef, degree = pos[~high], fac[~high], coef[~high], degree[~high]
        width = int(degree.max()) if degree.size else 0
        fac = fac[:, fac.shape[1] - width :]
    if pos.size > 1 and not bool(np.all(pos[1:] >= pos[:-1])):
        order = np.argsort(pos, kind="stable")  # sorted runs (a sum's parts): merged
        pos, fac, coef = pos[order], fac[order], coef[order]
    step = _steps(pos, fac)
    if (step < 0).any():  # monomials out of order within an entry: sorted whole
        order = np.lexsort((*fac.T[::-1], pos))
        pos, fac, coef = pos[order], fac[order], coef[order]
        step = _steps(pos, fac)
    if (step == 0).any():  # equal monomials of an entry, next to each other: added
        starts = np.flatnonzero(np.concatenate([[True], step != 0]))
        coef, exact = _exact_sums(coef, starts)
        pos, fac = pos[starts], fac[starts]
        taint[pos[~exact]] = True
    counts = np.bincount(pos, minlength=n)
    taint[counts > MAX_TERMS] = True
    keep = (coef != 0.0) & ~taint[pos]
    return PolyArray(shape, pos[keep], fac[keep], coef[keep], taint)


def _steps(pos: np.ndarray, fac: np.ndarray) -> np.ndarray:
    """For each row after the first, by position and then monomial: 1 where it comes
    after the row before, 0 where it is the same entry's same monomial, -1 where it
    comes before (rows sorted by position)."""
    if pos.size < 2:
        return np.zeros(0, dtype=np.int8)
    step = np.ones(pos.size - 1, dtype=np.int8)
    same = np.flatnonzero(pos[1:] == pos[:-1])
    if same.size == 0:
        return step
    if fac.shape[1] == 0:
        step[same] = 0
        return step
    after, before = fac[same + 1], fac[same]
    differ = after != before
    first = differ.argmax(axis=1)
    rows = np.arange(same.size)
    sign = np.sign(after[rows, first] - before[rows, first]).astype(np.int8)
    step[same] = np.where(differ.any(axis=1), sign, 0)
    return step


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
    """``a * b`` entrywise (broadcast), multiplied out."""
    shape = np.broadcast_shapes(a.shape, b.shape)
    a, b = broadcast(a, shape), broadcast(b, shape)
    starts_b, counts_b = _starts(b)
    copies = counts_b[a.pos]
    ia = np.repeat(_ints(a.rows), copies)
    ib = _ragged(starts_b[a.pos], copies)
    pos = a.pos[ia]
    fac = np.hstack([a.fac[ia], b.fac[ib]])
    coef, exact = _exact_products(a.coef[ia], b.coef[ib])
    if not exact.all():  # a product that no double holds: a factor standing for it
        rows = np.flatnonzero(~exact)
        hi, lo, ok = _two_products(a.coef[ia[rows]], b.coef[ib[rows]])
        rows, hi, lo = rows[ok], hi[ok], lo[ok]
        keys, scale, ok = _number_keys(hi, lo)
        rows, keys, scale = rows[ok], keys[ok], scale[ok]
        number = np.full(pos.size, PAD, dtype=np.int64)
        number[rows] = keys
        fac = np.hstack([fac, number[:, None]])
        coef[rows] = scale
        exact[rows] = True
    taint = a.taint | b.taint
    taint[pos[~exact]] = True
    return _canonical(shape, pos, fac, coef, taint)
