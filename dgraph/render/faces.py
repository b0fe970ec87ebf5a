"""Drawings of line graphs under face elimination: each vertex a segment of the graph
(its span, and its label when it is short), each arc a face; faces about to be
eliminated or forming a circular dependency can be highlighted."""

from __future__ import annotations

from collections.abc import Iterable

import graphviz

from ..faces.elimination import FaceState
from .scene import to_graphviz
from .styles import Style, get_style
from .views import line_scene

__all__ = ["face_state_dot"]


def face_state_dot(
    state: FaceState,
    highlight: Iterable[tuple[str, str]] = (),
    title: str = "",
    style: str | Style | None = None,
) -> graphviz.Digraph:
    """The current line graph: ⊕/⊖ vertices as gray boxes, intermediate faces as arcs,
    faces named in ``highlight`` (pairs of vertex names) drawn bold."""
    scene = line_scene(state, style=get_style(style), faces=highlight, title=title or None)
    return to_graphviz(scene)
