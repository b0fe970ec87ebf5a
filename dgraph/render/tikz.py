"""TikZ export: graphviz lays the scene out (``dot -Tjson``), TikZ draws it with LaTeX
labels, so a figure in a paper typesets its math in the paper's own fonts.

Every node keeps the size graphviz gave it (``minimum width``/``height``) and every edge
its spline (graphviz's piecewise cubic Béziers become ``.. controls ..`` segments), so
the picture is the layout graphviz computed. :class:`TikzPrinter` has one ``_print_*``
method per element of the scene, like sympy's printers.
"""

from __future__ import annotations

import json
import re

from .labels import Label
from .scene import Cluster, Edge, Node, Scene, graphviz_failures, inline_labels, to_graphviz

__all__ = ["TikzPrinter", "to_tikz"]

_PREAMBLE = r"""% dgraph TikZ drawing. Needs \usepackage{tikz} and
% \usetikzlibrary{arrows.meta,shapes.geometric}; \input it inside a figure.
"""

# A document that compiles on its own with pdfLaTeX, XeLaTeX or LuaLaTeX and only tikz
# installed: the picture is shipped out on a page of its own size (2bp border).
_STANDALONE = r"""\documentclass{article}
\usepackage{tikz}
\usetikzlibrary{arrows.meta,shapes.geometric}
\ifdefined\pdfpagewidth\else\let\pdfpagewidth\pagewidth\let\pdfpageheight\pageheight\fi
\begin{document}
\setbox0=\hbox{\kern2bp
%s\kern2bp}
\pdfpagewidth=\wd0 \pdfpageheight=\dimexpr\ht0+\dp0+4bp\relax
\hoffset=-1in \voffset=\dimexpr-1in+2bp\relax
\shipout\box0
\end{document}
"""

_SHAPES = {
    "box": "rectangle",
    "circle": "circle",
    "doublecircle": "circle, double, double distance=1.2bp",
    "ellipse": "ellipse",
    "plaintext": "rectangle, draw=none, fill=none",
}


def _points(text: str) -> list[tuple[float, float]]:
    return [tuple(float(c) for c in p.split(",")[:2]) for p in text.split()]


def _xy(p: tuple[float, float]) -> str:
    return f"({p[0]:.2f},{p[1]:.2f})"


def _spline(pos: str) -> tuple[list[tuple[float, float]], tuple | None, tuple | None]:
    """Graphviz's edge ``pos``: control points, and the arrow tips at the end/start."""
    start = end = None
    points = []
    for item in pos.split():
        if item.startswith("e,"):
            end = tuple(float(c) for c in item[2:].split(","))
        elif item.startswith("s,"):
            start = tuple(float(c) for c in item[2:].split(","))
        else:
            points.append(tuple(float(c) for c in item.split(",")))
    return points, start, end


class TikzPrinter:
    """Writes a laid-out scene as TikZ; colors become ``\\definecolor`` names."""

    def __init__(self, scene: Scene) -> None:
        self.scene = scene
        self.colors: dict[str, str] = {}

    def color(self, value: str | None) -> str | None:
        """A TikZ color name for a graphviz color (``#rrggbb``; lists take the first)."""
        if not value:
            return None
        value = value.split(":")[0].split(";")[0]
        if re.fullmatch(r"#[0-9a-fA-F]{6}", value):
            hexa = value[1:].upper()
            return self.colors.setdefault(hexa, f"dg{hexa}")
        return {"black": "black", "white": "white"}.get(value, "black")

    def text(self, label: Label | None) -> str:
        if label is None or not label.tex:
            return ""
        return f"${label.tex}$" if label.math else label.tex

    def _line(self, attrs: dict[str, str]) -> list[str]:
        opts = []
        style = attrs.get("style", "")
        if "dashed" in style:
            opts.append("dashed")
        if "dotted" in style:
            opts.append("dotted")
        if attrs.get("penwidth"):
            opts.append(f"line width={float(attrs['penwidth']) * 0.5:.2f}pt")
        return opts

    def _print_Node(self, node: Node, layout: dict, attrs: dict[str, str]) -> str:
        x, y = _points(layout["pos"])[0]
        w, h = float(layout["width"]) * 72, float(layout["height"]) * 72
        shape = attrs.get("shape", "ellipse")
        opts = [_SHAPES.get(shape, "ellipse")]
        if shape != "plaintext":
            fill = self.color(attrs.get("fillcolor"))
            opts += ["draw=" + (self.color(attrs.get("color")) or "black")]
            opts += [f"fill={fill}"] if fill and "filled" in attrs.get("style", "filled") else []
            opts += self._line(attrs)
        if shape in ("circle", "doublecircle"):
            size = min(w, h) - (6 if shape == "doublecircle" else 0)
            opts.append(f"minimum size={size:.1f}bp")
        else:
            opts += [f"minimum width={w:.1f}bp", f"minimum height={h:.1f}bp"]
        if attrs.get("fontcolor"):
            opts.append(f"text={self.color(attrs['fontcolor'])}")
        if node.kind in ("label", "note"):
            opts.append(r"font=\footnotesize")
        where = f"(n{layout['_gvid']}) at {_xy((x, y))}"
        return rf"\node[dg node, {', '.join(opts)}] {where} {{{self.text(node.label)}}};"

    def _print_Edge(self, edge: Edge, layout: dict) -> str:
        attrs = edge.attrs
        if "invis" in attrs.get("style", ""):
            return ""
        points, start, end = _spline(layout["pos"])
        opts = ["dg edge", f"draw={self.color(attrs.get('color')) or 'dgedge'}", *self._line(attrs)]
        colors = attrs.get("color", "").split(":")
        if len(colors) > 1:  # graphviz draws parallel lines; TikZ a line inside a line
            opts += [f"double={self.color(colors[1])}", "double distance=0.8pt"]
        if attrs.get("arrowhead") == "none":
            end = None
        path = _xy(points[0])
        for k in range(1, len(points) - 2, 3):
            a, b, c = points[k : k + 3]
            path += f" .. controls {_xy(a)} and {_xy(b)} .. {_xy(c)}"
        lines = [rf"\draw[{', '.join(opts)}] {path};"]
        for tip, base in ((end, points[-1]), (start, points[0])):
            if tip is not None:
                plain = [o for o in opts if not o.startswith("double")]
                arrow = ", ".join([*plain, "-{Stealth[length=5bp]}"])
                lines.append(rf"\draw[{arrow}] {_xy(base)} -- {_xy(tip)};")
        if edge.label is not None and "lp" in layout:
            lp = _points(layout["lp"])[0]
            lines.append(rf"\node[dg label] at {_xy(lp)} {{{self.text(edge.label)}}};")
        return "\n".join(lines)

    def _print_Cluster(self, cluster: Cluster, layout: dict) -> str:
        x0, y0, x1, y1 = (float(c) for c in layout["bb"].split(","))
        attrs = cluster.attrs
        opts = [
            f"draw={self.color(attrs.get('color', '#666666'))}",
            *self._line({"style": attrs.get("style", "dashed")}),
        ]
        if "filled" in attrs.get("style", "") and attrs.get("fillcolor"):
            opts.append(f"fill={self.color(attrs['fillcolor'])}")
        if "rounded" in attrs.get("style", ""):
            opts.append("rounded corners=4bp")
        lines = [rf"\draw[{', '.join(opts)}] {_xy((x0, y0))} rectangle {_xy((x1, y1))};"]
        if cluster.label is not None and "lp" in layout:
            lp = _points(layout["lp"])[0]
            lines.append(rf"\node[dg cluster label] at {_xy(lp)} {{{self.text(cluster.label)}}};")
        return "\n".join(lines)

    def _print_Caption(self, scene: Scene, center: tuple[float, float]) -> str:
        """The title and the legend where graphviz left room for them (rows of 14bp)."""
        rows = ([scene.title] if scene.title is not None else []) + [lab for _, lab in scene.legend]
        y = center[1] + 7 * len(rows) - 7
        lines = []
        if scene.title is not None:
            lines.append(rf"\node[dg title] at {_xy((center[0], y))} {{{self.text(scene.title)}}};")
            y -= 14
        width = 26 + 5.5 * max((len(lab.text) for _, lab in scene.legend), default=0)
        left = center[0] - width / 2
        for key, label in scene.legend:
            color, tint, pattern, *line = key
            if line:  # a line sample, as the edges of its kind are drawn
                opts = [f"draw={self.color(color)}", f"line width={line[0] * 0.5:.2f}pt"]
                opts += [pattern] if pattern != "solid" else []
                lines.append(
                    rf"\draw[{', '.join(opts)}] {_xy((left, y))} -- {_xy((left + 16, y))};"
                )
            else:
                opts = [f"draw={self.color(color)}", f"fill={self.color(tint)}", "line width=1pt"]
                opts += [pattern] if pattern != "solid" else []
                box = f"{_xy((left, y - 4))} rectangle {_xy((left + 16, y + 4))}"
                lines.append(rf"\draw[{', '.join(opts)}] {box};")
            text = f"at {_xy((left + 20, y))} {{{self.text(label)}}}"
            lines.append(rf"\node[dg cluster label, anchor=west] {text};")
            y -= 14
        return "\n".join(lines)

    def doprint(self) -> str:
        scene = self.scene = inline_labels(self.scene)
        dot = to_graphviz(scene)
        # a pinned scene's positions are points for ``neato -n2``; without it neato reads
        # them as inches (72 times too far: beyond TeX's largest dimension)
        no_op = 2 if scene.pinned else None
        with graphviz_failures():
            layout = json.loads(dot.pipe(format="json", neato_no_op=no_op, quiet=True))
        objects = layout.get("objects", [])
        # subgraphs first, then nodes, in one _gvid numbering; only nodes have "pos"
        by_name = {o["name"]: o for o in objects if "pos" in o and "nodes" not in o}
        clusters = {o["name"]: o for o in objects if str(o.get("name", "")).startswith("cluster_")}
        node_attrs = {
            name: {k: v for k, v in o.items() if not k.startswith("_")}
            for name, o in by_name.items()
        }
        body: list[str] = []
        depth: dict[str, int] = {}
        for c in scene.clusters.values():  # outer clusters first, so inner ones paint on top
            d, p = 0, c.parent
            while p is not None:
                d, p = d + 1, scene.clusters[p].parent
            depth[c.id] = d
        for c in sorted(scene.clusters.values(), key=lambda c: depth[c.id]):
            if f"cluster_{c.id}" in clusters:
                body.append(self._print_Cluster(c, clusters[f"cluster_{c.id}"]))
        ids = {o["_gvid"]: o["name"] for o in objects if "_gvid" in o}
        laid: dict[tuple[str, str], list[dict]] = {}  # graphviz lists edges by tail node
        for lay in sorted(layout.get("edges", []), key=lambda e: e["_gvid"]):
            laid.setdefault((ids[lay["tail"]], ids[lay["head"]]), []).append(lay)
        for edge in scene.edges:
            body.append(self._print_Edge(edge, laid[edge.tail, edge.head].pop(0)))
        for node in scene.nodes.values():
            if node.kind != "anchor":
                body.append(self._print_Node(node, by_name[node.id], node_attrs[node.id]))
        if "lp" in layout and (scene.title is not None or scene.legend):
            body.append(self._print_Caption(scene, _points(layout["lp"])[0]))
        style = scene.style
        colors = [
            rf"\definecolor{{{name}}}{{HTML}}{{{hexa}}}" for hexa, name in self.colors.items()
        ]
        edge_color = style.edge_color.lstrip("#").upper()
        options = ",\n  ".join(
            [
                "x=1bp, y=1bp",
                "dg node/.style={inner sep=1.5bp, font=\\small}",
                "dg edge/.style={line width=0.5pt}",
                "dg label/.style={font=\\footnotesize, inner sep=0.5bp}",
                "dg cluster label/.style={font=\\footnotesize}",
                "dg title/.style={font=\\normalsize}",
            ]
        )
        return (
            f"\\begin{{tikzpicture}}[\n  {options}]\n"
            + f"\\definecolor{{dgedge}}{{HTML}}{{{edge_color}}}\n"
            + "".join(c + "\n" for c in colors)
            + "\n".join(b for b in body if b)
            + "\n\\end{tikzpicture}\n"
        )


def to_tikz(scene: Scene, standalone: bool = False) -> str:
    """The scene as a ``tikzpicture`` (with ``standalone``, a whole LaTeX document).

    >>> from dgraph.frontends import bundled
    >>> from dgraph.render.drawing import draw
    >>> text = to_tikz(draw(bundled("naumann_sin.trace")).scene)
    >>> text.count(r"\\begin{tikzpicture}"), r"\\cos{\\left(x_{1} \\right)}" in text
    (1, True)
    """
    picture = TikzPrinter(scene).doprint()
    return _STANDALONE % picture if standalone else _PREAMBLE + picture
