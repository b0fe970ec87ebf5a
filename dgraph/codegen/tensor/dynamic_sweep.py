"""A take or a scatter-add at positions known only at run time (``take_dynamic``,
``scatter_add_dynamic``: index data ``E[T]``, ``r.at[T].add(v)``, ``argmax`` positions)
swept as what it is: a gather and its transpose, a segment sum.

Its block is the union over every position a call could give
(:func:`~dgraph.blocks.dynamic_take.union_block`: each output row dense along the
taken axis, values a one-hot of the positions), so ``J·v`` through it as a block
product formed the one-hot and multiplied by it: n·size entries per product (a P1
energy's hvp on a 40 × 40 mesh, 1,600 × 9,126 = 14.6 million, 80 ms a call). The map is
linear in its moved operand for fixed positions, so its tangent is the same take of the
tangent (``v[T]``, out of range 0: no derivative flows there), and its adjoint the
scatter-add of the cotangent at the positions (``zeros.at[T].add(w)``), and a
scatter-add's (∂/∂updates) the other way round (Griewank & Walther, *Evaluating
Derivatives*, 2nd ed., SIAM 2008, §3.2: the adjoint of a gather is a scatter-add). Both
are printed from the nodes the operations' values are printed from
(:mod:`.dynamic_code`, :mod:`.dynamic_scatter_code`: ``take``, ``where``, a
:class:`~dgraph.codegen.ir.SegmentSum`), so NumPy, JAX and C print them alike. They
multiply nothing: a sweep prices them at 0.

A take at an ``argsort``'s positions keeps its :class:`~dgraph.blocks.permutation.
Permutation` block (a gather already), a replacing scatter its masks: None, the generic
block products."""

from __future__ import annotations

from collections.abc import Sequence

from ...blocks.array_extra import permutes
from ...blocks.arrays import ArrayOp
from ...blocks.dynamic_scatter import DYNAMIC_ADD, updates_shape
from ...blocks.dynamic_take import DYNAMIC_TAKE
from ..ir import Call, Const, Node
from .dynamic_code import positions
from .dynamic_scatter_code import segments

__all__ = ["dynamic_adjoint", "dynamic_tangent", "swept"]

#: the operand each operation moves (the taken array, the updates)
_MOVED = {DYNAMIC_TAKE: 0, DYNAMIC_ADD: 2}


def swept(op: ArrayOp | None, k: int, shapes: Sequence[tuple[int, ...]]) -> bool:
    """Whether ∂op/∂(operand k) is swept as a gather or a segment sum here: the moved
    operand of a take or a (not replacing) scatter-add, not at an ``argsort``'s
    positions, of the shape the operation moves (``shapes``: the operands'; a
    broadcast update keeps the block products)."""
    if op is None or op.primitive not in _MOVED or k != _MOVED[op.primitive]:
        return False
    if op.param.get("replace") or permutes(op, k):
        return False
    return tuple(shapes[k]) == _moved_shape(op)


def _moved_shape(op: ArrayOp) -> tuple[int, ...]:
    """The shape of the operand moved: the taken array (the output's with ``length``
    along the axis) or the updates."""
    if op.primitive == DYNAMIC_ADD:
        return updates_shape(op)
    a, n = int(op.param["axis"]), int(op.param["length"])
    return tuple(n if j == a else m for j, m in enumerate(op.shape))


def _gather(op: ArrayOp, index: Node, x: Node, laid: tuple[int, ...]) -> Node:
    """``x`` taken at the positions along the axis (``laid``: the positions' shape where
    ``along``), 0 where a position is out of range (``"fill"``: no derivative there)."""
    a = int(op.param["axis"])
    n = int(op.param["length"])
    along = bool(op.param.get("along"))
    at, _, valid = positions(op, index, n, laid)
    taken = Call("take_along_axis" if along else "take", (x, at), (("axis", Const(a)),))
    if valid is None:
        return taken
    lay = tuple(-1 if j == a else 1 for j in range(len(laid)))
    mask = valid if along else Call("reshape", (valid, Const(lay)))
    return Call("where", (mask, taken, Const(0.0)))


def dynamic_tangent(op: ArrayOp, args: Sequence[Node], dot: Node) -> Node:
    """J·v for the moved operand's tangent ``dot`` (an array of its shape): the take of
    ``dot`` (a take), or ``dot`` summed at the positions into zeros (a scatter-add)."""
    if op.primitive == DYNAMIC_TAKE:
        return _gather(op, args[1], dot, tuple(op.shape))
    return segments(op, args[1], dot)


def dynamic_adjoint(op: ArrayOp, args: Sequence[Node], bar: Node) -> Node:
    """wᵀ·J for the output's cotangent ``bar`` (an array of its shape): ``bar`` summed
    at the positions into zeros of the taken array's shape (a take), or taken at them
    (a scatter-add's updates)."""
    if op.primitive == DYNAMIC_TAKE:
        return segments(op, args[1], bar)
    return _gather(op, args[1], bar, updates_shape(op))
