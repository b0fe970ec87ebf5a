"""The metagraph of edge elimination and its shortest path (Naumann 1999, §3).

The metagraph's vertices (*stages*) are all c-graph structures reachable by eliminations,
its edges the eliminations with their costs; a shortest path from the original graph to a
bipartite one is an optimal elimination sequence. Restricting the moves gives the
subgraphs M_F (forward edge eliminations only), M_B (backward only) and M_V (vertices).
"""

from __future__ import annotations

from collections import deque

import networkx as nx

from ..core.expressions import ExpressionSet
from ..core.graph import DGraph
from ..errors import DGraphError, SearchTooLarge
from .labeled import LabeledGraph, replay
from .search import SearchResult, astar, check_start
from .structure import MODES, BitGraph
from .vertex_optimal import VERTEX_LIMIT, vertex_optimal_search

__all__ = [
    "EDGE_LIMIT",
    "METAGRAPH_LIMIT",
    "edge_moves_expression_set",
    "edge_optimal",
    "edge_optimal_search",
    "intermediate_edge_count",
    "metagraph",
]

EDGE_LIMIT = 14  # intermediate edges beyond which edge-optimal refuses without a budget
METAGRAPH_LIMIT = 200_000  # stages beyond which metagraph() stops


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        raise DGraphError(f"unknown metagraph {mode!r}: use one of {', '.join(MODES)}")


def metagraph(graph: DGraph, mode: str = "full", limit: int = METAGRAPH_LIMIT) -> nx.DiGraph:
    """All stages reachable with ``mode``'s eliminations (``full`` = M, ``forward`` = M_F,
    ``backward`` = M_B, ``vertex`` = M_V), as a DAG whose edges carry ``cost`` and
    ``moves`` (every elimination that leads there; forward and backward may coincide).

    >>> from dgraph.frontends import bundled
    >>> g = bundled("naumann_sin.trace")
    >>> [metagraph(g, m).number_of_nodes() for m in ("full", "forward", "backward", "vertex")]
    [14, 7, 8, 4]
    """
    _check_mode(mode)
    bits = BitGraph(graph)
    meta = nx.DiGraph()
    meta.add_node(bits.start, final=bits.is_final(bits.start))
    queue = deque([bits.start])
    while queue:
        state = queue.popleft()
        for move, cost, nxt in bits.moves(state, mode):
            if nxt not in meta:
                if meta.number_of_nodes() >= limit:
                    raise SearchTooLarge(f"metagraph: more than {limit} stages")
                meta.add_node(nxt, final=bits.is_final(nxt))
                queue.append(nxt)
            if meta.has_edge(state, nxt):
                meta.edges[state, nxt]["moves"].append(move)
                meta.edges[state, nxt]["cost"] = min(meta.edges[state, nxt]["cost"], cost)
            else:
                meta.add_edge(state, nxt, cost=cost, moves=[move])
    meta.graph.update(start=bits.start, names=bits.names, mode=mode)
    return meta


def intermediate_edge_count(graph: DGraph) -> int:
    """Edges with an intermediate end: the ones edge elimination can remove."""
    return sum(1 for u, v in graph.nx.edges if "intermediate" in (graph.role(u), graph.role(v)))


def edge_optimal_search(
    graph: DGraph,
    mode: str = "full",
    budget: float | None = None,
    max_expansions: int | None = None,
) -> SearchResult:
    """A shortest path in the metagraph ``mode``, searched with A* without building it;
    ``budget`` in seconds, spent as a count of moves priced
    (:func:`dgraph.elimination.search.moves_for`): half on the vertex optimum (the
    incumbent) in the modes that have vertex moves, the rest on the metagraph.

    Raises
    ------
    SearchTooLarge
        Without a budget, where more than :data:`EDGE_LIMIT` edges have an intermediate
        end, or where the metagraph search, or the vertex optimum that is its incumbent,
        would expand more than ``max_expansions`` states before its optimum is proven
        (None: no limit).
    """
    _check_mode(mode)
    bits = BitGraph(graph)
    inner = intermediate_edge_count(graph)
    if inner > EDGE_LIMIT and budget is None:
        raise SearchTooLarge(
            f"edge-optimal: {inner} intermediate edges exceed the exhaustive limit of"
            f" {EDGE_LIMIT}; pass --budget SECONDS to search anyway for the best found"
        )
    check_start(graph, budget, 0, "edge-optimal")  # the bound's cuts
    bound = _edge_bound(graph, bits, mode)
    incumbent, rest = _sweep_incumbent(bits, mode), budget
    if mode in ("full", "vertex"):
        # Vertex elimination is a special case: its optimum is a strong incumbent.
        share = None if budget is None else budget * 0.5
        if share is None and len(graph.intermediates) > VERTEX_LIMIT:
            share = 0.0  # heuristic orders only
        try:
            vertex = vertex_optimal_search(graph, share, max_expansions=max_expansions)
        except SearchTooLarge as exc:  # its start alone exceeds the share: the sweep it is
            if share is None:  # its expansions: another incumbent could change the path
                raise SearchTooLarge(f"edge-optimal: its incumbent, {exc}") from None
        else:
            incumbent = min(incumbent, (vertex.cost, vertex.moves))
        rest = None if budget is None else budget - (share or 0.0)
    try:
        return astar(
            bits.start,
            lambda s: bits.moves(s, mode),
            bits.is_final,
            bound,
            incumbent,
            rest,
            size=len(graph.order()),
            max_expansions=max_expansions,
        )
    except SearchTooLarge as exc:
        raise SearchTooLarge(
            f"edge-optimal: {inner} intermediate edges, {exc}; pass --budget SECONDS for the"
            " best found"
        ) from None


def _edge_bound(graph: DGraph, bits: BitGraph, mode: str):
    """A consistent lower bound on the cost still to pay from a state.

    Charge every elimination to one vertex: a forward elimination of (v, j) to v (it costs
    |P_v| >= cut_in(v)), a backward one of (i, v) to v (it costs |S_v| >= cut_out(v)).
    A vertex v leaves either by forward eliminations (then each of its F_v edges into
    outputs must be eliminated forward: nothing else removes them) or by backward ones
    (then each of its B_v edges from inputs must be eliminated backward). So v still
    costs at least min(max(F_v, 1) cut_in(v), max(B_v, 1) cut_out(v)).
    """
    cut_in, cut_out = bits.cuts()
    inter = bits.intermediates
    if mode == "vertex":
        weight = {v: cut_in[v] * cut_out[v] for v in inter}
        return lambda state: sum(w for v, w in weight.items() if state[v])
    inputs = [bits.index[x] for x in graph.inputs]
    outputs = sum(1 << bits.index[y] for y in graph.outputs)
    use_forward, use_backward = mode in ("full", "forward"), mode in ("full", "backward")
    rows = [(v, cut_in[v], cut_out[v]) for v in inter]

    def bound(state) -> int:
        from_inputs = [0] * len(state)  # each vertex's edges from inputs
        if use_backward:
            for x in inputs:
                s = state[x]
                while s:
                    low = s & -s
                    from_inputs[low.bit_length() - 1] += 1
                    s ^= low
        total = 0
        for v, floor_in, floor_out in rows:
            if not state[v]:
                continue
            # max(F_v, 1) * cut_in(v), max(B_v, 1) * cut_out(v); a mode without one: 0
            fwd = ((state[v] & outputs).bit_count() or 1) * floor_in if use_forward else 0
            bwd = (from_inputs[v] or 1) * floor_out if use_backward else 0
            total += min(fwd, bwd) if use_forward and use_backward else fwd + bwd
        return total

    return bound


def _sweep_incumbent(bits: BitGraph, mode: str) -> tuple[int, list]:
    """Forward mode as forward edge eliminations, or reverse mode as backward ones."""
    state, total, moves = bits.start, 0, []
    backward = mode == "backward"
    order = list(reversed(bits.intermediates)) if backward else bits.intermediates
    for v in order:
        while bits.preds(state, v) if backward else state[v]:
            if not backward:
                j = (state[v] & -state[v]).bit_length() - 1
                cost, state = bits.forward(state, v, j)
                moves.append(("forward", bits.name_edge(v, j)))
            else:
                p = bits.preds(state, v)
                i = (p & -p).bit_length() - 1
                cost, state = bits.backward(state, i, v)
                moves.append(("backward", bits.name_edge(i, v)))
            total += cost
    return total, moves


def edge_optimal(
    graph: DGraph,
    mode: str = "full",
    budget: float | None = None,
    max_expansions: int | None = None,
) -> ExpressionSet:
    """Edge elimination along a shortest metagraph path (``optimal`` says if proven);
    ``max_expansions`` as :func:`edge_optimal_search`'s."""
    result = edge_optimal_search(graph, mode, budget, max_expansions)
    method = "edge-optimal" if mode == "full" else f"edge-optimal-{mode}"
    # M bounds every edge elimination and M_V every vertex elimination; M_F and M_B bound
    # only their own kind of move
    family = {"full": "edge elimination", "vertex": "vertex elimination"}.get(mode)
    if mode == "vertex":
        return replay(graph, result.moves, method, **result.info(family))
    return edge_moves_expression_set(graph, result.moves, method, result.info(family))


def edge_moves_expression_set(
    graph: DGraph, moves: list, method: str, info: dict | None = None
) -> ExpressionSet:
    """The expression set of a metagraph path, whose vertex moves forward-eliminate every
    out-edge of their vertex."""
    labeled = LabeledGraph(graph)
    for op, target in moves:
        if op == "vertex":
            for w in list(labeled.succ[target]):
                labeled.eliminate_forward(target, w)
        else:
            labeled.apply((op, target))
    return labeled.result(method, info)
