"""Simple chains and simple blocks, reduced innermost first (Zhou 2020, §4).

A simple chain is a product, a simple block a parenthesized sum, and they nest like an
algebraic expression. Reducing them from the inside out is series-parallel reduction:
an intermediate vertex with one predecessor and one successor is a chain link, and
eliminating it (one multiplication) turns the chain into one edge; when that edge lands
on an existing one the two merge (one addition) and a block has closed. What the
reduction cannot remove is a complex block, or structure shared by several roots and
terminals.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

import networkx as nx

from ..elimination.kernel import Elimination
from ..elimination.labeled import LabeledGraph

__all__ = ["Component", "Decomposition", "decompose", "reduce_simple"]


def _is_link(g: nx.DiGraph, v: str) -> bool:
    return g.nodes[v]["role"] == "intermediate" and g.in_degree(v) == 1 and g.out_degree(v) == 1


def _is_chain_link(state: Elimination, v: str) -> bool:
    return (
        v in state.succ
        and state.is_intermediate(v)
        and len(state.pred[v]) == 1
        and len(state.succ[v]) == 1
    )


def reduce_simple(
    lg: LabeledGraph, vertices: Iterable[str] | None = None, touched: set[str] | None = None
) -> int:
    """Eliminate chain links until none is left (only around ``vertices`` if given);
    returns the multiplications spent. Each reduced chain or block is one edge whose label
    is its expression. ``touched`` collects the vertices whose successors changed."""
    queue = [v for v in (lg.succ if vertices is None else vertices) if _is_chain_link(lg, v)]
    cost = 0
    while queue:
        v = queue.pop()
        if not _is_chain_link(lg, v):
            continue
        (u,), (w,) = lg.pred[v], lg.succ[v]
        if touched is not None:
            touched.add(u)
        cost += lg.eliminate_vertex(v, op="chain")
        queue.extend(x for x in (u, w) if _is_chain_link(lg, x))
    return cost


@dataclass
class Component:
    """A node of the series-parallel decomposition, in dependence direction: ``source``
    is the upper end (nearer the roots), ``sink`` the lower one. ``kind`` is ``edge``,
    ``chain`` (a product; ``inner`` are its link vertices) or ``block`` (a sum)."""

    kind: str
    source: str
    sink: str
    parts: list[Component] = field(default_factory=list)
    inner: list[str] = field(default_factory=list)

    @property
    def direct(self) -> bool:
        """A chain of plain edges, or a block of plain edges and direct chains."""
        if self.kind == "chain":
            return all(p.kind == "edge" for p in self.parts)
        return all(p.kind == "edge" or (p.kind == "chain" and p.direct) for p in self.parts)

    def vertices(self) -> list[str]:
        """Every vertex strictly inside, nested parts included (each once, parts in
        order)."""
        return list(dict.fromkeys(v for c in self.walk() for v in c.inner))

    def walk(self) -> Iterable[Component]:
        """This component and every nested one, each before its parts, in order; no
        recursion (a sum over n terms nests n blocks)."""
        stack = [self]
        while stack:
            c = stack.pop()
            yield c
            stack.extend(reversed(c.parts))


class Decomposition(NamedTuple):
    """A series-parallel reduction (:func:`decompose`)."""

    reduced: nx.DiGraph  # its edges carry their ``component``; what remains is complex
    tops: list[Component]  # the top-level chains and blocks, each with its nested ones


def decompose(g: nx.DiGraph) -> Decomposition:
    """Series-parallel reduction of the structure of ``g`` (data-flow, with roles).

    Parameters
    ----------
    g
        A differentiation graph's networkx graph, its vertices with their roles.

    Returns
    -------
    Decomposition
        The reduced graph, whose edges carry their ``component``, and the top-level
        chains and blocks (each with its nested ones). What remains unreduced is complex.
    """
    h = nx.DiGraph()
    h.add_nodes_from(g.nodes(data=True))
    for u, v in g.edges:
        h.add_edge(u, v, component=Component("edge", v, u))
    queue = [v for v in h if _is_link(h, v)]
    while queue:
        v = queue.pop()
        if v not in h or not _is_link(h, v):
            continue
        (u,), (w,) = h.predecessors(v), h.successors(v)
        upper, lower = h.edges[v, w]["component"], h.edges[u, v]["component"]
        parts = [*_flatten(upper, "chain"), *_flatten(lower, "chain")]
        inner = [*_inner(upper), v, *_inner(lower)]
        chain = Component("chain", w, u, parts, inner)
        h.remove_node(v)
        if h.has_edge(u, w):
            other = h.edges[u, w]["component"]
            chain = Component("block", w, u, [*_flatten(other, "block"), chain])
        h.add_edge(u, w, component=chain)
        queue.extend(x for x in (u, w) if _is_link(h, x))
    tops = [
        data["component"] for _, _, data in h.edges(data=True) if data["component"].kind != "edge"
    ]
    return Decomposition(h, tops)


def _flatten(c: Component, kind: str) -> list[Component]:
    return list(c.parts) if c.kind == kind else [c]


def _inner(c: Component) -> list[str]:
    return list(c.inner) if c.kind == "chain" else []
