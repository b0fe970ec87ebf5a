"""Scatters at constant positions written as gathers, for JAX: XLA's CPU scatter runs one
update at a time (with the computation of its updates fused into that loop), while a
gather is vectorized — the final assembly of a Hessian's values at 10⁶ unknowns took
some 5-10x longer as ``base.at[K].add(d)`` than as ``base + pad(d, (1, 0))[inv]``
(``inv``: each position's place in ``d`` plus one, 0 where ``d`` has none: the padded
zero). The sums are the same, in the same order, so the values are equal bit for bit."""

from __future__ import annotations

import dataclasses

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

__all__ = ["GATHER_FROM", "scatters_as_gathers"]

GATHER_FROM = 100_000
"""The least vector length written as a gather: below it XLA's scatter was the faster
(a Hessian's assembly at 10⁴ unknowns, 3·10⁴ entries: 80 µs median as scatters, 92 µs
as gathers; at 10⁶, 3·10⁶ entries: 164 ms against 35 ms)."""


def scatters_as_gathers(program: ArrayProgram, constants: Constants) -> list[ArrayStatement]:
    """``program``'s statements with each :class:`~dgraph.codegen.ir.Scatter` and
    :class:`~dgraph.codegen.ir.ScatterAdd` of at least :data:`GATHER_FROM` entries at
    positions that are module constants written as gathers of its data padded by one
    zero (module docstring)."""
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
            total = None if isinstance(n, Scatter) else Call("ravel", (n.base,))
            for g in gathers:
                total = g if total is None else BinOp("+", total, g)
            return total if total is not None else Call("zeros", (Const(size),))

        out.append(dataclasses.replace(s, value=ir.rebuilt(s.value, replace)))
    return out


def _constant(flat: Node, constants: Constants) -> bool:
    return isinstance(flat, Name) and flat.id in constants.arrays


def _gather(constants: Constants, flat: Name, data: Node, size: int) -> Node:
    """``data`` at the positions ``flat`` of a vector of ``size`` zeros, as a gather."""
    positions = np.ravel(constants.arrays[flat.id])
    inverse = np.zeros(size, dtype=np.int64)
    inverse[positions] = np.arange(1, positions.size + 1)
    padded = Call("pad", (Call("ravel", (data,)), Const(((1, 0),))))
    return Index(padded, (constants.index(inverse),))
