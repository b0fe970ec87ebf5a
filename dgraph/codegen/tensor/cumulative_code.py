"""``cumprod`` and ``cumlogsumexp`` (:mod:`dgraph.blocks.cumulative`) as array statements:
the same formulas over calls of the array module (``cumprod``, ``logaddexp.accumulate``,
``where``, ...), so that NumPy and JAX print them; the C values print ``cumprod`` and
``logaddexp.accumulate`` as running loops (:mod:`dgraph.codegen.tensor.c_values`)."""

from __future__ import annotations

from collections.abc import Sequence

from ...blocks.cumulative import cumulative_value, forward
from ..ir import BinOp, Call, Const, Index, Node, Seq, Slice
from . import linalg_code

__all__ = ["cumulative_forward", "cumulative_values"]

_LAST = (("axis", Const(-1)),)


class IROps(linalg_code.IROps):
    """The array vocabulary of :mod:`dgraph.blocks.cumulative`'s formulas, as IR nodes:
    :mod:`.linalg_code`'s (``where``, ``sub``, ``mul``, ``arange``) and the calls of
    cumulative operations."""

    @staticmethod
    def moveaxis(a: Node, source: int, target: int) -> Node:
        return Call("moveaxis", (a, Const(source), Const(target)))

    @staticmethod
    def expand_dims(a: Node, axis: int) -> Node:
        return Call("expand_dims", (a, Const(axis)))

    @staticmethod
    def flip(a: Node, axis: int) -> Node:
        return Call("flip", (a, Const(axis)))

    @staticmethod
    def cumprod(a: Node) -> Node:
        return Call("cumprod", (a,), _LAST)

    @staticmethod
    def logaddexp_accumulate(a: Node) -> Node:
        return Call("logaddexp.accumulate", (a,), _LAST)

    @staticmethod
    def exp(a: Node) -> Node:
        return Call("exp", (a,))

    @staticmethod
    def ones(shape: tuple[int, ...]) -> Node:
        return Call("ones", (Const(tuple(shape)),))

    @staticmethod
    def concatenate(a: Node, b: Node) -> Node:
        return Call("concatenate", (Seq((a, b)),), _LAST)

    @staticmethod
    def head(a: Node) -> Node:
        return Index(a, (Const(Ellipsis), Slice(None, -1, None)))

    @staticmethod
    def less_equal(a: Node, b: Node) -> Node:
        return BinOp("<=", a, b)

    @staticmethod
    def less(a: Node, b: Node) -> Node:
        return BinOp("<", a, b)


def cumulative_forward(op, args: Sequence[Node]) -> Node:
    """``op``'s value as one expression (:func:`~dgraph.blocks.cumulative.forward`)."""
    return forward(op, args, IROps)


def cumulative_values(op, args: Sequence[Node]) -> Node:
    """The block's values (:func:`~dgraph.blocks.cumulative.cumulative_value`)."""
    return cumulative_value(op, args, IROps)
