"""Drawings keep their labels clear: no edge runs through a label's text and no two text
runs overlap, on every view of every bundled example (geometry from graphviz's own layout,
scripts placed as dgraph's SVG places them)."""

from __future__ import annotations

import re

import pytest

from dgraph.frontends import bundled
from dgraph.render.drawing import draw
from dgraph.render.scene import SCRIPT_DROP, SCRIPT_RISE, SCRIPT_SCALE, place_scripts

from .layout_geometry import collisions, layout, overlaps

EXAMPLES = [
    "naumann_discrepancy.json",
    "naumann_sin.trace",
    "spherical_coordinates.trace",
    "zhou_complex_block.json",
    "zhou_two_blocks.json",
]
CASES = [
    (name, view, direction, highlight)
    for name in EXAMPLES
    for view in ("graph", "line", "levels", "pages")
    for direction in ("dataflow", "dependence")
    for highlight in (None, "blocks", "factors")
]


@pytest.mark.parametrize("name,view,direction,highlight", CASES)
def test_no_edge_crosses_a_label_and_no_text_overlaps(name, view, direction, highlight):
    data = layout(draw(bundled(name), view, direction=direction, highlight=highlight))
    assert collisions(data) == []
    assert overlaps(data) == []


def test_the_check_finds_an_edge_through_a_label_and_a_script_into_the_next_line():
    text = [{"op": "F", "size": 10.0, "face": "Times"}]
    label = {
        "name": "lab",
        "_gvid": 0,
        "_ldraw_": [
            *text,
            {"op": "T", "pt": [0, 20], "align": "l", "width": 20, "text": "top"},
            {"op": "F", "size": 7.0, "face": "Times"},
            {"op": "t", "fontchar": 16},
            {"op": "T", "pt": [20, 20], "align": "l", "width": 10, "text": "sub"},
            {"op": "t", "fontchar": 0},
            *text,
            {"op": "T", "pt": [20, 12], "align": "l", "width": 20, "text": "next"},
        ],
    }
    edge = {
        "tail": 0,
        "head": 0,
        "_draw_": [{"op": "b", "points": [[5, 40], [5, 30], [5, 25], [5, 0]]}],
    }
    data = {"objects": [label], "edges": [edge]}
    assert collisions(data) == ["edge lab->lab crosses 'top' of lab"]
    assert overlaps(data) == ["'sub' of lab overlaps 'next' of lab"]


def test_scripts_are_drawn_smaller_and_moved_by_their_own_baseline():
    svg = draw(bundled("zhou_two_blocks.json"), direction="dependence").svg()
    assert "baseline-shift" not in svg
    runs = re.findall(r'<text [^>]*y="(-?[\d.]+)"[^>]*font-size="([\d.]+)"[^>]*>([^<]*)<', svg)
    subs = [(float(y), float(s), t) for y, s, t in runs if float(s) < 10]
    assert len(subs) == 8 and {s for _, s, _ in subs} == {7.0}
    for k, (y, size, _) in enumerate(runs):
        if float(size) == 7.0:
            base_y, base_size, _ = runs[k - 1]
            assert float(y) == pytest.approx(float(base_y) + SCRIPT_DROP * float(base_size))
            assert float(size) == pytest.approx(SCRIPT_SCALE * float(base_size))


def test_superscripts_move_up():
    svg = '<text x="1" y="-10" font-family="Times" baseline-shift="super" font-size="7.00">2</text>'
    moved = f'<text x="1" y="{-10 - SCRIPT_RISE * 10:.2f}" font-family="Times" font-size="7.00">'
    assert place_scripts(svg) == moved + "2</text>"
