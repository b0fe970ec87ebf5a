"""A generated program's runs of large stacked arrays as a loop over slices of rows.

The cancellation pass evaluates such runs a slice at a time (:mod:`.slices`); the code
it checks held them whole at every call: the Hessian of ``Σ c·eigvalsh(D + 0.1 x xᵀ)``
holds three arrays of n × n² entries at once (3.2 GB at n = 512). :func:`chunked` finds
the same regions (:func:`~.slices.plan`) in the statements of the generated function
and writes each as a :class:`~dgraph.codegen.ir.Loop` (``jax.lax.scan``'s meaning, no
carries) of ``blocks / rows`` steps:

- its *xs*: the arrays the region reads along the sliced axis, each cut into the steps'
  slices (``reshape(x, (steps, rows·step, …))``, a view; read along another axis, that
  axis moved first, then moved back in the body), and a scatter-add's positions in each
  slice and the places of its data there (module constants; each step's as many);
- its *invariants*: the arrays read whole, and the subexpressions computed once
  (``once``: the eigen decomposition of the n × n matrix);
- its *ys*: the arrays read after the region, each step's slice; joined after the loop
  by a reshape of the stacked slices (``(steps, rows·step, …)`` → the whole shape).

Each step computes the same operations on the same entries as the whole statements did
(the module docstring of :mod:`.slices`), so the values are the same doubles; the arrays
of n³ entries then exist a slice at a time (at most :data:`~.slices.CHUNK_ENTRIES`
entries each). A region is written so only from :data:`LOOP_FROM` entries of its first
array; a scatter whose slices hold different numbers of positions leaves it as it is.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from ..array_passes import node_shapes
from ..ir import ArrayStatement, Call, Const, Item, Loop, LoopBody, Name, names_in
from . import slices
from .constants import Constants

__all__ = ["LOOP_FROM", "LOOP_PREFIX", "chunked"]

# a region of the generated code from a first array of more entries than this (the
# cancellation pass's own threshold, :data:`~.slices.CHUNK_FROM`, is 2²⁰)
LOOP_FROM = 2**20
# a loop's target starts so (the printed form of a Hessian's body knows its loops by it)
LOOP_PREFIX = "_chunks"


class _Fail(Exception):
    """A region not written as a loop."""


def chunked(
    statements: list[ArrayStatement],
    arguments: tuple[str, ...],
    shapes: Mapping[str, tuple | None],
    ends: set[str],
    constants: Constants,
) -> list[ArrayStatement] | None:
    """``statements`` with each region of :func:`~.slices.plan` a loop over its slices
    (the module docstring); None where none is found. ``arguments``: the function's;
    ``shapes``: the names' (the arguments', the constants'; a statement's not given is
    found from them);
    ``ends``: the names it returns; ``constants``: the module's (a scatter's positions in
    the slices are added to them)."""
    named = {k: v for k, v in shapes.items() if v is not None}
    named.update((k, np.shape(a)) for k, a in constants.arrays.items() if k not in named)
    named.update((k, v) for k, v in constants.shapes.items() if k not in named)
    varying = set(arguments)
    for s in statements:
        if s.target not in named:
            found = node_shapes(s.value, named).get(id(s.value))
            if not isinstance(found, tuple):
                return None  # a shape not found: nothing is moved
            named[s.target] = found
        if names_in(s.value) & varying:
            varying.add(s.target)
    schedule = slices.plan(
        statements, list(range(len(statements))), named, varying, set(ends), LOOP_FROM
    )
    if schedule is None:
        return None
    out: list[ArrayStatement] = []
    taken = {s.target for s in statements} | set(arguments) | set(constants.arrays)
    written = False
    for k, (kind, item) in enumerate(schedule):
        if kind == "statement":
            out.append(statements[item])
            continue
        try:
            out += _loop(item, named, constants, f"{LOOP_PREFIX}{k}", taken)
            written = True
        except _Fail:
            out += [statements[j] for j in item.indices]
    return out if written else None


def _loop(
    region: slices.Region,
    named: Mapping[str, tuple],
    constants: Constants,
    target: str,
    taken: set[str],
) -> list[ArrayStatement]:
    """``region``'s statements: its ``once`` statements, the loop, each exit joined."""
    steps = region.blocks // region.rows
    made = {s.target for s in region.statements}
    read = set().union(*(names_in(s.value) for s in region.statements))
    xs, arguments, body = [], [], []
    for name, how in region.slices.items():
        if how[0] == "slice":
            _, source, axis, extent = how
            shape = named[source]
            chunk = extent // region.blocks * region.rows
            rest = shape[:axis] + shape[axis + 1 :]
            if axis == 0:
                xs.append(Call("reshape", (Name(source), Const((steps, chunk, *rest)))))
                arguments.append(name)
                continue
            front = (axis, *(a for a in range(len(shape)) if a != axis))
            moved = Call("transpose", (Name(source), Const(front)))
            xs.append(Call("reshape", (moved, Const((steps, chunk, *rest)))))
            arguments.append(f"{name}_moved")
            back = tuple(int(a) for a in np.argsort(front))
            body.append(ArrayStatement(name, Call("transpose", (Name(f"{name}_moved"),
                                                                Const(back)))))  # fmt: skip
        else:
            _, source, extent, kept_name = how
            at = constants.arrays.get(source)
            if at is None or at.ndim != 1 or (at.size and at.min() < 0):
                raise _Fail  # positions known only at a call
            step = extent // region.blocks * region.rows
            parts = [np.flatnonzero((at >= t * step) & (at < (t + 1) * step)) for t in range(steps)]
            if len({p.size for p in parts}) != 1 or not parts[0].size:
                raise _Fail
            kept = np.stack(parts)
            places = np.stack([at[p] - t * step for t, p in enumerate(parts)])
            xs += [constants.index(places), constants.index(kept)]
            arguments += [name, kept_name]
    sliced = set(region.slices) | {how[3] for how in region.slices.values() if how[0] == "at"}
    whole = sorted(read - made - sliced - {b.target for b in body})
    invariants = [Name(n) for n in whole]
    arguments += whole
    if len(set(arguments)) != len(arguments) or target in taken:
        raise _Fail
    body += region.statements
    exits = list(region.exits)
    loop = Loop((), tuple(xs), tuple(invariants), LoopBody(tuple(arguments), tuple(body),
                tuple(exits)), steps)  # fmt: skip
    out = [*region.once, ArrayStatement(target, loop)]
    for j, name in enumerate(exits):
        shape = region.exits[name]
        out.append(ArrayStatement(name, Call("reshape", (Item(Name(target), j), Const(shape)))))
    if any(math.prod(region.exits[n]) == 0 for n in exits):
        raise _Fail
    return out
