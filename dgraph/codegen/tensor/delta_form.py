"""JAX's delta form of a labelled block, and the pattern it carries.

A labelled block whose axes each read one label without offset, no label on more than
two axes, is written in JAX as its values broadcast times an identity per label shared
by two axes (a batch's block diagonal: ``eye(512)[:, :, None] * v[None]``): a scatter
into zeros of the same size is several times slower under XLA on a CPU.
:func:`delta_form` writes it and returns with it a :class:`DeltaPattern`, which entries
of the dense block are nonzero and which value each holds; the generated program keeps
it under the block's name (:attr:`~dgraph.codegen.ir.ArrayProgram.deltas`), so that a
loop's tangent sweep multiplies the block by its entries
(:func:`~.loop_blocks.block_entries`) from the pattern itself.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...blocks import Labelled
from .. import ir
from ..ir import ArrayProgram, BinOp, Call, Node

__all__ = ["DeltaPattern", "delta_entries", "delta_form"]


@dataclass(frozen=True)
class DeltaPattern:
    """The delta form of a dense block of ``shape``: the values spread over its axes
    (``spread``: a value axis's extent at the first axis that reads its label, 1 at the
    others) times an identity joining each pair of axes in ``pairs``."""

    shape: tuple[int, ...]
    spread: tuple[int, ...]
    pairs: tuple[tuple[int, int], ...]

    def entries(self) -> tuple[int, np.ndarray, np.ndarray, int]:
        """The dense block's size, its nonzero entries' flat positions (row-major, in
        order), the position in the raveled spread values that each holds, and how many
        values there are: each entry lies where both axes of every pair agree."""
        shape, spread, pairs = self.shape, self.spread, self.pairs
        size = math.prod(shape)
        if not shape:  # one number
            return size, np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), 1
        paired = {p for pair in pairs for p in pair}
        groups = [list(pair) for pair in pairs]
        groups += [[p] for p in range(len(shape)) if p not in paired]
        grid = np.indices([shape[g[0]] for g in groups]).reshape(len(groups), -1)
        coords = [np.zeros(grid.shape[1], dtype=np.int64)] * len(shape)
        for g, row in zip(groups, grid, strict=True):
            for p in g:
                coords[p] = row.astype(np.int64)
        flat = np.ravel_multi_index(coords, shape)
        reads = [c if s > 1 else np.zeros_like(c) for c, s in zip(coords, spread, strict=True)]
        entry_of = np.ravel_multi_index(reads, spread)
        order = np.argsort(flat, kind="stable")
        flat, entry_of = flat[order].astype(np.int64), entry_of[order].astype(np.int64)
        return size, flat, entry_of, math.prod(spread)


def delta_form(
    lang: str, block, values: Node, shape: tuple[int, ...]
) -> tuple[Node, DeltaPattern] | None:
    """The delta form of a labelled ``block`` (``values`` its values' node) as a dense
    array of ``shape``, and its pattern; None where the form does not fit (the caller
    scatters then). JAX only: NumPy's broadcast would be read-only."""
    if lang != "jax" or not isinstance(block, Labelled):  # NumPy: a writable array
        return None
    axes = (*block.out_axes, *block.in_axes)
    labels = [a[0][0] if len(a[0]) == 1 and a[1] == 0 else None for a in axes]
    if any(k is None or block.sizes[k] != n for k, n in zip(labels, shape, strict=True)):
        return None
    where: dict[int, list[int]] = {}
    for p, k in enumerate(labels):
        where.setdefault(k, []).append(p)
    if any(len(ps) > 2 for ps in where.values()) or any(k not in where for k in block.value):
        return None
    first = [where[k][0] for k in block.value]
    order = sorted(range(len(first)), key=lambda i: first[i])
    node = values
    if order != list(range(len(order))):
        node = Call("transpose", (node, ir.Const(tuple(order))))
    kept = {where[k][0]: block.sizes[k] for k in block.value}
    spread = tuple(kept.get(p, 1) for p in range(len(shape)))  # one value: all ones, or ()
    node = Call("reshape", (node, ir.Const(spread)))  # the first factor (delta_entries)
    pairs = []
    for ps in where.values():
        if len(ps) == 2:
            n = shape[ps[0]]
            at = tuple(n if p in ps else 1 for p in range(len(shape)))
            dtype = (("dtype", Call("result_type", (values,))),)
            eye = Call("eye", (ir.Const(n),), dtype)
            node = BinOp("*", node, Call("reshape", (eye, ir.Const(at))))
            pairs.append((ps[0], ps[1]))
    pattern = DeltaPattern(tuple(shape), spread, tuple(pairs))
    return Call("broadcast_to", (node, ir.Const(tuple(shape)))), pattern


def delta_entries(
    program: ArrayProgram, block: str
) -> tuple[int, np.ndarray, Node, np.ndarray, int] | None:
    """The block named ``block`` by its entries, where ``program`` keeps its delta
    pattern and its statement is still the form :func:`delta_form` wrote: its dense
    size, the entries' flat positions, the vector of values (the form's first factor,
    raveled), which of them each position holds and the vector's length; None
    otherwise (a pass made the statement something else: the caller multiplies dense)."""
    pattern = program.deltas.get(block)
    found = [s for s in program.statements if s.target == block]
    if pattern is None or len(found) != 1 or found[0].at:
        return None
    value = found[0].value
    if not (
        isinstance(value, Call)
        and value.func == "broadcast_to"
        and len(value.args) == 2
        and _dims(value.args[1]) == pattern.shape
    ):
        return None
    first = _defined(program, value.args[0])
    while isinstance(first, BinOp) and first.op == "*":
        first = _defined(program, first.left)
    if not (isinstance(first, Call) and first.func == "reshape"):
        return None
    if _dims(first.args[1]) != pattern.spread:
        return None
    size, flat, entry_of, n = pattern.entries()
    return size, flat, Call("ravel", (first,)), entry_of, n


def _dims(node: Node) -> tuple[int, ...] | None:
    """A literal shape's extents (None: not a literal)."""
    if not isinstance(node, ir.Const):
        return None
    return tuple(int(n) for n in np.atleast_1d(node.value))


def _defined(program: ArrayProgram, node: Node) -> Node:
    """``node``, or where it names a statement of ``program`` assigned once (no store
    into it), that statement's value (a factor the passes gave a name of its own)."""
    while isinstance(node, ir.Name):
        found = [s for s in program.statements if s.target == node.id]
        if len(found) != 1 or found[0].at:
            return node
        node = found[0].value
    return node
