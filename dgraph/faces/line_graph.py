"""The directed line graph of a differentiation graph (Naumann 2003; Griewank–Walther §9.2).

Every edge ``(u, v)`` of the graph becomes a vertex; consecutive edges ``(u, v)``,
``(v, w)`` are joined by a *face*. Following the literature, every input ``x`` also gets
a minimal vertex ``(⊕, x)`` (an edge from a super-source) and every output ``y`` a
maximal vertex ``(y, ⊖)`` (an edge into a super-sink), so that the faces out of the
minimal and into the maximal vertices mark where a label is an entry of the Jacobian.
Faces between two edge vertices are the *intermediate* faces that face elimination
removes; the others are never eliminated.
"""

from __future__ import annotations

import networkx as nx

from ..core.graph import DGraph

__all__ = ["SUPER_SINK", "SUPER_SOURCE", "intermediate_faces", "is_terminal", "line_graph"]

SUPER_SOURCE = "⊕"
SUPER_SINK = "⊖"


def line_graph(graph: DGraph) -> nx.DiGraph:
    """The line graph with minimal vertices ``(⊕, x)`` and maximal vertices ``(y, ⊖)``.

    Vertices carry ``symbol`` (the edge symbol, None for ⊕/⊖ vertices); networkx's
    ``line_graph`` supplies the faces between edges.

    >>> from dgraph.frontends import bundled
    >>> lg = line_graph(bundled("naumann_sin.trace"))
    >>> len(intermediate_faces(lg))
    4
    """
    g = nx.line_graph(graph.nx)
    for u, v in graph.edges():
        g.nodes[u, v]["symbol"] = graph.symbol(u, v)
    for x in graph.inputs:
        g.add_node((SUPER_SOURCE, x), symbol=None)
        g.add_edges_from(((SUPER_SOURCE, x), (x, w)) for w in graph.successors(x))
    for y in graph.outputs:
        g.add_node((y, SUPER_SINK), symbol=None)
        g.add_edges_from(((u, y), (y, SUPER_SINK)) for u in graph.predecessors(y))
    return g


def is_terminal(vertex: tuple[str, str]) -> bool:
    """Whether a line-graph vertex is one of the added minimal or maximal vertices."""
    return vertex[0] == SUPER_SOURCE or vertex[1] == SUPER_SINK


def intermediate_faces(g: nx.DiGraph) -> list[tuple[tuple[str, str], tuple[str, str]]]:
    """The faces between two edge vertices: those face elimination removes."""
    return [(i, j) for i, j in g.edges if not is_terminal(i) and not is_terminal(j)]
