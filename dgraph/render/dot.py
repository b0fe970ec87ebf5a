"""Plain graphviz drawings of differentiation graphs (DOT, SVG, PDF, PNG).

Inputs are drawn as boxes, outputs as double circles, intermediates as circles; edges are
labeled with the local partial when it is known, else with the edge's symbol. Data-flow
direction puts inputs at the bottom (Naumann's c-graphs); dependence direction puts the
outputs (Zhou's roots) at the top with edges pointing down to the inputs.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import graphviz
import sympy

from ..core.graph import DGraph
from ..elimination.structure import iter_bits
from ..errors import DGraphError

__all__ = ["FORMATS", "metagraph_dot", "render", "render_svg", "to_dot"]

FORMATS = (".svg", ".pdf", ".png", ".dot")
_SHAPES = {"input": "box", "intermediate": "circle", "output": "doublecircle"}
_FILL = {"input": "#e8e8e8", "intermediate": "white", "output": "#d0d0d0"}


def _edge_label(graph: DGraph, u: str, v: str) -> str:
    partial = graph.partial(u, v)
    text = sympy.sstr(partial) if partial is not None else str(graph.symbol(u, v))
    return text if len(text) <= 24 else text[:21] + "..."


def to_dot(
    graph: DGraph,
    direction: str = "dataflow",
    labels: bool = True,
    edge_labels: dict[tuple[str, str], object] | None = None,
    regions: list | None = None,
) -> graphviz.Digraph:
    """The graph as a graphviz ``Digraph`` in ``dataflow`` or ``dependence`` direction;
    ``edge_labels`` overrides the label of some edges (e.g. the symbols an expression
    graph's edges stand for); ``regions`` (objects with ``name`` and ``vertices``, e.g.
    :mod:`dgraph.dominance.regions`) are drawn as dashed clusters, the first region
    claiming a vertex keeping it."""
    if direction not in ("dataflow", "dependence"):
        raise DGraphError(f"unknown direction {direction!r}: use dataflow or dependence")
    dot = graphviz.Digraph(graph.name or "dgraph")
    dot.attr(rankdir="BT" if direction == "dataflow" else "TB", fontname="Times-Roman")
    dot.attr("node", fontname="Times-Roman", style="filled", fixedsize="false", margin="0.05")
    dot.attr("edge", fontname="Times-Roman", fontsize="10", arrowsize="0.7")
    placed: set[str] = set()
    for k, region in enumerate(regions or []):
        members = [v for v in graph.order() if v in region.vertices and v not in placed]
        with dot.subgraph(name=f"cluster_{k}") as cluster:
            cluster.attr(label=region.name, style="dashed", color="gray40", fontsize="10")
            for v in members:
                role = graph.role(v)
                cluster.node(v, v, shape=_SHAPES[role], fillcolor=_FILL[role])
        placed.update(members)
    for v in graph.order():
        if v in placed:
            continue
        role = graph.role(v)
        dot.node(v, v, shape=_SHAPES[role], fillcolor=_FILL[role])
    for rank in ("input", "output"):
        with dot.subgraph() as same:
            same.attr(rank="min" if (rank == "input") == (direction == "dataflow") else "max")
            for v in graph.inputs if rank == "input" else graph.outputs:
                if v not in placed:  # a cluster keeps its own vertices
                    same.node(v)
    for u, v in graph.edges():
        label = _edge_label(graph, u, v) if labels else ""
        if edge_labels and (u, v) in edge_labels:
            label = str(edge_labels[u, v])
        if direction == "dataflow":
            dot.edge(u, v, label=label)
        else:
            dot.edge(v, u, label=label)
    return dot


def _need_dot() -> None:
    if shutil.which("dot") is None:
        raise DGraphError("graphviz 'dot' not found; install it (Debian: apt-get install graphviz)")


def render_svg(
    graph: DGraph,
    direction: str = "dataflow",
    edge_labels: dict[tuple[str, str], object] | None = None,
) -> str:
    """SVG text of the drawing (used for notebook display)."""
    _need_dot()
    return to_dot(graph, direction, edge_labels=edge_labels).pipe(format="svg").decode()


def render(
    graph: DGraph,
    path: str | Path,
    direction: str = "dataflow",
    edge_labels: dict[tuple[str, str], object] | None = None,
) -> Path:
    """Write the drawing to ``path``; the format follows the suffix (.svg .pdf .png .dot)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise DGraphError(f"{path}: unknown format {suffix or '(none)'}; use {' '.join(FORMATS)}")
    dot = to_dot(graph, direction, edge_labels=edge_labels)
    path.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".dot":
        path.write_text(dot.source)
    else:
        _need_dot()
        if suffix == ".png":
            dot.attr(dpi="150")
        path.write_bytes(dot.pipe(format=suffix[1:]))
    return path


def metagraph_dot(meta) -> graphviz.Digraph:
    """A metagraph (from :func:`dgraph.elimination.metagraph.metagraph`) as a drawing:
    each stage lists its intermediate edges, each arc its elimination and cost."""
    names = meta.graph["names"]
    dot = graphviz.Digraph("metagraph")
    dot.attr(rankdir="TB", fontname="Times-Roman", nodesep="0.25", ranksep="0.35")
    dot.attr("node", shape="box", fontname="Times-Roman", fontsize="9", style="rounded")
    dot.attr("edge", fontname="Times-Roman", fontsize="8", arrowsize="0.6")
    ids = {state: f"s{k}" for k, state in enumerate(meta.nodes)}
    for state, final in meta.nodes(data="final"):
        edges = [f"{names[i]}→{names[j]}" for i, s in enumerate(state) for j in iter_bits(s)]
        label = "\\n".join(", ".join(edges[k : k + 3]) for k in range(0, len(edges), 3))
        attrs = {"peripheries": "2"} if final or state == meta.graph["start"] else {}
        dot.node(ids[state], label, **attrs)
    for a, b, data in meta.edges(data=True):
        kinds = sorted({op[0] for op, _ in data["moves"]})
        dot.edge(ids[a], ids[b], label=f"{','.join(kinds)} {data['cost']}")
    return dot
