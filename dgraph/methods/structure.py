"""What ``dgraph structure`` reports of a graph: sizes and paths, Zhou's levels, chains
and blocks, and Murota-Kubota's umbrellas and closed umbrellas; of a tensor graph also
each vertex's shape and each edge's Jacobian block (its structure type, as the papers
write it, its shape and sizes), how many edges carry each type, and the accumulated
Jacobian's blocks with their nonzeros per row (the sparse pattern a solver gets)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import sympy

from ..blocks import Block, Sparse, pattern
from ..blocks.arrays import describe
from ..blocks.permutation import Permutation, entry_rows
from ..core.graph import DGraph
from ..core.paths import count_paths, path_length
from ..dominance.umbrellas import closed_umbrellas, umbrellas
from ..elimination.kernel import BLOCKS, Elimination
from ..zhou.structure import zhou_structure

__all__ = ["block_text", "jacobian_pattern", "structure", "tensor_structure"]


def structure(graph: DGraph) -> dict[str, Any]:
    """The structures every method reads, as plain data (``dgraph structure --json``).

    >>> from dgraph.frontends import bundled
    >>> s = structure(bundled("naumann_sin.trace"))
    >>> s["paths"], len(s["umbrellas"]), s["expressions"]["v2"]
    (3, 1, 'v1*x0')
    """
    return {
        "inputs": graph.inputs,
        "outputs": graph.outputs,
        "intermediates": graph.intermediates,
        "parameters": list(graph.parameters),
        # each vertex's elemental function, as text (sympy's sstr), where the graph has it
        "expressions": {
            v: sympy.sstr(graph.expr(v)) for v in graph.order() if graph.expr(v) is not None
        },
        "edges": [list(e) for e in graph.edges()],
        "paths": count_paths(graph),
        "path_length": path_length(graph),
        **zhou_structure(graph),
        "closed_umbrellas": [c.to_dict() for c in closed_umbrellas(graph)],
        "umbrellas": [u.to_dict() for u in umbrellas(graph)],
        **(tensor_structure(graph) if graph.is_tensor else {}),
    }


def block_text(graph: DGraph, u: str, v: str) -> str:
    """The block ∂v/∂u of a tensor graph as the papers write it (``I ⊗ Wᵀ``; a sum where
    ``u`` fills several operands of ``v``'s operation), else its structure type."""
    op = graph.op(v)
    texts = [describe(op, k) for k in op.differentiable() if op.operands[k] == u] if op else []
    return " + ".join(texts) or graph.block(u, v).type_name


def tensor_structure(graph: DGraph) -> dict[str, Any]:
    """A tensor graph's shapes and blocks: ``tensor`` (true), ``shapes`` (vertex ->
    shape), ``edge_blocks`` (per edge, in edge order: its ``type``, the ``block`` as the
    papers write it, its ``shape`` [output's, input's], the entries that may be nonzero,
    ``nnz``, and the values kept, ``stored``), ``block_counts`` (type -> edges) and
    ``jacobian_blocks`` (:func:`jacobian_pattern`).

    >>> from dgraph.blocks.arrays import ArrayOp
    >>> g = DGraph("e")
    >>> g.add_array_vertex("u", "input", (3,))
    >>> g.add_array_vertex("y", "output", (3,), ArrayOp("exp", ("u",), (), (3,)))
    >>> s = tensor_structure(g.validate())
    >>> s["shapes"], s["edge_blocks"][0]["block"], s["block_counts"]
    ({'u': [3], 'y': [3]}, 'diag(exp(u))', {'diagonal': 1})
    """
    edges = []
    counts: dict[str, int] = {}
    for u, v in graph.edges():
        block = graph.block(u, v)
        counts[block.type_name] = counts.get(block.type_name, 0) + 1
        edges.append(
            {
                "edge": [u, v],
                "type": block.type_name,
                "block": block_text(graph, u, v),
                "shape": [list(graph.shape(v)), list(graph.shape(u))],
                "nnz": block.nnz,
                "stored": block.stored,
            }
        )
    return {
        "tensor": True,
        "shapes": {v: list(graph.shape(v)) for v in graph.order()},
        "edge_blocks": edges,
        "block_counts": dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))),
        "jacobian_blocks": jacobian_pattern(graph),
    }


PATTERN_LIMIT = 20_000_000  # entries up to which a labelled entry's rows are counted


def jacobian_pattern(graph: DGraph) -> list[dict[str, Any]]:
    """Each (output, input) entry of the Jacobian as forward elimination builds it over
    blocks: its structure type, shape, nonzeros and nonzeros per row (min, mean, max;
    min and max left out for a labelled entry of more than :data:`PATTERN_LIMIT`).

    The elimination's labels are the blocks themselves (the kernel's block algebra): its
    symbolic labels are edge symbols only, so no sum or product of them cancels and the
    blocks are those of the forward expression set, without its products of symbols,
    each as long as the path it spans (on a chain of 10⁴ statements, hashing them was
    quadratic: 10 CPU-s at 8,000)."""
    state = Elimination(graph, BLOCKS)
    for v in graph.intermediates:
        state.eliminate_vertex(v)
    found = state.entries()
    out = []
    for y in graph.outputs:
        for x in graph.inputs:
            block = found.get((y, x))
            block = None if block is BLOCKS.ZERO else block
            rows, cols = math.prod(graph.shape(y)), math.prod(graph.shape(x))
            entry: dict[str, Any] = {"entry": [y, x], "shape": [rows, cols]}
            if block is None:
                out.append({**entry, "type": "zero", "nnz": 0, "per_row": [0, 0.0, 0]})
                continue
            per_row: list[Any] = [None, block.nnz / max(rows, 1), None]
            if isinstance(block, Sparse) or block.nnz <= PATTERN_LIMIT:
                counts = np.bincount(entries_rows(block), minlength=rows)
                low, high = (int(counts.min()), int(counts.max())) if rows else (0, 0)
                per_row = [low, per_row[1], high]
            out.append({**entry, "type": block.type_name, "nnz": block.nnz, "per_row": per_row})
    return out


def entries_rows(block: Block) -> np.ndarray:
    """The flat row of every entry of the block's pattern."""
    if isinstance(block, Permutation):  # one entry per row, its column at run time
        return entry_rows(block)
    return block.rows if isinstance(block, Sparse) else pattern(block)[0]
