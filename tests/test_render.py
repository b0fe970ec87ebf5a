"""Plain graphviz export: every format is what its suffix promises, in both directions."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pydot
import pytest

from dgraph.errors import DGraphError
from dgraph.render.dot import render, render_svg, to_dot


@pytest.mark.parametrize("direction", ["dataflow", "dependence"])
def test_every_format(tmp_path, sin_graph, direction):
    svg = render(sin_graph, tmp_path / "g.svg", direction).read_text()
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    assert (tmp_path / "g.svg").read_text().count("<svg") == 1
    assert render(sin_graph, tmp_path / "g.pdf", direction).read_bytes().startswith(b"%PDF")
    assert (
        render(sin_graph, tmp_path / "g.png", direction)
        .read_bytes()
        .startswith(b"\x89PNG\r\n\x1a\n")
    )
    (parsed,) = pydot.graph_from_dot_data(
        render(sin_graph, tmp_path / "g.dot", direction).read_text()
    )
    edges = {
        (e.get_source().strip('"'), e.get_destination().strip('"')) for e in parsed.get_edges()
    }
    expected = set(sin_graph.edges())
    assert edges == (expected if direction == "dataflow" else {(v, u) for u, v in expected})


def test_labels_are_partials_or_symbols(sin_graph, discrepancy_graph):
    assert "cos(x1)" in to_dot(sin_graph).source
    assert "d_i_k" in to_dot(discrepancy_graph).source


def test_notebook_svg(sin_graph):
    assert sin_graph._repr_svg_() == render_svg(sin_graph)
    assert "<svg" in render_svg(sin_graph)


def test_unknown_format_and_direction(tmp_path, sin_graph):
    with pytest.raises(DGraphError, match="unknown format"):
        render(sin_graph, tmp_path / "g.gif")
    with pytest.raises(DGraphError, match="unknown direction"):
        to_dot(sin_graph, "sideways")
