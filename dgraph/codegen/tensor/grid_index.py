"""Constant index arrays recognised as affine grids, so that the printers write a gather
or a scatter at them as strided views (slices) instead of reading an index per entry.

A stencil on an n-D grid gathers and scatters at positions ``a + Σ_k s_k·i_k`` over a
box of ``i`` (the interior rows and columns of a grid, two neighbours per row, …): a
:class:`Grid`. An index array that is several such boxes one after the other (the rows
at the grid's edges with fewer entries than the others) is a list of :class:`Piece`:
each a box of the array's own places and the grid of its values there.

>>> a = np.array([12, 13, 14, 22, 23, 24])  # rows 1-2, columns 2-4 of a 10-wide grid
>>> grid(a)
Grid(offset=12, shape=(2, 3), strides=(10, 1))
>>> grid(a).distinct()
True
>>> grid(np.array([0, 1, 1, 0])) is None
True
>>> for p in pieces(np.array([0, 1, 2, 5, 5, 6, 6])):  # a run, then two rows of a pair
...     print(p.own, p.at)
Grid(offset=0, shape=(3,), strides=(1,)) Grid(offset=0, shape=(3,), strides=(1,))
Grid(offset=3, shape=(2, 2), strides=(2, 1)) Grid(offset=5, shape=(2, 2), strides=(1, 0))
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Grid", "Piece", "fit", "grid", "pieces"]

DIMS = 4
"""The most axes a grid is recognised with."""


@dataclass(frozen=True)
class Grid:
    """The integers ``offset + Σ_k strides[k]·i_k`` over ``0 ≤ i_k < shape[k]``, in C order
    of ``i`` (the last axis fastest)."""

    offset: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def indices(self) -> np.ndarray:
        """The grid's integers, flat, in C order."""
        out = np.full(self.shape, self.offset, dtype=np.int64)
        for k, (n, s) in enumerate(zip(self.shape, self.strides, strict=True)):
            step = np.arange(n, dtype=np.int64) * s
            out += step.reshape((n,) + (1,) * (len(self.shape) - k - 1))
        return out.ravel()

    def distinct(self) -> bool:
        """Whether no integer is there twice, proved from the strides: ordered by size,
        each stride exceeds the span of the axes with smaller ones (sufficient; what a
        scatter through a view of the grid needs)."""
        axes = sorted((abs(s), n) for n, s in zip(self.shape, self.strides, strict=True) if n > 1)
        span = 0
        for s, n in axes:
            if s <= span:
                return False
            span += s * (n - 1)
        return True

    def last(self) -> int:
        """The largest integer of the grid (its strides not negative)."""
        return self.offset + sum(s * (n - 1) for n, s in zip(self.shape, self.strides, strict=True))


@dataclass(frozen=True)
class Piece:
    """Some of an index array's entries: those at the places ``own`` (a grid of places in
    the array), whose values are the grid ``at`` of the same shape."""

    own: Grid
    at: Grid


def fit(values: np.ndarray) -> Grid | None:
    """The grid of an n-D integer array ``values`` over its own shape (each axis' stride
    its first difference); None where it is not affine there."""
    values = np.asarray(values, dtype=np.int64)
    if values.size == 0:
        return None
    corner = (0,) * values.ndim
    strides = []
    for k, n in enumerate(values.shape):
        second = tuple(1 if j == k else 0 for j in range(values.ndim))
        strides.append(int(values[second] - values[corner]) if n > 1 else 0)
    found = Grid(int(values[corner]), tuple(int(n) for n in values.shape), tuple(strides))
    return found if np.array_equal(found.indices(), values.ravel()) else None


def grid(a: np.ndarray, dims: int = DIMS) -> Grid | None:
    """The 1-D integer array ``a`` as one grid of at most ``dims`` axes, adjacent axes that
    step as one merged; None where it is none."""
    a = np.asarray(a).ravel()
    if a.size == 0 or a.dtype.kind not in "iu":
        return None
    a = a.astype(np.int64, copy=False)
    length, found = _prefix(a, 0, dims)
    return found if length == a.size else None


def pieces(a: np.ndarray, limit: int = 8, dims: int = DIMS, period: int = 6) -> list[Piece] | None:
    """The 1-D integer array ``a`` as at most ``limit`` pieces (the fewest found): runs of
    consecutive entries that are one grid each (each as long as it goes, from the first
    entry on), pieces that repeat with constant shifts of their places and values merged
    into one with an outer axis (the rows of a grid, each a few such runs); the same for
    the entries at each residue of their place modulo 2 to ``period`` (terms interleaved
    entry by entry; not tried where eight pieces or fewer do without). None where more are
    needed. Pieces of different residues follow each other, not in the order of their
    places."""
    a = np.asarray(a).ravel()
    if a.size == 0 or a.dtype.kind not in "iu":
        return None
    a = a.astype(np.int64, copy=False)
    best = _runs(a, limit, dims)
    for p in range(2, period + 1):
        if a.size < 2 * p or (best is not None and len(best) <= 8):
            break
        found: list[Piece] = []
        most = limit if best is None else len(best) - 1
        for r in range(p):
            sub = _runs(a[r::p], most - len(found), dims)
            if sub is None:
                break
            found += [Piece(_spread(q.own, r, p), q.at) for q in sub]
        else:
            best = found
    return best


def _spread(own: Grid, r: int, p: int) -> Grid:
    """The places ``own`` of the entries at residue ``r`` modulo ``p``, as places of all."""
    return Grid(r + p * own.offset, own.shape, tuple(p * s for s in own.strides))


def _runs(a: np.ndarray, limit: int, dims: int, group: int = 4) -> list[Piece] | None:
    """:func:`pieces` without residues: from each entry on, the longest grid there, or
    the first ``q ≤ group`` of them repeated as a block (its entries shifted by a constant
    each time) as ``q`` pieces with an outer axis."""
    if limit < 1:
        return None
    found: list[Piece] = []
    ahead: list[tuple[int, Grid]] = []  # the next grids from p on, one after the other
    p = 0
    while p < a.size:
        if len(found) > 2 * limit:
            return None
        q_start = p + sum(length for length, _ in ahead)
        while len(ahead) < 2 * group and q_start < a.size:
            length, at = _prefix(a, q_start, dims)
            ahead.append((length, at))
            q_start += length
        best = (ahead[0][0], 1, 1)  # entries covered, q, count
        for q in range(1, len(ahead) // 2 + 1):
            head = ahead[:q]
            if any(len(g.shape) >= dims for _, g in head):
                continue
            same = all(
                ahead[q + r][0] == head[r][0] and ahead[q + r][1].strides == head[r][1].strides
                for r in range(q)
            )
            if not same:
                continue
            block = sum(length for length, _ in head)
            jump = int(a[p + block] - a[p])
            count = _repeats(a, p, block, jump, (a.size - p) // block)
            if count > 1 and count * block > best[0]:
                best = (count * block, q, count)
        covered, q, count = best
        if count == 1:
            length, at = ahead.pop(0)
            found.append(Piece(_places(p, at.shape), at))
            p += length
            continue
        block = covered // count
        jump = int(a[p + block] - a[p])
        start = p
        for length, at in ahead[:q]:
            own = _places(start, at.shape)
            found.append(
                Piece(
                    Grid(own.offset, (count, *own.shape), (block, *own.strides)),
                    Grid(at.offset, (count, *at.shape), (jump, *at.strides)),
                )
            )
            start += length
        p += covered
        ahead = []
    while len(found) > limit:
        merged = _merged(found, dims)
        if len(merged) == len(found):
            return None
        found = merged
    return found


def _merged(found: list[Piece], dims: int, period: int = 4) -> list[Piece]:
    """``found`` with each stretch of pieces that repeats (``q`` pieces at a time, the
    same shapes and strides, places and values shifting by constants) made ``q`` pieces
    with one more axis."""
    out: list[Piece] = []
    i = 0
    while i < len(found):
        best = (1, 1, (), ())
        for q in range(1, period + 1):
            if i + 2 * q > len(found):
                break
            head = found[i : i + q]
            if any(len(p.own.shape) >= dims for p in head):
                continue
            own = [found[i + q + r].own.offset - head[r].own.offset for r in range(q)]
            at = [found[i + q + r].at.offset - head[r].at.offset for r in range(q)]
            count = 1
            while i + (count + 1) * q <= len(found) and all(
                _shifted(found[i + count * q + r], head[r], count * own[r], count * at[r])
                for r in range(q)
            ):
                count += 1
            if count > 1 and count * q > best[0] * best[1]:
                best = (q, count, tuple(own), tuple(at))
        q, count, own, at = best
        if count == 1:
            out.append(found[i])
            i += 1
            continue
        for r in range(q):
            p = found[i + r]
            out.append(
                Piece(
                    Grid(p.own.offset, (count, *p.own.shape), (own[r], *p.own.strides)),
                    Grid(p.at.offset, (count, *p.at.shape), (at[r], *p.at.strides)),
                )
            )
        i += q * count
    return out


def _shifted(p: Piece, head: Piece, own: int, at: int) -> bool:
    """Whether ``p`` is ``head`` with its places shifted by ``own``, its values by ``at``."""
    return (
        p.own.shape == head.own.shape
        and p.own.strides == head.own.strides
        and p.at.strides == head.at.strides
        and p.own.offset == head.own.offset + own
        and p.at.offset == head.at.offset + at
    )


def _places(start: int, shape: tuple[int, ...]) -> Grid:
    """The consecutive places from ``start`` in C order over ``shape``, as a grid."""
    strides = [1] * len(shape)
    for k in range(len(shape) - 2, -1, -1):
        strides[k] = strides[k + 1] * shape[k + 1]
    return Grid(start, shape, tuple(strides))


def _prefix(a: np.ndarray, p: int, dims: int) -> tuple[int, Grid]:
    """The longest run of entries of ``a`` from ``p`` that is one grid of at most ``dims``
    axes (each axis as long as it goes): its length and the grid."""
    n = a.size - p
    if n == 1:
        return 1, Grid(int(a[p]), (1,), (1,))
    change = _next_change(a, p)
    length = change - p + 1 if change is not None else n
    shape, strides = [length], [int(a[p + 1] - a[p])]
    while len(shape) <= dims and length < n:
        jump = int(a[p + length] - a[p])
        count = _repeats(a, p, length, jump, n // length)
        if count < 2:
            break
        if jump == shape[0] * strides[0]:  # the new axis continues the outermost one
            shape[0] *= count
        elif len(shape) == dims:
            break
        else:
            shape.insert(0, count)
            strides.insert(0, jump)
        length *= count
    return length, Grid(int(a[p]), tuple(shape), tuple(strides))


def _next_change(a: np.ndarray, p: int, chunk: int = 256) -> int | None:
    """The first ``i > p`` where ``a``'s step changes (``a[i + 1] - a[i]`` is not
    ``a[i] - a[i - 1]``), None where none does: looked for in growing chunks from ``p``
    on, so that the work is about the run's length, not the array's (the pieces of an
    index array of 10⁶ entries and more are found by a few runs each, or rejected after
    a few: its differences taken whole, for each residue tried, cost more than the rest)."""
    lo, last = p + 1, a.size - 2  # a change at i compares steps i - 1 and i
    while lo <= last:
        hi = min(last, lo + chunk - 1)
        step = np.diff(a[lo - 1 : hi + 2])  # the steps lo - 1 .. hi
        changed = step[1:] != step[:-1]  # at lo .. hi
        first = int(changed.argmax())
        if changed[first]:
            return lo + first
        lo, chunk = hi + 1, 2 * chunk
    return None


def _repeats(a: np.ndarray, p: int, length: int, jump: int, most: int) -> int:
    """How many blocks of ``length`` entries from ``p`` on are the first block plus
    ``jump`` times their number (looked at in growing chunks: the work is about that of
    the blocks that match), each block compared with the one before it: one difference
    of two slices per chunk, no matrix of shifts."""
    count, chunk = 1, 1
    while count < most:  # block k is block k - 1 plus jump (so block 0 plus k jumps)
        chunk = min(2 * chunk, most - count)
        lo, hi = p + count * length, p + (count + chunk) * length
        differs = a[lo:hi] - a[lo - length : hi - length] != jump
        first = int(differs.argmax())  # the first entry that does not step by jump
        if differs[first]:
            return count + first // length
        count += chunk
    return count
