"""Vertex and edge elimination priced by *effective* multiplications.

The label kinds and their product and sum rules are :mod:`dgraph.core.kinds`; this is
the count that ``ExpressionSet.mults_effective`` makes of a finished elimination,
computed here on the structure alone so that searches can price thousands of orders.
On graphs without constant labels it is the structural Markowitz cost.
"""

from __future__ import annotations

from ..core.graph import DGraph
from ..core.kinds import CONSTANT, GENERAL, UNIT, add, kind_of, multiply

__all__ = [
    "CONSTANT",
    "GENERAL",
    "UNIT",
    "KindGraph",
    "add",
    "effective_cost",
    "move_costs",
    "multiply",
]


class KindGraph:
    """The intermediate structure of a graph with a kind on every edge, under vertex
    elimination (adjacency dicts: copied and updated thousands of times per search)."""

    def __init__(self, graph: DGraph) -> None:
        self.intermediates = list(graph.intermediates)
        self.succ: dict[str, dict[str, int]] = {v: {} for v in graph.order()}
        self.pred: dict[str, dict[str, int]] = {v: {} for v in graph.order()}
        for u, v in graph.edges():
            self.succ[u][v] = self.pred[v][u] = kind_of(graph.constant_label(u, v))

    def copy(self) -> KindGraph:
        other = KindGraph.__new__(KindGraph)
        other.intermediates = self.intermediates
        other.succ = {v: dict(d) for v, d in self.succ.items()}
        other.pred = {v: dict(d) for v, d in self.pred.items()}
        return other

    def cost(self, v: str) -> int:
        """The effective multiplications eliminating ``v`` now would cost."""
        return sum(
            multiply(kv, iv)[0] for kv in self.succ[v].values() for iv in self.pred[v].values()
        )

    def markowitz(self, v: str) -> int:
        return len(self.pred[v]) * len(self.succ[v])

    def fill_in(self, v: str) -> int:
        """The number of new edges eliminating ``v`` would create."""
        return sum(1 for i in self.pred[v] for k in self.succ[v] if k not in self.succ[i])

    def _absorb(self, source: str, target: str, kind: int) -> None:
        old = self.succ[source].get(target)
        new = kind if old is None else add(old, kind)
        self.succ[source][target] = self.pred[target][source] = new

    def _drop_edge(self, i: str, j: str) -> None:
        del self.succ[i][j], self.pred[j][i]

    def _drop_vertex(self, v: str) -> None:
        for i in list(self.pred[v]):
            del self.succ[i][v]
        for k in list(self.succ[v]):
            del self.pred[k][v]
        del self.succ[v], self.pred[v]

    def edge_cost(self, i: str, j: str, direction: str) -> int:
        """Effective multiplications of front- (``forward``) or back-eliminating i -> j."""
        kind = self.succ[i][j]
        others = self.pred[i].values() if direction == "forward" else self.succ[j].values()
        return sum(multiply(kind, other)[0] for other in others)

    def eliminate_edge(self, i: str, j: str, direction: str) -> int:
        """Front-eliminate i -> j (into i's predecessors; i intermediate) or back-eliminate
        it (into j's successors; j intermediate), Naumann's edge elimination (seed 000);
        a vertex left without successors or predecessors goes with its edges."""
        cost, kind = self.edge_cost(i, j, direction), self.succ[i][j]
        if direction == "forward":
            for k, ki in list(self.pred[i].items()):
                self._absorb(k, j, multiply(kind, ki)[1])
            self._drop_edge(i, j)
            if not self.succ[i]:
                self._drop_vertex(i)
        else:
            for k, jk in list(self.succ[j].items()):
                self._absorb(i, k, multiply(jk, kind)[1])
            self._drop_edge(i, j)
            if not self.pred[j]:
                self._drop_vertex(j)
        return cost

    def eliminate(self, v: str) -> int:
        total = 0
        for i, iv in self.pred[v].items():
            for k, kv in self.succ[v].items():
                cost, kind = multiply(kv, iv)
                total += cost
                # _absorb written out: this loop prices every annealing step
                old = self.succ[i].get(k)
                new = kind if old is None else add(old, kind)
                self.succ[i][k] = self.pred[k][i] = new
        self._drop_vertex(v)
        return total


def effective_cost(graph: DGraph | KindGraph, order: list[str]) -> int:
    """Effective multiplications of vertex elimination in ``order``.

    >>> from dgraph.core.builders import bundled
    >>> g = bundled("naumann_sin.trace")
    >>> effective_cost(g, ["v1", "v2"]), effective_cost(g, ["v2", "v1"])
    (4, 3)
    """
    kinds = KindGraph(graph) if isinstance(graph, DGraph) else graph.copy()
    return sum(kinds.eliminate(v) for v in order)


def move_costs(graph: DGraph, moves: list) -> tuple[int, int]:
    """(effective, structural) multiplications of vertex moves ``("vertex", v)`` and edge
    moves ``("forward" | "backward", (i, j))``, as the built expression set counts them.

    >>> from dgraph.core.builders import bundled
    >>> move_costs(bundled("naumann_sin.trace"), [("vertex", "v2"), ("vertex", "v1")])
    (3, 3)
    """
    kinds = KindGraph(graph)
    effective = structural = 0
    for op, target in moves:
        if op == "vertex":
            structural += kinds.markowitz(target)
            effective += kinds.eliminate(target)
        else:
            i, j = target
            structural += len(kinds.pred[i] if op == "forward" else kinds.succ[j])
            effective += kinds.eliminate_edge(i, j, op)
    return effective, structural
