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

    def __init__(
        self,
        graph: DGraph,
        edges: Iterable[tuple[str, str]] | None = None,
        labels: dict[tuple[str, str], sympy.Expr] | None = None,
        references: dict[sympy.Symbol, sympy.Expr] | None = None,
    ) -> None:
        """A working copy of ``graph``, or of a part of it (``edges``, a page), with
        ``labels`` for some edges (default: the edge symbols) and a ``references`` dict
        that several working copies may share, so that reference names stay unique."""
        self.graph = graph
        self.g = nx.DiGraph()
        edge_list = graph.edges() if edges is None else list(edges)
        for v in graph.order():
            self.g.add_node(v, role=graph.role(v))
        for u, v in edge_list:
            label = labels.get((u, v)) if labels else None
            self.g.add_edge(u, v, label=graph.symbol(u, v) if label is None else label)
        if edges is not None:  # a page keeps only the vertices its edges touch
            self.g.remove_nodes_from([v for v in graph.order() if not self.g.degree(v)])
        self.references: dict[sympy.Symbol, sympy.Expr] = {} if references is None else references
        self.steps: list[Step] = []

    @classmethod
    def from_structure(
        cls, graph: DGraph, g: nx.DiGraph, references: dict[sympy.Symbol, sympy.Expr]
    ) -> LabeledGraph:
        """A working graph of any structure (vertices with ``role``, edges with ``label``),
        e.g. a region between two cuts with copies of vertices; ``graph`` is the function's
        graph that the labels' symbols belong to."""
        lg = cls.__new__(cls)
        lg.graph, lg.g, lg.references, lg.steps = graph, g, references, []
        return lg

    def copy(self) -> LabeledGraph:
        """An independent copy (its own references dict, continuing the numbering)."""
        other = LabeledGraph.__new__(LabeledGraph)
        other.graph = self.graph
        other.g = self.g.copy()
        other.references = dict(self.references)
        other.steps = list(self.steps)
        return other

    # -- queries -------------------------------------------------------------------------

    def is_intermediate(self, v: str) -> bool:
        return self.g.nodes[v]["role"] == "intermediate"

    def intermediates(self) -> list[str]:
        return [v for v in self.g if self.is_intermediate(v)]

    def label(self, u: str, v: str) -> sympy.Expr:
        return self.g.edges[u, v]["label"]

    def entries(self) -> dict[tuple[str, str], sympy.Expr]:
        """The labels of the input -> output edges, keyed (output, input)."""
        roles = self.g.nodes
        return {
            (y, x): data["label"]
            for x, y, data in self.g.edges(data=True)
            if roles[x]["role"] == "input" and roles[y]["role"] == "output"
        }

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
        if not (label.is_Symbol or label.is_Number):
            name = reference_symbol(len(self.references) + 1)
            self.references[name] = label
            self.g.edges[u, v]["label"] = label = name
        return label

    def name_references(self) -> None:
        """Turn every compound label into a reference edge, so that working graphs built
        from this one (pages) share its value."""
        for u, v in list(self.g.edges):
            self._factor(u, v)

    def _accumulate(self, i: str, k: str, term: sympy.Expr) -> None:
        """c_ki += term (absorption into an existing edge, or fill-in)."""
        if self.g.has_edge(i, k):
            self.g.edges[i, k]["label"] = self.g.edges[i, k]["label"] + term
        else:
            self.g.add_edge(i, k, label=term)

    def _product(self, i: str, k: str, upper: tuple[str, str], lower: tuple[str, str]) -> int:
        """c_ki += c_upper * c_lower; returns the multiplication it costs (none when a
        factor is the literal 1 of a copy made by segmentation)."""
        a, b = self._factor(*upper), self._factor(*lower)
        if a.is_Symbol and b.is_Symbol and a != b and not (a.is_commutative or b.is_commutative):
            # what a * b builds for two different noncommutative symbols, without the
            # general flattening that dominates building large expression sets
            product = sympy.Mul._from_args((a, b), is_commutative=False)
        else:
            product = a * b
        self._accumulate(i, k, product)
        return int(a != 1 and b != 1)

    # -- eliminations --------------------------------------------------------------------

    def eliminate_vertex(self, v: str, op: str = "vertex") -> int:
        """For all predecessors i and successors k: c_ki += c_kv * c_vi; delete v."""
        if v not in self.g or not self.is_intermediate(v):
            raise DGraphError(f"cannot eliminate {v!r}: not a remaining intermediate vertex")
        preds, succs = list(self.g.predecessors(v)), list(self.g.successors(v))
        cost = sum(self._product(i, k, (v, k), (i, v)) for k in succs for i in preds)
        self.g.remove_node(v)
        self.steps.append(Step(op, v, cost))
        return cost

    def eliminate_forward(self, i: str, j: str) -> int:
        """Forward edge elimination of (i, j), i intermediate: c_jk += c_ji * c_ik."""
        if not self.g.has_edge(i, j) or not self.is_intermediate(i):
            raise DGraphError(f"cannot forward-eliminate {i} -> {j}: needs an intermediate source")
        cost = sum(self._product(k, j, (i, j), (k, i)) for k in list(self.g.predecessors(i)))
        self.g.remove_edge(i, j)
        if not self.g.out_degree(i):
            self.g.remove_node(i)
        self.steps.append(Step("forward", (i, j), cost))
        return cost

    def eliminate_backward(self, i: str, j: str) -> int:
        """Backward edge elimination of (i, j), j intermediate: c_ki += c_kj * c_ji."""
        if not self.g.has_edge(i, j) or not self.is_intermediate(j):
            raise DGraphError(f"cannot backward-eliminate {i} -> {j}: needs an intermediate target")
        cost = sum(self._product(i, k, (j, k), (i, j)) for k in list(self.g.successors(j)))
        self.g.remove_edge(i, j)
        if not self.g.in_degree(j):
            self.g.remove_node(j)
        self.steps.append(Step("backward", (i, j), cost))
        return cost

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
            raise DGraphError(f"{method}: elimination incomplete; intermediates remain: {left}")
        es = make_expression_set(
            self.graph, self.references, self.entries(), self.steps, method, info
        )
        return es.inline_single_use()


def replay(graph: DGraph, moves: Iterable[Move], method: str, **info: Any) -> ExpressionSet:
    """Apply a sequence of eliminations to a fresh labeled graph; the expression set."""
    labeled = LabeledGraph(graph)
    for move in moves:
        labeled.apply(move)
    return labeled.result(method, info)
