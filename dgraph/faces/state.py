"""What the two labelled line graphs under face elimination share (Naumann 2004, §3):
:class:`~dgraph.faces.elimination.FaceState` (the paths tracked) and
:class:`~dgraph.faces.pathfree.LineState` (the stacks of open products instead).

Both keep the line graph's vertices by id with their span, name, label and kind, the
faces as adjacency (``succ``, ``pred``), the live vertices of each span (``_alive``),
the references compound labels became and the steps taken; here are the rules that read
only those: a new vertex, the faces left, the faces of a vertex or edge elimination, a
label as a factor, Naumann's merge of vertices with equal span, predecessors and
successors, and the finished expression set. What a merge moves besides (paths or
stacks) is each class's ``_merge``.

References
----------
U. Naumann, *Optimal accumulation of Jacobian matrices by elimination methods on the
dual computational graph*, Math. Program. 99 (2004) 399-421.
"""

from __future__ import annotations

from typing import Any

import sympy

from ..core.expressions import ExpressionSet, as_factor, make_expression_set
from ..core.kinds import Value
from ..errors import DGraphError

__all__ = ["Face", "LineGraphState"]

Face = tuple[int, int]


class LineGraphState:
    """The rules :class:`~dgraph.faces.elimination.FaceState` and
    :class:`~dgraph.faces.pathfree.LineState` share (their attributes: see the module)."""

    def _new(self, span: tuple[str, str], label: sympy.Expr | None, kind: Value) -> int:
        v = next(self._ids)
        self.kind[v] = kind
        self._span_count[span] += 1
        count = self._span_count[span]
        self.span[v] = span
        self.name[v] = f"{span[0]}->{span[1]}" + (f"#{count}" if count > 1 else "")
        if label is not None and self.symbolic:
            self.label[v] = label
        self.succ[v], self.pred[v] = {}, {}
        self._alive[span].add(v)
        return v

    def faces(self) -> list[Face]:
        """The intermediate faces left, in a deterministic order."""
        return sorted(
            (
                (i, j)
                for i in self.succ
                for j in self.succ[i]
                if not self.is_terminal(i) and not self.is_terminal(j)
            ),
        )

    def done(self) -> bool:
        return not self.faces()

    def step_faces(self, op: str, target: str | tuple[str, str]) -> list[Face]:
        """The faces one vertex, forward or backward edge elimination consists of, while
        the line graph is still that of a c-graph (only such steps taken so far)."""
        span = self.span
        if op == "vertex":
            return sorted(self._faces_at(target))
        if op == "forward":
            return sorted(f for f in self._faces_at(target[0]) if span[f[1]] == tuple(target))
        if op == "backward":
            return sorted(f for f in self._faces_at(target[1]) if span[f[0]] == tuple(target))
        raise DGraphError(f"{op!r} is not a vertex or edge elimination")

    def _faces_at(self, m: str):
        """The intermediate faces joining at graph vertex ``m`` (a class that indexes
        them by vertex reads its index)."""
        return (f for f in self.faces() if self.span[f[0]][1] == m)

    def _factor(self, v: int) -> sympy.Expr:
        """The label of ``v`` for use in a product; compound labels become references."""
        self.label[v] = label = as_factor(self.references, self.label[v])
        return label

    def _find(
        self, span: tuple[str, str], preds, succs, other_than: int | None = None
    ) -> int | None:
        """A live edge vertex of ``span`` with these predecessor and successor sets."""
        for v in self._alive[span]:
            if (
                v != other_than
                and not self.is_terminal(v)
                and self.pred[v].keys() == preds
                and self.succ[v].keys() == succs
            ):
                return v
        return None

    def _merge_around(self, touched: set[int]) -> None:
        """Merge every vertex with another of equal span, predecessors and successors."""
        pending = [v for v in touched if v in self.succ and not self.is_terminal(v)]
        while pending:
            v = pending.pop()
            if v not in self.succ:
                continue
            twin = self._find(self.span[v], self.pred[v].keys(), self.succ[v].keys(), v)
            if twin is None:
                continue
            keep, gone = min(v, twin), max(v, twin)
            self._merge(keep, gone)
            pending.extend([keep, *self.pred[keep], *self.succ[keep]])

    def result(self, method: str, info: dict[str, Any] | None = None) -> ExpressionSet:
        """The expression set of the finished face elimination (single-use references
        inlined); its mults equal the faces eliminated."""
        if not self.done():
            raise DGraphError(
                f"{method}: face elimination incomplete; {len(self.faces())} faces left"
            )
        return make_expression_set(
            self.graph, self.references, self.entries(), self.steps, method, info, inline=True
        )
