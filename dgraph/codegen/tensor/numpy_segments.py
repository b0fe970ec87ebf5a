"""A NumPy body's segment sum of gathered values as a sparse matrix-vector product.

A segment sum whose terms are a vector's entries at constant positions, each scaled by a
constant (``bincount(ids, weights=c * v[K])``: a block product's pairs summed into its
entries) is the product of a constant sparse matrix and ``v``: row ``ids[j]`` holds
``c[j]`` in column ``K[j]``. Stored in compressed sparse rows (CSR; Saad, *Iterative
Methods for Sparse Linear Systems*, 2nd ed., SIAM 2003, §3.4), each row's terms in the
order of ``j`` (a stable sort by ``ids``), SciPy's product (``csr_matvec``) adds them into
a zero in the same order as ``bincount`` does: the same doubles. It reads the vector once
and the matrix (int32 indices) once, where ``bincount`` reads both index arrays (int64),
the scales, the gathered copy and the products it makes first: some half the memory
traffic, and no temporaries. The matrix is a module constant (:meth:`.Constants.derived`),
built once at import from its three arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ir
from ..ir import ArrayStatement, BinOp, Index, Name, Node, SegmentSum

__all__ = ["segment_lines"]


def segment_lines(s: ArrayStatement, c: Any) -> list[str] | None:
    """The line computing the segment sum ``s`` (a NumPy body's statement; ``c`` its
    printing context) as a constant CSR matrix times the gathered vector (module
    docstring); None where ``s`` is no such sum."""
    v = s.value
    if s.at or not isinstance(v, SegmentSum):
        return None
    ids = c.index(v.ids)
    if ids is None or ids.size == 0 or ids.min() < 0 or ids.max() >= v.n:
        return None
    found = _scaled_gather(v.data, c, ids.size)
    if found is None:
        return None
    scale, vector, at = found
    shape = c.shape(vector)
    if shape is None or len(shape) != 1 or (at.size and at.max() >= shape[0]):
        return None
    if max(ids.size, shape[0], v.n) >= 2**31:
        return None  # SciPy's int32 indices: the matrix as made here
    order = np.argsort(ids, kind="stable")  # each row's terms in bincount's order
    indptr = np.zeros(v.n + 1, dtype=np.int64)
    np.cumsum(np.bincount(ids, minlength=v.n), out=indptr[1:])
    data = np.array(np.broadcast_to(scale, ids.shape)[order], dtype=np.float64)
    k = c.constants
    parts = (k.add(data), k.index(at[order]), k.index(indptr))
    made = ", ".join(p.id for p in parts)
    matrix = k.derived(f"scipy.sparse.csr_array(({made}), shape=({v.n}, {shape[0]}))", parts)
    return [f"    {s.target} = {matrix.id} @ {c.printer.doprint(vector)}"]


def _scaled_gather(data: Node, c: Any, n: int) -> tuple[Any, Node, np.ndarray] | None:
    """``(scale, v, K)`` where ``data`` is ``v[K]``, ``c * v[K]`` or ``v[K] * c`` of
    ``n`` entries: ``K`` a 1-D index constant, ``c`` a number or a float constant of
    ``n`` entries (flat), ``scale`` 1.0 or its value; None otherwise."""
    scale: Any = 1.0
    gather = data
    if isinstance(data, BinOp) and data.op == "*":
        for one, other in ((data.left, data.right), (data.right, data.left)):
            found = _scale(one, c, n)
            if found is not None and _gather(other, c, n) is not None:
                scale, gather = found, other
                break
        else:
            return None
    at = _gather(gather, c, n)
    return None if at is None else (scale, gather.value, at)  # type: ignore[attr-defined]


def _gather(node: Node, c: Any, n: int) -> np.ndarray | None:
    """``K``'s entries where ``node`` is ``v[K]`` of ``n`` entries, ``K`` a 1-D index
    constant."""
    if not (isinstance(node, Index) and len(node.items) == 1):
        return None
    at = c.index(node.items[0])
    return at if at is not None and at.size == n else None


def _scale(node: Node, c: Any, n: int) -> Any:
    """The value of a number, or the flat entries of a float constant of ``n`` entries
    (under a ravel); None for anything else."""
    number = ir.number(node)
    if number is not None:
        return float(number)
    while isinstance(node, ir.Call) and node.func == "ravel" and len(node.args) == 1:
        node = node.args[0]
    a = c.constants.arrays.get(node.id) if isinstance(node, Name) else None
    if a is None or a.dtype != np.float64 or a.size != n:
        return None
    return a.reshape(-1)
