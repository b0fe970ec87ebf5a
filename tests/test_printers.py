"""Output formats live in the renderer: printers registered from dgraph.render, one
``_print_<Type>`` per result type, unknown settings refused."""

from __future__ import annotations

import re

import pytest

import dgraph
from dgraph.core.display import Printable, formatted
from dgraph.errors import DGraphError
from dgraph.render.printers import HtmlPrinter, LatexPrinter, MarkdownPrinter, TextPrinter


@pytest.fixture(scope="module")
def reverse_sin():
    return dgraph.accumulate(dgraph.bundled("naumann_sin.trace"), "reverse")


def test_text_and_latex_come_from_the_printers(reverse_sin):
    assert reverse_sin.to_text() == TextPrinter().doprint(reverse_sin)
    assert reverse_sin.to_text().splitlines()[0] == "dy/dx0 = d_y_v2*d_v2_x0"
    latex = reverse_sin.to_latex()
    assert latex.startswith("\\begin{align*}") and latex == LatexPrinter().doprint(reverse_sin)
    assert reverse_sin._repr_latex_() == LatexPrinter(notebook=True).doprint(reverse_sin)
    assert reverse_sin._repr_latex_().startswith("$$\\begin{aligned}")


def test_jupyter_offers_only_each_types_formats(reverse_sin):
    assert reverse_sin._repr_html_() is None  # front ends would prefer it to LaTeX
    assert reverse_sin.to_html().startswith("<div>")
    assert reverse_sin._repr_markdown_() is None and reverse_sin._repr_svg_() is None
    comparison = dgraph.compare(reverse_sin.graph, ["forward", "reverse"])
    assert comparison._repr_html_().startswith("<table>")
    assert comparison._repr_markdown_() == MarkdownPrinter().doprint(comparison)
    assert comparison._repr_latex_() is None
    assert "best: " in comparison.to_text()


def test_markdown_setting(reverse_sin):
    assert "$" in reverse_sin.to_markdown()
    assert "- `dy/dx0 = d_y_v2*d_v2_x0`" in reverse_sin.to_markdown(math=False)


def test_unknown_setting_and_type_raise(reverse_sin):
    with pytest.raises(DGraphError, match="Unknown setting 'maths'"):
        MarkdownPrinter(maths=False)
    with pytest.raises(DGraphError, match="cannot print"):
        HtmlPrinter().doprint(reverse_sin.graph)
    with pytest.raises(DGraphError, match="no latex printer for DGraph"):
        reverse_sin.graph.to_latex()


def test_a_type_without_printers_keeps_its_repr():
    class Bare(Printable):
        rich_formats = ("html",)

    assert Bare()._repr_html_() is None
    with pytest.raises(DGraphError, match="no text printer for Bare"):
        formatted(Bare(), "text")


def test_drawings_offer_png_beside_svg_and_fit_the_page_in_notebooks(reverse_sin):
    from dgraph.render.drawing import draw

    graph = reverse_sin.graph
    svg, png = graph._repr_svg_(), graph._repr_png_()
    assert svg.count('style="max-width:100%;height:auto"') == 1 and "<svg style=" in svg
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 1000
    drawing = draw(graph)
    assert drawing._repr_png_().startswith(b"\x89PNG") and "max-width:100%" in drawing._repr_svg_()
    assert "max-width" not in drawing.svg()  # files keep their natural size
    # zoomed: natural size times the scale, unconfined by the page's width
    svg, meta = drawing.zoom(2)._repr_svg_()
    natural = re.search(r'width="([\d.]+)pt"', drawing.svg()).group(1)
    assert f'width="{2 * float(natural):g}pt"' in svg and "max-width" not in svg
    assert meta == {"unconfined": True} and drawing.zoom(2)._repr_png_()[1] == meta
    with pytest.raises(DGraphError, match="positive"):
        drawing.zoom(-1)
    assert reverse_sin._repr_png_() is None  # expression sets are LaTeX
