"""A c-graph under elimination with symbolic labels (Naumann 1999, §2).

The elimination kernel (:mod:`dgraph.elimination.kernel`) with the symbolic algebra:
labels start as edge symbols and grow into noncommutative sums of products. A compound
label is named as a reference the first time it is used as a factor, so that the
expression set computes it once, exactly as the elimination does; references used only
once are inlined at the end. The expression set's mults therefore equal the elimination
cost, step for step. Vertex elimination knows each label's uses when it makes them (a
label is a factor of the eliminated vertex's products only), so it names only the shared
ones (:attr:`~dgraph.elimination.kernel.Elimination.names_only_shared`) and builds the
inlined set at once: one pass of sympy construction instead of two.

References: U. Naumann, "Optimal accumulation of Jacobian matrices by elimination
methods on the dual computational graph", Math. Program. 99 (2004) 399–421.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import networkx as nx
import sympy

from ..core.expressions import ExpressionSet, Recipe, Step, make_expression_set
from ..core.graph import DGraph
from ..errors import DGraphError
from .kernel import Elimination, Move, Symbolic, priced_below

__all__ = ["LabeledGraph", "Move", "replay"]


class LabeledGraph(Elimination):
    """A working copy of a graph whose labels are transformed by eliminations."""

    records_steps = True

    def __init__(
        self,
        graph: DGraph,
        edges: Iterable[tuple[str, str]] | None = None,
        labels: dict[tuple[str, str], sympy.Expr] | None = None,
        references: dict[sympy.Symbol, sympy.Expr] | None = None,
        names_only_shared: bool = False,
        priced: bool = True,
    ) -> None:
        """A working copy of ``graph``, or of a part of it (``edges``, a page), with
        ``labels`` for some edges (default: the edge symbols) and a ``references`` dict
        that several working copies may share, so that reference names stay unique;
        ``names_only_shared`` for vertex eliminations only (see the module); ``priced``
        False: a tensor graph's blocks are not multiplied (:class:`Symbolic`), for a
        replay of steps whose costs are known."""
        if names_only_shared and (edges is not None or labels is not None):
            raise ValueError("names_only_shared rebuilds its as-computed form from the graph")
        super().__init__(graph, Symbolic(references, priced=priced), edges, labels)
        self.names_only_shared = names_only_shared
        self._view: tuple[int, nx.DiGraph] | None = None

    @classmethod
    def from_structure(
        cls, graph: DGraph, g: nx.DiGraph, references: dict[sympy.Symbol, sympy.Expr]
    ) -> LabeledGraph:
        """A working graph of any structure (vertices with ``role``, edges with ``label``),
        e.g. a region between two cuts with copies of vertices; ``graph`` is the function's
        graph that the labels' symbols belong to."""
        lg = cls.from_networkx(graph, g, Symbolic(references))
        lg._view = None
        return lg

    @property
    def references(self) -> dict[sympy.Symbol, sympy.Expr]:
        return self.algebra.references

    @property
    def g(self) -> nx.DiGraph:
        """The current graph as networkx sees it (vertices with ``role``, edges with
        ``label``): a read-only view, rebuilt after each change."""
        if self._view is None or self._view[0] != self.version:
            g = nx.DiGraph()
            g.add_nodes_from((v, {"role": self.role[v]}) for v in self.succ)
            g.add_edges_from(
                (u, v, {"label": label}) for u, out in self.succ.items() for v, label in out.items()
            )
            self._view = (self.version, g)
        return self._view[1]

    def label(self, u: str, v: str) -> sympy.Expr:
        return self.succ[u][v]

    def markowitz_degree(self, v: str) -> int:
        """|P_v| * |S_v| in the current graph: the cost of eliminating v now."""
        return self.markowitz(v)

    def result(
        self, method: str, info: dict[str, Any] | None = None, inline: bool = True
    ) -> ExpressionSet:
        """The expression set of the finished elimination, single-use references inlined
        (or not yet, with ``inline`` False, for a method that builds candidates and
        inlines the one it keeps)."""
        if not self.done():
            left = ", ".join(self.intermediates()[:3])
            raise DGraphError(f"{method}: elimination incomplete; intermediates remain: {left}")
        if not self.names_only_shared:
            return make_expression_set(
                self.graph, self.references, self.entries(), self.steps, method, info, inline=inline
            )
        recipe = Recipe(_as_computed, (tuple(self.steps), method, dict(info or {})))
        es = make_expression_set(
            self.graph, self.references, self.entries(), self.steps, method, info, computed=recipe
        )
        if es.single_use_references():  # constants merged terms: inline as the others do
            return recipe(self.graph).inline_single_use()
        return es


def _as_computed(
    graph: DGraph, steps: tuple[Step, ...], method: str, info: dict[str, Any]
) -> ExpressionSet:
    """The steps' expression set with every label that was a factor named: products
    grouped as the elimination made them. The labels do not depend on the blocks, so
    the steps are replayed on labels alone (no block product formed again: at 10⁶
    unknowns some 30 products and 15 sums of 10⁶–10⁷ entries) and keep the costs the
    elimination priced."""
    labeled = LabeledGraph(graph, priced=False)
    with priced_below(None):  # the replay's own counts are not prices
        for step in steps:
            if step.op in ("forward", "backward"):
                labeled.eliminate_edge(*step.target, step.op.value)
            else:
                labeled.eliminate_vertex(step.target, step.op.value, step.region)
    replayed = [(s.op, s.target, s.region) for s in labeled.steps]
    if replayed != [(s.op, s.target, s.region) for s in steps]:
        raise DGraphError("the as-computed replay took other steps")  # not by construction
    return make_expression_set(graph, labeled.references, labeled.entries(), steps, method, info)


def replay(graph: DGraph, moves: Iterable[Move], method: str, **info: Any) -> ExpressionSet:
    """Apply a sequence of eliminations to a fresh labeled graph; the expression set."""
    labeled = LabeledGraph(graph)
    for move in moves:
        labeled.apply(move)
    return labeled.result(method, info)
