"""Regions to highlight in drawings: factor subgraphs, umbrellas, closed umbrellas.

Each region is a name, its vertices and its edges in the original graph, so renderers can
draw it as a cluster or in a color without knowing how it was found.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import networkx as nx

from ..core.graph import DGraph
from .dstar import factor_subgraphs, pair_graph
from .umbrellas import closed_umbrellas, umbrellas

__all__ = ["Region", "closed_umbrella_regions", "factor_subgraph_regions", "umbrella_regions"]


@dataclass(frozen=True)
class Region:
    name: str
    vertices: frozenset
    edges: frozenset


def _induced(graph: DGraph, vertices: set[str]) -> frozenset:
    return frozenset(graph.nx.subgraph(vertices).edges)


def umbrella_regions(graph: DGraph) -> list[Region]:
    """The maximal umbrellas with copying (the copied edges enter from outside)."""
    return [
        Region(f"umbrella {u.output}", frozenset(u.vertices), _induced(graph, set(u.vertices)))
        for u in umbrellas(graph)
    ]


def closed_umbrella_regions(graph: DGraph, hierarchy: bool = False) -> list[Region]:
    """The maximal closed umbrellas, or every one of the hierarchy."""
    return [
        Region(
            f"closed umbrella {c.input}->{c.output}",
            frozenset(c.vertices),
            _induced(graph, set(c.vertices)),
        )
        for c in closed_umbrellas(graph, hierarchy)
    ]


def factor_subgraph_regions(graph: DGraph) -> list[tuple[Region, int]]:
    """D*'s factor subgraphs of the original graph with how many (root, leaf) pairs hold
    each, most shared first."""
    count: Counter = Counter()
    found: dict = {}
    for y in graph.outputs:
        for x in graph.inputs:
            if nx.has_path(graph.nx, x, y):
                for s in factor_subgraphs(pair_graph(graph, y, x), y, x):
                    count[s.key] += 1
                    found[s.key] = s
    regions = []
    for key, n in count.most_common():
        s = found[key]
        edges = frozenset((u, v) for u, v, _ in s.edges)
        vertices = frozenset(w for e in edges for w in e)
        regions.append((Region(f"factor {s.low}->{s.high}", vertices, edges), n))
    return regions
