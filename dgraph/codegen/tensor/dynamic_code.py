"""Generated array code for ``take_dynamic`` (:mod:`dgraph.blocks.dynamic_take`): its
value and its block's one-hot values, in the semantics of its NumPy evaluation; the same
text runs under NumPy and jax.numpy."""

from __future__ import annotations

from collections.abc import Sequence

from ...blocks.arrays import ArrayOp
from ..ir import AsType, BinOp, Call, Const, Node

__all__ = ["dynamic_forward_node", "dynamic_value_node"]


def _positions(op: ArrayOp, index: Node, n: int) -> tuple[Node, Node, Node | None]:
    """The positions read (within the axis), the raw positions the one-hot compares
    (out of range: never a hit) and the in-range mask (None: all in range)."""
    p = op.param
    size = int(p["size"])
    index = AsType(index, "int")
    if p["mode"] == "window":
        start = Call("clip", (Call("reshape", (index, Const(()))), Const(0), Const(n - size)))
        at = BinOp("+", start, Call("arange", (Const(size),)))
        return at, at, None
    flat = Call("reshape", (index, Const((size,))))
    at = Call("clip", (flat, Const(0), Const(n - 1)))
    if p["mode"] == "clip":
        return at, at, None
    valid = BinOp("&", BinOp(">=", flat, Const(0)), BinOp("<", flat, Const(n)))
    return at, flat, valid


def dynamic_forward_node(op: ArrayOp, args: Sequence[Node]) -> Node:
    """``take(x, positions, axis)``, the fill value where a position is out of range."""
    a, shape = int(op.param["axis"]), op.shape
    at, _, valid = _positions(op, args[1], int(op.param["length"]))
    taken = Call("take", (args[0], at), (("axis", Const(a)),))
    if valid is None:
        return taken
    laid = Call("reshape", (valid, Const(tuple(-1 if j == a else 1 for j in range(len(shape))))))
    return Call("where", (laid, taken, Const(float(op.param["fill"]))))


def dynamic_value_node(op: ArrayOp, args: Sequence[Node]) -> Node:
    """The one-hot over (input position, output position) along the axis."""
    n = int(op.param["length"])
    _, raw, _ = _positions(op, args[1], n)
    rows = Call("reshape", (Call("arange", (Const(n),)), Const((n, 1))))
    hit = BinOp("==", rows, Call("reshape", (raw, Const((1, -1)))))
    return Call("where", (hit, Const(1.0), Const(0.0)))
