"""Generated array code for ``take_dynamic`` (:mod:`dgraph.blocks.dynamic_take`): its
value and its block's one-hot values, in the semantics of its NumPy evaluation; the same
text runs under NumPy and jax.numpy."""

from __future__ import annotations

from collections.abc import Sequence

from ...blocks.arrays import ArrayOp
from ..ir import AsType, BinOp, Call, Const, Node

__all__ = ["dynamic_forward_node", "dynamic_value_node", "hit_node", "positions", "raw_positions"]


def positions(
    op: ArrayOp, index: Node, n: int, laid: tuple[int, ...] | None = None
) -> tuple[Node, Node, Node | None]:
    """The positions read (within the axis), the raw positions the one-hot compares
    (out of range: never a hit) and the in-range mask (None: all in range); ``laid``: the
    positions' shape where ``along`` (the output's unless given)."""
    p = op.param
    size = int(p["size"])
    index = AsType(index, "int")
    if p["mode"] == "window":
        start = Call("clip", (Call("reshape", (index, Const(()))), Const(0), Const(n - size)))
        at = BinOp("+", start, Call("arange", (Const(size),)))
        return at, at, None
    shape = (laid or op.shape) if p.get("along") else (size,)
    flat = Call("reshape", (index, Const(tuple(shape))))
    at = Call("clip", (flat, Const(0), Const(n - 1)))
    if p["mode"] == "clip":
        return at, at, None
    valid = Call("logical_and", (BinOp(">=", flat, Const(0)), BinOp("<", flat, Const(n))))
    return at, flat, valid


def dynamic_forward_node(op: ArrayOp, args: Sequence[Node]) -> Node:
    """``take(x, positions, axis)``, the fill value where a position is out of range."""
    a, shape = int(op.param["axis"]), op.shape
    at, _, valid = positions(op, args[1], int(op.param["length"]))
    along = bool(op.param.get("along"))
    taken = Call("take_along_axis" if along else "take", (args[0], at), (("axis", Const(a)),))
    if valid is None:
        return taken
    lay = tuple(-1 if j == a else 1 for j in range(len(shape)))
    laid = valid if along else Call("reshape", (valid, Const(lay)))
    return Call("where", (laid, taken, Const(float(op.param["fill"]))))


def dynamic_value_node(
    op: ArrayOp, args: Sequence[Node], laid: tuple[int, ...] | None = None
) -> Node:
    """The one-hot over (input position, output position) along the axis (``laid``: the
    positions' shape where ``along``, the output's unless given)."""
    n, a = int(op.param["length"]), int(op.param["axis"])
    _, raw, _ = positions(op, args[1], n, laid)
    if op.param.get("along"):  # (..., o, ..., i), i and o swapped: i at the axis, o last
        ahead = Call("expand_dims", (raw, Const(-1)))
        hit = BinOp("==", ahead, Call("arange", (Const(n),)))
        return Call("swapaxes", (Call("where", (hit, Const(1.0), Const(0.0))), Const(a), Const(-1)))
    return Call("where", (hit_node(raw, n), Const(1.0), Const(0.0)))


def hit_node(raw: Node, n: int) -> Node:
    """Entry [i, o]: whether position o (raw: out of range never hits) is i, i < n."""
    rows = Call("reshape", (Call("arange", (Const(n),)), Const((n, 1))))
    return BinOp("==", rows, Call("reshape", (raw, Const((1, -1)))))


def raw_positions(op: ArrayOp, index: Node, laid: tuple[int, ...]) -> Node:
    """The positions a one-hot compares (out of range: never a hit), of shape ``laid``
    where ``along``."""
    return positions(op, index, int(op.param["length"]), laid)[1]
