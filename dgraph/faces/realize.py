"""Can face elimination realize an expression set? (Zhou 2020, §5, Lemmas 1–2, Prop. 1)

An expression set fixes, for every input-output path, the order in which its edge
labels are multiplied: its parentheses. Eliminating the face ``(i, j)`` joins the
segments that ``i`` and ``j`` hold for *every* path through that face at once, so it
keeps the parentheses only if, for each of those paths, the joined segment is one the
expression set forms too (a parenthesized value, or a run of adjacent factors of one
product, whose association is free). A face that would break some path's parentheses
must wait for the face on that path just before ``i`` or just after ``j`` — Lemma 2's
elimination dependency.

The check runs the elimination: it repeatedly eliminates a face that keeps every
parenthesis (the innermost first). If it finishes, the order is returned and the
simulation is the proof: the labels it built verify against Bauer's formula and it
counts its multiplications. If it stops with faces left, every one of them waits for
another, so the dependencies contain a cycle, which is returned as faces and as the
expressions forcing each wait (Proposition 1's circular dependency).

Two readings run that simulation: :func:`check_faces` reads the expression DAG without
paths (:mod:`.pathfree`: the stacks of open products at each face), so graphs with
millions of paths are checked; :func:`check_faces_paths` follows every path's segments
(the reference, up to ``FACE_PATH_LIMIT`` paths). They give the same answers.

References
----------
U. Naumann, *Optimal accumulation of Jacobian matrices by elimination methods on the
dual computational graph*, Math. Program. 99 (2004) 399-421.
Y. Zhou, *Notes on Computational Graph and Jacobian Accumulation*, arXiv:2012.15034,
2020, §5.
"""

from __future__ import annotations

import heapq
import itertools
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

import networkx as nx
import sympy

from ..core.algebra import fold
from ..core.display import Printable
from ..core.expressions import ExpressionSet
from ..errors import DGraphError
from .elimination import FACE_PATH_LIMIT, Face, FaceState, check_path_limit
from .pathfree import ExprDag, LineState, Undecided

__all__ = [
    "FACE_PATH_LIMIT",
    "Dependency",
    "FaceCheck",
    "PathForm",
    "check_faces",
    "check_faces_pathfree",
    "check_faces_paths",
    "path_forms",
]


Interval = tuple[int, int]
# A value's expansion: (word as edges in path order, the intervals its parentheses form,
# the multiplication joining the word at each inner edge boundary)
Derivation = list[
    tuple[tuple[tuple[str, str], ...], frozenset[Interval], dict[int, tuple[int, int]]]
]


@dataclass(frozen=True)
class Dependency:
    """``face`` cannot be eliminated before ``waits_for``: ``path`` is written in
    ``expression`` with a parenthesis that eliminating ``face`` first would break."""

    face: tuple[str, str]
    waits_for: tuple[str, str]
    path: str
    expression: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "face": list(self.face),
            "waits_for": list(self.waits_for),
            "path": self.path,
            "expression": self.expression,
        }

    def __str__(self) -> str:
        a, b = self.face
        c, d = self.waits_for
        return f"[{a}, {b}] waits for [{c}, {d}]: path {self.path} in {self.expression}"


@dataclass
class FaceCheck(Printable):
    """The answer for one expression set: an order of faces, or a cycle of waits
    (``to_text()``: a readable account, by the renderer's text printer)."""

    expression_set: ExpressionSet
    acyclic: bool
    order: list[tuple[str, str]] | None
    cycle: list[Dependency] | None
    simulated_mults: int | None
    realization: ExpressionSet | None = None  # the simulation's own expression set
    faces_done: list[tuple[str, str]] = field(default_factory=list)

    @property
    def mults(self) -> int:
        return self.expression_set.mults

    @property
    def realized(self) -> bool:
        """Acyclic, and the simulation verified and cost what the expression set costs."""
        return (
            self.acyclic
            and self.realization is not None
            and self.realization.verified
            and self.simulated_mults == self.mults
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.expression_set.method,
            "acyclic": self.acyclic,
            "order": [list(f) for f in self.order] if self.order is not None else None,
            "cycle": [d.to_dict() for d in self.cycle] if self.cycle is not None else None,
            "mults": self.mults,
            "simulated_mults": self.simulated_mults,
            "realized": self.realized,
            "simulation_verified": bool(self.realization and self.realization.verified),
        }


# -- the parentheses of every path --------------------------------------------------------


@dataclass(frozen=True)
class PathForm:
    """How an expression set writes one path: the edge intervals ``[lo, hi)`` it forms as
    one value, which of its multiplications joins the path at each edge boundary, and the
    Jacobian entry it belongs to."""

    intervals: frozenset[Interval]
    joins: dict[int, tuple[int, int]]
    entry: str


def path_forms(es: ExpressionSet) -> dict[tuple[str, ...], PathForm]:
    """Every path (as its vertices) as the expression set writes it.

    A multiplication is identified by its place in the expression set, so a reference's
    products are one multiplication however many paths use them, while equal products
    written twice are two, as the expression set's cost counts them.

    >>> from dgraph import from_trace
    >>> from dgraph.methods import accumulate
    >>> text = "inputs: x; outputs: y; u = sin(x); v = cos(u); y = exp(v)".replace("; ", chr(10))
    >>> form = path_forms(accumulate(from_trace(text), "reverse"))[("x", "u", "v", "y")]
    >>> sorted(form.intervals)
    [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    """
    edge_of = es.graph.edge_symbols
    memo: dict[sympy.Symbol, Derivation] = {}
    ids = itertools.count()

    def leaf(s: sympy.Symbol) -> Derivation:
        if s in edge_of:
            return [((edge_of[s],), frozenset({(0, 1)}), {})]
        if s not in memo:
            memo[s] = fold(es.references[s], leaf, number, add, mul)
        return memo[s]

    def number(n: sympy.Number) -> Derivation:
        if n != 1:
            raise DGraphError(f"faces: a numeric factor {n} has no face-elimination meaning")
        return [((), frozenset(), {})]

    def add(terms: list[Derivation]) -> Derivation:
        return [d for t in terms for d in t]

    def mul(factors: list[Derivation]) -> Derivation:
        node = next(ids)
        out: Derivation = []
        for combo in itertools.product(*reversed(factors)):  # matrix order -> path order
            word: tuple[tuple[str, str], ...] = ()
            intervals: set[Interval] = set()
            joins: dict[int, tuple[int, int]] = {}
            bounds: list[Interval] = []
            for part, inner, inner_joins in combo:
                offset = len(word)
                intervals.update((lo + offset, hi + offset) for lo, hi in inner)
                joins.update((b + offset, j) for b, j in inner_joins.items())
                if part:
                    if bounds:
                        joins[offset] = (node, len(bounds))
                    bounds.append((offset, offset + len(part)))
                word += part
            # any run of adjacent factors is a value: the association is free
            intervals.update(
                (bounds[a][0], bounds[b][1])
                for a in range(len(bounds))
                for b in range(a, len(bounds))
            )
            out.append((word, frozenset(intervals), joins))
        return out

    result = {}
    for (y, x), entry in es.jacobian.items():
        text = f"d{y}/d{x} = {entry}"  # printed once per entry, not once per path
        for word, intervals, joins in fold(entry, leaf, number, add, mul):
            path = (word[0][0], *(v for _, v in word)) if word else (x,)
            result[path] = PathForm(intervals | {(0, len(word))}, joins, text)
    return result


# -- the check ----------------------------------------------------------------------------


@dataclass
class Forms:
    """The form of every tracked path (by path index) and the paths each multiplication
    of the expression set joins."""

    of: list[PathForm]
    users: dict[tuple[int, int], set[int]]

    @classmethod
    def of_paths(cls, by_path: dict[tuple[str, ...], PathForm], paths: list) -> Forms:
        of = [by_path[p] for p in paths]
        users: dict[tuple[int, int], set[int]] = {}
        for w, form in enumerate(of):
            for join in form.joins.values():
                users.setdefault(join, set()).add(w)
        return cls(of, users)


def _join(state: FaceState, w: int, face: Face) -> tuple[int, int, int]:
    """The interval ``[lo, hi)`` eliminating ``face`` forms on path ``w``, and where the
    two segments meet."""
    (lo, mid), (_, hi) = state.segments(w, *face)
    return lo, mid, hi


def _waits(state: FaceState, face: Face, forms: Forms) -> list[tuple[Face, int]]:
    """The faces ``face`` waits for, each with a path that forces the wait (Lemma 2): on
    that path the segment at ``i`` (or ``j``) must first grow by its neighbour."""
    out = []
    for w in sorted(state.paths_through(*face)):
        lo, _, hi = _join(state, w, face)
        intervals = forms.of[w].intervals
        if (lo, hi) in intervals:
            continue
        before, after = state.neighbours(w, *face)
        grows_right = any(a == lo and b > hi for a, b in intervals)
        grows_left = any(b == hi and a < lo for a, b in intervals)
        if before is not None and (grows_left or not grows_right):
            out.append((before, w))
        if after is not None and (grows_right or not grows_left):
            out.append((after, w))
    return out


class _PathChecker:
    """The reference check's reading of a state: every path's segments against its form."""

    def __init__(self, es: ExpressionSet, forms: Forms) -> None:
        self.es, self.forms = es, forms

    def start(self) -> FaceState:
        return FaceState(self.es.graph)

    def status(self, state: FaceState, face: Face) -> str:
        """What eliminating ``face`` now would be, on every path through it:

        ``exact``: exactly one of the expression set's multiplications, on all its paths;
        ``shared``: several of them at once (they keep every parenthesis; cheaper);
        ``partial``: a multiplication on only some of its paths (it will be done again);
        ``blocked``: it would break a parenthesis.
        """
        forms, joins = self.forms, set()
        through = state.paths_through(*face)
        for w in through:
            lo, mid, hi = _join(state, w, face)
            if (lo, hi) not in forms.of[w].intervals:
                return "blocked"
            joins.add(forms.of[w].joins[mid])
        if any(not forms.users[j] <= through for j in joins):
            return "partial"
        return "exact" if len(joins) == 1 else "shared"

    def width(self, state: FaceState, face: Face) -> int:
        return max(
            hi - lo for lo, _, hi in (_join(state, w, face) for w in state.paths_through(*face))
        )

    def changed(self, state: FaceState) -> None:
        """Every face is read again after each elimination (None): paths are few here."""
        return None

    def statuses(self, state: FaceState, vertices: set[str] | None) -> dict[Face, str]:
        return {f: self.status(state, f) for f in state.faces()}

    def cycle(self, state: FaceState, faces: list[Face]) -> list[Dependency]:
        return _cycle(state, faces, self.forms)


class _PathFreeChecker:
    """The path-free reading: the products on top of the stacks at each face (Zhou's
    multiplication relations read from the expression DAG)."""

    def __init__(self, es: ExpressionSet, dag: ExprDag) -> None:
        self.es, self.dag = es, dag

    def start(self) -> LineState:
        return LineState(self.es.graph, self.dag)

    def status(self, state: LineState, face: Face) -> str:
        status = self.statuses(state, {state.span[face[0]][1]})[face]
        if status == "undecided":
            raise Undecided("a face no stack passes")
        return status

    def changed(self, state: LineState) -> set[str]:
        """The vertices whose faces' statuses may differ since the last call."""
        return state.take_moved()

    def statuses(self, state: LineState, vertices: set[str] | None) -> dict[Face, str]:
        """The status of every face joining at ``vertices`` (None: every vertex); a face
        compares its joins with those of the other faces at its vertex, so they are
        read together ("undecided": no stack passes the face)."""
        out: dict[Face, str] = {}
        index = self.dag.index
        for m in state.at if vertices is None else vertices:
            joins = {f: state.joins(*f) for f in state.at.get(m, {})}
            shared = Counter(y for js in joins.values() for y in js)
            for (i, j), js in joins.items():
                if not js:
                    out[i, j] = "undecided"
                elif not all(state.keeps(i, j, y) for y in js):
                    out[i, j] = "blocked"
                elif any((y, index[y][m]) in state.touched or shared[y] > 1 for y in js):
                    out[i, j] = "partial"
                else:
                    out[i, j] = "exact" if len(js) == 1 else "shared"
        return out

    def width(self, state: LineState, face: Face) -> int:
        return state.width(*face)

    def cycle(self, state: LineState, faces: list[Face]) -> list[Dependency]:
        """A cycle of waits: a face whose top product does not have the outer end of
        ``i`` (of ``j``) among its boundaries waits for a face before ``i`` (after ``j``)
        on a path with that top (Lemma 2)."""
        deps = nx.DiGraph()
        stacks = state.stacks
        for face in faces:
            i, j = face
            for n in sorted(state.face_stacks(i, j)):
                y = stacks.frame[n][0]
                index = self.dag.index[y]
                if state.span[i][0] not in index:
                    for p in state.pred[i]:
                        if state.is_terminal(p) or deps.has_edge(face, (p, i)):
                            continue
                        ahead = set()
                        for a in state.left[p]:
                            ahead |= stacks.read_left(a, state.items[i])
                        hit = [
                            m
                            for m in stacks.meet_sets(ahead, state.right[j])
                            if stacks.frame[m][0] == y
                        ]
                        if hit:
                            deps.add_edge(face, (p, i), stack=min(hit), want=(p, i, j))
                if state.span[j][1] not in index:
                    for s in state.succ[j]:
                        if state.is_terminal(s) or deps.has_edge(face, (j, s)):
                            continue
                        behind = set()
                        for b in state.right[s]:
                            behind |= stacks.read_right(b, state.items[j])
                        hit = [
                            m
                            for m in stacks.meet_sets(state.left[i], behind)
                            if stacks.frame[m][0] == y
                        ]
                        if hit:
                            deps.add_edge(face, (j, s), stack=min(hit), want=(i, j, s))
        names = state.name
        out = []
        for a, b in nx.find_cycle(deps):
            edge = deps.edges[a, b]
            want = frozenset(v for u in edge["want"] for v in state.span[u])
            root, path = stacks.witness(edge["stack"], want)
            out.append(
                Dependency(
                    (names[a[0]], names[a[1]]),
                    (names[b[0]], names[b[1]]),
                    "->".join(path),
                    self.dag.text(root),
                )
            )
        return out


def check_faces(es: ExpressionSet) -> FaceCheck:
    """Whether face elimination realizes ``es``: a face order and its simulation, or a
    cycle of elimination dependencies. Path-free (:mod:`.pathfree`), so graphs with
    millions of input-output paths are checked; an expression set it cannot read (a
    value without one span) goes to :func:`check_faces_paths`, which follows every path.

    Where several faces could go next, the check tries the priorities of ``PRIORITIES``
    in turn (the method's own steps first) and keeps the first simulation that costs
    what the expression set costs: the association of a product of several factors is
    free in the expression set but decides which vertices merge in the line graph.

    >>> from dgraph.frontends import bundled
    >>> from dgraph.methods import accumulate
    >>> check = check_faces(accumulate(bundled("naumann_discrepancy.json"), "markowitz"))
    >>> check.acyclic, check.simulated_mults == check.mults, check.realized
    (True, True, True)
    """
    try:
        return check_faces_pathfree(es)
    except Undecided:
        return check_faces_paths(es)


def check_faces_pathfree(es: ExpressionSet) -> FaceCheck:
    """:func:`check_faces` without paths; raises :class:`Undecided` where it cannot read
    the expression set."""
    if es.verification is None:
        es.verify()
    if not es.verified:
        raise Undecided("an expression set that does not verify")
    forms = [es.as_computed, es] if es.as_computed is not None else [es]
    return _check(es, [(form, _PathFreeChecker(es, ExprDag(form))) for form in forms])


def check_faces_paths(es: ExpressionSet, path_limit: int = FACE_PATH_LIMIT) -> FaceCheck:
    """The reference check: every input-output path followed through the line graph with
    its segments (refuses graphs with more than ``path_limit`` paths, default
    :data:`~dgraph.faces.elimination.FACE_PATH_LIMIT`)."""
    graph = es.graph
    check_path_limit(graph, "faces", path_limit)
    if es.verification is None:
        es.verify()
    paths = FaceState(graph, symbolic=False).paths
    checkers = []
    for form in [es.as_computed, es] if es.as_computed is not None else [es]:
        by_path = path_forms(form)
        if set(by_path) != set(paths):
            raise DGraphError(f"faces: the {es.method} expression set does not cover every path")
        checkers.append((form, _PathChecker(es, Forms.of_paths(by_path, paths))))
    return _check(es, checkers)


def _check(es: ExpressionSet, checkers: list) -> FaceCheck:
    """Replay the method's steps, then simulate by each priority, per form."""
    checks = []
    for form, checker in checkers:
        if form is es.as_computed or es.as_computed is None:
            check = _replay_steps(es, checker)
            if check is not None and check.realized:
                return check
        for priority in PRIORITIES:
            check = _simulate(es, checker, _rank(es, priority))
            if check.realized:
                return check
            checks.append(check)
    acyclic = [c for c in checks if c.acyclic]
    if acyclic:
        return min(acyclic, key=lambda c: (abs(c.simulated_mults - c.mults), c.simulated_mults))
    return checks[-1]


PRIORITIES = ("steps", "forward", "reverse", "innermost")


def _rank(es: ExpressionSet, priority: str) -> dict[str, int]:
    """A rank per graph vertex: faces joining at lower-ranked vertices go first."""
    order = es.graph.order()
    if priority == "forward":
        return {v: k for k, v in enumerate(order)}
    if priority == "reverse":
        return {v: -k for k, v in enumerate(order)}
    if priority == "innermost":
        return dict.fromkeys(order, 0)
    rank: dict[str, int] = {}
    for step in es.steps:  # vertex: its target; forward (i, j): i; backward (i, j): j
        target = step.target
        v = target if isinstance(target, str) else target[0 if step.op == "forward" else 1]
        rank.setdefault(v, len(rank))
    return {v: rank.get(v, len(rank)) for v in order}


def _replay_steps(es: ExpressionSet, checker) -> FaceCheck | None:
    """Vertex and edge elimination are face elimination in chunks (Naumann): replay the
    method's own steps face by face, each checked against the parentheses. None when the
    steps are not eliminations or a face would break a parenthesis."""
    if not es.steps or any(s.op not in ("vertex", "forward", "backward") for s in es.steps):
        return None
    state = checker.start()
    done: list[tuple[str, str]] = []
    for step in es.steps:
        for face in state.step_faces(step.op, step.target):
            if checker.status(state, face) == "blocked":
                return None
            done.append((state.name[face[0]], state.name[face[1]]))
            state.eliminate(*face)
    if not state.done():
        return None
    return _finished(es, state, done)


_TIERS = {"exact": 0, "shared": 1, "partial": 2}


def _simulate(es: ExpressionSet, checker, rank: dict[str, int]) -> FaceCheck:
    """Eliminate faces that keep every parenthesis of the checker's form (``es`` or the
    same set as computed), exact ones first, by ``rank`` of the vertex they join at, then
    innermost; a cycle if none is left to eliminate.

    The faces that could go next wait in a heap; after each elimination only the faces
    at the vertices the checker names as changed are read again (every face where it
    names none), so a step costs what it changed, not the whole line graph."""
    state = checker.start()
    checker.changed(state)
    done: list[tuple[str, str]] = []
    heap: list[tuple] = []
    keyed: dict[Face, tuple] = {}  # each ready face's current heap entry
    ready_at: dict[str, set[Face]] = defaultdict(set)  # the ready faces by their vertex
    vertices: set[str] | None = None  # first, or a checker that names none: every face
    while True:
        if vertices is None:
            heap.clear()
            keyed.clear()
            ready_at.clear()
        for m in vertices or ():
            for f in ready_at.pop(m, ()):
                del keyed[f]
        for f, status in checker.statuses(state, vertices).items():
            if status == "undecided":
                raise Undecided("a face no stack passes")
            if status != "blocked":
                m = state.span[f[0]][1]
                keyed[f] = key = (_TIERS[status], rank[m], checker.width(state, f), f)
                ready_at[m].add(f)
                heapq.heappush(heap, key)
        while heap and keyed.get(heap[0][-1]) != heap[0]:
            heapq.heappop(heap)  # a face read again or gone since it was pushed
        if not heap:
            break
        face = heapq.heappop(heap)[-1]
        done.append((state.name[face[0]], state.name[face[1]]))
        state.eliminate(*face)
        vertices = checker.changed(state)
    if faces := state.faces():
        return FaceCheck(es, False, None, checker.cycle(state, faces), None, None, done)
    return _finished(es, state, done)


def _finished(es: ExpressionSet, state, done: list[tuple[str, str]]) -> FaceCheck:
    """An acyclic answer: the order, and its simulation verified against Bauer's formula,
    priced as the expression set is (what the built realization counts: on a tensor
    graph, its block products, where a face of constant blocks folds for free)."""
    realization = state.result(f"faces:{es.method}")
    realization.verify()
    return FaceCheck(es, True, done, None, realization.mults, realization, done)


def _cycle(state: FaceState, faces: list[Face], forms: Forms) -> list[Dependency]:
    """A cycle in the elimination dependencies among the faces left: every face waits for
    another, so one exists; networkx finds it."""
    deps = nx.DiGraph()
    for face in faces:
        for other, w in _waits(state, face, forms):
            if not deps.has_edge(face, other):
                deps.add_edge(face, other, path=w)
    names = state.name
    out = []
    for a, b in nx.find_cycle(deps):
        w = deps.edges[a, b]["path"]
        out.append(
            Dependency(
                (names[a[0]], names[a[1]]),
                (names[b[0]], names[b[1]]),
                "->".join(state.paths[w]),
                forms.of[w].entry,
            )
        )
    return out
