"""Segmentation of cross-level edges (Zhou 2020, Def. 3.4, Fig. 3.1).

An edge that spans several depth levels becomes a direct chain through copies of its
lower vertex, one per level crossed (shared by all of that vertex's long edges). Copies
carry the value unchanged (label 1); the original label moves to the last segment. After
segmentation every pair of adjacent levels is a bipartite local Jacobian.
"""

from __future__ import annotations

from ..core.graph import DGraph, vertex_symbol
from ..core.paths import depths

__all__ = ["copy_name", "segment"]


def copy_name(vertex: str, level: int, taken: set[str]) -> str:
    """The name of ``vertex``'s copy at (1-based) ``level``."""
    name = f"{vertex}__{level}"
    while name in taken:
        name += "_"
    return name


def segment(graph: DGraph) -> DGraph:
    """A copy of ``graph`` with every cross-level edge segmented; same Jacobian.

    >>> from dgraph.frontends import bundled
    >>> g = segment(bundled("naumann_sin.trace"))
    >>> sorted(g.intermediates)
    ['v1', 'v1__2', 'v2', 'x0__3']
    """
    depth = depths(graph.nx)
    taken = set(graph.order())
    copies: dict[tuple[str, int], str] = {}
    out = DGraph(f"{graph.name}-segmented" if graph.name else "segmented")
    for p in graph.parameters:
        out.add_parameter(p)
    for v in graph.order():
        out.add_vertex(v, graph.role(v), None)
    rename: dict[tuple[str, str], str] = {}
    for u, v in graph.edges():
        below = u
        for level in range(depth[u] - 1, depth[v], -1):  # levels strictly between, upwards
            key = (u, level)
            if key not in copies:
                copies[key] = copy_name(u, level + 1, taken)
                taken.add(copies[key])
                out.add_vertex(copies[key], "intermediate", vertex_symbol(below))
                out.add_edge(below, copies[key], 1)
            below = copies[key]
        rename[u, v] = below
    for v in graph.order():
        subs = {vertex_symbol(u): vertex_symbol(rename[u, v]) for u in graph.predecessors(v)}
        if graph.expr(v) is not None:
            out.set_expr(v, graph.expr(v).xreplace(subs))
        for u in graph.predecessors(v):
            partial = graph.partial(u, v)
            out.add_edge(rename[u, v], v, None if partial is None else partial.xreplace(subs))
    return out.validate()
