"""Entries a constant fixes, left out of the blocks: exact patterns under a constant mask.

Causal attention writes its mask into the scores, ``where(tril, s, -inf)``; the masked
scores are ``-inf`` whatever the inputs, ``exp`` of them is 0, and ``a @ v`` never reads
``v``'s later rows. Each operation's block alone cannot see that (``exp``'s partial is
``exp(s)``, ``a @ v``'s is ``a``); walking the graph in order with
:func:`~dgraph.blocks.known_entries.known_result` finds every vertex's known entries, and
each operation that reads some records them (the ``known`` parameter:
:func:`~dgraph.blocks.arrays.known_operand`), so that its blocks leave out the partials
they make zero (:func:`~dgraph.blocks.arrays.narrowed`) wherever the blocks are made:
the sparse Jacobian's pattern, the Hessian's (the gradient graph is read the same way),
the code. A predicate that depends on the inputs fixes nothing.

>>> from dgraph.blocks.arrays import ArrayOp, Const
>>> g = DGraph("f")
>>> g.add_array_vertex("s", "input", (2,))
>>> masked = ArrayOp("select_n", (Const.of([False, True]), "s", Const.of(-np.inf)), (), (2,))
>>> g.add_array_vertex("m", "intermediate", (2,), masked)
>>> g.add_array_vertex("y", "output", (2,), ArrayOp("exp", ("m",), (), (2,)))
>>> known_entries(g).block("m", "y").nnz
1
"""

from __future__ import annotations

import numpy as np

from ..blocks.arrays import ELEMENTWISE, KNOWN, REGIONS, ArrayOp, Const, operand_block
from ..blocks.known_entries import known_result
from .graph import DGraph

__all__ = ["known_entries"]


def known_entries(graph: DGraph) -> DGraph:
    """``graph`` with each operation that reads known entries of a vertex recording them,
    where that leaves a partial out of one of its blocks; ``graph`` itself where none."""
    if not graph.is_tensor:
        return graph
    known: dict[str, np.ndarray] = {}
    changed: dict[str, ArrayOp] = {}
    for v in graph.order():
        op = graph.op(v)
        if op is None or op.primitive in REGIONS:
            continue
        shapes = [graph._operand_shape(x) for x in op.operands]
        found = known_result(op, known.get, shapes)
        if found is not None:
            known[v] = found
        reads = tuple(
            Const.of(known[x]) if isinstance(x, str) and x in known else None for x in op.operands
        )
        if any(r is not None for r in reads) and _may_narrow(op):
            marked = ArrayOp(op.primitive, op.operands, (*op.params, (KNOWN, reads)), op.shape)
            if _narrower(op, marked, shapes):
                changed[v] = marked
    if not changed:
        return graph
    return graph.with_array_vertices(
        (v, graph.role(v), graph.shape(v), changed.get(v, graph.op(v))) for v in graph.order()
    )


def _may_narrow(op: ArrayOp) -> bool:
    """Whether known operand entries can make a partial of ``op`` zero (an elementwise
    rule, a product's factor, a max's one-hot); a move's or a sum's partials are ones
    whatever they are."""
    return op.primitive in ELEMENTWISE or op.primitive in _NARROWING


_NARROWING = frozenset({"integer_pow", "dot_general", "reduce_max", "reduce_min"})


def _narrower(op: ArrayOp, marked: ArrayOp, shapes: list[tuple[int, ...]]) -> bool:
    """Whether ``marked`` leaves a partial out of a block that ``op`` keeps."""
    for k in op.differentiable():
        if operand_block(marked, k, shapes).nnz < operand_block(op, k, shapes).nnz:
            return True
    return False
