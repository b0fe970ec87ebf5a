"""Linear algebra of a stack of matrices in a jaxpr, read one matrix at a time.

JAX's ``cholesky``, ``triangular_solve``, ``eigh``, ``svd`` and ``qr`` take operands of
shape ``(..., m, n)``: what ``vmap`` and ``jnp.linalg`` make of a stack. The array model
holds these operations for one matrix (:mod:`dgraph.blocks.linalg`,
:mod:`dgraph.blocks.decompositions`), so a stacked equation is read as one equation per
matrix, each operand's matrix sliced out of its stack and each result stacked back into
the batch axes: the operations NumPy's reader makes of ``np.linalg.eigh`` of a stack
(:func:`dgraph.frontends.array_tracer._per_matrix`), and those the Hessian's gradient
program holds (JAX's rules for these primitives are batched again).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..blocks.arrays import ArrayOp
from ..errors import InputError
from .jaxpr_linalg import STACK_MOST
from .jaxpr_scatter import read_indexed

__all__ = ["STACKED", "read_stacked"]

STACKED = frozenset({"cholesky", "triangular_solve", "eigh", "svd", "qr"})


class _Unbatched:
    """A variable seen at one matrix of its stack: its aval without the batch axes."""

    def __init__(self, var: Any, rank: int) -> None:
        self.aval = var.aval.update(shape=tuple(var.aval.shape)[rank:])


class _OneMatrix:
    """``eqn`` at one matrix of its stack: the same primitive and parameters, every
    operand and result without the ``rank`` batch axes."""

    def __init__(self, eqn: Any, rank: int) -> None:
        self.primitive, self.params = eqn.primitive, eqn.params
        self.invars = [_Unbatched(v, rank) for v in eqn.invars]
        self.outvars = [_Unbatched(v, rank) for v in eqn.outvars]


def read_stacked(reader: Any, eqn: Any, ins: list[Any]) -> list[Any] | None:
    """The results of a :data:`STACKED` equation whose operands have batch axes, each an
    operation per matrix stacked into them; None for any other equation.

    Raises
    ------
    InputError
        For a stack of more than :data:`STACK_MOST` matrices, or of none.
    """
    if eqn.primitive.name not in STACKED or len(eqn.invars[0].aval.shape) <= 2:
        return None
    batch = tuple(int(n) for n in eqn.invars[0].aval.shape[:-2])
    count = math.prod(batch)
    if not 0 < count <= STACK_MOST:
        raise InputError(
            f"{reader.where}: {eqn.primitive.name} of a stack of {count:,} matrices (from 1 to"
            f" {STACK_MOST:,}: one operation each)"
        )
    one = _OneMatrix(eqn, len(batch))
    split = [_matrices(reader, x, v.aval, len(batch)) for x, v in zip(ins, eqn.invars, strict=True)]
    per_matrix = []
    for k in range(count):
        found = read_indexed(one, [m[k] for m in split], reader.where)
        found = found if isinstance(found, list) else [found]
        per_matrix.append(
            [reader.result(op, v.aval) for op, v in zip(found, one.outvars, strict=True)]
        )
    return [
        _stacked(reader, [parts[j] for parts in per_matrix], tuple(m.aval.shape), v.aval)
        for j, (m, v) in enumerate(zip(one.outvars, eqn.outvars, strict=True))
    ]


def _matrices(reader: Any, x: Any, aval: Any, rank: int) -> list[Any]:
    """The matrices of ``x`` (its last two axes) in row-major order of its ``rank`` batch
    axes: slices of a traced array, or NumPy's of a constant one."""
    shape = tuple(int(n) for n in aval.shape)
    core, count = shape[rank:], math.prod(shape[:rank])
    if isinstance(x, np.ndarray):
        return list(np.asarray(x).reshape((count, *core)))
    flat = reader.operand(reader.result(ArrayOp("reshape", (x,), (), (count, *core)), aval))
    parts = []
    for k in range(count):
        params = (("start_indices", (k, *(0 for _ in core))), ("limit_indices", (k + 1, *core)),
                  ("strides", None))  # fmt: skip
        piece = reader.result(ArrayOp("slice", (flat,), params, (1, *core)), aval)
        parts.append(reader.operand(reader.result(
            ArrayOp("reshape", (reader.operand(piece),), (), core), aval)))  # fmt: skip
    return parts


def _stacked(reader: Any, parts: list[Any], core: tuple[int, ...], aval: Any) -> Any:
    """``parts`` (one array of shape ``core`` per matrix of the stack) stacked into
    ``aval``'s shape."""
    shape = tuple(int(n) for n in aval.shape)
    ones = [
        reader.operand(
            reader.result(ArrayOp("reshape", (reader.operand(p),), (), (1, *core)), aval)
        )
        for p in parts
    ]
    joined = ArrayOp("concatenate", tuple(ones), (("dimension", 0),), (len(parts), *core))
    flat = reader.operand(reader.result(joined, aval))
    return reader.result(ArrayOp("reshape", (flat,), (), shape), aval)
