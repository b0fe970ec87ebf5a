"""What ``dgraph structure`` reports of a graph: sizes and paths, Zhou's levels, chains
and blocks, and Murota-Kubota's umbrellas and closed umbrellas; of a tensor graph also
each vertex's shape and each edge's Jacobian block (its structure type, as the papers
write it, its shape and sizes) and how many edges carry each type."""

from __future__ import annotations

from typing import Any

import sympy

from ..core.arrays import describe
from ..core.graph import DGraph
from ..core.paths import count_paths, path_length
from ..dominance.umbrellas import closed_umbrellas, umbrellas
from ..zhou.structure import zhou_structure

__all__ = ["block_text", "structure", "tensor_structure"]


def structure(graph: DGraph) -> dict[str, Any]:
    """The structures every method reads, as plain data (``dgraph structure --json``).

    >>> from dgraph.core.builders import bundled
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
    ``nnz``, and the values kept, ``stored``) and ``block_counts`` (type -> edges).

    >>> from dgraph.core.arrays import ArrayOp
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
    }
