"""Geometry of a graphviz layout, read from its JSON output (``dot -Tjson``): the boxes
that label text occupies as drawn (scripts moved as :func:`dgraph.render.scene.place_scripts`
moves them) and the edges' curves, to test that no edge runs through a label."""

from __future__ import annotations

import itertools
import json

from dgraph.render.scene import SCRIPT_DROP, SCRIPT_RISE, SCRIPT_SCALE

ASCENT, DESCENT = 0.72, 0.22  # glyph extents of a serif font, relative to its size
SUBSCRIPT, SUPERSCRIPT = 16, 8  # xdot font characteristics bits


def layout(drawing) -> dict:
    """The drawing's SVG layout as graphviz's JSON (laid out once per distinct source:
    drawings that differ only in what their SVG adds share one graphviz run)."""
    dot = drawing._svg_dot
    key = (dot.source, dot.engine)
    if key not in _LAID_OUT:
        if len(_LAID_OUT) > 64:
            _LAID_OUT.clear()
        _LAID_OUT[key] = dot.pipe(format="json")
    return json.loads(_LAID_OUT[key])


_LAID_OUT: dict[tuple[str, str], bytes] = {}


def text_boxes(obj: dict) -> list[tuple[str, tuple[float, float, float, float]]]:
    """(text, (x0, y0, x1, y1)) of every text run an object's label draws (y up)."""
    out, size, flags = [], 14.0, 0
    for op in obj.get("_ldraw_", []):
        if op["op"] == "F":
            size = op["size"]
        elif op["op"] == "t":
            flags = op["fontchar"]
        elif op["op"] == "T":
            x, y = op["pt"]
            w = op["width"]
            x0 = {"l": x, "c": x - w / 2, "r": x - w}[op["align"]]
            base = size / SCRIPT_SCALE
            if flags & SUBSCRIPT:
                y -= SCRIPT_DROP * base
            elif flags & SUPERSCRIPT:
                y += SCRIPT_RISE * base
            out.append((op["text"], (x0, y - DESCENT * size, x0 + w, y + ASCENT * size)))
    return out


def _cubic(p, t):
    s = 1 - t
    return tuple(
        s**3 * p[0][i] + 3 * s * s * t * p[1][i] + 3 * s * t * t * p[2][i] + t**3 * p[3][i]
        for i in (0, 1)
    )


def edge_polylines(edge: dict, samples: int = 24) -> list[list[tuple[float, float]]]:
    """An edge's curve and arrowheads as polylines."""
    lines = []
    for key in ("_draw_", "_hdraw_", "_tdraw_"):
        for op in edge.get(key, []):
            pts = op.get("points")
            if op["op"] in ("b", "B"):
                line = []
                for k in range(0, len(pts) - 3, 3):
                    line += [_cubic(pts[k : k + 4], j / samples) for j in range(samples + 1)]
                lines.append(line)
            elif op["op"] in ("p", "P", "L"):
                lines.append([*map(tuple, pts), tuple(pts[0])])
    return lines


def _crosses(a, b, box) -> bool:
    """Whether segment ab meets the open box (Liang–Barsky clipping)."""
    x0, y0, x1, y1 = box
    t0, t1 = 0.0, 1.0
    dx, dy = b[0] - a[0], b[1] - a[1]
    for p, q in ((-dx, a[0] - x0), (dx, x1 - a[0]), (-dy, a[1] - y0), (dy, y1 - a[1])):
        if p == 0:
            if q <= 0:
                return False
            continue
        r = q / p
        if p < 0:
            t0 = max(t0, r)
        else:
            t1 = min(t1, r)
        if t0 >= t1:
            return False
    return True


def _boxes(data: dict, slack: float) -> list[tuple[str, str, tuple]]:
    """Every text run of the drawing, its box shrunk by ``slack`` points on each side."""
    boxes = []
    for obj in [data, *data.get("objects", []), *data.get("edges", [])]:
        for text, (x0, y0, x1, y1) in text_boxes(obj):
            if text.strip():
                shrunk = (x0 + slack, y0 + slack, x1 - slack, y1 - slack)
                boxes.append((text, obj.get("name", "?"), shrunk))
    return boxes


def overlaps(data: dict, slack: float = 0.25) -> list[str]:
    """Every pair of text runs whose boxes intersect (e.g. a subscript reaching into the
    next line of its label)."""
    boxes = _boxes(data, slack)
    found = []
    for k, (t1, o1, a) in enumerate(boxes):
        for t2, o2, b in boxes[k + 1 :]:
            if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                found.append(f"{t1!r} of {o1} overlaps {t2!r} of {o2}")
    return found


def collisions(data: dict, slack: float = 0.25) -> list[str]:
    """Every (label text, edge) pair where the edge runs through the text's box (shrunk by
    ``slack`` points on each side)."""
    boxes = _boxes(data, slack)
    names = {o["_gvid"]: o["name"] for o in data.get("objects", [])}
    found = []
    for e in data.get("edges", []):
        where = f"{names.get(e['tail'])}->{names.get(e['head'])}"
        for line in edge_polylines(e):
            segments = [
                (min(a[0], b[0]), min(a[1], b[1]), max(a[0], b[0]), max(a[1], b[1]), a, b)
                for a, b in itertools.pairwise(line)
            ]
            xs, ys = [x for x, _ in line], [y for _, y in line]
            lx0, ly0, lx1, ly1 = min(xs), min(ys), max(xs), max(ys)
            for text, owner, box in boxes:
                x0, y0, x1, y1 = box
                # a segment wholly on or beyond one side of the open box cannot meet it
                if lx1 <= x0 or lx0 >= x1 or ly1 <= y0 or ly0 >= y1:
                    continue
                if any(
                    _crosses(a, b, box)
                    for sx0, sy0, sx1, sy1, a, b in segments
                    if sx1 > x0 and sx0 < x1 and sy1 > y0 and sy0 < y1
                ):
                    found.append(f"edge {where} crosses {text!r} of {owner}")
    return sorted(set(found))
