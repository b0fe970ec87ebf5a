"""Lumps: macro steps between the points of an order where exactly n values are live.

Pearlmutter & Siskind §3 and Fig. 4: a program with temporaries is cut, along a
topological order, at every point with exactly n live values; each piece (a *lump*) is one
macro step (2.6g) whose inputs are the n values live before it and whose outputs are the n
live after it. Values live on both sides and not read pass through; those read and still
live afterwards are the lump's ``read`` values S; the l values that die inside are
``consumed`` (C) and their slots receive the l ``produced`` values (P). The step Jacobian
is then ((A, B), (0, I)) with A = ∂P/∂C (l×l) and B = ∂P/∂S. A width-preserving statement
is a lump of one vertex with l = 1 (2.6c).

Different topological orders give different lumps. :func:`greedy_order` closes every
lump at the nearest next point with n live values; :func:`min_live_order` takes at every
step the ready vertex that leaves the fewest live values; :func:`exact_order` searches
all orders (over the downsets of the graph) for the smallest largest block l, ties broken
by the fewest sweep multiplications Σ l·k. :func:`lump_cost` measures them all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from ..core.graph import DGraph
from ..errors import DGraphError, SearchTooLarge
from .width import (
    SingularJacobian,
    check_order,
    check_square,
    evaluation_order,
    width_drop,
)

__all__ = [
    "ORDERS",
    "Lump",
    "LumpCost",
    "exact_order",
    "greedy_order",
    "lump_cost",
    "lumps",
    "min_live_order",
    "output_slots",
    "resolve_order",
]

ORDERS = ("greedy", "min-live", "evaluation", "exact")
EXACT_STATE_LIMIT = 100_000
GREEDY_STATE_LIMIT = 5_000


@dataclass(frozen=True)
class Lump:
    """One macro step: its vertices in order, and the slots it reads and writes."""

    vertices: tuple[str, ...]
    consumed: tuple[str, ...]  # C, by slot
    produced: tuple[str, ...]  # P, in evaluation order; produced[i] takes consumed[i]'s slot
    read: tuple[str, ...]  # S, by slot
    slots: tuple[int, ...]  # the slots of consumed[i] and produced[i]
    read_slots: tuple[int, ...]

    @property
    def l(self) -> int:  # noqa: E743 - the paper's name
        """The number of values consumed and produced: A is l×l."""
        return len(self.consumed)

    @property
    def k(self) -> int:
        """Values the lump reads that it needs: consumed and read."""
        return len(self.consumed) + len(self.read)

    @property
    def mults(self) -> int:
        """Multiplications to apply the dense blocks (A⁻¹, A⁻¹B) to one vector: l·k."""
        return self.l * self.k

    def to_dict(self) -> dict:
        """The JSON form of the command line."""
        return {
            "vertices": list(self.vertices),
            "consumed": list(self.consumed),
            "produced": list(self.produced),
            "read": list(self.read),
            "l": self.l,
            "k": self.k,
        }


def lumps(graph: DGraph, order: Sequence[str] | None = None) -> list[Lump]:
    """Cut ``order`` (default: the evaluation order) at every point with n live values.

    >>> from dgraph import from_trace
    >>> g = from_trace('''inputs: a, b
    ... outputs: y, z
    ... s = a + b
    ... t = a - b
    ... y = s*t
    ... z = s/t''', "statement")
    >>> [(lump.vertices, lump.l) for lump in lumps(g)]
    [(('s', 't'), 2), (('y', 'z'), 2)]
    """
    order = evaluation_order(graph) if order is None else list(order)
    key = ("inverse.lumps", tuple(order))  # structure only: cached while the graph is unchanged
    if key not in graph.derived:
        graph.derived[key] = _lumps(graph, check_order(graph, order))
    return list(graph.derived[key])


def _lumps(graph: DGraph, order: list[str]) -> list[Lump]:
    """One pass over a checked order, counting live values and closing a lump at each n."""
    n = check_square(graph)
    outputs = set(graph.outputs)
    waiting = {v: graph.nx.out_degree(v) for v in graph.nx}
    width = sum(1 for x in graph.inputs if waiting[x])
    if width < n:
        raise width_drop(graph, order, 0, width, set())
    slot = {x: i for i, x in enumerate(graph.inputs)}
    found: list[Lump] = []
    start, inside, consumed = 0, set(), []
    for t, v in enumerate(order, start=1):
        dead = set()
        for u in graph.nx.predecessors(v):
            waiting[u] -= 1
            if not waiting[u]:
                dead.add(u)
        width += 1 - len(dead)
        inside.add(v)
        consumed += [u for u in dead if u not in inside]
        if width < n:
            raise width_drop(graph, order, t, width, dead)
        if width > n:
            continue
        vertices = tuple(order[start:t])
        produced = [w for w in vertices if waiting[w] or w in outputs]
        consumed.sort(key=slot.__getitem__)
        gone = set(consumed)
        read = {u for w in vertices for u in graph.nx.predecessors(w)} - inside - gone
        for c, p in zip(consumed, produced, strict=True):
            slot[p] = slot[c]
        found.append(
            Lump(
                vertices,
                tuple(consumed),
                tuple(produced),
                tuple(sorted(read, key=slot.__getitem__)),
                tuple(slot[p] for p in produced),
                tuple(sorted(slot[s] for s in read)),
            )
        )
        start, inside, consumed = t, set(), []
    return found


def output_slots(graph: DGraph, found: Sequence[Lump]) -> list[int]:
    """The slot each output ends in (outputs in declared order) after the lumps ``found``."""
    slot = {x: i for i, x in enumerate(graph.inputs)}
    for lump in found:
        for c, p in zip(lump.consumed, lump.produced, strict=True):
            slot[p] = slot.pop(c)
    return [slot[y] for y in graph.outputs]


class LumpCost(NamedTuple):
    """What a sweep over lumps costs (:func:`lump_cost`)."""

    max_l: int  # the size l of the largest dense block A (l×l)
    mults: int  # the sweep's multiplications, Σ l·k


def lump_cost(found: Sequence[Lump]) -> LumpCost:
    """The size of the largest dense block, then the sweep's multiplications."""
    return LumpCost(max((lump.l for lump in found), default=0), sum(lump.mults for lump in found))


class _Frontier:
    """The state of an order being built: computed vertices, live values, ready vertices."""

    def __init__(self, graph: DGraph) -> None:
        """Nothing computed yet: the inputs are live and their successors may be ready."""
        self.graph = graph
        self.rank = {v: i for i, v in enumerate(graph.order())}
        self.outputs = set(graph.outputs)
        self.waiting = {v: graph.nx.out_degree(v) for v in graph.nx}
        self.missing = {v: graph.nx.in_degree(v) for v in evaluation_order(graph)}
        self.ready = {v for v, m in self.missing.items() if m == 0}
        self.live = {x for x in graph.inputs if self.waiting[x]}
        self.done = set(graph.inputs)
        self.order: list[str] = []
        for x in graph.inputs:
            self._enable(x)

    def _enable(self, v: str) -> None:
        """Successors of ``v`` whose last missing predecessor it was become ready."""
        for w in self.graph.successors(v):
            self.missing[w] -= 1
            if not self.missing[w]:
                self.ready.add(w)

    def growth(self, v: str) -> int:
        """The change in the number of live values if ``v`` is computed next."""
        return 1 - sum(self.waiting[u] == 1 for u in self.graph.predecessors(v))

    def step(self, v: str) -> None:
        """Compute ``v``: its predecessors used for the last time die, it becomes live."""
        self.ready.remove(v)
        self.done.add(v)
        self.order.append(v)
        for u in self.graph.predecessors(v):
            self.waiting[u] -= 1
            if not self.waiting[u]:
                self.live.discard(u)
        self.live.add(v)
        self._enable(v)

    def min_live(self) -> str:
        """The ready vertex that leaves the fewest live values; ties by evaluation order."""
        return min(self.ready, key=lambda v: (self.growth(v), self.rank[v]))

    def nearest_cut(self, n: int, budget: int) -> tuple[str, ...] | None:
        """The fewest next vertices that bring the width back to n (smallest l, then l·k),
        by breadth-first search over downsets; None when that takes more than ``budget``."""
        visits = 0
        level: dict[frozenset[str], tuple[str, ...]] = {frozenset(): ()}
        while level:
            following: dict[frozenset[str], tuple[str, ...]] = {}
            wider: set[frozenset[str]] = set()
            found = []
            for added, path in level.items():
                for v in self._candidates(added):
                    new = added | {v}
                    if new in following:
                        continue
                    visits += 1
                    if visits > budget:
                        return None
                    following[new] = (*path, v)
                    dead, read, width = self._cut(new)
                    if width < n:
                        raise SingularJacobian(
                            f"after computing {', '.join(self.order + list(following[new]))}"
                            f" only {width} < n = {n} values are live: every Jacobian of this"
                            " graph is singular"
                        )
                    if width == n:
                        ranks = [self.rank[w] for w in following[new]]
                        cost = (len(dead), len(dead) * (len(dead) + len(read)), ranks)
                        found.append((cost, following[new]))
                    elif width > n:
                        wider.add(new)
            if found:
                return min(found)[1]
            # in the order found (a set's order would follow PYTHONHASHSEED: the paths
            # kept, the visits before the budget and so the order chosen would too)
            level = {s: path for s, path in following.items() if s in wider}
        return None

    def _candidates(self, added: frozenset[str]) -> list[str]:
        """Vertices ready once ``added`` is computed too, in evaluation order."""
        ready = self.ready - added
        for a in added:
            for w in self.graph.successors(a):
                preds = self.graph.predecessors(w)
                if w not in added and all(u in added or u in self.done for u in preds):
                    ready.add(w)
        return sorted(ready, key=self.rank.__getitem__)

    def _cut(self, added: frozenset[str]) -> tuple[set[str], set[str], int]:
        """Once ``added`` is computed: the live values that die (C), those read that stay
        live (S), and the number of live values."""
        uses: dict[str, int] = {}
        for a in added:
            for u in self.graph.predecessors(a):
                uses[u] = uses.get(u, 0) + 1
        dead = {u for u in self.live if uses.get(u) == self.waiting[u]}
        read = {u for u in self.live if u in uses} - dead
        inner_dead = sum(
            a not in self.outputs and uses.get(a, 0) == self.graph.nx.out_degree(a) for a in added
        )
        return dead, read, len(self.live) - len(dead) + len(added) - inner_dead


def greedy_order(graph: DGraph, budget: int = GREEDY_STATE_LIMIT) -> list[str]:
    """Lump by lump, the nearest next point with n live values (Pearlmutter & Siskind §3).

    From every point with exactly n live values, the fewest vertices that bring the width
    back to n (a breadth-first search over downsets), the one with the smallest l, then
    l·k; where that search exceeds ``budget`` downsets, :func:`min_live_order`'s rule
    until the width is n again. :func:`exact_order` measures how far from optimal it is.

    >>> from dgraph import from_trace
    >>> g = from_trace('''inputs: a, b
    ... outputs: y, z
    ... s = exp(a)
    ... t = exp(b)
    ... y = a*s
    ... z = b*t''', "statement")
    >>> greedy_order(g), [lump.l for lump in lumps(g, greedy_order(g))]
    (['s', 'y', 't', 'z'], [1, 1])
    """
    n = check_square(graph)
    frontier = _Frontier(graph)
    while frontier.ready:
        path = frontier.nearest_cut(n, budget) if len(frontier.live) == n else None
        for v in path or [frontier.min_live()]:
            frontier.step(v)
    return frontier.order


def min_live_order(graph: DGraph) -> list[str]:
    """At each step the ready vertex that leaves the fewest live values (ties: evaluation
    order): the simplest greedy rule, blind to where the next lump closes."""
    frontier = _Frontier(graph)
    while frontier.ready:
        frontier.step(frontier.min_live())
    return frontier.order


class _Downsets:
    """A graph's downsets (sets of computed vertices, as bitmasks over the evaluation
    order): what is live after each, and what can be computed next."""

    def __init__(self, graph: DGraph) -> None:
        self.graph, self.n = graph, check_square(graph)
        self.steps = evaluation_order(graph)
        self.bit = {v: 1 << i for i, v in enumerate(self.steps)}
        self.full = (1 << len(self.steps)) - 1
        bit = self.bit
        self.pred_mask = [
            sum(bit[u] for u in graph.predecessors(v) if u in bit) for v in self.steps
        ]
        self.succ_mask = {v: sum(bit[w] for w in graph.successors(v)) for v in graph.nx}
        self.outputs = set(graph.outputs)

    def live(self, state: int) -> frozenset[str]:
        """The live values once the vertices in ``state`` are computed."""
        succ, bit = self.succ_mask, self.bit
        return frozenset(
            [x for x in self.graph.inputs if succ[x] & ~state]
            + [v for v in self.steps if state & bit[v] and (v in self.outputs or succ[v] & ~state)]
        )

    def ready(self, state: int) -> list[int]:
        """Vertices (indices) not in ``state`` whose predecessors all are."""
        return [
            i
            for i in range(len(self.steps))
            if not state >> i & 1 and self.pred_mask[i] & ~state == 0
        ]

    def check(self, state: int, width: int) -> None:
        """Fewer than n live values anywhere: singular for every order."""
        if width < self.n:
            done = [v for v in self.steps if state & self.bit[v]]
            raise SingularJacobian(
                f"after computing {', '.join(done) or 'nothing'} only {width} < n = {self.n}"
                " values are live, in some order: every Jacobian of this graph is singular"
            )


# a lump between two cuts (downsets with exactly n live values): the cut it reaches, its
# vertices, l (values it consumes) and k (values it reads)
_LumpEdge = tuple[int, tuple[str, ...], int, int]


def _lump_edges(downsets: _Downsets, max_states: int) -> dict[int, list[_LumpEdge]]:
    """Every lump from every reachable cut: a lump passes only through downsets with more
    than n live values."""
    d, n = downsets, downsets.n
    d.check(0, len(d.live(0)))
    edges: dict[int, list[_LumpEdge]] = {}
    visits = 0
    todo, seen_cuts = [0], {0}
    while todo:
        cut = todo.pop()
        cut_live = d.live(cut)
        out: dict[int, _LumpEdge] = {}
        frontier: dict[int, tuple[str, ...]] = {cut: ()}
        while frontier:
            following: dict[int, tuple[str, ...]] = {}
            for state, path in frontier.items():
                for i in d.ready(state):
                    visits += 1
                    if visits > max_states:
                        raise SearchTooLarge(
                            f"exact lump search: more than {max_states} downset visits for"
                            f" {len(d.steps)} steps; use the greedy order"
                        )
                    nxt, vpath = state | 1 << i, (*path, d.steps[i])
                    nxt_live = d.live(nxt)
                    d.check(nxt, len(nxt_live))
                    if len(nxt_live) > n:
                        following.setdefault(nxt, vpath)
                    elif nxt not in out:
                        used = {u for v in vpath for u in d.graph.predecessors(v)}
                        consumed = cut_live - nxt_live
                        read = cut_live & nxt_live & used
                        out[nxt] = (nxt, vpath, len(consumed), len(consumed) + len(read))
                        if nxt not in seen_cuts:
                            seen_cuts.add(nxt)
                            todo.append(nxt)
            frontier = following
        edges[cut] = list(out.values())
    return edges


def _cheapest_lumps(edges: dict[int, list[_LumpEdge]], full: int, worst: int) -> list[str]:
    """The order through the cuts with the smallest largest l, then the fewest
    multiplications Σ l·k among those (two passes in order of size: every lump adds
    vertices); ``worst`` exceeds any l."""
    by_size = sorted(edges, key=int.bit_count)
    bottleneck = {0: 0}
    for cut in by_size:
        for nxt, _, consumed, _ in edges[cut]:
            value = max(bottleneck[cut], consumed)
            if value < bottleneck.get(nxt, worst):
                bottleneck[nxt] = value
    limit = bottleneck[full]
    best: dict[int, tuple[int, int, tuple[str, ...]]] = {0: (0, -1, ())}
    for cut in by_size:
        if cut not in best:
            continue
        for nxt, path, consumed, k in edges[cut]:
            mults = best[cut][0] + consumed * k
            if consumed <= limit and (nxt not in best or mults < best[nxt][0]):
                best[nxt] = (mults, cut, path)
    order: list[str] = []
    state = full
    while state:
        _, previous, path = best[state]
        order[:0] = path
        state = previous
    return order


def exact_order(graph: DGraph, max_states: int = EXACT_STATE_LIMIT) -> list[str]:
    """An order whose lumps have the smallest largest l, then the fewest mults Σ l·k.

    Dynamic programming over the downsets (sets of computed vertices) with exactly n live
    values; between two of them a lump passes only through downsets with more than n.
    Refuses graphs with more than ``max_states`` downset visits (SearchTooLarge), and
    raises SingularJacobian when some downset leaves fewer than n values live (then every
    Jacobian of the graph is singular).
    """
    downsets = _Downsets(graph)
    edges = _lump_edges(downsets, max_states)
    return _cheapest_lumps(edges, downsets.full, len(downsets.steps) + downsets.n + 1)


def resolve_order(graph: DGraph, order: str | Sequence[str] | None = "greedy") -> list[str]:
    """An order by name (greedy, min-live, evaluation, exact; cached per graph) or a given
    list of vertices, checked."""
    if order is None:
        order = "greedy"
    if not isinstance(order, str):
        return check_order(graph, list(order))
    rules = {
        "greedy": greedy_order,
        "min-live": min_live_order,
        "evaluation": evaluation_order,
        "exact": exact_order,
    }
    if order not in rules:
        raise DGraphError(f"unknown order {order!r}: use {', '.join(ORDERS)} or a vertex list")
    key = ("inverse.order", order)
    if key not in graph.derived:
        graph.derived[key] = rules[order](graph)
    return list(graph.derived[key])
