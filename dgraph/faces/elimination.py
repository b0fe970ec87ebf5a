"""Face elimination on a labeled line graph, by Naumann's rules (Naumann 2003, §3).

Eliminating the face ``(i, j)`` multiplies two labels, ``c_j · c_i``, and puts the
product into a vertex ``k`` with ``P_k = P_i`` and ``S_k = S_j``: an existing one
(absorption) or a new one (fill-in). The face is removed; a vertex left without
successors or predecessors is removed; vertices with the same predecessor and successor
sets are merged, their labels added. The Griewank–Walther *split* copies a vertex and
reattaches some of its in-faces (or out-faces) to the copy.

Every input-output path of the graph is tracked through the line graph: at any moment it
is a sequence of line-graph vertices, each holding one segment of it. Faces and the sets
``P`` and ``S`` follow from those sequences (every combination of faces is a path of the
graph, which is what makes ``P_k = P_i`` exact), and the face check reads the segments to
tell whether an elimination keeps an expression set's parentheses. Labels are
noncommutative expressions as everywhere in dgraph; a compound label becomes a reference
when first used as a factor, so the expression set computes what the elimination does.
"""

from __future__ import annotations

import itertools
from collections import defaultdict

import networkx as nx
import sympy

from ..core.display import Printable
from ..core.expressions import Step
from ..core.graph import DGraph
from ..core.kinds import Value, add, multiply, value_of
from ..core.paths import count_paths
from ..errors import DGraphError
from .line_graph import SUPER_SINK, SUPER_SOURCE
from .state import Face, LineGraphState

__all__ = ["FACE_PATH_LIMIT", "FaceState", "PathTracks", "check_path_limit", "input_output_paths"]

FACE_PATH_LIMIT = 5_000  # face states follow every input-output path through the line graph


def check_path_limit(graph: DGraph, who: str, limit: int = FACE_PATH_LIMIT) -> None:
    """A one-line error when ``graph`` has more paths than a face state follows
    (``limit``, default :data:`FACE_PATH_LIMIT`)."""
    n = count_paths(graph)
    if n > limit:
        raise DGraphError(
            f"{who}: {graph.name or 'the graph'} has {n} input-output paths; face states"
            f" follow every path and stop at {limit}"
        )


def input_output_paths(graph: DGraph) -> list[tuple[str, ...]]:
    """Every input-output path as its vertex sequence (networkx's all_simple_paths)."""
    g = graph.nx
    return [
        tuple(p)
        for x in graph.inputs
        for p in nx.all_simple_paths(g, x, graph.outputs)
        if graph.role(p[-1]) == "output"
    ]


class PathTracks:
    """Every input-output path through a line graph under face elimination: the vertices
    it passes (its ⊕ vertex first, its ⊖ vertex last) and, for each, the edge positions
    [lo, hi) of the path's segment that vertex holds. Face elimination's rules need them
    to know which paths a face carries and where a product goes."""

    def __init__(self, paths: list[tuple[str, ...]]) -> None:
        self.paths = paths
        self.seq: list[list[int]] = []
        self.ivs: list[list[tuple[int, int]]] = []

    def add(self, vertices: list[int]) -> int:
        """Track a path through ``vertices`` (one per edge, between ⊕ and ⊖); its index."""
        n = len(vertices) - 2  # edges of the path
        self.seq.append(vertices)
        self.ivs.append([(0, 0)] + [(q, q + 1) for q in range(n)] + [(n, n)])
        return len(self.seq) - 1

    def copy(self) -> PathTracks:
        other = PathTracks(self.paths)
        other.seq = [list(s) for s in self.seq]
        other.ivs = [list(s) for s in self.ivs]
        return other

    def position(self, w: int, i: int, j: int) -> int:
        """Where path ``w`` passes the face ``(i, j)``: the index of ``i`` in it."""
        s = self.seq[w]
        for q in range(len(s) - 1):
            if s[q] == i and s[q + 1] == j:
                return q
        raise ValueError(f"path {w} does not pass that face")

    def segments(self, w: int, i: int, j: int) -> tuple[tuple[int, int], tuple[int, int]]:
        """The edge intervals that ``i`` and ``j`` hold of path ``w`` (consecutive)."""
        q = self.position(w, i, j)
        return self.ivs[w][q], self.ivs[w][q + 1]

    def contract(self, w: int, q: int, k: int) -> None:
        """Path ``w``'s vertices at q and q + 1 become ``k``, holding both segments."""
        s, iv = self.seq[w], self.ivs[w]
        s[q : q + 2] = [k]
        iv[q : q + 2] = [(iv[q][0], iv[q + 1][1])]

    def replace(self, w: int, old: int, new: int) -> tuple[int, int]:
        """Path ``w`` passes ``new`` where it passed ``old``; the vertices around it."""
        s = self.seq[w]
        q = s.index(old)
        s[q] = new
        return s[q - 1], s[q + 1]

    def key(self) -> frozenset:
        """A canonical form of the structure: the segments each vertex holds."""
        content: dict[int, list[tuple[int, int, int]]] = defaultdict(list)
        for w, (vs, ivs) in enumerate(zip(self.seq, self.ivs, strict=True)):
            for v, (lo, hi) in zip(vs[1:-1], ivs[1:-1], strict=True):
                content[v].append((w, lo, hi))
        return frozenset(frozenset(c) for c in content.values())


class FaceState(LineGraphState, Printable):
    """A line graph under face elimination: Naumann's rules (eliminate a face, merge equal
    vertices, split) over the faces, the paths through it in :class:`PathTracks` (drawn
    in notebooks by the renderer's SVG printer)."""

    rich_formats = ("svg", "png")

    def __init__(self, graph: DGraph, symbolic: bool = True) -> None:
        """The line graph of ``graph`` before any elimination; ``symbolic=False`` skips the
        labels (structure and cost only, for searches)."""
        self.graph, self.symbolic = graph, symbolic
        self.tracks = PathTracks(input_output_paths(graph))
        # faces as adjacency dicts sharing one path set per face: searches copy states by
        # the thousand, and a networkx graph costs ten times more to copy
        self.succ: dict[int, dict[int, set[int]]] = {}
        self.pred: dict[int, dict[int, set[int]]] = {}
        self.span: dict[int, tuple[str, str]] = {}
        self.name: dict[int, str] = {}
        self.label: dict[int, sympy.Expr] = {}
        self.kind: dict[int, Value] = {}  # a constant's value, None if general (core.kinds)
        self.references: dict[sympy.Symbol, sympy.Expr] = {}
        self.steps: list[Step] = []
        self.mults = 0
        self.mults_effective = 0
        self._ids = itertools.count()
        self._span_count: dict[tuple[str, str], int] = defaultdict(int)
        self._alive: dict[tuple[str, str], set[int]] = defaultdict(set)  # live vertices by span
        vertex_of: dict[tuple[str, str], int] = {}

        def vertex(span: tuple[str, str]) -> int:
            if span not in vertex_of:
                terminal = SUPER_SOURCE in span or SUPER_SINK in span
                label = None if terminal else graph.symbol(*span)
                kind = 1 if terminal else value_of(graph.constant_label(*span))
                vertex_of[span] = self._new(span, label, kind)
            return vertex_of[span]

        for w, path in enumerate(self.paths):
            vs = [vertex((SUPER_SOURCE, path[0]))]
            vs += [vertex((path[q], path[q + 1])) for q in range(len(path) - 1)]
            vs.append(vertex((path[-1], SUPER_SINK)))
            self.tracks.add(vs)
            for a, b in itertools.pairwise(vs):
                self._add_path(a, b, w)

    # -- bookkeeping ---------------------------------------------------------------------

    def _add_path(self, a: int, b: int, w: int) -> None:
        if b in self.succ[a]:
            self.succ[a][b].add(w)
        else:
            self.succ[a][b] = self.pred[b][a] = {w}

    def _drop_path(self, a: int, b: int, w: int) -> None:
        paths = self.succ[a][b]
        paths.discard(w)
        if not paths:
            del self.succ[a][b], self.pred[b][a]

    def _drop_if_dead(self, v: int) -> None:
        """Naumann's step 3: a vertex no path passes through any more is removed."""
        if v in self.succ and not self.pred[v] and not self.succ[v]:
            del self.succ[v], self.pred[v]
            self.label.pop(v, None)
            self.kind.pop(v, None)
            self._alive[self.span[v]].discard(v)

    def copy(self) -> FaceState:
        """An independent copy (for searches)."""
        other = FaceState.__new__(FaceState)
        other.__dict__.update(self.__dict__)
        other.succ = {v: {u: set(ws) for u, ws in out.items()} for v, out in self.succ.items()}
        other.pred = {v: {} for v in self.succ}
        for v, out in other.succ.items():
            for u, ws in out.items():
                other.pred[u][v] = ws
        other.span, other.name, other.label = dict(self.span), dict(self.name), dict(self.label)
        other.kind = dict(self.kind)
        other.references, other.steps = dict(self.references), list(self.steps)
        other._span_count = defaultdict(int, self._span_count)
        other._alive = defaultdict(set, {k: set(vs) for k, vs in self._alive.items()})
        other._ids = itertools.count(max(self.span) + 1)
        other.tracks = self.tracks.copy()
        return other

    # -- queries -------------------------------------------------------------------------

    def is_terminal(self, v: int) -> bool:
        return SUPER_SOURCE in self.span[v] or SUPER_SINK in self.span[v]

    def paths_through(self, i: int, j: int) -> set[int]:
        return self.succ[i][j]

    @property
    def paths(self) -> list[tuple[str, ...]]:
        """The input-output paths of the graph (vertex names), indexed as tracked."""
        return self.tracks.paths

    @property
    def seq(self) -> list[list[int]]:
        return self.tracks.seq

    @property
    def ivs(self) -> list[list[tuple[int, int]]]:
        return self.tracks.ivs

    def segments(self, w: int, i: int, j: int) -> tuple[tuple[int, int], tuple[int, int]]:
        """The edge intervals that ``i`` and ``j`` hold of path ``w`` (consecutive)."""
        self._position(w, i, j)
        return self.tracks.segments(w, i, j)

    def neighbours(self, w: int, i: int, j: int) -> tuple[Face | None, Face | None]:
        """The faces of path ``w`` just before ``i`` and just after ``j`` (None at ⊕/⊖)."""
        q, s = self._position(w, i, j), self.seq[w]
        before = (s[q - 1], i) if q > 0 and not self.is_terminal(s[q - 1]) else None
        after = (j, s[q + 2]) if q + 2 < len(s) and not self.is_terminal(s[q + 2]) else None
        return before, after

    def _position(self, w: int, i: int, j: int) -> int:
        try:
            return self.tracks.position(w, i, j)
        except ValueError:
            raise DGraphError(
                f"path {w} does not pass the face {self.name[i]} -> {self.name[j]}"
            ) from None

    def key(self) -> frozenset:
        """A canonical form of the structure: the segments each vertex holds."""
        return self.tracks.key()

    def face_by_name(self, first: str, second: str) -> Face:
        ids = {self.name[v]: v for v in self.succ}
        try:
            face = (ids[first], ids[second])
        except KeyError as exc:
            raise DGraphError(f"no line-graph vertex named {exc.args[0]!r} at this point") from None
        if face[1] not in self.succ[face[0]]:
            raise DGraphError(f"no face {first} -> {second} at this point")
        return face

    # -- Naumann's rules -----------------------------------------------------------------

    def effective_cost(self, i: int, j: int) -> int:
        """Effective multiplications of eliminating the face ``(i, j)``: 0 or 1."""
        return multiply(self.kind[j], self.kind[i])[0]

    def absorbs(self, i: int, j: int) -> bool:
        """Whether the face's product would go into an existing vertex (no fill-in)."""
        span = (self.span[i][0], self.span[j][1])
        return self._find(span, set(self.pred[i]), set(self.succ[j])) is not None

    def eliminate(self, i: int, j: int) -> int:
        """Eliminate the intermediate face ``(i, j)``: ``c_k (+)= c_j · c_i``; one mult."""
        if j not in self.succ.get(i, ()) or self.is_terminal(i) or self.is_terminal(j):
            raise DGraphError("only a face between two edge vertices can be eliminated")
        preds, succs = set(self.pred[i]), set(self.succ[j])
        span = (self.span[i][0], self.span[j][1])
        term = self._factor(j) * self._factor(i) if self.symbolic else None
        effective, kind = multiply(self.kind[j], self.kind[i])
        k = self._find(span, preds, succs)
        if k is None:  # fill-in
            k = self._new(span, term, kind)
        else:  # absorption
            self.kind[k] = add(self.kind[k], kind)
            if self.symbolic:
                self.label[k] = self.label[k] + term
        self.steps.append(Step("face", (self.name[i], self.name[j]), 1))
        for w in list(self.paths_through(i, j)):
            q = self._position(w, i, j)
            before, after = self.seq[w][q - 1], self.seq[w][q + 2]
            self._drop_path(before, i, w)
            self._drop_path(i, j, w)
            self._drop_path(j, after, w)
            self._add_path(before, k, w)
            self._add_path(k, after, w)
            self.tracks.contract(w, q, k)
        for v in (i, j):
            self._drop_if_dead(v)
        self._merge_around({i, j, k} | preds | succs)
        self.mults += 1
        self.mults_effective += effective
        return 1

    def _merge(self, keep: int, gone: int) -> None:
        self.kind[keep] = add(self.kind[keep], self.kind[gone])
        if self.symbolic:
            self.label[keep] = self.label[keep] + self.label[gone]
        self.steps.append(Step("merge", (self.name[keep], self.name[gone]), 0))
        for w in set().union(*self.pred[gone].values()):
            self._move(w, gone, keep)
        self._drop_if_dead(gone)

    def _move(self, w: int, old: int, new: int) -> None:
        """Path ``w`` passes ``new`` where it passed ``old`` (same segment)."""
        before, after = self.tracks.replace(w, old, new)
        self._drop_path(before, old, w)
        self._drop_path(old, after, w)
        self._add_path(before, new, w)
        self._add_path(new, after, w)

    def split(self, v: int, neighbours: set[int], side: str = "in") -> int:
        """Griewank–Walther split: a copy of ``v`` with the same value takes over the faces
        from (``side="in"``) or to (``"out"``) ``neighbours``; no multiplication."""
        if v not in self.succ or self.is_terminal(v):
            raise DGraphError("split: not a remaining edge vertex of the line graph")
        edges = self.pred[v] if side == "in" else self.succ[v]
        if not neighbours or not neighbours < set(edges):
            raise DGraphError("split: give a proper, nonempty subset of the vertex's neighbours")
        label = self._factor(v) if self.symbolic else None
        copy = self._new(self.span[v], label, self.kind[v])
        for u in neighbours:
            face = (u, v) if side == "in" else (v, u)
            for w in list(self.paths_through(*face)):
                self._move(w, v, copy)
        self.steps.append(Step("split", (self.name[v], self.name[copy]), 0))
        return copy

    # -- result --------------------------------------------------------------------------

    def entries(self) -> dict[tuple[str, str], sympy.Expr]:
        """The labels of the vertices between a ⊕ and a ⊖ vertex alone, keyed (y, x): the
        Jacobian entries made so far (every one once :meth:`done`)."""
        result: dict[tuple[str, str], sympy.Expr] = {}
        for v in self.succ:
            if self.is_terminal(v) or len(self.pred[v]) != 1 or len(self.succ[v]) != 1:
                continue
            (src,), (snk,) = self.pred[v], self.succ[v]
            if self.is_terminal(src) and self.is_terminal(snk):
                result[(self.span[snk][0], self.span[src][1])] = self.label[v]
        return result
