"""JAX gathers at grid positions (:mod:`.grid_index`) written as slices: XLA computes a
gather's entries by reading an index each, a slice's from their place, and fuses a slice
into the elementwise loop that reads it.

``v[K]`` of a vector ``v`` with ``K`` one grid ``o + Σ s_k·i_k`` over a box becomes
``v[o:…:s]`` (1-D) or ``v[o:o + d₀s₀]`` reshaped into blocks and sliced (n-D; a padded
tail where the last block runs past ``v``'s end; an axis of stride 0 broadcast, but in
a concatenation of fewer than :data:`~.gathers.GATHER_FROM` entries, where XLA's loop was
slower than the gather: 26 against 16 µs at 2·10⁴ entries),
flattened. An index that is a few (:data:`PIECES`) such grids one after the other (the
rows at a grid's edges with fewer entries), or rows of a few grids each repeated with
constant shifts, is their concatenation (rows: concatenated along the row, then
flattened). The same entries in the same order. A gather of a flattened n-D array stays
one: XLA fuses the flattening into each slice, recomputing the array's producers.
"""

from __future__ import annotations

import dataclasses

from .. import ir
from ..array_passes import array_shapes, node_shapes
from ..ir import ArrayProgram, ArrayStatement, Call, Const, Index, Name, Node, Seq
from .constants import Constants
from .gathers import GATHER_FROM
from .grid_index import Grid, Piece, pieces

__all__ = ["grid_gathers", "grid_view"]

SHORT = 4
"""The longest axis stacked from one view per index."""
PIECES = 3
"""The most grids one gather is written as: a concatenation of more (rows of grids, the
minimal surface's entries) made XLA's CPU loop, which picks each entry's operand by
comparisons, up to twice as slow as the gather at 10⁴-10⁵ entries."""
STACK = True
"""Whether an axis of overlapping neighbours (each entry and the next) is stacked from
one view per index."""


def grid_gathers(program: ArrayProgram, constants: Constants) -> list[ArrayStatement]:
    """``program``'s statements with each gather of a vector at constant positions that
    are grids (module docstring) written as slices. What is found of an index constant
    (its largest entry, its pieces) is kept with ``constants`` for the next program."""
    env = array_shapes(dataclasses.replace(program, constant_shapes=dict(constants.shapes)))
    cache: dict[str, tuple[int, list[Piece] | None]] = constants.__dict__.setdefault(
        "jax_grid_pieces", {}
    )
    out = []
    for s in program.statements:
        if not any(_candidate(n, constants) is not None for n in ir.walk(s.value)):
            out.append(s)  # no gather at an index constant: nothing to find
            continue
        shapes = node_shapes(s.value, env)

        def replace(n: Node, shapes=shapes) -> Node | None:
            a = _candidate(n, constants)
            if a is None:
                return None
            key = n.items[0].id
            shape = shapes.get(id(n.value))
            if not (isinstance(shape, tuple) and len(shape) == 1):
                return None
            if key not in cache:
                cache[key] = (int(a.max()), pieces(a, limit=PIECES, period=1))
            largest, found = cache[key]
            if largest >= shape[0]:
                return None  # (a length the positions run past: not this vector's)
            if found is None:
                return None
            if not _vector(n.value, env):
                return None  # XLA would fuse the flattening of an n-D array into each slice
            inner = ir.rebuilt(n.value, replace)
            return _assembled(inner, shape[0], found)

        out.append(dataclasses.replace(s, value=ir.rebuilt(s.value, replace)))
    replace = None  # type: ignore[assignment]  # it calls itself: no cycle holding the
    return out  # module's constants while cyclic collection is paused


def _candidate(n: Node, constants: Constants):
    """The index constant ``n`` gathers a vector at (one integer vector of two or more
    entries), or None."""
    if not (isinstance(n, Index) and len(n.items) == 1 and isinstance(n.items[0], Name)):
        return None
    a = constants.arrays.get(n.items[0].id)
    if a is None or a.ndim != 1 or a.dtype.kind not in "iu" or a.size < 2:
        return None
    return a


def _assembled(x: Node, length: int, found: list[Piece]) -> Node | None:
    """The entries of the vector ``x`` (of ``length``) at the pieces, in the order of their
    places, as slices; None where the pieces do not tile their places as runs or rows."""
    small = sum(p.own.size for p in found) < GATHER_FROM
    if small and len(found) > 1 and any(_repeats(p.at) for p in found):
        return None  # XLA's loop over a concatenation of broadcasts: slower than the gather
    parts: list[Node] = []
    cur, i = 0, 0
    while i < len(found):
        p = found[i]
        if p.own.offset != cur:
            return None
        if _contiguous(p.own):
            view = grid_view(x, length, p.at)
            if view is None:
                return None
            parts.append(_flat(view, p.own.size))
            cur += p.own.size
            i += 1
            continue
        count, block = p.own.shape[0], p.own.strides[0]
        row, covered = [], 0
        while covered < block and i < len(found):
            q = found[i]
            inner = Grid(q.own.offset, q.own.shape[1:], q.own.strides[1:])
            ok = q.own.shape[0] == count and q.own.strides[0] == block
            if not (ok and inner.offset == cur + covered and _contiguous(inner)):
                return None
            view = grid_view(x, length, q.at)
            if view is None:
                return None
            row.append(Call("reshape", (view, Const((count, inner.size)))))
            covered += inner.size
            i += 1
        if covered != block:
            return None
        rows = (
            row[0]
            if len(row) == 1
            else Call("concatenate", (Seq(tuple(row)),), (("axis", Const(1)),))
        )
        parts.append(_flat(rows, count * block))
        cur += count * block
    if len(parts) == 1:
        return parts[0]
    return Call("concatenate", (Seq(tuple(parts)),))


def _repeats(g: Grid) -> bool:
    """Whether the grid repeats an entry along an axis (stride 0: a broadcast)."""
    return any(n > 1 and s == 0 for n, s in zip(g.shape, g.strides, strict=True))


def _vector(node: Node, env: dict) -> bool:
    """Whether ``node`` is a name of a vector, or one flattened."""
    if isinstance(node, Call) and node.func == "ravel" and len(node.args) == 1:
        node = node.args[0]
    shape = env.get(node.id) if isinstance(node, Name) else None
    return isinstance(shape, tuple) and len(shape) == 1


def _flat(node: Node, size: int) -> Node:
    """``node`` (``size`` entries) as a vector."""
    if isinstance(node, Index) and len(node.items) == 1:  # a slice of a vector already
        return node
    return Call("reshape", (node, Const((size,))))


def _contiguous(g: Grid) -> bool:
    """Whether the grid's integers are consecutive, in C order."""
    step = 1
    for n, s in zip(reversed(g.shape), reversed(g.strides), strict=True):
        if n > 1 and s != step:
            return False
        step *= n
    return True


def grid_view(x: Node, length: int, g: Grid) -> Node | None:
    """The entries of the vector ``x`` (of ``length``) at the grid ``g``, as an array of
    ``g``'s shape made of slices and reshapes (module docstring); an axis that keeps the
    others from being blocks (two neighbours, its stride less than their span) stacked
    from one view per index where it is short. None where that does not do, or for a
    negative stride."""
    if any(s < 0 for s in g.strides):
        return None
    axes = [k for k, (n, s) in enumerate(zip(g.shape, g.strides, strict=True)) if n > 1 and s > 0]
    dims = [g.shape[k] for k in axes]
    strides = [g.strides[k] for k in axes]
    o = g.offset
    made = tuple(dims) or (1,)  # the shape of the slices below
    if not axes:
        core: Node = Index(x, (ir.Slice(o, o + 1, None),))
    elif len(axes) == 1:
        stop = o + strides[0] * (dims[0] - 1) + 1
        core = Index(x, (ir.Slice(o, stop, None if strides[0] == 1 else strides[0]),))
    elif all(
        strides[k] % strides[k + 1] == 0 and strides[k] >= strides[k + 1] * dims[k + 1]
        for k in range(len(axes) - 1)
    ):
        need = o + dims[0] * strides[0]
        source = x if need <= length else Call("pad", (x, Const(((0, need - length),))))
        blocks = [dims[0], *(strides[k] // strides[k + 1] for k in range(len(axes) - 1))]
        items = [ir.Slice(None, None, None), *(ir.Slice(0, d, None) for d in dims[1:])]
        if strides[-1] > 1:
            blocks.append(strides[-1])
            items.append(ir.Slice(0, 1, None))
            made = (*made, 1)
        taken = Index(source, (ir.Slice(o, need, None),))
        core = Index(Call("reshape", (taken, Const(tuple(blocks)))), tuple(items))
    else:
        return _stacked(x, length, g, axes)
    ones = tuple(n if k in axes else 1 for k, n in enumerate(g.shape))
    if ones != made:
        core = Call("reshape", (core, Const(ones)))
    if ones == g.shape:
        return core
    return Call("broadcast_to", (core, Const(tuple(g.shape))))


def _stacked(x: Node, length: int, g: Grid, axes: list[int]) -> Node | None:
    """:func:`grid_view` stacked along its shortest axis (of at most ``SHORT``), one view
    of the others per index there."""
    k = min(axes, key=lambda j: g.shape[j])
    if g.shape[k] > SHORT or not STACK:
        return None
    shape, strides = g.shape[:k] + g.shape[k + 1 :], g.strides[:k] + g.strides[k + 1 :]
    views = []
    for j in range(g.shape[k]):
        view = grid_view(x, length, Grid(g.offset + j * g.strides[k], shape, strides))
        if view is None:
            return None
        views.append(view)
    return Call("stack", (Seq(tuple(views)),), (("axis", Const(k)),))
