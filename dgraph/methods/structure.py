"""What ``dgraph structure`` reports of a graph: sizes and paths, Zhou's levels, chains
and blocks, and Murota-Kubota's umbrellas and closed umbrellas."""

from __future__ import annotations

from typing import Any

import sympy

from ..core.graph import DGraph
from ..core.paths import count_paths, path_length
from ..dominance.umbrellas import closed_umbrellas, umbrellas
from ..zhou.structure import zhou_structure

__all__ = ["structure"]


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
    }
