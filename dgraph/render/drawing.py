"""One entry point for every drawing: :func:`draw` builds a view of a graph, a line graph
or an expression set, and the :class:`Drawing` it returns exports to SVG, PDF, PNG, DOT
and TikZ and shows itself in Jupyter.
"""

from __future__ import annotations

import re
import shutil
from functools import cached_property
from pathlib import Path
from typing import Any

import graphviz

from ..core.expressions import ExpressionSet
from ..core.graph import DGraph
from ..errors import DGraphError
from ..faces.elimination import FaceState
from ..zhou.convert import expression_graph
from .labels import symbol_names
from .regions import Region, regions
from .scene import Scene, graphviz_failures, place_scripts, to_graphviz
from .styles import Style, get_style
from .views import graph_scene, levels_scene, line_scene, pages_scene

__all__ = [
    "DRAWN_LIMIT",
    "FORMATS",
    "VIEWS",
    "Drawing",
    "check_drawable",
    "draw",
    "fit_width",
    "lay_out_svgs",
    "need_dot",
    "pipe_all",
    "pngs",
    "zoom_svg",
]

FORMATS = (".svg", ".pdf", ".png", ".dot", ".tex")
VIEWS = ("graph", "line", "levels", "pages")


def need_dot() -> None:
    """Raise a clear error when graphviz's ``dot`` program is missing."""
    if shutil.which("dot") is None:
        raise DGraphError("graphviz 'dot' not found; install it (Debian: apt-get install graphviz)")


class Drawing:
    """A laid-out-on-demand drawing: ``source`` (DOT), ``svg()``, ``tikz()``,
    ``save(path)`` by suffix, and SVG display in Jupyter."""

    def __init__(self, scene: Scene, zoom: float | None = None) -> None:
        self.scene = scene
        self.scale = zoom

    @cached_property
    def dot(self) -> graphviz.Digraph:
        return to_graphviz(self.scene)

    @cached_property
    def _svg_dot(self) -> graphviz.Digraph:
        return to_graphviz(self.scene, sized=True)

    @cached_property
    def _svg(self) -> bytes:
        # laid out once: viewers, notebooks and files ask for the same SVG many times
        need_dot()
        with graphviz_failures():
            svg = self._svg_dot.pipe(format="svg", neato_no_op=self._no_op, quiet=True)
        return _placed_svg(svg)

    @property
    def _no_op(self) -> int | None:
        """``neato -n2`` for a pinned scene (positions given), else none."""
        return 2 if self.scene.pinned else None

    def _png_dot(self, dpi: int | None = None) -> graphviz.Digraph:
        dot = self.dot.copy()
        dot.attr(dpi=str(dpi or self.scene.style.dpi))
        return dot

    @property
    def source(self) -> str:
        return self.dot.source

    def pipe(self, fmt: str, dpi: int | None = None) -> bytes:
        """The drawing in a graphviz output format (``svg``, ``pdf``, ``png``, ``json``);
        ``dpi`` for PNG (default: the style's)."""
        need_dot()
        if fmt == "svg":
            return self._svg
        dot = self._png_dot(dpi) if fmt == "png" else self.dot
        with graphviz_failures():
            out = dot.pipe(format=fmt, neato_no_op=self._no_op, quiet=True)
        return _undated(out) if fmt == "pdf" else out

    def svg(self) -> str:
        return self.pipe("svg").decode()

    def tikz(self, standalone: bool = False) -> str:
        """The same layout as a TikZ picture (LaTeX labels); ``standalone`` wraps it in a
        document that compiles on its own."""
        from .tikz import to_tikz

        return to_tikz(self.scene, standalone=standalone)

    def save(self, path: str | Path, standalone: bool = False) -> Path:
        """Write the drawing; the format follows the suffix (.svg .pdf .png .dot .tex)."""
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix not in FORMATS:
            raise DGraphError(
                f"{path}: unknown format {suffix or '(none)'}; use {' '.join(FORMATS)}"
            )
        path.parent.mkdir(parents=True, exist_ok=True)
        if suffix == ".dot":
            path.write_text(self.source)
        elif suffix == ".tex":
            path.write_text(self.tikz(standalone))
        else:
            path.write_bytes(self.pipe(suffix[1:]))
        return path

    def zoom(self, scale: float = 1.0) -> Drawing:
        """The same drawing shown in notebooks at ``scale`` times its natural size, not
        confined to the page's width (drawings fit the page by default): scroll to read
        a wide one. ``draw(g).zoom()`` is natural size."""
        if not scale > 0:
            raise DGraphError(f"zoom scale must be positive, not {scale!r}")
        zoomed = Drawing(self.scene, scale)
        zoomed.__dict__.update({k: v for k, v in self.__dict__.items() if k != "scale"})
        return zoomed

    def _repr_svg_(self) -> str | tuple[str, dict]:
        if self.scale is None:
            return fit_width(self.svg())
        return zoom_svg(self.svg(), self.scale), {"unconfined": True}

    def _repr_png_(self) -> bytes | tuple[bytes, dict]:
        """The drawing as PNG: Jupyter shows no SVG from an untrusted notebook."""
        if self.scale is None:
            return self.pipe("png")
        png = self.pipe("png", dpi=round(self.scene.style.dpi * self.scale))
        return png, {"unconfined": True}

    def __repr__(self) -> str:
        s = self.scene
        return f"<Drawing {s.name!r}: {len(s.nodes)} nodes, {len(s.edges)} edges>"


_CREATED = re.compile(rb"/CreationDate \(D:\d{14}")


def _undated(pdf: bytes) -> bytes:
    """Cairo's PDF with its creation time set to 2000-01-01 (the same length: the offsets
    in its cross-reference table stay right), so the same drawing is the same bytes on
    every run."""
    return _CREATED.sub(b"/CreationDate (D:20000101000000", pdf, count=1)


def _placed_svg(svg: bytes) -> bytes:
    return place_scripts(svg.decode()).encode()


def pipe_all(dots: list[graphviz.Digraph], fmt: str, neato_no_op: int | None) -> list[bytes]:
    """What each of ``dots`` gives piped in ``fmt``, byte for byte, from one graphviz
    process where they share an engine and ``fmt`` is ``svg`` or ``png``: dot lays out
    every graph of its input in turn, and a process's start costs more than a small
    graph's layout."""
    split = _SPLIT.get(fmt)
    if split is not None and len(dots) > 1 and len({d.engine for d in dots}) == 1:
        data = "".join(d.source for d in dots).encode(dots[0].encoding)
        with graphviz_failures():
            out = graphviz.pipe(dots[0].engine, fmt, data, neato_no_op=neato_no_op, quiet=True)
        pieces = split(out)
        if len(pieces) == len(dots):
            return pieces
    with graphviz_failures():
        return [d.pipe(format=fmt, neato_no_op=neato_no_op, quiet=True) for d in dots]


def _split_svg(out: bytes) -> list[bytes]:
    """Graphviz's SVG documents, one per graph; after the first, graphviz names the graph
    group ``page0,1_graph0`` where one graph alone has ``graph0``: renamed back."""
    parts = [b"<?xml" + part for part in out.split(b"<?xml")[1:]]
    return parts[:1] + [_PAGE_ID.sub(rb'<g id="\1"', part, count=1) for part in parts[1:]]


_PAGE_ID = re.compile(rb'<g id="page\d+,\d+_(graph\d+)"')


def _split_png(out: bytes) -> list[bytes]:
    """PNG files one after another, cut where each one's ``IEND`` chunk ends."""
    parts, start, at = [], 0, 8
    while at + 8 <= len(out):
        size = int.from_bytes(out[at : at + 4], "big")
        kind = out[at + 4 : at + 8]
        at += 12 + size
        if kind == b"IEND":
            parts.append(out[start:at])
            start, at = at, at + 8
    return parts if start == len(out) else []


_SPLIT = {"svg": _split_svg, "png": _split_png}


def lay_out_svgs(drawings: list[Drawing]) -> None:
    """Lay out the SVGs of ``drawings`` not yet laid out, one graphviz process for those
    of one engine (the frames of a step view): each as its own ``svg()`` would."""
    todo: dict[tuple[str, int | None], list[Drawing]] = {}
    for d in drawings:
        if "_svg" not in d.__dict__:
            todo.setdefault((d._svg_dot.engine, d._no_op), []).append(d)
    for (_, no_op), group in todo.items():
        need_dot()
        svgs = pipe_all([d._svg_dot for d in group], "svg", no_op)
        for d, svg in zip(group, svgs, strict=True):
            d.__dict__["_svg"] = _placed_svg(svg)


def pngs(drawings: list[Drawing], dpis: list[int | None]) -> list[bytes]:
    """``d.pipe("png", dpi)`` of each drawing and resolution, from one graphviz process
    per engine and ``neato -n2`` setting."""
    need_dot()
    out: list[bytes] = [b""] * len(drawings)
    groups: dict[tuple[str, int | None], list[int]] = {}
    for k, d in enumerate(drawings):
        groups.setdefault((d.dot.engine, d._no_op), []).append(k)
    for (_, no_op), ks in groups.items():
        dots = [drawings[k]._png_dot(dpis[k]) for k in ks]
        for k, png in zip(ks, pipe_all(dots, "png", no_op), strict=True):
            out[k] = png
    return out


def fit_width(svg: str) -> str:
    """``svg`` drawn at most as wide as the page it is shown on, keeping its proportions
    (a wide line graph was cut off at full size in notebooks); saved files keep their
    natural size.

    >>> fit_width('<svg width="2204pt" height="100pt"><g/></svg>')
    '<svg style="max-width:100%;height:auto" width="2204pt" height="100pt"><g/></svg>'
    """
    start = svg.find("<svg")
    if start < 0:
        return svg
    return svg[: start + 4] + ' style="max-width:100%;height:auto"' + svg[start + 4 :]


def zoom_svg(svg: str, scale: float) -> str:
    """``svg`` drawn ``scale`` times its size (graphviz writes ``width``/``height`` in
    points and a ``viewBox``, which keeps the drawing in proportion).

    >>> zoom_svg('<svg width="200pt" height="100pt" viewBox="0 0 200 100">', 1.5)
    '<svg width="300pt" height="150pt" viewBox="0 0 200 100">'
    """

    def scaled(m: re.Match) -> str:
        return f'{m.group(1)}="{float(m.group(2)) * scale:g}pt"'

    head, rest = svg[: svg.find("<svg")], svg[svg.find("<svg") :]
    end = rest.find(">")
    return head + _SIZE.sub(scaled, rest[:end]) + rest[end:]


_SIZE = re.compile(r'\b(width|height)="([\d.]+)pt"')


def _highlight(graph: DGraph, highlight: Any) -> list[Region]:
    if not highlight:
        return []
    if isinstance(highlight, (str, list, tuple)) and all(
        isinstance(h, str) for h in ([highlight] if isinstance(highlight, str) else highlight)
    ):
        return regions(graph, highlight)
    return list(highlight)


DRAWN_LIMIT = 1_000


def check_drawable(graph: DGraph, view: str = "graph") -> None:
    """Refuse a drawing of more than :data:`DRAWN_LIMIT` boxes (vertices; edges in the
    line view): no page shows it legibly, and graphviz's layout of it takes minutes."""
    line = view == "line"
    size = graph.n_edges if line else len(graph.nx)
    if size > DRAWN_LIMIT:
        what = "edges (the line graph's vertices)" if line else "vertices"
        raise DGraphError(
            f"{graph.name or 'the graph'} has {size} {what}: a drawing of more than"
            f" {DRAWN_LIMIT} is not legible and its layout takes minutes; draw a smaller"
            " function, or force it (force=True, --force)"
        )


def draw(
    obj: DGraph | FaceState | ExpressionSet,
    view: str = "graph",
    *,
    direction: str | None = None,
    highlight: str | list | None = None,
    style: str | Style | None = None,
    font: str | None = None,
    edge_labels: dict | None = None,
    labels: bool = True,
    title: str | None = None,
    variant: str = "backward",
    faces: list[tuple[str, str]] = (),
    force: bool = False,
) -> Drawing:
    """Draw a graph, a face-elimination state or an expression set.

    Parameters
    ----------
    obj
        A graph; a :class:`FaceState` draws its line graph, an :class:`ExpressionSet` its
        expressions laid out as a graph (Zhou).
    view
        ``graph``, ``line``, ``levels`` or ``pages``.
    direction
        ``dataflow`` (Naumann; the default for graph and line views) or ``dependence``
        (Zhou; the default for levels and pages).
    highlight
        Region kinds (``chains``, ``blocks``, ``umbrellas``, ``closed-umbrellas``,
        ``factors``, ``pages``; comma-separated for several), or regions.
    style
        ``paper`` (default: serif, grayscale-safe), ``screen`` or ``plain`` (labels as
        text).
    font
        ``serif`` or ``sans``.
    edge_labels
        Labels that replace the edges' own, by edge.
    labels
        Whether edge labels are drawn.
    title
        A caption.
    variant
        The pages view's factorization direction, ``backward`` or ``forward``.
    faces
        Faces to mark in the line view.
    force
        Draw a graph too large to read (:func:`check_drawable` refuses it otherwise).

    Returns
    -------
    Drawing
        Its scene, rendered as SVG, DOT or TikZ on demand.

    Raises
    ------
    DGraphError
        For an unknown view, a view a face state does not have, an object that is not
        drawable, or a graph too large without ``force``.

    >>> from dgraph.frontends import bundled
    >>> d = draw(bundled("zhou_two_blocks.json"), highlight="blocks", direction="dependence")
    >>> sorted(d.scene.clusters), d.svg().count("<svg")
    (['r0', 'r1'], 1)
    """
    chosen = get_style(style, font)
    if view not in VIEWS:
        raise DGraphError(f"unknown view {view!r}: use {', '.join(VIEWS)}")
    if not force:
        check_drawable(obj.graph if isinstance(obj, (FaceState, ExpressionSet)) else obj, view)
    if isinstance(obj, FaceState):
        if view != "line":
            raise DGraphError("a line graph under face elimination has only the line view")
        regions = _highlight(obj.graph, highlight)
        scene = line_scene(
            obj, direction or "dataflow", style=chosen, faces=faces, regions=regions, title=title
        )
        return Drawing(scene)
    if isinstance(obj, ExpressionSet):
        if view == "graph":
            return Drawing(_expression_scene(obj, direction, chosen, edge_labels, title))
        obj = obj.graph
    if not isinstance(obj, DGraph):
        raise DGraphError(f"cannot draw a {type(obj).__name__}")
    regions = _highlight(obj, highlight)
    common = {"style": chosen, "regions": regions, "title": title}
    if view == "graph":
        scene = graph_scene(
            obj, direction or "dataflow", edge_labels=edge_labels, labels=labels, **common
        )
    elif view == "line":
        scene = line_scene(obj, direction or "dataflow", faces=faces, **common)
    elif view == "levels":
        scene = levels_scene(obj, direction or "dependence", labels=labels, **common)
    else:
        scene = pages_scene(
            obj, direction or "dependence", variant=variant, labels=labels, **common
        )
    return Drawing(scene)


def _expression_scene(
    es: ExpressionSet,
    direction: str | None,
    style: Style,
    edge_labels: dict | None,
    title: str | None,
) -> Scene:
    """An expression set laid out as a graph (Zhou): its references and entries as
    vertices, its factors as edge labels."""
    laid = expression_graph(es)
    labels_of = dict(laid.label)
    labels_of.update(edge_labels or {})
    return graph_scene(
        laid.graph,
        direction or "dependence",
        style=style,
        edge_labels=labels_of,
        title=title,
        names=symbol_names(es.graph, es.references),
        origin=laid.origin,
    )
