"""Generated array code for ``scatter_add_dynamic`` (:mod:`dgraph.blocks.dynamic_scatter`):
its value and its blocks' values in the semantics of its NumPy evaluation; the same text
runs under NumPy and jax.numpy (no in-place update: the updates are summed through the
take's one-hot, a ``where`` so that a dropped update adds an exact zero)."""

from __future__ import annotations

from collections.abc import Sequence

from ...blocks.arrays import ArrayOp
from ...blocks.dynamic_scatter import updates_shape
from ..ir import BinOp, Call, Const, Node
from .dynamic_code import dynamic_value_node, hit_node, raw_positions

__all__ = ["add_forward_node", "add_value_node"]


def add_forward_node(op: ArrayOp, args: Sequence[Node]) -> Node:
    """``x + sum(where(hit, u, 0), axis=-1)``: per result entry, the updates of its fibre
    (the last axis, laid there by ``swapaxes``) that land on it."""
    a, n, size = int(op.param["axis"]), int(op.param["length"]), int(op.param["size"])
    laid = updates_shape(op)
    raw = raw_positions(op, args[1], laid)
    if op.param.get("along"):  # (..., i, ..., o): i at the axis, o last
        ahead = BinOp("==", Call("expand_dims", (raw, Const(-1))), Call("arange", (Const(n),)))
        hit = Call("swapaxes", (ahead, Const(a), Const(-1)))
    else:
        lay = tuple(n if j == a else 1 for j in range(len(op.shape)))
        hit = Call("reshape", (hit_node(raw, n), Const((*lay, size))))
    updates = Call("swapaxes", (Call("expand_dims", (args[2], Const(-1))), Const(a), Const(-1)))
    added = Call("sum", (Call("where", (hit, updates, Const(0.0))),), (("axis", Const(-1)),))
    return BinOp("+", args[0], added)


def add_value_node(op: ArrayOp, k: int, args: Sequence[Node]) -> Node:
    """1 for the base (the identity); the take's one-hot for the updates."""
    if k == 0:
        return Const(1.0)
    return dynamic_value_node(op, args, updates_shape(op))
