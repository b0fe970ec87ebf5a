"""c-graph structure as bitmasks, for exhaustive searches over eliminations.

The elimination kernel's count algebra (:mod:`dgraph.elimination.kernel`) on a
representation built for speed: vertices are numbered in evaluation order; a *state* is
the tuple of successor masks, one per vertex, which is hashable and cheap to copy. An
intermediate vertex is present while it has successors: elimination removes an
intermediate left without successors (or without predecessors) together with its
remaining edges (Naumann 1999, §2). The moves are checked against the kernel's
(``tests/test_price_equals_built.py``).

References: U. Naumann, "Optimal accumulation of Jacobian matrices by elimination
methods on the dual computational graph", Math. Program. 99 (2004) 399–421.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cached_property

from ..core.graph import DGraph
from .separators import Separators

__all__ = ["MODES", "BitGraph", "State", "iter_bits"]

State = tuple[int, ...]
MODES = ("full", "forward", "backward", "vertex")


def iter_bits(mask: int) -> Iterator[int]:
    """The positions of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class BitGraph:
    """The structure of a :class:`DGraph` with elimination moves on bitmask states."""

    def __init__(self, graph: DGraph) -> None:
        self.graph = graph
        self.names = graph.order()
        self.index = {v: i for i, v in enumerate(self.names)}
        self.intermediates = [self.index[v] for v in graph.intermediates]
        self.intermediate_mask = sum(1 << i for i in self.intermediates)
        succ = [0] * len(self.names)
        for u, v in graph.nx.edges:
            succ[self.index[u]] |= 1 << self.index[v]
        self.start: State = tuple(succ)
        self.start_preds = [0] * len(self.names)
        for u, v in graph.nx.edges:
            self.start_preds[self.index[v]] |= 1 << self.index[u]
        self._cuts: tuple[list[int], list[int]] | None = None

    # -- queries ---------------------------------------------------------------------------

    def preds(self, state: State, v: int) -> int:
        bit = 1 << v
        found = 0
        for k, s in enumerate(state):
            if s & bit:
                found |= 1 << k
        return found

    def all_preds(self, state: State) -> list[int]:
        """Every vertex's predecessor mask: one pass over the edges, for the moves of a
        state (each edge's move asks for one, :meth:`preds` a pass over the vertices)."""
        preds = [0] * len(state)
        for i, s in enumerate(state):
            bit = 1 << i
            while s:
                low = s & -s
                preds[low.bit_length() - 1] |= bit
                s ^= low
        return preds

    def is_final(self, state: State) -> bool:
        return not any(state[v] for v in self.intermediates)

    def edges(self, state: State) -> Iterator[tuple[int, int]]:
        for i, s in enumerate(state):
            for j in iter_bits(s):
                yield i, j

    def name_edge(self, i: int, j: int) -> tuple[str, str]:
        return self.names[i], self.names[j]

    def closure(self, done: int) -> tuple[list[int], list[int]]:
        """Every vertex's predecessor and successor masks after eliminating the vertices
        of ``done`` (a mask), whatever the order: one sweep each way from the start."""
        pred_lists, succ_lists = self._start_lists
        n = len(self.names)
        preds = [0] * n
        for v in range(n):
            acc = 0
            for u in pred_lists[v]:
                acc |= preds[u] if done >> u & 1 else 1 << u
            preds[v] = acc
        succs = [0] * n
        for v in range(n - 1, -1, -1):
            acc = 0
            for w in succ_lists[v]:
                acc |= succs[w] if done >> w & 1 else 1 << w
            succs[v] = acc
        return preds, succs

    @cached_property
    def _start_lists(self) -> tuple[list[list[int]], list[list[int]]]:
        """Every vertex's predecessors and successors in the start state, as lists of
        positions (:meth:`closure` reads them once per state searched)."""
        return (
            [list(iter_bits(m)) for m in self.start_preds],
            [list(iter_bits(m)) for m in self.start],
        )

    def vertex_prices(self, done: int) -> Iterator[tuple[int, int]]:
        """|P_v| * |S_v| for every intermediate v left after eliminating ``done``."""
        preds, succs = self.closure(done)
        for v in self.intermediates:
            if not done >> v & 1:
                yield v, preds[v].bit_count() * succs[v].bit_count()

    # -- moves -----------------------------------------------------------------------------

    def forward(self, state: State, i: int, j: int, preds: int | None = None) -> tuple[int, State]:
        """Forward-eliminate (i, j), i intermediate: each predecessor k of i (``preds``,
        the mask, where known) gains k -> j."""
        if preds is None:
            preds = self.preds(state, i)
        s = list(state)
        for k in iter_bits(preds):
            s[k] |= 1 << j
        s[i] &= ~(1 << j)
        if not s[i]:
            for k in iter_bits(preds):
                s[k] &= ~(1 << i)
        return preds.bit_count(), tuple(s)

    def backward(self, state: State, i: int, j: int, preds: int | None = None) -> tuple[int, State]:
        """Backward-eliminate (i, j), j intermediate: i gains every successor of j (j's
        predecessors: ``preds``, the mask, where known; j leaves when i was the last)."""
        s = list(state)
        s[i] = (s[i] & ~(1 << j)) | s[j]
        if preds is None:
            preds = self.preds(state, j)
        if not preds & ~(1 << i):
            s[j] = 0
        return state[j].bit_count(), tuple(s)

    def vertex(self, state: State, v: int, preds: int | None = None) -> tuple[int, State]:
        """Eliminate vertex v: its predecessors (``preds``, where known) gain its
        successors."""
        if preds is None:
            preds = self.preds(state, v)
        s = list(state)
        for k in iter_bits(preds):
            s[k] = (s[k] & ~(1 << v)) | state[v]
        s[v] = 0
        return preds.bit_count() * state[v].bit_count(), tuple(s)

    def moves(self, state: State, mode: str = "full") -> Iterator[tuple[tuple, int, State]]:
        """Every elimination allowed in ``mode`` from ``state``: (move, cost, next state)."""
        inter = self.intermediate_mask
        preds = self.all_preds(state)
        if mode == "vertex":
            for v in self.intermediates:
                if state[v]:
                    cost, nxt = self.vertex(state, v, preds[v])
                    yield ("vertex", self.names[v]), cost, nxt
            return
        for i, j in list(self.edges(state)):
            if mode in ("full", "forward") and inter >> i & 1:
                cost, nxt = self.forward(state, i, j, preds[i])
                yield ("forward", self.name_edge(i, j)), cost, nxt
            if mode in ("full", "backward") and inter >> j & 1:
                cost, nxt = self.backward(state, i, j, preds[j])
                yield ("backward", self.name_edge(i, j)), cost, nxt

    # -- lower bounds ----------------------------------------------------------------------

    def cuts(self) -> tuple[list[int], list[int]]:
        """Per vertex, the fewest vertices separating it from the inputs (``cut_in``) and
        from the outputs (``cut_out``). In any state reachable by eliminations, a vertex's
        predecessors separate it from the inputs, so ``|P_v| >= cut_in[v]``; likewise
        ``|S_v| >= cut_out[v]``."""
        if self._cuts is None:
            self._cuts = (self._cut(reverse=False), self._cut(reverse=True))
        return self._cuts

    def _cut(self, reverse: bool) -> list[int]:
        links: list[list[int]] = [[] for _ in self.names]
        for u, v in self.graph.nx.edges:
            head, tail = (self.index[u], self.index[v])[:: -1 if reverse else 1]
            links[head].append(tail)
        ends = self.graph.outputs if reverse else self.graph.inputs
        separators = Separators(links, [self.index[x] for x in ends])
        cut = [0] * len(self.names)
        for v in self.intermediates:
            cut[v] = separators(v).size
        return cut
