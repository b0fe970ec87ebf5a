"""Graphviz drawings of differentiation graphs (DOT, SVG, PDF, PNG, TikZ): the functions
the rest of dgraph calls. They draw the ``graph`` view of :mod:`dgraph.render.views` in
the paper style; :func:`dgraph.render.drawing.draw` has every view and option.

Inputs are drawn as boxes, outputs as double circles, intermediates as circles; edges are
labeled with the local partial when it is known, else with the edge's symbol. Data-flow
direction puts inputs at the bottom (Naumann's c-graphs); dependence direction puts the
outputs (Zhou's roots) at the top with edges pointing down to the inputs.
"""

from __future__ import annotations

from pathlib import Path

import graphviz

from ..core.graph import DGraph
from ..elimination.structure import iter_bits
from .drawing import FORMATS, Drawing
from .scene import to_graphviz
from .styles import Style, get_style
from .views import graph_scene

__all__ = ["FORMATS", "metagraph_dot", "render", "render_svg", "to_dot"]


def _drawing(
    graph: DGraph,
    direction: str,
    labels: bool = True,
    edge_labels: dict[tuple[str, str], object] | None = None,
    regions: list | None = None,
    style: str | Style | None = None,
) -> Drawing:
    scene = graph_scene(
        graph,
        direction,
        style=get_style(style),
        edge_labels=edge_labels,
        regions=regions or (),
        labels=labels,
    )
    return Drawing(scene)


def to_dot(
    graph: DGraph,
    direction: str = "dataflow",
    labels: bool = True,
    edge_labels: dict[tuple[str, str], object] | None = None,
    regions: list | None = None,
    style: str | Style | None = None,
) -> graphviz.Digraph:
    """The graph as a graphviz ``Digraph`` in ``dataflow`` or ``dependence`` direction;
    ``edge_labels`` overrides the label of some edges (e.g. the symbols an expression
    graph's edges stand for); ``regions`` (objects with ``name`` and ``vertices``, e.g.
    :mod:`dgraph.render.regions`) are drawn as clusters with colored edges."""
    return _drawing(graph, direction, labels, edge_labels, regions, style).dot


def render_svg(
    graph: DGraph,
    direction: str = "dataflow",
    edge_labels: dict[tuple[str, str], object] | None = None,
    style: str | Style | None = None,
) -> str:
    """SVG text of the drawing (used for notebook display)."""
    return _drawing(graph, direction, edge_labels=edge_labels, style=style).svg()


def render(
    graph: DGraph,
    path: str | Path,
    direction: str = "dataflow",
    edge_labels: dict[tuple[str, str], object] | None = None,
    style: str | Style | None = None,
) -> Path:
    """Write the drawing to ``path``; the format follows the suffix (.svg .pdf .png .dot
    .tex)."""
    return _drawing(graph, direction, edge_labels=edge_labels, style=style).save(path)


def metagraph_dot(meta, style: str | Style | None = None) -> graphviz.Digraph:
    """A metagraph (from :func:`dgraph.elimination.metagraph.metagraph`) as a drawing:
    each stage lists its intermediate edges, each arc its elimination and cost."""
    from .labels import text_label
    from .scene import Scene

    chosen = get_style(style)
    names = meta.graph["names"]
    scene = Scene("metagraph", chosen, "TB")
    scene.attrs.update(nodesep="0.25", ranksep="0.35")
    ids = {state: f"s{k}" for k, state in enumerate(meta.nodes)}
    for state, final in meta.nodes(data="final"):
        edges = [f"{names[i]}→{names[j]}" for i, s in enumerate(state) for j in iter_bits(s)]
        text = "\n".join(", ".join(edges[k : k + 3]) for k in range(0, len(edges), 3))
        attrs = {"style": "rounded", "fontsize": "9"}
        if final or state == meta.graph["start"]:
            attrs["peripheries"] = "2"
        scene.node(ids[state], text_label(text), "stage", **attrs)
    for a, b, data in meta.edges(data=True):
        kinds = sorted({op[0] for op, _ in data["moves"]})
        scene.edge(ids[a], ids[b], text_label(f"{','.join(kinds)} {data['cost']}"), fontsize="8")
    return to_graphviz(scene)
