"""What a drawing shows, independent of the output format: nodes, edges, nested clusters
and rank constraints, each with a :class:`~dgraph.render.labels.Label` in every form.

Views (:mod:`dgraph.render.views`) build a :class:`Scene`; :func:`to_graphviz` lays it out
with graphviz's ``dot`` (DOT, SVG, PDF, PNG) and :mod:`dgraph.render.tikz` writes the same
layout as TikZ.
"""

from __future__ import annotations

import contextlib
import functools
import re
import signal
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

import graphviz

from ..errors import DGraphError
from .labels import Label
from .styles import Style

__all__ = [
    "SCRIPT_DROP",
    "SCRIPT_RISE",
    "SCRIPT_SCALE",
    "Cluster",
    "Edge",
    "Node",
    "Scene",
    "dot_id",
    "dot_lines",
    "graphviz_failures",
    "inline_labels",
    "place_scripts",
    "sized_scripts",
    "to_graphviz",
]

# Sub- and superscripts: their size and how far their baseline moves, relative to the size
# of the text around them (the proportions TeX uses for first-level scripts, roughly).
SCRIPT_SCALE = 0.7
SCRIPT_DROP = 0.3
SCRIPT_RISE = 0.4
# Glyph extents of a serif font above and below the baseline, relative to its size.
_ASCENT, _DESCENT = 0.72, 0.22

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
    # clusters carry no labels of their own, which edges entering them would cross. A key
    # with a fourth item, a line width, is a line sample (a tensor graph's block families)
    legend: list[tuple[tuple, Label]] = field(default_factory=list)
    # positions and routes given in node and edge attributes (dgraph.render.pinned):
    # drawn by neato -n2, which keeps them
    pinned: bool = False
    title_width: float | None = None  # points the title takes, whatever its text

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
    for e in scene.edges:
        if e.label is None:
            out.edges.append(e)
            continue
        cluster = _common_cluster(scene, e.tail, e.head)
        # named by its edge, so that the frames of a step view share it
        nid = f"label-{e.tail}-{e.head}"
        while nid in out.nodes:
            nid += "'"
        node = out.node(
            nid,
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


_SCRIPT = re.compile(r"<(SUB|SUP)>(.*?)</\1>", re.S)


@functools.lru_cache(maxsize=1 << 14)
def sized_scripts(html: str, size: float) -> str:
    """Sub- and superscripts of an HTML-like label at :data:`SCRIPT_SCALE` of ``size``,
    so that graphviz measures them at the size they are drawn (its SVG draws ``<SUB>``
    at full size, lowered after layout, into the edge below the label)."""
    size = round(size * SCRIPT_SCALE, 2)
    return _SCRIPT.sub(rf'<\1><FONT POINT-SIZE="{size:g}">\2</FONT></\1>', html)


def _script_room(html: str, size: float) -> float:
    """How much further (points) a label's scripts reach above or below its lines."""
    room = 0.0
    if "<SUB>" in html:
        room = SCRIPT_DROP + (SCRIPT_SCALE - 1) * _DESCENT
    if "<SUP>" in html:
        room = max(room, SCRIPT_RISE + (SCRIPT_SCALE - 1) * _ASCENT)
    return room * size


_SHIFTED = re.compile(r'<text [^>]*baseline-shift="(sub|super)"[^>]*>')
_Y = re.compile(r' y="(-?[\d.]+)"')
_SIZE = re.compile(r' font-size="([\d.]+)"')


def place_scripts(svg: str) -> str:
    """Graphviz's SVG with every script moved by its own ``y`` instead of
    ``baseline-shift`` (which browsers apply unequally, and Firefox not at all), by the
    amount :func:`sized_scripts` made room for."""

    def move(m: re.Match) -> str:
        tag = m.group(0)
        y, size = _Y.search(tag), _SIZE.search(tag)
        if y is None or size is None:
            return tag
        base = float(size.group(1)) / SCRIPT_SCALE
        shift = SCRIPT_DROP * base if m.group(1) == "sub" else -SCRIPT_RISE * base
        tag = tag.replace(f' baseline-shift="{m.group(1)}"', "")
        return tag.replace(y.group(0), f' y="{float(y.group(1)) + shift:.2f}"', 1)

    return _SHIFTED.sub(move, svg)


def _html(label: Label, size: float | None) -> str:
    return f"<{label.html if size is None else sized_scripts(label.html, size)}>"


def _label(label: Label | None, size: float | None) -> str:
    return "" if label is None else _html(label, size)


def _margin(margin: str, room: float) -> str:
    """A graphviz ``margin`` (inches, ``x,y`` or one number) with ``room`` points more
    above and below."""
    x, _, y = margin.partition(",")
    return f"{x},{float(y or x) + room / 72:.3f}"


def _node_attrs(scene: Scene, node: Node, sized: bool) -> dict[str, str]:
    style = scene.style
    size = float(node.attrs.get("fontsize", style.fontsize))
    attrs = {
        "label": _label(node.label, size if sized else None),
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
    room = _script_room(node.label.html, size) if node.label is not None else 0.0
    if room:
        attrs["margin"] = _margin(attrs.get("margin", _NODE_MARGIN), room)
    return attrs


def _graph_attrs(scene: Scene, sized: bool) -> dict[str, str]:
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
            label=f"<{_caption_html(scene, sized)}>",
            labelloc="t" if scene.title is not None else "b",
            fontsize=str(style.fontsize + (1 if scene.title is not None else 0)),
        )
    attrs.update(scene.attrs)
    return attrs


def _caption_html(scene: Scene, sized: bool) -> str:
    """The title and the legend as one HTML-like table (graphviz has one graph label)."""

    def html(label: Label, size: float) -> str:
        return sized_scripts(label.html, size) if sized else label.html

    rows = []
    if scene.title is not None:
        width = scene.title_width
        cell = f' WIDTH="{width:.0f}"' if width else ""
        title = html(scene.title, scene.style.fontsize + 1)
        rows.append(f'<TR><TD COLSPAN="2"{cell}>{title}</TD></TR>')
    size = scene.style.edge_fontsize
    for key, label in scene.legend:
        color, tint, pattern, *line = key
        if line:  # a line sample (a block family's line style): the cell's lower side
            sample = (
                f'<TD SIDES="B" COLOR="{color}" BORDER="{max(1, round(line[0]))}" '
                f'STYLE="{pattern}" WIDTH="22" HEIGHT="7" FIXEDSIZE="TRUE"></TD>'
            )
        else:
            sample = (
                f'<TD BGCOLOR="{tint}" COLOR="{color}" BORDER="2" STYLE="{pattern}" '
                'WIDTH="22" HEIGHT="11" FIXEDSIZE="TRUE"></TD>'
            )
        rows.append(
            f"<TR>{sample}"
            f'<TD ALIGN="LEFT"><FONT POINT-SIZE="{size}">{html(label, size)}'
            "</FONT></TD></TR>"
        )
    return f'<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="2">{"".join(rows)}</TABLE>'


_NODE_MARGIN = "0.06,0.04"


@contextlib.contextmanager
def graphviz_failures() -> Iterator[None]:
    """A graphviz program that fails as one clear :class:`DGraphError`, not an internal
    error: graphviz 2.43's ``dot`` crashes (SIGSEGV, after 58 CPU-s, with any stack size)
    laying out the union of the 450 frames of a 300-operation function's step view."""
    try:
        yield
    except graphviz.CalledProcessError as exc:
        program = str(exc.cmd[0]).rpartition("/")[2] if exc.cmd else "graphviz"
        code = exc.returncode
        how = f"crashed ({signal.Signals(-code).name})" if code < 0 else f"failed (exit {code})"
        said = exc.stderr or b""
        said = (said.decode(errors="replace") if isinstance(said, bytes) else said).split("\n")
        said = [line for line in said if line.strip()]
        raise DGraphError(
            f"graphviz's {program} {how} on this drawing"
            + (f" ({said[-1][:120]})" if said else "")
            + ": a failure of graphviz, not of the graph; draw a smaller function (fewer"
            " steps), or another view or format"
        ) from None


def to_graphviz(scene: Scene, sized: bool = False) -> graphviz.Digraph:
    """The scene as a graphviz ``Digraph``, labels as HTML-like labels; ``sized`` gives
    scripts their drawn size (:func:`sized_scripts`) for graphviz's SVG, which draws them
    at full size (its cairo formats, PNG and PDF, shrink them themselves). Its DOT lines
    are written directly (:func:`dot_lines`), as ``Digraph``'s methods would write them."""
    engine = "neato" if scene.pinned else "dot"
    return graphviz.Digraph(scene.name or "dgraph", engine=engine, body=dot_lines(scene, sized))


def dot_lines(scene: Scene, sized: bool = False) -> list[str]:
    """The body of the scene's DOT graph, line by line: graph, node and edge attributes,
    clusters (nested subgraphs) with their nodes, rank groups, then edges; attributes
    sorted by name, identifiers quoted only where DOT needs it (:func:`dot_id`)."""
    scene = inline_labels(scene)
    style = scene.style
    node_defaults = {
        "fontname": style.font,
        "fontsize": str(style.fontsize),
        "style": "filled",
        "margin": _NODE_MARGIN,
        "penwidth": "1",
    }
    edge_defaults = {
        "fontname": style.font,
        "fontsize": str(style.edge_fontsize),
        "arrowsize": "0.7",
        "color": style.edge_color,
    }
    lines = [
        *_graph_attr_line(_graph_attrs(scene, sized)),
        _statement("node", node_defaults, label_first=False),
        _statement("edge", edge_defaults, label_first=False),
    ]
    children: dict[str | None, list[Cluster]] = {}
    for c in scene.clusters.values():
        children.setdefault(c.parent, []).append(c)
    members: dict[str | None, list[Node]] = {}
    for n in scene.nodes.values():
        members.setdefault(n.cluster if n.cluster in scene.clusters else None, []).append(n)

    def fill(cluster: str | None) -> list[str]:
        out: list[str] = []
        for c in children.get(cluster, []):
            attrs = {"style": "dashed", "color": "#666666", "fontsize": str(style.edge_fontsize)}
            # a cluster inherits the graph's label (title, legend) unless given one
            attrs["label"] = _label(c.label, float(attrs["fontsize"]) if sized else None)
            attrs.update(c.attrs)
            inner = [*_graph_attr_line(attrs), *fill(c.id)]
            out += _subgraph(f"subgraph {dot_id(f'cluster_{c.id}')} ", inner)
        for n in members.get(cluster, []):
            out.append(_statement(dot_id(n.id), _node_attrs(scene, n, sized)))
        return out

    lines += fill(None)
    for rank, ids in scene.ranks:
        inner = [*_graph_attr_line({"rank": rank}), *(f"\t{dot_id(v)}\n" for v in ids)]
        lines += _subgraph("", inner)
    for e in scene.edges:
        attrs = dict(e.attrs)
        if e.label is not None:
            size = float(attrs.get("fontsize", style.edge_fontsize))
            attrs["label"] = _html(e.label, size if sized else None)
        lines.append(_statement(f"{_dot_end(e.tail)} -> {_dot_end(e.head)}", attrs))
    return lines


def _subgraph(head: str, inner: list[str]) -> list[str]:
    """A subgraph's lines in its parent's body: ``head{``, its body, ``}``, indented."""
    return [f"\t{line}" for line in (f"{head}{{\n", *inner, "}\n")]


def _a_list(attrs: dict[str, str | None], label_first: bool = False) -> str:
    """``name=value`` pairs sorted by name (``label`` first where ``label_first``: a node's
    or an edge's), ``None`` values left out."""
    items = sorted(attrs.items())
    if label_first and attrs.get("label") is not None:
        items = [("label", attrs["label"]), *(kv for kv in items if kv[0] != "label")]
    return " ".join(_pair(k, v) for k, v in items if v is not None)


@functools.lru_cache(maxsize=1 << 14)
def _pair(name: str, value: str) -> str:
    """``name=value`` quoted (frames of a step view repeat most of theirs)."""
    return f"{dot_id(name)}={dot_id(value)}"


def _statement(head: str, attrs: dict[str, str | None], label_first: bool = True) -> str:
    """A node or an edge statement, ``head [attributes]``, or ``head`` alone where no
    attribute has a value; ``label_first=False`` for a ``node`` or ``edge`` statement
    (defaults), whose attributes are sorted alike."""
    return _written(head, tuple(attrs.items()), label_first)


@functools.lru_cache(maxsize=1 << 14)
def _written(head: str, items: tuple[tuple[str, str | None], ...], label_first: bool) -> str:
    """:func:`_statement`'s text, written once (the frames of a step view repeat most of
    their statements)."""
    listed = _a_list(dict(items), label_first)
    return f"\t{head} [{listed}]\n" if listed else f"\t{head}\n"


def _graph_attr_line(attrs: dict[str, str | None]) -> list[str]:
    """A (sub)graph's attributes as one line of ``name=value`` pairs; none without any."""
    return [f"\t{_a_list(attrs)}\n"] if attrs else []


_DOT_ID = re.compile(r"([a-zA-Z_][a-zA-Z0-9_]*|-?(\.[0-9]+|[0-9]+(\.[0-9]*)?))")
_DOT_KEYWORDS = frozenset({"node", "edge", "graph", "digraph", "subgraph", "strict"})


def dot_id(text: str) -> str:
    """``text`` as a DOT identifier: as it is where DOT reads it as one (a name, a number,
    an HTML-like ``<...>`` string), else in double quotes, as the ``graphviz`` package
    quotes it (whose own quoting takes a string with quotes, newlines or a final
    backslash, and warns where DOT cannot read it).

    >>> dot_id("t1"), dot_id("-4.5"), dot_id("<<I>x</I>>"), dot_id("label-a-b"), dot_id("node")
    ('t1', '-4.5', '<<I>x</I>>', '"label-a-b"', '"node"')
    """
    if text.startswith("<") and text.endswith(">"):
        return text
    if _DOT_ID.fullmatch(text) and text.lower() not in _DOT_KEYWORDS:
        return text
    if '"' in text or text.endswith("\\") or "\n" in text:
        return graphviz.quoting.quote(text)  # its escapes and warnings, exactly
    return f'"{text}"'


def _dot_end(end: str) -> str:
    """An edge's end as DOT reads it: ``node[:port[:compass]]``."""
    node, _, rest = end.partition(":")
    if not rest:
        return dot_id(node)
    port, _, compass = rest.partition(":")
    return ":".join([dot_id(node), dot_id(port), *([compass] if compass else [])])
