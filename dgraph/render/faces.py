"""Drawings of line graphs under face elimination: each vertex a segment of the graph
(its span, and its label when it is short), each arc a face; faces about to be
eliminated or forming a circular dependency can be highlighted."""

from __future__ import annotations

from collections.abc import Iterable

import graphviz
import sympy

from ..faces.elimination import FaceState

__all__ = ["face_state_dot"]


def _label(state: FaceState, v: int) -> str:
    if state.is_terminal(v):
        return state.span[v][0] if state.span[v][1] == "⊖" else state.span[v][1]
    name = state.name[v].replace("->", "→")
    value = state.label.get(v)
    text = sympy.sstr(value) if value is not None else ""
    return name if not text or len(text) > 28 else f"{name}\n{text}"


def face_state_dot(
    state: FaceState, highlight: Iterable[tuple[str, str]] = (), title: str = ""
) -> graphviz.Digraph:
    """The current line graph: ⊕/⊖ vertices as small boxes, intermediate faces as arcs,
    faces named in ``highlight`` (pairs of vertex names) drawn bold."""
    marked = set(highlight)
    dot = graphviz.Digraph("line_graph")
    dot.attr(rankdir="BT", fontname="Times-Roman", label=title, labelloc="t")
    dot.attr("node", fontname="Times-Roman", fontsize="11", style="filled", fillcolor="white")
    dot.attr("edge", arrowsize="0.6", color="gray30")
    for v in sorted(state.succ):
        terminal = state.is_terminal(v)
        dot.node(
            str(v),
            _label(state, v),
            shape="box" if terminal else "ellipse",
            fillcolor="#d8d8d8" if terminal else "white",
        )
    for i in sorted(state.succ):
        for j in sorted(state.succ[i]):
            bold = (state.name[i], state.name[j]) in marked
            intermediate = not state.is_terminal(i) and not state.is_terminal(j)
            dot.edge(
                str(i),
                str(j),
                penwidth="2.4" if bold else "1",
                color="black" if bold else ("gray30" if intermediate else "gray70"),
                style="solid" if intermediate else "dashed",
            )
    return dot
