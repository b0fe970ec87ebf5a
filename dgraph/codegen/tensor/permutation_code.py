"""Products with a run-time permutation (:mod:`dgraph.blocks.permutation`) as array
statements, in the semantics of its NumPy values: the values are one array ``(2,
*shape)``, the row values and each output's source position along the axis (a float,
read back as integers); a product keeps the form, or keeps the other factor's pattern
with its values gathered along the axis (``take_along_axis``, the inverse permutation an
``argsort`` of the sources), or is the structural block's (a one-hot of the sources).
NumPy and jax.numpy take the same text."""

from __future__ import annotations

import math
from dataclasses import replace

from ...blocks import GENERAL, Labelled, Sparse, dense, diagonal
from ...blocks.permutation import Permutation, check_union, plan, reshapes, structural
from ..ir import AsType, BinOp, Call, Const, Index, Node, Scatter, Seq
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
    with a reshape taken in, that block between the reshapes), emitted; any other block
    as it is."""
    if not isinstance(block, Permutation):
        return block, values
    if block.plain:
        union, node = structural_valued(block, values)
        return union, ops.emit(node)
    out, inn = reshapes(block)
    core = structural_of(ops, replace(block, outer=None, inner=None), values)
    found = ops.multiply(core, (inn, ops.emit(Call("ones", (Const(inn.nnz),)))))
    return ops.multiply((out, ops.emit(Call("ones", (Const(out.nnz),)))), found)


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
    if found.how == "relabel":  # a reshape taken in: the same values
        return found.block, va if isinstance(a, Permutation) else vb
    if found.how == "inverse":  # each the other's inverse: a diagonal
        v, source = _split(va)
        product = BinOp("*", v, _take(_split(vb)[0], source, a.axis))
        shape = found.block.out_shape if isinstance(found.block, Labelled) else (-1,)
        return found.block, ops.emit(_reshaped(product, a.shape, shape))
    if found.how == "left":
        v, source = _split(vb)
        d = _reshaped(_diagonal_node(ops, a, va), a.out_shape, b.shape)
        return found.block, ops.emit(_stack(BinOp("*", d, v), source))
    if found.how == "right":
        v, source = _split(va)
        gathered = _take(
            _reshaped(_diagonal_node(ops, b, vb), b.out_shape, a.shape), source, a.axis
        )
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
    return ops.multiply(structural_of(ops, a, va), structural_of(ops, b, vb))


def _reshaped(node: Node, shape: tuple[int, ...], to: tuple[int, ...]) -> Node:
    return node if tuple(shape) == tuple(to) else Call("reshape", (node, Const(tuple(to))))


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
