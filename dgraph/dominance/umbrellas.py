"""Contractible subgraphs, umbrellas and closed umbrellas (Murota-Kubota 1989).

A subgraph G' = (V', E') is *contractible* when, for every vertex, its out-edges are all
in E' or none is, and likewise its in-edges (the definition the paper's propositions
need). Then every path between G''s inputs and outputs runs inside G', and their path
products can be precomputed: *contraction* removes G''s inner vertices and joins each
input to each output it reaches by one edge. An *umbrella* has one output, a *closed
umbrella* one input and one output.

* Prop 3.1: join two edges sharing a tail or a head; the components C_k are the finest
  contractible pieces, and contractible edge sets are exactly their unions. O(|E|).
* Prop 4.1: with a super-source s and super-sink t, a closed umbrella from u to v exists
  iff u -> v in T↑↓, the edges common to the dominator tree T↓ and the postdominator tree
  T↑. Each component of T↑↓ minus s, t is a path u1 -> ... -> uk; (ui, uj) for i < j are
  its closed umbrellas, nested like parentheses, and (u1, uk) is maximal.
* Prop 4.2: with variable copying (an edge u -> v becomes u -> w -> v, w := u), the
  maximal umbrellas are the components V_k of T↑ minus t, each with copies of the edges
  that enter it from outside at a vertex that also has a predecessor inside.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx

from ..core.graph import DGraph
from .trees import SINK, SOURCE, Tree, between, dominator_tree, postdominator_tree

__all__ = [
    "ClosedUmbrella",
    "Umbrella",
    "closed_umbrellas",
    "contractible_components",
    "contraction",
    "umbrellas",
]


def contractible_components(graph: DGraph) -> list[list[tuple[str, str]]]:
    """Prop 3.1: the finest contractible pieces, as edge lists (union-find over edges).

    >>> from dgraph.frontends import bundled
    >>> len(contractible_components(bundled("naumann_sin.trace")))
    2
    """
    parent: dict[tuple[str, str], tuple[str, str]] = {}

    def find(e):
        while parent[e] != e:
            parent[e] = parent[parent[e]]
            e = parent[e]
        return e

    edges = list(graph.nx.edges)
    for e in edges:
        parent[e] = e
    for v in graph.nx:
        for group in (list(graph.nx.out_edges(v)), list(graph.nx.in_edges(v))):
            for e in group[1:]:
                a, b = find(group[0]), find(e)
                if a != b:
                    parent[a] = b
    pieces: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for e in edges:
        pieces.setdefault(find(e), []).append(e)
    return list(pieces.values())


def contraction(graph: DGraph, edges: list[tuple[str, str]]) -> tuple[nx.DiGraph, int]:
    """Contract the subgraph made of ``edges`` (which must be contractible): the graph
    that results and the benefit Delta = edges removed - edges added."""
    sub = nx.DiGraph(edges)
    inputs = [v for v in sub if sub.in_degree(v) == 0]
    outputs = [v for v in sub if sub.out_degree(v) == 0]
    inner = set(sub) - set(inputs) - set(outputs)
    g = graph.nx.copy()
    g.remove_edges_from(edges)
    g.remove_nodes_from(inner)
    added = [(u, v) for u in inputs for v in outputs if nx.has_path(sub, u, v)]
    g.add_edges_from(added)
    return g, len(edges) - len(added)


@dataclass
class ClosedUmbrella:
    """A closed umbrella from ``input`` to ``output``; ``parent`` indexes the smallest
    closed umbrella around it in the hierarchy, ``maximal`` if none is."""

    input: str
    output: str
    vertices: list[str]
    parent: int | None = None

    @property
    def maximal(self) -> bool:
        return self.parent is None

    def to_dict(self) -> dict:
        return {"input": self.input, "output": self.output, "vertices": self.vertices}


def _between(dom: Tree, pdom: Tree, u: str, v: str, order: dict[str, int]) -> list[str]:
    """Vertices dominated by u and postdominated by v: those on paths from u to v."""
    return sorted(between(dom, pdom, u, v), key=order.__getitem__)


def closed_umbrellas(graph: DGraph, hierarchy: bool = False) -> list[ClosedUmbrella]:
    """The maximal closed umbrellas (Prop 4.1), or with ``hierarchy`` every closed
    umbrella: all (ui, uj) of every T↑↓ path, each pointing at its smallest enclosing one.

    >>> from dgraph.frontends import bundled
    >>> [(c.input, c.output) for c in closed_umbrellas(bundled("zhou_two_blocks.json"))]
    [('t', 'r')]
    """
    dom, pdom = dominator_tree(graph.nx), postdominator_tree(graph.nx)
    order = {v: i for i, v in enumerate(graph.order())}
    succ: dict[str, str] = {}
    has_pred: set[str] = set()
    for v, u in dom.parent.items():
        if u in (SOURCE, SINK) or v in (SOURCE, SINK) or v == u:
            continue
        if pdom.parent.get(u) == v:  # the edge u -> v is in both trees
            succ[u] = v
            has_pred.add(v)
    result: list[ClosedUmbrella] = []
    for start in sorted(set(succ) - has_pred, key=order.__getitem__):
        chain = [start]
        while chain[-1] in succ:
            chain.append(succ[chain[-1]])
        if not hierarchy:
            verts = _between(dom, pdom, chain[0], chain[-1], order)
            result.append(ClosedUmbrella(chain[0], chain[-1], verts))
            continue
        pairs = [(i, j) for i in range(len(chain)) for j in range(i + 1, len(chain))]
        pairs.sort(key=lambda p: p[0] - p[1])  # widest first: parents before children
        index = {}
        for i, j in pairs:
            parent = None
            if (i, j) != (0, len(chain) - 1):
                parent = index[(i - 1, j)] if i > 0 else index[(i, j + 1)]
            index[i, j] = len(result)
            verts = _between(dom, pdom, chain[i], chain[j], order)
            result.append(ClosedUmbrella(chain[i], chain[j], verts, parent))
    if hierarchy:
        _nest_components(result)
        return result
    return _outermost(result)


def _outermost(candidates: list[ClosedUmbrella]) -> list[ClosedUmbrella]:
    """Drop the T↑↓ path maxima that lie inside a closed umbrella of another path. Closed
    umbrellas form an intersecting family, so the largest one holding a candidate's input
    vertex holds the candidate if any does."""
    owner: dict[str, int] = {}
    by_size = sorted(range(len(candidates)), key=lambda i: -len(candidates[i].vertices))
    for i in by_size:
        for v in candidates[i].vertices:
            owner.setdefault(v, i)
    kept = []
    held: dict[int, set[str]] = {}  # each owner's vertices, made once (not per candidate)
    for i, c in enumerate(candidates):
        j = owner[c.input]
        if j != i and j not in held:
            held[j] = set(candidates[j].vertices)
        if j == i or not all(v in held[j] for v in c.vertices):
            kept.append(c)
    return kept


def _nest_components(umbrellas: list[ClosedUmbrella]) -> None:
    """A maximal closed umbrella may lie inside one of another T↑↓ path: link it there."""
    sets = [set(c.vertices) for c in umbrellas]
    for i, c in enumerate(umbrellas):
        if c.parent is not None:
            continue
        best = None
        for j in range(len(umbrellas)):
            if j != i and sets[i] < sets[j] and (best is None or len(sets[j]) < len(sets[best])):
                best = j
        c.parent = best


@dataclass
class Umbrella:
    """A maximal umbrella with copying (Prop 4.2): its ``output``, its original
    ``vertices`` and the ``copies``: edges from outside that get a copy vertex."""

    output: str
    vertices: list[str]
    copies: list[tuple[str, str]] = field(default_factory=list)

    def inputs(self, graph: DGraph) -> list[str]:
        """Vertices feeding it from outside (through copies) and its own minimal ones."""
        inside = set(self.vertices)
        minimal = [v for v in self.vertices if not any(u in inside for u in graph.nx.pred[v])]
        return list(dict.fromkeys([*minimal, *(u for u, _ in self.copies)]))

    def to_dict(self) -> dict:
        copies = [list(e) for e in self.copies]
        return {"output": self.output, "vertices": self.vertices, "copies": copies}


def umbrellas(graph: DGraph) -> list[Umbrella]:
    """The maximal umbrellas with variable copying: the components of T↑ minus t that
    hold an edge, with the entering edges to copy.

    >>> from dgraph.frontends import bundled
    >>> [(u.output, u.vertices) for u in umbrellas(bundled("naumann_sin.trace"))]
    [('y', ['x0', 'x1', 'v1', 'v2', 'y'])]
    """
    pdom = postdominator_tree(graph.nx)
    order = {v: i for i, v in enumerate(graph.order())}
    result = []
    for top in sorted(pdom.children.get(SINK, ()), key=order.__getitem__):
        members = set(pdom.subtree(top))
        if len(members) < 2:
            continue
        copies = []
        for v in members:
            preds = list(graph.nx.pred[v])
            if any(u in members for u in preds):
                copies.extend((u, v) for u in preds if u not in members)
        result.append(Umbrella(top, sorted(members, key=order.__getitem__), sorted(copies)))
    return result
