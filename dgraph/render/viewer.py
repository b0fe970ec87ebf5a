"""Notebook viewers for step frames that keep working in a saved notebook.

* :func:`slider_html`: every frame (drawing and expression set so far) in one HTML block
  with a range slider. The slider is a few lines of inline JavaScript; where a notebook
  viewer runs no scripts (an untrusted notebook, a static renderer) the block shows every
  frame in order instead, so nothing is lost.
* :class:`AnimatedSVG`: the frames in one SVG that cycles through them with SMIL
  ``<set>`` elements, which browsers animate without scripts, also inside ``<img>``.
"""

from __future__ import annotations

import html as _html
import re
import uuid
import xml.etree.ElementTree as ET

import sympy

from .labels import expr_label

__all__ = ["AnimatedSVG", "frame_panel_html", "slider_html"]

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
ET.register_namespace("", SVG_NS)
ET.register_namespace("xlink", XLINK_NS)


def _inline_svg(svg: str) -> str:
    """An SVG document as an element to inline in HTML (no XML prolog or doctype)."""
    start = svg.find("<svg")
    return svg[start:] if start >= 0 else svg


def _math_rows(frame) -> list[tuple[str, str]]:
    rows = [
        (expr_label(n, frame.names).html, expr_label(d, frame.names).html)
        for n, d in frame.references
    ]
    for (y, x), e in frame.entries:
        lhs = f"∂{expr_label(sympy.Symbol(y)).html}/∂{expr_label(sympy.Symbol(x)).html}"
        rows.append((lhs, expr_label(e, frame.names).html))
    return rows


def frame_panel_html(frame) -> str:
    """The expression set of one frame as an HTML table (references first)."""
    rows = "".join(
        f"<tr><td style='text-align:right;padding-right:0.4em'>{lhs}</td><td>= {rhs}</td></tr>"
        for lhs, rhs in _math_rows(frame)
    )
    if not rows:
        rows = "<tr><td><i>nothing computed yet</i></td></tr>"
    return f"<table style='font-family:serif;border-collapse:collapse'>{rows}</table>"


def slider_html(frames) -> str:
    """Every frame in one block; a slider picks one when scripts run."""
    uid = f"dgraph-steps-{uuid.uuid4().hex[:10]}"
    parts = []
    for k, frame in enumerate(frames):
        parts.append(
            f"<div class='dgraph-frame' data-k='{k}' style='margin:0.5em 0'>"
            # the drawing carries the frame's title
            "<div style='display:flex;flex-wrap:wrap;gap:1.5em;align-items:flex-start'>"
            f"<div>{_inline_svg(frame.drawing.svg())}</div>"
            f"<div>{frame_panel_html(frame)}</div></div></div>"
        )
    script = (
        "<script>(function(){var r=document.getElementById('UID');if(!r)return;"
        "var f=r.querySelectorAll('.dgraph-frame'),s=r.querySelector('input'),"
        "c=r.querySelector('.dgraph-count');function show(k){for(var i=0;i<f.length;i++)"
        "f[i].style.display=(i==k)?'':'none';c.textContent=k+' / '+(f.length-1);}"
        "r.querySelector('.dgraph-controls').style.display='';"
        "s.oninput=function(){show(+s.value);};show(0);})();</script>"
    ).replace("UID", uid)
    controls = (
        "<div class='dgraph-controls' style='display:none;font-family:serif'>"
        f"<input type='range' min='0' max='{len(frames) - 1}' value='0' step='1' "
        "style='width:20em;vertical-align:middle'> <span class='dgraph-count'></span></div>"
    )
    return f"<div id='{uid}'>{controls}{''.join(parts)}{script}</div>"


def _pt(value: str | None) -> float:
    """An SVG length (graphviz writes ``pt``) in points."""
    m = re.match(r"([\d.]+)", value or "0")
    return float(m.group(1)) if m else 0.0


def _tspans(parent: ET.Element, html: str) -> None:
    """Graphviz HTML-like math (<I>, <SUB>, <SUP>) as SVG tspans."""
    italic = shift = False
    for token in re.split(r"(<[^>]+>)", html):
        tag = token.upper()
        if tag in ("<I>", "</I>"):
            italic = tag == "<I>"
        elif tag in ("<SUB>", "<SUP>"):
            shift = "sub" if tag == "<SUB>" else "super"
        elif tag in ("</SUB>", "</SUP>"):
            shift = False
        elif token and not token.startswith("<"):
            span = ET.SubElement(parent, f"{{{SVG_NS}}}tspan")
            span.text = _html.unescape(token)
            if italic:
                span.set("font-style", "italic")
            if shift:
                span.set("baseline-shift", shift)
                span.set("font-size", "75%")


class AnimatedSVG:
    """The frames as one animated SVG: each frame is shown for ``seconds``, the last one
    twice as long, then it starts again."""

    def __init__(self, frames, seconds: float = 1.6) -> None:
        self.frames = frames
        self.seconds = seconds

    def svg(self) -> str:
        line = 16.0
        pieces = [ET.fromstring(f.drawing.pipe("svg")) for f in self.frames]
        width = max(_pt(p.get("width")) for p in pieces)
        rows = max(len(_math_rows(f)) for f in self.frames)
        graph_h = max(_pt(p.get("height")) for p in pieces)
        height = graph_h + line * (rows + 1) + 8
        root = ET.Element(
            f"{{{SVG_NS}}}svg",
            {
                "width": f"{width:.0f}pt",
                "height": f"{height:.0f}pt",
                "viewBox": f"0 0 {width:.1f} {height:.1f}",
                "font-family": "Times,serif",
                "font-size": "12",
            },
        )
        ET.SubElement(
            root, f"{{{SVG_NS}}}rect", {"width": "100%", "height": "100%", "fill": "white"}
        )
        n = len(self.frames)
        cycle = self.seconds * (n + 1)
        clock = ET.SubElement(root, f"{{{SVG_NS}}}rect", {"width": "0", "height": "0"})
        ET.SubElement(
            clock,
            f"{{{SVG_NS}}}animate",
            {
                "id": "dgclock",
                "attributeName": "x",
                "from": "0",
                "to": "0",
                "dur": f"{cycle:g}s",
                "begin": "0s;dgclock.end",
            },
        )
        for k, (frame, piece) in enumerate(zip(self.frames, pieces, strict=True)):
            group = ET.SubElement(root, f"{{{SVG_NS}}}g", {"visibility": "hidden"})
            duration = self.seconds * (2 if k == n - 1 else 1)
            ET.SubElement(
                group,
                f"{{{SVG_NS}}}set",
                {
                    "attributeName": "visibility",
                    "to": "visible",
                    "begin": f"dgclock.begin+{self.seconds * k:g}s",
                    "dur": f"{duration:g}s",
                },
            )
            piece.set("x", "0")
            piece.set("y", "0")
            piece.set("width", f"{_pt(piece.get('width')):g}")  # user units = points
            piece.set("height", f"{_pt(piece.get('height')):g}")
            group.append(piece)
            y = graph_h + line
            for lhs, rhs in _math_rows(frame):
                text = ET.SubElement(group, f"{{{SVG_NS}}}text", {"x": "8", "y": f"{y:.1f}"})
                _tspans(text, f"{lhs} = {rhs}")
                y += line
        return ET.tostring(root, encoding="unicode")

    def _repr_svg_(self) -> str:
        return self.svg()

    def save(self, path) -> None:
        from pathlib import Path

        Path(path).write_text(self.svg())
