"""Independent parts: vertex elimination never joins two components of the intermediates.

Eliminating v joins its predecessors to its successors. When the intermediates fall into
components that meet only at inputs and outputs, every edge an elimination creates stays
inside v's component (with the inputs and outputs around it), and so do the labels'
kinds; an order's cost is the sum of what its restriction to each component costs, and
the optimal order is the optimal orders of the parts, one after another. The heart
dipole's 40 intermediates are two parts of 14 and twelve single vertices.
"""

from __future__ import annotations

from collections.abc import Callable

import networkx as nx

from ..core.graph import DGraph
from .search import SearchResult

__all__ = ["by_parts", "independent_parts", "largest_part"]

Search = Callable[[DGraph, float | None], SearchResult]


def independent_parts(graph: DGraph) -> list[DGraph]:
    """One graph per connected component of the intermediates, with the inputs and outputs
    next to it (largest last); ``[graph]`` when there is one.

    >>> from dgraph.frontends import from_trace
    >>> g = from_trace("inputs: x\\noutputs: y, z\\na = sin(x)\\ny = cos(a)\\nb = exp(x)\\nz = b*b")
    >>> [p.intermediates for p in independent_parts(g)]
    [['a'], ['b']]
    """
    components = _components(graph)
    if len(components) < 2:
        return [graph]
    rank = {v: i for i, v in enumerate(graph.order())}
    components = sorted(components, key=lambda c: (len(c), min(rank[v] for v in c)))
    # each edge to its component's part at once: filtering every edge for every part was
    # quadratic (1,000 independent terms: seconds before any search began)
    where = {v: k for k, component in enumerate(components) for v in component}
    edges_of: list[list[tuple[str, str]]] = [[] for _ in components]
    for u, v in graph.edges():
        k = where.get(u, where.get(v))
        if k is not None:
            edges_of[k].append((u, v))
    parts = []
    for edges in edges_of:
        ends = {v for e in edges for v in e}
        part = DGraph(f"{graph.name} part")
        for p in graph.parameters:
            part.add_parameter(p)
        for v in sorted(ends, key=rank.__getitem__):
            if graph.is_tensor:
                part.add_array_vertex(v, graph.role(v), graph.shape(v))
            else:
                part.add_vertex(v, graph.role(v))
        for u, v in edges:
            if graph.is_tensor:
                part.add_block_edge(u, v, graph.block(u, v))
            else:
                part.add_edge(u, v, graph.partial(u, v))
        parts.append(part)
    return parts


def largest_part(graph: DGraph) -> int:
    """The most intermediates in one independent part: what exact searches face."""
    return max(map(len, _components(graph)), default=0)


def _components(graph: DGraph) -> list[set[str]]:
    inner = set(graph.intermediates)
    joined = nx.Graph()
    joined.add_nodes_from(graph.intermediates)
    joined.add_edges_from((u, v) for u, v in graph.edges() if u in inner and v in inner)
    return list(nx.connected_components(joined))


def by_parts(graph: DGraph, search: Search, budget: float | None = None) -> SearchResult:
    """``search`` on each independent part (the budget shared by size, fixed fractions of
    it: no part's share depends on how long another took), combined: the moves one part
    after another, costs and bounds added, proven if every part is."""
    parts = independent_parts(graph)
    if len(parts) == 1:
        return search(graph, budget)
    if budget is None:  # the largest first: a search too large refuses before any work
        results = [search(part, None) for part in reversed(parts)][::-1]
    else:
        inner = len(graph.intermediates)
        results = [search(part, budget * len(part.intermediates) / inner) for part in parts]
    return SearchResult(
        [m for r in results for m in r.moves],
        sum(r.cost for r in results),
        all(r.proven for r in results),
        sum(r.lower_bound for r in results),
        sum(r.states for r in results),
        sum(r.seconds for r in results),
        " and ".join(dict.fromkeys(r.solver for r in results)),
    )
