"""Smallest vertex separators by unit-capacity flows (Menger), for the floors of
:mod:`dgraph.elimination.vertex_exact` and the min-cut floors of
:meth:`dgraph.elimination.structure.BitGraph.cuts`."""

from __future__ import annotations

from collections.abc import Collection
from typing import NamedTuple

__all__ = ["Separation", "Separators"]


class Separation(NamedTuple):
    """A smallest separator: its size, one such separator, and how many of the disjoint
    paths pass through each fixed vertex."""

    size: int
    cut: list[int]
    through: dict[int, int]


_UNSEEN = -2  # a node's parent arc before the search reaches it (-1: the source)
_NEVER = -3  # a node no path to the target passes through: the search skips it


class Separators:
    """The fewest vertices meeting every path from ``sources`` to a target, none of them
    the target or a vertex held ``fixed`` (Menger: unit vertex capacities, augmenting
    paths), on the graph of successor lists ``succ`` (vertices numbered by position).
    The network is built once; each query copies its capacities. Written here rather
    than with networkx's flows: each of the model's thousands of queries holds other
    vertices (``fixed``, uncut) and asks how many paths pass through each, so networkx
    would rebuild its residual network per query."""

    def __init__(self, succ: list[list[int]], sources: list[int]) -> None:
        n = len(succ)
        self.n = n
        self.source = 2 * n  # vertex i enters at 2i and leaves at 2i + 1
        self.big = n + 1  # more than any cut: not cut
        self.heads: list[int] = []  # arc k's head; k ^ 1 is its reverse
        self.capacity: list[int] = []
        self.arcs: list[list[int]] = [[] for _ in range(2 * n + 1)]
        self.inside = [self._arc(2 * i, 2 * i + 1, 1) for i in range(n)]
        for i in range(n):
            for j in succ[i]:
                self._arc(2 * i + 1, 2 * j, self.big)
        for s in sources:
            self._arc(self.source, 2 * s, self.big)
        # each node's arcs with their heads, in the order added
        self.links = [[(k, self.heads[k]) for k in out] for out in self.arcs]
        self.pred: list[list[int]] = [[] for _ in range(n)]
        for i in range(n):
            for j in succ[i]:
                self.pred[j].append(i)
        self._starts: dict[int, list[int]] = {}  # each target's parents before a search
        self._found: dict[tuple[int, frozenset[int]], Separation] = {}

    def _arc(self, a: int, b: int, capacity: int) -> int:
        k = len(self.heads)
        self.heads += [b, a]
        self.capacity += [capacity, 0]
        self.arcs[a].append(k)
        self.arcs[b].append(k + 1)
        return k

    def _start(self, target: int) -> list[int]:
        """The parent arcs a search for ``target`` starts from: -1 at the source, -2
        (not reached yet) at the nodes of the vertices above ``target`` and at its own
        entry (the sink), -3 (never reached) at every other node. No flow passes
        through another vertex, and no arc leads from one up to a vertex above the
        target, so the breadth-first search reaches the nodes above in the same order
        without them, the same paths and the same cut."""
        if target not in self._starts:
            above, stack = {target}, [target]
            while stack:
                for u in self.pred[stack.pop()]:
                    if u not in above:
                        above.add(u)
                        stack.append(u)
            start = [_NEVER] * len(self.links)
            for i in above:
                start[2 * i] = start[2 * i + 1] = _UNSEEN
            start[2 * target + 1] = _NEVER  # its exit leads to no path into it
            start[self.source] = -1
            self._starts[target] = start
        return self._starts[target]

    def __call__(self, target: int, fixed: Collection[int] = ()) -> Separation:
        """The separator's size, one such separator, and how many of the disjoint paths
        found pass through each vertex of ``fixed`` (kept: the floors ask many twice; the
        flow does not depend on the order of ``fixed``)."""
        key = (target, frozenset(fixed))
        found = self._found.get(key)
        if found is None:
            found = self._found[key] = self._flow(target, fixed)
        return found

    def _flow(self, target: int, fixed: Collection[int]) -> Separation:
        """The augmenting paths' flow from the sources to ``target``, ``fixed`` uncut."""
        residual = self.capacity[:]
        inside, big = self.inside, self.big
        for i in (*fixed, target):
            residual[inside[i]] = big
        links, source, sink, start = self.links, self.source, 2 * target, self._start(target)
        flow = 0
        while flow < big:
            # breadth first, in arc order: the first path to the sink, as a queue finds it
            parent = start[:]
            queue = [source]
            for a in queue:
                for k, b in links[a]:
                    if parent[b] == _UNSEEN and residual[k] > 0:
                        parent[b] = k
                        queue.append(b)
                if parent[sink] != _UNSEEN:
                    break
            else:
                cut = [
                    i for i in range(self.n) if parent[2 * i] >= -1 and parent[2 * i + 1] == _UNSEEN
                ]
                through = {i: big - residual[inside[i]] for i in fixed}
                return Separation(flow, cut, through)
            b = sink
            while b != source:
                k = parent[b]
                residual[k] -= 1
                residual[k ^ 1] += 1
                b = self.heads[k ^ 1]
            flow += 1
        return Separation(flow, [], {})
