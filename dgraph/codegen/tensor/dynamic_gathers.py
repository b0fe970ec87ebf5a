"""A take or a scatter-add at positions known only at run time (``take_dynamic``,
``scatter_add_dynamic``: index data ``E[T]``, ``r.at[T].add(v)``, ``argmax`` positions)
swept as what it is: a gather and its transpose, a segment sum.

Its block is the union over every position a call could give
(:func:`~dgraph.blocks.dynamic_take.union_block`: each output row dense along the
taken axis, values a one-hot of the positions), so ``J·v`` through it as a block
product formed the one-hot and multiplied by it: n·size entries per product (a P1
energy's hvp on a 40 × 40 mesh, 1,600 × 9,126 = 14.6 million, 73 ms a call). The map is
linear in its moved operand for fixed positions, so its tangent is the same take of the
tangent (``v[T]``, out of range 0: no derivative flows there), and its adjoint the
scatter-add of the cotangent at the positions (``zeros.at[T].add(w)``), and a
scatter-add's (∂/∂updates) the other way round (Griewank & Walther, *Evaluating
Derivatives*, 2nd ed., SIAM 2008, §3.2: the adjoint of a gather is a scatter-add). Both
are printed from the nodes the operations' values are printed from
(:mod:`.dynamic_code`, :mod:`.dynamic_scatter_code`: ``take``, ``where``, a
:class:`~dgraph.codegen.ir.SegmentSum`), so NumPy, JAX and C print them alike. They
multiply nothing: a sweep prices them at 0.

The dense modes that multiply blocks (a ``jacobian``, a ``hessian``: the products an
elimination prints, :mod:`.blockops`) hold the union block as it is priced, but a product
whose ``einsum`` contracts the one-hot's input position against the other factor (the
output position left free) is that factor gathered at the positions
(:func:`onehot_product`), and one that contracts its output position (the input position
free) the factor's entries summed at them: O(the other factor's entries), not n·size
times them (a P1 energy's Hessian on a 20 × 20 mesh: ``onehot (400, 2166) @ (2166,
400)``, 347 million multiplications, is a segment sum of 866,400 entries).

A take at an ``argsort``'s positions keeps its :class:`~dgraph.blocks.permutation.
Permutation` block (a gather already), a replacing scatter its masks: None, the generic
block products."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ...blocks.array_extra import permutes
from ...blocks.arrays import ArrayOp
from ...blocks.dynamic_scatter import DYNAMIC_ADD, updates_shape
from ...blocks.dynamic_take import DYNAMIC_TAKE
from ..ir import AsType, BinOp, Call, Const, Node, SegmentSum
from .dynamic_code import positions
from .dynamic_scatter_code import segments

__all__ = ["dynamic_adjoint", "dynamic_tangent", "onehot_product", "swept"]

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
        return segments(op, args[1], bar, structural=True)
    return _gather(op, args[1], bar, updates_shape(op))


def onehot_product(
    op: ArrayOp,
    index: Node,
    hot: tuple[str, str, tuple[int, ...]],
    sub: str,
    out: str,
    other: Node,
    shape: tuple[int, ...],
) -> Node | None:
    """``einsum(f"{hot},{sub}->{out}", onehot, other)`` without the one-hot. ``hot`` is
    its input position's letter i along the axis, its output (update) positions'
    letters, whose C order is the position o (one letter over the union block's value
    labels, several where it is read as a dense block), and their sizes; ``other`` the
    other factor's values over ``sub``, of ``shape``. i contracted, o free: ``other``
    taken at the positions along i's axis (0 where out of range); o contracted, i free:
    ``other``'s entries summed at their positions (a segment sum), the letters both keep
    (a triangle's) kept apart; neither contracted and ``other`` read along i (an
    elementwise factor's): ``other`` where the one-hot is 1, else 0 (:func:`_masked`).
    None for anything else: the ``einsum`` as it was (an outer product the elimination
    keeps as a one-hot, :meth:`~.blockops.BlockOps._relaid_onehot`)."""
    i, group, group_sizes = hot
    if i in group or len(set(sub)) != len(sub) or len(set(group)) != len(group) or not sub:
        return None
    n, size = int(op.param["length"]), int(op.param["size"])
    if math.prod(group_sizes) != size:
        return None
    at, _, valid = positions(op, index, n)
    if i in sub and i in out and set(group) <= set(out) and len(set(out)) == len(out):
        sizes = (
            {c: shape[sub.index(c)] for c in sub}
            | {i: n}
            | dict(zip(group, group_sizes, strict=True))
        )
        return _masked((at, valid, i, group), sub, out, other, sizes)
    if i in sub and i not in out and not set(group) & set(sub):  # a gather: o takes i's place
        axis = sub.index(i)
        spots = at if len(group) == 1 else Call("reshape", (at, Const(tuple(group_sizes))))
        taken: Node = Call("take", (other, spots), (("axis", Const(axis)),))
        moved = sub.replace(i, group)
        if valid is not None:
            lay = (*(1 for _ in sub[:axis]), *group_sizes, *(1 for _ in sub[axis + 1 :]))
            taken = Call("where", (Call("reshape", (valid, Const(lay))), taken, Const(0.0)))
        return taken if moved == out else Call("einsum", (Const(f"{moved}->{out}"), taken))
    if i in sub or i not in out or not set(group) <= set(sub) or not set(out) - {i} <= set(sub):
        return None
    kept = "".join(c for c in sub if c in out or c in group)  # the letters the sum keeps
    data: Node = other if kept == sub else Call("einsum", (Const(f"{sub}->{kept}"), other))
    sizes = {c: shape[sub.index(c)] for c in sub}
    width = {c: (n if c == i else sizes[c]) for c in out}
    strides = {c: math.prod(width[d] for d in out[k + 1 :]) for k, c in enumerate(out)}

    def laid(c: str) -> tuple[int, ...]:
        return tuple(sizes[c] if d == c else 1 for d in kept)

    ids: Node = BinOp("*", _laid_positions(at, group, kept, sizes), Const(strides[i]))
    for c in out:
        if c != i:
            lane = Call("reshape", (Call("arange", (Const(sizes[c]),)), Const(laid(c))))
            ids = BinOp("+", ids, BinOp("*", lane, Const(strides[c])))
    whole = tuple(sizes[c] for c in kept)
    ones: Node = Const(1.0)
    if valid is not None:
        mask = _laid_positions(valid, group, kept, sizes)
        data = Call("where", (mask, data, Const(0.0)))
        ones = Call("where", (mask, ones, Const(0.0)))
    count = math.prod(whole)
    flat_ids = Call(
        "reshape", (AsType(Call("broadcast_to", (ids, Const(whole))), "int"), Const((count,)))
    )
    flat = Call("reshape", (Call("broadcast_to", (data, Const(whole))), Const((count,))))
    hits = Call("reshape", (Call("broadcast_to", (ones, Const(whole))), Const((count,))))
    summed = SegmentSum(flat, flat_ids, math.prod(width.values()), hits)
    return Call("reshape", (summed, Const(tuple(width[c] for c in out))))


def _masked(
    hot: tuple[Node, Node | None, str, str], sub: str, out: str, other: Node, sizes: dict
) -> Node:
    """A product that contracts nothing of the one-hot: ``other`` (its letters not in
    ``out`` summed) where the position along i is the one taken, else 0, as a ``where``
    and not a product with the one-hot, so that a NaN or an infinity of ``other`` at a
    position not taken gives 0, as the gather it is (``sqrt(clip(z, 0))[argmax(z)]``'s
    Jacobian: ∞·0 at a clipped entry, not taken)."""
    at, valid, i, group = hot
    kept = "".join(c for c in out if c in sub)
    data = other if kept == sub else Call("einsum", (Const(f"{sub}->{kept}"), other))
    whole = tuple(sizes[c] for c in out)
    data = Call("reshape", (data, Const(tuple(sizes[c] if c in kept else 1 for c in out))))
    lane = Call("arange", (Const(sizes[i]),))
    lane = Call("reshape", (lane, Const(tuple(sizes[i] if c == i else 1 for c in out))))
    taken: Node = BinOp("==", lane, _laid_positions(at, group, out, sizes))
    if valid is not None:
        taken = Call("logical_and", (taken, _laid_positions(valid, group, out, sizes)))
    return Call("where", (Call("broadcast_to", (taken, Const(whole))), data, Const(0.0)))


def _laid_positions(at: Node, group: str, kept: str, sizes: dict[str, int]) -> Node:
    """The positions (or their mask), over ``group``'s letters in C order, laid along
    ``kept``'s axes (1 along the others)."""
    shaped = Call("reshape", (at, Const(tuple(sizes[c] for c in group))))
    order = sorted(range(len(group)), key=lambda k: kept.index(group[k]))
    if order != list(range(len(group))):
        shaped = Call("transpose", (shaped, Const(tuple(order))))
    return Call("reshape", (shaped, Const(tuple(sizes[c] if c in group else 1 for c in kept))))
