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


def _ravel(x: Node) -> Node:
    return Call("reshape", (x, Const((-1,))))


def _needs(index: Namer, what: str) -> Callable[[np.ndarray], Name]:
    if index is None:
        raise InputError(f"{what}: its code needs index arrays")
    return index


def conv_forward(op: ArrayOp, args: Sequence[Node], shapes, index: Namer) -> Node:
    """The convolution: per term the product of its lhs and rhs entries, summed by output."""
    name = _needs(index, op.primitive)
    found = terms(op.params, tuple(shapes[0]), tuple(shapes[1]))
    lhs = Index(_ravel(args[0]), (name(found.lhs),))
    rhs = Index(_ravel(args[1]), (name(found.rhs),))
    size = int(np.prod(found.out_shape))
    total = SegmentSum(BinOp("*", lhs, rhs), name(found.out), size)
    return Call("reshape", (total, Const(tuple(found.out_shape))))


def conv_values(op: ArrayOp, k: int, args: Sequence[Node], shapes, index: Namer) -> Node:
    """∂out/∂(operand k)'s values: the other operand's entries, one per pattern entry."""
    found = conv_of(op, k, [tuple(s) for s in shapes])
    return Index(_ravel(args[1 - k]), (_needs(index, op.primitive)(found.at),))


def pad_forward(op: ArrayOp, args: Sequence[Node], shapes, index: Namer) -> Node:
    """``pad`` with interior or negative padding: a gather of the operand's entries with
    the padding value appended, one index per output entry."""
    source = _pad_sources(op, tuple(shapes[0]))
    value = Call("reshape", (args[1], Const((1,))))
    both = Call("concatenate", (Seq((_ravel(args[0]), value)),))
    taken = Index(both, (_needs(index, "pad")(source.reshape(-1)),))
    return Call("reshape", (taken, Const(tuple(op.shape))))


def _pad_sources(op: ArrayOp, shape: tuple[int, ...]) -> np.ndarray:
    """Per output entry the flat operand index it takes, or the operand's size (the
    padding value)."""
    size = int(np.prod(shape))
    positions = np.arange(size, dtype=float).reshape(shape)
    found = move("pad", op.param, [positions, np.asarray(float(size))], op.shape)
    return np.asarray(found).astype(np.int64)
