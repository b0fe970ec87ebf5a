"""A product of a dense block and a sparse one with few entries per line, as gathers of
the dense block's columns (or rows) scaled and summed: no index array per pair.

Where ``A`` (m × k) is dense and ``B`` (k × n) holds at most ``c`` entries in each of its
``n'`` nonempty columns, ``A·B`` at those columns is ``Σ_t A[:, i_t] · w_t`` over the
t-th entry of each column (row ``i_t``, value ``w_t``; a missing one row 0, value 0): c
gathers of m × n' entries, index arrays of c·n' entries, against the pairs' m·nnz(B)
indices (a gather of each factor and a segment sum, :meth:`~.blockops.BlockOps._pairs`).
A sparse ``A`` by a dense ``B`` is the same by rows. This is the compressed-column
product of a dense matrix by a sparse one (Gustavson, ACM TOMS 4(3), 1978), each
column's entries taken in turn.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ...blocks import Block, Sparse
from ..ir import BinOp, Call, Const, Node, Scatter, number
from .entries import entries, fills

__all__ = ["GATHER_MAX", "gathered_product"]

GATHER_MAX = 32  # entries of a line of the sparse factor at most (a gather each)


def gathered_product(
    a: Block,
    b: Block,
    va: Node,
    vb: Node,
    product: Block,
    values_at: Callable[[Block, Node, np.ndarray], Node],
    index: Callable[[np.ndarray], Node],
    emit: Callable[[Node], Node],
) -> Node | None:
    """``product``'s values (its entries in order) as the gathers of the module
    docstring, or None where neither factor is dense with its values in C order, the
    other's lines hold more than :data:`GATHER_MAX` entries or padded gathers would form
    more than twice its pairs, or the product is not every row by the other's nonempty
    lines in row-major order. ``values_at``, ``index`` and ``emit``: the block
    operations' (values at entries, an index array's name, a statement)."""
    if not isinstance(product, Sparse) or number(va) is not None or number(vb) is not None:
        return None
    m, k, n = (math.prod(s) for s in (a.out_shape, a.in_shape, b.in_shape))
    # axis: the dense factor's axis the gathers take (its columns where it is on the left)
    if _dense(a, m, k):
        dense, vd, shape, sparse, vs, axis = a, va, (m, k), b, vb, 1
    elif _dense(b, k, n):
        dense, vd, shape, sparse, vs, axis = b, vb, (k, n), a, va, 0
    else:
        return None
    rows, cols, at_s = entries(sparse)
    line, other = (cols, rows) if axis == 1 else (rows, cols)
    free = shape[1 - axis]  # the product's lines the dense factor spans
    lines = _lines(line, other, at_s, n if axis == 1 else m, free * sparse.nnz)
    if lines is None:
        return None
    used, idx, at = lines
    spanned = np.arange(free)
    if not _every_by(product, *((spanned, used) if axis == 1 else (used, spanned))):
        return None
    held = emit(Call("reshape", (values_at(dense, vd, entries(dense)[2]), Const(shape))))
    weight_shape = (1, used.size) if axis == 1 else (used.size, 1)
    terms = [
        _scaled(
            Call("take", (held, index(i)), (("axis", Const(axis)),)),
            _weights(values_at(sparse, vs, place[hit]), hit, index),
            weight_shape,
        )
        for i, place, hit in zip(idx, at, at >= 0, strict=True)
    ]
    total = emit(terms[0])
    for term in terms[1:]:
        total = emit(BinOp("+", total, term))
    return Call("ravel", (total,))


def _dense(block: Block, m: int, k: int) -> bool:
    """Whether every entry of the m × k block is held, its values in C order."""
    if block.nnz != m * k or m * k == 0:
        return False
    rows, cols, at = entries(block)
    size = m * k
    return fills(np.asarray(at), size) and fills(rows.astype(np.int64) * k + cols, size)


def _lines(line, other, at, count: int, pairs: int):
    """The sparse factor's nonempty lines (``line``: each entry's column of B, or row of
    A), and per t the t-th entry's other index and value place in each (-1: none);
    None where a line holds more than :data:`GATHER_MAX`, or the padded gathers more
    than twice the ``pairs``."""
    if line.size == 0:
        return None
    counts = np.bincount(line, minlength=count)
    widest = int(counts.max())
    used = np.flatnonzero(counts)
    per_pair = pairs // max(1, line.size)  # the dense factor's entries a pair forms
    if widest > GATHER_MAX or widest * used.size * per_pair > 2 * pairs:
        return None
    order = np.lexsort((other, line))
    line, other, at = line[order], other[order], np.asarray(at)[order]
    rank = np.searchsorted(used, line)
    start = np.concatenate([[0], np.cumsum(counts[used])[:-1]])
    t = np.arange(line.size) - start[rank]
    idx = np.zeros((widest, used.size), dtype=np.int64)
    places = np.full((widest, used.size), -1, dtype=np.int64)
    idx[t, rank] = other
    places[t, rank] = at
    return used, idx, places


def _weights(data: Node, hit: np.ndarray, index: Callable[[np.ndarray], Node]) -> Node:
    """The t-th entries' values, 0 where a line has no t-th entry."""
    if hit.all():
        return data
    return Scatter(int(hit.size), index(np.flatnonzero(hit)), data)


def _scaled(gathered: Node, weights: Node, shape: tuple[int, int]) -> Node:
    return BinOp("*", gathered, Call("reshape", (weights, Const(shape))))


def _every_by(product: Sparse, rows: np.ndarray, cols: np.ndarray) -> bool:
    """Whether ``product``'s entries are every ``rows`` by every ``cols``, row-major."""
    if product.nnz != rows.size * cols.size:
        return False
    return bool(
        np.array_equal(product.rows, np.repeat(rows, cols.size))
        and np.array_equal(product.cols, np.tile(cols, rows.size))
    )
