"""``conv_general_dilated`` and the general ``pad`` as array statements, every target
alike: gathers of constant index arrays (:mod:`dgraph.blocks.convolution`'s terms) and a
segment sum, which the NumPy, JAX, C and CUDA printers all print."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ...blocks.arrays import ArrayOp, move
from ...blocks.convolution import conv_of, terms
from ...errors import InputError
from ..ir import BinOp, Call, Const, Index, Name, Node, SegmentSum, Seq

__all__ = ["conv_forward", "conv_values", "pad_forward"]

Namer = Callable[[np.ndarray], Name] | None
Emitter = Callable[[Node], Node] | None


def _ravel(x: Node) -> Node:
    return Call("reshape", (x, Const((-1,))))


def _needs(index: Namer, emit: Emitter, what: str) -> tuple[Callable, Callable]:
    if index is None or emit is None:
        raise InputError(f"{what}: its code needs index arrays")
    return index, emit


def conv_forward(op: ArrayOp, args: Sequence[Node], shapes, index: Namer, emit: Emitter) -> Node:
    """The convolution: per term the product of its lhs and rhs entries, summed by output
    (the sum a statement of its own, so that its reshape is a view in C)."""
    name, assign = _needs(index, emit, op.primitive)
    found = terms(op.params, tuple(shapes[0]), tuple(shapes[1]))
    lhs = Index(_ravel(args[0]), (name(found.lhs),))
    rhs = Index(_ravel(args[1]), (name(found.rhs),))
    size = int(np.prod(found.out_shape))
    total = assign(SegmentSum(BinOp("*", lhs, rhs), name(found.out), size))
    return Call("reshape", (total, Const(tuple(found.out_shape))))


def conv_values(op: ArrayOp, k: int, args: Sequence[Node], shapes, index: Namer) -> Node:
    """∂out/∂(operand k)'s values: the other operand's entries, one per pattern entry."""
    if index is None:
        raise InputError(f"{op.primitive}: its code needs index arrays")
    found = conv_of(op, k, [tuple(s) for s in shapes])
    return Index(_ravel(args[1 - k]), (index(found.at),))


def pad_forward(op: ArrayOp, args: Sequence[Node], shapes, index: Namer, emit: Emitter) -> Node:
    """``pad`` with interior or negative padding: a gather, one index per output entry
    (of the result's shape), from the operand's entries with the padding value appended."""
    name, assign = _needs(index, emit, "pad")
    size = int(np.prod(shapes[0]))
    positions = np.arange(size, dtype=float).reshape(shapes[0])
    source = move("pad", op.param, [positions, np.asarray(float(size))], op.shape)
    value = Call("reshape", (args[1], Const((1,))))
    both = assign(Call("concatenate", (Seq((_ravel(args[0]), value)),)))
    return Index(both, (name(np.asarray(source).astype(np.int64)),))
