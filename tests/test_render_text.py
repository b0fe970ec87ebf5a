"""The render path's own text: DOT written directly (:func:`dgraph.render.scene.dot_lines`)
is what graphviz's ``Digraph`` methods write, the step viewers' shared SVG groups each
frame's elements as parsing and serializing every element did (the methods they replace,
kept here as references), and labels printed once are those printed afresh."""

from __future__ import annotations

import shutil
import warnings
import xml.etree.ElementTree as ET

import graphviz
import pytest
import sympy

from dgraph.frontends import bundled
from dgraph.methods import accumulate
from dgraph.render.drawing import draw
from dgraph.render.labels import Label, SymbolNames, _printed, expr_label, text_label
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
from dgraph.render.stepviews import graph_frames, steps
from dgraph.render.styles import get_style
from dgraph.render.viewer import (
    SVG_NS,
    AnimatedSVG,
    _outline,
    _pt,
    _without_id,
    shared_svg,
)
from dgraph.render.widget import start_layout

from .test_render_tensor import _layer

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz dot not installed")


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


def _reference_versions(frames, rows: bool = False) -> list[tuple[str, str]]:
    """What each element of the frames' graph groups is, version by version, found by
    parsing every frame whole and serializing each element (the method shared_svg
    replaces): ("all", text) for one shown in every frame, else ("0 3 4", text) for each
    version; then the expression set's rows (``rows``) alike."""
    from dgraph.render.viewer import _math_rows, _tspans

    pieces = [ET.fromstring(f.drawing.pipe("svg")) for f in frames]
    items: dict = {}
    for k, piece in enumerate(pieces):
        loose = 0
        for child in piece.find(f"{{{SVG_NS}}}g"):
            child.attrib.pop("id", None)
            title = child.find(f"{{{SVG_NS}}}title")
            key = ((child.get("class"), title.text)) if title is not None else ("loose", loose)
            loose += title is None
            items.setdefault(key, []).append((k, child))
    graph_h = max(_pt(p.get("height")) for p in pieces)
    math = [_math_rows(f) for f in frames] if rows else []
    for i in range(max(map(len, math), default=0)):
        versions = []
        for k, frame_rows in enumerate(math):
            if i < len(frame_rows):
                y = f"{graph_h + 16.0 * (i + 1):.1f}"
                text = ET.Element(f"{{{SVG_NS}}}text", {"x": "8", "y": y})
                _tspans(text, f"{frame_rows[i][0]} = {frame_rows[i][1]}")
                versions.append((k, text))
        items[("row", i)] = versions
    out = []
    for versions in items.values():
        groups: dict = {}
        for k, element in versions:
            groups.setdefault(ET.tostring(element, encoding="unicode"), []).append(str(k))
        if len(groups) == 1 and len(versions) == len(frames):
            out.append(("all", *groups))
        else:
            out += [(" ".join(shown), text) for text, shown in groups.items()]
    return out


def _versions(shared) -> list[tuple[str, str]]:
    """The same list read from a shared SVG: its graph group's children, then its rows."""
    _, holder, *rows = shared.root
    out = []
    for child in [*holder, *rows]:
        shown = child.get("data-frames")
        element = child[0] if shown is not None else child
        out.append((shown or "all", ET.tostring(element, encoding="unicode")))
    return out


@needs_dot
@pytest.mark.parametrize(
    ("name", "method"),
    [("naumann_sin.trace", "reverse"), ("zhou_two_blocks.json", "markowitz")],
)
def test_shared_svg_groups_what_serializing_every_element_grouped(name, method):
    frames = steps(bundled(name), method).frames
    shared = shared_svg(frames)
    assert _versions(shared) == _reference_versions(frames)
    assert 0 < len(shared.varying) < len(_versions(shared))  # some change, some do not
    assert _versions(shared_svg(frames, rows=True)) == _reference_versions(frames, rows=True)
    animated = AnimatedSVG(frames).svg()
    assert animated.count("<set ") >= len(shared.varying)


def test_outline_finds_the_graph_groups_children_and_their_tails():
    """Comments and declarations skipped, a '/>' inside a quoted value, a self-closing
    child, nested groups, a closing tag inside a comment and one with a space."""
    text = (
        '<?xml version="1.0"?>\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN"\n "x.dtd">\n'
        "<!-- <g> in a comment -->\n"
        f'<svg width="10pt" height="5pt" xmlns="{SVG_NS}">\n'
        '<g id="graph0" class="graph" transform="scale(1)">\n'
        "<title>f</title>\n"
        '<polygon fill="white" points="0,0"/>\n'
        "<!-- a -->\n"
        '<g class="node" id="node1"><title>a&gt;b</title><g id="a_x"><a title="1/>0">t</a></g></g>'
        " &amp; \n"
        '<g class="edge" id="edge1"><!-- </g> --><title>e</title></g>\n'
        '<g class="node" id="node2"><title>s</title></g >\n'
        "</g>\n</svg>\n"
    )
    outline = _outline(text)
    assert outline.root.startswith("<svg ") and 'id="graph0"' in outline.group
    pieces = [text[a:c] for a, _, c, _ in outline.children]
    assert pieces[0] == "<title>f</title>"
    assert pieces[1] == '<polygon fill="white" points="0,0"/>'
    assert pieces[2].startswith('<g class="node"') and pieces[2].endswith("</a></g></g>")
    assert pieces[3] == '<g class="edge" id="edge1"><!-- </g> --><title>e</title></g>'
    assert pieces[4] == '<g class="node" id="node2"><title>s</title></g >'
    tails = [text[c:d] for _, _, c, d in outline.children]
    assert tails == ["\n", "\n<!-- a -->\n", " &amp; \n", "\n", "\n"]


def test_ids_dropped_wherever_they_stand():
    assert _without_id('<g id="node1" class="node">') == '<g class="node">'
    assert _without_id('<g class="node" id="node1">') == '<g class="node">'
    assert _without_id('<g data-id="3" id="x"/>') == '<g data-id="3"/>'
    assert _without_id("<g class='a id=\"b\"' id='c'>") == "<g class='a id=\"b\"'>"
    assert _without_id('<polygon fill="white"/>') == '<polygon fill="white"/>'


def test_labels_printed_once_per_expression_and_the_names_of_its_symbols():
    """expr_label remembers what it printed, keyed by the expression (sympy's == is
    structural) and by the names of its symbols alone: the same as printing afresh."""
    x, d, r = sympy.symbols("x d_y_x r1")
    near = [x + 2, x + sympy.Float(2.0), x + sympy.Float("2.0", 30)]  # equal hashes
    assert [expr_label(e).text for e in near] == ["x + 2", "x + 2.0", "x + 2.0"]
    assert [expr_label(e).tex for e in near] == [
        _printed(e, SymbolNames({}, {}), True, 0).tex for e in near
    ]
    names = SymbolNames({d: "<I>a</I>"}, {d: "a"})
    assert expr_label(d * x, names).html == "<I>a</I>·<I>x</I>"
    names.html[d], names.tex[d] = "<I>b</I>", "b"  # names change (name_edge_symbols)
    assert expr_label(d * x, names) == Label("d_y_x*x", "<I>b</I>·<I>x</I>", "b x")
    assert expr_label(d * x, names, math=False).html == "d_y_x*x"
    other = SymbolNames({r: "<I>r</I><SUB>1</SUB>", x: "ξ"}, {})  # x named, r1 unused
    e = d * x + sympy.sin(x) ** 2 + 3
    for given, limit in ((names, 0), (other, 0), (other, 8), (names, 8)):
        assert expr_label(e, given, True, limit) == _printed(e, given, True, limit)


@pytest.mark.parametrize(
    ("graph", "method"),
    [
        (lambda: bundled("naumann_sin.trace"), "reverse"),
        (lambda: bundled("zhou_two_blocks.json"), "markowitz"),
        (lambda: _layer(), "reverse"),  # a tensor graph: the legend has every frame's blocks
        (lambda: _layer(), "forward"),
    ],
)
def test_the_last_frame_alone_is_the_last_of_all_frames(graph, method):
    """graph_frames(last=True), the explorer's drawing of its state after its moves: the
    same frame as the last of every frame, whether on its own layout or on the start's."""
    g = graph()
    es = accumulate(g, method)
    style = get_style("paper")
    fields = ("title", "references", "entries", "mults", "price", "blocks")
    for layout in (None, start_layout(g)):
        every = graph_frames(g, method, "dataflow", style, list(es.steps), layout)
        (alone,) = graph_frames(g, method, "dataflow", style, list(es.steps), layout, last=True)
        assert [getattr(alone, f) for f in fields] == [getattr(every[-1], f) for f in fields]
        assert alone.pinning.scenes == every[-1].pinning.scenes[-1:]
        if layout is not None:  # on the start's layout: drawn alike (else laid out alone)
            assert alone.drawing.source == every[-1].drawing.source
