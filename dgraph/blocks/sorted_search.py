"""``searchsorted``: the positions of queries in a sorted 1-D table, one array operation
(``numpy.searchsorted``'s, ``jnp.searchsorted``'s), no derivative (a comparison's).

Operands: the table ``a`` (``m`` entries, sorted, NaN last as NumPy sorts it) and the
queries ``v`` (any shape, the result's); params ``right`` (``side="right"``: the count of
entries ``<= v``; else ``< v``) and ``length`` (``m``: the result's range ``0 .. m``
without the table's shape, which a vertex operand does not carry). NumPy's total order:
a NaN query is after every number (position ``m`` on either side), ``-0.0 == 0.0``.

The array level evaluates it by ``numpy.searchsorted`` and prints it as a binary search
(``numpy.searchsorted``, ``jnp.searchsorted``; C and CUDA: ``dgraph_searchsorted``, one
per query): ``n log m`` comparisons where counting every entry against every query takes
``n·m``. The element level (small arrays) expands :func:`comparison_form`, that count of
comparisons, NaN included, so that both levels give NumPy's positions.
"""

from __future__ import annotations

import math

import numpy as np

from .arrays import ArrayOp, Const

__all__ = ["SEARCHSORTED", "comparison_form", "searchsorted_op"]

SEARCHSORTED = "searchsorted"


def searchsorted_op(table, query, length: int, shape: tuple[int, ...], right: bool) -> ArrayOp:
    """``searchsorted(table, query, side)`` of the operands (a vertex's name, a
    :class:`~dgraph.blocks.arrays.Const` or a nested operation), ``query`` of ``shape``."""
    params = (("right", bool(right)), ("length", int(length)))
    return ArrayOp(SEARCHSORTED, (table, query), params, shape)


def comparison_form(op: ArrayOp) -> ArrayOp:
    """``op`` as nested comparisons (the element level's): per query the count of the
    table's entries before it, ``sum(a < v)`` (``a <= v`` on the right), and for a NaN
    query (``v <= inf`` fails) ``m`` on the right, the count of numbers in the table
    (``a <= inf``) on the left: NumPy's positions with NaN after every number."""
    table, query = op.operands
    q, m = tuple(op.shape), int(op.param["length"])
    wide, last = (*q, m), (len(q),)
    rows = _broadcast(table, (len(q),), wide)
    columns = _broadcast(query, tuple(range(len(q))), wide)
    below = ArrayOp("le" if op.param["right"] else "lt", (rows, columns), (), wide)
    count = _count(below, last, q)
    inf = Const.of(np.asarray(math.inf))
    number = ArrayOp("le", (query, inf), (), q)
    if op.param["right"]:
        nan = Const.of(np.full(q, float(m)))
    else:
        nan = _count(ArrayOp("le", (rows, inf), (), wide), last, q)
    return ArrayOp("select_n", (number, nan, count), (), q)


def _broadcast(x, dims: tuple[int, ...], shape: tuple[int, ...]) -> ArrayOp:
    params = (("shape", shape), ("broadcast_dimensions", dims), ("sharding", None))
    return ArrayOp("broadcast_in_dim", (x,), params, shape)


def _count(mask: ArrayOp, axes: tuple[int, ...], shape: tuple[int, ...]) -> ArrayOp:
    """The number of entries where ``mask`` holds along ``axes``."""
    zeros, ones = (Const.of(np.full(mask.shape, v)) for v in (0.0, 1.0))
    values = ArrayOp("select_n", (mask, zeros, ones), (), mask.shape)
    return ArrayOp("reduce_sum", (values,), (("axes", axes),), shape)
