"""Gathers and scatters at constant positions (:mod:`dgraph.blocks.scatter`) as array
statements: elementwise expressions of gathers ``ravel(a)[K]`` at constant positions, so
that NumPy, JAX (no in-place update) and the C/CUDA printers read the same statements.

* ``gather_flat``: ``ravel(x)[K]``, K of the result's shape;
* ``scatter``: onto every position, the gather ``ravel(u)[K]`` of the winning updates;
  onto some, where the updates read an input, x with those positions cleared plus the
  winners added there (:func:`_set`: nothing of the result's size gathered or compared);
  where the updates are constants, ``where(L < 0, x, ravel(u)[K])``: the gather reads
  constants only, folded at generation (a constant of the result's shape), and the
  ``where`` under a constant mask is what the later passes fold (:mod:`.numpy_pad`'s
  pad and in-place box writes, :mod:`.jax_moves`'s composed gathers);
* ``scatter_add``: an :class:`~dgraph.codegen.ir.ScatterAdd` of the updates onto x, one
  part per layer (:func:`layers`: the s-th update aimed at each position), or x plus a
  :class:`~dgraph.codegen.ir.SegmentSum` of them beyond :data:`MOST_PARTS` layers; only
  where every position takes exactly one update the gather ``x + ravel(u)[K]``. A
  gather over every position with the untouched ones clamped to an update costs the
  whole result per layer, and its transpose (JAX's ``grad`` of the primal) piles every
  untouched position onto that update: as many layers as positions;
* ``scatter_mul``/``_min``/``_max``: x combined with one such gather per layer of updates
  (:func:`~dgraph.blocks.scatter.slots`), the positions with fewer reading a neutral
  entry (1, or x itself);
* the block values of ``scatter_mul`` (the product of the updates at each position,
  x at each update's target) and ``scatter_min``/``_max`` (each value equal to the result
  gets an equal share) from the same gathers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from ...blocks import ONES, Block, Labelled, arrays
from ...blocks.scatter import COMBINE, positions, slots
from ...errors import InputError
from ..ir import BinOp, Call, Const, Index, Node, ScatterAdd, SegmentSum, Slice

__all__ = ["MOST_PARTS", "layers", "scatter_forward", "scatter_values", "take_forward"]

MOST_PARTS = 8
"""The most layers of a ``scatter_add`` written as the parts of one ``ScatterAdd`` (the
sums in the gathers' order, bit for bit); beyond, one ``SegmentSum`` of the updates."""

Indexer = Callable[[np.ndarray], Node]
Emit = Callable[[Node], Node]
_NEUTRAL = {"scatter_add": 0.0, "scatter_mul": 1.0}
_JOIN = {"scatter_min": "minimum", "scatter_max": "maximum"}


def _flat(x: Node) -> Node:
    return Call("ravel", (x,))


def _positions(op) -> np.ndarray:
    return positions(op, "targets" if op.primitive in COMBINE else "sources")


def _pick(op, chosen: np.ndarray, source: Node, other: Node, index: Indexer) -> Node:
    """Per entry of the result, ``source``'s flat entry ``chosen`` where it is >= 0,
    else ``other``'s entry: a gather of the result's shape under a ``where``."""
    out = tuple(op.shape)
    picked = Index(_flat(source), (index(np.maximum(chosen, 0).reshape(out)),))
    if (chosen >= 0).all():
        return picked
    missing = BinOp("<", index(np.minimum(chosen, 0).reshape(out)), Const(0))
    return Call("where", (missing, other, picked))


def _layers(op, args: Sequence[Node], shapes, index: Indexer) -> list[Node]:
    """Per layer of updates, an array of the result's shape: the s-th update aimed at
    each position, or the neutral entry (0, 1, or x itself for min and max)."""
    name = op.primitive
    neutral = Const(_NEUTRAL[name]) if name in _NEUTRAL else args[0]
    n = math.prod(shapes[0])
    return [_pick(op, layer, args[1], neutral, index) for layer in slots(_positions(op), n)]


def layers(targets: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """The updates in layers, as (positions, updates) in update order: layer s holds each
    position's s-th update, so each position is there at most once a layer —
    :func:`~dgraph.blocks.scatter.slots` without an array of the result's size a layer."""
    valid = np.nonzero(targets >= 0)[0]
    order = valid[np.argsort(targets[valid], kind="stable")]
    t = targets[order]
    rank = np.arange(t.size) - np.searchsorted(t, t, side="left")
    found = []
    for s in range(int(rank.max()) + 1 if t.size else 0):
        u = np.sort(order[rank == s])
        found.append((targets[u], u))
    return found


def _gathered(targets: np.ndarray, n: int) -> bool:
    """Whether every one of the ``n`` positions takes exactly one update (a permutation
    of them): the one case a gather of the result's shape reads no clamped position."""
    return targets.size == n and np.array_equal(np.sort(targets), np.arange(n))


def _updates(data: Node, u: np.ndarray, size: int, index: Indexer) -> Node:
    """The flat updates ``data`` (``size`` of them) numbered ``u`` (ascending): all of
    them, or a slice where they run on, without an index array."""
    if u.size == size:
        return data
    if u.size and u[-1] - u[0] == u.size - 1:
        return Index(data, (Slice(int(u[0]), int(u[-1]) + 1),))
    return Index(data, (index(u),))


def _added(op, args: Sequence[Node], index: Indexer, emit: Emit | None) -> Node:
    """``scatter_add`` as updates added onto x at their positions (module docstring)."""
    targets, out = _positions(op), tuple(op.shape)
    found = layers(targets)
    data = _flat(args[1])
    if len(found) <= MOST_PARTS:
        parts = tuple((index(at), _updates(data, u, targets.size, index)) for at, u in found)
        node: Node = ScatterAdd(_flat(args[0]), parts)
    else:
        valid = np.nonzero(targets >= 0)[0]
        updates = _updates(data, valid, targets.size, index)
        summed = SegmentSum(updates, index(targets[valid]), math.prod(out))
        node = BinOp("+", _flat(args[0]), emit(summed) if emit else summed)
    return Call("reshape", (emit(node) if emit else node, Const(out)))


def _set(op, chosen: np.ndarray, args: Sequence[Node], size: int, index: Indexer, emit) -> Node:
    """``scatter`` onto some of the positions: x with them cleared (a constant mask, so a
    NaN or inf overwritten there does not leak) plus the winning updates (of ``size``)
    added there, one part of a :class:`~dgraph.codegen.ir.ScatterAdd` (each target
    once). Cleared to -0.0: ``-0.0 + u`` is ``u`` bit for bit (a signed zero too), so the
    values are :func:`_pick`'s without a compare or a gather of the result's size."""
    targets = np.flatnonzero(chosen >= 0)
    if not targets.size:
        return args[0]
    keep = chosen < 0  # boolean: JAX's where reads it without a compare
    cleared = Call("where", (index(keep), _flat(args[0]), Const(-0.0)))
    won = chosen[targets]
    if won.size > 1 and (np.diff(won) <= 0).any():  # not ascending: no slice of them
        winners: Node = Index(_flat(args[1]), (index(won),))
    else:
        winners = _updates(_flat(args[1]), won, size, index)
    node: Node = ScatterAdd(cleared, ((index(targets), winners),))
    return Call("reshape", (emit(node) if emit else node, Const(tuple(op.shape))))


def _constant(x: object) -> bool:
    """Whether an operand reads no vertex: a constant, or a nested operation of
    constants alone."""
    pending = [x]
    while pending:
        y = pending.pop()
        if isinstance(y, arrays.ArrayOp):
            pending.extend(y.operands)
        elif not isinstance(y, arrays.Const):
            return False
    return True


def scatter_forward(
    op, args: Sequence[Node], shapes, index: Indexer, emit: Emit | None = None
) -> Node:
    """The operation's result as an expression of gathers, or for ``scatter_add`` of the
    updates added at their positions; ``emit`` (if given) names a part as a statement."""
    name = op.primitive
    if name == "gather_flat":
        return Index(_flat(args[0]), (index(_positions(op).reshape(op.shape)),))
    if name == "scatter":
        chosen = _positions(op)
        if (chosen >= 0).all() or _constant(op.operands[1]):
            return _pick(op, chosen, args[1], args[0], index)
        return _set(op, chosen, args, math.prod(shapes[1]), index, emit)
    if name == "scatter_add" and not _gathered(_positions(op), math.prod(shapes[0])):
        return _added(op, args, index, emit)
    node = args[0]
    for part in _layers(op, args, shapes, index):
        if name in _JOIN:
            node = Call(_JOIN[name], (node, part))
        else:
            node = BinOp("+" if name == "scatter_add" else "*", node, part)
    return node


def take_forward(op, x: Node, shape: tuple[int, ...], index: Indexer) -> Node:
    """``take`` (constant indices along one axis) as a gather of flat positions."""
    positions = np.arange(math.prod(shape)).reshape(shape)
    at = np.take(positions, np.asarray(op.param["indices"], dtype=np.int64), op.param["axis"])
    return Index(_flat(x), (index(at),))


def _landing(op) -> tuple[np.ndarray, np.ndarray]:
    t = _positions(op)
    cols = np.nonzero(t >= 0)[0]
    order = np.lexsort((cols, t[cols]))
    return t[cols][order], cols[order]


def scatter_values(
    op,
    k: int,
    block: Block,
    args: Sequence[Node],
    shapes,
    emit: Callable[[Node], Node],
    index: Indexer | None,
) -> Node:
    """The values of ∂op/∂(operand k), as :func:`dgraph.blocks.scatter.values` gives
    them (C order over a diagonal's labels, one per entry of a sparse block)."""
    if block.kind == ONES:
        return Const(1.0) if isinstance(block, Labelled) else Call("ones", (Const(block.nnz),))
    if index is None:
        raise InputError(f"{op.primitive}: its block values need the module's index arrays")
    name, out = op.primitive, tuple(op.shape)
    rows, cols = _landing(op)
    if name == "scatter_mul":
        if k == 1:
            return Index(_flat(args[0]), (index(rows),))
        node: Node = Call("full", (Const(out), Const(1.0)))
        for part in _layers(op, args, shapes, index):
            node = BinOp("*", node, part)
        return node
    result = emit(scatter_forward(op, args, shapes, index))
    kept = Call("where", (BinOp("==", args[0], result), Const(1.0), Const(0.0)))
    kept = emit(kept)
    shares: Node = kept
    n = math.prod(shapes[0])
    for layer, part in zip(slots(_positions(op), n), _layers(op, args, shapes, index), strict=True):
        equal = Call("where", (BinOp("==", part, result), Const(1.0), Const(0.0)))
        valid = BinOp(">=", index(layer.reshape(out)), Const(0))
        shares = BinOp("+", shares, Call("where", (valid, equal, Const(0.0))))
    shares = emit(shares)
    if k == 0:
        return BinOp("/", kept, shares)
    won = BinOp("==", Index(_flat(args[1]), (index(cols),)), Index(_flat(result), (index(rows),)))
    return BinOp(
        "/", Call("where", (won, Const(1.0), Const(0.0))), Index(_flat(shares), (index(rows),))
    )
