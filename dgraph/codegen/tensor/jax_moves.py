"""JAX gathers at constant positions of an array that only moves an input's entries (a
reshape, a slice, a pad, a ``where`` under a constant mask, …), composed at generation
into one gather of the input itself.

XLA fuses such a chain into the gather and computes it again for every entry gathered:
the minimal surface's padded grid ``where(M2, where(M1, pad(u), C1), C2)`` read through
``ravel(p[0:101, 0:101])[K]`` costs per entry an index, a division and a remainder for the
flattening, two masks, two constants and the pad's bounds. Which entry of the input (or
which constant) each gathered entry is follows from the positions alone: the chain is
evaluated here twice with each input entry replaced by its own number (then by its
number plus 2⁴⁰), so ``ravel(p)[K]`` is ``ravel(u)[P]`` where
every entry comes from ``u`` and ``where(M, ravel(u)[P], C)`` otherwise — the same values,
bit for bit (entries are only moved). Below :data:`~.gathers.GATHER_FROM` entries a
gather: the composed positions and masks are constants the module carries.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .. import ir
from ..evaluate import ArrayEvaluator
from ..ir import ArrayProgram, ArrayStatement, Call, Index, Name, Node, Seq
from .constants import Constants
from .gathers import GATHER_FROM

__all__ = ["composed_gathers"]

MOVES = frozenset(
    {"ravel", "reshape", "asarray", "pad", "where", "broadcast_to", "concatenate", "stack"}
)
"""The calls that only move entries (``where``: under a constant mask)."""


def composed_gathers(
    program: ArrayProgram, constants: Constants, ends: set[str]
) -> list[ArrayStatement]:
    """``program``'s statements with each gather at constant positions (fewer than
    :data:`~.gathers.GATHER_FROM`) of a statement that only moves an input's entries
    written as a gather of the input (module docstring); the statements no longer read
    (but the ``ends``) dropped."""
    statements = list(program.statements)
    roots = _roots(program, statements)
    if not roots:
        return statements
    moves = _moves(statements, roots, constants)
    wanted = [
        n
        for s in statements
        if s.target not in roots and not s.at
        for n in ir.walk(s.value)
        if _gather(n, moves, roots, constants) is not None
    ]
    if not wanted:
        return statements  # (no chain is evaluated where no gather reads one)
    first, second = _evaluated(statements, moves, roots, program, constants)
    if first is None:
        return statements
    out = []
    changed = False
    for s in statements:
        if s.target in roots or s.at:
            out.append(s)
            continue

        def replace(n: Node) -> Node | None:
            found = _gather(n, moves, roots, constants)
            if found is None:
                return None
            source, at = found
            return _composed(first[source], second[source], at, roots, constants)

        value = ir.rebuilt(s.value, replace)
        changed = changed or value != s.value
        out.append(dataclasses.replace(s, value=value))
    if not changed:
        return statements
    return _live(out, ends)


def _roots(program: ArrayProgram, statements: list[ArrayStatement]) -> dict[str, int]:
    """The statements that read an argument (``reshape(asarray(x), shape)``), each with
    the number of the argument's first entry among all the arguments' entries, from 1."""
    found: dict[str, int] = {}
    first = 1
    for argument, shape in zip(program.arguments, program.shapes, strict=True):
        for s in statements:
            v = s.value
            if (
                not s.at
                and isinstance(v, Call)
                and v.func == "reshape"
                and isinstance(v.args[0], Call)
                and v.args[0].func == "asarray"
                and v.args[0].args == (Name(argument),)
            ):
                found[s.target] = first
                break
        first += int(np.prod(shape, dtype=np.int64))
    return found


def _moves(statements: list[ArrayStatement], roots: dict[str, int], constants: Constants) -> set:
    """The targets of the statements that only move the entries of the roots and of
    constants (the roots among them)."""
    moves = set(roots)
    for s in statements:
        if s.at or s.target in moves:
            continue
        if _only_moves(s.value, moves, constants) and ir.names_in(s.value) & moves:
            moves.add(s.target)
    return moves


def _only_moves(node: Node, moves: set[str], constants: Constants) -> bool:
    """Whether ``node`` only moves the entries of ``moves`` and of constants (any
    operation on constants alone: a mask, a gathered constant)."""
    names = ir.names_in(node)
    if not names & moves:
        return names <= constants.arrays.keys()
    if isinstance(node, Name):
        return True
    if isinstance(node, Call):
        if node.func not in MOVES or (node.func == "where" and ir.names_in(node.args[0]) & moves):
            return False
        kids = [*node.args, *(v for _, v in node.keywords)]
        return all(_only_moves(k, moves, constants) for k in kids)
    if isinstance(node, Index):
        fixed = all(not ir.names_in(k) & moves for k in node.items)
        return fixed and _only_moves(node.value, moves, constants)
    if isinstance(node, Seq):
        return all(_only_moves(k, moves, constants) for k in node.items)
    return False


SHIFT = float(2**40)
"""What the second evaluation adds to every input entry's number (exact in doubles)."""


def _evaluated(statements, moves, roots, program, constants):
    """Each move's entries evaluated twice with the constants as they are: the inputs'
    entries numbered from 1, then the same numbers plus :data:`SHIFT` (an entry that
    differs came from an input; one that does not is a constant's value)."""
    moved = [s for s in statements if s.target in moves and s.target not in roots]
    read = set().union(*(ir.names_in(s.value) for s in moved)) - moves
    runs = []
    for shift in (0.0, SHIFT):
        env = {name: np.asarray(constants.arrays[name]) for name in read}
        for (root, first), shape in zip(roots.items(), _root_shapes(program, roots), strict=True):
            numbers = np.arange(first, first + int(np.prod(shape)), dtype=np.float64) + shift
            env[root] = numbers.reshape(shape)
        try:
            runs.append(ArrayEvaluator().run(moved, env))
        except (IndexError, ValueError, TypeError):
            return None, None
    return runs[0], runs[1]


def _root_shapes(program: ArrayProgram, roots: dict[str, int]) -> list[tuple[int, ...]]:
    by_first = {}
    first = 1
    for shape in program.shapes:
        by_first[first] = tuple(shape)
        first += int(np.prod(shape, dtype=np.int64))
    return [by_first[f] for f in roots.values()]


def _gather(n: Node, moves, roots, constants: Constants):
    """``(source, positions)`` where ``n`` gathers a move (not a root) flattened at an
    integer constant of fewer than GATHER_FROM entries; else None."""
    if not (isinstance(n, Index) and len(n.items) == 1 and isinstance(n.items[0], Name)):
        return None
    at = constants.arrays.get(n.items[0].id)
    if at is None or at.dtype.kind not in "iu" or at.size >= GATHER_FROM:
        return None
    x = n.value
    if isinstance(x, Call) and x.func == "ravel" and len(x.args) == 1:
        x = x.args[0]
    elif not isinstance(x, Name):
        return None
    if not isinstance(x, Name) or x.id not in moves or x.id in roots:
        return None
    return x.id, np.asarray(at)


def _composed(first, second, at, roots: dict[str, int], constants: Constants) -> Node | None:
    """The gather of ``at`` from an array evaluated as ``first`` and ``second``
    (:func:`_evaluated`) as a gather of one root (under a ``where`` where some entries
    are constants); None where the entries come from several roots or ``at`` runs past
    the array."""
    a, b = np.ravel(first), np.ravel(second)
    if a.dtype.kind != "f" or at.min(initial=0) < 0 or at.max(initial=0) >= a.size:
        return None
    a, b = a[at], b[at]
    moved = ~((a == b) | (np.isnan(a) & np.isnan(b)))
    if not moved.any():
        return constants.add(a)
    t = np.where(moved, a, 0).astype(np.int64)
    if not np.array_equal(b[moved] - a[moved], np.full(int(moved.sum()), SHIFT)):
        return None  # not a moved entry (a bug's guard: the chain only moves entries)
    firsts = sorted(roots.values())
    start = max(f for f in firsts if f <= t[moved].min())
    ends = [f for f in firsts if f > start]
    if ends and t.max() >= ends[0]:
        return None
    root = next(r for r, f in roots.items() if f == start)
    positions = np.where(moved, t - start, 0)
    gathered = Index(Call("ravel", (Name(root),)), (constants.index(positions),))
    if moved.all():
        return gathered
    kept = np.where(moved, 0.0, a)
    return Call("where", (constants.add(moved), gathered, constants.add(kept)))


def _live(statements: list[ArrayStatement], ends: set[str]) -> list[ArrayStatement]:
    used = set(ends)
    kept = []
    for s in reversed(statements):
        if s.target in used or s.at:
            kept.append(s)
            used.update(ir.names_in(s.value))
            for a in s.at:
                used.update(ir.names_in(a))
    return kept[::-1]
