"""A c-graph under elimination with symbolic labels (Naumann, seed 000 §2).

Labels start as edge symbols and grow into noncommutative sums of products. A compound
label is named as a reference the first time it is used as a factor, so that the
expression set computes it once, exactly as the elimination does; references used only
once are inlined at the end. The expression set's mults therefore equal the elimination
cost, step for step.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import networkx as nx
import sympy

from ..core.expressions import ExpressionSet, Step, make_expression_set, reference_symbol
from ..core.graph import DGraph
from ..errors import DGraphError

__all__ = ["LabeledGraph", "Move", "replay"]

# A move: ("vertex", v), ("forward", (i, j)) or ("backward", (i, j)).
Move = tuple[str, Any]


class LabeledGraph:
    """A working copy of a graph whose labels are transformed by eliminations."""

    def __init__(self, graph: DGraph) -> None:
        self.graph = graph
        self.g = nx.DiGraph()
        for v in graph.order():
            self.g.add_node(v, role=graph.role(v))
        for u, v in graph.edges():
            self.g.add_edge(u, v, label=graph.symbol(u, v))
        self.references: dict[sympy.Symbol, sympy.Expr] = {}
        self.steps: list[Step] = []

    # -- queries -------------------------------------------------------------------------

    def is_intermediate(self, v: str) -> bool:
        return self.g.nodes[v]["role"] == "intermediate"

    def intermediates(self) -> list[str]:
        return [v for v in self.g if self.is_intermediate(v)]

    def markowitz_degree(self, v: str) -> int:
        """|P_v| * |S_v| in the current graph: the cost of eliminating v now."""
        return self.g.in_degree(v) * self.g.out_degree(v)

    def done(self) -> bool:
        """Whether the graph is bipartite between inputs and outputs."""
        return not any(self.is_intermediate(v) for v in self.g)

    # -- label algebra -------------------------------------------------------------------

    def _factor(self, u: str, v: str) -> sympy.Expr:
        """The label of (u, v) for use in a product; compound labels become references."""
        label = self.g.edges[u, v]["label"]
        if not label.is_Symbol:
            name = reference_symbol(len(self.references) + 1)
            self.references[name] = label
            self.g.edges[u, v]["label"] = label = name
        return label

    def _accumulate(self, i: str, k: str, term: sympy.Expr) -> None:
        """c_ki += term (absorption into an existing edge, or fill-in)."""
        if self.g.has_edge(i, k):
            self.g.edges[i, k]["label"] = self.g.edges[i, k]["label"] + term
        else:
            self.g.add_edge(i, k, label=term)

    # -- eliminations --------------------------------------------------------------------

    def eliminate_vertex(self, v: str) -> int:
        """For all predecessors i and successors k: c_ki += c_kv * c_vi; delete v."""
        if v not in self.g or not self.is_intermediate(v):
            raise DGraphError(f"cannot eliminate {v!r}: not a remaining intermediate vertex")
        preds, succs = list(self.g.predecessors(v)), list(self.g.successors(v))
        for k in succs:
            for i in preds:
                self._accumulate(i, k, self._factor(v, k) * self._factor(i, v))
        self.g.remove_node(v)
        cost = len(preds) * len(succs)
        self.steps.append(Step("vertex", v, cost))
        return cost

    def eliminate_forward(self, i: str, j: str) -> int:
        """Forward edge elimination of (i, j), i intermediate: c_jk += c_ji * c_ik."""
        if not self.g.has_edge(i, j) or not self.is_intermediate(i):
            raise DGraphError(f"cannot forward-eliminate {i} -> {j}: needs an intermediate source")
        preds = list(self.g.predecessors(i))
        for k in preds:
            self._accumulate(k, j, self._factor(i, j) * self._factor(k, i))
        self.g.remove_edge(i, j)
        if not self.g.out_degree(i):
            self.g.remove_node(i)
        self.steps.append(Step("forward", (i, j), len(preds)))
        return len(preds)

    def eliminate_backward(self, i: str, j: str) -> int:
        """Backward edge elimination of (i, j), j intermediate: c_ki += c_kj * c_ji."""
        if not self.g.has_edge(i, j) or not self.is_intermediate(j):
            raise DGraphError(f"cannot backward-eliminate {i} -> {j}: needs an intermediate target")
        succs = list(self.g.successors(j))
        for k in succs:
            self._accumulate(i, k, self._factor(j, k) * self._factor(i, j))
        self.g.remove_edge(i, j)
        if not self.g.in_degree(j):
            self.g.remove_node(j)
        self.steps.append(Step("backward", (i, j), len(succs)))
        return len(succs)

    def apply(self, move: Move) -> int:
        op, target = move
        if op == "vertex":
            return self.eliminate_vertex(target)
        if op == "forward":
            return self.eliminate_forward(*target)
        if op == "backward":
            return self.eliminate_backward(*target)
        raise DGraphError(f"unknown elimination {op!r}")

    # -- result --------------------------------------------------------------------------

    def result(self, method: str, info: dict[str, Any] | None = None) -> ExpressionSet:
        """The expression set of the finished elimination (single-use references inlined)."""
        if not self.done():
            left = ", ".join(self.intermediates()[:3])
            raise DGraphError(f"{method}: elimination incomplete; {left} remain")
        jacobian = {(y, x): data["label"] for x, y, data in self.g.edges(data=True)}
        es = make_expression_set(self.graph, self.references, jacobian, self.steps, method)
        es = es.inline_single_use()
        es.info.update(info or {})
        return es


def replay(graph: DGraph, moves: Iterable[Move], method: str, **info: Any) -> ExpressionSet:
    """Apply a sequence of eliminations to a fresh labeled graph; the expression set."""
    labeled = LabeledGraph(graph)
    for move in moves:
        labeled.apply(move)
    return labeled.result(method, info)
