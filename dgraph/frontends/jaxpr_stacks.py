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

from ..errors import InputError
from .jaxpr_linalg import STACK_MOST, matrices_of, stacked
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
