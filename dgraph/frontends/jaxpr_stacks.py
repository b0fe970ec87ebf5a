"""Linear algebra of a stack of matrices in a jaxpr, read one matrix at a time.

JAX's ``cholesky``, ``triangular_solve``, ``eigh``, ``svd`` and ``qr`` take operands of
shape ``(..., m, n)``: what ``vmap`` and ``jnp.linalg`` make of a stack. A stack of small
matrices is one operation each result (:func:`dgraph.blocks.linalg.batched`: its block
diagonal over the batch axes), the operations NumPy's reader makes of ``np.linalg.eigh``
of a stack; one of larger matrices is read as one equation per matrix, each operand's
matrix sliced out of its stack and each result stacked back into the batch axes
(:func:`dgraph.frontends.array_tracer._per_matrix`). The Hessian's gradient program holds
them too (JAX's rules for these primitives are batched again).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from ..blocks import linalg
from ..errors import InputError
from .jaxpr_eig import EIG_VALUES
from .jaxpr_linalg import STACK_MOST, matrices_of, stacked
from .jaxpr_scatter import read_indexed

__all__ = ["STACKED", "read_stacked"]

STACKED = frozenset({"cholesky", "triangular_solve", "eigh", "svd", "qr", EIG_VALUES})


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
    one = _OneMatrix(eqn, len(batch))
    whole = _batched(reader, eqn, one, ins, batch) if count else None
    if whole is not None:
        return whole
    if not 0 < count <= STACK_MOST:
        raise InputError(
            f"{reader.where}: {eqn.primitive.name} of a stack of {count:,} matrices (from 1 to"
            f" {STACK_MOST:,}: one operation each)"
        )
    split = [
        matrices_of(reader, x, v.aval, len(batch)) for x, v in zip(ins, eqn.invars, strict=True)
    ]
    per_matrix = []
    for k in range(count):
        found = read_indexed(one, [m[k] for m in split], reader.where)
        found = found if isinstance(found, list) else [found]
        per_matrix.append(
            [reader.result(op, v.aval) for op, v in zip(found, one.outvars, strict=True)]
        )
    return [
        stacked(reader, [parts[j] for parts in per_matrix], tuple(m.aval.shape), v.aval)
        for j, (m, v) in enumerate(zip(one.outvars, eqn.outvars, strict=True))
    ]


def _batched(reader: Any, eqn: Any, one: _OneMatrix, ins: list[Any], batch: tuple) -> Any:
    """The results of a stacked equation as one operation each over the whole stack
    (each matrix's operation with the batch axes put before its result's), where its
    matrices are small enough (:func:`dgraph.blocks.linalg.batched`) and its operands'
    batch axes the stack's (or, for a right-hand side, none); else None."""
    cores = [tuple(v.aval.shape) for v in one.invars]
    if not all(linalg.batched(tuple(o.aval.shape), *cores) for o in one.outvars):
        return None
    found = read_indexed(one, ins, reader.where)
    ops = [
        dataclasses.replace(op, shape=(*batch, *op.shape))
        for op in (found if isinstance(found, list) else [found])
    ]
    try:
        for op in ops:
            linalg.check(op, [tuple(int(n) for n in v.aval.shape) for v in eqn.invars])
    except InputError:
        return None
    return [reader.result(op, v.aval) for op, v in zip(ops, eqn.outvars, strict=True)]
