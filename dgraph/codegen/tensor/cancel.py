"""Entries of a sparse Jacobian block whose summands cancel, dropped from its pattern.

A block's pattern is the union of the patterns of the products summed into it
(:func:`dgraph.blocks.add`), so where two summands are equal and opposite (``x·y −
y·x``: the same selections, values ``+1`` and ``−1``) the entry stays, an explicit zero.
The values of the summands that read no input are numbers known when the code is made
(the constant blocks and their products and sums, which the module folds once), so an
entry that only such summands reach, and whose summands add to exactly 0 there (their
exact sum, not one rounded summation order), is 0 for every input: :func:`drop_cancelled`
removes it from the block. So is an entry of a block whose values, one array that reads
no input, are 0.0 there: the code computes 0.0 for it at every input. An entry that a
summand reading an input reaches is kept whatever its value at a point (nothing is
decided by evaluating at points), so the pattern is never smaller than the nonzeros the
code computes at any input.
"""

from __future__ import annotations

import math

import numpy as np

from ...blocks import Block, RunTime, sparse
from ..evaluate import ArrayEvaluator
from ..ir import ArrayStatement, Node, names_in
from .blockops import BlockOps, Terms, Valued, values_at
from .entries import entries

__all__ = ["drop_cancelled"]


def _constant(w, node: Node) -> np.ndarray:
    """The value of ``node``, which reads no input, from the statements written so far."""
    known = {s.target: s for s in w.statements}
    needed, todo = [], list(names_in(node))
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen or name not in known:
            continue
        seen.add(name)
        needed.append(known[name])
        todo.extend(names_in(known[name].value))
    order = {s.target: k for k, s in enumerate(w.statements)}
    needed.sort(key=lambda s: order[s.target])
    env = {n: a for n, a in w.constants.arrays.items()}
    env = ArrayEvaluator().run([*needed, ArrayStatement("_cancel_value", node)], env)
    return np.asarray(env["_cancel_value"], dtype=float)


def _zeros(w, block: Block, values: Node | Terms, at: np.ndarray) -> np.ndarray | None:
    """Per entry, whether only constant summands reach it and their exact sum is 0 (None:
    none can be dropped)."""
    if isinstance(values, Terms):
        if all(w.varies(data) for _, data in values.parts):
            return None
        reached = np.zeros(values.size, dtype=bool)
        placed = []
        for where, data in values.parts:
            place = np.arange(values.size) if where is None else where
            if w.varies(data):
                reached[place] = True
                continue
            value = _constant(w, data).reshape(-1)
            if value.size not in (1, place.size):
                return None
            placed.append((place, np.broadcast_to(value, place.shape)))
        return _exactly_zero(values.size, placed, reached)[at]
    if w.varies(values):
        return None
    value = _constant(w, values).reshape(-1)
    if value.size == 1:
        return np.full(at.size, value.item() == 0.0)
    return value[at] == 0.0


def _exactly_zero(size: int, placed: list, reached: np.ndarray) -> np.ndarray:
    """Per position, whether the values ``placed`` there (each part's positions distinct)
    add up to exactly 0 and nothing in ``reached`` goes there. The rounded sum finds the
    candidates; ``math.fsum`` (exact, then rounded once: 0 only where the exact sum is,
    a nonzero sum of doubles being at least the least subnormal) decides them, so no
    rounding of one summation order drops an entry; where at most two summands are not 0
    the rounded sum is 0 exactly when theirs is."""
    total = np.zeros(size)
    for place, value in placed:
        total += np.bincount(place, weights=value, minlength=size)
    candidates = np.flatnonzero((total == 0.0) & ~reached)
    zero = np.zeros(size, dtype=bool)
    if candidates.size == 0:
        return zero
    where = np.full(size, -1, dtype=np.int64)
    where[candidates] = np.arange(candidates.size)
    parts = np.zeros((candidates.size, len(placed)))
    for k, (place, value) in enumerate(placed):
        row = where[place]
        hit = row >= 0
        parts[row[hit], k] = value[hit]
    exact = np.ones(candidates.size, dtype=bool)  # two summands: a + b rounds to 0 iff a = −b
    three = np.flatnonzero(np.count_nonzero(parts, axis=1) > 2)
    exact[three] = [math.fsum(parts[k]) == 0.0 for k in three]
    zero[candidates[exact]] = True
    return zero


def drop_cancelled(w, valued: Valued) -> Valued:
    """``valued`` (a block and its values, before :meth:`BlockOps.materialize`) without
    the entries whose summands are constants adding to 0.0 (module docstring): a sparse
    block of the rest and their values, or None where nothing is left."""
    if valued is None or isinstance(valued[0], RunTime):  # its values read the inputs
        return valued
    block, values = valued
    rows, cols, at = entries(block)
    zero = _zeros(w, block, values, at)
    if zero is None or not zero.any():
        return valued
    keep = np.flatnonzero(~zero)
    if keep.size == 0:
        return None
    width = max(1, int(np.prod(block.in_shape)))
    keep = keep[np.argsort(rows[keep] * width + cols[keep], kind="stable")]
    if isinstance(values, Terms):
        _, values = BlockOps(w.d.lang, w.constants, w.emit, w.varies).materialize(valued)
    kept = sparse(block.out_shape, block.in_shape, rows[keep], cols[keep], block.kind)
    return kept, w.emit(values_at(w.constants, block, values, at[keep]))
