"""An array program's values at a few entries of its results, not at all of them.

The cancellation pass (:mod:`.cancel`) asks, at a second and a third drawn point, only
for the entries that were near 0 at the first: some 10⁴ of the 7·10⁶ entries of the
minimal surface's Hessian at 10⁶ unknowns. Each entry of a gather, a scatter, a segment
sum, a reshape or an elementwise operation reads a few known entries of its operands,
so the statements are asked backwards for the positions their readers need (the
*demand*), then evaluated forwards at those positions alone. A statement of any other
kind (a slice, a pad, a loop, ...) is evaluated whole, and so is everything it reads.

Each value is computed by the same operations in the same order as the whole array's
evaluation (:class:`~dgraph.codegen.evaluate.ArrayEvaluator`) computes it: elementwise
arithmetic entry by entry, a scatter-add's and a segment sum's terms added in their order
in the index array, so an entry's value has the same bits either way.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..bounds import Bounded, filled, plain, scattered, scattered_add
from ..call_shapes import Operand, call_shape
from ..evaluate import ArrayEvaluator
from ..ir import (
    ArrayStatement,
    BinOp,
    Call,
    Const,
    Formula,
    Index,
    Name,
    Node,
    Scatter,
    ScatterAdd,
    SegmentSum,
    UnaryOp,
    names_in,
)

__all__ = ["EntryValues", "Whole", "demand", "values"]

_SHAPING = frozenset({"ravel", "reshape", "broadcast_to"})


class Whole(Exception):
    """A node that is not evaluated at a few positions (its readers take it whole)."""


class EntryValues:
    """A program's names' shapes (``shapes``) and the arrays read whole (``known``: name
    -> array: constants, values no input reaches), with each scatter's and segment sum's
    lookup of the positions asked of it, made once for :func:`demand` and
    :func:`values`."""

    def __init__(
        self,
        shapes: Mapping[str, tuple[int, ...]],
        known: Mapping[str, Any],
        earlier: Mapping[tuple[int, int], tuple] | None = None,
    ) -> None:
        self.shapes, self.known = shapes, known
        self.lookups: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        # an earlier program's lookups (the same statements, more entries asked): where
        # positions asked now are among those asked then, only the entries found then
        # are looked at (a later point asks fewer: 18 entries after 11,920)
        self.earlier = {} if earlier is None else earlier
        self.increasing: dict[int, tuple[np.ndarray, bool]] = {}  # by the array's id

    def constant(self, node: Node) -> Any:
        """The value of a node no evaluation at positions is needed for; Whole if none."""
        if isinstance(node, Const) and not isinstance(node.value, (tuple, list)):
            return node.value
        if isinstance(node, Name) and node.id in self.known:
            return self.known[node.id]
        raise Whole

    def index(self, node: Node) -> np.ndarray:
        """A constant vector of integer positions (a gather's or a scatter's)."""
        value = self.constant(node)
        if not (isinstance(value, np.ndarray) and value.ndim == 1 and value.dtype.kind in "iu"):
            raise Whole
        return value

    def shape(self, node: Node) -> tuple[int, ...]:
        """The shape of ``node``'s value; Whole for a node this module does not take."""
        if isinstance(node, Name):
            if node.id in self.known:
                return np.shape(self.known[node.id])
            if node.id in self.shapes:
                return tuple(self.shapes[node.id])
            raise Whole
        if isinstance(node, Const):
            return np.shape(self.constant(node))
        if isinstance(node, Call) and node.func in _SHAPING and not node.keywords:
            shape = self.shape(node.args[0])
            if not all(isinstance(a, Const) for a in node.args[1:]):
                raise Whole
            try:
                literals = [a.value for a in node.args[1:]]  # type: ignore[attr-defined]
                target = call_shape(node.func, [Operand(shape), *literals], {})
            except (TypeError, ValueError):
                raise Whole from None
            if math.prod(target) == math.prod(shape) or math.prod(shape) == 1:  # same entries
                return tuple(target)
            raise Whole
        if isinstance(node, Index):
            if len(node.items) != 1 or len(self.shape(node.value)) != 1:
                raise Whole
            return self.index(node.items[0]).shape
        if isinstance(node, Scatter):
            flat, data = self.index(node.flat), self.shape(node.data)
            if data != flat.shape:
                raise Whole
            return (node.size,)
        if isinstance(node, ScatterAdd):
            base = self.shape(node.base)
            for flat, data in node.parts:
                if len(base) != 1 or self.shape(data) != self.index(flat).shape:
                    raise Whole
            return base
        if isinstance(node, SegmentSum):
            if self.shape(node.data) != self.index(node.ids).shape:
                raise Whole
            return (node.n,)
        children = _elementwise(node)
        shapes = [self.shape(c) for c in children]
        out = np.broadcast_shapes(*shapes)
        if any(s != out and math.prod(s) != 1 for s in shapes):
            raise Whole  # a broadcast along an axis: not entry for entry
        return out

    def positions(self, node: Node, flat: np.ndarray, at: np.ndarray, size: int):
        """The entries of a scatter's ``flat`` that land at the positions ``at`` (sorted)
        of its result, and for each the rank of its position in ``at``."""
        key = (id(node), id(flat))
        found = self.lookups.get(key)
        if found is None or not (found[0] is at or np.array_equal(found[0], at)):
            before = self.earlier.get(key)
            if before is not None and _within(at, before[0], size):
                hit = np.zeros(size, dtype=bool)  # a byte an entry
                hit[at] = True
                taken = before[1][hit[flat[before[1]]]]  # the same, in order: a subset
            elif self._ordered(flat, size) and _increasing(at) and _inside(at, size):
                taken, ranks = _sorted_hits(flat, at)  # a search per position asked
                found = self.lookups[key] = (at, taken, ranks)
                return found[1:]
            else:
                hit = np.zeros(size, dtype=bool)  # a byte an entry: the pass reads less
                hit[at] = True
                taken = np.flatnonzero(hit[flat])
            rank = np.empty(size, dtype=np.int64)  # read only where written, at ``at``
            rank[at] = np.arange(at.size)
            found = self.lookups[key] = (at, taken, rank[flat[taken]])
        return found[1:]

    def _ordered(self, flat: np.ndarray, size: int) -> bool:
        """Whether ``flat`` increases strictly within ``[0, size)`` (a scatter's positions
        in order, as the minimal surface's are), found once per array."""
        found = self.increasing.get(id(flat))
        if found is None or found[0] is not flat:
            ok = flat.size == 0 or (flat[0] >= 0 and flat[-1] < size and _increasing(flat))
            found = self.increasing[id(flat)] = (flat, ok)
        return found[1]


def _increasing(a: np.ndarray) -> bool:
    """Whether the vector ``a`` increases strictly."""
    return bool(np.all(a[1:] > a[:-1]))


def _inside(at: np.ndarray, size: int) -> bool:
    """Whether the increasing positions ``at`` are in ``[0, size)`` (none read from the end)."""
    return at.size == 0 or (at[0] >= 0 and at[-1] < size)


def _sorted_hits(flat: np.ndarray, at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The entries of ``flat`` (strictly increasing) whose value is among ``at``
    (strictly increasing, in ``[0, size)``), in order, and each one's rank in ``at``:
    what :meth:`EntryValues.positions`' pass over ``flat`` gives, by a binary search
    for each position of ``at``."""
    keys = at
    if at.size and flat.dtype != at.dtype and at[-1] <= np.iinfo(flat.dtype).max:
        keys = at.astype(flat.dtype)  # the search in flat's integers: flat not converted
    found = np.searchsorted(flat, keys)
    ranks = np.flatnonzero(found < flat.size)
    met = flat[found[ranks]] == at[ranks]
    ranks = ranks[met]
    return found[ranks].astype(np.int64, copy=False), ranks


def _within(at: np.ndarray, before: np.ndarray, size: int) -> bool:
    """Whether every position of ``at`` is among ``before`` (positions below ``size``)."""
    if at.size > before.size:
        return False
    held = np.zeros(size, dtype=bool)
    held[before] = True
    return bool(held[at].all())


def _gathered(key: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The positions a gather at ``key`` reads for its entries ``at``; Whole where one
    counts from the end (a position then has two names)."""
    flat = key[at]
    if flat.size and flat.min() < 0:
        raise Whole
    return flat


def _elementwise(node: Node) -> tuple[Node, ...]:
    """The operands of an elementwise node (each entry of the result from the same entry
    of each, or from its one value); Whole for any other node."""
    if isinstance(node, BinOp):
        return (node.left, node.right)
    if isinstance(node, UnaryOp) and node.op == "-":
        return (node.operand,)
    if isinstance(node, Formula):
        return tuple(n for _, n in node.operands)
    if (
        isinstance(node, Call)
        and not node.keywords
        and isinstance(getattr(np, node.func, None), np.ufunc)
        and getattr(np, node.func).nin == len(node.args)
    ):
        return node.args
    raise Whole


def _reads(node: Node, at: np.ndarray, p: EntryValues, out: list[tuple[str, np.ndarray]]) -> None:
    """Append the (name, positions) pairs ``node``'s entries at ``at`` read (positions
    flat, in C order of the name's value); Whole where it is not taken."""
    stack = [(node, at)]
    while stack:
        n, where = stack.pop()
        if isinstance(n, Const) or (isinstance(n, Name) and n.id in p.known):
            continue
        if isinstance(n, Name):
            out.append((n.id, where))
        elif isinstance(n, Call) and n.func in _SHAPING:
            size = math.prod(p.shape(n.args[0]))
            stack.append((n.args[0], where if size != 1 else np.zeros(1, dtype=np.int64)))
        elif isinstance(n, Index):
            stack.append((n.value, np.unique(_gathered(p.index(n.items[0]), where))))
        elif isinstance(n, Scatter):
            taken, _ = p.positions(n, p.index(n.flat), where, n.size)
            stack.append((n.data, taken))
        elif isinstance(n, ScatterAdd):
            size = p.shape(n.base)[0]
            stack.append((n.base, where))
            for flat, data in n.parts:
                stack.append((data, p.positions(n, p.index(flat), where, size)[0]))
        elif isinstance(n, SegmentSum):
            stack.append((n.data, p.positions(n, p.index(n.ids), where, n.n)[0]))
        else:
            shape = p.shape(n)
            for child in _elementwise(n):
                one = math.prod(p.shape(child)) == 1 and math.prod(shape) != 1
                stack.append((child, np.zeros(1, dtype=np.int64) if one else where))


def demand(
    program: EntryValues,
    statements: list[ArrayStatement],
    wanted: list[tuple[Node, np.ndarray]],
) -> dict[str, np.ndarray | None] | None:
    """For each statement's target, the positions of its value the ``wanted`` nodes'
    entries (node, sorted flat positions) read through ``statements`` (None: all of it);
    names the program knows are read whole, names absent are not read. None where a
    target is assigned twice, a store changes an array, or a wanted node is not taken at
    positions."""
    if any(s.at for s in statements) or len({s.target for s in statements}) < len(statements):
        return None
    known = program.known
    asked: dict[str, list[np.ndarray]] = {}
    whole: set[str] = set()

    def ask(node: Node, at: np.ndarray) -> bool:
        """Whether ``node`` is evaluated at ``at`` (else whole, and all it reads)."""
        found: list[tuple[str, np.ndarray]] = []
        try:
            program.shape(node)
            _reads(node, at, program, found)
        except Whole:
            whole.update(n for n in names_in(node) if n not in known)
            return False
        for name, where in found:
            asked.setdefault(name, []).append(where)
        return True

    if not all([ask(node, at) for node, at in wanted]):
        return None  # a wanted node is not taken at positions
    out: dict[str, np.ndarray | None] = {}
    for s in reversed(statements):
        if s.target in known:
            continue
        if s.target in whole:
            out[s.target] = None
            whole.update(n for n in names_in(s.value) if n not in known)
            continue
        parts = asked.pop(s.target, None)
        if parts is None:
            continue  # read by none of the wanted entries
        at = np.unique(np.concatenate(parts)) if len(parts) > 1 else parts[0]
        out[s.target] = at if ask(s.value, at) else None
    out.update({n: None for n in whole if n not in out})
    for name, parts in asked.items():  # the arguments, read at positions
        out.setdefault(name, np.unique(np.concatenate(parts)))
    return out


def values(
    program: EntryValues, node: Node, at: np.ndarray, env: Mapping[str, Any], ev: ArrayEvaluator
) -> np.ndarray:
    """The flat entries at ``at`` (sorted) of ``node``'s value, reading each name from
    ``env``: a whole array, or ``(positions, values)`` (its value at those sorted flat
    positions, a superset of what is read). Raises Whole for a node :func:`demand`
    takes whole. Values with bounds (:mod:`~..bounds`) give theirs."""
    found = _value(node, at, env, program, ev)
    return found if isinstance(found, Bounded) else np.asarray(found)


def _name_at(value: Any, at: np.ndarray) -> np.ndarray:
    if isinstance(value, tuple):
        positions, values = value
        return values[np.searchsorted(positions, at)]
    return np.ravel(value)[at]


def _value(node: Node, at: np.ndarray, env, p: EntryValues, ev: ArrayEvaluator) -> Any:
    if isinstance(node, Const) or (isinstance(node, Name) and node.id in p.known):
        value = p.constant(node)
        return value if np.ndim(value) == 0 else np.ravel(value)[at]
    if isinstance(node, Name):
        return _name_at(env[node.id], at)
    if isinstance(node, Call) and node.func in _SHAPING:
        if math.prod(p.shape(node.args[0])) == 1:
            one = _value(node.args[0], np.zeros(1, dtype=np.int64), env, p, ev)
            return filled(at.size, np.ravel(one)[0])
        return _value(node.args[0], at, env, p, ev)
    if isinstance(node, Index):
        flat = _gathered(p.index(node.items[0]), at)
        read = np.unique(flat)
        values = _value(node.value, read, env, p, ev)
        return values[np.searchsorted(read, flat)]
    if isinstance(node, Scatter):
        taken, rank = p.positions(node, p.index(node.flat), at, node.size)
        return scattered(at.size, rank, _value(node.data, taken, env, p, ev))
    if isinstance(node, ScatterAdd):
        base = _value(node.base, at, env, p, ev)
        base = filled(at.size, base) if np.ndim(plain(base)) == 0 else base
        parts = []
        for flat, data in node.parts:
            taken, rank = p.positions(node, p.index(flat), at, p.shape(node.base)[0])
            parts.append((rank, _value(data, taken, env, p, ev)))
        return scattered_add(base, parts)
    if isinstance(node, SegmentSum):
        taken, rank = p.positions(node, p.index(node.ids), at, node.n)
        data = _value(node.data, taken, env, p, ev)
        return np.bincount(rank, weights=data, minlength=at.size)
    shape = p.shape(node)
    children = _elementwise(node)
    values = []
    for child in children:
        if math.prod(p.shape(child)) == 1 and math.prod(shape) != 1:
            one = _value(child, np.zeros(1, dtype=np.int64), env, p, ev)
            values.append(np.ravel(one)[0] if np.ndim(one) else one)
        else:
            values.append(_value(child, at, env, p, ev))
    if isinstance(node, Formula):
        return ev.formula(
            node.expr, {s: v for (s, _), v in zip(node.operands, values, strict=True)}
        )
    return getattr(ev, f"_eval_{type(node).__name__}")(node, values)
