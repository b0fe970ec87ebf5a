"""Local search over vertex elimination orders, each move priced on its window only.

After eliminating a set S of vertices the c-graph depends on S alone, not on the order
that eliminated it: an edge u -> v is there where a path from u to v has every inner
vertex in S, and its label is the sum of those paths' products (Naumann 2004, the basis
of Bischof's dynamic program over eliminated sets). Moving the vertex at position i of an
order to position j therefore changes only the prices of the positions between them: the
states before ``min(i, j)`` and after ``max(i, j)`` stay as they were. The searches keep
the state before every position and the price of every step, and price a move by
replaying its window — O(window · degree) work instead of the whole order's — dropping it
as soon as its window costs more than the move may (the annealing threshold is drawn
first).

* :func:`anneal_windows`: simulated annealing over orders with window moves (a vertex
  moved at most a log-uniform distance), restarted from the best order found;
* :func:`improve_windows`: large-neighbourhood search that re-orders every window of
  ``width`` consecutive positions optimally (Bischof's dynamic program over the window's
  subsets, started from the state before it), until no window improves: structural
  multiplications only.

The objective is ``"structural"`` (every product one multiplication: plain vertex
elimination, the count of AlphaGrad, Lohoff & Neftci 2024) on bit-set states, or
``"effective"`` (±1 labels free, constants folded) on label values
(:data:`dgraph.elimination.kernel.VALUES`). Where two all-constant paths join the same two
vertices, label values may depend on the order (:meth:`Closure.exact`), so an effective
window price can differ from the whole order's: the annealing re-prices its result whole.

References: U. Naumann, "Optimal accumulation of Jacobian matrices by elimination methods
on the dual computational graph", Math. Program. 99 (2004) 399–421; J. Lohoff, E. Neftci,
"Optimizing automatic differentiation with deep reinforcement learning", NeurIPS 2024.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

from ..core.budget import Deadline
from ..core.graph import DGraph
from ..core.kinds import add, multiply
from ..elimination.kernel import VALUES, Costed

__all__ = ["OBJECTIVES", "anneal_windows", "improve_windows", "order_cost"]

OBJECTIVES = ("effective", "structural")
WIDTH = 8  # positions re-ordered exactly at once (2**WIDTH subsets each)


class _Bits:
    """Structure only: every vertex's predecessors and successors as bit sets."""

    __slots__ = ("pred", "succ")

    def __init__(self, pred: list[int], succ: list[int]) -> None:
        self.pred, self.succ = pred, succ

    def copy(self) -> _Bits:
        return _Bits(self.pred[:], self.succ[:])

    def eliminate(self, v: int) -> int:
        """c_ki += c_kv · c_vi for every predecessor i and successor k; |P|·|S| products."""
        pred, succ = self.pred, self.succ
        p, s = pred[v], succ[v]
        keep = ~(1 << v)
        rest = p
        while rest:
            low = rest & -rest
            i = low.bit_length() - 1
            succ[i] = (succ[i] & keep) | s
            rest ^= low
        rest = s
        while rest:
            low = rest & -rest
            k = low.bit_length() - 1
            pred[k] = (pred[k] & keep) | p
            rest ^= low
        pred[v] = succ[v] = 0
        return p.bit_count() * s.bit_count()


class _Labels:
    """Label values (:mod:`dgraph.core.kinds`): effective multiplications. A copy shares
    every vertex's dicts and copies one only before writing to it (then neither state
    owns the ones they shared), so a copy costs O(vertices) pointers and an elimination
    O(degree) dicts."""

    __slots__ = ("mine_pred", "mine_succ", "pred", "succ")

    def __init__(self, pred: list[dict[int, Any]], succ: list[dict[int, Any]]) -> None:
        self.pred, self.succ = pred, succ
        self.mine_pred: set[int] = set()
        self.mine_succ: set[int] = set()

    def copy(self) -> _Labels:
        self.mine_pred, self.mine_succ = set(), set()
        return _Labels(list(self.pred), list(self.succ))

    def eliminate(self, v: int) -> int:
        """c_ki += c_kv · c_vi for every predecessor i and successor k (the kernel's
        :meth:`Elimination.eliminate_vertex` on label values); its effective cost."""
        pred, succ, mine_pred, mine_succ = self.pred, self.succ, self.mine_pred, self.mine_succ
        lowers, uppers = pred[v], succ[v]
        total = 0
        for k, c_kv in uppers.items():
            if k not in mine_pred:
                pred[k] = pred[k].copy()
                mine_pred.add(k)
            into = pred[k]
            del into[v]
            for i, c_vi in lowers.items():
                cost, term = multiply(c_kv, c_vi)
                total += cost
                if i not in mine_succ:
                    succ[i] = succ[i].copy()
                    mine_succ.add(i)
                out = succ[i]
                out[k] = into[i] = add(out[k], term) if k in out else term
        for i in lowers:
            if i not in mine_succ:
                succ[i] = succ[i].copy()
                mine_succ.add(i)
            succ[i].pop(v, None)
        pred[v], succ[v] = {}, {}
        mine_pred.add(v)
        mine_succ.add(v)
        return total


def _start(graph: DGraph, objective: str) -> tuple[Any, dict[str, Any]]:
    """The state of ``graph`` before any elimination, and each vertex's key in it."""
    if objective not in OBJECTIVES:
        raise ValueError(f"unknown objective {objective!r}: one of {', '.join(OBJECTIVES)}")
    index = {v: k for k, v in enumerate(graph.order())}
    if objective == "effective":
        preds: list[dict[int, Any]] = [{} for _ in index]
        succs: list[dict[int, Any]] = [{} for _ in index]
        for u, v in graph.edges():
            value = VALUES.leaf(graph, u, v)
            succs[index[u]][index[v]] = preds[index[v]][index[u]] = value
        return _Labels(preds, succs), index
    pred, succ = [0] * len(index), [0] * len(index)
    for u, v in graph.edges():
        succ[index[u]] |= 1 << index[v]
        pred[index[v]] |= 1 << index[u]
    return _Bits(pred, succ), index


def order_cost(graph: DGraph, order: Sequence[str], objective: str = "structural") -> int:
    """The multiplications of vertex elimination in ``order``, in ``objective``.

    >>> from dgraph.frontends import bundled
    >>> g = bundled("naumann_sin.trace")
    >>> order_cost(g, ["v1", "v2"]), order_cost(g, ["v2", "v1"], "effective")
    (4, 3)
    """
    state, key = _start(graph, objective)
    return sum(state.eliminate(key[v]) for v in order)


class _Late(Exception):
    """The deadline passed while a walk's states were being made."""


class _Walk:
    """An order (of keys), the state before each of its positions and each step's price;
    a ``deadline`` (a :class:`~dgraph.core.budget.Deadline`) passing while the states are made
    raises :class:`_Late` (a state per position: quadratic work on a long order)."""

    def __init__(self, state: Any, order: list[Any], deadline: Deadline | None = None) -> None:
        self.order = order
        self.states: list[Any] = [state] + [None] * len(order)
        self.costs = [0] * len(order)
        self.replay(0, len(order), deadline)

    def replay(self, lo: int, hi: int, deadline: Deadline | None = None) -> None:
        """Re-price positions ``lo`` to ``hi - 1`` and the states after them (raising
        :class:`_Late` once ``deadline`` has passed)."""
        state = self.states[lo].copy()
        for k in range(lo, hi):
            if deadline is not None and deadline.passed():
                raise _Late
            self.costs[k] = state.eliminate(self.order[k])
            if k + 1 < hi:
                self.states[k + 1] = state.copy()

    def total(self) -> int:
        return sum(self.costs)

    def window_cost(self, lo: int, window: list[Any], limit: float) -> int | None:
        """What ``window`` costs from the state before ``lo``; None past ``limit``."""
        state, total = self.states[lo].copy(), 0
        for v in window:
            total += state.eliminate(v)
            if total > limit:
                return None
        return total


def anneal_windows(
    graph: DGraph,
    start: Sequence[str],
    objective: str = "structural",
    steps: int | None = None,
    seed: int = 0,
    deadline: Deadline | None = None,
    fixed: int = 0,
    rounds: int = 1,
) -> Costed:
    """Simulated annealing over vertex orders from ``start``: move one vertex a
    log-uniform distance, keep the move if it costs no more than ``T·ln(1/u)`` extra (the
    Metropolis rule), T cooling geometrically over ``steps`` moves per round, each later
    round restarted from the best order; the best order and its cost in ``objective``.
    The first ``fixed`` vertices of ``start`` stay (a preprocessing prefix); ``deadline``
    (a :class:`~dgraph.core.budget.Deadline`: ``best`` passes only its ceiling, of CPU
    time with a wall-clock backstop, and says when it bites) cuts it short, checked
    before every move and while the states are made (then ``start`` comes back, priced
    whole). The same arguments give the same
    result wherever no deadline cuts a round: the work is ``steps`` moves per round, a
    count.

    >>> from dgraph.frontends import bundled
    >>> anneal_windows(bundled("naumann_sin.trace"), ["v1", "v2"], steps=50)
    Costed(cost=3, order=['v2', 'v1'])
    """
    rng = random.Random(seed)
    state, key = _start(graph, objective)
    name = {k: v for v, k in key.items()}
    prefix = [key[v] for v in start[:fixed]]
    prefix_cost = sum(state.eliminate(v) for v in prefix)
    try:
        walk = _Walk(state, [key[v] for v in start[fixed:]], deadline)
    except _Late:
        return Costed(order_cost(graph, start, objective), list(start))
    n = len(walk.order)
    cost = walk.total()
    best_cost, best = cost, list(walk.order)
    steps = 100 * n if steps is None else steps
    if n >= 2:
        span = math.log(n)
        for round_ in range(rounds):
            temperature = max(1.0, 0.02 * cost)
            cooling = (0.05 / temperature) ** (1 / max(1, steps))
            for _ in range(steps):
                if deadline is not None and deadline.passed():
                    break
                i = rng.randrange(n)
                d = int(math.exp(rng.random() * span))
                j = i + d if rng.random() < 0.5 else i - d
                slack = -temperature * math.log(1.0 - rng.random())
                temperature *= cooling
                if not 0 <= j < n:
                    continue
                lo, hi = min(i, j), max(i, j)
                window = walk.order[lo : hi + 1]
                window = window[1:] + window[:1] if i < j else window[-1:] + window[:-1]
                old = sum(walk.costs[lo : hi + 1])
                new = walk.window_cost(lo, window, old + slack)
                if new is None:
                    continue
                walk.order[lo : hi + 1] = window
                walk.replay(lo, hi + 1)
                cost += new - old
                if cost < best_cost:
                    best_cost, best = cost, list(walk.order)
            if deadline is not None and deadline.passed():
                break
            if cost != best_cost and round_ + 1 < rounds:  # the next round from the best
                walk.order[:] = best
                try:
                    walk.replay(0, n, deadline)
                except _Late:
                    break
                cost = best_cost
    if objective == "effective":  # label values may depend on the order (module doc)
        state = walk.states[0].copy()
        best_cost = sum(state.eliminate(v) for v in best)
    return Costed(prefix_cost + best_cost, [name[v] for v in prefix + best])


def improve_windows(
    graph: DGraph,
    start: Sequence[str],
    width: int = WIDTH,
    deadline: Deadline | None = None,
    windows: int | None = None,
) -> Costed:
    """Re-order every window of ``width`` consecutive positions of ``start`` optimally in
    structural multiplications (the dynamic program over the window's subsets: the state
    after eliminating a subset is the same whichever order did it), windows overlapping
    by half, sweeping until none improves, ``windows`` windows have been re-ordered (a
    count: the same result on every machine) or ``deadline`` (a
    :class:`~dgraph.core.budget.Deadline`: only ``best``'s ceiling; checked while the
    states are made too, then ``start`` comes back, priced whole) passes; the order and its cost.

    >>> from dgraph.frontends import bundled
    >>> improve_windows(bundled("naumann_sin.trace"), ["v1", "v2"])
    Costed(cost=3, order=['v2', 'v1'])
    """
    state, key = _start(graph, "structural")
    name = {k: v for v, k in key.items()}
    try:
        walk = _Walk(state, [key[v] for v in start], deadline)
    except _Late:
        return Costed(order_cost(graph, start), list(start))
    n = len(walk.order)
    width = max(2, min(width, n))
    improved = n >= 2
    while improved:
        improved = False
        for lo in range(0, max(1, n - width + 1), max(1, width // 2)):
            if (deadline is not None and deadline.passed()) or windows == 0:
                return Costed(walk.total(), [name[v] for v in walk.order])
            windows = None if windows is None else windows - 1
            hi = min(n, lo + width)
            window = walk.order[lo:hi]
            cost, better = _window_optimum(walk.states[lo], window)
            if cost < sum(walk.costs[lo:hi]):
                walk.order[lo:hi] = better
                walk.replay(lo, hi)
                improved = True
    return Costed(walk.total(), [name[v] for v in walk.order])


def _window_optimum(state: _Bits, window: list[int]) -> tuple[int, list[int]]:
    """The cheapest order of ``window`` from ``state``: Bischof's dynamic program over its
    subsets, each subset's state (the window's own edges) computed once."""
    k = len(window)
    bits = [1 << v for v in window]
    # the window's predecessor and successor sets once each subset is eliminated
    local: dict[int, tuple[list[int], list[int]]] = {
        0: ([state.pred[v] for v in window], [state.succ[v] for v in window])
    }
    best: dict[int, tuple[int, int]] = {0: (0, -1)}  # subset -> (cost, last eliminated)
    for mask in range(1 << k):
        cost = best[mask][0]
        pred, succ = local.pop(mask)
        for t in range(k):
            if mask >> t & 1:
                continue
            p, s = pred[t], succ[t]
            nxt, price = mask | 1 << t, cost + p.bit_count() * s.bit_count()
            if nxt not in best or price < best[nxt][0]:
                best[nxt] = (price, t)
            if nxt in local:
                continue
            keep, bit = ~bits[t], bits[t]
            after_pred, after_succ = list(pred), list(succ)
            for u in range(k):
                if nxt >> u & 1:
                    continue
                if after_pred[u] & bit:
                    after_pred[u] = (after_pred[u] & keep) | p
                if after_succ[u] & bit:
                    after_succ[u] = (after_succ[u] & keep) | s
            local[nxt] = (after_pred, after_succ)
    order, mask = [], (1 << k) - 1
    total = best[mask][0]
    while mask:
        t = best[mask][1]
        order.append(window[t])
        mask &= ~(1 << t)
    return total, order[::-1]
