"""Branches of a jaxpr (``cond``: ``lax.cond`` and ``lax.switch``) read as regions
(:mod:`dgraph.core.branches`).

Each branch's jaxpr is read once, by the same reader as the program around it (a loop
or a branch inside a branch is a region of the branch's graph), into a tensor graph of
its own; each output of the equation is a vertex ``ArrayOp("cond", operands,
(("region", R), ("output", j)))``, operand 0 the index (a nested operation: no
derivative flows through it). An index that is a constant selects its branch while
reading: the branch is read in place, no region.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..blocks.arrays import ArrayOp
from ..core.branches import Branches
from ..errors import InputError
from .jaxpr_loops import is_opaque, read_body

__all__ = ["read_clamp", "read_cond"]


def read_cond(reader, eqn, ins: list[Any]) -> list[Any]:
    """The values of a ``cond`` equation's outputs: vertices of one region where a
    derivative flows, nested operations otherwise."""
    branches = eqn.params["branches"]
    index, operands = ins[0], ins[1:]
    if isinstance(index, np.ndarray):  # a constant choice: that branch, in place
        chosen = min(max(int(index.reshape(-1)[0]), 0), len(branches) - 1)
        closed = branches[chosen]
        return reader.run(closed.jaxpr, closed.consts, operands)
    if is_opaque(index) or not isinstance(index, ArrayOp):
        raise InputError(
            f"{reader.where}: the index of cond reads"
            f" {getattr(index, 'primitive', '?')!r}, which is not supported at the array level"
        )
    names = [f"k{i}" for i in range(len(operands))]
    roles = ["k"] * len(operands)
    bodies = []
    for b, closed in enumerate(branches):
        avals = [v.aval for v in closed.jaxpr.invars]
        where = f"{reader.where}: branch {b} of cond"
        bodies.append(read_body(reader, closed, names, roles, avals, operands, where))
    region = Branches(
        branches=bodies,
        operand_shapes=[tuple(v.aval.shape) for v in eqn.invars],
        out_shapes=[tuple(v.aval.shape) for v in eqn.outvars],
        active=[isinstance(x, str) for x in ins],
        name=reader.where,
    )
    args = tuple(reader.operand(x) for x in ins)
    outs = []
    for j, var in enumerate(eqn.outvars):
        op = ArrayOp("cond", args, (("region", region), ("output", j)), tuple(var.aval.shape))
        outs.append(reader.result(op, var.aval))
    return outs


def read_clamp(reader, ins: list[Any], shape: tuple[int, ...]) -> ArrayOp:
    """An integer ``clamp(lo, x, hi)`` (the index ``lax.switch`` clamps into its
    branches) as ``min(max(x, lo), hi)``: a nested operation, no derivative."""
    lo, x, hi = (reader.operand(v) for v in ins)
    return ArrayOp("min", (ArrayOp("max", (x, lo), (), shape), hi), (), shape)
