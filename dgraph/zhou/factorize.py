"""Zhou's factorizer: the method ``zhou`` (Zhou 2020, §4-5).

1. Reduce simple chains and blocks innermost first (:mod:`dgraph.zhou.simple`); each
   becomes a reference edge, so that everything later shares it.
2. Factorize what is left. **Backward factorization** works from the sink upward, level
   by level: a vertex with in-degree > 1 (Zhou's dependence direction: several vertices
   use it) is split into one copy per user and each copy folded into its user; a vertex
   with one user is folded without copies; then the simple chains and blocks this
   creates are reduced. **Forward factorization** is the mirror image, from the source
   downward on out-degree. Splitting a vertex and folding its copies is eliminating it,
   and a simple sub-block that gets split is one reference edge its copies share (the
   labeled graph names it).
3. With several roots or terminals, either factorize the whole graph at once
   (``global``), split it into **pages** following §5 (steps 1-6 below), or take the
   upper bound of factorizing every root-terminal pair on its own (``pairs``).
   Pages partition the root-terminal paths; an entry computed on several pages is the
   sum of their parts (identical root-terminal pairs merged).

The reading of §5 implemented in :func:`pages`, for one page at a time:

* if one root-terminal pair is left, or no intermediate vertex, factorize it;
* a = the vertex of largest r-degree, nearest the roots; b = the vertex of largest
  t-degree below a (or a), nearest the terminals;
* r-degree(a) = 1 with several roots: no vertex is shared by two roots, one page per
  root; t-degree(b) = 1 with several terminals: one page per terminal;
* otherwise, if roots have cross-level out-edges, the paths through the edges that cross
  most levels become a page of their own (likewise for terminals' in-edges);
* otherwise the region strictly between a and b, shared by several roots and terminals,
  is factorized in place (its result becomes reference edges) and the page is examined
  again; with nothing between a and b the page is factorized whole.
"""

from __future__ import annotations

import dataclasses
import heapq
from collections.abc import Iterable

import networkx as nx
import sympy

from ..core.expressions import (
    ExpressionSet,
    cheapest_inlined,
    comparable,
    has_scaling_constants,
    make_expression_set,
)
from ..core.graph import DGraph
from ..core.paths import depths, depths_of, joined_pairs
from ..elimination.labeled import LabeledGraph
from ..elimination.orders import order_cost
from ..errors import DGraphError
from .levels import root_degrees, terminal_degrees
from .simple import reduce_simple

__all__ = [
    "AUTO_EDGE_LIMIT",
    "STRATEGIES",
    "VARIANTS",
    "VARIANT_EDGE_LIMIT",
    "factorize",
    "pages",
    "zhou",
]

VARIANTS = ("backward", "forward")
STRATEGIES = ("global", "pages", "pairs")
# edges beyond which strategy "auto" tries only "global": pages can multiply the work
# (benchmarks/RESULTS.md, "figures moved from docstrings")
AUTO_EDGE_LIMIT = 2_000
# edges beyond which variant "best" factorizes one way only: backward (from the inputs,
# in Zhou's dependence direction) where forward mode's structural cost is the lower,
# forward where reverse mode's is, as the two pair up on layered graphs (each takes tens
# of seconds at this size)
VARIANT_EDGE_LIMIT = 50_000


def _intermediates(g: nx.DiGraph) -> list[str]:
    return [v for v, role in g.nodes(data="role") if role == "intermediate"]


def factorize(lg: LabeledGraph, variant: str, among: Iterable[str] | None = None) -> None:
    """Backward or forward factorization, in place, until no intermediate is left (or
    none of ``among``): the deepest intermediate first (backward) or the shallowest
    (forward), ties by evaluation order.

    Depth levels are kept up to date locally (an elimination only lowers the depths of the
    vertices above it), and the next vertex comes from a heap, so a step costs what it
    changes, not the size of the graph.
    """
    if variant not in VARIANTS:
        raise DGraphError(f"unknown factorization {variant!r}: use backward or forward")
    position = {v: i for i, v in enumerate(lg.graph.order())}
    allowed = None if among is None else set(among)
    reduce_simple(lg)
    depth = depths_of(lg.succ, lg.role)

    def key(v: str) -> tuple[int, int]:
        if variant == "backward":
            return -depth[v], position[v]
        return depth[v], -position[v]

    def wanted(v: str) -> bool:
        return v in lg.succ and lg.role[v] == "intermediate" and (allowed is None or v in allowed)

    heap = [(*key(v), v) for v in lg.intermediates() if wanted(v)]
    heapq.heapify(heap)
    while heap:
        *k, v = heapq.heappop(heap)
        if not wanted(v) or tuple(k) != key(v):
            continue  # gone, or its depth changed since (a newer entry is in the heap)
        touched = set(lg.pred[v])
        around = [*lg.pred[v], *lg.succ[v]]
        lg.eliminate_vertex(v, op="split")
        reduce_simple(lg, around, touched)
        for u in _lower_depths(lg, depth, touched):
            if wanted(u):
                heapq.heappush(heap, (*key(u), u))


def _lower_depths(lg: LabeledGraph, depth: dict[str, int], touched: set[str]) -> set[str]:
    """Recompute the depths of ``touched`` (their successors changed) and of everything
    above them that changes in turn; the vertices whose depth changed. Inputs are left
    out: no depth is read from them (they are nobody's successor, never eliminated), and
    theirs was the costly one (forward factorization gives them thousands of successors)."""
    changed = set()
    role = lg.role
    work = list(touched)
    while work:
        u = work.pop()
        if u not in lg.succ or role[u] == "input":
            continue
        new = 0 if role[u] == "output" else 1 + _deepest(lg.succ[u], depth, depth[u] - 1)
        if new != depth[u]:
            depth[u] = new
            changed.add(u)
            work.extend(lg.pred[u])
    return changed


def _deepest(successors: Iterable[str], depth: dict[str, int], was: int) -> int:
    """The largest depth among ``successors`` (-1: none), which held ``was`` before the
    elimination. An elimination only lowers depths, so a successor still at ``was`` ends
    the scan: forward factorization leaves vertices with hundreds of successors, and
    scanning them all was a quarter of the method's time at 10^5 edges."""
    deepest = -1
    for w in successors:
        d = depth[w]
        if d > deepest:
            deepest = d
            if d >= was:
                break
    if deepest > was:  # not expected (depths only fall); the exact maximum then
        deepest = max(depth[w] for w in successors)
    return deepest


def _page(lg: LabeledGraph, edges: Iterable[tuple[str, str]]) -> LabeledGraph:
    edges = list(edges)
    labels = {e: lg.label(*e) for e in edges}
    return LabeledGraph(lg.graph, edges, labels, lg.references)


def _paths_between(g: nx.DiGraph, lower: set[str], upper: set[str]) -> list[tuple[str, str]]:
    """Edges on data-flow paths from a vertex of ``lower`` to one of ``upper``."""
    keep = _reached(lower, g.successors) & _reached(upper, g.predecessors)
    return [(u, v) for u, v in g.edges if u in keep and v in keep]


def _reached(start: Iterable[str], step) -> set[str]:
    """``start`` and every vertex ``step`` leads to from it: one traversal from all of
    ``start`` at once (a descendants or ancestors search per vertex repeats the shared
    part, the largest cost of Zhou's pages on element-level graphs)."""
    seen = set(start)
    todo = list(seen)
    while todo:
        for w in step(todo.pop()):
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return seen


def _roles(g: nx.DiGraph, role: str) -> list[str]:
    return [v for v, r in g.nodes(data="role") if r == role]


def _pairs(g: nx.DiGraph) -> list[tuple[str, str]]:
    inputs, outputs = _roles(g, "input"), _roles(g, "output")
    place = {x: i for i, x in enumerate(inputs)}  # input by input, as the pages are made
    return sorted(joined_pairs(g, inputs, outputs), key=lambda pair: place[pair[1]])


def _split_edges(lg: LabeledGraph) -> list[list[tuple[str, str]]] | None:
    """One step of §5: how to separate this page, or None to factorize it (see module)."""
    g = lg.g
    inter = _intermediates(g)
    roots, terminals = _roles(g, "output"), _roles(g, "input")
    if not inter or len(_pairs(g)) <= 1:
        return None
    a, b = _anchors(g)
    rdeg, tdeg, depth = root_degrees(g), terminal_degrees(g), depths(g)
    if rdeg[a] == 1 and len(roots) > 1:
        return [_paths_between(g, set(terminals), {y}) for y in roots]
    if tdeg[b] == 1 and len(terminals) > 1:
        return [_paths_between(g, {x}, set(roots)) for x in terminals]
    for ends, incident in ((roots, g.in_edges), (terminals, g.out_edges)):
        long = [(u, v) for u, v in incident(ends) if depth[u] - depth[v] > 1]
        if long:
            most = max(depth[u] - depth[v] for u, v in long)
            cut = [e for e in long if depth[e[0]] - depth[e[1]] == most]
            through = _through(g, cut)
            rest = _without(g, cut)
            if through and rest:
                return [through, rest]
    return []


def _through(g: nx.DiGraph, cut: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Edges on root-terminal paths that use an edge of ``cut``."""
    terminals, roots = set(_roles(g, "input")), set(_roles(g, "output"))
    edges = set(cut)
    for u, v in cut:
        edges.update(_paths_between(g, terminals, {u}))
        edges.update(_paths_between(g, {v}, roots))
    return sorted(edges)


def _without(g: nx.DiGraph, cut: list[tuple[str, str]]) -> list[tuple[str, str]]:
    h = g.copy()
    h.remove_edges_from(cut)
    return _paths_between(h, set(_roles(h, "input")), set(_roles(h, "output")))


def pages(base: LabeledGraph, variant: str) -> list[LabeledGraph]:
    """The page strategy of §5 on a reduced, reference-named graph; every page factorized."""
    todo, done = [_page(base, base.g.edges)], []
    while todo:
        page = todo.pop()
        reduce_simple(page)
        split = _split_edges(page)
        if split is None:
            done.append(page)
        elif split:
            page.name_references()
            todo.extend(_page(page, edges) for edges in split if edges)
            done.append(_carry_steps(page))
        else:
            region = _region(page)
            if not region:
                done.append(page)
                continue
            factorize(page, variant, among=region)
            todo.append(page)
    for page in done:
        factorize(page, variant)
    return done


def _carry_steps(page: LabeledGraph) -> LabeledGraph:
    """A page that was split keeps only the work done on it before the split."""
    empty = LabeledGraph(page.graph, [], {}, page.references)
    empty.steps = page.steps
    return empty


def _anchors(g: nx.DiGraph) -> tuple[str, str]:
    """a: the vertex of largest r-degree nearest the roots; b: the vertex of largest
    t-degree below a (or a itself) nearest the terminals."""
    inter = _intermediates(g)
    rdeg, tdeg, depth = root_degrees(g), terminal_degrees(g), depths(g)
    a = max(inter, key=lambda v: (rdeg[v], -depth[v]))
    below = (nx.ancestors(g, a) & set(inter)) | {a}
    # ties go to the first in evaluation order, not to a set's (hash-seeded) order
    return a, max((v for v in inter if v in below), key=lambda v: (tdeg[v], depth[v]))


def _region(page: LabeledGraph) -> set[str]:
    """The intermediates strictly between a and b (see the module docstring)."""
    a, b = _anchors(page.g)
    return nx.descendants(page.g, b) & nx.ancestors(page.g, a) & set(_intermediates(page.g))


def _merge(base: LabeledGraph, parts: list[LabeledGraph], steps, info, pairs) -> ExpressionSet:
    entries: dict[tuple[str, str], sympy.Expr] = {}
    for part in parts:
        for key, label in part.entries().items():
            if pairs is None or key in pairs:
                entries[key] = entries[key] + label if key in entries else label
    references = parts[0].references if parts else {}
    all_steps = list(steps) + [s for part in parts for s in part.steps]
    return make_expression_set(base.graph, references, entries, all_steps, "zhou", info, pairs)


def _run(base: LabeledGraph, strategy: str, variant: str, pairs) -> ExpressionSet:
    lg = base.copy()
    if strategy == "global":
        factorize(lg, variant)
        if lg.names_only_shared:  # vertex eliminations only, inlined as they went
            return lg.result("zhou", {"strategy": strategy, "variant": variant})
        parts = [lg]
        steps: list = []
    else:
        lg.name_references()
        if strategy == "pages":
            parts = pages(lg, variant)
        else:
            parts = []
            for y, x in _pairs(lg.g):
                page = _page(lg, _paths_between(lg.g, {x}, {y}))
                factorize(page, variant)
                parts.append(page)
        steps = lg.steps
    return _merge(base, parts, steps, {"strategy": strategy, "variant": variant}, pairs)


def zhou(
    graph: DGraph,
    strategy: str = "auto",
    variant: str = "best",
    pairs: list[tuple[str, str]] | None = None,
    auto_edge_limit: int = AUTO_EDGE_LIMIT,
    variant_edge_limit: int = VARIANT_EDGE_LIMIT,
) -> ExpressionSet:
    """Zhou's factorization; ``strategy`` global, pages, pairs or auto (the cheapest;
    beyond ``auto_edge_limit`` edges only global, saying so in ``info["not_tried"]``),
    ``variant`` backward, forward or best (beyond ``variant_edge_limit`` edges the one the
    cheaper of forward and reverse mode picks); ``pairs`` limits it to some (output,
    input) entries. ``info`` reports what was used and the cost of every combination
    tried. The limits default to :data:`AUTO_EDGE_LIMIT` and :data:`VARIANT_EDGE_LIMIT`.

    >>> from dgraph.frontends import bundled
    >>> es = zhou(bundled("zhou_two_blocks.json"))
    >>> es.mults, es.to_text()
    (5, 'dr/dt = (d_r_a*d_a_v + d_r_b*d_b_v)*(d_v_c*d_c_t + d_v_d*d_d_t)')
    """
    strategies = STRATEGIES if strategy == "auto" else (strategy,)
    skipped = None
    if strategy == "auto" and graph.n_edges > auto_edge_limit:
        strategies = ("global",)
        skipped = (
            f"pages and pairs not tried: {graph.n_edges} edges exceed {auto_edge_limit}"
            " (their pages can multiply the work; ask for one by --strategy)"
        )
    variants = VARIANTS if variant == "best" else (variant,)
    if variant == "best" and graph.n_edges > variant_edge_limit:
        inner = graph.intermediates
        forward_mode, reverse_mode = order_cost(graph, inner), order_cost(graph, inner[::-1])
        chosen = "backward" if forward_mode <= reverse_mode else "forward"
        variants = (chosen,)
        skipped = (f"{skipped}; " if skipped else "") + (
            f"variant {'forward' if chosen == 'backward' else 'backward'} not tried: "
            f"{graph.n_edges} edges exceed {variant_edge_limit:,} (forward mode "
            f"{forward_mode:,} vs reverse mode {reverse_mode:,} structural mults chose)"
        )
    for name, allowed, given in (
        ("strategy", STRATEGIES, strategies),
        ("variant", VARIANTS, variants),
    ):
        if not set(given) <= set(allowed):
            raise DGraphError(f"unknown zhou {name} {given[0]!r}: use {', '.join(allowed)}")
    edges = None
    if pairs is not None:
        edges = set()
        for y, x in pairs:
            for v, role in ((y, "output"), (x, "input")):
                if v not in graph or graph.role(v) != role:
                    raise DGraphError(f"{v!r} is not an {role} of the graph")
            if not nx.has_path(graph.nx, x, y):
                raise DGraphError(f"no path from {x} to {y}: that entry is structurally zero")
            edges.update(_paths_between(graph.nx, {x}, {y}))
    # with the global strategy alone, on the whole graph, every step is a vertex
    # elimination: labels are named only where shared (no inlining pass after)
    at_once = strategies == ("global",) and edges is None and not has_scaling_constants(graph)
    base = LabeledGraph(graph, edges, names_only_shared=at_once)
    reduce_simple(base)
    results = {(s, v): _run(base, s, v, pairs) for s in strategies for v in variants}
    results = dict(zip(results, comparable(results.values()), strict=True))
    best = cheapest_inlined(results.values())
    tried = {f"{s}/{v}": es.mults for (s, v), es in results.items()}
    info = {**best.info, "tried": tried}
    if skipped:
        info["not_tried"] = skipped
    return dataclasses.replace(best, info=info)
