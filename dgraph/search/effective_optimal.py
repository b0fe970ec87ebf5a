"""The vertex elimination order with the fewest *effective* multiplications, by A*.

Bischof's dynamic program over eliminated sets (seed 000 §3) holds for effective costs
too: after eliminating a set S, every label is the sum over the paths through S of their
products, so its kind (unit, constant, general; :mod:`dgraph.search.kinds`) depends on S
alone, and so does the price of the next elimination.

The bound adds, over the remaining vertices, a lower bound on what each will cost when
it is eliminated, whenever that is (:func:`effective_vertex_bounds`): a label is general
exactly when one of the paths it sums has a general edge, so at any time the
predecessors of v joined to it by a general edge separate v from the inputs on every
path that enters v by a general edge, and are at least as many as the fewest vertices
that do (Menger); likewise for non-unit edges, and for successors towards the outputs.
Eliminating v pays for every pair of a general and a non-unit edge across it. A vertex
that has a general in-edge and a general out-edge now keeps them, so it costs at least
one multiplication too.

The same bound holds for edge and face elimination and for every expression set that
forms each path's product exactly once (no cancellation, as in every dgraph method):
every factor of a product there sums path segments with one start and one end (a
factor with two ends could not be continued by any segment), each path's product takes
exactly one multiplication at each of its inner vertices, joining a segment that starts
on the path before v to one that ends on it after v; so for vertex-disjoint paths
P_1..P_m into v (last edge general) and Q_1..Q_n out of v (first edge non-unit), the
m·n concatenations take m·n different multiplications at v, each general × non-unit.
"""

from __future__ import annotations

import networkx as nx
from networkx.algorithms.connectivity import local_node_connectivity

from ..core.graph import DGraph
from ..elimination.search import SearchResult, astar
from ..errors import SearchTooLarge
from .kinds import GENERAL, UNIT, KindGraph, add, effective_cost, multiply

__all__ = ["effective_optimal_search", "effective_vertex_bounds"]

EFFECTIVE_LIMIT = 18  # intermediates beyond which the search refuses without a budget


def effective_optimal_search(
    graph: DGraph, budget: float | None = None, incumbent: list[str] | None = None
) -> SearchResult:
    """The vertex order of least effective cost (as ``("vertex", v)`` moves), proven
    unless the budget ran out; ``incumbent`` is an order known to be good.

    >>> from dgraph.core.builders import bundled
    >>> r = effective_optimal_search(bundled("naumann_sin.trace"))
    >>> r.cost, r.proven, [v for _, v in r.moves]
    (3, True, ['v2', 'v1'])
    """
    names = graph.order()
    p = len(graph.intermediates)
    if p > EFFECTIVE_LIMIT and budget is None:
        raise SearchTooLarge(
            f"effective-optimal: {p} intermediate vertices exceed the exhaustive limit of"
            f" {EFFECTIVE_LIMIT}; pass a budget to search anyway for the best found"
        )
    index = {v: i for i, v in enumerate(names)}
    start_kinds = KindGraph(graph).pred
    preds0 = [[(index[u], k) for u, k in start_kinds[v].items()] for v in names]
    inner = [index[v] for v in graph.intermediates]
    inner_set = set(inner)
    full = sum(1 << v for v in inner)
    bounds: dict[int, int] = {}

    def kinds(done: int) -> tuple[list[dict[int, int]], list[dict[int, int]]]:
        """In- and out-edge kinds of every vertex after eliminating ``done``."""
        kin: list[dict[int, int]] = []
        for v in range(len(names)):
            row: dict[int, int] = {}
            for u, k in preds0[v]:
                through = kin[u].items() if done >> u & 1 else ((u, UNIT),)
                for w, kw in through:
                    kind = multiply(k, kw)[1]
                    row[w] = kind if w not in row else add(row[w], kind)
            kin.append(row)
        kout: list[dict[int, int]] = [{} for _ in names]
        for v, row in enumerate(kin):
            if not done >> v & 1:
                for u, k in row.items():
                    kout[u][v] = k
        return kin, kout

    def general(row: dict[int, int]) -> bool:
        return GENERAL in row.values()

    static = effective_vertex_bounds(graph)
    floor = [static.get(v, 0) for v in names]
    # a vertex with a general in-edge and a general out-edge costs at least one, and the
    # bound adds how much more than its static bound that is
    extra = [1 if f == 0 else 0 for f in floor]

    def expand(done: int):
        kin, kout = kinds(done)
        counted = {v for v in inner if not done >> v & 1 and general(kin[v]) and general(kout[v])}
        for v in inner:
            if done >> v & 1:
                continue
            cost = sum(multiply(ko, ki)[0] for ki in kin[v].values() for ko in kout[v].values())
            fresh = set()
            if general(kin[v]):  # v's successors gain a general in-edge
                fresh |= {k for k in kout[v] if general(kout[k])}
            if general(kout[v]):  # v's predecessors gain a general out-edge
                fresh |= {i for i in kin[v] if general(kin[i])}
            nxt = done | 1 << v
            rest = sum(floor[w] for w in inner if not nxt >> w & 1)
            bounds[nxt] = rest + sum(extra[w] for w in (counted | (fresh & inner_set)) - {v})
            yield ("vertex", names[v]), cost, nxt

    def bound(done: int) -> int:
        if done not in bounds:  # the start
            kin, kout = kinds(done)
            counted = (v for v in inner if general(kin[v]) and general(kout[v]))
            bounds[done] = sum(floor[v] for v in inner) + sum(extra[v] for v in counted)
        return bounds[done]

    candidates = [graph.intermediates, graph.intermediates[::-1]] + (
        [incumbent] if incumbent else []
    )
    order = min(candidates, key=lambda o: effective_cost(graph, o))
    start = (effective_cost(graph, order), [("vertex", v) for v in order])
    return astar(0, expand, lambda done: done == full, bound, start, budget)


def effective_vertex_bounds(graph: DGraph) -> dict[str, int]:
    """Per intermediate v, effective multiplications at v that any elimination (vertex,
    edge, face, in any order) needs: max(gen_in * nonunit_out, nonunit_in * gen_out),
    each factor the fewest vertices separating v from the inputs (outputs) on the paths
    that enter (leave) v by a general or non-unit edge.

    >>> from dgraph.core.builders import bundled
    >>> effective_vertex_bounds(bundled("naumann_sin.trace"))
    {'v1': 1, 'v2': 2}
    """
    kinds = KindGraph(graph).succ
    forward = nx.DiGraph(graph.nx.edges)
    forward.add_edges_from(("__ends__", x) for x in graph.inputs)
    backward = nx.DiGraph(graph.nx.edges).reverse()
    backward.add_edges_from(("__ends__", y) for y in graph.outputs)

    def cut(base: nx.DiGraph, v: str, keep: set[str]) -> int:
        """Fewest vertices separating ``__ends__`` from v on paths into v from ``keep``."""
        if not keep:
            return 0
        h = base.copy()
        h.remove_edges_from([(u, v) for u in base.predecessors(v) if u not in keep])
        return local_node_connectivity(h, "__ends__", v)

    out: dict[str, int] = {}
    for v in graph.intermediates:
        ins = {u: kinds[u][v] for u in graph.nx.predecessors(v)}
        outs = {w: kinds[v][w] for w in graph.nx.successors(v)}
        gen_in = cut(forward, v, {u for u, k in ins.items() if k == GENERAL})
        any_in = cut(forward, v, {u for u, k in ins.items() if k != UNIT})
        gen_out = cut(backward, v, {w for w, k in outs.items() if k == GENERAL})
        any_out = cut(backward, v, {w for w, k in outs.items() if k != UNIT})
        out[v] = max(gen_in * any_out, any_in * gen_out)
    return out
