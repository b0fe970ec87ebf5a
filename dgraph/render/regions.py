"""Regions to highlight in drawings: Zhou's chains, blocks and pages, Murota-Kubota's
umbrellas and closed umbrellas, D*'s factor subgraphs.

Each region is a name, its vertices and its edges in the original graph, so renderers can
draw it as a cluster or in a color without knowing how it was found. ``ends`` are the
vertices it shares with the rest (a chain's or block's source and sink), which a cluster
leaves outside so that chained regions can sit side by side.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import networkx as nx
import sympy

from ..core.graph import DGraph
from ..dominance.dstar import factor_subgraphs, pair_graph
from ..dominance.umbrellas import closed_umbrellas, umbrellas
from ..elimination.labeled import LabeledGraph
from ..errors import DGraphError
from ..zhou.factorize import pages
from ..zhou.simple import reduce_simple
from ..zhou.structure import zhou_structure

__all__ = [
    "REGION_KINDS",
    "Region",
    "block_regions",
    "chain_regions",
    "closed_umbrella_regions",
    "factor_subgraph_regions",
    "page_regions",
    "regions",
    "umbrella_regions",
]


@dataclass(frozen=True)
class Region:
    """A named part of a graph: its vertices and its (data-flow) edges."""

    name: str
    vertices: frozenset
    edges: frozenset
    ends: frozenset = frozenset()


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


def _zhou_region(graph: DGraph, entry: dict, name: str, with_direct: bool) -> Region:
    """A chain or block of :func:`dgraph.zhou.structure.zhou_structure` (dependence
    direction: ``source`` above ``sink``) with the edges among its vertices."""
    top, bottom = entry["source"], entry["sink"]
    vertices = set(entry["inner"]) | {top, bottom}
    edges = _induced(graph, vertices)
    if not with_direct:
        edges = edges - {(bottom, top)}
    return Region(name, frozenset(vertices), edges, frozenset({top, bottom}))


def chain_regions(graph: DGraph) -> list[Region]:
    """Zhou's simple chains, direct and indirect (Def. 3.2), outermost first."""

    return [
        _zhou_region(graph, c, f"{c['kind']} chain {c['source']}..{c['sink']}", False)
        for c in zhou_structure(graph)["chains"]
    ]


def block_regions(graph: DGraph) -> list[Region]:
    """Zhou's blocks, simple and complex (Defs. 3.1, 3.3), as ``dgraph structure`` lists
    them."""

    return [
        _zhou_region(graph, b, f"{b['kind']} block {b['source']}..{b['sink']}", True)
        for b in zhou_structure(graph)["blocks"]
    ]


def page_regions(graph: DGraph, variant: str = "backward") -> list[Region]:
    """Zhou's pages (§5) as :func:`dgraph.zhou.factorize.pages` splits the graph: each
    page's edges are those of the root-terminal paths it computes (pages partition the
    paths; an edge on paths of several pages belongs to each). A graph that needs no
    split is one page."""

    base = LabeledGraph(graph)
    reduce_simple(base)
    base.name_references()
    parts = pages(base, variant)
    symbols = graph.edge_symbols
    through = _edges_through(base.references, symbols)
    out = []
    for part in parts:
        edges: set[tuple[str, str]] = set()
        for entry in part.entries().values():
            edges.update(_edges_of(entry, symbols, through))
        if edges:
            vertices = frozenset(w for e in edges for w in e)
            out.append(Region(f"page {len(out) + 1}", vertices, frozenset(edges)))
    return out


def _edges_of(
    expr: sympy.Basic,
    symbols: Mapping[sympy.Symbol, tuple[str, str]],
    through: Mapping[sympy.Symbol, frozenset[tuple[str, str]]],
) -> set[tuple[str, str]]:
    """The edges whose symbols ``expr`` holds, directly or through the references of
    ``through``."""
    edges: set[tuple[str, str]] = set()
    for s in expr.free_symbols:
        if s in symbols:
            edges.add(symbols[s])
        elif s in through:
            edges |= through[s]
    return edges


def _edges_through(
    references: Mapping[sympy.Symbol, sympy.Basic],
    symbols: Mapping[sympy.Symbol, tuple[str, str]],
) -> dict[sympy.Symbol, frozenset[tuple[str, str]]]:
    """Each reference's edges: those whose symbols its definition holds once every earlier
    reference is substituted into it, found from the earlier references' edges without
    substituting (a substituted expression is a tree that can grow exponentially with the
    chain of references, and so does a sympy ``free_symbols`` walk over it). Definitions
    are sums and products of edge symbols and references, so nothing cancels."""
    through: dict[sympy.Symbol, frozenset[tuple[str, str]]] = {}
    for name, definition in references.items():
        through[name] = frozenset(_edges_of(definition, symbols, through))
    return through


REGION_KINDS: dict[str, Callable[[DGraph], list[Region]]] = {
    "chains": chain_regions,
    "blocks": block_regions,
    "umbrellas": umbrella_regions,
    "closed-umbrellas": lambda g: closed_umbrella_regions(g, hierarchy=True),
    "factors": lambda g: [
        Region(f"{r.name} ({n} pair{'s' if n > 1 else ''})", r.vertices, r.edges)
        for r, n in factor_subgraph_regions(g)
    ],
    "pages": page_regions,
}


def regions(graph: DGraph, kinds: str | list[str]) -> list[Region]:
    """The regions of one or several kinds (``chains,blocks``), in that order."""
    names = [k.strip() for k in kinds.split(",")] if isinstance(kinds, str) else list(kinds)
    out: list[Region] = []
    for kind in names:
        if kind not in REGION_KINDS:
            raise DGraphError(f"unknown highlight {kind!r}: use {', '.join(REGION_KINDS)}")
        out.extend(REGION_KINDS[kind](graph))
    return out
