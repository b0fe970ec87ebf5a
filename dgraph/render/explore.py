"""An elimination tried by hand: the state behind :func:`dgraph.explore`.

:class:`Exploration` holds a graph under vertex, front and back edge eliminations made
one at a time, each by the one elimination kernel (:mod:`dgraph.elimination.kernel`): the
labeled graph (:class:`~dgraph.elimination.labeled.LabeledGraph`) for the expressions and
the priced one (:func:`~dgraph.elimination.kernel.pricing`) for the effective count, so
the running counts are what :func:`dgraph.accumulate` counts for the same moves. Moves
can be undone and redone; the moves so far read as the CLI's ``--order`` text and, once
no intermediate is left, as an :class:`~dgraph.core.expressions.ExpressionSet`. Beside
the count stand the best count of the cheap greedy methods and a proven lower bound on
every elimination (:func:`~dgraph.search.junction_bounds.elimination_lower_bound`).

>>> from dgraph.core.builders import bundled
>>> x = Exploration(bundled("naumann_sin.trace"))
>>> x.eliminate("v2"), x.eliminate("v1"), x.mults, x.order_text()
(2, 1, 3, 'v2,v1')
>>> x.undo(); x.mults, x.order_text()
(2, 'v2')
>>> x.redo(); x.expression_set().mults
3

References: U. Naumann, "Optimal accumulation of Jacobian matrices by elimination
methods on the dual computational graph", Math. Program. 99 (2004) 399–421 (vertex
elimination); U. Naumann, "Efficient calculation of Jacobian matrices by optimized
application of the chain rule to computational graphs", PhD thesis, TU Dresden, 1999
(front and back edge elimination).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ..core.expressions import ExpressionSet, Step
from ..core.graph import DGraph
from ..elimination.kernel import Elimination, Move, pricing
from ..elimination.labeled import LabeledGraph
from ..errors import DGraphError, InputError
from ..methods import accumulate
from ..search.junction_bounds import elimination_lower_bound
from .text import latex_rows

__all__ = ["CHEAP", "Exploration", "IllegalMove", "Snapshot"]

CHEAP = ("forward", "reverse", "markowitz")  # the methods the best known count is taken from
_DIRECTIONS = {"forward": "f", "backward": "b"}


class IllegalMove(InputError):
    """A move the current state does not allow (the error says why, in one line)."""


@dataclass(frozen=True)
class Snapshot:
    """The state after some moves: the symbolic and the priced graph, and the counts."""

    labeled: LabeledGraph
    priced: Elimination
    effective: int  # effective multiplications so far (constants folded, ±1 free)
    structural: int  # structural multiplications so far (every label general)


class Exploration:
    """A graph under eliminations made one at a time, with undo and redo."""

    def __init__(self, graph: DGraph) -> None:
        if not isinstance(graph, DGraph):
            raise InputError(f"explore needs a DGraph, not {type(graph).__name__}")
        self.graph = graph
        self._history = [Snapshot(LabeledGraph(graph), Elimination(graph, pricing(graph)), 0, 0)]
        self._moves: list[Move] = []
        self._undone: list[Move] = []  # the moves undone, the next to redo last

    # -- the state -----------------------------------------------------------------------

    @property
    def moves(self) -> list[Move]:
        """The moves made so far, as the kernel names them."""
        return list(self._moves)

    @property
    def state(self) -> LabeledGraph:
        """The current labeled graph (read it, do not change it)."""
        return self._history[-1].labeled

    @property
    def mults(self) -> int:
        """Effective multiplications so far: what the built expression set counts."""
        return self._history[-1].effective

    @property
    def structural(self) -> int:
        """Structural multiplications so far (every label a general value); on a tensor
        graph, the block products made (:attr:`mults` prices them in scalar ones)."""
        return self._history[-1].structural

    @property
    def steps(self) -> list[Step]:
        return list(self.state.steps)

    def done(self) -> bool:
        """Whether no intermediate vertex is left."""
        return self.state.done()

    def intermediates(self) -> list[str]:
        """The intermediates left: what a click may eliminate."""
        return self.state.intermediates()

    def edges(self) -> list[tuple[str, str]]:
        """The edges now present."""
        return [(u, v) for u, out in self.state.succ.items() for v in out]

    def legal_moves(self) -> list[Move]:
        """Every move the current state allows: a vertex elimination for each intermediate,
        a front elimination for each edge out of one, a back one for each edge into one."""
        state = self.state
        out: list[Move] = [("vertex", v) for v in state.intermediates()]
        for i, j in self.edges():
            if state.is_intermediate(i):
                out.append(("forward", (i, j)))
            if state.is_intermediate(j):
                out.append(("backward", (i, j)))
        return out

    def cost(self, move: Move) -> int:
        """Effective multiplications ``move`` would cost now."""
        self._check(move)
        op, target = move
        priced = self._history[-1].priced
        return priced.vertex_cost(target) if op == "vertex" else priced.edge_cost(*target, op)

    # -- moves ---------------------------------------------------------------------------

    def apply(self, move: Move) -> int:
        """Make ``move`` (``("vertex", v)``, ``("forward", (i, j))`` or ``("backward",
        (i, j))``); its effective multiplications. Clears what could be redone."""
        cost = self._push(move)
        self._undone.clear()
        return cost

    def eliminate(self, v: str) -> int:
        """Vertex elimination of ``v``."""
        return self.apply(("vertex", v))

    def front(self, i: str, j: str) -> int:
        """Front elimination of the edge i -> j (i an intermediate)."""
        return self.apply(("forward", (i, j)))

    def back(self, i: str, j: str) -> int:
        """Back elimination of the edge i -> j (j an intermediate)."""
        return self.apply(("backward", (i, j)))

    def undo(self) -> None:
        if not self._moves:
            raise IllegalMove("nothing to undo")
        self._undone.append(self._moves.pop())
        self._history.pop()

    def redo(self) -> None:
        if not self._undone:
            raise IllegalMove("nothing to redo")
        self._push(self._undone.pop())

    def can_undo(self) -> bool:
        return bool(self._moves)

    def can_redo(self) -> bool:
        return bool(self._undone)

    def reset(self) -> None:
        """Back to the start (the moves can be redone)."""
        while self._moves:
            self.undo()

    def _check(self, move: Move) -> None:
        """Refuse a move the current state does not allow, in one line."""
        state = self.state
        op, target = move
        if op == "vertex":
            if not isinstance(target, str) or target not in state.succ:
                raise IllegalMove(f"cannot eliminate {target!r}: not a vertex left in the graph")
            if not state.is_intermediate(target):
                raise IllegalMove(
                    f"cannot eliminate {target!r}: it is an {state.role[target]}, not an"
                    " intermediate"
                )
            return
        if op not in _DIRECTIONS:
            raise IllegalMove(f"unknown move {op!r}: vertex, forward or backward")
        if not (isinstance(target, tuple | list) and len(target) == 2):
            raise IllegalMove(f"{op} elimination needs an edge (i, j), not {target!r}")
        i, j = target
        if j not in state.succ.get(i, {}):
            raise IllegalMove(f"cannot {op}-eliminate {i} -> {j}: no such edge now")
        inner, end = (i, "source") if op == "forward" else (j, "target")
        if not state.is_intermediate(inner):
            raise IllegalMove(
                f"cannot {op}-eliminate {i} -> {j}: its {end} {inner!r} is an"
                f" {state.role[inner]}, not an intermediate"
            )

    def _push(self, move: Move) -> int:
        self._check(move)
        op, target = move
        move = (op, target) if op == "vertex" else (op, tuple(target))
        last = self._history[-1]
        labeled, priced = last.labeled.copy(), last.priced.copy()
        structural = priced.products(move)
        effective = priced.apply(move)
        labeled.apply(move)
        self._history.append(
            Snapshot(labeled, priced, last.effective + effective, last.structural + structural)
        )
        self._moves.append(move)
        return effective

    # -- export --------------------------------------------------------------------------

    def method(self) -> str:
        """The method that replays the moves: ``vertex`` for vertex eliminations only,
        ``edges`` otherwise."""
        return "vertex" if all(op == "vertex" for op, _ in self._moves) else "edges"

    def order_text(self) -> str:
        """The moves as the CLI's ``--order`` for :meth:`method`: ``v3,v1`` (vertex) or
        ``f:v1>v3,b:v2>y,v:v4`` (edges)."""
        if self.method() == "vertex":
            return ",".join(target for _, target in self._moves)
        return ",".join(
            f"v:{target}" if op == "vertex" else f"{_DIRECTIONS[op]}:{target[0]}>{target[1]}"
            for op, target in self._moves
        )

    def command(self, path: str = "GRAPH") -> str:
        """The ``dgraph accumulate`` command that replays the moves on ``path``."""
        return f"dgraph accumulate {path} --method {self.method()} --order '{self.order_text()}'"

    def expression_set(self) -> ExpressionSet:
        """The finished elimination's expression set, built by :func:`dgraph.accumulate`
        with the moves as its order (an error while intermediates are left)."""
        if not self.done():
            left = ", ".join(self.intermediates()[:3])
            raise IllegalMove(f"the elimination is not finished: intermediates left: {left}")
        if self.method() == "vertex":
            return accumulate(self.graph, "vertex", order=[v for _, v in self._moves])
        return accumulate(self.graph, "edges", sequence=self.moves)

    def latex(self) -> str:
        """The expression set so far, as :func:`~dgraph.render.text.expression_set_latex`
        writes one: the references named so far, then each input-output label present."""
        state = self.state
        graph = self.graph
        entries = sorted(
            state.entries().items(),
            key=lambda kv: (graph.outputs.index(kv[0][0]), graph.inputs.index(kv[0][1])),
        )
        rows = latex_rows(graph, state.references, dict(entries))
        return "\\begin{aligned}\n" + " \\\\\n".join(rows) + "\n\\end{aligned}"

    # -- yardsticks ----------------------------------------------------------------------

    @cached_property
    def best_known(self) -> tuple[int, str]:
        """The fewest effective multiplications of the cheap greedy methods, and whose."""
        found = [(accumulate(self.graph, m).mults_effective, m) for m in CHEAP]
        return min(found)

    @cached_property
    def lower_bound(self) -> int | None:
        """Effective multiplications every elimination makes at least (None where the bound
        does not apply, e.g. a tensor graph)."""
        if self.graph.is_tensor:
            return None
        try:
            return elimination_lower_bound(self.graph)
        except DGraphError:
            return None

    def summary(self) -> dict[str, Any]:
        """The numbers the explorer shows."""
        best, by = self.best_known
        return {
            "mults": self.mults,
            "structural": self.structural,
            "best": best,
            "best_by": by,
            "lower_bound": self.lower_bound,
            "done": self.done(),
            "order": self.order_text(),
            "method": self.method(),
            "moves": len(self._moves),
            "last": str(self.state.steps[-1]) if self.state.steps else "",
            "tensor": self.graph.is_tensor,
        }

    def __repr__(self) -> str:
        return (
            f"<Exploration {self.graph.name}: {len(self._moves)} moves, {self.mults} mults,"
            f" {len(self.intermediates())} intermediates left>"
        )
