"""Drawings of the graphs inside regions: each branch of a ``cond`` / ``switch``, the
body of a loop.

A region vertex is drawn in its graph as one vertex whose edges are labelled with the
region's blocks ("taken branch of 2 (6 | 7 vertices)", "chain of 50 steps"); the graphs
it holds are drawn here, each on its own, so that both branches of a cond are seen.
"""

from __future__ import annotations

from typing import Any

from ..core.graph import DGraph
from ..core.regions import regions_of
from .drawing import Drawing, draw

__all__ = ["draw_regions"]


def draw_regions(graph: DGraph, **options: Any) -> dict[str, Drawing]:
    """A drawing (:func:`~dgraph.render.draw`, with ``options``) of every graph inside
    ``graph``'s regions, keyed ``"<vertex>: branch <b>"`` (a cond) or ``"<vertex>: body"``
    (a loop); each region once, under its first output vertex."""
    out: dict[str, Drawing] = {}
    seen: set[int] = set()
    for v, region in regions_of(graph):
        if id(region) in seen:
            continue
        seen.add(id(region))
        if region.kind == "cond":
            for b, body in enumerate(region.branches):
                out[f"{v}: branch {b}"] = draw(body.graph, **options)
        else:
            out[f"{v}: body"] = draw(region.body.graph, **options)
    return out
