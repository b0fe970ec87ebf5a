"""Boolean patterns of a loop body's Jacobian, shared by the region's blocks
(:mod:`dgraph.core.regions`) and its row-by-row pattern sweep (:mod:`.step_rows`): a
block's entries, an edge's pattern, the identity's rows, the body Jacobian's pattern with
each masked ``select_n`` kept to the case it picks (Naumann's chain of per-step
Jacobians, seed 002, taken pattern by pattern)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..blocks import Block, pattern
from ..blocks.permutation import as_structural
from .graph import DGraph
from .lazy import LazyModule

__all__ = [
    "block_structure",
    "bool_pattern",
    "masked_jacobian",
    "ones_matrix",
    "selection",
    "stacked_outputs",
]

Body = Any  # dgraph.core.regions.Body (which imports this module)
sp = LazyModule("scipy.sparse")  # importing dgraph stays light


def block_structure(block: Block) -> tuple:
    """A block's entries (rows, columns, where each reads the values) and its shape."""
    block = as_structural(block)  # a sort's permutation: the union over permutations
    shape = (math.prod(block.out_shape), math.prod(block.in_shape))
    if hasattr(block, "indptr") and not hasattr(block, "value"):  # Sparse: one per entry
        return block.rows, block.cols, None, shape
    rows, cols, at = pattern(block)
    return rows, cols, at, shape


def ones_matrix(g: DGraph, u: str, v: str) -> sp.csr_array:
    """The block of edge (u, v) as a sparse matrix of ones on its pattern."""
    block = g.block(u, v)
    rows, cols, _, shape = block_structure(block)
    return sp.csr_array((np.ones(rows.size), (rows, cols)), shape=shape)


def selection(size: int, width: int, at: int) -> sp.csr_array:
    """Rows ``size`` of the identity, placed at column ``at`` of ``width``."""
    return sp.csr_array(
        (np.ones(size), (np.arange(size), np.arange(at, at + size))), shape=(size, width)
    )


def bool_pattern(m) -> sp.csr_array:
    """A pattern: ones where ``m`` is nonzero (sparse; dense inputs converted)."""
    m = sp.csr_array(m)
    m.data = np.ones_like(m.data)
    m.eliminate_zeros()
    return m


def masked_jacobian(b: Body, picks: Mapping[str, np.ndarray]) -> sp.csr_array:
    """The body Jacobian's pattern with each masked ``select_n`` vertex's rows (its
    entries) kept only from the case its mask picks there."""
    g = b.graph
    rows: dict[str, Any] = {}
    for i, x in enumerate(b.inputs):
        if b.floats[i]:
            rows[x] = selection(math.prod(b.shapes[i]), b.n_in, b.in_offsets[i])
    for v in b.order:
        op = g.op(v)
        if op is None:
            continue
        total = None
        for u in g.predecessors(v):
            if u not in rows:
                continue
            m = ones_matrix(g, u, v)
            if v in picks:
                chosen = np.broadcast_to(picks[v].astype(int), op.shape).reshape(-1)
                keep = np.zeros(m.shape[0])
                for k, x in enumerate(op.operands[1:], start=0):
                    if x == u:
                        keep += chosen == k
                m = sp.csr_array(sp.diags_array(keep) @ m)
            term = m @ rows[u]
            total = term if total is None else total + term
        if total is not None:
            rows[v] = bool_pattern(total)
    found = stacked_outputs(b, rows, b.n_in)
    return sp.csr_array((0, b.n_in)) if found is None else found


def stacked_outputs(b: Body, rows: Mapping[str, Any], width: int) -> sp.csr_array | None:
    """The body's float outputs' rows (``rows`` of its vertices over ``width`` columns;
    zeros for an output none reaches) stacked in order, as a pattern: the body
    Jacobian's; None for a body without float outputs."""
    blocks = [
        rows.get(o, sp.csr_array((math.prod(shape), width)))
        for o, shape in zip(b.outputs, b.out_shapes, strict=True)
        if isinstance(o, str)
    ]
    return bool_pattern(sp.vstack(blocks, format="csr")) if blocks else None
