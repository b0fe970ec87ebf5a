"""Generated array code for ``scatter_add_dynamic`` (:mod:`dgraph.blocks.dynamic_scatter`):
its value and its blocks' values in the semantics of its NumPy evaluation. Its value
adds the updates by a segment sum (:class:`~dgraph.codegen.ir.SegmentSum`: NumPy's
``bincount``, JAX's ``segment_sum``, a loop in C) over each update's flat position in the
result, O(updates); a dropped update (out of range) adds an exact zero. With ``replace``
the take's one-hot keeps each position's kept update (:func:`last_node`, the last that
lands there: ``max`` over the update numbers that hit it) and a ``where`` keeps ``x``
where none is kept."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ...blocks.arrays import ArrayOp
from ...blocks.dynamic_scatter import updates_shape
from ..ir import AsType, BinOp, Call, Const, Node, SegmentSum
from .dynamic_code import dynamic_value_node, hit_node, positions, raw_positions

__all__ = ["add_forward_node", "add_value_node", "last_node", "segments"]


def _hit(op: ArrayOp, index: Node) -> Node:
    """Whether update o lands on position i: (n, size), or ``along`` (..., i at the axis,
    ..., o last)."""
    a, n = int(op.param["axis"]), int(op.param["length"])
    raw = raw_positions(op, index, updates_shape(op))
    if op.param.get("along"):  # (..., o, ..., i) swapped: i at the axis, o last
        ahead = BinOp("==", Call("expand_dims", (raw, Const(-1))), Call("arange", (Const(n),)))
        return Call("swapaxes", (ahead, Const(a), Const(-1)))
    return hit_node(raw, n)


def last_node(op: ArrayOp, index: Node) -> Node:
    """The update kept at each position (``dynamic_scatter.last_update``): the largest
    update number that lands there, -1 where none does (as floats, which C's ``max``
    takes; exact below 2**24 updates in single precision)."""
    kept = Call("where", (_hit(op, index), _numbers(op), Const(-1.0)))
    return Call("max", (kept,), (("axis", Const(-1)),))


def _won(op: ArrayOp, last: Node) -> Node:
    """Entry [..., o]: whether update o is the one kept at the entry (``last`` with a
    trailing axis against the update numbers; ``reshape``, which C prints)."""
    shape = tuple(op.shape) if op.param.get("along") else (int(op.param["length"]),)
    return BinOp("==", Call("reshape", (last, Const((*shape, 1)))), _numbers(op))


def _trailing(op: ArrayOp, u: Node) -> Node:
    """The updates with their axis moved last and a 1 in its place (``transpose``, which
    C prints, for ``swapaxes``)."""
    a, shape = int(op.param["axis"]), updates_shape(op)
    order = list(range(len(shape) + 1))
    order[a], order[-1] = order[-1], order[a]
    return Call("transpose", (Call("reshape", (u, Const((*shape, 1)))), Const(tuple(order))))


def _numbers(op: ArrayOp) -> Node:
    """The updates' numbers along the axis, 0 to size - 1, as floats."""
    return AsType(Call("arange", (Const(int(op.param["size"])),)), "float")


def _lay(op: ArrayOp) -> tuple[int, ...]:
    """Positions along the axis laid over the result: n at the axis, 1 elsewhere."""
    a, n = int(op.param["axis"]), int(op.param["length"])
    return tuple(n if j == a else 1 for j in range(len(op.shape)))


def add_forward_node(op: ArrayOp, args: Sequence[Node]) -> Node:
    """``x`` plus the updates summed at their positions (:func:`segments`); ``replace``:
    ``where(written, sum(where(kept, u, 0), axis=-1), x)``, per result entry over the
    updates of its fibre (the last axis, laid there by ``swapaxes``)."""
    if op.param.get("replace"):
        size, along = int(op.param["size"]), bool(op.param.get("along"))
        last = last_node(op, args[1])
        won, written = _won(op, last), BinOp(">=", last, Const(0.0))
        if not along:
            won = Call("reshape", (won, Const((*_lay(op), size))))
            written = Call("reshape", (written, Const(_lay(op))))
        updates = _trailing(op, args[2])
        kept = Call("sum", (Call("where", (won, updates, Const(0.0))),), (("axis", Const(-1)),))
        return Call("where", (written, kept, args[0]))
    return BinOp("+", args[0], segments(op, args[1], args[2]))


def segments(op: ArrayOp, index: Node, u: Node, structural: bool = False) -> Node:
    """The updates summed at their positions: with the axis swapped last, the result is
    M rows of n (M the other axes' entries) and update (m, o) lands on flat entry
    m·n + position; out of range, its value is zero (at a position in range). With
    ``structural`` (a take's adjoint), the entries no update lands on are marked
    structural zeros (:class:`~dgraph.codegen.ir.SegmentSum`'s ``hits``)."""
    a, n, size = int(op.param["axis"]), int(op.param["length"]), int(op.param["size"])
    shape = updates_shape(op)
    swapped = [*shape]
    swapped[a], swapped[-1] = swapped[-1], swapped[a]
    m = math.prod(swapped[:-1])
    along = bool(op.param.get("along"))
    at, _, valid = positions(op, index, n, shape if along else None)

    def rows(x: Node) -> Node:  # the axis last, (M, size)
        return Call("reshape", (Call("swapaxes", (x, Const(a), Const(-1))), Const((m, size))))

    spots = rows(at) if along else Call("reshape", (at, Const((1, size))))
    data = rows(Call("broadcast_to", (u, Const(shape))))
    ones = rows(Call("broadcast_to", (Const(1.0), Const(shape))))
    if valid is not None:
        kept = rows(valid) if along else Call("reshape", (valid, Const((1, size))))
        data = Call("where", (kept, data, Const(0.0)))
        ones = Call("where", (kept, ones, Const(0.0)))
    first = BinOp("*", Call("reshape", (Call("arange", (Const(m),)), Const((m, 1)))), Const(n))
    ids = Call("reshape", (AsType(BinOp("+", first, spots), "int"), Const((m * size,))))
    hits = Call("reshape", (ones, Const((m * size,)))) if structural else None
    summed = SegmentSum(Call("reshape", (data, Const((m * size,)))), ids, m * n, hits)
    back = Call("reshape", (summed, Const((*swapped[:-1], n))))
    return Call("swapaxes", (back, Const(a), Const(-1)))


def add_value_node(op: ArrayOp, k: int, args: Sequence[Node]) -> Node:
    """1 for the base (the identity); the take's one-hot for the updates. ``replace``: the
    0/1 mask of the entries that keep ``x`` (the result's shape) and the one-hot of the
    kept updates."""
    if op.param.get("replace"):
        last = last_node(op, args[1])
        if k == 2:
            return Call("where", (_won(op, last), Const(1.0), Const(0.0)))
        keep = Call("where", (BinOp("<", last, Const(0.0)), Const(1.0), Const(0.0)))
        if op.param.get("along"):
            return keep
        laid = Call("reshape", (keep, Const(_lay(op))))
        return Call("broadcast_to", (laid, Const(tuple(op.shape))))
    if k == 0:
        return Const(1.0)
    return dynamic_value_node(op, args, updates_shape(op))
