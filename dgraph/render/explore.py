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

Face moves (``("face", ("i->j", "j->k"))``, Naumann's face elimination) are made on the
line graph (:class:`~dgraph.faces.elimination.FaceState`, whose ``eliminate`` is the
move), which every state also has: a vertex or edge elimination is a sequence of faces
(:func:`~dgraph.faces.sequence.eliminate_step`), so the line graph follows every move. A
face move that is by itself an edge elimination (the face's middle vertex has one edge in,
or one out) keeps a graph state, and vertex and edge moves may follow; any other leaves a
line graph that no graph has (:meth:`Exploration.is_graph`): from there on only face
moves, until it is undone. Once a face move is made the order is a face sequence, ``dgraph
accumulate GRAPH --method faces --order '[x0->v2, v2->y], ...'`` (every move as its faces).

>>> from dgraph.frontends import bundled
>>> x = Exploration(bundled("naumann_sin.trace"))
>>> x.eliminate("v2"), x.eliminate("v1"), x.mults, x.order_text()
(2, 1, 3, 'v2,v1')
>>> x.undo(); x.mults, x.order_text()
(2, 'v2')
>>> x.redo(); x.expression_set().mults
3
>>> x.reset(); x.face("v1->v2", "v2->y"), x.is_graph(), x.order_text()
(1, True, '[v1->v2, v2->y]')

References: U. Naumann, "Optimal accumulation of Jacobian matrices by elimination
methods on the dual computational graph", Math. Program. 99 (2004) 399–421 (vertex
elimination); U. Naumann, "Efficient calculation of Jacobian matrices by optimized
application of the chain rule to computational graphs", PhD thesis, TU Dresden, 1999
(front and back edge elimination); the 2004 paper also for face elimination on the
dual graph, the line graph.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple

from ..core.expressions import ExpressionSet, Step
from ..core.graph import DGraph
from ..elimination.kernel import Elimination, Move, pricing
from ..elimination.labeled import LabeledGraph
from ..errors import DGraphError, InputError
from ..faces.elimination import FaceState, check_path_limit
from ..faces.sequence import eliminate_step, format_faces
from ..methods import accumulate
from ..search.junction_bounds import elimination_lower_bound
from .text import latex_rows

__all__ = ["CHEAP", "BestKnown", "Exploration", "IllegalMove", "Snapshot"]

CHEAP = ("forward", "reverse", "markowitz")  # the methods the best known count is taken from


class BestKnown(NamedTuple):
    """The fewest effective multiplications of the :data:`CHEAP` methods, and whose."""

    mults: int
    method: str


_DIRECTIONS = {"forward": "f", "backward": "b"}
FaceName = tuple[str, str]


class IllegalMove(InputError):
    """A move the current state does not allow (the error says why, in one line)."""


@dataclass
class Snapshot:
    """The state after some moves: the symbolic and the priced graph (None in a line
    graph no graph has), the counts, and the line graph (made when first asked for) with
    the faces the move that made this state eliminated."""

    labeled: LabeledGraph | None
    priced: Elimination | None
    effective: int  # effective multiplications so far (constants folded, ±1 free)
    structural: int  # structural multiplications so far (every label general)
    line: FaceState | None = None
    faces: tuple[FaceName, ...] = ()


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
        """The moves made so far, as the kernel names them (faces: ``("face", (i, j))``
        with the names of the line graph's two vertices)."""
        return list(self._moves)

    def is_graph(self) -> bool:
        """Whether the current state is a graph's (no face move so far made a line graph
        that no graph has): what the graph view can draw and vertex and edge moves need."""
        return self._history[-1].labeled is not None

    @property
    def state(self) -> LabeledGraph:
        """The current labeled graph (read it, do not change it); an error in a line
        graph no graph has."""
        labeled = self._history[-1].labeled
        if labeled is None:
            raise IllegalMove(self.why_not_graph())
        return labeled

    @property
    def line(self) -> FaceState:
        """The current line graph under face elimination (read it, do not change it); an
        error where the line graph cannot be followed (:meth:`line_refusal`)."""
        return self._line_at(len(self._history) - 1)

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
        """The graph's steps so far (a face move that is an edge elimination as that)."""
        return list(self.state.steps)

    def done(self) -> bool:
        """Whether no intermediate vertex (in a line graph no graph has: no intermediate
        face) is left."""
        labeled = self._history[-1].labeled
        return labeled.done() if labeled is not None else self.line.done()

    def intermediates(self) -> list[str]:
        """The intermediates left: what a click may eliminate (in a line graph no graph
        has, none: the intermediates some face still passes through are :meth:`faces`'
        middle vertices)."""
        labeled = self._history[-1].labeled
        return labeled.intermediates() if labeled is not None else []

    def edges(self) -> list[tuple[str, str]]:
        """The edges now present."""
        return [(u, v) for u, out in self.state.succ.items() for v in out]

    def faces(self) -> list[FaceName]:
        """The intermediate faces now present, by the names of their two vertices."""
        line = self.line
        return [(line.name[i], line.name[j]) for i, j in line.faces()]

    def legal_moves(self) -> list[Move]:
        """Every vertex and edge move the current state allows: a vertex elimination for
        each intermediate, a front elimination for each edge out of one, a back one for
        each edge into one (none in a line graph no graph has; faces: :meth:`face_moves`)."""
        if not self.is_graph():
            return []
        state = self.state
        out: list[Move] = [("vertex", v) for v in state.intermediates()]
        for i, j in self.edges():
            if state.is_intermediate(i):
                out.append(("forward", (i, j)))
            if state.is_intermediate(j):
                out.append(("backward", (i, j)))
        return out

    def face_moves(self) -> list[Move]:
        """A face move for every intermediate face of the current line graph."""
        return [("face", face) for face in self.faces()]

    def cost(self, move: Move) -> int:
        """Effective multiplications ``move`` would cost now."""
        self._check(move)
        op, target = move
        if op == "face":
            line = self.line
            return line.effective_cost(*line.face_by_name(*target))
        priced = self._history[-1].priced
        return priced.vertex_cost(target) if op == "vertex" else priced.edge_cost(*target, op)

    # -- the line graph ------------------------------------------------------------------

    @cached_property
    def line_refusal(self) -> str | None:
        """Why the line graph cannot be followed (None where it can): a tensor graph's
        blocks, or more input-output paths than a face state follows."""
        if self.graph.is_tensor:
            return (
                "the line graph is not drawn for a tensor graph: face elimination multiplies"
                " scalar labels"
            )
        try:
            check_path_limit(self.graph, "the line graph")
        except DGraphError as exc:
            return str(exc)
        return None

    def _line_at(self, k: int) -> FaceState:
        """The line graph after the first ``k`` moves, made from the nearest state before
        that has one (each vertex or edge move as its faces)."""
        if self.line_refusal is not None:
            raise IllegalMove(self.line_refusal)
        history = self._history
        if history[0].line is None:
            history[0].line = FaceState(self.graph)
        t = k
        while history[t].line is None:
            t -= 1
        for s in range(t + 1, k + 1):
            line = history[s - 1].line.copy()
            op, target = self._moves[s - 1]
            history[s].faces = tuple(eliminate_step(line, op, target))
            history[s].line = line
        return history[k].line

    def line_states(self) -> list[FaceState]:
        """The line graph before the first move and after each (for drawings that keep
        what each move made where it was made)."""
        return [self._line_at(k) for k in range(len(self._history))]

    def why_not_graph(self) -> str:
        """Why the current state is no graph's (the face move that made it so), or ''."""
        for move, after in zip(self._moves, self._history[1:], strict=True):
            if after.labeled is None:
                a, b = move[1]
                return (
                    f"the face [{a}, {b}] is no vertex or edge elimination: the line graph"
                    " it left is no graph's, so only faces can follow (undo it to go back)"
                )
        return ""

    def _as_edge_move(self, line: FaceState, i: int, j: int) -> Move | None:
        """The edge elimination that the face ``(i, j)`` is by itself, if any: the front
        elimination of j's edge where i's is the only edge into their middle vertex, the
        back elimination of i's where j's is the only one out of it."""
        if line.step_faces("forward", line.span[j]) == [(i, j)]:
            return ("forward", line.span[j])
        if line.step_faces("backward", line.span[i]) == [(i, j)]:
            return ("backward", line.span[i])
        return None

    # -- moves ---------------------------------------------------------------------------

    def apply(self, move: Move) -> int:
        """Make ``move`` (``("vertex", v)``, ``("forward", (i, j))``, ``("backward", (i,
        j))`` or ``("face", ("i->j", "j->k"))``); its effective multiplications. Clears
        what could be redone."""
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

    def face(self, first: str, second: str) -> int:
        """Face elimination of the face from line-graph vertex ``first`` to ``second``
        (named as :attr:`FaceState.name <dgraph.faces.elimination.FaceState.name>`)."""
        return self.apply(("face", (first, second)))

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
        if not (isinstance(move, tuple | list) and len(move) == 2):
            raise IllegalMove(f"a move is (kind, target), not {move!r}")
        op, target = move
        if op == "face":
            self._check_face(target)
            return
        if op not in ("vertex", *_DIRECTIONS):
            raise IllegalMove(f"unknown move {op!r}: vertex, forward, backward or face")
        if not self.is_graph():
            raise IllegalMove(f"cannot make a {op} elimination now: {self.why_not_graph()}")
        state = self.state
        if op == "vertex":
            if not isinstance(target, str) or target not in state.succ:
                raise IllegalMove(f"cannot eliminate {target!r}: not a vertex left in the graph")
            if not state.is_intermediate(target):
                raise IllegalMove(
                    f"cannot eliminate {target!r}: it is an {state.role[target]}, not an"
                    " intermediate"
                )
            return
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

    def _check_face(self, target: Any) -> None:
        if not (
            isinstance(target, tuple | list)
            and len(target) == 2
            and all(isinstance(t, str) for t in target)
        ):
            raise IllegalMove(f"a face move needs two line-graph vertex names, not {target!r}")
        line = self.line
        a, b = target
        try:
            i, j = line.face_by_name(a, b)
        except DGraphError as exc:
            raise IllegalMove(f"cannot eliminate the face [{a}, {b}]: {exc}") from None
        if line.is_terminal(i) or line.is_terminal(j):
            raise IllegalMove(
                f"cannot eliminate the face [{a}, {b}]: it joins an input's or output's end"
                " (⊕/⊖); only faces between two edges are eliminated"
            )

    def _push(self, move: Move) -> int:
        self._check(move)
        op, target = move
        last = self._history[-1]
        if op == "face":
            return self._push_face((target[0], target[1]))
        move = (op, target) if op == "vertex" else (op, tuple(target))
        labeled, priced = last.labeled.copy(), last.priced.copy()
        structural = priced.products(move)
        effective = priced.apply(move)
        labeled.apply(move)
        self._history.append(
            Snapshot(labeled, priced, last.effective + effective, last.structural + structural)
        )
        self._moves.append(move)
        return effective

    def _push_face(self, target: FaceName) -> int:
        last = self._history[-1]
        line = self.line.copy()
        i, j = line.face_by_name(*target)
        edge_move = self._as_edge_move(line, i, j) if last.labeled is not None else None
        labeled = priced = None
        if edge_move is not None:  # still a graph: the graph's states follow
            labeled, priced = last.labeled.copy(), last.priced.copy()
            priced.apply(edge_move)
            labeled.apply(edge_move)
        before = line.mults_effective
        line.eliminate(i, j)
        effective = line.mults_effective - before
        self._history.append(
            Snapshot(
                labeled, priced, last.effective + effective, last.structural + 1, line, (target,)
            )
        )
        self._moves.append(("face", target))
        return effective

    # -- export --------------------------------------------------------------------------

    def method(self) -> str:
        """The method that replays the moves: ``vertex`` for vertex eliminations only,
        ``faces`` once a face move is made, ``edges`` otherwise."""
        ops = {op for op, _ in self._moves}
        if "face" in ops:
            return "faces"
        return "vertex" if ops <= {"vertex"} else "edges"

    def face_order(self) -> list[FaceName]:
        """Every move so far as the faces it eliminated, in turn (line-graph vertex names
        as each face's turn found them)."""
        self._line_at(len(self._history) - 1)
        return [face for after in self._history[1:] for face in after.faces]

    def order_text(self) -> str:
        """The moves as the CLI's ``--order`` for :meth:`method`: ``v3,v1`` (vertex),
        ``f:v1>v3,b:v2>y,v:v4`` (edges) or ``[x0->v2, v2->y], [v1->v2, v2->y]`` (faces:
        every move as its faces, the order ``dgraph faces`` prints)."""
        method = self.method()
        if method == "faces":
            return format_faces(self.face_order())
        if method == "vertex":
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
            if self.is_graph():
                left = "intermediates left: " + ", ".join(self.intermediates()[:3])
            else:
                left = f"faces left: {format_faces(self.faces()[:2])}"
            raise IllegalMove(f"the elimination is not finished: {left}")
        method = self.method()
        if method == "faces":
            return accumulate(self.graph, "faces", faces=self.face_order())
        if method == "vertex":
            return accumulate(self.graph, "vertex", order=[v for _, v in self._moves])
        return accumulate(self.graph, "edges", sequence=self.moves)

    def latex(self) -> str:
        """The expression set so far, as :func:`~dgraph.render.text.expression_set_latex`
        writes one: the references named so far, then each input-output label present
        (once a face move is made, the line graph's: the labels of its vertices joined to
        an input and an output)."""
        graph = self.graph
        if self.method() == "faces":
            line = self.line
            references, entries = line.references, line.entries()
        else:
            references, entries = self.state.references, self.state.entries()
        ordered = sorted(
            entries.items(),
            key=lambda kv: (graph.outputs.index(kv[0][0]), graph.inputs.index(kv[0][1])),
        )
        rows = latex_rows(graph, references, dict(ordered))
        return "\\begin{aligned}\n" + " \\\\\n".join(rows) + "\n\\end{aligned}"

    # -- yardsticks ----------------------------------------------------------------------

    @cached_property
    def best_known(self) -> BestKnown:
        """The fewest effective multiplications of the cheap greedy methods, and whose."""
        return min(BestKnown(accumulate(self.graph, m).mults_effective, m) for m in CHEAP)

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

    def last_move(self) -> str:
        """The last move, as a step reads (``vertex v2 (2)``), a face as its ``--order``
        text (``face [v1->v2, v2->y] (1)``), or ''."""
        if not self._moves:
            return ""
        op, target = self._moves[-1]
        after, before = self._history[-1], self._history[-2]
        if op == "face":
            return f"face {format_faces([target])} ({after.structural - before.structural})"
        return str(after.labeled.steps[-1])

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
            "last": self.last_move(),
            "tensor": self.graph.is_tensor,
            "graph_state": self.is_graph(),
        }

    def __repr__(self) -> str:
        left = (
            f"{len(self.intermediates())} intermediates left"
            if self.is_graph()
            else f"{len(self.faces())} faces left"
        )
        return (
            f"<Exploration {self.graph.name}: {len(self._moves)} moves, {self.mults} mults, {left}>"
        )
