"""Notebook viewers for step frames that keep working in a saved notebook.

The frames of a step view share one layout (:mod:`dgraph.render.pinned`), so they are
kept as one SVG (:func:`shared_svg`): what all frames share once, and each version of
what a step changes once, marked with the frames it belongs to. Its size grows with the
changes, not with frames × graph.

* :func:`slider_html`: the shared SVG and each frame's expression set with a range slider
  (a few lines of inline JavaScript). Where a notebook viewer runs no scripts and
  sanitizes HTML (an untrusted notebook, a static renderer) it shows a static strip of
  PNG frames instead.
* :class:`AnimatedSVG`: the shared SVG cycling through the frames with SMIL ``<set>``
  elements, which browsers animate without scripts, also inside ``<img>`` (as which
  notebooks show it, trusted or not).
"""

from __future__ import annotations

import base64
import copy
import functools
import hashlib
import html as _html
import itertools
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass

import sympy

from .drawing import fit_width, lay_out_svgs, pngs
from .labels import expr_label
from .scene import SCRIPT_DROP, SCRIPT_RISE, SCRIPT_SCALE

__all__ = [
    "AnimatedSVG",
    "SharedSVG",
    "frame_panel_html",
    "shared_svg",
    "slider_html",
    "strip_frames",
]

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
ET.register_namespace("", SVG_NS)
ET.register_namespace("xlink", XLINK_NS)

STRIP_FRAMES = 4  # frames in the static strip shown where scripts do not run
STRIP_DPI = 72  # at most; wide drawings are scaled down to STRIP_WIDTH pixels
STRIP_WIDTH = 1000


def _math_rows(frame) -> list[tuple[str, str]]:
    rows = [
        (expr_label(n, frame.names).html, expr_label(d, frame.names).html)
        for n, d in frame.references
    ]
    for (y, x), e in frame.entries:
        lhs = f"∂{expr_label(sympy.Symbol(y)).html}/∂{expr_label(sympy.Symbol(x)).html}"
        rhs = expr_label(e, frame.names).html
        note = frame.block_note(x, y)  # a tensor graph's: the block's type and shape
        if note:  # a span the animated SVG's text (_tspans) keeps as plain text
            rhs += (
                f"  <span style='color:#555555;font-size:85%'>{_html.escape(note.strip())}</span>"
            )
        rows.append((lhs, rhs))
    return rows


def frame_panel_html(frame) -> str:
    """The expression set of one frame as an HTML table (references first)."""
    rows = "".join(
        f"<tr><td style='text-align:right;padding-right:0.4em'>{lhs}</td>"
        f"<td style='text-align:left'>= {rhs}</td></tr>"
        for lhs, rhs in _math_rows(frame)
    )
    if not rows:
        rows = "<tr><td><i>nothing computed yet</i></td></tr>"
    return f"<table style='font-family:serif;border-collapse:collapse'>{rows}</table>"


def strip_frames(n: int, most: int = STRIP_FRAMES) -> list[int]:
    """Which of ``n`` frames the static strip shows: all, or the first, the last and
    evenly spaced ones between.

    >>> strip_frames(4), strip_frames(33)
    ([0, 1, 2, 3], [0, 11, 21, 32])
    """
    if n <= most:
        return list(range(n))
    return sorted({round(k * (n - 1) / (most - 1)) for k in range(most)})


def _strip_html(frames) -> str:
    """The static strip: some frames as PNG images with their expression sets (what a
    sanitizer keeps: images and tables, no SVG, no scripts)."""
    chosen = strip_frames(len(frames))
    shown = [frames[k] for k in chosen]
    images = pngs([f.drawing for f in shown], [_strip_dpi(f) for f in shown])
    cells = []
    for frame, image in zip(shown, images, strict=True):
        png = base64.b64encode(image).decode()
        cells.append(
            "<div style='margin:0.3em 0'>"
            f"<img src='data:image/png;base64,{png}' alt='{_html.escape(frame.title)}' "
            "style='max-width:100%'>"
            f"{frame_panel_html(frame)}</div>"
        )
    note = ""
    if len(chosen) < len(frames):
        note = (
            f"<p><i>frames {', '.join(map(str, chosen))} of 0–{len(frames) - 1}; every "
            "frame, with a slider, where the notebook is trusted</i></p>"
        )
    return f"<div class='dgraph-strip'>{''.join(cells)}{note}</div>"


def _strip_dpi(frame) -> int:
    """A strip frame's resolution: :data:`STRIP_DPI`, less for a drawing wider than
    :data:`STRIP_WIDTH` pixels at that (its pinned layout's bounding box tells)."""
    bb = frame.drawing.scene.attrs.get("bb", "")
    width = float(bb.split(",")[2]) if bb.count(",") == 3 else 0.0
    if width * STRIP_DPI / 72 <= STRIP_WIDTH:
        return STRIP_DPI
    return max(12, int(STRIP_WIDTH * 72 / width))


_SCRIPT = """<script>(function(){var r=document.getElementById('UID');if(!r)return;
var d=r.querySelector('.dgraph-live'),b=atob(d.getAttribute('data-live')),
a=new Uint8Array(b.length);for(var i=0;i<b.length;i++)a[i]=b.charCodeAt(i);
d.innerHTML=new TextDecoder().decode(a);d.style.display='';
r.querySelector('.dgraph-strip').style.display='none';
var v=d.querySelectorAll('[data-frames]'),p=d.querySelectorAll('.dgraph-panel'),
s=d.querySelector('input'),c=d.querySelector('.dgraph-count');
function show(k){for(var i=0;i<v.length;i++){
var f=' '+v[i].getAttribute('data-frames')+' ';
v[i].setAttribute('display',f.indexOf(' '+k+' ')>=0?'inline':'none');}
for(var j=0;j<p.length;j++)p[j].style.display=(j==k)?'':'none';
c.textContent=k+' / '+(p.length-1);}
s.oninput=function(){show(+s.value);};show(0);})();</script>"""


def live_html(frames) -> str:
    """The interactive viewer: the shared SVG, each frame's expression set, a slider."""
    panels = "".join(
        f"<div class='dgraph-panel' data-k='{k}'"
        f"{'' if k == 0 else ' style=' + chr(39) + 'display:none' + chr(39)}>"
        f"{frame_panel_html(frame)}</div>"
        for k, frame in enumerate(frames)
    )
    return (
        "<div class='dgraph-controls' style='font-family:serif'>"
        f"<input type='range' min='0' max='{len(frames) - 1}' value='0' step='1' "
        "style='width:20em;vertical-align:middle'> <span class='dgraph-count'></span></div>"
        "<div style='display:flex;flex-wrap:wrap;gap:1.5em;align-items:flex-start'>"
        f"<div>{fit_width(shared_svg(frames).svg())}</div><div>{panels}</div></div>"
    )


def slider_html(frames) -> str:
    """The frames with a slider where scripts run, else a static strip of PNG frames.
    The live viewer (:func:`live_html`) travels base64-encoded in an attribute, so that
    a sanitizer that removes scripts and SVG leaves no stray text behind."""
    payload = base64.b64encode(live_html(frames).encode()).decode()
    uid = _viewer_id(payload)
    return (
        f"<div id='{uid}' class='dgraph-steps'>{_strip_html(frames)}"
        f"<div class='dgraph-live' data-live='{payload}' style='display:none'></div>"
        f"{_SCRIPT.replace('UID', uid)}</div>"
    )


_VIEWERS = itertools.count()  # the viewers made in this process, each id its own


def _viewer_id(payload: str) -> str:
    """An element id for one viewer: from its content and how many viewers this process
    made before, so that two viewers on one page never share it and the same program
    writes the same bytes (``dgraph render --steps -o f.html`` under any hash seed)."""
    key = f"{next(_VIEWERS)}:{payload}".encode()
    return f"dgraph-steps-{hashlib.sha256(key).hexdigest()[:10]}"


def _pt(value: str | None) -> float:
    """An SVG length (graphviz writes ``pt``) in points."""
    m = re.match(r"([\d.]+)", value or "0")
    return float(m.group(1)) if m else 0.0


def _tspans(parent: ET.Element, html: str, size: float = 12.0) -> None:
    """Graphviz HTML-like math (<I>, <SUB>, <SUP>) as SVG tspans, scripts moved by ``dy``
    (browsers apply ``baseline-shift`` unequally)."""
    italic, shift, offset = False, 0.0, 0.0
    small = False
    for token in re.split(r"(<[^>]+>)", html):
        tag = token.upper()
        if tag in ("<I>", "</I>"):
            italic = tag == "<I>"
        elif tag in ("<SUB>", "<SUP>"):
            shift = SCRIPT_DROP * size if tag == "<SUB>" else -SCRIPT_RISE * size
            small = True
        elif tag in ("</SUB>", "</SUP>"):
            shift, small = 0.0, False
        elif token and not token.startswith("<"):
            span = ET.SubElement(parent, f"{{{SVG_NS}}}tspan")
            span.text = _html.unescape(token)
            if italic:
                span.set("font-style", "italic")
            if small:
                span.set("font-size", f"{SCRIPT_SCALE * size:g}")
            if shift != offset:
                span.set("dy", f"{shift - offset:g}")
                offset = shift


@dataclass
class SharedSVG:
    """Frames as one SVG: what every frame shares once, and each version of what changes
    once, wrapped in a group marked with the frames it belongs to (``data-frames``,
    shown in frame 0 only to begin with)."""

    root: ET.Element
    varying: list[tuple[ET.Element, list[int]]]
    frames: int

    def svg(self) -> str:
        return ET.tostring(self.root, encoding="unicode")


_TOKEN = re.compile(
    r"<!--.*?-->|<\?.*?\?>|<!\[CDATA\[.*?\]\]>|<![^>]*>"
    r"|<(/?)([\w:.-]+)((?:\s+[^\s=/>]+\s*=\s*(?:\"[^\"]*\"|'[^']*'))*)\s*(/?)>",
    re.S,
)  # a comment, a processing instruction, CDATA, a declaration; else a tag (/, name, attributes, /)
_NAME = re.compile(r"<[\w:.-]+")
_FIRST_ID = re.compile(r"""\s+id\s*=\s*(?:"[^"]*"|'[^']*')""")
_ATTRIBUTE = re.compile(r"""\s+([^\s=/>]+)\s*=\s*(?:"[^"]*"|'[^']*')""")


@dataclass
class _Outline:
    """Where the parts of one graphviz SVG lie: its root's opening tag, its graph group's
    (the root's first ``g``; None without one), and each child of the graph group as
    (start, end of its opening tag, end, end of its tail) offsets in the text."""

    root: str
    group: str | None
    children: list[tuple[int, int, int, int]]


def _outline(text: str) -> _Outline:
    """The :class:`_Outline` of an SVG document, from its tags alone (nothing parsed)."""
    root, depth = "", 0
    for m in _TOKEN.finditer(text):
        closing, name, _, empty = m.groups()
        if name is None:
            continue
        if closing:
            depth -= 1
            continue
        if depth == 0:
            root = m.group(0)
        elif depth == 1 and name == "g":
            if empty:
                return _Outline(root, m.group(0), [])
            children, end = _children(text, m.end())
            return _Outline(root, m.group(0), _with_tails(children, end))
        if not empty:
            depth += 1
    return _Outline(root, None, [])


def _children(text: str, at: int) -> tuple[list[tuple[int, int, int, int]], int]:
    """The elements from ``at`` to the end of the group they are in: (start, end of the
    opening tag, end, 0) each, and where the group's closing tag starts."""
    children: list[tuple[int, int, int, int]] = []
    while True:
        start = text.find("<", at)
        if start < 0 or text.startswith("</", start):
            return children, len(text) if start < 0 else start
        m = _TOKEN.match(text, start)
        if m is None:  # not well formed: ET refuses it when it reads the element
            return children, start
        _, name, _, empty = m.groups()
        at = m.end() if name is None or empty else _element_end(text, m.end(), name)
        if name is not None:
            children.append((start, m.end(), at, 0))


def _element_end(text: str, opened: int, name: str) -> int:
    """Where the element whose opening tag (``name``) ends at ``opened`` ends: after the
    first closing tag of its name when no element of that name, comment, CDATA or
    processing instruction comes before it (the usual case: found without reading the
    tags between), else where its tags balance."""
    closing, nested = _closers(name)
    close = closing.search(text, opened)
    if close is not None:
        before = close.start()
        plain = text.find("<!", opened, before) < 0 and text.find("<?", opened, before) < 0
        if plain and nested.search(text, opened, before) is None:
            return close.end()
    depth = 1
    for m in _TOKEN.finditer(text, opened):
        closed, tag, _, empty = m.groups()
        if tag is None or empty:
            continue
        depth += -1 if closed else 1
        if depth == 0:
            return m.end()
    return len(text)


@functools.lru_cache(maxsize=64)
def _closers(name: str) -> tuple[re.Pattern, re.Pattern]:
    """A closing tag of ``name``, and an opening one."""
    return re.compile(rf"</{re.escape(name)}\s*>"), re.compile(rf"<{re.escape(name)}[\s/>]")


def _with_tails(children: list[tuple[int, int, int, int]], end: int):
    """Each child's tail ends where the next child (or the group) begins."""
    nexts = [c[0] for c in children[1:]] + [end]
    return [(a, b, c, d) for (a, b, c, _), d in zip(children, nexts, strict=True)]


def _without_id(tag: str) -> str:
    """An opening tag without its ``id`` attribute (graphviz numbers its groups in order,
    node12, edge5: not the same across frames)."""
    name = _NAME.match(tag).end()
    first = _FIRST_ID.match(tag, name)  # graphviz writes the id first
    if first is not None:
        return tag[: first.start()] + tag[first.end() :]
    if "id" not in tag:
        return tag
    attributes = list(_ATTRIBUTE.finditer(tag, name))
    rest = attributes[-1].end() if attributes else name
    kept = "".join(a.group(0) for a in attributes if a.group(1) != "id")
    return tag[:name] + kept + tag[rest:]


def _tail(raw: str) -> str | None:
    """The text an element's tail holds (entities read, comments dropped), as ET reads it."""
    if "<" not in raw and "&" not in raw:
        return raw or None
    return ET.fromstring(f"<t>{raw}</t>").text


class _Children:
    """The graph groups' children of frames drawn on one layout, each keyed by what
    identifies it across frames: its title (node and edge names), else its place among
    the untitled ones (background, caption). Each distinct child is parsed once: what
    changes is parsed once per version, not once per frame."""

    def __init__(self, root: str) -> None:
        self.root = root  # an opening tag with the namespaces the children need
        self.parsed: dict[tuple[str, str, str], tuple[tuple | None, ET.Element]] = {}
        self.placed: dict[int, tuple] = {}  # an element's id: the key it was first kept at

    def element(self, text: str, child: tuple[int, int, int, int], loose: int) -> tuple:
        """The child's key, its element (id dropped, tail as ET reads it) and whether it is
        untitled."""
        start, opened, end, tail_end = child
        raw = (_without_id(text[start:opened]), text[opened:end], text[end:tail_end])
        found = self.parsed.get(raw)
        if found is None:
            element = ET.fromstring(f"{self.root}{raw[0]}{raw[1]}</svg>")[0]
            element.tail = _tail(raw[2])
            title = element.find(f"{{{SVG_NS}}}title")
            titled = (element.get("class"), title.text) if title is not None else None
            found = self.parsed[raw] = (titled, element)
        key, element = found[0] or ("loose", loose), found[1]
        if self.placed.setdefault(id(element), key) != key:  # one text at two places
            element = copy.deepcopy(element)
        return key, element, found[0] is None


def _frame_items(texts: list[str], outlines: list[_Outline]) -> dict[tuple, list]:
    """Each child of the frames' graph groups, by key: the versions (frame, element)."""
    items: dict[tuple, list[tuple[int, ET.Element]]] = {}
    children = _Children(outlines[0].root)
    for k, (text, outline) in enumerate(zip(texts, outlines, strict=True)):
        loose = 0
        for child in outline.children:
            key, element, untitled = children.element(text, child, loose)
            loose += untitled
            items.setdefault(key, []).append((k, element))
    return items


def _root_attrs(outline: _Outline) -> dict[str, str]:
    return dict(ET.fromstring(f"{outline.root}</svg>").attrib)


def _transform(outline: _Outline) -> str | None:
    if outline.group is None:
        return None
    return ET.fromstring(f"{outline.root}{outline.group}</g></svg>")[0].get("transform")


def shared_svg(frames, rows: bool = False) -> SharedSVG:
    """The frames' drawings as one :class:`SharedSVG`: frames drawn on one pinned layout
    share their transform and their unchanged elements; frames that do not are each one
    version of the whole drawing. ``rows`` adds each frame's expression set as lines of
    text under the drawing."""
    lay_out_svgs([f.drawing for f in frames])  # in one graphviz process
    texts = [f.drawing.pipe("svg").decode() for f in frames]
    outlines = [_outline(t) for t in texts]
    sizes = [_root_attrs(o) for o in outlines]
    n = len(frames)
    line = 16.0
    width = max(_pt(p.get("width")) for p in sizes)
    graph_h = max(_pt(p.get("height")) for p in sizes)
    math = [_math_rows(f) for f in frames] if rows else []
    n_rows = max(map(len, math), default=0)
    height = graph_h + (line * (n_rows + 1) + 8 if rows else 0)
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
    ET.SubElement(root, f"{{{SVG_NS}}}rect", {"width": "100%", "height": "100%", "fill": "white"})
    transforms = {_transform(o) for o in outlines}
    if len(transforms) == 1 and None not in transforms:
        holder = ET.SubElement(root, f"{{{SVG_NS}}}g", {"transform": transforms.pop()})
        items = _frame_items(texts, outlines)
    else:
        holder = root
        items = {("frame", k): [(k, _whole(text))] for k, text in enumerate(texts)}
    varying: list[tuple[ET.Element, list[int]]] = []
    contents: dict[int, tuple[ET.Element, tuple]] = {}  # by id, the element kept alive

    def content(element: ET.Element) -> tuple:
        found = contents.get(id(element))
        if found is None:
            found = contents[id(element)] = (element, _content(element))
        return found[1]

    def place(parent: ET.Element, versions: list[tuple[int, ET.Element]]) -> None:
        groups: dict[tuple, tuple[list[int], ET.Element]] = {}
        for k, element in versions:
            groups.setdefault(content(element), ([], element))[0].append(k)
        if len(groups) == 1 and len(versions) == n:
            parent.append(versions[0][1])
            return
        for shown, element in groups.values():
            attrs = {"data-frames": " ".join(map(str, shown))}
            attrs["display"] = "inline" if shown[0] == 0 else "none"
            wrap = ET.SubElement(parent, f"{{{SVG_NS}}}g", attrs)
            wrap.append(element)
            varying.append((wrap, shown))

    for versions in items.values():
        place(holder, versions)
    for i in range(n_rows):
        versions = []
        for k, frame_rows in enumerate(math):
            if i < len(frame_rows):
                y = graph_h + line * (i + 1)
                text = ET.Element(f"{{{SVG_NS}}}text", {"x": "8", "y": f"{y:.1f}"})
                lhs, rhs = frame_rows[i]
                _tspans(text, f"{lhs} = {rhs}")
                versions.append((k, text))
        place(root, versions)
    return SharedSVG(root, varying, n)


def _whole(text: str) -> ET.Element:
    """A frame's whole drawing, placed at the top left, sized in user units (points)."""
    piece = ET.fromstring(text.encode())
    piece.set("x", "0")
    piece.set("y", "0")
    piece.set("width", f"{_pt(piece.get('width')):g}")
    piece.set("height", f"{_pt(piece.get('height')):g}")
    return piece


def _content(element: ET.Element) -> tuple:
    """What ``ET.tostring(element)`` writes, as a tuple: equal for two elements exactly
    where their serializations are (tag, attributes in order, text, children, tail), and
    cheaper to build and compare than the text."""
    return (
        element.tag,
        tuple(element.items()),
        element.text,
        element.tail,
        tuple(map(_content, element)),
    )


class AnimatedSVG:
    """The frames as one animated SVG (:func:`shared_svg` with SMIL ``<set>`` elements):
    each frame is shown for ``seconds``, the last one twice as long, then it starts
    again."""

    def __init__(self, frames, seconds: float = 1.6) -> None:
        self.frames = frames
        self.seconds = seconds

    def svg(self) -> str:
        shared = shared_svg(self.frames, rows=True)
        n = len(self.frames)
        clock = ET.Element(f"{{{SVG_NS}}}rect", {"width": "0", "height": "0"})
        shared.root.insert(1, clock)
        ET.SubElement(
            clock,
            f"{{{SVG_NS}}}animate",
            {
                "id": "dgclock",
                "attributeName": "x",
                "from": "0",
                "to": "0",
                "dur": f"{self.seconds * (n + 1):g}s",
                "begin": "0s;dgclock.end",
            },
        )
        for wrap, shown in shared.varying:
            wrap.set("display", "none")
            for first, last in _runs(shown):
                end = last + 1 + (last == n - 1)  # the last frame stays twice as long
                ET.SubElement(
                    wrap,
                    f"{{{SVG_NS}}}set",
                    {
                        "attributeName": "display",
                        "to": "inline",
                        "begin": f"dgclock.begin+{self.seconds * first:g}s",
                        "dur": f"{self.seconds * (end - first):g}s",
                    },
                )
        return shared.svg()

    def _repr_svg_(self) -> str:
        return self.svg()

    def _repr_html_(self) -> str:
        """The animation as an image: an SVG inside ``<img>`` runs no scripts, so
        untrusted notebooks show it too (they show no ``image/svg+xml``)."""
        data = base64.b64encode(self.svg().encode()).decode()
        return (
            f"<img src='data:image/svg+xml;base64,{data}' alt='{len(self.frames)} frames' "
            "style='max-width:100%'>"
        )

    def save(self, path) -> None:
        from pathlib import Path

        Path(path).write_text(self.svg())


def _runs(frames: list[int]) -> list[tuple[int, int]]:
    """Consecutive runs in a sorted list of frame numbers, as (first, last) pairs.

    >>> _runs([0, 1, 2, 5, 7, 8])
    [(0, 2), (5, 5), (7, 8)]
    """
    out: list[tuple[int, int]] = []
    for k in frames:
        if out and out[-1][1] == k - 1:
            out[-1] = (out[-1][0], k)
        else:
            out.append((k, k))
    return out
