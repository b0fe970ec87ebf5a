"""What every elimination must pay at each vertex, or group of vertices, in effective mults.

Every vertex, edge or face elimination, indeed every expression set that forms each
path's product exactly once (no cancellation, as in every dgraph method), multiplies a
path's edges together by a bracketing: each multiplication joins a factor that sums path
segments from s to r with one that sums segments from r to t, at the *junction* r, and
(s, r, t) names it. A factor is general as soon as one segment it sums has a general edge,
and non-unit as soon as one has a non-unit edge (:mod:`dgraph.core.kinds`: only a single
all-unit segment is a unit) — as long as no constants cancel, which :func:`bound_kinds`
checks: where they may, the bounds read every label as a unit (no bound). A product
folds its constant factors wherever they stand (2·g·2 costs one multiplication, 4·g, where
a bracketing pays at two junctions), so of the non-unit constants that share a path at
most one per path keeps its kind (:func:`_folding_constants`).

One vertex (:func:`effective_vertex_bounds`): take vertex-disjoint paths P_1..P_m into v
whose last edge is general and Q_1..Q_n out of v whose first edge is non-unit. Each
concatenation P_i Q_j is joined at v by a multiplication general x non-unit, and (s, t)
tells i and j apart, so v pays at least m·n; by Menger, m and n are the fewest vertices
separating v from the inputs (outputs) on such paths. Likewise non-unit in, general out.

A unit-joined group (:func:`group_bounds`): a single vertex misses the products
across unit edges — on x -a-> u -1-> v -b-> y neither u nor v is owed anything alone,
but the path needs a*b at one of them. Let A be c and the intermediates joined to it by
unit paths from above, D those joined by unit paths below, and take vertex-disjoint paths
P_i entering A by a general edge and Q_j leaving D by a non-unit one. Each P_i (unit path
through c) Q_j is a path; the multiplication at the lowest common ancestor, in its
bracketing, of the edge entering A and the edge leaving D joins a general factor to a
non-unit one at a junction in A ∪ D, with s on P_i and t on Q_j. So the group pays at
least m·n, counted at its own junctions only, and groups and single vertices that share
no vertex add up.

Across a general edge (u, v), A being u or the unit-joined vertices above it and D v or
those below it, the joining path holds that edge, so the lowest common ancestor's two
factors are non-unit and one of them general as soon as the paths enter A and leave D by
non-unit edges: m·n with m, n their non-unit cuts. And each path needs a second
multiplication in the group: the factor on the side of that ancestor holding (u, v) joins
it to the entering (or leaving) edge at a junction in A (or D), a product that starts on
P_i (or ends on Q_j) and ends (starts) inside the group. Every pair (i, j) owes one on
P_i's side or on Q_j's, so all m or all n are owed: min(m, n) more, as long as no P_i
runs through A and no Q_j through D, which holds when no vertex of A reaches an entering
edge's tail and none of D is reached from a leaving edge's head (always, for the pair
{u, v} alone).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import combinations

import networkx as nx

from ..core.graph import DGraph
from ..core.kinds import CONSTANT, GENERAL, UNIT, Value, kind_of, value_of

__all__ = [
    "EdgeKinds",
    "bound_kinds",
    "constants_may_fold",
    "effective_vertex_bounds",
    "elimination_lower_bound",
    "group_bounds",
    "junction_groups",
]

_ENDS, _SINK = "__ends__", "__sink__"

Members = frozenset[str] | set[str]
Join = str  # how a group's entries reach its exits: by unit paths ("unit") or a general edge
Part = tuple[tuple[str, ...], int]  # vertices, and what the multiplications at them cost


CONSTANT_PATHS = 6  # constant paths between two vertices the check adds up, at most
RUNG_WORK = 8  # a rung per this many nodes its flow visited (see _Flows)
RUNGS_TRIED = 4  # rungs below a flow's deepest source tried before the one below all


@dataclass(frozen=True)
class EdgeKinds:
    """Every edge's kind as the bounds read it, by successor and by predecessor."""

    succ: dict[str, dict[str, int]]
    pred: dict[str, dict[str, int]]


def bound_kinds(graph: DGraph, folds: bool = True) -> EdgeKinds:
    """The kinds the bounds may read the edges as. A bound counts the products of a
    general factor and a non-unit one, so it holds while a factor (a sum of segments from
    one vertex to another) that sums a general segment is general — so unless a label is
    zero — and one that sums a non-unit segment is not ±1 or 0 — unless constants cancel:
    two constant paths adding up to 0 or ±1, or a product of constants that is ±1.
    Where a label is zero or constants may cancel, every label reads as a unit (no
    bound): a sum of constant paths that is 0 makes every general factor it multiplies
    vanish, so not even general × general products are sure. Constants that a product
    folds are read as :func:`_folding_constants` says; ``folds`` False reads them as they
    are, for costs that price one multiplication at a time (the effective vertex
    searches' moves: ``effective_vertex_bounds`` and ``group_bounds`` take it too).

    >>> from dgraph.frontends import from_trace
    >>> trace = "u = sin(x)\\na = u + x\\nb = u - x\\nc = a - b\\ny = 3*c"
    >>> g = from_trace("inputs: x\\noutputs: y\\n" + trace)
    >>> bound_kinds(g).pred["a"]  # the paths from u to c cancel: no label is sure
    {'x': 0, 'u': 0}
    """
    values = _label_values(graph)
    folding = _folding_constants(graph, values) if folds else set()
    readings = [values]
    if folding:  # the folding constants as their signs: that reading's sums checked too
        signs = {e: 1 if values[e] > 0 else -1 for e in folding}
        readings.append({**values, **signs})
    if 0 in values.values() or not all(_constants_keep_kinds(graph, v) for v in readings):
        # a zero label, or constant paths that may add up to 0, make a general factor
        # vanish (general times 0): no product is sure to be paid
        read: Callable[[Value], int] = lambda value: UNIT  # noqa: E731
    else:
        read = kind_of
    succ: dict[str, dict[str, int]] = {v: {} for v in graph.order()}
    pred: dict[str, dict[str, int]] = {v: {} for v in graph.order()}
    for (u, v), value in values.items():
        succ[u][v] = pred[v][u] = UNIT if (u, v) in folding else read(value)
    return EdgeKinds(succ, pred)


def constants_may_fold(graph: DGraph) -> bool:
    """Whether two non-unit constant labels share a path: a product may then fold them
    (2·g·2 is 4·g), and an expression set pay less than its elimination's moves priced
    one multiplication at a time."""
    return bool(_folding_constants(graph, _label_values(graph)))


def _label_values(graph: DGraph) -> dict[tuple[str, str], Value]:
    """Every edge's constant value (None: general)."""
    return {(u, v): value_of(graph.constant_label(u, v)) for u, v in graph.edges()}


def _folding_constants(graph: DGraph, values: dict[tuple[str, str], Value]) -> set[tuple[str, str]]:
    """The non-unit constant edges the bounds read as units. A product folds its
    constant factors, wherever they stand (2·g·2 is one multiplication, 4·g): two such
    edges on one path may cost one multiplication where a bracketing pays at two
    junctions. Where the non-unit constants are all larger than 1 in size, or all
    smaller, a product of them is never ±1, so one constant per path may stay: the
    topmost (no non-unit constant on a path into its tail). Those that stay share no
    path, and the others set to their signs (units) leave each path's constants one
    non-unit factor as the fold does, so no product costs more than it does folded
    (:func:`bound_kinds` checks the sums of both readings). Else every one that shares
    a path is read as a unit (0.5·g·2 is g)."""
    folds = {e for e, value in values.items() if kind_of(value) == CONSTANT}
    if len(folds) < 2:
        return set()
    order = graph.order()
    above: dict[str, bool] = {}  # a non-unit constant edge on some path into v
    for v in order:
        above[v] = any(above[u] or (u, v) in folds for u in graph.predecessors(v))
    sizes = {abs(values[e]) > 1 for e in folds}
    if len(sizes) == 1:  # all above 1 or all below: no product of them is ±1
        return {(u, v) for u, v in folds if above[u]}
    below: dict[str, bool] = {}  # ... on some path out of u
    for u in reversed(order):
        below[u] = any(below[v] or (u, v) in folds for v in graph.successors(u))
    return {(u, v) for u, v in folds if above[u] or below[v]}


def _constants_keep_kinds(graph: DGraph, values: dict[tuple[str, str], Value]) -> bool:
    """Whether no sum of two or more constant path products between two vertices is 0 or
    ±1, and no product along one path with a non-unit label is ±1 (no label is zero).
    With every constant at least 1 in size, paths of one sign suffice."""
    constant: dict[str, list[tuple[str, Value]]] = {}
    for (u, v), value in values.items():
        if value is not None:
            constant.setdefault(u, []).append((v, value))
    rank = {v: i for i, v in enumerate(graph.order())}
    large = all(abs(c) >= 1 for out in constant.values() for _, c in out)
    for s in sorted(constant, key=rank.__getitem__):
        # per vertex reached from s by constant paths: their signs (when large), else
        # their products and whether each holds a non-unit label
        signs: dict[str, set[int]] = {s: {1}}
        products: dict[str, list[tuple[Value, bool]]] = {s: [(1, False)]}
        for u in sorted(_constant_reach(constant, s), key=rank.__getitem__):
            for v, c in constant.get(u, ()):
                if large:
                    reached = signs.setdefault(v, set())
                    reached.update(sign if c > 0 else -sign for sign in signs[u])
                    if len(reached) > 1:
                        return False
                else:
                    found = products.setdefault(v, [])
                    found.extend((p * c, odd or c not in (1, -1)) for p, odd in products[u])
                    if len(found) > CONSTANT_PATHS:
                        return False
        for v, found in products.items() if not large else ():
            if v != s and not _apart_from_units(found):
                return False
    return True


def _constant_reach(constant: dict[str, list[tuple[str, Value]]], s: str) -> set[str]:
    """``s`` and the vertices it reaches by constant edges (what the check walks from it,
    instead of every vertex after it)."""
    seen, todo = {s}, [s]
    while todo:
        for v, _ in constant.get(todo.pop(), ()):
            if v not in seen:
                seen.add(v)
                todo.append(v)
    return seen


def _apart_from_units(paths: list[tuple[Value, bool]]) -> bool:
    """Whether these products of constant paths (and whether each holds a non-unit
    label) keep their kinds: no non-unit path is ±1, no sum of two or more is 0 or ±1."""
    if any(odd and p in (1, -1) for p, odd in paths):
        return False
    return not any(
        sum(p for p, _ in some) in (-1, 0, 1)
        for n in range(2, len(paths) + 1)
        for some in combinations(paths, n)
    )


def effective_vertex_bounds(graph: DGraph, folds: bool = True) -> dict[str, int]:
    """Per intermediate v, effective multiplications at v that any elimination (vertex,
    edge, face, in any order) needs: max(gen_in * nonunit_out, nonunit_in * gen_out),
    each factor the fewest vertices separating v from the inputs (outputs) on the paths
    that enter (leave) v by a general or non-unit edge.

    >>> from dgraph.frontends import bundled
    >>> effective_vertex_bounds(bundled("naumann_sin.trace"))
    {'v1': 1, 'v2': 2}
    """
    return _Separators(graph, folds).vertex_bounds(graph.intermediates)


def group_bounds(
    graph: DGraph, single: dict[str, int] | None = None, folds: bool = True
) -> list[Part]:
    """A partition of the intermediates into single vertices and joined groups, each with
    the effective multiplications any elimination makes at its junctions (``single``:
    :func:`effective_vertex_bounds`, when known).

    >>> from dgraph.frontends import from_trace
    >>> g = from_trace("inputs: x\\noutputs: y\\nu = sin(x)\\nv = u + 1\\ny = sin(v)")
    >>> effective_vertex_bounds(g), group_bounds(g)
    ({'u': 0, 'v': 0}, [(('u', 'v'), 1)])
    """
    cuts = _Separators(graph, folds)
    if single is None:
        single = cuts.vertex_bounds(graph.intermediates)
    gains = _gains(cuts, single, graph.intermediates)
    rank = {v: i for i, v in enumerate(graph.order())}
    unit = [g for g in gains if g[3] == "unit"]
    parts = max(
        _packings(gains, unit), key=lambda p: sum(o - sum(single[v] for v in m) for m, o in p)
    )
    taken = {v for members, _ in parts for v in members}
    parts = [(tuple(sorted(members, key=rank.__getitem__)), owed) for members, owed in parts]
    return parts + [((v,), single[v]) for v in graph.intermediates if v not in taken]


def junction_groups(graph: DGraph) -> Iterator[tuple[frozenset[str], int]]:
    """Every intermediate and every candidate group that owes more than its vertices
    alone, with what it owes: each a bound on its own junctions, where
    :func:`group_bounds` keeps only disjoint ones to add up.

    >>> from dgraph.frontends import from_trace
    >>> g = from_trace("inputs: x\\noutputs: y\\nu = sin(x)\\nv = u + 1\\ny = sin(v)")
    >>> sorted((sorted(m), owed) for m, owed in junction_groups(g))
    [(['u'], 0), (['u', 'v'], 1), (['v'], 0)]
    """
    cuts = _Separators(graph)
    single = cuts.vertex_bounds(graph.intermediates)
    owes = {frozenset({v}): owed for v, owed in single.items()}
    for members, owed, *_ in _gains(cuts, single, graph.intermediates):
        owes[members] = max(owed, owes.get(members, 0))
    return iter(owes.items())


def elimination_lower_bound(graph: DGraph) -> int:
    """Effective multiplications that every elimination of ``graph`` makes at least.

    >>> from dgraph.frontends import bundled
    >>> elimination_lower_bound(bundled("naumann_sin.trace"))
    3
    """
    return sum(owed for _, owed in group_bounds(graph))


Gain = tuple[frozenset[str], int, int, str]  # members, owed, owed beyond its vertices, join


def _gains(cuts: _Separators, single: dict[str, int], inner: Iterable[str]) -> list[Gain]:
    """The candidate groups that owe more than their vertices alone."""
    gains = []
    for above, below, join in _groups(cuts.kinds, inner):
        members = above | below
        alone = sum(single[v] for v in members)
        if cuts.most_owed(above, below, join) > alone:
            owed = cuts.owed(above, below, join)
            if owed > alone:
                gains.append((members, owed, owed - alone, join))
    return gains


PACKING_STARTS = 50  # greedy packings that start from each of the best groups


def _packings(gains: list[Gain], unit: list[Gain]) -> Iterator[list[tuple[frozenset[str], int]]]:
    """Packings of disjoint groups (a weighted set packing: any packing is a valid bound):
    greedy by gain and by gain per vertex, over all groups and the unit-joined ones, and
    greedy by gain after forcing each of the best groups in first."""
    for pool in (gains, unit):
        for key in (lambda g: -g[2], lambda g: -g[2] / len(g[0])):
            yield _pack(sorted(pool, key=lambda g: (key(g), len(g[0]), sorted(g[0]))))
    ranked = sorted(gains, key=lambda g: (-g[2], len(g[0]), sorted(g[0])))
    for i in range(min(PACKING_STARTS, len(ranked))):
        yield _pack([ranked[i], *ranked[:i], *ranked[i + 1 :]])


def _pack(gains: list[Gain]) -> list[tuple[frozenset[str], int]]:
    """Greedy in the order given."""
    parts: list[tuple[frozenset[str], int]] = []
    taken: set[str] = set()
    for members, owed, *_ in gains:
        if not members & taken:
            parts.append((members, owed))
            taken |= members
    return parts


def _groups(
    kinds: EdgeKinds, inner: Iterable[str]
) -> set[tuple[frozenset[str], frozenset[str], Join]]:
    """Candidate groups (A, D, join). Per vertex c with a unit edge to an intermediate:
    (A, D), (A, {c}), ({c}, D), A and D the intermediates joined to c by unit paths from
    above and below ("unit"). Per general edge (u, v) between intermediates: u or the
    unit-joined vertices above it, with v or those below it ("general")."""
    inner = set(inner)

    def reach(c: str, step: Callable[[str], dict[str, int]]) -> frozenset[str]:
        seen, todo = {c}, [c]
        while todo:
            for u, kind in step(todo.pop()).items():
                if kind == UNIT and u in inner and u not in seen:
                    seen.add(u)
                    todo.append(u)
        return frozenset(seen)

    out = set()
    for c in inner:
        above, below, alone = reach(c, kinds.pred.get), reach(c, kinds.succ.get), frozenset({c})
        out |= {(a, d, "unit") for a, d in ((above, below), (above, alone), (alone, below))}
        out.discard((alone, alone, "unit"))
        for v, kind in kinds.succ[c].items():
            if kind == GENERAL and v in inner:
                heads = (frozenset({v}), reach(v, kinds.succ.get))
                out |= {(a, d, "general") for a in (alone, above) for d in heads}
    return out


class _Separators:
    """Fewest vertices separating a vertex set from the inputs (or outputs) on the paths
    that enter (leave) it by an edge of some kinds: the node connectivity of the inputs and
    the set's entering edges redirected to one sink (:class:`_Flows`, one per side)."""

    def __init__(self, graph: DGraph, folds: bool = True) -> None:
        self.kinds = bound_kinds(graph, folds)
        down = nx.DiGraph(graph.nx.edges)
        down.add_edges_from((_ENDS, x) for x in graph.inputs)
        up = nx.DiGraph(graph.nx.edges).reverse()
        up.add_edges_from((_ENDS, y) for y in graph.outputs)
        order = graph.order()
        self.flows = {True: _Flows(down, order), False: _Flows(up, reversed(order))}
        self.memo: dict[tuple[frozenset[str], bool, bool], int] = {}
        self.graph = graph.nx
        self.rank = {v: i for i, v in enumerate(order)}

    def vertex_bounds(self, vertices: Iterable[str]) -> dict[str, int]:
        """What each vertex owes alone (a group of one)."""
        return {v: self.owed({v}, {v}) for v in vertices}

    def owed(self, above: Members, below: Members, join: Join = "unit") -> int:
        """What a group owes: max(gen_in(above) * nonunit_out(below), nonunit_in(above) *
        gen_out(below)); across a general edge nonunit_in * nonunit_out (+ the smaller
        when the two sides are apart)."""
        return _owed(
            join,
            lambda into, general: self.cut(above if into else below, into, general),
            join == "general" and self.apart(above, below),
        )

    def most_owed(self, above: Members, below: Members, join: Join = "unit") -> int:
        """An upper bound on :meth:`owed` from edge counts alone (no flow)."""
        return _owed(
            join,
            lambda into, general: len(self._sources(above if into else below, into, general)),
            join == "general",
        )

    def apart(self, above: Members, below: Members) -> bool:
        """Whether no path to a tail of a non-unit edge entering ``above`` runs through
        ``above``, and none from a head of one leaving ``below`` runs through ``below``."""
        return not any(
            self._meets(self._sources(members, into, False), members, into)
            for members, into in ((above, True), (below, False))
        )

    def _meets(self, ends: set[str], members: Members, into: bool) -> bool:
        """Whether a vertex of ``members`` is one of ``ends`` or an ancestor (``into``) or
        a descendant of one: searched from ``ends`` over the vertices that sit between
        them and ``members`` in the evaluation order (a path's vertices keep its order)."""
        rank = self.rank
        if into:
            step, bound = self.graph.pred, min(rank[v] for v in members)
        else:
            step, bound = self.graph.succ, -max(rank[v] for v in members)
        sign = 1 if into else -1
        seen, todo = set(ends), list(ends)
        while todo:
            v = todo.pop()
            if v in members:
                return True
            for u in step[v]:
                if u not in seen and sign * rank[u] >= bound:
                    seen.add(u)
                    todo.append(u)
        return False

    def cut(self, members: Members, into: bool, general: bool) -> int:
        key = (frozenset(members), into, general)
        if key not in self.memo:
            flows = self.flows[into]
            sources = {v for v in self._sources(key[0], into, general) if v in flows.index}
            self.memo[key] = len(sources) if len(sources) < 2 else flows.paths(sources)
        return self.memo[key]

    def _sources(self, members: Members, into: bool, general: bool) -> set[str]:
        """The far ends of the edges entering (into) or leaving ``members`` whose kind is
        general (or, without ``general``, non-unit)."""
        side = self.kinds.pred if into else self.kinds.succ
        wanted = (GENERAL,) if general else (GENERAL, CONSTANT)
        return {u for v in members for u, kind in side[v].items() if kind in wanted}


class _Flows:
    """Vertex-disjoint paths from ``__ends__`` into a set of sources: the node connectivity
    of ``__ends__`` and a sink every source has an edge to (Menger: each vertex but
    ``__ends__`` on one path, breadth-first augmenting paths on lists built once per graph).

    A path from ``__ends__`` to a deep vertex is long, and a flow from ``__ends__`` walks
    everything above its sources: one per vertex is quadratic on a long program. Two
    shared structures keep the counts local:

    - Dominators: one path, and no more, reaches sources that one vertex separates from
      ``__ends__``. A vertex dominated by no vertex but ``__ends__`` is its own *top*, any
      other has its predecessors' common top (a topological order's single pass): the
      sources share a dominator exactly when they share their top. With two sources, or
      a rung of two (below), that settles the count.
    - Rungs: a separator C linked to ``__ends__`` (|C| vertex-disjoint paths join them)
      that separates it from every vertex at a position of a topological order or later.
      Then the paths into sources that C separates from ``__ends__`` are as many as the
      paths from C to them on the vertices between (suffixes from the last vertex of C on
      each path; conversely, the linking paths stay on ``__ends__``'s side of C and join
      each path from C without meeting it). Each rung is the min separator of ``__ends__``
      from the vertices just past its position nearest them, found from the rung before
      (a min separator is linked: a cut between ``__ends__`` and it would cut the
      vertices past it too); rungs are spaced by the work each took. A flow starts at the
      nearest rung that separates its sources (each past the rung's position, or on it).
    """

    def __init__(self, base: nx.DiGraph, order: Iterable[str] | None = None) -> None:
        reached = nx.descendants(base, _ENDS) | {_ENDS} if _ENDS in base else set()
        ordered = nx.topological_sort(base) if order is None else [_ENDS, *order]
        index = {v: i for i, v in enumerate(v for v in ordered if v in reached)}
        self.index = index  # a vertex's index is its position in the topological order
        self.succ = [[index[w] for w in base.succ[v]] for v in index]
        self.pred = [[index[u] for u in base.pred[v] if u in index] for v in index]
        self.top = list(range(len(index)))  # the dominator just below __ends__
        for v, into in enumerate(self.pred):
            tops = {self.top[u] for u in into}
            if len(tops) == 1 and 0 not in tops:
                self.top[v] = tops.pop()
        self.last = [max(out, default=i) for i, out in enumerate(self.succ)]
        self.stamp = [0] * len(index)  # the region a search may visit: stamp == token
        self.token = 0
        self.rungs: list[int] = [1]  # positions, each with its separator in self.cuts
        self.cuts: list[frozenset[int]] = [frozenset({0})]  # __ends__ itself at first
        self.next_rung = 1
        self.front = 0  # self.live: the vertices before it with a successor at or after it
        self.live: set[int] = set()
        self.leaving: dict[int, list[int]] = {}

    def paths(self, sources: set[str]) -> int:
        """How many paths from ``__ends__``, no two through one vertex, each ending at a
        vertex of ``sources``: the most flow with unit vertex capacities."""
        gate = {self.index[v] for v in sources if v in self.index} - {0}
        if len({self.top[v] for v in gate}) < 2:
            return len(gate) and 1
        if len(gate) == 2 or len(self.succ[0]) == 2:
            return 2
        cut = self._rung(gate)
        if len(cut) == 2:
            return 2
        starts, _ = self._region(gate, cut)
        return self._flow(starts, gate)[0]

    def _rung(self, gate: set[int]) -> frozenset[int]:
        """The separator of the nearest rung that separates ``gate`` from ``__ends__``."""
        low, high = min(gate), max(gate)
        self._climb(high)
        k = bisect_right(self.rungs, high) - 1
        for j in range(k, max(k - RUNGS_TRIED, 0), -1):
            at, cut = self.rungs[j], self.cuts[j]
            if at <= low or all(v >= at or v in cut for v in gate):
                return cut
        return self.cuts[bisect_right(self.rungs, low) - 1]

    def _climb(self, upto: int) -> None:
        """Rungs up to position ``upto``, each from the one before."""
        while self.next_rung <= min(upto, len(self.succ) - 1):
            at = self.next_rung
            for p in range(self.front, at):
                self.live.add(p)
                self.leaving.setdefault(self.last[p], []).append(p)
            for q in range(self.front, at):
                self.live.difference_update(self.leaving.pop(q, ()))
            self.front = at
            entering = {w for u in self.live for w in self.succ[u] if w >= at}
            starts, visited = self._region(entering, self.cuts[-1])
            _, cut, work = self._flow(starts, entering, nearest=True)
            self.rungs.append(at)
            self.cuts.append(cut)
            work += visited + sum(len(self.succ[u]) for u in self.live)
            self.next_rung = at + max(1, work // RUNG_WORK)

    def _region(self, gate: set[int], cut: frozenset[int]) -> tuple[list[int], int]:
        """Stamp the vertices with a path into ``gate`` that meets ``cut`` at most at its
        start (the vertices between the rung and the sources); the rung's vertices among
        them start the flow. Also how many were visited."""
        self.token += 1
        token, stamp, pred = self.token, self.stamp, self.pred
        todo = list(gate)
        for v in todo:
            stamp[v] = token
        starts = []
        visited = 0
        while todo:
            v = todo.pop()
            visited += 1
            if v in cut:
                starts.append(v)
                continue
            for u in pred[v]:
                if stamp[u] != token:
                    stamp[u] = token
                    todo.append(u)
        return starts, visited

    def _flow(
        self, starts: list[int], gate: set[int], nearest: bool = False
    ) -> tuple[int, frozenset[int], int]:
        """The most vertex-disjoint paths from ``starts`` into ``gate`` on the stamped
        region (``__ends__``, index 0, has no capacity limit), with (``nearest``) the min
        cut nearest to ``gate`` and the nodes the searches visited."""
        succ, pred, stamp, token = self.succ, self.pred, self.stamp, self.token
        carries: set[int] = set()  # vertices on a path
        flow: set[tuple[int, int]] = set()  # the edges on a path
        drained: set[int] = set()  # the sources a path ends at
        count = work = 0
        begun = set(starts)
        for j in gate:  # first the paths of one vertex or one edge: no search (wide rungs)
            for i in (j, *pred[j]):
                if i in begun and (not i or i not in carries) and j not in carries:
                    if i != j:
                        flow.add((i, j))
                        if i:
                            carries.add(i)
                    carries.add(j)
                    drained.add(j)
                    count += 1
                    break
        while True:
            # nodes: 2i enters vertex i, 2i + 1 leaves it; a start's entry has parent -1
            parent = {2 * c: -1 for c in starts}
            queue = list(parent)
            end = -1
            for a in queue:
                i, leaving = a >> 1, a & 1
                if leaving:
                    if i in gate and i not in drained:
                        end = a
                        break
                    steps = [2 * j for j in succ[i] if stamp[j] == token and (i, j) not in flow]
                    if i and i in carries:
                        steps.append(2 * i)  # back along its own capacity
                else:
                    steps = [2 * u + 1 for u in pred[i] if (u, i) in flow]  # back along an edge
                    if not i or i not in carries:
                        steps.append(2 * i + 1)
                for b in steps:
                    if b not in parent:
                        parent[b] = a
                        queue.append(b)
            work += len(queue)
            if end < 0:
                break
            count += 1
            drained.add(end >> 1)
            b, a = end, parent[end]
            while a >= 0:
                i, j = a >> 1, b >> 1
                if i == j:  # along (or back along) vertex i's capacity
                    if a & 1:
                        carries.discard(i)
                    else:
                        carries.add(i)
                elif a & 1:  # along the edge i -> j
                    flow.add((i, j))
                else:  # back along the edge j -> i
                    flow.discard((j, i))
                b, a = a, parent[a]
        if not nearest:
            return count, frozenset(), work
        # the nodes with a residual path to the sink (every edge uncapacitated): the min
        # cut nearest the sink is the vertices whose exit is among them and entry is not
        sink_side = {2 * s + 1 for s in gate}
        todo = list(sink_side)
        while todo:
            x = todo.pop()
            i = x >> 1
            if x & 1:
                back = [2 * w for w in succ[i] if (i, w) in flow]
                if not i or i not in carries:
                    back.append(2 * i)
            else:
                back = [2 * u + 1 for u in pred[i] if stamp[u] == token]
                if i and i in carries:
                    back.append(2 * i + 1)
            for y in back:
                if y not in sink_side:
                    sink_side.add(y)
                    todo.append(y)
        work += len(sink_side)
        cut = frozenset(x >> 1 for x in sink_side if x & 1 and x - 1 not in sink_side)
        assert len(cut) == count, "a cut as large as the flow"
        return count, cut, work


def _owed(join: Join, cut: Callable[[bool, bool], int], apart: bool) -> int:
    """A group's bound from ``cut(into, general)``."""
    if join == "unit":
        return max(cut(True, True) * cut(False, False), cut(True, False) * cut(False, True))
    m, n = cut(True, False), cut(False, False)
    return m * n + (min(m, n) if apart else 0)
