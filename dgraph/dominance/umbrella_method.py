"""The method ``umbrella``: contract umbrellas inside out, then the rest (Murota-Kubota).

Every vertex w other than an input heads an umbrella with copying: the vertices all of
whose paths to the outputs pass w (its subtree in the postdominator tree); the maximal
umbrellas hang from the super-sink. Visiting the postdominator tree children first (or
only the maximal umbrellas), each umbrella's inner vertices — those with a predecessor
inside it; the others are its inputs — are eliminated in the cheapest order found for
that small subgraph (:func:`dgraph.elimination.orders.cheapest_order`), which contracts
it to edges from its inputs into w. What is left is accumulated the same way.
Contracting a contractible subgraph touches nothing outside it, so each contraction costs
exactly its local accumulation.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..core.expressions import ExpressionSet, cheapest_inlined, has_scaling_constants
from ..core.graph import DGraph
from ..elimination.labeled import LabeledGraph
from ..elimination.orders import cheapest_order, structure_graph
from .trees import SINK, Tree, postdominator_tree

__all__ = ["NESTING_EDGE_LIMIT", "umbrella"]


def _contract(graph: DGraph, inside_out: bool) -> ExpressionSet:
    pdom = postdominator_tree(graph.nx)
    lg = LabeledGraph(graph, names_only_shared=not has_scaling_constants(graph))  # only vertices
    order = {v: i for i, v in enumerate(graph.order())}
    contracted = 0
    for w, members in _umbrellas(pdom, lg, inside_out):
        if w == SINK or graph.role(w) == "input":
            continue
        inner = [
            v
            for v in sorted(members - {w}, key=order.__getitem__)
            if graph.role(v) == "intermediate" and any(u in members for u in lg.pred[v])
        ]
        if not inner:
            continue
        for v in cheapest_order(structure_graph(lg.succ, lg.pred, inner, output=w)):
            lg.eliminate_vertex(v, op="umbrella", region=w)
        contracted += 1
    rest = lg.intermediates()
    if rest:
        for v in cheapest_order(structure_graph(lg.succ, lg.pred, rest)):
            lg.eliminate_vertex(v)
    nesting = "inside-out" if inside_out else "maximal"
    info = {"umbrellas_contracted": contracted, "nesting": nesting}
    return lg.result("umbrella", info, inline=False)  # the cheaper one is inlined


def _umbrellas(pdom: Tree, lg: LabeledGraph, inside_out: bool) -> Iterator[tuple[str, set[str]]]:
    """Each head w (the postdominator tree children first, or only the maximal ones) with
    its members: the vertices of its subtree still in ``lg`` when it is reached. Inside
    out, a head's members are its own and its children's members as they were left,
    less those eliminated since (eliminations only remove vertices): each subtree is
    not walked again at every head above it (quadratic on a chain of n steps)."""
    if not inside_out:
        for w in pdom.children.get(SINK, []):
            yield w, {v for v in pdom.subtree(w) if v in lg.succ}
        return
    left: dict[str, set[str]] = {}  # a reached head's members, until its parent takes them
    for w in pdom.post_order():
        parts = [left.pop(c) for c in pdom.children.get(w, ())]
        members = max(parts, key=len) if parts else set()
        for part in parts:
            if part is not members:
                members |= part
        members.add(w)
        members.difference_update([v for v in members if v not in lg.succ])
        yield w, members
        left[w] = members


# edges beyond which only the hierarchy inside out is tried (the one that wins on most
# benchmark graphs): each takes tens of seconds at this size
NESTING_EDGE_LIMIT = 50_000


def umbrella(graph: DGraph, nesting_edge_limit: int = NESTING_EDGE_LIMIT) -> ExpressionSet:
    """Umbrella contraction, then the contracted graph: every umbrella of the hierarchy
    inside out, or the maximal ones only; the cheaper of the two (``info["nesting"]``),
    or beyond ``nesting_edge_limit`` edges (default :data:`NESTING_EDGE_LIMIT`) inside
    out only (``info["not_tried"]``).

    >>> from dgraph.frontends import bundled
    >>> umbrella(bundled("zhou_two_blocks.json")).mults
    5
    """
    large = graph.n_edges > nesting_edge_limit
    results = [_contract(graph, inside_out) for inside_out in ((True,) if large else (True, False))]
    best = cheapest_inlined(results)
    if not large:
        return best
    skipped = f"maximal umbrellas not tried: {graph.n_edges} edges exceed {nesting_edge_limit:,}"
    return best._relabeled(best.method, {**best.info, "not_tried": skipped})
