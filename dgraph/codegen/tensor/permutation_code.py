"""Products with a run-time permutation (:mod:`dgraph.blocks.permutation`) as array
statements, in the semantics of its NumPy values: the values are one array ``(2,
*shape)``, the row values and each output's source position along the axis (a float,
read back as integers); a product keeps the form, or keeps the other factor's pattern
with its values gathered along the axis (``take_along_axis``, the inverse permutation an
``argsort`` of the sources), or is the structural block's (a one-hot of the sources).
NumPy and jax.numpy take the same text."""

from __future__ import annotations

import math

import numpy as np

from ...blocks import GENERAL, Labelled, Sparse, dense, diagonal, move_source
from ...blocks.permutation import (
    Permutation,
    check_union,
    entries_between,
    middle,
    plan,
    structural,
)
from ..ir import AsType, BinOp, Call, Const, Index, Node, Scatter, Seq, number
from .entries import entries, fills

__all__ = ["multiply_permutation", "scale_permutation", "structural_of", "structural_valued"]


def _split(values: Node) -> tuple[Node, Node]:
    return Index(values, (Const(0),)), AsType(Index(values, (Const(1),)), "int")


def _stack(v: Node, source: Node) -> Node:
    """The values of a permutation: row values and sources (as floats: read back as
    they were where they come from another permutation's values)."""
    if isinstance(source, AsType) and source.dtype == "int":
        return Call("stack", (Seq((v, source.operand)),))
    return Call("stack", (Seq((v, AsType(source, "float"))),))


def _take(values: Node, index: Node, axis: int) -> Node:
    return Call("take_along_axis", (values, index), (("axis", Const(axis)),))


def structural_of(ops, block, values: Node):
    """A permutation as its structural block with its values (:func:`structural_valued`;
    with moves taken in, that block between them), emitted; any other block as it is."""
    if not isinstance(block, Permutation):
        return block, values
    if not block.plain:
        check_union(block)
        found = entries_between(block)
        if found is not None:  # entry by entry: the core's union never formed
            return found[0], _entries_valued(ops, block, values, *found)
    union, node = structural_valued(block.core, values)
    return _between(ops, block.left, (union, ops.emit(node)), block.right)


def _entries_valued(ops, p: Permutation, values: Node, block, rows, cols) -> Node:
    """``permutation.structural_values`` entry by entry (:func:`entries_between`): each
    entry the row value of the core's row it reads where that row takes its column."""
    v, source = _split(values)
    size = math.prod(p.shape)
    flat = Call("reshape", (Call("arange", (Const(size),)), Const(p.shape)))
    sources = ops.emit(Call("ravel", (_take(flat, source, p.axis),)))
    at = ops.constants.index(np.maximum(rows, 0))
    hit = BinOp("==", Index(sources, (at,)), ops.constants.index(np.where(rows >= 0, cols, -1)))
    node = Call("where", (hit, Index(Call("ravel", (v,)), (at,)), Const(0.0)))
    if not isinstance(block, Sparse):
        node = Call("reshape", (node, Const(tuple(block.sizes[k] for k in block.value))))
    return ops.emit(node)


def _between(ops, left, valued, right):
    """``left · valued · right`` (the moves that are there, their values ones)."""
    if right is not None:
        valued = ops.multiply(valued, (right, _ones(ops, right)))
    if left is not None:
        valued = ops.multiply((left, _ones(ops, left)), valued)
    return valued


def _ones(ops, move) -> Node:
    """A move's values: ones per entry of a sparse block, one number for a labelled one."""
    return ops.emit(Call("ones", (Const(move.nnz),))) if isinstance(move, Sparse) else Const(1.0)


def _weighted(ops, p: Permutation, values: Node, move, weights: Node, side: str) -> Node:
    """A permutation's values after a move's are taken in (``permutation.weighted``): as
    they were where the move's values are 1, scaled by a number, else each row (left) or
    column (right) of the permutation times the value of the move's entry there."""
    c = number(weights)
    if c == 1.0:
        return values
    v, source = _split(values)
    if c is not None:
        return ops.emit(_stack(BinOp("*", Const(c), v), source))
    n, has = math.prod(p.shape), np.flatnonzero(move_source(move) >= 0)
    at = move_source(move)[has] if side == "left" else has
    d = ops.emit(Scatter(n, ops.constants.index(at), Call("ravel", (weights,))))
    d = Call("reshape", (d, Const(p.shape)))
    w = d if side == "left" else _take(d, source, p.axis)
    return ops.emit(_stack(BinOp("*", w, v), source))


def _through(ops, move, d: Node, side: str, shape: tuple[int, ...]) -> Node:
    """``permutation.through`` as a node: a diagonal's values carried through a move onto
    a permutation's rows (``"left"``) or columns (``"right"``), zero where it has none."""
    if move is None:
        return Call("reshape", (d, Const(tuple(shape))))
    source = move_source(move)
    has = np.flatnonzero(source >= 0)
    at, read = (source[has], has) if side == "left" else (has, source[has])
    picked = Index(Call("ravel", (d,)), (ops.constants.index(read),))
    scattered = ops.emit(Scatter(math.prod(shape), ops.constants.index(at), picked))
    return Call("reshape", (scattered, Const(tuple(shape))))


def structural_valued(block, values: Node) -> tuple[Labelled, Node]:
    """A permutation over ``shape`` (no reshape taken in) as its structural block with its
    values (one-hot of the sources times the row values); any other block as it is."""
    if not isinstance(block, Permutation):
        return block, values
    check_union(block)
    v, source = _split(values)
    positions = Call("arange", (Const(block.shape[block.axis]),))
    hit = BinOp("==", Call("expand_dims", (source, Const(-1))), positions)
    onehot = Call("where", (hit, Call("expand_dims", (v, Const(-1))), Const(0.0)))
    return structural(block), Call("swapaxes", (onehot, Const(block.axis), Const(-1)))


def _diagonal_node(ops, d: Labelled | Sparse, values: Node) -> Node:
    """A diagonal block's values as an array of its shape (one with entries on the
    diagonal only, ``permutation.within_diagonal``: zeros where it has none)."""
    if isinstance(d, Sparse):
        size = math.prod(d.out_shape)
        scattered = ops.emit(Scatter(size, ops.constants.index(d.rows), values))
        return Call("reshape", (scattered, Const(d.out_shape)))
    if not d.value:
        return Call("broadcast_to", (values, Const(d.out_shape)))
    labels = [axis[0][0] for axis in d.out_axes]
    shaped = Call("reshape", (values, Const(tuple(d.sizes[k] for k in d.value))))
    order = tuple(d.value.index(k) for k in labels)
    return (
        shaped if order == tuple(range(len(order))) else Call("transpose", (shaped, Const(order)))
    )


def _lay_out(b: Labelled, side: str, array: Node) -> Node:
    """``permutation.lay_out`` as a node."""
    axes = b.out_axes if side == "out" else b.in_axes
    labels = [a[0][0] for a in axes]
    order = tuple(sorted(range(len(labels)), key=lambda j: b.value.index(labels[j])))
    moved = array if order == tuple(range(len(order))) else Call("transpose", (array, Const(order)))
    shape = tuple(b.sizes[k] if k in labels else 1 for k in b.value)
    return Call("reshape", (moved, Const(shape)))


def multiply_permutation(ops, upper, lower):
    """``ops.multiply`` where a factor is a :class:`Permutation` (``ops`` a
    :class:`~dgraph.codegen.tensor.blockops.BlockOps`)."""
    (a, va), (b, vb) = ops.materialize(upper, True), ops.materialize(lower, True)
    found = plan(a, b)
    if found.filled and isinstance(b, Permutation):
        a, va = dense((), b.shape, GENERAL), _filled(ops, a, va, b.shape)
    elif found.filled:
        b, vb = dense(a.shape, (), GENERAL), _filled(ops, b, vb, a.shape)
    if found.how == "absorb":  # a move taken in: its values (a number, 1) into the rows
        if isinstance(a, Permutation):
            return found.block, _weighted(ops, a, va, b, vb, "right")
        return found.block, _weighted(ops, b, vb, a, va, "left")
    if found.how == "inverse":  # each the other's inverse: a diagonal between the moves
        v, source = _split(va)
        w = _split(vb)[0]
        kept = middle(a, b)
        if kept is not None and not kept.all():
            where = np.flatnonzero(kept.reshape(-1))
            ones = Call("ones", (Const(where.size),))
            mask = ops.emit(Scatter(kept.size, ops.constants.index(where), ones))
            w = BinOp("*", Call("reshape", (mask, Const(a.shape))), w)
        d = ops.emit(BinOp("*", v, _take(w, source, a.axis)))
        return _between(ops, a.left, (diagonal(a.shape), d), b.right)
    if found.how == "left":
        v, source = _split(vb)
        d = _through(ops, b.left, _diagonal_node(ops, a, va), "left", b.shape)
        return found.block, ops.emit(_stack(BinOp("*", d, v), source))
    if found.how == "right":
        v, source = _split(va)
        d = _through(ops, a.right, _diagonal_node(ops, b, vb), "right", a.shape)
        gathered = _take(d, source, a.axis)
        return found.block, ops.emit(_stack(BinOp("*", v, gathered), source))
    if found.how == "upper":
        v, source = _split(vb)
        inner = ops.multiply((a, va), (diagonal(b.shape), ops.emit(v)))
        inverse = Call("argsort", (source,), (("axis", Const(b.axis)), ("stable", Const(True))))
        index = _lay_out(found.inner, "in", inverse)
        position = found.inner.value.index(found.label)
        return found.block, ops.emit(_take(inner[1], ops.emit(index), position))
    if found.how == "lower":
        v, source = _split(va)
        ones = Call("ones", (Const(a.shape),))
        inner = ops.multiply((diagonal(a.shape), ops.emit(ones)), (b, vb))
        position = found.inner.value.index(found.label)
        gathered = _take(inner[1], ops.emit(_lay_out(found.inner, "out", source)), position)
        return found.block, ops.emit(BinOp("*", gathered, _lay_out(found.inner, "out", v)))
    if found.how == "release":  # the moves a permutation took in let go: in their order
        return _released(ops, (a, va), (b, vb))
    return ops.multiply(structural_of(ops, a, va), structural_of(ops, b, vb))


def _released(ops, upper, lower):
    """``permutation._release_values`` as statements: ``(upper·L)·P·R`` for a lower
    ``L·P·R``, ``L·(P·(R·lower))`` for an upper one (the moves' values ones)."""

    def times(x, y):
        return None if x is None or y is None else ops.multiply(x, y)

    if isinstance(lower[0], Permutation):
        p = lower[0]
        found = upper if p.left is None else times(upper, (p.left, _ones(ops, p.left)))
        found = times(found, (p.core, lower[1]))
        return found if p.right is None else times(found, (p.right, _ones(ops, p.right)))
    p = upper[0]
    found = lower if p.right is None else times((p.right, _ones(ops, p.right)), lower)
    found = times((p.core, upper[1]), found)
    return found if p.left is None else times((p.left, _ones(ops, p.left)), found)


def _filled(ops, block, values: Node, shape: tuple[int, ...]) -> Node:
    """A row or a column block's values as a dense array of ``shape`` (zeros where it has
    no entry)."""
    rows, cols, at = entries(block)
    flat = cols if block.out_shape == () else rows
    size = math.prod(shape)
    data = ops.values_at(block, values, at)
    if fills(flat, size):
        return ops.emit(Call("reshape", (data, Const(shape))))
    scattered = ops.emit(Scatter(size, ops.constants.index(flat), data))
    return ops.emit(Call("reshape", (scattered, Const(shape))))


def scale_permutation(ops, block: Permutation, values: Node, coefficient: float):
    """``coefficient`` times a permutation: its row values scaled."""
    v, source = _split(values)
    return block, ops.emit(_stack(BinOp("*", Const(coefficient), v), source))
