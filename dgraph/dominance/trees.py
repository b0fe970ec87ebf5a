"""Dominator and postdominator trees of differentiation graphs (Lengauer-Tarjan
immediate dominators, :mod:`dgraph.dominance.lengauer_tarjan`; no all-pairs search).

In data-flow direction: ``v`` is dominated by ``u`` when every path from the source to
``v`` passes ``u``; ``u`` is postdominated by ``v`` when every path from ``u`` to the sink
passes ``v``. The global trees add a super-source ``s`` before every input and a
super-sink ``t`` after every output (Murota-Kubota §4); the per-pair trees of D* start at
one input and end at one output.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import networkx as nx

from .lengauer_tarjan import immediate_dominators

__all__ = ["SINK", "SOURCE", "Tree", "between", "dominator_tree", "postdominator_tree"]

SOURCE, SINK = "__s__", "__t__"


@dataclass
class Tree:
    """A rooted tree by parent pointers, with O(1) ancestor tests (Euler-tour intervals)."""

    root: str
    parent: dict[str, str]

    def __post_init__(self) -> None:
        self.children: dict[str, list[str]] = {v: [] for v in self.parent}
        self.children.setdefault(self.root, [])
        for v, p in self.parent.items():
            if v != self.root:
                self.children.setdefault(p, []).append(v)
        self.enter: dict[str, int] = {}
        self.leave: dict[str, int] = {}
        clock = 0
        stack = [(self.root, False)]
        while stack:  # iterative DFS: trees of long chains are deeper than the recursion limit
            v, done = stack.pop()
            if done:
                self.leave[v] = clock
                continue
            self.enter[v] = clock
            clock += 1
            stack.append((v, True))
            stack.extend((c, False) for c in self.children.get(v, ()))

    def is_ancestor(self, a: str, v: str) -> bool:
        """Whether ``a`` is ``v`` or above it."""
        return self.enter[a] <= self.enter[v] and self.leave[v] <= self.leave[a]

    def size(self, a: str) -> int:
        """The number of vertices in ``a``'s subtree, ``a`` included."""
        return self.leave[a] - self.enter[a]

    def post_order(self) -> list[str]:
        """Every vertex after all of its descendants (children first)."""
        return sorted(self.leave, key=self.leave.__getitem__)

    def subtree(self, a: str) -> list[str]:
        return list(self.walk(a))

    def walk(self, a: str) -> Iterator[str]:
        """``a``'s subtree, ``a`` first, one vertex at a time (a caller may stop early)."""
        stack = [a]
        while stack:
            v = stack.pop()
            yield v
            stack.extend(self.children.get(v, ()))


def between(one: Tree, other: Tree, a: str, b: str) -> Iterator[str]:
    """The vertices in both ``a``'s subtree of ``one`` and ``b``'s of ``other`` (those
    dominated by one end and postdominated by the other: on the paths between them),
    walked from the smaller subtree, the other's tested by its interval."""
    if one.size(a) > other.size(b):
        one, other, a, b = other, one, b, a
    return (w for w in one.walk(a) if w in other.enter and other.is_ancestor(b, w))


def _rooted(idom: dict, root: str) -> dict[str, str]:
    parent = {v: p for v, p in idom.items() if v != root}
    parent[root] = root
    return parent


def _structure(g: nx.DiGraph, reverse: bool) -> nx.DiGraph:
    """A copy without vertex or edge data (labels are sympy objects: copying them is slow)."""
    h = nx.DiGraph()
    h.add_nodes_from(g)
    h.add_edges_from(((v, u) for u, v in g.edges) if reverse else g.edges)
    return h


def dominator_tree(g: nx.DiGraph, start: str | None = None) -> Tree:
    """Dominators from ``start`` (default: a super-source before every input), data flow.

    >>> from dgraph.frontends import bundled
    >>> dominator_tree(bundled("naumann_sin.trace").nx).parent["y"]
    '__s__'
    """
    h = g
    if start is None:
        h = _structure(g, reverse=False)
        h.add_edges_from((SOURCE, x) for x, role in g.nodes(data="role") if role == "input")
        start = SOURCE
    return Tree(start, _rooted(immediate_dominators(h, start), start))


def postdominator_tree(g: nx.DiGraph, end: str | None = None) -> Tree:
    """Postdominators toward ``end`` (default: a super-sink after every output).

    >>> from dgraph.frontends import bundled
    >>> postdominator_tree(bundled("naumann_sin.trace").nx).parent["v1"]
    'y'
    """
    h = _structure(g, reverse=True)
    if end is None:
        h.add_edges_from((SINK, y) for y, role in g.nodes(data="role") if role == "output")
        end = SINK
    return Tree(end, _rooted(immediate_dominators(h, end), end))
