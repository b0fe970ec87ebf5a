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

Separator floors (structural model). The predecessors of v when it is eliminated
separate v from the inputs (the last vertex left on any path from an input to v is one),
and none of them was eliminated before v: so for any set T of intermediates, ``T before
v => |pred(v)| >= the fewest vertices outside T separating v from the inputs``
(:class:`Separators`), likewise its successors from the outputs; and were some of T left
after v, the c disjoint paths of that separator less ``k - 1`` for each vertex of T left
that k of them pass (a linear inequality in the ``before`` literals). With T empty these
are the min-cut floors; the model adds them for the sets T that can raise them
(:func:`conditional_cuts`: a larger floor needs T to meet every smallest separator, so T
grows by members of the one found, up to :data:`CUT_DEPTH` vertices). And for a group Q
of a few vertices (every two one above the other; connected groups of up to
:data:`GROUP_SIZE`), whatever the order, the members of Q before each member are among
the vertices before it, so ``sum over Q of cost >= the least over the orders of Q of the
sum of these floors`` (:meth:`Floors.least`, a dynamic program over Q's subsets): a
linear inequality that lifts the linear relaxation without branching. Every floor holds
in every order, so the optimum is unchanged.

The solver (OR-Tools CP-SAT, one worker, the budget spent as its deterministic time, a
count of work: the same graph and budget give the same certificate on every machine)
starts from an incumbent order (a hint), which is kept if nothing better is found. With
a budget it runs its default search for :data:`SEARCH_SHARE` of it (which finds orders),
then its lower-bound tree search (``optimize_with_lb_tree_search``, which raises the bound
on the linear relaxation) from the best order found. Its result: the best order, its cost
(recomputed by eliminating, never taken from the model) and the solver's proven lower
bound; optimal when they meet. Should the model count its order below the order's cost,
nothing is claimed from it (above is sound: fill the order does not need).

References: U. Naumann, "Optimal accumulation of Jacobian matrices by elimination
methods on the dual computational graph", Math. Program. 99 (2004) 399–421; M. Bentert,
A. Crane, P. G. Drange, Y. Mizutani and B. D. Sullivan, "The complexity of vertex
elimination with independent partials", arXiv 2506.17521 (2025).
"""

from __future__ import annotations

import importlib.util
import itertools
import time
from collections.abc import Collection, Iterable, Iterator
from typing import NamedTuple

from ..core import kinds
from ..core.graph import DGraph
from ..errors import SearchTooLarge
from .kernel import VALUES, Closure, effective_cost, move_costs
from .search import SearchResult, check_order
from .separators import Separation, Separators
from .structure import BitGraph
from .vertex import markowitz_order

__all__ = [
    "EXACT_LIMIT",
    "Counted",
    "Floors",
    "Separation",
    "Separators",
    "available",
    "conditional_cuts",
    "exact_vertex_search",
    "load_model",
    "structural_cost",
]

EXACT_LIMIT = 400  # intermediates beyond which the model is not built
# triples (i, v, k), one fill clause each, beyond which it is not built either: its
# building is not counted in the solver's deterministic time
TRIPLE_LIMIT = 500_000
# CP-SAT's deterministic time per second of budget: one unit takes seconds of wall-clock
# time (measured: benchmarks/RESULTS.md), so a budget buys a tenth of a unit a second
DETERMINISTIC_PER_SECOND = 0.1
MODELS = ("structural", "effective")
GROUP_SIZE = 6  # vertices in a group floor
GROUP_LIMIT = 3000  # group floors tried
PRUNE_FROM = 3  # groups larger than this grow only where their floor gains
SEARCH_SHARE = 0.25  # of the budget, for the default search before the bound's
CUT_DEPTH = 4  # vertices assumed eliminated first in a conditional separator floor


def available() -> bool:
    """Whether OR-Tools (the optional extra ``jacobian-accumulation[exact]``) is installed."""
    return importlib.util.find_spec("ortools") is not None


def load_model() -> None:
    """Import CP-SAT now (about half a CPU second; ``import dgraph`` leaves it out): before
    the child processes that solve a model start (a fork inherits it; the fork server
    preloads it), so that each does not import it again out of its time."""
    from ortools.sat.python import cp_model  # noqa: F401


def structural_cost(graph: DGraph, order: Iterable[str]) -> int:
    """Structural multiplications of vertex elimination in ``order``."""
    return move_costs(graph, [("vertex", v) for v in order]).structural


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
    search_share: float = SEARCH_SHARE,
) -> SearchResult:
    """The cheapest vertex elimination order of ``graph`` (a connected part), by CP-SAT.

    Parameters
    ----------
    graph
        A connected part of a differentiation graph.
    model
        ``"structural"`` or ``"effective"`` multiplications.
    budget
        Seconds of CP-SAT's deterministic time (:data:`DETERMINISTIC_PER_SECOND` a
        second); None: no limit, the result proven.
    incumbent
        An order to start from beside forward, reverse and Markowitz (the cheapest
        starts).
    lower_bound
        A bound known already.
    floors
        What eliminating each vertex costs at least in any order (the effective junction
        bounds, say).
    search_share
        With a budget, the share of it CP-SAT's default search (which finds orders) gets
        before its search for a lower bound.

    Returns
    -------
    SearchResult
        Moves ``("vertex", v)``; its ``lower_bound`` is the solver's, ``proven`` whether
        the cost meets it.

    Raises
    ------
    SearchTooLarge
        Without OR-Tools, beyond :data:`EXACT_LIMIT`, or in the effective model where a
        label's value depends on the order.
    InputError
        Where ``incumbent`` is not an order of every intermediate, each once.
    """
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}")
    if incumbent is not None:
        incumbent = check_order(graph, incumbent, "vertex-exact: the incumbent")
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
    orders = [inner, inner[::-1], markowitz_order(graph)] + ([incumbent] if incumbent else [])
    start_cost, start = min(((price(o), o) for o in orders), key=lambda c: c[0])
    if p <= 1:
        return SearchResult(
            [("vertex", v) for v in start], start_cost, True, start_cost, 0, 0.0, "CP-SAT"
        )
    built = _Model(graph, structural, floors or {})
    counted, order, bound, branches = built.solve(
        start, start_cost, lower_bound, budget, search_share
    )
    cost = price(order) if order is not None else start_cost
    if order is not None and counted < cost:  # the model is wrong here: claim nothing
        bound = 0  # (above the cost is sound: fill the least assignment did not need)
    if order is None or cost > start_cost:
        order, cost = start, start_cost
    bound = min(max(bound, lower_bound), cost)
    proven = bound >= cost
    seconds = time.perf_counter() - t0
    return SearchResult(
        [("vertex", v) for v in order], cost, proven, bound, branches, seconds, "CP-SAT"
    )


class Counted(NamedTuple):
    """A CP-SAT integer counting true literals, with its bounds."""

    var: object
    low: int
    high: int


def conditional_cuts(
    separators: Separators, target: int, eliminable: Collection[int]
) -> Iterator[tuple[frozenset[int], int, dict[int, int]]]:
    """Triples (T, c, shared): when every vertex of T (eliminable ones) is eliminated
    before ``target``, its predecessors number at least c (successors: separators from
    the outputs over the predecessor lists). They are a separator of ``target`` from the
    sources without a vertex eliminated before it, so at least the smallest separator
    avoiding T: c disjoint paths but for T. ``shared[w]`` is k - 1 where k of these pass
    through w: were w left after ``target``, dropping k - 1 of them leaves a set of
    paths, so the bound falls by at most that. Only a set T that meets a smallest
    separator avoiding a subset can raise it, so T grows by members of the separator
    found, up to :data:`CUT_DEPTH` vertices; a triple is given where c exceeds the bound
    of the set it grew from."""
    start = separators(target)
    frontier = [(frozenset(), start)]
    seen = {frozenset()}
    for _ in range(CUT_DEPTH):
        grown = []
        for before, (bound, cut, _) in frontier:  # each a set and its Separation
            for w in cut:
                if w not in eliminable or before | {w} in seen:
                    continue
                larger = before | {w}
                seen.add(larger)
                found = separators(target, larger)
                if found.size > bound:
                    shared = {w: k - 1 for w, k in found.through.items() if k > 1}
                    yield larger, found.size, shared
                grown.append((larger, found))
        frontier = grown


class Floors:
    """What eliminating a vertex costs at least when some vertices went before it: its
    predecessors then are a separator from the inputs avoiding those above it, its
    successors one from the outputs avoiding those below it."""

    def __init__(self, graph: DGraph) -> None:
        names = graph.order()  # a topological order
        index = {v: i for i, v in enumerate(names)}
        succ: list[list[int]] = [[] for _ in names]
        pred: list[list[int]] = [[] for _ in names]
        for u, v in graph.edges():
            succ[index[u]].append(index[v])
            pred[index[v]].append(index[u])
        inner = {index[v] for v in graph.intermediates}
        self.into = Separators(succ, [index[x] for x in graph.inputs])
        self.out_of = Separators(pred, [index[x] for x in graph.outputs])
        self.near = [set(succ[v]) | set(pred[v]) for v in range(len(names))]
        self.up: list[set[int]] = [set() for _ in names]  # intermediates above each
        for v in range(len(names)):
            for u in pred[v]:
                self.up[v] |= self.up[u] | ({u} & inner)
        self.down: list[set[int]] = [set() for _ in names]
        for v in range(len(names) - 1, -1, -1):
            for w in succ[v]:
                self.down[v] |= self.down[w] | ({w} & inner)
        self._cuts: dict[tuple[int, int, frozenset[int]], int] = {}
        self._costs: dict[tuple[int, frozenset[int]], int] = {}
        # a set's least sum of floors, over its orders: groups share most of their subsets
        self._least: dict[frozenset[int], int] = {frozenset(): 0}
        # per side and vertex, the separators found: (held, separator, its size)
        self._found: dict[tuple[int, int], list[tuple[frozenset[int], frozenset[int], int]]] = {}

    def cost(self, v: int, before: frozenset[int]) -> int:
        """The product of v's two separator floors when ``before`` went first."""
        known = self._costs.get((v, before))
        if known is not None:
            return known
        product = 1
        for side, separators, near in ((0, self.into, self.up), (1, self.out_of, self.down)):
            key = (side, v, before & near[v])
            if key not in self._cuts:
                self._cuts[key] = self._size(side, separators, v, key[2])
            product *= self._cuts[key]
        self._costs[v, before] = product
        return product

    def _size(self, side: int, separators: Separators, v: int, held: frozenset[int]) -> int:
        """The fewest vertices separating v avoiding ``held``. Holding more vertices never
        lowers it, and a separator that avoids them all still fits: so where one found
        holding a subset of ``held`` avoids ``held``, it is that one's size, without a
        flow."""
        found = self._found.setdefault((side, v), [])
        for fewer, cut, size in found:
            if fewer <= held and held.isdisjoint(cut):
                return size
        separation = separators(v, sorted(held))
        found.append((held, frozenset(separation.cut), separation.size))
        return separation.size

    def least(self, group: tuple[int, ...]) -> int:
        """The least, over the orders of ``group``, sum of its members' floors (each
        avoiding those of the group before it): over the group's subsets, each first. A
        subset's least is its own (the floors depend on the set, not the group), so it is
        kept for the groups that share it."""
        least = self._least
        for size in range(1, len(group) + 1):
            for first in itertools.combinations(group, size):
                done = frozenset(first)
                if done not in least:
                    least[done] = min(
                        least[rest] + self.cost(v, rest) for v in first for rest in (done - {v},)
                    )
        return least[frozenset(group)]


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
        self.pin: dict[int, Counted] = {}
        self.pout: dict[int, Counted] = {}
        self.term: dict[int, object] = {}
        for v in inner:
            floor = floors.get(names[v], 0)
            if structural:
                pin = self._count([pred[i, v] for i in preds[v]], cut_in[v])
                pout = self._count([succ[v, k] for k in succs[v]], cut_out[v])
                self.pin[v], self.pout[v] = pin, pout
                terms.append(self._product(pin, pout))
                self.term[v] = terms[-1]
                if floor:
                    m.Add(terms[-1] >= floor)
                continue
            g_in = self._count([self._kind(pred[i, v], i, v, True, paths) for i in preds[v]])
            n_in = self._count([self._kind(pred[i, v], i, v, False, paths) for i in preds[v]])
            g_out = self._count([self._kind(succ[v, k], v, k, True, paths) for k in succs[v]])
            n_out = self._count([self._kind(succ[v, k], v, k, False, paths) for k in succs[v]])
            top = g_out.high + n_out.high
            both = Counted(m.NewIntVar(0, top, ""), 0, top)
            m.Add(both.var == g_out.var + n_out.var)
            terms.append(self._product(g_in, both))
            terms.append(self._product(n_in, g_out))
            if floor:
                m.Add(terms[-2] + terms[-1] >= floor)
        self.objective = sum(terms)
        m.Minimize(self.objective)
        self.twins(structural, preds, succs)
        if structural:
            self.separator_floors(graph)

    def separator_floors(self, graph: DGraph) -> None:
        """``T before v => |pred(v)| >= cut`` for the sets T of :func:`conditional_cuts`
        (likewise successors), and the group floors (:meth:`group_floors`)."""
        floors = Floors(graph)
        for v in self.inner:
            sides = ((floors.into, self.pin), (floors.out_of, self.pout))
            for separators, count in sides:
                for _, cut, shared in conditional_cuts(separators, v, self.position):
                    if cut <= count[v].low:
                        continue
                    # those paths, less (k - 1) for each of their k through a vertex of T
                    # left after v (the flow's loss where its capacity drops to 1)
                    lost = [(k, self._before(w, v)) for w, k in sorted(shared.items())]
                    self.model.Add(count[v].var >= cut - sum(k * (1 - b) for k, b in lost))
        self.group_floors(floors)

    def group_floors(self, floors: Floors) -> None:
        """``the sum of the costs of Q >= the least, over the orders of Q, sum of their
        floors, each avoiding the members of Q before it``, for every two vertices one
        above the other and for connected groups of up to :data:`GROUP_SIZE` (at most
        :data:`GROUP_LIMIT` of more than two; past :data:`PRUNE_FROM`, grown only from
        groups that gain) in the graph whose edges join vertices adjacent or a pair that
        gains (each order of the two raises a floor)."""
        inner, none = set(self.inner), frozenset()
        near = {v: {w for w in floors.near[v] if w in inner} for v in self.inner}
        gain: dict[tuple[int, ...], int] = {}  # least order's floors over the plain ones
        pairs = sorted((v, w) for v in self.inner for w in sorted(floors.down[v]))
        for v, w in pairs:
            gain[v, w] = floors.least((v, w)) - floors.cost(v, none) - floors.cost(w, none)
            if gain[v, w] > 0:
                near[v].add(w)
                near[w].add(v)
        layer, room = sorted(set(pairs) & {(v, w) for v in near for w in near[v]}), GROUP_LIMIT
        for size in range(3, GROUP_SIZE + 1):
            grown = {
                tuple(sorted((*group, w)))
                for group in layer
                if size <= PRUNE_FROM or gain[group] > 0
                for v in group
                for w in near[v]
                if w not in group
            }
            layer = sorted(grown)[:room]
            room -= len(layer)
            for group in layer:
                gain[group] = floors.least(group) - sum(floors.cost(v, none) for v in group)
        for group, more in gain.items():
            if more > 0:
                least = more + sum(floors.cost(v, none) for v in group)
                self.model.Add(sum(self.term[v] for v in group) >= least)

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
        return self._and([fill, order])

    def _and(self, parts: list):
        """A literal equal to the conjunction of ``parts``."""
        lit = self.model.NewBoolVar("")
        self.model.AddBoolAnd(parts).OnlyEnforceIf(lit)
        self.model.AddBoolOr([p.Not() for p in parts] + [lit])
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
            return self._and([there, g])
        value = paths.constant.get((a, b))
        if value is None or value in (1, -1) or c is self.false or g is self.true:
            return self.false
        return self._and([there, c] + ([] if g is self.false else [g.Not()]))

    def _count(self, literals: list, floor: int = 0) -> Counted:
        """An integer equal to the number of true ``literals`` (at least ``floor``), with
        its bounds."""
        live = [x for x in literals if x is not self.false]
        lo = min(floor, len(live))
        var = self.model.NewIntVar(lo, len(live), "")
        self.model.Add(var == sum(live))
        return Counted(var, lo, len(live))

    def _product(self, a: Counted, b: Counted):
        var = self.model.NewIntVar(a.low * b.low, a.high * b.high, "")
        self.model.AddMultiplicationEquality(var, [a.var, b.var])
        return var

    def hint(self, order: list[str]) -> None:
        index = {v: i for i, v in enumerate(self.names)}
        for k, v in enumerate(order):
            self.model.AddHint(self.position[index[v]], k)

    def solve(
        self,
        start: list[str],
        start_cost: int,
        lower_bound: int,
        budget: float | None,
        search_share: float = SEARCH_SHARE,
    ) -> tuple[int | None, list[str] | None, int, int]:
        """(the model's count of its order, the order — None if none — the proven
        lower bound, branches), starting from ``start``: CP-SAT's default search for
        ``search_share`` of the budget (it finds orders), then its search for a lower
        bound (``optimize_with_lb_tree_search``: it raises the bound on the linear
        relaxation of the floors) from the best order found. Without a budget, the
        default search to the end."""
        cp = self.cp
        self.model.Add(self.objective <= start_cost)
        if lower_bound:
            self.model.Add(self.objective >= lower_bound)
        phases = (
            [(1.0, False)] if budget is None else [(search_share, False), (1 - search_share, True)]
        )
        counted, order, bound, branches = None, start, lower_bound, 0
        for share, bounding in phases:
            self.model.ClearHints()
            self.hint(order)
            solver = cp.CpSolver()
            solver.parameters.num_workers = 1
            solver.parameters.random_seed = 0
            solver.parameters.optimize_with_lb_tree_search = bounding
            if budget is not None:
                solver.parameters.max_deterministic_time = share * budget * DETERMINISTIC_PER_SECOND
            status = solver.Solve(self.model)
            branches += solver.NumBranches()
            if status == cp.INFEASIBLE:  # not even the start: the model is wrong here
                return None, None, 0, branches
            bound = max(bound, int(-(-solver.BestObjectiveBound() // 1)))
            if status in (cp.OPTIMAL, cp.FEASIBLE):
                counted = round(solver.ObjectiveValue())
                ranked = sorted(self.position, key=lambda v: solver.Value(self.position[v]))
                order = [self.names[v] for v in ranked]
                self.model.Add(self.objective <= counted)
            if status == cp.OPTIMAL or (counted is not None and bound >= counted):
                break
            self.model.Add(self.objective >= bound)
        return counted, (order if counted is not None else None), bound, branches
