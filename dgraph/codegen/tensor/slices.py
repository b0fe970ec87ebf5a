"""The large arrays of an array program evaluated a slice of rows at a time.

The Hessian of ``Σ c·eigvalsh(D + 0.1 x xᵀ)`` differentiates the eigenvectors along each
of the n inputs at once: a run of statements over arrays of n × n × n entries (each
direction's n × n matrix, stacked), entered from arrays of n² entries and left through
contractions back to n² (``einsum('abc,bc->ac', ...)``). Every such statement computes
row a of its result from row a of the stacked arrays alone (and from arrays that are
not stacked, read whole), so the run can be evaluated for rows ``a0 .. a1`` alone, one
slice after another, with the arrays that leave the run joined from their slices: the
memory of each stacked array is then its slice's, and grows as n² rather than n³.

:func:`plan` finds such runs (*regions*) in the statements a cancellation pass evaluates
(:mod:`.cancel`) and in those of the generated code (:mod:`.slice_loops`): from a
statement whose result has more than :data:`CHUNK_FROM` entries, the statements after
it that read the region's arrays are taken in where each can be restricted to a slice
of its leading axis (:func:`_Restrict`); one that reads them and cannot (a gather of an
n × n contraction the region leaves through), and every statement that reads its
result, is evaluated after the region, which goes on past it (so the n³ array the
contraction read is not joined whole for it); a statement that reads none of them is
evaluated before the region, as it would be after (it reads nothing the region makes).
A region's statement is rewritten once, for slices of :attr:`Region.rows` rows:

- a name the region makes is its slice (every region array is stacked along axis 0, its
  axis 0 cut into :attr:`Region.blocks` equal blocks, a slice being ``rows`` of them);
- a name made before it, read along an axis that follows the slice (an elementwise
  operand of the same extent there, an ``einsum`` operand holding the sliced letter, a
  batch axis of a ``matmul``), is sliced there (a view);
- an elementwise operation, an ``einsum``, a batched ``matmul``, a ``reshape`` and a
  ``ravel`` that keep axis 0's blocks, a ``transpose`` and a scatter-add into a stacked
  vector (its positions in the slice and their data kept, in their order) are restricted
  operand by operand;
- a subexpression that reads nothing the region makes and needs no slice (an eigen
  decomposition of the n × n matrix, the scale of the eigenvalues' differences) is
  evaluated once, before the slices, as a statement of its own.

Each slice's operations are the same operations on the same entries as the whole
array's, so the values are those of the whole evaluation (a batched ``matmul`` is one
matrix product per stacked matrix either way); with error bounds (:mod:`~..bounds`)
a slice's bound is its own entries' (one bound a statement: the largest of the slices'),
no smaller than their errors.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..array_passes import node_shapes
from ..bounds import Bounded, Scalar, bound_of, plain
from ..ir import (
    ArrayStatement,
    BinOp,
    Call,
    Const,
    Formula,
    Name,
    Node,
    ScatterAdd,
    UnaryOp,
    names_in,
)

__all__ = ["CHUNK_ENTRIES", "CHUNK_FROM", "Region", "joined", "plan", "slice_env"]

# a statement whose result has more entries than this starts a region (8 MB of doubles)
CHUNK_FROM = 2**20
# the most entries of a slice of a region's largest array: a slice takes the most rows
# that divide the blocks and keep it at most this (at least one block)
CHUNK_ENTRIES = 2**18

_ELEMENTWISE_CALLS = frozenset(
    {
        "exp", "log", "log1p", "expm1", "sin", "cos", "tan", "tanh", "sinh", "cosh",
        "sqrt", "abs", "negative", "square", "reciprocal", "sign", "arctan", "arcsin",
        "arccos", "arctanh", "arcsinh", "arccosh", "add", "subtract", "multiply",
        "divide", "power", "maximum", "minimum", "where",
    }
)  # fmt: skip


@dataclass
class Region:
    """Statements evaluated a slice at a time (the module docstring): ``statements``
    rewritten for a slice of ``rows`` of the ``blocks`` blocks of axis 0 (their targets
    the original ones), ``once`` the subexpressions evaluated before the slices (new
    statements), ``slices``: per name made for a slice, how (:func:`slice_env`),
    ``exits``: the targets read after the region (joined from their slices) with their
    whole shapes, ``last``: per name a rewritten statement reads, the last one that does
    (its slice let go after it), ``indices``: the original statements' indices."""

    indices: list[int]
    statements: list[ArrayStatement]
    once: list[ArrayStatement]
    slices: dict[str, tuple]
    exits: dict[str, tuple[int, ...]]
    blocks: int
    rows: int
    last: dict[str, int] = field(default_factory=dict)


class _Fail(Exception):
    """A node not restricted to a slice."""


def _size(shape: Any) -> int:
    if not isinstance(shape, tuple) or not all(isinstance(d, int) for d in shape):
        return 0
    return math.prod(shape)


def _rows(blocks: int, block_entries: int) -> int:
    """The most rows (blocks) dividing ``blocks`` whose entries stay within
    :data:`CHUNK_ENTRIES` (at least 1)."""
    most = max(1, CHUNK_ENTRIES // max(1, block_entries))
    for rows in range(min(most, blocks), 0, -1):
        if blocks % rows == 0:
            return rows
    return 1


class _Restrict:
    """Rewrites a statement's node to compute its slice (the module docstring)."""

    def __init__(
        self,
        named: Mapping[str, Any],
        inside: dict[str, tuple],
        blocks: int,
        rows: int,
        slices: dict[str, tuple],
        once: list[ArrayStatement],
        fresh: Callable[[str], str],
    ) -> None:
        self.named, self.inside, self.blocks, self.rows = named, inside, blocks, rows
        self.slices, self.once, self.fresh = slices, once, fresh

    def statement(self, s: ArrayStatement) -> ArrayStatement:
        """``s`` for a slice of axis 0 (its result stacked along axis 0)."""
        self.found = node_shapes(s.value, self.named)
        shape = self.found.get(id(s.value))
        if not self._blocked(shape, 0):
            raise _Fail
        return ArrayStatement(s.target, self.node(s.value, 0))

    def _shape(self, node: Node) -> tuple:
        shape = self.found.get(id(node))
        if not isinstance(shape, tuple) or not all(isinstance(d, int) for d in shape):
            raise _Fail
        return shape

    def _blocked(self, shape: Any, axis: int) -> bool:
        return (
            isinstance(shape, tuple)
            and len(shape) > axis
            and isinstance(shape[axis], int)
            and shape[axis] % self.blocks == 0
            and shape[axis] > 0
        )

    def _reads_inside(self, node: Node) -> bool:
        return any(n in self.inside for n in names_in(node))

    def _whole(self, node: Node) -> Node:
        """``node``, read whole by every slice: evaluated once where it computes anything."""
        if self._reads_inside(node):
            raise _Fail
        if isinstance(node, (Name, Const)):
            return node
        name = self.fresh("once")
        self.once.append(ArrayStatement(name, node))
        return Name(name)

    def _part(self, shape: tuple, axis: int) -> tuple:
        """``shape`` with its extent along ``axis`` that of a slice."""
        out = list(shape)
        out[axis] = shape[axis] // self.blocks * self.rows
        return tuple(out)

    def node(self, node: Node, axis: int) -> Node:
        """``node``'s slice along ``axis`` (blocks of its extent there)."""
        shape = self._shape(node)
        if not self._blocked(shape, axis):
            raise _Fail
        if isinstance(node, Name):
            if node.id in self.inside:
                if axis != 0:
                    raise _Fail
                return node
            name = self.fresh("slice")
            self.slices[name] = ("slice", node.id, axis, shape[axis])
            return Name(name)
        if isinstance(node, (BinOp, UnaryOp, Formula)) or (
            isinstance(node, Call) and node.func in _ELEMENTWISE_CALLS and not node.keywords
        ):
            return self._elementwise(node, shape, axis)
        if isinstance(node, Call) and not node.keywords:
            method = getattr(self, f"_call_{node.func}", None)
            if method is not None:
                return method(node, shape, axis)
        if isinstance(node, ScatterAdd):
            return self._scatter_add(node, shape, axis)
        raise _Fail

    def _operand(self, operand: Node, out: tuple, axis: int) -> Node:
        """An elementwise operand of a result of shape ``out`` sliced along ``axis``."""
        shape = self.found.get(id(operand))
        if shape is None and isinstance(operand, Const):
            return operand
        shape = self._shape(operand)
        at = axis - (len(out) - len(shape))
        if at < 0 or shape[at] == 1:
            return self._whole(operand)  # broadcast along the sliced axis
        if shape[at] != out[axis]:
            raise _Fail
        return self.node(operand, at)

    def _elementwise(self, node: Node, shape: tuple, axis: int) -> Node:
        if isinstance(node, BinOp):
            return dataclasses.replace(
                node,
                left=self._operand(node.left, shape, axis),
                right=self._operand(node.right, shape, axis),
            )
        if isinstance(node, UnaryOp):
            return dataclasses.replace(node, operand=self._operand(node.operand, shape, axis))
        if isinstance(node, Formula):
            operands = tuple((s, self._operand(o, shape, axis)) for s, o in node.operands)
            return dataclasses.replace(node, operands=operands)
        args = tuple(self._operand(a, shape, axis) for a in node.args)
        return dataclasses.replace(node, args=args)

    def _call_einsum(self, node: Call, shape: tuple, axis: int) -> Node:
        spec = node.args[0]
        if not isinstance(spec, Const) or not isinstance(spec.value, str):
            raise _Fail
        text = spec.value.replace(" ", "")
        if "->" not in text or "." in text:
            raise _Fail
        ins, out = text.split("->")
        terms = ins.split(",")
        if len(terms) != len(node.args) - 1 or len(out) <= axis:
            raise _Fail
        letter = out[axis]
        args = [spec]
        for term, operand in zip(terms, node.args[1:], strict=True):
            if term.count(letter) > 1:
                raise _Fail
            if letter in term:
                args.append(self.node(operand, term.index(letter)))
            else:
                args.append(self._whole(operand))
        return dataclasses.replace(node, args=tuple(args))

    def _call_matmul(self, node: Call, shape: tuple, axis: int) -> Node:
        if len(node.args) != 2 or axis >= len(shape) - 2:
            raise _Fail  # only a batch axis: each stacked product the same either way
        args = []
        for operand in node.args:
            own = self._shape(operand)
            at = axis - (len(shape) - len(own))
            if len(own) < 3 or at < 0 or own[at] == 1:
                args.append(self._whole(operand))
            elif own[at] != shape[axis]:
                raise _Fail
            else:
                args.append(self.node(operand, at))
        return dataclasses.replace(node, args=tuple(args))

    def _call_reshape(self, node: Call, shape: tuple, axis: int) -> Node:
        if axis != 0 or len(node.args) != 2 or not isinstance(node.args[1], Const):
            raise _Fail
        inner = self._shape(node.args[0])
        if not self._blocked(inner, 0):
            raise _Fail
        return dataclasses.replace(
            node, args=(self.node(node.args[0], 0), Const(self._part(shape, 0)))
        )

    def _call_ravel(self, node: Call, shape: tuple, axis: int) -> Node:
        if axis != 0 or len(node.args) != 1:
            raise _Fail
        return dataclasses.replace(node, args=(self.node(node.args[0], 0),))

    def _call_transpose(self, node: Call, shape: tuple, axis: int) -> Node:
        if len(node.args) != 2 or not isinstance(node.args[1], Const):
            raise _Fail
        perm = tuple(node.args[1].value)
        if sorted(perm) != list(range(len(shape))):
            raise _Fail
        return dataclasses.replace(node, args=(self.node(node.args[0], perm[axis]), node.args[1]))

    def _call_broadcast_to(self, node: Call, shape: tuple, axis: int) -> Node:
        if len(node.args) != 2 or not isinstance(node.args[1], Const):
            raise _Fail
        operand = self._operand(node.args[0], shape, axis)
        return dataclasses.replace(node, args=(operand, Const(self._part(shape, axis))))

    def _scatter_add(self, node: ScatterAdd, shape: tuple, axis: int) -> Node:
        """A scatter-add into a stacked vector: its positions in the slice, moved to it,
        and their data, in their order (the same additions in the same order)."""
        if axis != 0 or len(shape) != 1:
            raise _Fail
        base = self.node(node.base, 0)
        parts = []
        for flat, data in node.parts:
            if not isinstance(flat, Name) or self._reads_inside(data):
                raise _Fail
            data_shape = self._shape(data)
            at, sel = self.fresh("at"), self.fresh("taken")
            self.slices[at] = ("at", flat.id, shape[0], sel)
            if _size(data_shape) == 1:
                parts.append((Name(at), self._whole(data)))
            else:
                taken = Call("take", (self._whole(data), Name(sel)))
                parts.append((Name(at), taken))
        return ScatterAdd(base, tuple(parts))


def plan(
    statements: list[ArrayStatement],
    order: list[int],
    named: Mapping[str, Any],
    varying: set[str],
    read_after: set[str],
    start_from: int | None = None,
) -> list[tuple[str, Any]] | None:
    """The statements ``order`` (indices into ``statements``) as a schedule of
    ``("statement", k)`` and ``("region", Region)`` (the module docstring); None where no
    region is found. ``named``: every name's shape; ``varying``: the names an input
    reaches (the others are not taken into a region); ``read_after``: the names read
    after the statements (their results); ``start_from``: the entries above which an
    array starts a region (None: :data:`CHUNK_FROM`)."""
    big = CHUNK_FROM if start_from is None else start_from
    targets = [statements[k].target for k in order]
    if any(statements[k].at for k in order) or len(set(targets)) != len(targets):
        return None  # a store, or a name assigned twice: statements are not moved
    schedule: list[tuple[str, Any]] = []
    counter = [0]

    def fresh(kind: str) -> str:
        counter[0] += 1
        return f"_region_{kind}{counter[0]}"

    pos, found = 0, False
    while pos < len(order):
        k = order[pos]
        s = statements[k]
        shape = named.get(s.target)
        if s.target in varying and _size(shape) > big and len(shape) >= 2:
            grown = _grow(statements, order, pos, named, varying, read_after, fresh, big)
            if grown is not None:
                before, region, after, pos = grown
                schedule.extend(("statement", j) for j in before)
                schedule.append(("region", region))
                schedule.extend(("statement", j) for j in after)
                found = True
                continue
        schedule.append(("statement", k))
        pos += 1
    return schedule if found else None


def _grow(statements, order, start, named, varying, read_after, fresh, big_from):
    """The region from ``order[start]`` (the module docstring): the statements
    evaluated before it, the region, the statements evaluated after it (each reads the
    region's arrays or such a statement's, and is not restricted: a gather of the n × n
    result of a contraction), and the position after its last statement; None where the
    first statement is not restricted."""
    first = named[statements[order[start]].target]
    blocks = first[0]
    rows = _rows(blocks, _size(first) // blocks)
    if rows == blocks:
        return None  # one slice: nothing saved
    inside: dict[str, tuple] = {}
    slices: dict[str, tuple] = {}
    once: list[ArrayStatement] = []
    rewritten: list[ArrayStatement] = []
    indices: list[int] = []
    before: list[tuple[int, int]] = []  # (position, statement)
    after: list[tuple[int, int]] = []
    deferred: set[str] = set()  # the targets of ``after``
    end = start
    for pos in range(start, len(order)):
        k = order[pos]
        s = statements[k]
        reads = set(names_in(s.value))
        if reads & deferred or (s.target not in varying and reads & inside.keys()):
            after.append((pos, k))
            deferred.add(s.target)
            continue
        if s.target not in varying:
            before.append((pos, k))
            continue
        shape = named.get(s.target)
        big = _size(shape) > big_from
        if not reads & inside.keys() and not big:
            before.append((pos, k))
            continue
        mark_slices, mark_once = dict(slices), list(once)
        restrict = _Restrict(named, inside, blocks, rows, slices, once, fresh)
        try:
            rewritten.append(restrict.statement(s))
        except _Fail:
            slices.clear()
            slices.update(mark_slices)
            once[:] = mark_once
            if reads & inside.keys():
                after.append((pos, k))
                deferred.add(s.target)
            else:
                before.append((pos, k))
            continue
        inside[s.target] = shape
        indices.append(k)
        end = pos + 1
    if not indices:
        return None
    after = [(p, k) for p, k in after if p < end]
    later = set(read_after)
    for k in [k for _, k in after] + list(order[end:]):
        later.update(names_in(statements[k].value))
        for a in statements[k].at:
            later.update(names_in(a))
    exits = {t: inside[t] for t in inside if t in later}
    last: dict[str, int] = {}
    for j, s in enumerate(rewritten):
        for name in names_in(s.value):
            last[name] = j
    region = Region(indices, rewritten, once, slices, exits, blocks, rows, last)
    return [k for p, k in before if p < end], region, [k for _, k in after], end


def slice_env(region: Region, env: Mapping[str, Any], start: int) -> dict[str, Any]:
    """The names a slice from block ``start`` reads besides ``env``'s: the views of the
    arrays read along a sliced axis, a scatter's positions in the slice and its data's."""
    out: dict[str, Any] = {}
    stop = start + region.rows
    for name, how in region.slices.items():
        if how[0] == "slice":
            _, source, axis, extent = how
            step = extent // region.blocks
            key = (slice(None),) * axis + (slice(start * step, stop * step),)
            out[name] = env[source][key]
        else:
            _, source, extent, taken = how
            step = extent // region.blocks
            at = np.asarray(plain(env[source]))
            if at.size and at.min() < 0:
                raise ValueError("a scatter position from the end: not sliced")
            lo, hi = start * step, stop * step
            kept = np.flatnonzero((at >= lo) & (at < hi))
            out[name] = at[kept] - lo
            out[taken] = kept
    return out


def joined(parts: list[Any]) -> Any:
    """An array from its slices along axis 0: with one bound a statement
    (:class:`~..bounds.Scalar`) the largest of theirs, with one an entry theirs joined."""
    values = np.concatenate([np.asarray(plain(p)) for p in parts], axis=0)
    if all(isinstance(p, Scalar) for p in parts):
        return Scalar(values, float(np.max([np.max(bound_of(p)) for p in parts])))  # NaN kept
    if any(isinstance(p, Bounded) for p in parts):
        bounds = [np.broadcast_to(bound_of(p), np.shape(plain(p))) for p in parts]
        return Bounded(values, np.concatenate(bounds, axis=0))
    return values
