"""Graphax's cost model as a label algebra of the elimination kernel, and its orders.

A label is a Graphax edge (:class:`dgraph.blocks.graphax_types.Edge`: sparsity type and
2-D shapes). A product costs what AlphaGrad's vertex game charges (Lohoff & Neftci,
NeurIPS 2024): the sizes of the dims the types leave to multiply
(:func:`~dgraph.blocks.graphax_types.product_cost`); a sum is free. Eliminating a vertex
takes every (in-edge, out-edge) pair, as dgraph's kernel does, so :func:`graphax_cost` of
an order is the vertex game's count for it on an
:func:`~dgraph.frontends.jaxpr_equations.equation_graph`.

Graphax's Markowitz (:func:`graphax_markowitz_order`) is its own: the degree of a vertex is
the product of its out- and in-edge *element* counts (:func:`markowitz_weight`), recomputed
after every elimination, the smallest first, ties to the earliest equation.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..blocks import Product
from ..blocks.graphax_types import Edge, markowitz_weight, product, product_cost, sum_type
from ..core.graph import DGraph
from ..errors import InputError
from .kernel import Algebra, Elimination

__all__ = [
    "GRAPHAX",
    "Graphax",
    "graphax_cost",
    "graphax_edge",
    "graphax_markowitz_order",
    "graphax_orders",
]


def graphax_edge(graph: DGraph, u: str, v: str) -> Edge:
    """The Graphax edge u -> v of an
    :func:`~dgraph.frontends.jaxpr_equations.equation_graph`."""
    found = graph.nx.edges[u, v].get("graphax")
    if found is None:
        raise InputError(
            f"edge {u} -> {v} has no Graphax type: Graphax's cost model prices a graph with"
            " every jaxpr equation a vertex (dgraph.frontends.jaxpr_equations.equation_graph)"
        )
    return found


class Graphax(Algebra):
    """Graphax edges: ``upper · lower`` has the product type, the target's shape of
    ``upper`` and the source's of ``lower``; a sum takes the sum type and the new term's
    shapes (Graphax overwrites them)."""

    def leaf(self, graph: DGraph, u: str, v: str) -> Edge:
        return graphax_edge(graph, u, v)

    def multiply(self, upper: Edge, lower: Edge) -> Product:
        cost = product_cost(lower.type, upper.type, upper.out, upper.primal, lower.primal)
        return Product(cost, Edge(product(lower.type, upper.type).type, upper.out, lower.primal))

    def cost(self, upper: Edge, lower: Edge) -> int:
        return product_cost(lower.type, upper.type, upper.out, upper.primal, lower.primal)

    def add(self, a: Edge, b: Edge) -> Edge:
        return Edge(sum_type(a.type, b.type), b.out, b.primal)


GRAPHAX = Graphax()


def graphax_cost(graph: DGraph | Elimination, order: Iterable[str]) -> int:
    """The vertex game's multiplications for eliminating ``order`` (from ``graph``, or a
    state in :data:`GRAPHAX`, left as it is)."""
    state = Elimination(graph, GRAPHAX) if isinstance(graph, DGraph) else graph.copy()
    return sum(state.eliminate_vertex(v) for v in order)


def _degree(state: Elimination, v: str) -> int:
    out = sum(markowitz_weight(e, outgoing=True) for e in state.succ[v].values())
    into = sum(markowitz_weight(e, outgoing=False) for e in state.pred[v].values())
    return out * into


def graphax_markowitz_order(graph: DGraph) -> list[str]:
    """Graphax's Markowitz order (module docstring)."""
    state = Elimination(graph, GRAPHAX)
    left = list(graph.intermediates)
    order = []
    while left:
        v = min(left, key=lambda v: _degree(state, v))  # the first of equal degrees
        state.eliminate_vertex(v)
        left.remove(v)
        order.append(v)
    return order


def graphax_orders(graph: DGraph) -> dict[str, list[str]]:
    """AlphaGrad's three baselines: forward (equation order), reverse, Markowitz."""
    forward = list(graph.intermediates)
    return {
        "forward": forward,
        "reverse": forward[::-1],
        "markowitz": graphax_markowitz_order(graph),
    }
