"""A scan step's writes at its positions in generated code: the body's work on the
entries it writes, not on whole vectors.

JAX's gradient of a loop over ``x[i]`` writes each step at the counter's positions: its
body adds ``select_n(arange(n) == p, v, 0)`` onto an n-vector carry, and the body's
Jacobian blocks are zero outside those positions. Printed as they are, each step
computes the masks, the selects, the adds and the tangent rows on all n entries (and
n × columns): O(n) a step, O(n²) a loop. This pass (on the body's IR, so every printer
prints the same program) finds

* the *position masks*: ``arange(n) == p`` for ``p`` one entry of a step's slice of a
  constant table of positions (in range, checked on the table), grouped by table: two
  tables are one group where they are equal at every step, else they must differ at
  every step (so that the groups' positions are distinct each step);
* each n-vector's class, *zero outside* a set of groups (a mask; a select of zero outside
  its mask; products with such a vector; sums, negations, reshapes of such vectors);
* each n-vector's entry at a group's position (:meth:`StepWrites.at`), evaluated from the
  same operations on that one entry (a gather at constant indices reads its index there);

and rewrites ``a + s`` (``s`` zero outside groups G) as a scatter-add of ``s``'s entries
at G's positions onto ``a``: each entry ``a[q] + s[q]`` as before, the others ``a``'s
(the whole sum's ``a + 0``: the same but for a ``-0.0``, which becomes ``+0.0`` there).
The loop's tangent sweep (:mod:`.regions`) writes the rows of a block zero outside G the
same way (:meth:`StepWrites.rows`). What a step costs is then its entries, where a
printer updates a vector in place (NumPy copies the carried base once a step: a memory
copy, not the arithmetic).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from .. import ir
from ..array_passes import array_shapes, node_shapes
from ..ir import ArrayProgram, ArrayStatement, AsType, BinOp, Call, Const, Index, Name, Node

__all__ = ["StepWrites", "step_writes"]

_SHAPE_ONLY = ("reshape", "ravel", "asarray")
_RESHAPES = (*_SHAPE_ONLY, "broadcast_to")  # of as many entries: the same entries
_ELEMENTWISE = ("+", "-", "*", "/", "**", "==", "!=", "<", "<=", ">", ">=")
_FAIL = object()  # an entry that cannot be read alone


class StepWrites:
    """A body's position masks, its n-vectors zero outside some groups of them, and
    their entries at each group's position (module docstring)."""

    def __init__(self, n: int, groups: list[Node], zero: dict[str, frozenset[int]]) -> None:
        self.n = n  # the masks' size
        self.groups = groups  # per group: its position, a (1,) integer index
        self.zero = zero  # name -> the groups outside whose positions it is zero
        self.entries: dict[tuple[str, int], str] = {}  # (name, group) -> its entry's name
        self.numbers: dict[tuple[str, int], Const] = {}  # (name, group) -> a literal entry
        self.statements: list[ArrayStatement] = []  # the body, rewritten

    def at(self, name: str, g: int) -> Node | None:
        """The entry of the n-vector ``name`` at group ``g``'s position, shape (1,)."""
        if (name, g) in self.numbers:
            return Call("full", (Const((1,)), self.numbers[(name, g)]))
        found = self.entries.get((name, g))
        return None if found is None else Name(found)


def step_writes(
    program: ArrayProgram,
    tables: Mapping[str, np.ndarray],
    fresh,
) -> StepWrites | None:
    """The body ``program`` with its adds of vectors zero outside its position masks
    written as scatter-adds at those positions (``StepWrites.statements``), or None where
    it has no such mask. ``tables``: per body argument that is a step's slice of a
    constant, that constant (steps first); ``fresh()``: a new name."""
    statements = program.statements
    if any(s.at or isinstance(s.value, (ir.Loop, ir.While, ir.Cond)) for s in statements):
        return None
    shapes = array_shapes(program)
    defs = {s.target: s.value for s in statements}
    constants = program.constants
    masks = _masks(statements, defs, constants, shapes, tables)
    if not masks:
        return None
    n = next(iter(masks.values()))[1]
    found = _groups({a for a, _ in masks.values()}, tables, n, shapes)
    if found is None:
        return None
    group_of, groups = found
    writes = StepWrites(n, groups, {})
    zero = writes.zero
    for target, (argument, _) in masks.items():
        zero[target] = frozenset({group_of[argument]})
    mask_group = {t: group_of[a] for t, (a, _) in masks.items()}
    read = ir.reads(statements)
    added: dict[str, ir.ScatterAdd] = {}  # a rewritten sum read once: its scatter-add
    out: list[ArrayStatement] = []
    for s in statements:
        size = _size(shapes.get(s.target))
        value = s.value
        if size == n and s.target not in zero:
            kind = _zero_outside(value, zero, constants, shapes, n)
            if kind is not None:
                zero[s.target] = kind
            elif isinstance(value, BinOp) and value.op == "+":
                value = _scattered(value, s.target, writes, shapes, added) or value
                if value is not s.value and read.get(s.target) == 1:
                    added[s.target] = value.args[0]
        out.append(ArrayStatement(s.target, value))
        if size == n:
            for g in range(len(groups)):
                entry = _entry(s.value, g, writes, mask_group, defs, constants, shapes, n)
                if isinstance(entry, Name):
                    writes.entries[(s.target, g)] = entry.id
                elif isinstance(entry, Const):
                    writes.numbers[(s.target, g)] = entry
                elif entry is not _FAIL:
                    name = fresh()
                    writes.entries[(s.target, g)] = name
                    out.append(ArrayStatement(name, entry))
    writes.statements = out
    return writes


def _size(shape) -> int | None:
    """A shape's number of entries; None for no shape or a list's (its items' shapes,
    ``node_shapes``'s doc: a list is no array)."""
    return None if shape is None or isinstance(shape, list) else math.prod(shape)


def _through(node: Node, defs: Mapping[str, Node]) -> Node:
    """``node`` past the names and shape-only calls (reshape, ravel, asarray,
    broadcast_to) that hold it."""
    while True:
        if isinstance(node, Name) and node.id in defs:
            node = defs[node.id]
        elif isinstance(node, Call) and node.func in (*_SHAPE_ONLY, "broadcast_to") and node.args:
            node = node.args[0]
        else:
            return node


def _masks(statements, defs, constants, shapes, tables) -> dict[str, tuple[str, int]]:
    """Each statement that is a position mask ``arange(n) == p`` (its n entries, p one
    entry of a table's step), and reshapes of it: target -> (p's argument, n)."""
    found: dict[str, tuple[str, int]] = {}
    for s in statements:
        v = s.value
        if isinstance(v, Call) and v.func in _SHAPE_ONLY and isinstance(v.args[0], Name):
            if v.args[0].id in found and _size(shapes.get(s.target)) == found[v.args[0].id][1]:
                found[s.target] = found[v.args[0].id]
            continue
        if not (isinstance(v, BinOp) and v.op == "=="):
            continue
        for one, other in ((v.left, v.right), (v.right, v.left)):
            position = _through(one, defs)
            counter = _through(other, defs)
            if not (isinstance(position, Name) and position.id in tables):
                continue
            if not (isinstance(counter, Name) and counter.id in constants):
                continue
            table = np.asarray(tables[position.id])
            steps = table.shape[0] if table.ndim else 0
            k = np.asarray(constants[counter.id])
            size = _size(shapes.get(s.target))
            if (
                steps
                and table.size == steps
                and np.issubdtype(table.dtype, np.integer)
                and np.issubdtype(k.dtype, np.integer)
                and k.size == size
                and np.array_equal(k.reshape(-1), np.arange(k.size))
                and _size(shapes.get(other.id if isinstance(other, Name) else "")) in (None, size)
            ):
                found[s.target] = (position.id, int(size))
                break
    sizes = {n for _, n in found.values()}
    return found if len(sizes) == 1 else {}


def _groups(
    arguments: set[str], tables, n: int, shapes
) -> tuple[dict[str, int], list[Node]] | None:
    """The masks' positions by group (equal tables one group); None where a position
    leaves ``0 .. n-1`` or two groups' positions meet at some step but not at all."""
    group_of: dict[str, int] = {}
    firsts: list[np.ndarray] = []
    groups: list[Node] = []
    for a in sorted(arguments):
        t = np.asarray(tables[a]).reshape(-1)
        if t.size and (t.min() < 0 or t.max() >= n):
            return None
        for g, other in enumerate(firsts):
            if np.array_equal(t, other):
                group_of[a] = g
                break
            if np.any(t == other):
                return None
        else:
            group_of[a] = len(firsts)
            firsts.append(t)
            one = shapes.get(a) == (1,)
            groups.append(Name(a) if one else Call("reshape", (Name(a), Const((1,)))))
    return group_of, groups


def _aligned(n: Node, kids: list[Node], shapes: Mapping[int, object], size: int) -> bool:
    """Whether ``n`` is elementwise over its operands' flat entries: its shape of
    ``size`` entries, each operand of that shape or of one entry."""
    shape = shapes.get(id(n))
    if shape is None or _size(shape) != size:
        return False
    return all(shapes.get(id(k)) in (shape,) or _size(shapes.get(id(k))) == 1 for k in kids)


def _zero_outside(value: Node, zero, constants, names_shapes, size: int):
    """The groups outside whose positions ``value`` (of ``size`` entries) is zero (or
    False), or None where that is not known."""
    shapes = node_shapes(value, names_shapes)

    def combine(n: Node, kids: list) -> frozenset[int] | None:
        if isinstance(n, Name):
            if n.id in zero:
                return zero[n.id]
            k = constants.get(n.id)
            if k is not None and np.size(k) == size and not np.any(k):
                return frozenset()
            return None
        if isinstance(n, Const):
            return frozenset() if _is_zero(n.value) else None
        children = n.children()
        if isinstance(n, AsType) or (isinstance(n, Call) and n.func in _RESHAPES):
            inner = n.operand if isinstance(n, AsType) else n.args[0]
            return kids[0] if _size(shapes.get(id(inner))) == size else None
        if not _aligned(n, list(children), shapes, size):
            return None
        if isinstance(n, ir.UnaryOp) and n.op == "-":
            return kids[0]
        if isinstance(n, BinOp):
            left, right = kids
            if n.op == "*":
                known = [k for k in (left, right) if k is not None]
                return None if not known else frozenset.intersection(*known)
            if n.op in ("+", "-") and left is not None and right is not None:
                return left | right
            if n.op == "==":  # a zero (False) compared with a nonzero literal: False
                for k, c in ((left, n.right), (right, n.left)):
                    if k is not None and isinstance(c, Const) and _nonzero(c.value):
                        return k
            return None
        if isinstance(n, Call) and n.func == "where" and len(kids) == 3:
            test, yes, no = kids
            if no is not None and test is not None:
                return test | no
            if no is not None and yes is not None:
                return yes | no
        return None

    return ir.fold(value, combine)


def _is_zero(value) -> bool:
    return isinstance(value, (bool, int, float)) and value == 0


def _nonzero(value) -> bool:
    return isinstance(value, (bool, int, float)) and value != 0


def _entry(
    value: Node, g: int, writes: StepWrites, mask_group, defs, constants, names_shapes, size
):
    """``value``'s entry at group ``g``'s position (a node of one entry), or _FAIL."""
    shapes = node_shapes(value, names_shapes)
    q = writes.groups[g]

    def truth(n: Node) -> bool | None:  # a mask's value there, known when generated
        n = _through(n, {}) if isinstance(n, Call) and n.func in _SHAPE_ONLY else n
        if isinstance(n, AsType):
            n = n.operand
            n = n.args[0] if isinstance(n, Call) and n.func == "asarray" else n
        if isinstance(n, Name) and n.id in mask_group:
            return mask_group[n.id] == g
        return None

    flat: set[int] = set()  # the ids of the entries built of shape (1,)

    def combine(n: Node, kids: list):
        found = _combined(n, kids)
        if found is not _FAIL and _one(n, found, kids):
            flat.add(id(found))
        return found

    def _one(n: Node, found: Node, kids: list) -> bool:  # whether ``found`` is of shape (1,)
        if isinstance(found, Index) or (isinstance(found, Name) and found.id in entry_names):
            return True
        if found is n or isinstance(found, Const) or id(found) in flat:
            return found is n and shapes.get(id(n), names_shapes.get(getattr(n, "id", ""))) == (1,)
        operands = list(found.children())
        shaped = [id(k) in flat for k in operands]
        scalar = [isinstance(k, Const) or _ndim(k) == 0 for k in operands]
        return any(shaped) and all(a or b for a, b in zip(shaped, scalar, strict=True))

    def _ndim(k: Node) -> int | None:
        shape = shapes.get(id(k), names_shapes.get(k.id) if isinstance(k, Name) else None)
        return None if shape is None else len(shape)

    def _combined(n: Node, kids: list):
        if isinstance(n, Const):
            return n
        if isinstance(n, Name):
            shape = names_shapes.get(n.id)
            if _size(shape) == 1:
                return n
            if n.id in mask_group:
                return Const(mask_group[n.id] == g)
            if n.id in writes.zero and g not in writes.zero[n.id]:
                return Const(0.0)  # zero outside its groups' positions: zero at g's
            if (n.id, g) in writes.numbers:
                return writes.numbers[(n.id, g)]
            if (n.id, g) in writes.entries:
                return Name(writes.entries[(n.id, g)])
            if _size(shape) == size and (n.id in constants or n.id not in defs):
                return Index(Call("ravel", (n,)), (q,))
            return _FAIL
        shape = shapes.get(id(n))
        if _size(shape) == 1 and not any(
            isinstance(x, Name) and x.id in mask_group for x in ir.walk(n)
        ):
            return n  # one entry: the same wherever it is read
        if _size(shape) != size:
            return _FAIL
        children = list(n.children())
        if isinstance(n, Index) and len(n.items) == 1:
            k = n.items[0]
            if isinstance(k, Name) and k.id in constants and np.size(constants[k.id]) == size:
                return Index(n.value, (Index(Call("ravel", (k,)), (q,)),))
            return _FAIL
        if (
            isinstance(n, Call)
            and n.func == "broadcast_to"
            and _size(shapes.get(id(n.args[0]))) == 1
        ):
            return n.args[0]
        if isinstance(n, Call) and n.func in _RESHAPES:
            if _size(shapes.get(id(n.args[0]))) != size or kids[0] is _FAIL:
                return _FAIL
            return Call("asarray", (kids[0],), n.keywords) if n.func == "asarray" else kids[0]
        if isinstance(n, AsType):
            return _FAIL if kids[0] is _FAIL else AsType(kids[0], n.dtype)
        if isinstance(n, Call) and n.func == "where" and len(kids) == 3:
            known = truth(n.args[0])
            if known is None and isinstance(kids[0], Const) and isinstance(kids[0].value, bool):
                known = kids[0].value
            if known is not None:
                return kids[1] if known else kids[2]
            if kids[0] is _FAIL or not _aligned(n, children, shapes, size):
                return _FAIL
            return Call("where", tuple(kids))
        if any(k is _FAIL for k in kids) or not _aligned(n, children, shapes, size):
            return _FAIL
        if isinstance(n, BinOp) and n.op in _ELEMENTWISE:
            if n.op == "==":  # a mask's entry compared: known when generated
                for t, c in ((n.left, n.right), (n.right, n.left)):
                    known = truth(t)
                    if (
                        known is not None
                        and isinstance(c, Const)
                        and not isinstance(c.value, float)
                    ):
                        return Const(int(known) == c.value)
            for one, other in ((kids[0], kids[1]), (kids[1], kids[0])):
                if n.op == "*" and ir.number(one) == 1.0 and id(other) in flat:
                    return other  # 1.0·x: x, bit for bit
            return BinOp(n.op, kids[0], kids[1])
        if isinstance(n, ir.UnaryOp):
            return ir.UnaryOp(n.op, kids[0])
        return _FAIL

    entry_names = set(writes.entries.values())
    found = ir.fold(value, combine)
    if found is _FAIL or isinstance(found, Const):
        return found
    if isinstance(found, Name) and found.id in entry_names:
        return found  # another's entry: the same name
    return found if id(found) in flat else Call("reshape", (found, Const((1,))))


def _scattered(value: BinOp, target: str, writes: StepWrites, shapes, added) -> Node | None:
    """``a + s`` (``s`` zero outside groups G, ``a`` of the sum's shape) as ``a`` with
    ``s``'s entries at G's positions added, or None; ``a`` itself such a sum read only
    here (``added``): one scatter-add of both's parts, in order (one copy of the base)."""
    for a, s in ((value.left, value.right), (value.right, value.left)):
        if not (isinstance(s, Name) and s.id in writes.zero and isinstance(a, Name)):
            continue
        if a.id in writes.zero or shapes.get(a.id) != shapes.get(target):
            continue
        groups = sorted(writes.zero[s.id])
        parts = []
        for g in groups:
            entry = writes.at(s.id, g)
            if entry is None:
                break
            parts.append((writes.groups[g], entry))
        else:
            if not parts:
                return None
            inner = added.get(a.id)
            if inner is not None:
                scatter = ir.ScatterAdd(inner.base, (*inner.parts, *parts))
            else:
                scatter = ir.ScatterAdd(Call("ravel", (a,)), tuple(parts))
            return Call("reshape", (scatter, Const(tuple(shapes[target]))))
    return None
