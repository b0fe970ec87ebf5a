"""Activity analysis: values that no input reaches are constants of the program.

AD tools differentiate only *active* values, those that depend on an input and that an
output depends on (Griewank & Walther, *Evaluating Derivatives*, 2nd ed., §6.1). A vertex
that no input reaches (a constant computed in the program, say ``c = 2*pi``) is passive:
its value is folded into the expressions of the vertices that use it and it leaves the
graph, with a note in ``graph.notes``; its out-edges carry no derivative. An output that no
input reaches stays, as a constant output (a zero row of the Jacobian).
"""

from __future__ import annotations

import sympy

from ..blocks.arrays import ArrayOp
from ..errors import GraphError
from .graph import DGraph, vertex_symbol

__all__ = [
    "dead_note",
    "dead_vertices",
    "drop_dead",
    "fold_passive",
    "live_part",
    "passive_vertices",
]

SHOWN = 8  # dead vertices a note names one by one


def passive_vertices(graph: DGraph) -> list[str]:
    """The non-input vertices no input reaches, in evaluation order (raises on a cycle)."""
    active = set(graph.inputs)
    passive = []
    for v in graph.order():
        if v in active:
            continue
        if any(u in active for u in graph.predecessors(v)):
            active.add(v)
        else:
            passive.append(v)
    return passive


def dead_vertices(graph: DGraph) -> list[str]:
    """The intermediates with no path to an output, in evaluation order (raises on a
    cycle)."""
    nodes = graph.nx
    order = graph.order()
    reaches = set(graph.outputs)
    for v in reversed(order):
        if v not in reaches and any(w in reaches for w in nodes.successors(v)):
            reaches.add(v)
    return [v for v in order if v not in reaches and nodes.nodes[v]["role"] == "intermediate"]


def dead_note(dead: list[str]) -> str:
    """The one note that names dropped dead vertices (the first :data:`SHOWN` of many)."""
    shown = ", ".join(dead[:SHOWN])
    if len(dead) > SHOWN:
        shown += f" and {len(dead) - SHOWN} more"
    count = "1 vertex" if len(dead) == 1 else f"{len(dead)} vertices"
    return f"dead code dropped: {count} no output depends on ({shown})"


def drop_dead(graph: DGraph, where: str = "") -> DGraph:
    """``graph`` without its dead intermediates, and a note in ``graph.notes`` naming them
    (the same graph, changed in place; unchanged when it has none). No vertex left uses a
    dead one, so nothing else changes.

    >>> g = DGraph()
    >>> g.add_vertex("x", "input"); g.add_vertex("v", "intermediate", "sin(x)")
    >>> g.add_vertex("y", "output", "2*x")
    >>> g.add_edge("x", "v"); g.add_edge("x", "y")
    >>> h = drop_dead(g)
    >>> h.intermediates, h.notes
    ([], ['dead code dropped: 1 vertex no output depends on (v)'])
    """
    dead = dead_vertices(graph)
    if dead:
        graph._remove_vertices(dead)
        graph.notes.append(f"{where}: {dead_note(dead)}" if where else dead_note(dead))
    return graph


def fold_passive(graph: DGraph) -> DGraph:
    """``graph`` without its passive intermediates, their values substituted where used;
    the same graph when it has none.

    >>> g = DGraph()
    >>> g.add_vertex("x", "input")
    >>> g.add_vertex("c", "intermediate", sympy.pi / 2)
    >>> g.add_vertex("y", "output", "c*x")
    >>> g.add_edge("x", "y"); g.add_edge("c", "y")
    >>> h = fold_passive(g)
    >>> h.intermediates, h.expr("y"), h.notes
    ([], pi*x/2, ['c: no input reaches it; its value pi/2 is folded into y'])
    """
    passive = passive_vertices(graph)
    if not passive:
        return graph
    values: dict[str, sympy.Expr | None] = {}
    for v in passive:
        expr = graph.expr(v)
        preds = graph.predecessors(v)
        known = expr is not None and all(values[u] is not None for u in preds)
        values[v] = expr.xreplace(_values(preds, values)) if known else None
    folded = DGraph(graph.name)
    folded.notes = list(graph.notes)
    for p in graph.parameters:
        folded.add_parameter(p)
    users: dict[str, list[str]] = {v: [] for v in passive}
    for v in graph.order():
        if v in values and graph.role(v) == "intermediate":
            continue
        expr = graph.expr(v)
        inner = [u for u in graph.predecessors(v) if u in values]
        for u in inner:
            users[u].append(v)
        if expr is not None:
            expr = _substitute(expr, inner, values, f"vertex {v!r}")
        folded.add_vertex(v, graph.role(v), expr)
    for u, v in graph.edges():
        if u not in values:
            label = graph.given_partial(u, v)
            inner = [w for w in graph.predecessors(v) if w in values]
            if label is not None:
                label = _substitute(label, inner, values, f"edge {u} -> {v}")
            folded.add_edge(u, v, label)
    for v in passive:
        if graph.role(v) == "intermediate":
            folded.notes.append(_note(v, values[v], users[v]))
    if graph.solved:
        folded.solve_for(graph.solved)
    return folded


def _note(v: str, value: sympy.Expr | None, users: list[str]) -> str:
    """What folding the passive ``v`` did, as a sentence.

    >>> _note("c", sympy.pi, ["y", "z"])
    'c: no input reaches it; its value pi is folded into y, z'
    >>> _note("v5", None, ["v25", "v20"])
    'v5: no input reaches it; v25, v20 use it as a constant of unknown value'
    """
    head = f"{v}: no input reaches it"
    if not users:
        return f"{head}; it is folded into the constants that use it"
    names = ", ".join(users)
    if value is None:
        verb = "uses" if len(users) == 1 else "use"
        return f"{head}; {names} {verb} it as a constant of unknown value"
    return f"{head}; its value {value} is folded into {names}"


def _values(names: list[str], values: dict[str, sympy.Expr | None]) -> dict:
    return {vertex_symbol(u): values[u] for u in names}


def _substitute(
    expr: sympy.Expr, passive: list[str], values: dict[str, sympy.Expr | None], where: str
) -> sympy.Expr:
    """``expr`` with the passive values it uses substituted; refuses an unknown one."""
    for u in passive:
        if values[u] is None and vertex_symbol(u) in expr.free_symbols:
            raise GraphError(
                f"{where} uses {u!r}, which no input reaches and which has no expression"
            )
    return expr.xreplace({s: v for s, v in _values(passive, values).items() if v is not None})


def live_part(graph: DGraph) -> DGraph:
    """The vertices of ``graph`` an input reaches and that reach an output, as a valid
    tensor graph: a vertex left out is folded into every operation that reads it (a nested
    operation, no derivative through it)."""
    g = graph.nx
    order = graph.order()
    reached = set(graph.inputs)
    for v in order:
        if any(u in reached for u in g.predecessors(v)):
            reached.add(v)
    useful = set(graph.outputs)
    for v in reversed(order):
        if any(w in useful for w in g.successors(v)):
            useful.add(v)
    live = reached & useful
    folded: dict[str, ArrayOp] = {}
    part = DGraph(graph.name)
    for v in order:
        op = graph.op(v)
        if op is not None:
            operands = tuple(folded.get(x, x) if isinstance(x, str) else x for x in op.operands)
            op = ArrayOp(op.primitive, operands, op.params, op.shape)
        if graph.role(v) == "input" or v in live:
            part.add_array_vertex(v, graph.role(v), graph.shape(v), op)
        else:
            folded[v] = op
    return part
