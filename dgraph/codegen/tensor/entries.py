"""Where a block's entries are: flat rows, columns and value positions, shared by the
block operations and the products with a run-time permutation."""

from __future__ import annotations

import functools

import numpy as np

from ...blocks import FORGETS, Block, Sparse, pattern

__all__ = ["entries", "every", "fills"]


def entries(block: Block) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Flat rows and columns of the block's entries, and each entry's index into its
    flattened values."""
    if isinstance(block, Sparse):
        return block.rows, block.cols, every(block.nnz)
    return pattern(block)


@functools.lru_cache(maxsize=32)
def every(size: int) -> np.ndarray:
    """0, 1, ..., size - 1 (read-only, made once per size: a pattern's positions in order
    are asked for again and again at 10⁶ entries), int32 where they fit (half the memory:
    up to 32 ranges of 10⁷ entries held at 10⁶ unknowns), else int64."""
    positions = np.arange(size, dtype=np.int32 if size < 2**31 else np.int64)
    positions.setflags(write=False)
    return positions


FORGETS.append(every.cache_clear)  # up to 32 ranges of 10⁶ entries and more: per call


def fills(where: np.ndarray, size: int) -> bool:
    """Whether positions ``where`` are every position of a vector of ``size``, in order
    (the first 0, the last size - 1, and each one more than the one before)."""
    if where.size != size:
        return False
    if size == 0 or where is every(size):
        return True
    if where[0] != 0 or where[-1] != size - 1:
        return False
    return bool(np.array_equal(where, every(size)))  # one pass, no differences formed
