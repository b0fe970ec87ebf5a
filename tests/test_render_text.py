"""The render path's own text: DOT written directly (:func:`dgraph.render.scene.dot_lines`)
is what graphviz's ``Digraph`` methods write (the method it replaces, kept here as a
reference)."""

from __future__ import annotations

import warnings

import graphviz
import pytest

from dgraph.frontends import bundled
from dgraph.render.drawing import draw
from dgraph.render.labels import text_label
from dgraph.render.scene import (
    _NODE_MARGIN,
    Cluster,
    Scene,
    _graph_attrs,
    _html,
    _label,
    _node_attrs,
    dot_id,
    inline_labels,
    to_graphviz,
)
from dgraph.render.stepviews import steps
from dgraph.render.styles import get_style


def _digraph(scene: Scene, sized: bool = False) -> graphviz.Digraph:
    """The scene built with graphviz's ``Digraph`` methods (to_graphviz before it wrote
    its lines itself)."""
    scene = inline_labels(scene)
    style = scene.style
    dot = graphviz.Digraph(scene.name or "dgraph", engine="neato" if scene.pinned else "dot")
    dot.attr(**_graph_attrs(scene, sized))
    dot.attr(
        "node",
        fontname=style.font,
        fontsize=str(style.fontsize),
        style="filled",
        margin=_NODE_MARGIN,
        penwidth="1",
    )
    dot.attr(
        "edge",
        fontname=style.font,
        fontsize=str(style.edge_fontsize),
        arrowsize="0.7",
        color=style.edge_color,
    )
    children: dict = {}
    for c in scene.clusters.values():
        children.setdefault(c.parent, []).append(c)
    members: dict = {}
    for n in scene.nodes.values():
        members.setdefault(n.cluster if n.cluster in scene.clusters else None, []).append(n)

    def fill(g, cluster):
        for c in children.get(cluster, []):
            with g.subgraph(name=f"cluster_{c.id}") as sub:
                attrs = {
                    "style": "dashed",
                    "color": "#666666",
                    "fontsize": str(style.edge_fontsize),
                }
                attrs["label"] = _label(c.label, float(attrs["fontsize"]) if sized else None)
                attrs.update(c.attrs)
                sub.attr(**attrs)
                fill(sub, c.id)
        for n in members.get(cluster, []):
            g.node(n.id, **_node_attrs(scene, n, sized))

    fill(dot, None)
    for rank, ids in scene.ranks:
        with dot.subgraph() as same:
            same.attr(rank=rank)
            for v in ids:
                same.node(v)
    for e in scene.edges:
        attrs = dict(e.attrs)
        if e.label is not None:
            size = float(attrs.get("fontsize", style.edge_fontsize))
            attrs["label"] = _html(e.label, size if sized else None)
        dot.edge(e.tail, e.head, **attrs)
    return dot


def _awkward_scene() -> Scene:
    """Names DOT must quote (keywords, spaces, quotes, ports, non-ASCII, numbers), nested
    clusters, an empty one, rank groups, labelled and bare edges, a title."""
    s = Scene("a scene", get_style("paper"), title=text_label('T <x> & "q"'))
    s.clusters["outer"] = Cluster("outer", text_label("outer"))
    s.clusters["in ner"] = Cluster("in ner", None, parent="outer", attrs={"color": "red"})
    s.clusters["empty"] = Cluster("empty", None)
    names = ["node", "a b", 'x"y', "é", "-1.5", "t1", "Graph", "v.2"]
    for k, name in enumerate(names):
        node = s.node(name, text_label(name), ("input", "intermediate", "output")[k % 3])
        node.cluster = ("outer", "in ner", None)[k % 3]
    s.node("p", text_label("p"), "note", tooltip='say "hi"', fontsize="9")
    s.edge("node", "a b", text_label("a→b"), color="#000000", penwidth="2.6")
    s.edge('x"y', "é", None, style="dashed")
    s.edge("-1.5", "p:ne", text_label("port"))
    s.edge("t1", "Graph", None)
    s.ranks.append(("same", ["node", "t1"]))
    s.ranks.append(("min", ["v.2"]))
    return s


@pytest.mark.parametrize("sized", [False, True])
def test_dot_text_is_what_digraph_methods_write(sized):
    scenes = [_awkward_scene()]
    for name in ("zhou_two_blocks.json", "naumann_discrepancy.json"):
        g = bundled(name)
        for view in ("graph", "line", "levels", "pages"):
            scenes.append(draw(g, view, highlight="chains,blocks", title="t").scene)
    scenes.append(steps(bundled("naumann_sin.trace"), "reverse").frames[1].drawing.scene)
    for scene in scenes:
        written, built = to_graphviz(scene, sized), _digraph(scene, sized)
        assert written.source == built.source
        assert (written.name, written.engine) == (built.name, built.engine)


def test_dot_id_quotes_as_graphviz_does():
    texts = [
        "t1",
        "-4.5",
        ".5",
        "1.",
        "<<I>x</I>>",
        "<a>\n",
        "label-a-b",
        "node",
        "NODE",
        "",
        'a"b',
        'a\\"b',
        "a b\n",
        "abc\n",
        "é",
        "1e5",
        "a\\lb",
        "#ffffff",
        "0.06,0.04",
    ]
    for text in texts:
        assert dot_id(text) == graphviz.quoting.quote(text), text
    with warnings.catch_warnings(record=True) as seen:  # DOT cannot read it: both warn
        warnings.simplefilter("always")
        assert dot_id("a\\") == graphviz.quoting.quote("a\\")
    assert len(seen) == 2
