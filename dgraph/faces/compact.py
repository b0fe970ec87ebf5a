"""Face states for searching: only the segments each line-graph vertex holds.

:class:`dgraph.faces.elimination.FaceState` carries labels, names and steps, and copying
one costs a millisecond; the exact search visits states by the hundred thousand. Here a
state is its own canonical key, ``FaceState.key()``: a frozenset of line-graph vertices,
each the frozenset of path segments ``(w, lo, hi)`` it holds (path ``w``'s edges ``lo``
to ``hi``). Naumann's rules (2004, §3) read off it: the faces are consecutive segments
of a path held by different vertices; eliminating ``(i, j)`` joins the segments of the
paths through it into a vertex with ``P = P_i`` and ``S = S_j`` (an existing one, or a
new one), drops vertices left empty and merges vertices of equal span, predecessors
and successors, exactly as ``FaceState.eliminate`` does, so that a move found here
replays there by contents (tests/test_faces.py checks the two agree step by step).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from ..core.graph import DGraph
from .elimination import input_output_paths

__all__ = ["Content", "FaceGraph", "Key", "Move"]

Segment = tuple[int, int, int]  # (path, first edge, end edge)
Content = frozenset[Segment]
Key = frozenset[Content]
Move = tuple[Content, Content]


def _links(owner: FaceGraph, contents: list[Content]) -> tuple[list[set[int]], list[set[int]]]:
    """Predecessor and successor sets of every vertex (terminals as negative numbers)."""
    rows: dict[int, list[tuple[int, int]]] = {}
    for v, content in enumerate(contents):
        for w, lo, _ in content:
            rows.setdefault(w, []).append((lo, v))
    pred: list[set[int]] = [set() for _ in contents]
    succ: list[set[int]] = [set() for _ in contents]
    for w, row in rows.items():
        row.sort()
        pred[row[0][1]].add(owner.source[w])
        succ[row[-1][1]].add(owner.sink[w])
        for (_, a), (_, b) in itertools.pairwise(row):
            succ[a].add(b)
            pred[b].add(a)
    return pred, succ


class _View:
    """One state unpacked: vertices by index, their links and spans, the faces with the
    paths through each."""

    __slots__ = ("contents", "faces", "pred", "span", "succ")

    def __init__(self, owner: FaceGraph, key: Key) -> None:
        self.contents = sorted(key, key=min)  # deterministic: by the least segment held
        rows: dict[int, list[tuple[int, int]]] = {}
        for v, content in enumerate(self.contents):
            for w, lo, _ in content:
                rows.setdefault(w, []).append((lo, v))
        n = len(self.contents)
        self.pred: list[set[int]] = [set() for _ in range(n)]
        self.succ: list[set[int]] = [set() for _ in range(n)]
        self.span = [owner.span(min(c)) for c in self.contents]
        faces: dict[tuple[int, int], set[int]] = {}
        for w, row in rows.items():
            row.sort()
            self.pred[row[0][1]].add(owner.source[w])
            self.succ[row[-1][1]].add(owner.sink[w])
            for (_, a), (_, b) in itertools.pairwise(row):
                self.succ[a].add(b)
                self.pred[b].add(a)
                faces.setdefault((a, b), set()).add(w)
        self.faces = faces


class FaceGraph:
    """The paths of one graph, and face elimination on keys of its line-graph states."""

    def __init__(self, graph: DGraph) -> None:
        names = {v: k for k, v in enumerate(graph.order())}
        self.paths = [tuple(names[v] for v in p) for p in input_output_paths(graph)]
        n = len(names)
        # terminal vertices ⊕x and y⊖ as negative numbers, shared by the paths they end
        self.source = [-1 - p[0] for p in self.paths]
        self.sink = [-1 - n - p[-1] for p in self.paths]

    def span(self, seg: Segment) -> tuple[int, int]:
        path = self.paths[seg[0]]
        return path[seg[1]], path[seg[2]]

    def start(self) -> Key:
        """The line graph before any elimination: one vertex per edge of the graph."""
        by_edge: dict[tuple[int, int], set[Segment]] = {}
        for w, path in enumerate(self.paths):
            for q in range(len(path) - 1):
                by_edge.setdefault((path[q], path[q + 1]), set()).add((w, q, q + 1))
        return frozenset(frozenset(c) for c in by_edge.values())

    def cuts(self, key: Key) -> list[tuple[int, ...]]:
        """Each path's segment boundaries (graph vertices), from input to output."""
        ends: dict[int, list[int]] = {w: [0] for w in range(len(self.paths))}
        for content in key:
            for w, _, hi in content:
                ends[w].append(hi)
        return [tuple(self.paths[w][q] for q in sorted(qs)) for w, qs in ends.items()]

    def faces(self, key: Key) -> list[Move]:
        """The intermediate faces of a state, as pairs of vertex contents."""
        view = _View(self, key)
        return [(view.contents[a], view.contents[b]) for a, b in sorted(view.faces)]

    def expand(self, key: Key) -> Iterator[tuple[Move, Key]]:
        """Every face elimination from ``key``: the move and the state it leads to."""
        view = _View(self, key)
        for face in sorted(view.faces):
            a, b = face
            yield (view.contents[a], view.contents[b]), self._eliminate(view, face)

    def eliminate(self, key: Key, move: Move) -> Key:
        """The state after eliminating the face ``move`` (a pair of contents)."""
        view = _View(self, key)
        where = {c: v for v, c in enumerate(view.contents)}
        return self._eliminate(view, (where[move[0]], where[move[1]]))

    def _eliminate(self, view: _View, face: tuple[int, int]) -> Key:
        i, j = face
        through = view.faces[face]
        span = (view.span[i][0], view.span[j][1])
        preds, succs = view.pred[i], view.succ[j]
        contents = list(view.contents)
        spans = list(view.span)
        moved_i = {s for s in contents[i] if s[0] in through}
        moved_j = {s for s in contents[j] if s[0] in through}
        ends = {t[0]: t[2] for t in moved_j}
        joined = frozenset((w, lo, ends[w]) for w, lo, _ in moved_i)
        # absorption: a vertex of the product's span with P = P_i and S = S_j already
        host = next(
            (
                v
                for v in range(len(contents))
                if spans[v] == span and view.pred[v] == preds and view.succ[v] == succs
            ),
            None,
        )
        if host is None:  # fill-in
            host = len(contents)
            contents.append(frozenset())
            spans.append(span)
        contents[host] = contents[host] | joined
        contents[i] = contents[i] - moved_i
        contents[j] = contents[j] - moved_j
        return self._merged(contents, spans)

    def _merged(self, contents: list[Content], spans: list[tuple[int, int]]) -> Key:
        """Naumann's step 3: vertices of equal span, predecessors and successors become
        one, until no two are equal (merging can make neighbours equal)."""
        while True:
            pred, succ = _links(self, contents)
            seen: dict[tuple, int] = {}
            twins = None
            for v, content in enumerate(contents):
                if not content:
                    continue
                sig = (spans[v], frozenset(pred[v]), frozenset(succ[v]))
                if sig in seen:
                    twins = seen[sig], v
                    break
                seen[sig] = v
            if twins is None:
                return frozenset(c for c in contents if c)
            keep, gone = twins
            contents[keep] = contents[keep] | contents[gone]
            contents[gone] = frozenset()
