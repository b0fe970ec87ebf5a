"""The optimal vertex elimination order of a large part, by constraint programming (CP-SAT).

After eliminating a set S the structure does not depend on the order: i -> k exists iff
a path from i to k has all its inner vertices in S. So in an order, the edge i -> k is
ever present (the *filled* graph) iff a path from i to k has every inner vertex
eliminated before both i and k (vertices never eliminated — inputs, outputs — last),
and when v is eliminated its predecessors are the i with i -> v filled and v before i,
its successors the k with v -> k filled and v before k. The model (the elimination game
of triangulation programs, directed):

* a position for every intermediate (all different), and a literal ``v before u`` for
  every pair joined by a path through intermediates;
* ``fill(i, k)`` for every such pair, true on the graph's edges and forced by
  ``pred(i, v) and succ(v, k) => fill(i, k)``, where ``pred(i, v) <=> fill(i, v) and
  v before i`` (likewise ``succ``): by induction on the order, the least assignment is
  the order's filled graph, and every cost below grows with it, so the minimum is the
  order's cost;
* the cost, the sum over v of ``|pred(v)| * |succ(v)|`` (structural: every label a
  general value), each factor at least the min-cut bound of
  :meth:`dgraph.elimination.structure.BitGraph.cuts`;
* in the effective model a filled edge is *general* (a path through eliminated vertices
  with a general label is open) or *constant* (only the one all-constant path, whose
  value is its labels' product): where no two all-constant paths join the same two
  vertices (:meth:`dgraph.elimination.kernel.Closure.exact`) and no label is 0, a label
  after eliminating any set is general iff a general path is open, else that product;
  a product costs one multiplication unless a factor is ±1 or both are constants
  (:func:`dgraph.core.kinds.product`), so v costs ``G_in * (G_out + N_out) + N_in *
  G_out`` with G the general and N the non-unit constant edges at its elimination.

False twins (the same predecessors and successors, intermediates) are eliminated one
after the other in some optimal structural order (Bentert, Crane, Drange, Mizutani and
Sullivan, 2025): eliminating one changes neither the other's predecessors nor its
successors, and swapping the two costs nothing, so the model fixes each class of twins
consecutive in the order of their names (structural model only).

Each count is at least its min-cut bound: the predecessors of v when it is eliminated
separate v from the inputs (the last vertex left on any path from an input to v is one),
and likewise its successors from the outputs.

The solver (OR-Tools CP-SAT, one worker, the budget spent as its deterministic time, a
count of work: the same graph and budget give the same certificate on every machine)
starts from an incumbent order (a hint), which is kept if nothing better is found. Its
result: the best order, its cost (recomputed by eliminating, never taken from the model)
and the solver's proven lower bound; optimal when they meet. Should the model's count of
its order ever differ from the order's cost, nothing is claimed from it.

References: U. Naumann, "Optimal accumulation of Jacobian matrices by elimination
methods on the dual computational graph", Math. Program. 99 (2004) 399–421; M. Bentert,
A. Crane, P. G. Drange, Y. Mizutani and B. D. Sullivan, "The complexity of vertex
elimination with independent partials", arXiv 2506.17521 (2025).
"""

from __future__ import annotations

import importlib.util
import itertools
import time
from collections.abc import Iterable

from ..core import kinds
from ..core.graph import DGraph
from ..errors import SearchTooLarge
from .kernel import VALUES, Closure, effective_cost, move_costs
from .search import SearchResult
from .structure import BitGraph
from .vertex import markowitz_order

__all__ = ["EXACT_LIMIT", "available", "exact_vertex_search", "structural_cost"]

EXACT_LIMIT = 400  # intermediates beyond which the model is not built
# triples (i, v, k), one fill clause each, beyond which it is not built either: its
# building is not counted in the solver's deterministic time (AlphaGrad's graphs: 35,000)
TRIPLE_LIMIT = 500_000
# CP-SAT's deterministic time per second of budget, calibrated on the busy 2-core benchmark
# machine (load about 4), where one unit took 8 to 14 seconds of wall-clock time on the
# black-scholes graph and on random DAGs of 14 to 40 intermediates
DETERMINISTIC_PER_SECOND = 0.1
MODELS = ("structural", "effective")


def available() -> bool:
    """Whether OR-Tools (the optional extra ``jacobian-accumulation[exact]``) is installed."""
    return importlib.util.find_spec("ortools") is not None


def structural_cost(graph: DGraph, order: Iterable[str]) -> int:
    """Structural multiplications of vertex elimination in ``order``."""
    return move_costs(graph, [("vertex", v) for v in order])[1]


class _Paths:
    """The pairs (u, k) joined by a path whose inner vertices are all intermediates, and
    for each whether a path with a general label joins them and the value of the one
    all-constant path (None: there is none)."""

    def __init__(self, graph: DGraph, structural: bool) -> None:
        self.names = graph.order()
        index = {v: i for i, v in enumerate(self.names)}
        inner = {index[v] for v in graph.intermediates}
        n = len(self.names)
        succ: list[list[tuple[int, kinds.Value]]] = [[] for _ in range(n)]
        for u, v in graph.edges():
            label = None if structural else kinds.value_of(graph.constant_label(u, v))
            succ[index[u]].append((index[v], label))
        self.general: dict[tuple[int, int], bool] = {}
        self.constant: dict[tuple[int, int], kinds.Value] = {}
        for u in range(n):  # names are in evaluation order: a topological order
            general: dict[int, bool] = {}
            constant: dict[int, kinds.Value] = {}
            for w in range(u, n):
                if w != u and (w not in general or w not in inner):
                    continue  # not reached, or an input or output: paths stop there
                for k, label in succ[w]:
                    general[k] = general.get(k, False) or label is None or (w != u and general[w])
                    if label is not None and (w == u or w in constant):
                        constant[k] = label * (constant[w] if w != u else 1)  # the only one
            for k, gen in general.items():
                self.general[u, k] = gen
                if k in constant:
                    self.constant[u, k] = constant[k]


def exact_vertex_search(
    graph: DGraph,
    model: str = "structural",
    budget: float | None = None,
    incumbent: list[str] | None = None,
    lower_bound: int = 0,
    floors: dict[str, int] | None = None,
) -> SearchResult:
    """The cheapest vertex elimination order of ``graph`` (a connected part) in the
    ``model``'s multiplications, proven unless ``budget`` (seconds of CP-SAT's
    deterministic time, :data:`DETERMINISTIC_PER_SECOND` a second; None: no limit) ran
    out; the search starts from the cheapest of forward, reverse, Markowitz and
    ``incumbent``, and knows ``lower_bound`` already; ``floors`` are what eliminating each
    vertex costs at least in any order (the effective junction bounds, say).
    The moves are ``("vertex", v)``; ``lower_bound`` of the result is the solver's.
    Raises :class:`SearchTooLarge` without OR-Tools, beyond :data:`EXACT_LIMIT`, or in the
    effective model where a label's value depends on the order.
    """
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}")
    if not available():
        raise SearchTooLarge("vertex-exact: OR-Tools is not installed (pip install ortools)")
    p = len(graph.intermediates)
    if p > EXACT_LIMIT:
        raise SearchTooLarge(f"vertex-exact: {p} intermediates exceed its limit of {EXACT_LIMIT}")
    structural = model == "structural"
    if not structural and (
        not Closure(graph, VALUES).exact()
        or any(graph.constant_label(u, v) == 0 for u, v in graph.edges())
    ):
        raise SearchTooLarge(
            "vertex-exact: two all-constant paths join the same vertices (or a label"
            " is 0): a label's value then depends on the order, not on the set"
        )
    price = (
        (lambda order: structural_cost(graph, order))
        if structural
        else (lambda order: effective_cost(graph, order))
    )
    t0 = time.perf_counter()
    inner = list(graph.intermediates)
    orders = [inner, inner[::-1], markowitz_order(graph)] + ([list(incumbent)] if incumbent else [])
    start_cost, start = min(((price(o), o) for o in orders), key=lambda c: c[0])
    if p <= 1:
        return SearchResult(
            [("vertex", v) for v in start], start_cost, True, start_cost, 0, 0.0, "CP-SAT"
        )
    built = _Model(graph, structural, floors or {})
    counted, order, bound, branches = built.solve(start, start_cost, lower_bound, budget)
    cost = price(order) if order is not None else start_cost
    if order is not None and counted != cost:  # the model is wrong here: claim nothing
        bound = 0
    if order is None or cost > start_cost:
        order, cost = start, start_cost
    bound = min(max(bound, lower_bound), cost)
    proven = bound >= cost
    seconds = time.perf_counter() - t0
    return SearchResult(
        [("vertex", v) for v in order], cost, proven, bound, branches, seconds, "CP-SAT"
    )


class _Model:
    """The CP-SAT model of one graph's vertex elimination (see the module)."""

    def __init__(self, graph: DGraph, structural: bool, floors: dict[str, int]) -> None:
        from ortools.sat.python import cp_model

        self.cp = cp_model
        self.graph = graph
        m = self.model = cp_model.CpModel()
        paths = _Paths(graph, structural)
        names = self.names = paths.names
        index = {v: i for i, v in enumerate(names)}
        inner = [index[v] for v in graph.intermediates]
        self.inner = inner
        is_inner = set(inner)
        n = len(inner)
        self.position = {v: m.NewIntVar(0, n - 1, f"p{v}") for v in inner}
        m.AddAllDifferent(list(self.position.values()))
        self.before: dict[tuple[int, int], object] = {}
        edges = {(index[u], index[v]) for u, v in graph.edges()}
        original = {
            (index[u], index[v]): None if structural else kinds.value_of(graph.constant_label(u, v))
            for u, v in graph.edges()
        }
        # each filled pair: general (g) and constant (c) literals, or fixed truths
        true = m.NewConstant(1)
        false = m.NewConstant(0)
        self.true, self.false = true, false
        self.gen: dict[tuple[int, int], object] = {}
        self.con: dict[tuple[int, int], object] = {}
        self.fill: dict[tuple[int, int], object] = {}
        for pair, gen in paths.general.items():
            has_const = pair in paths.constant
            if pair in edges and original[pair] is None:
                g = true
            elif gen:
                g = m.NewBoolVar(f"g{pair}")
            else:
                g = false
            if has_const and pair in edges:
                c = true
            elif has_const:
                c = m.NewBoolVar(f"c{pair}")
            else:
                c = false
            self.gen[pair], self.con[pair] = g, c
            if structural:
                self.fill[pair] = g
            elif pair in edges:
                self.fill[pair] = true
            elif g is false:
                self.fill[pair] = c
            elif c is false:
                self.fill[pair] = g
            else:
                f = m.NewBoolVar(f"f{pair}")
                m.AddBoolOr([g, c]).OnlyEnforceIf(f)
                m.AddImplication(g, f)
                m.AddImplication(c, f)
                self.fill[pair] = f
        preds: dict[int, list[int]] = {v: [] for v in inner}
        succs: dict[int, list[int]] = {v: [] for v in inner}
        for i, k in paths.general:
            if k in is_inner:
                preds[k].append(i)
            if i in is_inner:
                succs[i].append(k)
        triples = sum(len(preds[v]) * len(succs[v]) for v in inner)
        if triples > TRIPLE_LIMIT:
            raise SearchTooLarge(
                f"vertex-exact: {triples} fill clauses exceed its limit of {TRIPLE_LIMIT}"
            )
        # literals: i is a predecessor of v when v is eliminated (likewise successors)
        pred: dict[tuple[int, int], object] = {}
        succ: dict[tuple[int, int], object] = {}
        for v in inner:
            for i in preds[v]:
                pred[i, v] = self._at(self.fill[i, v], v, i)
            for k in succs[v]:
                succ[v, k] = self._at(self.fill[v, k], v, k)
        # fill: eliminating v joins each predecessor to each successor
        for v in inner:
            for i in preds[v]:
                for k in succs[v]:
                    a, b = pred[i, v], succ[v, k]
                    if structural:
                        self._implies([a, b], self.fill[i, k])
                        continue
                    for g in (self.gen[i, v], self.gen[v, k]):
                        self._implies([a, b, g], self.gen[i, k])
                    self._implies([a, b, self.con[i, v], self.con[v, k]], self.con[i, k])
        # the objective
        bits = BitGraph(graph)
        cut_in, cut_out = bits.cuts()
        terms = []
        for v in inner:
            floor = floors.get(names[v], 0)
            if structural:
                pin = self._count([pred[i, v] for i in preds[v]], cut_in[v])
                pout = self._count([succ[v, k] for k in succs[v]], cut_out[v])
                terms.append(self._product(pin, pout))
                if floor:
                    m.Add(terms[-1] >= floor)
                continue
            g_in = self._count([self._kind(pred[i, v], i, v, True, paths) for i in preds[v]])
            n_in = self._count([self._kind(pred[i, v], i, v, False, paths) for i in preds[v]])
            g_out = self._count([self._kind(succ[v, k], v, k, True, paths) for k in succs[v]])
            n_out = self._count([self._kind(succ[v, k], v, k, False, paths) for k in succs[v]])
            top = g_out[2] + n_out[2]
            both = (m.NewIntVar(0, top, ""), 0, top)
            m.Add(both[0] == g_out[0] + n_out[0])
            terms.append(self._product(g_in, both))
            terms.append(self._product(n_in, g_out))
            if floor:
                m.Add(terms[-2] + terms[-1] >= floor)
        self.objective = sum(terms)
        m.Minimize(self.objective)
        self.twins(structural, preds, succs)

    def twins(self, structural: bool, preds: dict, succs: dict) -> None:
        """False twins consecutive, in index order (structural model; see the module)."""
        if not structural:
            return
        g = self.graph.nx
        classes: dict[tuple, list[int]] = {}
        for v in self.inner:
            name = self.names[v]
            key = (frozenset(g.predecessors(name)), frozenset(g.successors(name)))
            classes.setdefault(key, []).append(v)
        for members in classes.values():
            for a, b in itertools.pairwise(members):
                self.model.Add(self.position[b] == self.position[a] + 1)

    def _before(self, v: int, u: int):
        """The literal ``v is eliminated before u`` (true when u is never eliminated)."""
        if u not in self.position:
            return self.true
        if (u, v) in self.before:
            return self.before[u, v].Not()
        if (v, u) not in self.before:
            lit = self.model.NewBoolVar(f"b{v},{u}")
            self.model.Add(self.position[v] < self.position[u]).OnlyEnforceIf(lit)
            self.model.Add(self.position[v] > self.position[u]).OnlyEnforceIf(lit.Not())
            self.before[v, u] = lit
        return self.before[v, u]

    def _at(self, fill, v: int, other: int):
        """``fill and v before other``: the edge is there when v is eliminated."""
        order = self._before(v, other)
        if order is self.true:
            return fill
        if fill is self.true:
            return order
        lit = self.model.NewBoolVar("")
        self.model.AddBoolAnd([fill, order]).OnlyEnforceIf(lit)
        self.model.AddBoolOr([fill.Not(), order.Not(), lit])
        return lit

    def _implies(self, premises: list, conclusion) -> None:
        if any(p is self.false for p in premises) or conclusion is self.true:
            return
        live = [p for p in premises if p is not self.true]
        clause = [p.Not() for p in live]
        if conclusion is not self.false:
            clause.append(conclusion)
        self.model.AddBoolOr(clause)

    def _kind(self, there, a: int, b: int, general: bool, paths: _Paths):
        """``there`` and the label general (``general``) or a constant other than ±1."""
        g, c = self.gen[a, b], self.con[a, b]
        if general:
            if g is self.false:
                return self.false
            if g is self.true:
                return there
            lit = self.model.NewBoolVar("")
            self.model.AddBoolAnd([there, g]).OnlyEnforceIf(lit)
            self.model.AddBoolOr([there.Not(), g.Not(), lit])
            return lit
        value = paths.constant.get((a, b))
        if value is None or value in (1, -1) or c is self.false or g is self.true:
            return self.false
        parts = [there, c] + ([] if g is self.false else [g.Not()])
        lit = self.model.NewBoolVar("")
        self.model.AddBoolAnd(parts).OnlyEnforceIf(lit)
        self.model.AddBoolOr([p.Not() for p in parts] + [lit])
        return lit

    def _count(self, literals: list, floor: int = 0) -> tuple[object, int, int]:
        """An integer equal to the number of true ``literals`` (at least ``floor``), with
        its bounds."""
        live = [x for x in literals if x is not self.false]
        lo = min(floor, len(live))
        var = self.model.NewIntVar(lo, len(live), "")
        self.model.Add(var == sum(live))
        return var, lo, len(live)

    def _product(self, a: tuple[object, int, int], b: tuple[object, int, int]):
        var = self.model.NewIntVar(a[1] * b[1], a[2] * b[2], "")
        self.model.AddMultiplicationEquality(var, [a[0], b[0]])
        return var

    def hint(self, order: list[str]) -> None:
        index = {v: i for i, v in enumerate(self.names)}
        for k, v in enumerate(order):
            self.model.AddHint(self.position[index[v]], k)

    def solve(
        self, start: list[str], start_cost: int, lower_bound: int, budget: float | None
    ) -> tuple[int | None, list[str] | None, int, int]:
        """(the model's count of its order, the order — None if none — the proven
        lower bound, branches), starting from ``start``."""
        cp = self.cp
        self.hint(start)
        self.model.Add(self.objective <= start_cost)
        if lower_bound:
            self.model.Add(self.objective >= lower_bound)
        solver = cp.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.random_seed = 0
        if budget is not None:
            solver.parameters.max_deterministic_time = budget * DETERMINISTIC_PER_SECOND
        status = solver.Solve(self.model)
        if status not in (cp.OPTIMAL, cp.FEASIBLE):
            bound = solver.BestObjectiveBound() if status == cp.UNKNOWN else 0
            return None, None, int(-(-bound // 1)), solver.NumBranches()
        ranked = sorted(self.position, key=lambda v: solver.Value(self.position[v]))
        order = [self.names[v] for v in ranked]
        bound = int(-(-solver.BestObjectiveBound() // 1))
        return round(solver.ObjectiveValue()), order, bound, solver.NumBranches()
