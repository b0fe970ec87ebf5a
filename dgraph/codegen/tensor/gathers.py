"""Scatters at constant positions written as gathers, for JAX: XLA's CPU scatter runs one
update at a time (with the computation of its updates fused into that loop), while a
gather is vectorized — the final assembly of a Hessian's values at 10⁶ unknowns took
some 5-10x longer as ``base.at[K].add(d)`` than as ``base + pad(d, (1, 0))[inv]``
(``inv``: each position's place in ``d`` plus one, 0 where ``d`` has none: the padded
zero). The sums are the same, in the same order, so the values are equal bit for bit.
A symmetric Hessian's mirror (each entry above the diagonal its mirror image's value) is
a gather of the values; :func:`gathered` pushes it into the gathers that assemble them,
so that XLA's one fused loop over the entries follows one index an entry, not two."""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from typing import Any

import numpy as np

from .. import ir
from ..array_passes import array_shapes, node_shapes
from ..ir import (
    ArrayProgram,
    ArrayStatement,
    BinOp,
    Call,
    Const,
    Index,
    Name,
    Node,
    Scatter,
    ScatterAdd,
)
from .constants import Constants

__all__ = [
    "GATHER_FROM",
    "PUSH_COMPACT",
    "gathered",
    "scatters_as_gathers",
    "scatters_as_pads",
    "spread",
    "takes_as_broadcasts",
]

GATHER_FROM = 100_000
"""The least vector length written as a gather: below it XLA's scatter was the faster
(a Hessian's assembly at 10⁴ unknowns, 3·10⁴ entries: 80 µs median as scatters, 92 µs
as gathers; at 10⁶, 3·10⁶ entries: 164 ms against 35 ms)."""

PUSH_COMPACT = False
"""Whether :func:`gathered` pushes the mirror into the assembly of a compact values vector
(the entries on and below the diagonal alone, in order) too. Not by default: there the
mirror is one gather of that vector, and pushing it composes each part's gather index
with it into index arrays as long as the whole Hessian, with little structure left (the
minimal surface at 10⁶ unknowns: four of 7·10⁶ entries, 28 MB of module text, some 3
CPU-s more to compress, load and check) for no faster call (10⁵ and 10⁶: the same median
CPU a call, A/B in one process). A whole vector's mirror is pushed (Rosenbrock and the
Lagrangian at 10⁶: 13 → 9 and 19 → 15 ms of CPU a call): its alternative is XLA's
scatter of the entries that move."""


def scatters_as_gathers(program: ArrayProgram, constants: Constants) -> list[ArrayStatement]:
    """``program``'s statements with each :class:`~dgraph.codegen.ir.Scatter` and
    :class:`~dgraph.codegen.ir.ScatterAdd` of at least :data:`GATHER_FROM` entries at
    positions that are module constants, each at most once a part, written as gathers of
    its data padded by one zero (module docstring), or without an index where the
    positions step evenly (:func:`spread`)."""
    env = array_shapes(program)
    out = []
    for s in program.statements:
        shapes = node_shapes(s.value, env)

        def replace(n: Node, shapes=shapes) -> Node | None:
            if isinstance(n, Scatter):
                size = n.size
            elif isinstance(n, ScatterAdd):
                shape = shapes.get(id(n))
                size = int(np.prod(shape)) if isinstance(shape, tuple) else None
            else:
                return None
            parts = [(n.flat, n.data)] if isinstance(n, Scatter) else list(n.parts)
            if size is None or size < GATHER_FROM:
                return None
            if not all(_constant(f, constants) for f, _ in parts):
                return None
            gathers = [_gather(constants, f, d, size) for f, d in parts]
            if any(g is None for g in gathers):
                return None
            total = None if isinstance(n, Scatter) else Call("ravel", (n.base,))
            for g in gathers:
                total = g if total is None else BinOp("+", total, g)
            return total if total is not None else Call("zeros", (Const(size),))

        out.append(dataclasses.replace(s, value=ir.rebuilt(s.value, replace)))
    return out


def _constant(flat: Node, constants: Constants) -> bool:
    return isinstance(flat, Name) and flat.id in constants.arrays


def _gather(constants: Constants, flat: Name, data: Node, size: int) -> Node | None:
    """``data`` at the positions ``flat`` of a vector of ``size`` zeros, as a gather;
    None where a position is there twice."""
    positions = np.ravel(constants.arrays[flat.id])
    found = spread(positions, data, size)
    if found is not None:
        return found
    # int32 where the places fit (as :meth:`~.constants.Constants.index` would store
    # them, without its pass for their least and greatest over ``size`` entries)
    inverse = np.zeros(size, dtype=np.int32 if size < 2**31 else np.int64)
    inverse[positions] = np.arange(1, positions.size + 1, dtype=inverse.dtype)
    if np.count_nonzero(inverse) != positions.size:
        return None
    padded = Call("pad", (Call("ravel", (data,)), Const(((1, 0),))))
    return Index(padded, (constants.index(inverse),))


def spread(positions: np.ndarray, data: Node, size: int) -> Node | None:
    """``data`` at ``positions`` of a vector of ``size`` zeros without an index array,
    where the positions step evenly: ``data`` as one column of a matrix padded with zero
    columns and rows above it, flattened (XLA computes each entry from its place; a
    gather reads an index per entry, a scatter is a loop of its own). None for other
    positions."""
    m = positions.size
    if m < 2:
        return None
    first, step = int(positions[0]), int(positions[1] - positions[0])
    if step < 1 or first < 0 or int(positions[-1]) >= size:
        return None
    if not np.array_equal(positions, first + step * np.arange(m)):
        return None
    flat = Call("ravel", (data,))
    if step == 1:
        return Call("pad", (flat, Const(((first, size - first - m),))))
    above, column_at = divmod(first, step)
    column = Call("reshape", (flat, Const((m, 1))))
    widths = ((above, 0), (column_at, step - 1 - column_at))
    spread = Call("ravel", (Call("pad", (column, Const(widths))),))
    end = step * (above + m)
    if end >= size:
        return Index(spread, (ir.Slice(0, size),))
    return Call("pad", (spread, Const(((0, size - end),))))


def gathered(
    program: ArrayProgram, values: str, positions: np.ndarray, constants: Constants
) -> tuple[list[ArrayStatement], str]:
    """``program``'s statements with the vector ``values`` (its last result) replaced by
    ``values[positions]``, the gather pushed into the statements that assemble it: a
    constant is gathered here, a gather at constant positions has its index composed
    with ``positions``, a scatter at constant positions becomes gathers of its data at
    composed positions, and a sum, a product with a number and a statement read once
    carry it to their operands. What XLA would run as a chain of gathers the size of
    the values (the assembly, then the mirror) is one gather of each part; the sums are
    the same, in the same order. Where the gather cannot be pushed further, it is one
    gather of what is there. Returns the statements and the name of the gathered values.
    """
    return _Pusher(program, constants).gathered(values, np.asarray(positions))


class _Pusher:
    """:func:`gathered`'s state: the statements, their shapes and how often each is read."""

    def __init__(self, program: ArrayProgram, constants: Constants) -> None:
        self.statements = list(program.statements)
        self.results = set(program.results)
        self.constants = constants
        current = dataclasses.replace(program, constant_shapes=dict(constants.shapes))
        self.env = array_shapes(current)  # the constants made since the program was
        self.made = {s.target: i for i, s in enumerate(self.statements) if not s.at}
        self.reads: Counter[str] = Counter()
        for s in self.statements:
            for node in (s.value, *s.at):
                self.reads.update(n.id for n in ir.walk(node) if isinstance(n, Name))
        self.dropped: set[str] = set()
        self.inline = not any(s.at for s in self.statements)  # no name written in place

    def gathered(self, values: str, positions: np.ndarray) -> tuple[list[ArrayStatement], str]:
        if values not in self.made or (values in self.results and self.reads[values] > 0):
            taken = Index(Call("ravel", (Name(values),)), (self.constants.index(positions),))
            return [*self.statements, ArrayStatement(f"{values}_at", taken)], f"{values}_at"
        i = self.made[values]
        last = self.statements[i]
        value = self.push(last.value, node_shapes(last.value, self.env), positions)
        if value is None:
            value = Call("zeros", (Const(int(positions.size)),))
        self.statements[i] = dataclasses.replace(last, value=value)
        return [s for s in self.statements if s.target not in self.dropped], values

    def push(self, node: Node, shapes: dict[int, Any], at: np.ndarray) -> Node | None:
        """``ravel(node)[at]`` with the gather pushed in; None where every entry is a
        structural zero."""
        arrays = self.constants.arrays
        if isinstance(node, Name) and node.id in arrays:
            picked = np.ravel(arrays[node.id])[at]
            return self.constants.add(picked) if picked.any() else None
        if isinstance(node, Name) and self._once(node.id):
            value = self.statements[self.made[node.id]].value
            self.dropped.add(node.id)
            return self.push(value, node_shapes(value, self.env), at)
        if isinstance(node, Call) and node.func in ("ravel", "reshape") and not node.keywords:
            return self.push(node.args[0], shapes, at)  # the same entries in the same order
        if isinstance(node, BinOp) and node.op in ("+", "-", "*"):
            return self._binop(node, shapes, at)
        if isinstance(node, Index) and _vector(shapes.get(id(node.value))):
            index = node.items[0] if len(node.items) == 1 else None
            if isinstance(index, Name) and index.id in arrays and arrays[index.id].ndim == 1:
                composed = arrays[index.id][at]
                return Index(node.value, (self.constants.index(composed),))
        shape = shapes.get(id(node))
        if isinstance(node, (Scatter, ScatterAdd)) and isinstance(shape, tuple):
            pushed = self._scatter(node, shapes, int(np.prod(shape)), at)
            if pushed is not False:
                return pushed
        return self._whole(node, shapes, at)

    def _constant(self, node: Node) -> bool:
        """Whether ``node`` is a module constant (or one flattened)."""
        if isinstance(node, Call) and node.func in ("ravel", "reshape") and node.args:
            node = node.args[0]
        return isinstance(node, Name) and node.id in self.constants.arrays

    def _once(self, name: str) -> bool:
        once = self.reads[name] == 1 and name not in self.results
        return self.inline and once and name in self.made

    def _whole(self, node: Node, shapes: dict[int, Any], at: np.ndarray) -> Node:
        """One gather of ``node`` flattened."""
        flat = node if _vector(shapes.get(id(node))) else Call("ravel", (node,))
        return Index(flat, (self.constants.index(at),))

    def _binop(self, node: BinOp, shapes: dict[int, Any], at: np.ndarray) -> Node | None:
        """A sum's or a difference's gather pushed into both operands, a product's into
        its factor that is not a number (a product of two vectors: one gather of it)."""
        shape = shapes.get(id(node))
        sides = []
        for side in (node.left, node.right):
            own = shapes.get(id(side))
            if own == ():
                sides.append((side, False))
            elif own == shape and isinstance(own, tuple):
                sides.append((side, True))
            else:
                return self._whole(node, shapes, at)
        if node.op == "*" and not any(not vector or self._constant(s) for s, vector in sides):
            return self._whole(node, shapes, at)
        if node.op == "*":  # a zero factor kept: an inf or a nan times it stays a nan
            left, right = (self._factor(s, shapes, at) if v else s for s, v in sides)
            return BinOp("*", left, right)
        left, right = (self.push(s, shapes, at) if vector else s for s, vector in sides)
        if right is None:
            return left
        if left is None:
            return right if node.op == "+" else ir.UnaryOp("-", right)
        return BinOp(node.op, left, right)

    def _factor(self, node: Node, shapes: dict[int, Any], at: np.ndarray) -> Node:
        """``ravel(node)[at]`` as a factor: zeros where it has no nonzero part."""
        if self._constant(node):
            inner = node.args[0] if isinstance(node, Call) else node
            return self.constants.add(np.ravel(self.constants.arrays[inner.id])[at])
        pushed = self.push(node, shapes, at)
        return Call("zeros", (Const(int(at.size)),)) if pushed is None else pushed

    def _scatter(
        self, node: Scatter | ScatterAdd, shapes: dict[int, Any], size: int, at: np.ndarray
    ) -> Node | bool | None:
        """A scatter at constant positions, each at most once a part, as its base's
        gather plus a gather of each part's data padded by one zero; False where the
        positions are not such."""
        arrays = self.constants.arrays
        parts = [(node.flat, node.data)] if isinstance(node, Scatter) else list(node.parts)
        if not all(isinstance(f, Name) and f.id in arrays for f, _ in parts):
            return False
        inverses = []
        for flat, _ in parts:
            positions = np.ravel(arrays[flat.id])
            inverse = np.zeros(size, dtype=np.int64)
            inverse[positions] = np.arange(1, positions.size + 1)
            if np.count_nonzero(inverse) != positions.size:  # a position twice
                return False
            inverses.append(inverse[at])
        total = None if isinstance(node, Scatter) else self.push(node.base, shapes, at)
        for (_, data), inverse in zip(parts, inverses, strict=True):
            if not inverse.any():
                continue
            padded = Call("pad", (Call("ravel", (data,)), Const(((1, 0),))))
            term = Index(padded, (self.constants.index(inverse),))
            total = term if total is None else BinOp("+", total, term)
        return total


def _vector(shape: Any) -> bool:
    return isinstance(shape, tuple) and len(shape) == 1


def scatters_as_pads(
    program: ArrayProgram, constants: Constants, blocks: frozenset[str] = frozenset()
) -> list[ArrayStatement]:
    """``program``'s statements with each part of a :class:`~dgraph.codegen.ir.Scatter`
    or :class:`~dgraph.codegen.ir.ScatterAdd` that writes its data (one entry a
    position) at a run of consecutive positions (a module constant; one position too)
    written as a pad added to what the parts before it made; the other parts stay
    scatter-adds, in their order. XLA's CPU compiles a scatter (``.at[K].add``) as a
    loop of its own with its bounds checks, and a pad as an elementwise operation fused
    with its neighbours: an unrolled filter's forward Jacobian (1,479 scatter-adds in 24
    jitted pieces) compiled in 6.7 CPU-s with them, 2.1 as pads with its takes
    broadcasts (:func:`takes_as_broadcasts`; benchmarks/RESULTS.md, perf45). The sums
    are the same, in the same order; a position no part writes adds a pad's ``+0.0``
    (``-0.0`` reads ``+0.0`` there, as in :func:`scatters_as_gathers`). Positions that
    step evenly by more than one are spread (:func:`spread`), except in the statements
    named in ``blocks``: a loop body's blocks, whose scatter into zeros its sweep reads
    as the block's entries (a diagonal: :func:`~.loop_blocks.block_entries`, the
    identity: ``regions._identity``)."""
    env = array_shapes(program)
    out = []
    for s in program.statements:
        if not any(isinstance(n, (Scatter, ScatterAdd)) for n in ir.walk(s.value)):
            out.append(s)
            continue
        shapes = node_shapes(s.value, env)
        stepped = s.target not in blocks

        def replace(n: Node, shapes=shapes, stepped=stepped) -> Node | None:
            if isinstance(n, Scatter):
                size, parts, total = n.size, [(n.flat, n.data)], None
            elif isinstance(n, ScatterAdd):
                shape = shapes.get(id(n))
                if not isinstance(shape, tuple) or len(shape) != 1:
                    return None
                size, parts, total = shape[0], list(n.parts), ir.rebuilt(n.base, replace)
            else:
                return None
            added = stepped and isinstance(n, ScatterAdd)
            pads = [_runs(constants, f, d, size, shapes, stepped, added) for f, d in parts]
            if all(p is None for p in pads):
                return None
            kept: list[tuple[Node, Node]] = []  # parts left scatter-adds, not yet added
            for found, (flat, data) in zip(pads, parts, strict=True):
                if found is None:
                    kept.append((flat, ir.rebuilt(data, replace)))
                    continue
                if kept:
                    total = ScatterAdd(_or_zeros(total, size), tuple(kept))
                    kept = []
                for pad in found:
                    pad = ir.rebuilt(pad, replace)
                    total = pad if total is None else BinOp("+", total, pad)
            return ScatterAdd(_or_zeros(total, size), tuple(kept)) if kept else total

        out.append(dataclasses.replace(s, value=ir.rebuilt(s.value, replace)))
    return out


def _or_zeros(total: Node | None, size: int) -> Node:
    return Call("zeros", (Const(size),)) if total is None else total


def _run(
    constants: Constants,
    flat: Node,
    data: Node,
    size: int,
    shapes: dict[int, Any],
    stepped: bool = True,
) -> Node | None:
    """``data`` at ``flat``'s positions of a vector of ``size`` zeros as a pad, where
    they are a module constant's positions inside it stepping evenly (a run of
    consecutive ones, one position, or with ``stepped`` every ``step``-th:
    :func:`spread`) and ``data`` holds one entry each (a float array: ``.at[]`` would
    cast another to the base's type); None otherwise."""
    if not _constant(flat, constants):
        return None
    held = constants.arrays.get(data.id) if isinstance(data, Name) else None
    if held is not None and held.dtype.kind != "f":
        return None
    positions = np.ravel(constants.arrays[flat.id])
    m = positions.size
    shape = shapes.get(id(data))
    if m == 0 or not isinstance(shape, tuple) or int(np.prod(shape)) != m:
        return None
    first = int(positions[0])
    if stepped and m > 1 and first >= 0:
        return spread(positions, data, size)
    if first < 0 or first + m > size or not np.array_equal(positions, first + np.arange(m)):
        return None
    return Call("pad", (Call("ravel", (data,)), Const(((first, size - first - m),))))


RUNS_MOST = 4
"""The most runs of consecutive positions a scatter-add's part is written in as pads
(:func:`_runs`). A program unrolled over many steps holds hundreds of small scatters at
a few runs each, which XLA's CPU compiles each as a loop of its own: ``batchrx`` (30 RK4
steps, a Jacobian of 12 entries, 1,200 scatter-adds of 3 entries at 2-3 runs into
vectors of 5-12) traced and compiled its 31 jitted pieces in 21-23 CPU-s, 13-14 with
them as pads (as gathers at an inverse index, 18.5: chains of gathers, compiled with
XLA's own emitters; benchmarks/RESULTS.md, speed62)."""


def _runs(
    constants: Constants,
    flat: Node,
    data: Node,
    size: int,
    shapes: dict[int, Any],
    stepped: bool,
    added: bool,
) -> list[Node] | None:
    """:func:`_run`'s pad alone, or else, for a scatter-add's part (``added``: not a
    scatter into zeros, whose ``-0.0`` the pads' sum would make ``+0.0``, nor a loop
    body's block), where ``flat``'s positions (a module constant) inside the vector are
    at most :data:`RUNS_MOST` runs of consecutive ones and ``data`` (a name, or one
    flattened) holds a float entry each, a pad of its slice per run, in the order of the
    positions. Added to the base in turn, each position receives the additions the
    scatter-add made, in the same order (and ``+0.0`` from the other pads). None
    otherwise."""
    one = _run(constants, flat, data, size, shapes, stepped)
    if one is not None or not added:
        return None if one is None else [one]
    flattened = isinstance(data, Call) and data.func == "ravel" and not data.keywords
    named = data.args[0] if flattened and len(data.args) == 1 else data
    if not (_constant(flat, constants) and isinstance(named, Name)):
        return None  # (an expression would be printed, and computed, once a run)
    held = constants.arrays.get(named.id)
    if held is not None and held.dtype.kind != "f":
        return None
    positions = np.ravel(constants.arrays[flat.id]).astype(np.int64)
    m = positions.size
    shape = shapes.get(id(data))
    if m < 2 or not isinstance(shape, tuple) or int(np.prod(shape)) != m:
        return None
    if positions.min() < 0 or positions.max() >= size:
        return None
    bounds = [0, *(np.flatnonzero(np.diff(positions) != 1) + 1).tolist(), m]
    if len(bounds) - 1 > RUNS_MOST:
        return None
    out: list[Node] = []
    for a, b in itertools.pairwise(bounds):
        first = int(positions[a])
        piece = Index(Call("ravel", (named,)), (ir.Slice(a, b),))
        out.append(Call("pad", (piece, Const(((first, size - first - (b - a)),)))))
    return out


def takes_as_broadcasts(program: ArrayProgram, constants: Constants) -> list[ArrayStatement]:
    """``program``'s statements with each ``take(x, K, axis=a)`` whose positions ``K``
    (a module constant) are one position ``k`` again and again written as the slice
    ``x[..., k:k+1, ...]`` broadcast to the gather's shape: a dense factor's column taken
    once for each entry of a sparse one's row (:mod:`.dense_gather`), which XLA compiles
    as a gather with its bounds checks, a broadcast fused with what reads it. The
    entries are the same, moved."""
    env = array_shapes(program)
    out = []
    for s in program.statements:
        if not any(isinstance(n, Call) and n.func == "take" for n in ir.walk(s.value)):
            out.append(s)
            continue
        shapes = node_shapes(s.value, env)

        def replace(n: Node, shapes=shapes) -> Node | None:
            if not (isinstance(n, Call) and n.func == "take" and len(n.args) == 2):
                return None
            x, at = n.args
            axis, shape, source = n.keyword("axis"), shapes.get(id(n)), shapes.get(id(x))
            if not _constant(at, constants) or not isinstance(axis, Const):
                return None
            if not (isinstance(shape, tuple) and isinstance(source, tuple) and source):
                return None
            positions = np.asarray(constants.arrays[at.id])
            a = int(axis.value) % len(source)
            k = int(positions.flat[0]) if positions.ndim == 1 and positions.size else -1
            if not 0 <= k < source[a] or np.any(positions != k) or len(n.keywords) != 1:
                return None
            items = tuple(
                ir.Slice(k, k + 1) if i == a else ir.Slice(None, None) for i in range(a + 1)
            )
            return Call("broadcast_to", (Index(ir.rebuilt(x, replace), items), Const(shape)))

        out.append(dataclasses.replace(s, value=ir.rebuilt(s.value, replace)))
    return out
