"""A loop body's sparse Jacobian block times a tangent matrix, in generated code.

Inside a loop region's ``jacobian`` code (:mod:`.regions`) each step updates the tangent
matrix ``D`` (rows the carry's entries, columns every active input's) by the body's
blocks, ``D ← Σ J_block·D_input``. A body block that the body program scatters into a
dense array from a sparse pattern (a stencil's: 3 entries a row) is multiplied by its
entries instead: a gather of D's rows at the pattern's columns, a multiply by the
entries, a segment sum into the pattern's rows — nnz·w multiplications a step, not
m·n·w (a 1-D stencil on 1,000 cells: 3·10³ entries against 10⁶).
"""

from __future__ import annotations

import numpy as np

from ..ir import ArrayProgram, BinOp, Call, Const, Index, Name, Node, Scatter, SegmentSum

__all__ = ["SPARSE_BELOW", "sparse_product"]

SPARSE_BELOW = 0.2  # a block filled below this fraction is multiplied by its entries


def sparse_product(
    program: ArrayProgram, block: str, rows_out: int, width: int, tangent: Node, constant
) -> Node | None:
    """``J·D`` for the body block named ``block`` (``rows_out`` rows) and the tangent
    matrix ``tangent`` (its input's entries × ``width``) by the block's entries, or None
    where the block is not a sparse pattern's scatter (then the caller multiplies it
    dense). ``constant(array)`` names an index array the loop passes in."""
    found = next((s for s in program.statements if s.target == block), None)
    value = None if found is None else found.value
    if not (
        isinstance(value, Call)
        and value.func == "reshape"
        and isinstance(value.args[0], Scatter)
        and isinstance(value.args[0].flat, Name)
        and value.args[0].flat.id in program.constants
    ):
        return None
    scatter = value.args[0]
    flat = np.asarray(program.constants[scatter.flat.id], dtype=np.int64).reshape(-1)
    if flat.size >= SPARSE_BELOW * scatter.size or not width:
        return None
    cols_in = scatter.size // rows_out
    rows, cols = flat // cols_in, flat % cols_in
    ids = (rows[:, None] * width + np.arange(width)).reshape(-1)
    entries = Call("reshape", (scatter.data, Const((-1, 1))))
    gathered = Index(tangent, (constant(cols),))
    products = Call("ravel", (BinOp("*", entries, gathered),))
    total = SegmentSum(products, constant(ids), rows_out * width)
    return Call("reshape", (total, Const((rows_out, width))))
