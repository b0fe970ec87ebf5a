"""JAX gathers at constant positions of an array that only pads and reshapes a vector,
composed at generation: where the gather takes the padded array as it is, it is dropped;
where it takes the vector's entries in order at evenly stepping places and zeros
elsewhere, it is that spread (:func:`~.gathers.spread`: pads, no index read).

A symmetric Hessian's mirror pushed into a scatter's spread
(:func:`~.gathers.gathered`) leaves such gathers: Rosenbrock's values at 10⁶ unknowns
read ``pad(ravel(pad(reshape(d, (m, 1)), ((0, 0), (0, 2)))), ((0, 1),))[K]`` with ``K``
taking each row's ``d`` entry and its zeros (``3i + (0, 2, 2)``: the padded array
itself), and its lower triangle ``… [K]`` with ``K = 3i + (0, 2)`` (``d`` spread with
step 2) and ``pad(t, ((1, 0),))[arange]``. Which entry of the vector (or which padded
zero) each gathered entry is follows from the positions: the chain is evaluated here on
the vector's entries numbered from 1 (0: a padded zero). The values are the same, bit
for bit: entries are only moved, and a pad's zeros are ``+0.0`` in both forms.

A gather that stays one is kept as it is: XLA's CPU gather was faster than writing
periodic positions (``s·i + c_j``) as ``p`` strided slices stacked and flattened
(Rosenbrock's ``pad(t, ((1, 0),))[2i + (0, 1, 1)]``, 3·10⁶ entries: 6.3 ms of CPU
as a gather, 10-14 ms as slices; the whole Hessian 16-30 → 55 ms).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .. import ir
from ..array_passes import array_shapes, node_shapes
from ..ir import ArrayProgram, ArrayStatement, Call, Const, Index, Name, Node
from .constants import Constants
from .gathers import spread

__all__ = ["spread_gathers"]

_MOVES = ("ravel", "reshape", "pad")
PREFIX = 4096
"""Positions looked at first (:func:`_composed`)."""


def spread_gathers(program: ArrayProgram, constants: Constants) -> list[ArrayStatement]:
    """``program``'s statements with each gather of a padded, reshaped vector at
    constant positions dropped or written as a spread where it is one (module
    docstring)."""
    if not any(_candidate(n, constants) for s in program.statements for n in ir.walk(s.value)):
        return list(program.statements)
    env = array_shapes(dataclasses.replace(program, constant_shapes=dict(constants.shapes)))
    out = []
    for s in program.statements:
        if s.at or not any(_candidate(n, constants) for n in ir.walk(s.value)):
            out.append(s)
            continue
        shapes = node_shapes(s.value, env)

        def replace(n: Node, shapes=shapes) -> Node | None:
            return _composed(n, shapes, constants) if _candidate(n, constants) else None

        out.append(dataclasses.replace(s, value=ir.rebuilt(s.value, replace)))
    return out


def _candidate(n: Node, constants: Constants) -> bool:
    """Whether ``n`` gathers at a 1-D integer constant from a chain of moves holding a
    pad."""
    if not (isinstance(n, Index) and len(n.items) == 1 and isinstance(n.items[0], Name)):
        return False
    at = constants.arrays.get(n.items[0].id)
    if at is None or at.ndim != 1 or at.dtype.kind not in "iu":
        return False
    return any(isinstance(k, Call) and k.func == "pad" for k in _chain(n.value)[0])


def _chain(x: Node) -> tuple[list[Call], Node]:
    """The moves from ``x`` down (outermost first) and the node they move."""
    moves = []
    while isinstance(x, Call) and x.func in _MOVES and not x.keywords and x.args:
        shaped = x.func == "ravel" and len(x.args) == 1
        fixed = len(x.args) == 2 and isinstance(x.args[1], Const)
        if not (shaped or (x.func != "ravel" and fixed)):
            break
        moves.append(x)
        x = x.args[0]
    return moves, x


def _composed(n: Index, shapes: dict, constants: Constants) -> Node | None:
    """The gather ``n`` composed with its moves: the padded array, a spread of the
    moved vector, or None (kept). Its first :data:`PREFIX` positions are looked at
    first: where they are neither, the whole is not (most gathers asked about)."""
    moves, leaf = _chain(n.value)
    shape = shapes.get(id(leaf))
    if not isinstance(shape, tuple):
        return None
    size = int(np.prod(shape, dtype=np.int64))
    kind = np.int32 if size < 2**31 - 1 else np.int64
    numbered = np.arange(1, size + 1, dtype=kind).reshape(shape)  # 0: a padded zero
    try:
        for m in reversed(moves):
            if m.func == "ravel":
                numbered = np.ravel(numbered)
            elif m.func == "reshape":
                numbered = np.reshape(numbered, m.args[1].value)
            else:
                numbered = np.pad(numbered, m.args[1].value)
    except (ValueError, TypeError):
        return None
    flat = np.ravel(numbered)
    at = constants.arrays[n.items[0].id]
    if at.size == 0 or int(at.min()) < 0 or int(at.max()) >= flat.size:
        return None  # (JAX clamps an index out of range: kept as written)
    if at.size > 2 * PREFIX and _form(flat[at[:PREFIX]], flat[:PREFIX], None) is None:
        return None
    form = _form(flat[at], flat, size)
    if isinstance(form, str):  # "whole"
        return n.value if len(numbered.shape) == 1 else Call("ravel", (n.value,))
    return None if form is None else spread(form, leaf, int(at.size))


def _form(taken: np.ndarray, flat: np.ndarray, size: int | None):
    """``"whole"`` where ``taken`` is ``flat`` (the gather takes the padded array as it
    is); the places of the vector's ``size`` entries where ``taken`` holds them in order
    at evenly stepping places, zeros elsewhere; else None. ``size`` None: ``taken`` and
    ``flat`` are prefixes, each form checked as far as they go."""
    if taken.size == flat.size and np.array_equal(taken, flat):
        return "whole"
    places = np.flatnonzero(taken)
    count = places.size if size is None else size
    if places.size != count or not np.array_equal(taken[places], np.arange(1, count + 1)):
        return None
    if places.size > 2 and np.any(np.diff(places, 2)):
        return None  # not evenly stepping
    return places
