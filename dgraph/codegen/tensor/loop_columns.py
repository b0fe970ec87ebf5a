"""The columns a loop's generated tangent sweep carries: the active operands' entries
compressed by a colouring of the region's own patterns (Curtis, Powell and Reid).

The sweep carries ``D_t`` (a row per float output entry, a column per active input
entry) and updates it linearly, ``D ← J_c·D + J_k·S_k + J_x·S_x``; so it may carry
``D·C`` instead, ``C`` the 0/1 matrix sending input column ``c`` to its colour, with
the seeds ``S·C``. Where two columns share a colour only if no row of the region's
blocks (the final carries', every step's stacked ys') holds both, each entry of the
pattern is read back as ``(D·C)[row, colour[col]]`` (no other column of that colour
reaches that row; a row that mixes two columns of a colour at some step is one that
reaches no output, multiplied away by its exact zeros); a column no row holds is not
carried at all (colour -1: its seed is zero). A chained Rosenbrock's gradient loop
carries n gradient entries × 3(n - 1) input entries; compressed, × 4 colours.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from ...core.regions import PatternBlocks, Region

__all__ = [
    "COLOUR_COLUMNS",
    "COLOUR_WORK",
    "COMPRESS_BELOW",
    "colour_columns",
    "loop_colours",
    "operand_columns",
    "tangent_pattern",
]

COMPRESS_BELOW = 0.8
"""The sweep is compressed where its colours are at most this fraction of its columns."""

COLOUR_WORK = 10**8
"""The most (row entries)² the greedy colouring may visit (Σ over the pattern's rows):
past it the sweep keeps a column per input entry."""

COLOUR_COLUMNS = 2 * 10**5
"""The most columns the greedy colouring visits (one at a time, ~10 µs each)."""


def operand_columns(r: Region) -> list[tuple[int, int]]:
    """Per operand of the region (a while loop's condition constants first), its columns
    ``(lo, hi)`` in the tangent sweep uncompressed: an active float operand's entries,
    none for the others; ``columns[-1][1]`` is the sweep's width."""
    b, width, columns = r.body, 0, []
    for k, shape in enumerate(r.operand_shapes):
        i = r.body_input[k]
        differentiable = r.active[k] and i is not None and b.floats[i]
        size = math.prod(shape) if differentiable else 0
        columns.append((width, width + size))
        width += size
    return columns


def tangent_pattern(
    r: PatternBlocks, columns: list[tuple[int, int]], needed: Sequence[bool] | None = None
) -> sp.csr_array | None:
    """The region's blocks side by side: a row per output entry (each stacked ys' step
    its own rows), a column per active operand entry (operand k at ``columns[k]``); None
    where they fill over :data:`COMPRESS_BELOW` of it (no colouring could halve it). With
    ``needed``, the rows of the outputs it marks alone (the others' rows left empty: the
    sweep does not carry them)."""
    width = columns[-1][1] if columns else 0
    kept = [needed is None or needed[j] for j in range(len(r.out_shapes))]
    total = sum(math.prod(s) for s, keep in zip(r.out_shapes, kept, strict=True) if keep)
    most = COMPRESS_BELOW * total * width
    rows, cols, at, nnz = [], [], 0, 0
    for j, shape in enumerate(r.out_shapes):
        size = math.prod(shape)
        for k, (lo, hi) in enumerate(columns):
            if hi == lo or not kept[j] or not r.depends(j, k):
                continue
            block = r.block(j, k)
            nnz += size * (hi - lo) if hasattr(block, "value") else len(block.rows)
            if nnz > most:
                return None
            if hasattr(block, "value"):  # dense: every entry
                row, col = np.divmod(np.arange(size * (hi - lo)), hi - lo)
            else:
                row, col = np.asarray(block.rows), np.asarray(block.cols)
            rows.append(at + row.astype(np.int64))
            cols.append(lo + col.astype(np.int64))
        at += size
    row = np.concatenate(rows) if rows else np.zeros(0, np.int64)
    col = np.concatenate(cols) if cols else np.zeros(0, np.int64)
    pattern = sp.csr_array((np.ones(row.size, bool), (row, col)), shape=(at, width))
    pattern.sum_duplicates()
    return pattern


def colour_columns(pattern: sp.csr_array) -> np.ndarray:
    """A colour per column, no two columns of a row alike: the greedy colouring in
    column order (each column the least colour its rows' columns have not taken); -1 for
    a column no row holds (its seed reaches no output: it is not carried)."""
    by_row, by_col = sp.csr_array(pattern), sp.csc_array(pattern)
    colour = np.full(pattern.shape[1], -1, dtype=np.int64)
    for c in range(pattern.shape[1]):
        rows = by_col.indices[by_col.indptr[c] : by_col.indptr[c + 1]]
        if not rows.size:
            continue
        starts, stops = by_row.indptr[rows], by_row.indptr[rows + 1]
        used = colour[by_row.indices[_ranges(starts, stops)]]
        used = used[used >= 0]
        taken = np.zeros(used.size + 1, dtype=bool)
        taken[used[used <= used.size]] = True
        colour[c] = int(np.argmin(taken))
    return colour


def loop_colours(
    r: PatternBlocks, columns: list[tuple[int, int]], needed: Sequence[bool] | None = None
) -> tuple[np.ndarray, sp.csr_array] | None:
    """Each active input column's colour in the loop's compressed tangent sweep and the
    pattern coloured (:func:`tangent_pattern`; ``needed``: the outputs whose rows the
    sweep carries, None: all), or None where compressing would not keep at most
    :data:`COMPRESS_BELOW` of the columns (a row of the blocks fills that much) or
    colouring would cost over :data:`COLOUR_WORK` or :data:`COLOUR_COLUMNS`."""
    width = columns[-1][1] if columns else 0
    rows = sum(math.prod(s) for s in r.out_shapes)
    if not width or not rows or width > COLOUR_COLUMNS:
        return None
    pattern = tangent_pattern(r, columns, needed)
    if pattern is None:
        return None
    counts = np.diff(pattern.indptr)
    if counts.max(initial=0) > COMPRESS_BELOW * width or int((counts**2).sum()) > COLOUR_WORK:
        return None
    colour = colour_columns(pattern)
    held = int(colour.max(initial=-1)) + 1
    return (colour, pattern) if 0 < held <= COMPRESS_BELOW * width else None


def _ranges(starts: np.ndarray, stops: np.ndarray) -> np.ndarray:
    """The positions ``starts[i] .. stops[i] - 1``, every i, in one array."""
    lengths = stops - starts
    total = int(lengths.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    shift = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
    return shift + np.arange(total)
