"""What a drawing shows, independent of the output format: nodes, edges, nested clusters
and rank constraints, each with a :class:`~dgraph.render.labels.Label` in every form.

Views (:mod:`dgraph.render.views`) build a :class:`Scene`; :func:`to_graphviz` lays it out
with graphviz's ``dot`` (DOT, SVG, PDF, PNG) and :mod:`dgraph.render.tikz` writes the same
layout as TikZ.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import graphviz

from .labels import Label
from .styles import Style

__all__ = ["Cluster", "Edge", "Node", "Scene", "inline_labels", "to_graphviz"]

_SHAPES = {
    "input": "box",
    "intermediate": "circle",
    "output": "doublecircle",
    "copy": "circle",
    "terminal": "box",
    "segment": "ellipse",
    "note": "plaintext",
    "stage": "box",
    "ghost": "circle",
    "label": "plaintext",
    "anchor": "point",
}


@dataclass
class Node:
    """A vertex of the drawing; ``kind`` picks its shape and fill from the style."""

    id: str
    label: Label
    kind: str = "intermediate"
    cluster: str | None = None
    attrs: dict[str, str] = field(default_factory=dict)


@dataclass
class Edge:
    """An arc as drawn (``tail`` to ``head``); ``attrs`` are graphviz edge attributes."""

    tail: str
    head: str
    label: Label | None = None
    attrs: dict[str, str] = field(default_factory=dict)


@dataclass
class Cluster:
    """A box around some nodes (``parent``: the cluster it sits in)."""

    id: str
    label: Label | None
    parent: str | None = None
    attrs: dict[str, str] = field(default_factory=dict)


@dataclass
class Scene:
    """A drawing: ``rankdir`` TB (top to bottom) or BT, ``ranks`` lists groups of nodes
    drawn on one rank (``min``/``max``/``same``)."""

    name: str
    style: Style
    rankdir: str = "TB"
    title: Label | None = None
    nodes: dict[str, Node] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    clusters: dict[str, Cluster] = field(default_factory=dict)
    ranks: list[tuple[str, list[str]]] = field(default_factory=list)
    attrs: dict[str, str] = field(default_factory=dict)
    # highlighted regions named under the drawing: (color, tint, pattern) and a name;
    # clusters carry no labels of their own, which edges entering them would cross
    legend: list[tuple[tuple[str, str, str], Label]] = field(default_factory=list)

    def node(self, id: str, label: Label, kind: str = "intermediate", **attrs: str) -> Node:
        node = Node(id, label, kind, attrs=dict(attrs))
        self.nodes[id] = node
        return node

    def edge(self, tail: str, head: str, label: Label | None = None, **attrs: str) -> Edge:
        edge = Edge(tail, head, label, dict(attrs))
        self.edges.append(edge)
        return edge


def _common_cluster(scene: Scene, a: str, b: str) -> str | None:
    """The innermost cluster holding both nodes (None: the top level)."""

    def chain(node_id: str) -> list[str]:
        node = scene.nodes.get(node_id)
        out, c = [], node.cluster if node else None
        while c is not None and c in scene.clusters:
            out.append(c)
            c = scene.clusters[c].parent
        return out

    above_b = set(chain(b))
    return next((c for c in chain(a) if c in above_b), None)


def inline_labels(scene: Scene) -> Scene:
    """The scene with every edge label as a node of its own, the edge running into it and
    on: dot then routes other edges around labels as around any node, so no edge crosses
    a label (dot's own edge labels sit beside their edge and other edges may cross them).
    A label node sits in the innermost cluster holding both ends."""
    if not scene.style.inline_labels or not any(e.label for e in scene.edges):
        return scene
    out = replace(scene, nodes=dict(scene.nodes), edges=[])
    for k, e in enumerate(scene.edges):
        if e.label is None:
            out.edges.append(e)
            continue
        cluster = _common_cluster(scene, e.tail, e.head)
        node = out.node(
            f"label-{k}",
            e.label,
            "label",
            fontsize=str(scene.style.edge_fontsize),
            width="0",
            height="0",
            margin="0.02,0.01",
        )
        node.cluster = cluster
        out.edge(e.tail, node.id, None, **{**e.attrs, "arrowhead": "none"})
        out.edge(node.id, e.head, None, **e.attrs)
    return out


def _html(label: Label) -> str:
    return f"<{label.html}>"


def _label(label: Label | None, math: bool) -> str:
    if label is None:
        return ""
    return _html(label) if math else label.text


def _node_attrs(scene: Scene, node: Node) -> dict[str, str]:
    style = scene.style
    attrs = {
        "label": _label(node.label, True),
        "shape": _SHAPES.get(node.kind, "ellipse"),
        "fillcolor": style.fills.get(node.kind, "#ffffff"),
    }
    if node.kind == "copy":
        attrs.update(style="filled,dashed", fontcolor="#444444")
    elif node.kind in ("note", "label"):
        attrs.update(style="", margin="0")
    elif node.kind == "anchor":  # holds a rank in place; not drawn
        attrs.update(style="invis", width="0", height="0", label="")
    elif node.kind == "ghost":  # an eliminated vertex, kept so the layout stays put
        attrs.update(style="dotted", color="#aaaaaa", fontcolor="#aaaaaa")
    attrs.update(node.attrs)
    return attrs


def _graph_attrs(scene: Scene) -> dict[str, str]:
    style = scene.style
    attrs = {
        "rankdir": scene.rankdir,
        "fontname": style.font,
        "fontsize": str(style.fontsize),
        "nodesep": str(style.nodesep),
        "ranksep": str(style.ranksep),
        "pad": "0.1",
        "newrank": "true",
    }
    if len(scene.edges) > style.large:
        # dot's crossing minimization and network simplex dominate on big graphs; these
        # bounds keep a 2,000-edge drawing in seconds (see benchmarks/render.py)
        attrs.update(mclimit="0.2", nslimit="0.5", nslimit1="2")
    if scene.title is not None or scene.legend:
        attrs.update(
            label=f"<{_caption_html(scene)}>",
            labelloc="t" if scene.title is not None else "b",
            fontsize=str(style.fontsize + (1 if scene.title is not None else 0)),
        )
    attrs.update(scene.attrs)
    return attrs


def _caption_html(scene: Scene) -> str:
    """The title and the legend as one HTML-like table (graphviz has one graph label)."""
    rows = []
    if scene.title is not None:
        rows.append(f'<TR><TD COLSPAN="2">{scene.title.html}</TD></TR>')
    size = scene.style.edge_fontsize
    for (color, tint, pattern), label in scene.legend:
        rows.append(
            f'<TR><TD BGCOLOR="{tint}" COLOR="{color}" BORDER="2" STYLE="{pattern}" '
            'WIDTH="22" HEIGHT="11" FIXEDSIZE="TRUE"></TD>'
            f'<TD ALIGN="LEFT"><FONT POINT-SIZE="{size}">{label.html}</FONT></TD></TR>'
        )
    return f'<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="2">{"".join(rows)}</TABLE>'


def to_graphviz(scene: Scene) -> graphviz.Digraph:
    """The scene as a graphviz ``Digraph``, labels as HTML-like labels."""
    scene = inline_labels(scene)
    style = scene.style
    dot = graphviz.Digraph(scene.name or "dgraph")
    dot.attr(**_graph_attrs(scene))
    dot.attr(
        "node",
        fontname=style.font,
        fontsize=str(style.fontsize),
        style="filled",
        margin="0.06,0.04",
        penwidth="1",
    )
    dot.attr(
        "edge",
        fontname=style.font,
        fontsize=str(style.edge_fontsize),
        arrowsize="0.7",
        color=style.edge_color,
    )
    children: dict[str | None, list[Cluster]] = {}
    for c in scene.clusters.values():
        children.setdefault(c.parent, []).append(c)
    members: dict[str | None, list[Node]] = {}
    for n in scene.nodes.values():
        members.setdefault(n.cluster if n.cluster in scene.clusters else None, []).append(n)

    def fill(g: graphviz.Digraph, cluster: str | None) -> None:
        for c in children.get(cluster, []):
            with g.subgraph(name=f"cluster_{c.id}") as sub:
                attrs = {
                    "style": "dashed",
                    "color": "#666666",
                    "fontsize": str(style.edge_fontsize),
                }
                # a cluster inherits the graph's label (title, legend) unless given one
                attrs["label"] = _html(c.label) if c.label is not None else ""
                attrs.update(c.attrs)
                sub.attr(**attrs)
                fill(sub, c.id)
        for n in members.get(cluster, []):
            g.node(n.id, **_node_attrs(scene, n))

    fill(dot, None)
    for rank, ids in scene.ranks:
        with dot.subgraph() as same:
            same.attr(rank=rank)
            for v in ids:
                same.node(v)
    for e in scene.edges:
        attrs = dict(e.attrs)
        if e.label is not None:
            attrs["label"] = _html(e.label)
        dot.edge(e.tail, e.head, **attrs)
    return dot
