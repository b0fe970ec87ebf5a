"""The four views of a differentiation graph, as scenes (:mod:`dgraph.render.scene`).

* ``graph``: the graph itself, ranked by Zhou's depth levels, in data-flow direction
  (Naumann's c-graph, inputs at the bottom) or dependence direction (Zhou, roots on top).
* ``levels``: cross-level edges segmented through copies (Zhou Def. 3.4), so that every
  pair of adjacent levels is a bipartite local Jacobian J_k, named beside the levels.
* ``line``: the line graph, every edge a vertex and every pair of consecutive edges a
  face (Naumann 2003), as :class:`~dgraph.faces.elimination.FaceState` holds it.
* ``pages``: Zhou's pages (§5), each page a box with its own copies of the vertices.

Highlighted regions (:mod:`dgraph.render.regions`) become nested clusters where they
nest and colored, patterned edges always, so overlapping regions stay visible.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping

import sympy

from ..core.graph import DGraph
from ..core.paths import depths
from ..errors import DGraphError
from ..faces.elimination import FaceState
from ..faces.line_graph import SUPER_SINK, SUPER_SOURCE, is_terminal, line_graph
from ..methods.structure import block_text
from .blocklabels import block_label, family_legend, shaped
from .labels import (
    Label,
    SymbolNames,
    expr_label,
    name_edge_symbols,
    symbol_names,
    text_label,
    vertex_label,
)
from .regions import Region
from .scene import Cluster, Scene
from .styles import PALETTE, Highlight, Style, block_line

__all__ = [
    "DIRECTIONS",
    "block_types",
    "graph_scene",
    "levels_scene",
    "line_scene",
    "node_label",
    "pages_scene",
]

DIRECTIONS = ("dataflow", "dependence")
EdgeLabels = Mapping[tuple[str, str], object]


def _check_direction(direction: str) -> str:
    if direction not in DIRECTIONS:
        raise DGraphError(f"unknown direction {direction!r}: use dataflow or dependence")
    return "BT" if direction == "dataflow" else "TB"


def _oriented(direction: str, u: str, v: str) -> tuple[str, str]:
    """Tail and head of the data-flow edge ``u -> v`` as drawn."""
    return (u, v) if direction == "dataflow" else (v, u)


def _label_mode(graph: DGraph, style: Style, labels: bool) -> str:
    mode = style.edge_labels if labels else "none"
    if mode == "auto":
        return "none" if graph.n_edges > style.label_limit else "partial"
    return mode


def edge_label(
    graph: DGraph, u: str, v: str, mode: str, names: SymbolNames, style: Style
) -> Label | None:
    """An edge's label: its local partial when known (``partial``; on a tensor graph the
    Jacobian block as the papers write it, ``I ⊗ Wᵀ``), its symbol, or none."""
    if mode == "none":
        return None
    if mode == "partial" and graph.is_tensor:
        return block_label(block_text(graph, u, v), style)
    value = graph.partial(u, v) if mode == "partial" else None
    return expr_label(
        graph.symbol(u, v) if value is None else value, names, style.math, style.max_label
    )


def node_label(graph: DGraph, v: str, style: Style, shown: str | None = None) -> Label:
    """A vertex's label: its name (``shown``: the vertex a copy stands for) as math, on a
    tensor graph with its shape under it."""
    label = vertex_label(shown or v, style.math)
    return shaped(label, graph.shape(shown or v), style) if graph.is_tensor else label


def block_types(graph: DGraph) -> dict[tuple[str, str], str] | None:
    """The structure type of every edge's block on a tensor graph (None on a scalar one)."""
    if not graph.is_tensor:
        return None
    return {(u, v): graph.block(u, v).type_name for u, v in graph.edges()}


def _override(value: object, names: SymbolNames, style: Style) -> Label:
    if isinstance(value, Label):
        return value
    if isinstance(value, sympy.Basic):
        return expr_label(value, names, style.math, style.max_label)
    return text_label(str(value))


def _edge_marks(regions: list[Region]) -> dict[tuple[str, str], list[Highlight]]:
    marks: dict[tuple[str, str], list[Highlight]] = {}
    for k, region in enumerate(regions):
        for e in region.edges:
            marks.setdefault(tuple(e), []).append(Highlight.nth(k))
    return marks


def _mark_attrs(marks: list[Highlight]) -> dict[str, str]:
    """Graphviz attributes of an edge in one or several regions (parallel colored lines)."""
    if not marks:
        return {}
    attrs = {"color": ":".join(m.color for m in marks), "penwidth": "1.8"}
    if marks[0].pattern != "solid":
        attrs["style"] = marks[0].pattern
    return attrs


def add_region_clusters(scene: Scene, regions: list[Region], node_of=lambda v: v) -> None:
    """Clusters for the regions, largest first, nested where the regions nest: each takes
    the vertices (less its ``ends``) still sitting in its parent; a vertex that a sibling
    cluster already holds stays there (its edges still show the region). The regions are
    named in the legend, in their order."""
    order = sorted(range(len(regions)), key=lambda k: -len(regions[k].vertices))
    where: dict[str, str | None] = {}
    sets: dict[str, frozenset] = {}
    for k in order:
        region = regions[k]
        parent = None
        for cid, members in sets.items():
            if region.vertices <= members and (parent is None or len(members) < len(sets[parent])):
                parent = cid
        take = [
            v
            for v in region.vertices - region.ends
            if node_of(v) in scene.nodes and where.get(v) == parent
        ]
        if not take:
            continue
        cid = f"r{k}"
        h = Highlight.nth(k)
        scene.clusters[cid] = Cluster(
            cid,
            None,
            parent,
            {"color": h.color, "fillcolor": h.tint, "style": f"filled,rounded,{h.pattern}"},
        )
        sets[cid] = region.vertices
        for v in take:
            where[v] = cid
            scene.nodes[node_of(v)].cluster = cid
    add_legend(scene, regions)


def add_legend(scene: Scene, regions: list[Region]) -> None:
    """Name every highlighted region under the drawing, with its color and pattern."""
    for k, region in enumerate(regions):
        h = Highlight.nth(k)
        scene.legend.append(((h.color, h.tint, h.pattern), text_label(region.name)))


def _level_ranks(
    scene: Scene, level: Mapping[str, int], direction: str, anchored: bool = False
) -> None:
    """One rank per level; ``anchored`` chains the ranks with invisible anchors, so that
    levels whose vertices have no edges (eliminated ones) still keep their place."""
    groups: dict[int, list[str]] = {}
    for v, k in level.items():
        groups.setdefault(k, []).append(v)
    levels = sorted(groups)
    for k in levels:
        if anchored:
            scene.node(f"anchor-{k}", text_label(""), "anchor")
            groups[k].append(f"anchor-{k}")
        scene.ranks.append(("same", groups[k]))
    if anchored:
        for upper, lower in itertools.pairwise(levels):
            scene.edge(
                *_oriented(direction, f"anchor-{lower}", f"anchor-{upper}"), None, style="invis"
            )


def graph_scene(
    graph: DGraph,
    direction: str = "dataflow",
    *,
    style: Style,
    edge_labels: EdgeLabels | None = None,
    regions: Iterable[Region] = (),
    emphasize: Iterable[tuple[str, str]] = (),
    labels: bool = True,
    ranks: str = "levels",
    title: str | None = None,
    names: SymbolNames | None = None,
    ghosts: Iterable[str] = (),
    level: Mapping[str, int] | None = None,
    origin: Mapping[str, str] | None = None,
    shapes: Mapping[str, tuple[int, ...]] | None = None,
    blocks: Mapping[tuple[str, str], str] | None = None,
    legend_types: Iterable[str] | None = None,
) -> Scene:
    """The ``graph`` view: inputs as boxes, outputs as double circles, intermediates as
    circles, one rank per depth level (``ranks="levels"``; ``"ends"`` only aligns the
    inputs and the outputs). ``edge_labels`` overrides labels (sympy expressions print as
    math); ``emphasize`` draws some edges bold (a step's new or changed edges);
    ``ghosts`` are vertices drawn dotted (eliminated ones, in step views) and ``level``
    fixes the ranks (those of the original graph, so that frames line up); ``origin``
    names the vertex each copy stands for (drawn dashed, labeled by the original).

    A tensor graph (or ``shapes`` and ``blocks`` given, as a step view gives them for its
    snapshots) shows each vertex's shape under its name, draws each edge in the line style
    of its block's structure family (``blocks``: type names; by default the graph's) and
    names the families in a legend (those of ``legend_types``, default ``blocks``')."""
    scene = Scene(graph.name or "dgraph", style, _check_direction(direction))
    if graph.is_tensor:
        shapes = shapes if shapes is not None else {v: graph.shape(v) for v in graph.order()}
        blocks = blocks if blocks is not None else block_types(graph)
    if title:
        scene.title = text_label(title)
    if names is None:
        names = symbol_names(graph)
        if edge_labels:
            name_edge_symbols(names, edge_labels.values(), graph.order())
    ghosts = set(ghosts)
    origin = origin or {}
    for v in graph.order():
        kind = "ghost" if v in ghosts else graph.role(v)
        shown = origin.get(v, v)
        if shown != v and kind == "intermediate":
            kind = "copy"
        label = vertex_label(shown, style.math)
        if shapes is not None:
            label = shaped(label, shapes.get(shown, ()), style)
        scene.node(v, label, kind)
    regions = list(regions)
    marks = _edge_marks(regions)
    bold = set(emphasize)
    mode = _label_mode(graph, style, labels)
    for u, v in graph.edges():
        if edge_labels is not None and (u, v) in edge_labels:
            label = _override(edge_labels[u, v], names, style)
        else:
            label = edge_label(graph, u, v, mode, names, style)
        line = block_line(blocks[u, v]) if blocks is not None and (u, v) in blocks else {}
        attrs = {**line, **_mark_attrs(marks.get((u, v), []))}
        if (u, v) in bold and blocks is not None:  # a new block: red, heavier than its kind
            width = float(line.get("penwidth", "1")) + 1.6
            attrs.update(penwidth=f"{width:g}", color=attrs.get("color", PALETTE[2]))
        elif (u, v) in bold:
            attrs.update(penwidth="2.6", color=attrs.get("color", "#000000"))
        scene.edge(*_oriented(direction, u, v), label, **attrs)
    add_region_clusters(scene, regions)
    if blocks is not None:
        types = blocks.values() if legend_types is None else legend_types
        scene.legend += family_legend(types, style)
    if ranks == "levels":
        _level_ranks(
            scene, level if level is not None else depths(graph.nx), direction, bool(ghosts)
        )
    elif ranks == "ends":
        top, bottom = ("max", "min") if direction == "dataflow" else ("min", "max")
        scene.ranks += [(bottom, graph.inputs), (top, graph.outputs)]
    elif ranks != "none":
        raise DGraphError(f"unknown ranks {ranks!r}: use levels, ends or none")
    return scene


def _origin(name: str, graph: DGraph) -> str:
    """The original vertex of a copy made by segmentation (``v__3`` -> ``v``)."""
    return name if name in graph else name[: name.rindex("__")]


def levels_scene(
    graph: DGraph,
    direction: str = "dependence",
    *,
    style: Style,
    regions: Iterable[Region] = (),
    labels: bool = True,
    title: str | None = None,
) -> Scene:
    """The ``levels`` view: every cross-level edge segmented through copies of its lower
    vertex (dashed circles, label 1), every depth level one rank, and the local Jacobians
    J_1 ... J_m named between the level numbers at the side."""
    from ..zhou.segment import segment

    seg = segment(graph)
    scene = Scene(f"{graph.name or 'dgraph'}-levels", style, _check_direction(direction))
    if title:
        scene.title = text_label(title)
    names = symbol_names(graph)
    for v in seg.order():
        original = _origin(v, graph)
        kind = "copy" if v not in graph else graph.role(v)
        scene.node(v, node_label(graph, v, style, original), kind)
    regions = list(regions)
    marks = _edge_marks(regions)
    mode = _label_mode(graph, style, labels)
    types = block_types(graph)
    through: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for u, v in graph.edges():  # the segments each original edge runs through
        a = u
        while not seg.nx.has_edge(a, v):
            a_next = next(
                w for w in seg.nx.successors(a) if w not in graph and _origin(w, graph) == u
            )
            through.setdefault((a, a_next), []).append((u, v))
            a = a_next
        through.setdefault((a, v), []).append((u, v))
    for a, b in seg.edges():
        originals = through[a, b]
        copy_segment = b not in graph
        label = None
        if not copy_segment:
            (original,) = originals
            label = edge_label(graph, *original, mode, names, style)
        attrs = _mark_attrs([m for e in originals for m in marks.get(e, [])][:3])
        if copy_segment:
            attrs.setdefault("style", "dashed")
        elif types is not None:
            attrs = {**block_line(types[originals[0]]), **attrs}
        scene.edge(*_oriented(direction, a, b), label, **attrs)
    level = depths(seg.nx)
    add_region_clusters(scene, regions)
    if types is not None:
        scene.legend += family_legend(types.values(), style)
    last = max(level.values())
    for k in range(last + 1):
        note = f"level-{k + 1}"
        scene.node(note, text_label(f"level {k + 1}"), "note", fontcolor="#555555")
        scene.ranks.append(("same", [note, *(v for v, d in level.items() if d == k)]))
        if k:
            tail, head = _oriented(direction, note, f"level-{k}")
            scene.edge(
                tail,
                head,
                expr_label(sympy.Symbol(f"J_{k}"), None, style.math),
                arrowhead="none",
                color="#999999",
                style="dotted",
            )
    return scene


def _face_label(state: FaceState, v: int, names: SymbolNames, style: Style) -> Label:
    u, w = state.span[v]
    if state.is_terminal(v):
        return vertex_label(u if w == "⊖" else w, style.math)
    span = f"{u}→{w}"
    if style.math:
        span_html = f"{vertex_label(u).html}→{vertex_label(w).html}"
        span_tex = rf"{vertex_label(u).tex}\to {vertex_label(w).tex}"
        span_label = Label(span, span_html, span_tex)
    else:
        span_label = text_label(span)
    value = state.label.get(v)
    original = state.graph.nx.has_edge(u, w) and value == state.graph.symbol(u, w)
    if value is None or original:
        return span_label
    shown = expr_label(value, names, style.math)
    if len(shown.text) > style.max_label:
        return span_label
    return Label(
        f"{span}\n{shown.text}",
        f'{span_label.html}<BR/><FONT POINT-SIZE="{style.edge_fontsize}">{shown.html}</FONT>',
        rf"{span_label.tex}\colon {shown.tex}",
        style.math,
    )


class _Line:
    """The line graph of a graph before any elimination, shaped like the parts of
    :class:`FaceState` that drawing reads, without its tracking of every input-output
    path (whose number can grow exponentially with the graph)."""

    def __init__(self, graph: DGraph) -> None:
        lg = line_graph(graph)
        order = [(SUPER_SOURCE, x) for x in graph.inputs]
        order += [*graph.edges(), *((y, SUPER_SINK) for y in graph.outputs)]
        ids = {span: k for k, span in enumerate(order)}
        self.graph, self.references = graph, {}
        self.span = dict(enumerate(order))
        self.name = {k: f"{a}->{b}" for k, (a, b) in self.span.items()}
        self.label = {ids[e]: graph.symbol(*e) for e in graph.edges()}
        self.succ = {ids[span]: {ids[w]: None for w in lg.successors(span)} for span in order}

    def is_terminal(self, v: int) -> bool:
        return is_terminal(self.span[v])


def line_scene(
    source: DGraph | FaceState,
    direction: str = "dataflow",
    *,
    style: Style,
    faces: Iterable[tuple[str, str]] = (),
    regions: Iterable[Region] = (),
    title: str | None = None,
    emphasize: Iterable[int] = (),
) -> Scene:
    """The ``line`` view: each edge of the graph a vertex (⊕→x and y→⊖ as gray boxes),
    each face an arc (faces to or from ⊕/⊖ dashed); ``faces`` (pairs of line-graph vertex
    names, as ``FaceState.name`` spells them) drawn bold; a vertex holding an edge of a
    highlighted region is filled in that region's tint; ``emphasize`` (line-graph vertex
    ids) outlines some vertices bold (a step's product)."""
    state = source if isinstance(source, FaceState) else _Line(source)
    graph = state.graph
    scene = Scene(f"{graph.name or 'dgraph'}-line", style, _check_direction(direction))
    if title:
        scene.title = text_label(title)
    names = symbol_names(graph, state.references)
    tint: dict[tuple[str, str], Highlight] = {}
    regions = list(regions)
    for k, region in enumerate(regions):
        for e in region.edges:
            tint.setdefault(tuple(e), Highlight.nth(k))
    add_legend(scene, regions)
    bottom, top = [], []
    bold_vertices = set(emphasize)
    for v in sorted(state.succ):
        terminal = state.is_terminal(v)
        node = scene.node(
            f"f{v}", _face_label(state, v, names, style), "terminal" if terminal else "segment"
        )
        if not terminal and state.span[v] in tint:
            h = tint[state.span[v]]
            node.attrs.update(fillcolor=h.tint, color=h.color, penwidth="1.8")
        if v in bold_vertices:
            node.attrs.update(penwidth="2.6")
        if terminal:
            (bottom if state.span[v][1] != "⊖" else top).append(node.id)
    marked = set(faces)
    for i in sorted(state.succ):
        for j in sorted(state.succ[i]):
            inner = not state.is_terminal(i) and not state.is_terminal(j)
            attrs = {"color": "#333333" if inner else "#999999"}
            if not inner:
                attrs["style"] = "dashed"
            if (state.name[i], state.name[j]) in marked:
                attrs.update(color="#000000", penwidth="2.6")
            scene.edge(*_oriented(direction, f"f{i}", f"f{j}"), None, **attrs)
    low, high = ("min", "max") if direction == "dataflow" else ("max", "min")
    scene.ranks += [(low, bottom), (high, top)]
    return scene


def pages_scene(
    graph: DGraph,
    direction: str = "dependence",
    *,
    style: Style,
    variant: str = "backward",
    regions: Iterable[Region] = (),
    labels: bool = True,
    title: str | None = None,
) -> Scene:
    """The ``pages`` view: Zhou's pages side by side, each a box holding its own copy of
    every vertex it uses, ranked by the graph's depth levels."""
    from .regions import page_regions

    pages = page_regions(graph, variant)
    scene = Scene(f"{graph.name or 'dgraph'}-pages", style, _check_direction(direction))
    if title:
        scene.title = text_label(title)
    names = symbol_names(graph)
    regions = list(regions)
    marks = _edge_marks(regions)
    add_legend(scene, regions)
    mode = _label_mode(graph, style, labels)
    types = block_types(graph)
    level = depths(graph.nx)
    groups: dict[int, list[str]] = {}
    for k, page in enumerate(pages, start=1):
        cid = f"page{k}"
        scene.clusters[cid] = Cluster(
            cid, text_label(page.name), None, {"style": "rounded", "color": "#666666"}
        )
        for v in graph.order():
            if v in page.vertices:
                node = scene.node(f"p{k}_{v}", node_label(graph, v, style), graph.role(v))
                node.cluster = cid
                groups.setdefault(level[v], []).append(node.id)
        for u, v in graph.edges():
            if (u, v) in page.edges:
                label = edge_label(graph, u, v, mode, names, style)
                attrs = _mark_attrs(marks.get((u, v), []))
                if types is not None:
                    attrs = {**block_line(types[u, v]), **attrs}
                scene.edge(*_oriented(direction, f"p{k}_{u}", f"p{k}_{v}"), label, **attrs)
    scene.ranks = [("same", groups[k]) for k in sorted(groups)]
    if types is not None:
        scene.legend += family_legend(types.values(), style)
    return scene
