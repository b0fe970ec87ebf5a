"""D* factor subgraphs (Guenter 2007, as quoted in Zhou 2020, §1).

For one (root, leaf) pair — an output f and an input x — the derivative graph is the part
of the graph on paths from x to f. Read in Guenter's direction (root on top), a node a
*dominates* c when every path from the root to c passes a, and b *postdominates* c when
every path from c to the leaf passes b. A dominator whose dominated node c has more than
one parent, or a postdominator whose postdominated node c has more than one child, spans
a *factor subgraph*: the two nodes and everything on paths between them. Factoring
replaces it by one edge labeled with the sum of its path products; since the derivative
does not change, any order is correct, but the same subgraph appears in many pairs.
Guenter counts occurrences over all pairs and factors the most frequent first
(``priority="frequent"``; he leaves ties open, dgraph takes them in evaluation order).
dgraph's default (``priority="inner"``) factors the innermost first — the shortest span
in evaluation order — and the most shared among those. Why: a graph that holds a
subgraph also holds every factor subgraph nested inside it, so by count alone nested
subgraphs tie (or the inner wins), and taking the inner one first makes its sum a single
label inside every enclosing subgraph: no sum is built over a large region, and each
inner sum is named once. Neither order is cheaper on every graph; tests/test_dstar.py
shows a graph where inner-first wins (6 against 7) and one where frequent-first does (17
against 18). When nothing is left to factor, each pair's graph is a single path and its
entry is that path's product; the paths' products are then shared across pairs.

In data-flow terms, used below: the leaf x is the source and the root f the sink; the
*D-type* subgraph of a vertex ``low`` with several successors runs up to its immediate
postdominator toward f, the *P-type* subgraph of a vertex ``high`` with several
predecessors down to its immediate dominator from x. Factoring a D-type subgraph removes
``low``'s out-edges, a P-type one ``high``'s in-edges, then adds the edge low -> high and
drops what no longer lies on a path from x to f. A factor subgraph is identified by its
ends and labeled edges, so identical subgraphs of different pairs share one reference.

FastDifferentiation.jl organizes the same search globally, with reachable-root and
reachable-variable bit masks on every edge instead of one graph per pair; dgraph keeps a
graph per pair, which makes each factorization's correctness local and easy to check.
"""

from __future__ import annotations

import heapq
import itertools
from collections import Counter
from dataclasses import dataclass

import networkx as nx
import sympy

from ..core.expressions import (
    ExpressionSet,
    Step,
    cheapest_inlined,
    make_expression_set,
    new_reference,
)
from ..core.graph import DGraph
from ..core.paths import joined_pairs
from ..errors import DGraphError
from .lengauer_tarjan import immediate_dominators

__all__ = [
    "ORGANIZATIONS",
    "ORGANIZATION_WORK_LIMIT",
    "PRIORITIES",
    "FactorSubgraph",
    "dstar",
    "factor_subgraphs",
    "pair_graph",
]

Key = tuple[str, str, frozenset]


@dataclass(frozen=True)
class FactorSubgraph:
    """A factor subgraph of one pair: ``low`` and ``high`` ends (data flow), its edges,
    and whether it came from a dominator (D) or postdominator (P) relation."""

    low: str
    high: str
    edges: frozenset  # of (u, v, label)
    kind: str

    @property
    def key(self) -> Key:
        return (self.low, self.high, self.edges)


def pair_graph(graph: DGraph, root: str | None, leaf: str | None) -> nx.DiGraph:
    """The derivative graph of a (root, leaf) pair: the edges on paths leaf -> root. With
    ``leaf`` None, every path into the root (one output, all its inputs); with ``root``
    None, every path out of the leaf. The function's inputs and outputs are marked
    ``end``: they are never pruned."""
    keep = set(graph.nx)
    if leaf is not None:
        keep &= nx.descendants(graph.nx, leaf) | {leaf}
    if root is not None:
        keep &= nx.ancestors(graph.nx, root) | {root}
    g = nx.DiGraph()  # in evaluation order: a set's order would vary from run to run
    g.add_nodes_from(
        (v, {"end": graph.role(v) != "intermediate"}) for v in graph.order() if v in keep
    )
    for u, v in graph.nx.subgraph(keep).edges:
        g.add_edge(u, v, label=graph.symbol(u, v))
    return g


def _region(g: nx.DiGraph, low: str, high: str, kind: str) -> frozenset:
    """The labeled edges of the subgraph between ``low`` and ``high``: a search from the
    dominated end that stops at the dominating one (every path from it passes there)."""
    forward = kind == "D"
    start, stop = (low, high) if forward else (high, low)
    seen, stack, edges = {start}, [start], []
    while stack:
        v = stack.pop()
        if v == stop:
            continue
        for w in g.successors(v) if forward else g.predecessors(v):
            edges.append((v, w) if forward else (w, v))
            if w not in seen:
                seen.add(w)
                stack.append(w)
    return frozenset((u, v, g.edges[u, v]["label"]) for u, v in edges)


def factor_subgraphs(g: nx.DiGraph, root: str, leaf: str) -> list[FactorSubgraph]:
    """The factor subgraphs of one pair's graph (data flow, leaf -> root): D-type from
    vertices with several successors, P-type from vertices with several predecessors."""
    found: dict[Key, FactorSubgraph] = {}
    for kind, dominating in (("D", _toward(g, root)), ("P", _from(g, leaf))):
        for v in g:
            if kind == "D" and v != root and g.out_degree(v) > 1:
                low, high = v, dominating[v]
            elif kind == "P" and v != leaf and g.in_degree(v) > 1:
                low, high = dominating[v], v
            else:
                continue
            s = FactorSubgraph(low, high, _region(g, low, high, kind), kind)
            found.setdefault(s.key, s)
    return list(found.values())


def _toward(g: nx.DiGraph, root: str) -> dict[str, str]:
    """Guenter's dominators from the root: immediate postdominators toward it."""
    return immediate_dominators(g.reverse(copy=False), root)


def _from(g: nx.DiGraph, leaf: str) -> dict[str, str]:
    """Guenter's postdominators toward the leaf: immediate dominators from it."""
    return immediate_dominators(g, leaf)


class _Sums:
    """Sums of path products of factor subgraphs, one reference per distinct subgraph."""

    def __init__(self) -> None:
        self.references: dict[sympy.Symbol, sympy.Expr] = {}
        self.by_key: dict[Key, sympy.Symbol] = {}

    def name(self, expr: sympy.Expr) -> sympy.Symbol:
        return new_reference(self.references, expr)

    def of(self, s: FactorSubgraph) -> tuple[sympy.Symbol, int | None]:
        """The reference for ``s`` and, if it was computed just now, its multiplications
        (one per product built: each joins an edge label to the sum below it)."""
        if s.key in self.by_key:
            return self.by_key[s.key], None
        preds: dict[str, list[tuple[str, sympy.Expr]]] = {}
        fanout: Counter[str] = Counter()
        for u, v, label in s.edges:
            preds.setdefault(v, []).append((u, label))
            fanout[u] += 1
        value: dict[str, sympy.Expr] = {s.low: sympy.Integer(1)}
        mults = 0
        for v in _topological(s.low, preds):
            terms = []
            for u, label in sorted(preds[v], key=lambda p: str(p[0])):
                below = value[u]
                if not (below.is_Symbol or below.is_Number) and fanout[u] > 1:
                    value[u] = below = self.name(below)  # used by several edges: once
                if below == 1:
                    terms.append(label)
                else:  # unevaluated: sympy's canonicalization dominates on big graphs
                    terms.append(sympy.Mul._from_args((label, below), is_commutative=False))
                    mults += 1
            value[v] = terms[0] if len(terms) == 1 else sympy.Add._from_args(terms)
        self.by_key[s.key] = symbol = self.name(value[s.high])
        return symbol, mults


def _topological(low: str, preds: dict[str, list[tuple[str, sympy.Expr]]]) -> list[str]:
    """The vertices above ``low`` in an order where each comes after its predecessors
    (depth-first from each vertex down its predecessors, deterministic)."""
    order: list[str] = []
    done = {low}
    for start in sorted(preds):
        stack = [(start, False)]
        while stack:
            v, expanded = stack.pop()
            if v in done:
                continue
            if expanded:
                done.add(v)
                order.append(v)
                continue
            stack.append((v, True))
            stack.extend((u, False) for u, _ in preds.get(v, ()) if u not in done)
    return order


def _apply(g: nx.DiGraph, s: FactorSubgraph, label: sympy.Symbol) -> None:
    """Replace the subgraph by the edge low -> high, then drop what lost every path: with
    a D-type subgraph, vertices no longer reached from the leaf (in-degree 0), with a
    P-type one, vertices no longer reaching the root (out-degree 0)."""
    forward = s.kind == "D"
    cut = list(g.out_edges(s.low) if forward else g.in_edges(s.high))
    g.remove_edges_from(cut)
    g.add_edge(s.low, s.high, label=label)
    g.nodes[s.low].setdefault("end", False)
    g.nodes[s.high].setdefault("end", False)
    stack = [v for _, v in cut] if forward else [u for u, _ in cut]
    while stack:
        v = stack.pop()
        if v not in g or g.nodes[v]["end"]:
            continue
        if forward and g.in_degree(v) == 0:
            stack.extend(g.successors(v))
            g.remove_node(v)
        elif not forward and g.out_degree(v) == 0:
            stack.extend(g.predecessors(v))
            g.remove_node(v)


def _chain_products(chains: dict, sums: _Sums) -> tuple[dict, int]:
    """Multiply every pair's remaining path, sharing products across pairs: repeatedly
    merge the adjacent pair of factors that occurs in most paths (each merge is one
    reference, computed once; ties go to the pair met first, chains in order, each left
    to right), every occurrence left to right without overlap. Factors are numbered
    first: counting pairs of sympy symbols hashed and compared them millions of times on
    large graphs. The paths are linked lists whose adjacent pairs are indexed, counts
    kept as merges change them (Larsson and Moffat 2000, Re-Pair's pair queue), not
    recounted per merge: that was quadratic, 18·10⁶ pairs counted for a 3-point
    stencil's 2,000 outputs."""
    number: dict[sympy.Expr, int] = {}
    factors: list[sympy.Expr] = []
    value: list[int] = []  # node -> factor number; nodes numbered in reading order
    after: list[int] = []  # node -> next node of its chain, -1 at the end
    before: list[int] = []
    heads: dict = {}
    for key, c in chains.items():
        heads[key] = len(value)
        for i, f in enumerate(c):
            if f not in number:
                number[f] = len(factors)
                factors.append(f)
            value.append(number[f])
            before.append(len(value) - 2 if i else -1)
            after.append(len(value) if i < len(c) - 1 else -1)
    alive = [True] * len(value)
    places: dict[tuple[int, int], set[int]] = {}  # pair -> the nodes it starts at
    for node, nxt in enumerate(after):
        if nxt >= 0:
            places.setdefault((value[node], value[nxt]), set()).add(node)
    # the pair of most places, the earliest first place among equals: Counter.most_common
    queue = [(-len(s), min(s), pair) for pair, s in places.items()]
    heapq.heapify(queue)
    merged: dict[tuple[int, int], int] = {}
    mults = 0
    touched: set[tuple[int, int]] = set()  # the pairs whose places one merge changed

    def move(p: tuple[int, int], node: int, add: bool) -> None:
        s = places.setdefault(p, set())
        if add:
            s.add(node)
        else:
            s.discard(node)
        touched.add(p)

    while queue:
        size, first, pair = heapq.heappop(queue)
        found = places.get(pair)
        if not found or len(found) != -size or min(found) != first:
            continue  # stale: the pair's places changed since
        left, right = pair
        if pair not in merged:
            product = sympy.Mul(factors[left], factors[right], evaluate=False)
            merged[pair] = len(factors)
            factors.append(sums.name(product))
            mults += 1
        joined = merged[pair]
        touched.clear()
        for a in sorted(found):
            b = after[a]
            if not alive[a] or value[a] != left or b < 0 or value[b] != right:
                continue
            p, c = before[a], after[b]
            if p >= 0:
                move((value[p], left), p, False)
            move(pair, a, False)
            if c >= 0:
                move((right, value[c]), b, False)
            value[a], alive[b], after[a] = joined, False, c
            if c >= 0:
                before[c] = a
            if p >= 0:
                move((value[p], joined), p, True)
            if c >= 0:
                move((joined, value[c]), a, True)
        for p in touched:
            s = places[p]
            if s:
                heapq.heappush(queue, (-len(s), min(s), p))
            else:
                del places[p]
    return {key: factors[value[node]] for key, node in heads.items()}, mults


def _still_factorable(g: nx.DiGraph, low: str, high: str, kind: str) -> bool:
    if low not in g or high not in g:
        return False
    return g.out_degree(low) > 1 if kind == "D" else g.in_degree(high) > 1


ORGANIZATIONS = ("pairs", "roots", "leaves")
PRIORITIES = ("inner", "frequent")  # innermost first (dgraph), most frequent first (Guenter)
PAIR_WORK_LIMIT = 50_000  # pairs x edges beyond which "auto" skips the per-pair search
# (roots + leaves) x edges beyond which "auto" tries one organization: each takes tens of
# seconds at this size
ORGANIZATION_WORK_LIMIT = 400_000


def dstar(
    graph: DGraph,
    organization: str = "auto",
    priority: str = "inner",
    organization_work_limit: int = ORGANIZATION_WORK_LIMIT,
) -> ExpressionSet:
    """Guenter's D*; the cheapest of the organizations tried (``info["organization"]``).

    * ``pairs``: one derivative graph per (root, leaf) pair, dominator and postdominator
      subgraphs in alternating rounds (starting with either kind), as Guenter describes;
    * ``roots``: one graph per root with every leaf, dominator subgraphs only — a
      dominator from the root does not depend on the leaf, so they serve all its pairs;
    * ``leaves``: one graph per leaf, postdominator subgraphs only.

    ``auto`` tries all three unless pairs x edges exceeds :data:`PAIR_WORK_LIMIT`, then
    only roots and leaves (work about (roots + leaves) x edges instead of pairs x edges),
    and beyond ``organization_work_limit`` (default :data:`ORGANIZATION_WORK_LIMIT`) only
    the one with fewer graphs to factor (``info["not_tried"]`` says so).

    ``priority`` is the order in which a round takes factor subgraphs: ``inner`` (the
    default) the shortest span in evaluation order first, the most shared among equals;
    ``frequent`` Guenter's rule, the subgraph held by the most graphs first, equals in
    evaluation order of their ends. Both requeue a subgraph whose count dropped.

    >>> from dgraph.frontends import bundled
    >>> es = dstar(bundled("zhou_two_blocks.json"))
    >>> es.mults
    5
    """
    if organization not in (*ORGANIZATIONS, "auto"):
        raise DGraphError(
            f"unknown D* organization {organization!r}: use {', '.join(ORGANIZATIONS)}"
        )
    if priority not in PRIORITIES:
        raise DGraphError(f"unknown D* priority {priority!r}: use {', '.join(PRIORITIES)}")
    chosen = [organization] if organization != "auto" else list(ORGANIZATIONS)
    skipped = None
    if organization == "auto":
        n_pairs = len(joined_pairs(graph.nx, graph.inputs, graph.outputs))
        if n_pairs * graph.n_edges > PAIR_WORK_LIMIT:
            chosen.remove("pairs")
        units = len(graph.outputs) + len(graph.inputs)
        if units * graph.n_edges > organization_work_limit:
            kept = "roots" if len(graph.outputs) <= len(graph.inputs) else "leaves"
            chosen = [kept]
            skipped = (
                f"{'leaves' if kept == 'roots' else 'roots'} and pairs not tried: "
                f"{units} roots and leaves x {graph.n_edges} edges exceed "
                f"{organization_work_limit:,} (ask for one by --organization)"
            )
    runs = []
    for org in chosen:
        if org == "pairs":
            units = joined_pairs(graph.nx, graph.inputs, graph.outputs)
            runs += [
                _dstar(graph, units, first + second, org, priority)
                for first, second in ("DP", "PD")
            ]
        elif org == "roots":
            runs.append(_dstar(graph, [(y, None) for y in graph.outputs], "D", org, priority))
        else:
            runs.append(_dstar(graph, [(None, x) for x in graph.inputs], "P", org, priority))
    best = cheapest_inlined(runs)
    return (
        best
        if skipped is None
        else best._relabeled(best.method, {**best.info, "not_tried": skipped})
    )


def _dstar(
    graph: DGraph, units: list, kinds: str, organization: str, priority: str = "inner"
) -> ExpressionSet:
    """D* on the derivative graphs of ``units`` ((root, leaf), either may be None), with
    rounds of the factor-subgraph ``kinds`` in turn (D: dominator, P: postdominator).

    Factoring a D-type subgraph leaves every remaining vertex's dominator from the root
    unchanged (and a P-type one every postdominator toward the leaf), so one tree per
    graph serves a whole round. Within a round, a priority queue takes candidates by the
    distance between their ends in evaluation order (inner before enclosing, which keeps
    every subgraph small), then by how many graphs still hold them — or, with ``priority``
    ``frequent``, by the count first and, among equal counts, in evaluation order of their
    ends (Guenter leaves ties open); a count that dropped because the subgraph disappeared
    from some graphs is requeued.
    """

    def rank(low: str, high: str, count: int) -> tuple[int, ...]:
        if priority == "inner":
            return (position[high] - position[low], -count)
        return (-count, position[low], position[high])  # ties: as found, in evaluation order

    position = {v: i for i, v in enumerate(graph.order())}
    graphs = {unit: pair_graph(graph, *unit) for unit in units}
    sums = _Sums()
    steps: list[Step] = []
    idle = 0
    for kind in itertools.cycle(kinds):
        holders: dict[tuple[str, str], list] = {}
        for (root, leaf), g in graphs.items():
            if g.number_of_edges() <= 1:
                continue
            if kind == "D":
                toward = _toward(g, root)
                ends = [(v, toward[v]) for v in g if v != root and g.out_degree(v) > 1]
            else:
                start = _from(g, leaf)
                ends = [(start[v], v) for v in g if v != leaf and g.in_degree(v) > 1]
            for end in ends:
                holders.setdefault(end, []).append((root, leaf))
        tie = itertools.count()
        heap = [(rank(lo, h, len(us)), next(tie), (lo, h)) for (lo, h), us in holders.items()]
        heapq.heapify(heap)
        factored = 0
        while heap:
            _, _, (low, high) = heapq.heappop(heap)
            live = [u for u in holders[low, high] if _still_factorable(graphs[u], low, high, kind)]
            if not live:
                continue
            if len(live) != len(holders[low, high]):
                holders[low, high] = live
                heapq.heappush(heap, (rank(low, high, len(live)), next(tie), (low, high)))
                continue
            for unit in live:
                g = graphs[unit]
                subgraph = FactorSubgraph(low, high, _region(g, low, high, kind), kind)
                label, mults = sums.of(subgraph)
                if mults is not None:
                    steps.append(Step("factor", (low, high), mults))
                _apply(g, subgraph, label)
                factored += 1
        idle = 0 if factored else idle + 1
        if idle == len(kinds):
            break
    chains = {}
    for (root, leaf), g in graphs.items():
        for y in [root] if root is not None else [v for v in g if graph.role(v) == "output"]:
            for x in [leaf] if leaf is not None else [v for v in g if graph.role(v) == "input"]:
                chains[y, x] = _path_labels(g, x, y)
    jacobian, mults = _chain_products(chains, sums)
    steps.append(Step("paths", "shared products", mults))
    info = {
        "factor_subgraphs": len(sums.by_key),
        "organization": organization,
        "priority": priority,
    }
    if organization == "pairs":
        info["first"] = "dominators" if kinds[0] == "D" else "postdominators"
    return make_expression_set(graph, sums.references, jacobian, steps, "dstar", info)


def _path_labels(g: nx.DiGraph, x: str, y: str) -> list[sympy.Expr]:
    """Labels of the single path x -> y left after factoring, output end first."""
    path = nx.shortest_path(g, x, y)
    return [g.edges[u, v]["label"] for u, v in itertools.pairwise(path)][::-1]
