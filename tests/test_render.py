"""Drawings: every export format of every view is what its suffix promises, labels are
math and never overlap a node, a label or an edge, regions are the structures the
analyses report, and the notebook output of graphs, expression sets and comparisons."""

from __future__ import annotations

import dataclasses
import itertools
import json
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import numpy as np
import pytest
import sympy
from hypothesis import given, settings

import dgraph
from dgraph.bench.suite import suite
from dgraph.core.paths import count_paths
from dgraph.errors import DGraphError
from dgraph.faces.elimination import FaceState, input_output_paths
from dgraph.frontends import bundled
from dgraph.render import regions as region_module
from dgraph.render.dot import metagraph_dot, render, render_svg, to_dot
from dgraph.render.drawing import FORMATS, VIEWS, draw, fit_width
from dgraph.render.faces import face_state_dot
from dgraph.render.labels import expr_label, symbol_names, vertex_label
from dgraph.render.regions import (
    block_regions,
    chain_regions,
    closed_umbrella_regions,
    page_regions,
    regions,
)
from dgraph.render.stepviews import steps
from dgraph.render.styles import get_style
from dgraph.zhou.structure import zhou_structure

from .pdflatex import pdflatex
from .strategies import dags

PAPER = ["naumann_sin.trace", "naumann_discrepancy.json", "zhou_two_blocks.json"]
PNG = b"\x89PNG\r\n\x1a\n"


def _drawn_edges(dot_source: str) -> set[tuple[str, str]]:
    """The arcs of a DOT file with label nodes (``label-k``) folded back into their arc."""
    done = subprocess.run(
        ["gvpr", r'BEG_G{print("graph")} E{print($.tail.name, "\t", $.head.name)}'],
        input=dot_source,
        capture_output=True,
        text=True,
        timeout=60,
    )  # graphviz's own parser (pydot's pure-Python one took most of the time)
    assert done.returncode == 0 and not done.stderr.strip(), done.stderr
    graph, *arcs = done.stdout.splitlines()
    assert graph == "graph"
    into: dict[str, str] = {}
    out: dict[str, str] = {}
    plain = set()
    for arc in arcs:
        a, b = arc.split("\t")
        if b.startswith("label-"):
            into[b] = a
        elif a.startswith("label-"):
            out[a] = b
        else:
            plain.add((a, b))
    assert into.keys() == out.keys()
    return plain | {(into[k], out[k]) for k in into}


def _declared_nodes(path) -> set[str]:
    """The nodes a DOT file declares (with a shape: not only named by an edge), read by
    graphviz's own parser (``gvpr``, no layout; pydot's pure-Python parser took most of
    the time); the file must be one graph that reads without a complaint."""
    done = subprocess.run(
        ["gvpr", r'BEG_G{print("graph")} N{if ($.shape != "") print("node\t", $.name)}', path],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and not done.stderr.strip(), done.stderr
    lines = done.stdout.splitlines()
    assert lines.count("graph") == 1
    return {line.split("\t", 1)[1] for line in lines if line.startswith("node\t")}


# -- every format, every view --------------------------------------------------------------


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("name", ["naumann_sin.trace", "spherical_coordinates.trace"])
def test_every_format_every_view(tmp_path, name, view):
    d = draw(bundled(name), view)
    files = {suffix: d.save(tmp_path / f"g{suffix}") for suffix in FORMATS}
    svg = files[".svg"].read_text()
    assert ET.fromstring(svg).tag.endswith("svg") and svg.count("<svg") == 1
    pdf = files[".pdf"].read_bytes()
    assert pdf.startswith(b"%PDF")  # dated 2000-01-01 (cairo's clock: a new file each second)
    assert re.findall(rb"/CreationDate \(D:\d+", pdf) == [b"/CreationDate (D:20000101000000"]
    assert files[".png"].read_bytes().startswith(PNG)
    assert _declared_nodes(files[".dot"]) >= set(d.scene.nodes)
    tex = files[".tex"].read_text()
    assert tex.count(r"\begin{tikzpicture}") == 1 and tex.count(r"\end{tikzpicture}") == 1
    assert tex.count(r"\node[dg node") == len(d.scene.nodes) + sum(
        e.label is not None for e in d.scene.edges
    )


@pytest.mark.parametrize("direction", ["dataflow", "dependence"])
def test_dot_round_trip(tmp_path, direction):
    g = bundled("spherical_coordinates.trace")
    drawn = _drawn_edges(render(g, tmp_path / "g.dot", direction).read_text())
    expected = set(g.edges())
    assert drawn == (expected if direction == "dataflow" else {(v, u) for u, v in expected})


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex not installed")
def test_tikz_compiles(tmp_path):
    """Each view's standalone file, one page each of one document (one pdflatex run, not
    one per view: its start is most of the time). The files share their preamble; a
    page's styles and colours are its picture's own (local to its box)."""
    end = "\\end{document}\n"
    texts = []
    for view in VIEWS:
        d = draw(bundled("naumann_discrepancy.json"), view, highlight="factors")
        text = d.save(tmp_path / f"{view}.tex", standalone=True).read_text()
        assert text.endswith(end) and text.count("\\setbox0=") == 1
        texts.append(text)
    preamble = texts[0][: texts[0].index("\\setbox0=")]
    assert all(t.startswith(preamble) for t in texts)
    (tmp_path / "views.tex").write_text(
        preamble + "".join(t[len(preamble) : -len(end)] for t in texts) + end
    )
    run = pdflatex(tmp_path, "views.tex")
    assert run.returncode == 0, run.stdout[-2000:]
    assert f"({len(VIEWS)} pages" in run.stdout, run.stdout[-2000:]
    assert (tmp_path / "views.pdf").read_bytes().startswith(b"%PDF")


def test_bad_requests(tmp_path, sin_graph):
    with pytest.raises(DGraphError, match="unknown format"):
        render(sin_graph, tmp_path / "g.gif")
    with pytest.raises(DGraphError, match="unknown direction"):
        to_dot(sin_graph, "sideways")
    with pytest.raises(DGraphError, match="unknown view"):
        draw(sin_graph, "3d")
    with pytest.raises(DGraphError, match="unknown highlight"):
        draw(sin_graph, highlight="rainbows")
    with pytest.raises(DGraphError, match="unknown style"):
        draw(sin_graph, style="neon")


# -- nothing overlaps ----------------------------------------------------------------------


def _boxes(layout: dict) -> dict[str, tuple[float, float, float, float]]:
    """Node boxes, and the boxes of graphviz's own edge labels (from their text)."""
    boxes = {}
    for o in layout["objects"]:
        if "pos" in o and "nodes" not in o:
            x, y = map(float, o["pos"].split(","))
            w, h = float(o["width"]) * 36, float(o["height"]) * 36
            boxes[o["name"]] = (x - w, y - h, x + w, y + h)
    for e in layout.get("edges", []):
        texts = [op for op in e.get("_ldraw_", []) if op["op"] == "T"]
        if texts:
            left = min(t["pt"][0] for t in texts)
            right = max(t["pt"][0] + t["width"] for t in texts)
            base = min(t["pt"][1] for t in texts)
            boxes[f"label of edge {e['_gvid']}"] = (left, base - 3, right, base + 9)
    return boxes


def _bezier(points, steps=24):
    for k in range(0, len(points) - 3, 3):
        p0, p1, p2, p3 = points[k : k + 4]
        for i in range(steps + 1):
            t = i / steps
            a, b, c, d = (1 - t) ** 3, 3 * t * (1 - t) ** 2, 3 * t * t * (1 - t), t**3
            yield (
                a * p0[0] + b * p1[0] + c * p2[0] + d * p3[0],
                a * p0[1] + b * p1[1] + c * p2[1] + d * p3[1],
            )


def _overlaps(drawing) -> list[str]:
    """Node and label boxes that intersect, and edges that run through a box that is not
    one of their ends (boxes shrunk by 1.5 points: touching is fine)."""
    layout = json.loads(drawing.pipe("json"))
    boxes = _boxes(layout)
    inner = {n: (a + 1.5, b + 1.5, c - 1.5, d - 1.5) for n, (a, b, c, d) in boxes.items()}
    found = []
    for (m, p), (n, q) in itertools.combinations(inner.items(), 2):
        if p[0] < q[2] and q[0] < p[2] and p[1] < q[3] and q[1] < p[3]:
            found.append(f"{m} overlaps {n}")
    names = {o["_gvid"]: o["name"] for o in layout["objects"]}
    for e in layout.get("edges", []):
        if e.get("style") == "invis":
            continue
        ends = {names[e["tail"]], names[e["head"]], f"label of edge {e['_gvid']}"}
        points = [
            tuple(map(float, p.split(",")))
            for p in e["pos"].split()
            if not p.startswith(("e,", "s,"))
        ]
        for x, y in _bezier(points):
            for n, (a, b, c, d) in inner.items():
                if n not in ends and a < x < c and b < y < d:
                    found.append(f"edge {sorted(ends)} crosses {n}")
    return sorted(set(found))


@pytest.mark.parametrize("name", list(suite("quick")))
def test_benchmark_graphs_do_not_overlap(name):
    graph = suite("quick")[name]()
    assert {view: _overlaps(draw(graph, view)) for view in VIEWS} == {view: [] for view in VIEWS}


@pytest.mark.parametrize(
    ("name", "view", "highlight"),
    [
        ("naumann_discrepancy.json", "graph", "factors"),
        ("zhou_two_blocks.json", "graph", "chains"),
        ("spherical_coordinates.trace", "graph", "umbrellas"),
        ("spherical_coordinates.trace", "levels", "chains"),
        ("spherical_coordinates.trace", "pages", "umbrellas"),
        ("naumann_discrepancy.json", "line", "factors"),
    ],
)
def test_highlights_do_not_overlap(name, view, highlight):
    assert _overlaps(draw(bundled(name), view, highlight=highlight)) == []


def test_step_frames_do_not_overlap():
    viewer = steps(bundled("naumann_discrepancy.json"), "edge-optimal")
    assert [(k, _overlaps(f.drawing)) for k, f in enumerate(viewer.frames)] == [
        (k, []) for k in range(len(viewer.frames))
    ]


def test_graphviz_labels_would_overlap():
    """The check can fail: graphviz's own edge labels sit beside their edge, and on a
    benchmark graph crossing edges run through them, which is why dgraph draws edge
    labels as nodes of their own."""
    graph = suite("quick")["random-dag-1"]()
    native = dataclasses.replace(get_style(), inline_labels=False)
    found = _overlaps(draw(graph, style=native))
    assert found and all("crosses label of edge" in o for o in found)


# -- labels as math ------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz not installed")
def test_a_name_ending_in_an_underscore_has_no_empty_subscript():
    """A tensor input ``E_`` (an argument named ``E`` renamed so: sympy's constant) was
    labelled ``<I>E</I><SUB></SUB>`` and dot refused the drawing ("graphviz's dot failed
    ... in label of node E_"); the name is printed as written."""
    assert vertex_label("E_").html == "E_" and vertex_label("pi_").tex == r"\mathrm{pi\_}"
    assert vertex_label("a_b_").html == "a_b_" and vertex_label("x_1").tex == "x_{1}"
    graph = dgraph.from_function(lambda E, w: np.sin(E) * w, sizes=[(2, 2), (2, 2)], level="array")
    assert graph.is_tensor and "E_" in graph.inputs
    assert "<svg" in render_svg(graph)


def test_math_labels(sin_graph, discrepancy_graph):
    assert vertex_label("x0").html == "<I>x</I><SUB>0</SUB>"
    assert vertex_label("x_2").tex == "x_{2}" and vertex_label("theta").html == "θ"
    assert vertex_label("Y_1_m1").tex == "Y_{1,m1}"
    names = symbol_names(discrepancy_graph)
    assert expr_label(discrepancy_graph.symbol("k", "i"), names).tex == "c_{i,k}"
    # products keep their noncommutative (matrix) order in every form
    a, b = discrepancy_graph.symbol("i", "y1"), discrepancy_graph.symbol("k", "i")
    for expr, text in ((a * b, "d_y1_i*d_i_k"), (b * a, "d_i_k*d_y1_i")):
        label = expr_label(expr, names)
        assert label.text == text
        first, second = ("y_{1},i", "i,k") if expr == a * b else ("i,k", "y_{1},i")
        assert label.tex.index(first) < label.tex.index(second)
    x0, x1 = sympy.symbols("x0 x1")
    assert expr_label(-x0 * sympy.sin(x1)).html == "−<I>x</I><SUB>0</SUB>·sin(<I>x</I><SUB>1</SUB>)"
    assert expr_label(x0**2).html == "<I>x</I><SUB>0</SUB><SUP>2</SUP>"
    source = to_dot(sin_graph).source
    assert "cos(<I>x</I><SUB>1</SUB>)" in source
    assert "<I>c</I><SUB>i,k</SUB>" in to_dot(discrepancy_graph).source
    # the plain style writes labels exactly as the text output does
    assert "d_i_k" in to_dot(discrepancy_graph, style="plain").source
    assert r"\cos{\left(x_{1} \right)}" in draw(sin_graph).tikz()


def test_paper_style_is_serif_and_gray(sin_graph):
    source = draw(sin_graph).source
    assert "fontname=Times" in source
    fills = {c for c in ("#e6e6e6", "#ffffff", "#cccccc") if c in source}
    assert len(fills) == 3
    assert "fontname=Arial" in draw(sin_graph, font="sans").source


def test_notebook_svg(sin_graph):
    assert sin_graph._repr_svg_() == fit_width(render_svg(sin_graph))
    assert ET.fromstring(draw(sin_graph, "line")._repr_svg_()).tag.endswith("svg")


def test_legacy_drawings(sin_graph):
    from dgraph.elimination.metagraph import metagraph

    meta = metagraph_dot(metagraph(sin_graph))
    assert meta.source.count("peripheries=2") >= 2
    state = FaceState(sin_graph)
    dot = face_state_dot(state, [("x1->v1", "v1->y")], "title")
    assert "penwidth=2.6" in dot.source and "title" in dot.source


# -- regions -------------------------------------------------------------------------------


def test_chain_and_block_regions(two_blocks_graph):
    structure = zhou_structure(two_blocks_graph)
    chains, blocks = chain_regions(two_blocks_graph), block_regions(two_blocks_graph)
    assert len(chains) == len(structure["chains"]) == 5
    assert [r.name for r in blocks] == ["simple block r..v", "simple block v..t"]
    assert blocks[0].edges == {("a", "r"), ("b", "r"), ("v", "a"), ("v", "b")}
    assert blocks[0].ends == {"r", "v"}
    direct = [r for r in chains if r.name.startswith("direct chain r..v")]
    assert {frozenset(r.edges) for r in direct} == {
        frozenset({("v", "a"), ("a", "r")}),
        frozenset({("v", "b"), ("b", "r")}),
    }
    d = draw(two_blocks_graph, highlight="blocks")
    assert [label.text for _, label in d.scene.legend] == [r.name for r in blocks]
    assert len(d.scene.clusters) == 2 and "simple block r..v" in d.svg()
    assert {n.id for n in d.scene.nodes.values() if n.cluster} == {"a", "b", "c", "d"}


def _paths_in(region, graph) -> int:
    return sum(
        all(e in region.edges for e in itertools.pairwise(p)) for p in input_output_paths(graph)
    )


@pytest.mark.parametrize("name", [*PAPER, "spherical_coordinates.trace"])
def test_pages_partition_the_paths(name):
    g = bundled(name)
    pages = page_regions(g)
    assert sum(_paths_in(p, g) for p in pages) == count_paths(g)
    assert all(p.edges <= set(g.edges()) for p in pages)


def _chain(n: int) -> dgraph.DGraph:
    """The n-operation function of benchmarks/cli_files_survey.py's ``hundred_ops``: each
    statement uses the three before it, so Zhou's pages name references of references."""

    def f(a, b, c, d):
        names = [a, b, c, d]
        for _ in range(n // 4):
            u, v, w = names[-1], names[-2], names[-3]
            names.append(sympy.sin(u) * v + w / (1 + u * u))
        return names[-1], names[-2] * names[-4]

    return dgraph.from_function(f)


def test_pages_find_their_edges_without_substituting_references(monkeypatch):
    """A page's edges are found through the references' edges, never by substituting the
    references into its entries: the substituted trees grow exponentially with the chain
    of references (32 operations: 8,688 sympy ``free_symbols`` walks, 40: 56,508; the 100-operation
    file's pages view ran for minutes). The walks are counted here, at most one per node
    of the unsubstituted expressions."""
    graph = _chain(32)
    walks = [0]
    walk = sympy.Basic.free_symbols.fget

    def counted(self):
        walks[0] += 1
        return walk(self)

    monkeypatch.setattr(sympy.Basic, "free_symbols", property(counted))
    pages = page_regions(graph)
    assert len(pages) == 9
    assert 0 < walks[0] < 10 * len(graph.edges())
    assert set().union(*(p.edges for p in pages)) == set(graph.edges())


def _through_by_substitution(references, symbols):
    """Each reference's edges as the edge symbols of its definition with every earlier
    reference substituted (what ``_edges_through`` finds without substituting)."""
    resolved = {}
    for name, definition in references.items():
        resolved[name] = definition.xreplace(resolved)
    return {
        name: frozenset(symbols[s] for s in e.free_symbols if s in symbols)
        for name, e in resolved.items()
    }


@settings(max_examples=25)
@given(dags())
def test_pages_are_those_of_substituted_references(graph):
    found = page_regions(graph, "forward"), page_regions(graph)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(region_module, "_edges_through", _through_by_substitution)
        assert (page_regions(graph, "forward"), page_regions(graph)) == found


def test_pages_of_a_long_chain_are_those_of_substituted_references(monkeypatch):
    graph = _chain(24)
    found = page_regions(graph)
    monkeypatch.setattr(region_module, "_edges_through", _through_by_substitution)
    assert page_regions(graph) == found


def test_spherical_pages_and_umbrellas():
    g = bundled("spherical_coordinates.trace")
    assert len(page_regions(g)) == 4
    assert [r.name for r in closed_umbrella_regions(g)] == [
        "closed umbrella t3->t4",
        "closed umbrella t5->t6",
        "closed umbrella t7->t8",
    ]
    assert len(regions(g, "chains,umbrellas")) == 7 + 5


@settings(max_examples=10)
@given(dags())
def test_random_graphs_draw_in_every_view(graph):
    drawn = _drawn_edges(draw(graph).source)
    assert drawn == set(graph.edges())
    # graphviz's own parser reads the three views, in one run (pydot's pure-Python parser
    # took most of this test's time); each is read back as one graph, without a complaint
    views = [draw(graph, view).source for view in ("levels", "line", "pages")]
    done = subprocess.run(
        ["dot", "-Tcanon"], input="\n".join(views), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and not done.stderr.strip(), done.stderr
    assert len(re.findall(r"^(?:strict )?digraph\b", done.stdout, re.MULTILINE)) == 3
    pages = page_regions(graph)
    assert sum(_paths_in(p, graph) for p in pages) == count_paths(graph)


# -- notebook output of results ------------------------------------------------------------


def test_expression_set_output(discrepancy_graph):
    es = dgraph.accumulate(discrepancy_graph, "edge-optimal")
    md = es.to_markdown()
    assert md.startswith("**edge-optimal: 13 mults")
    assert r"| $r_{1}$ | $= c_{y_{1},i} c_{i,k} + c_{y_{1},k}$ |" in md
    assert r"| $\frac{\partial y_{2}}{\partial a}$ | $= c_{y_{2},i} r_{2}$ |" in md
    assert "- `dy1/da = r1*d_k_a`" in es.to_markdown(math=False)
    html = es.to_html()
    assert html.count("<tr>") == len(es.references) + len(es.jacobian)
    assert "<i>r</i><sub>1</sub>·<i>c</i><sub>k,a</sub>" in html
    ET.fromstring(html)  # well-formed
    # the LaTeX and text forms are unchanged: references first, matrix order
    assert es.to_latex().splitlines()[1].startswith("r_{1} &=")
    notebook = es._repr_latex_()
    assert notebook.startswith("$$\\begin{aligned}\n&\\text{edge-optimal: 13 mults (")
    assert notebook.splitlines()[1].endswith("adds, verified} \\\\")
    assert notebook.count("\\\\") == len(es.references) + len(es.jacobian)  # one row each more
    assert "\\begin{align" not in notebook.replace("\\begin{aligned}", "")


def test_comparison_tables(discrepancy_graph):
    c = dgraph.compare(discrepancy_graph, ["forward", "reverse", "edge-optimal"])
    md = c._repr_markdown_()
    lines = md.splitlines()
    assert lines[0].startswith("| method | mults")
    assert "| **edge-optimal** | **13** |" in md and "| reverse | 15 |" in md
    assert (
        md.rstrip().splitlines()[-1].startswith("best: edge-optimal") or "best: edge-optimal" in md
    )
    html = c._repr_html_()
    assert html.count("<tr>") == 4 and "<b>edge-optimal</b>" in html
    ET.fromstring(html)


def test_conditions_in_labels_are_escaped_for_graphviz():
    """A Piecewise partial's condition (``x > 0``) is text in an HTML-like label: its ``>``
    once ended the label and graphviz refused the drawing."""
    x, y = sympy.symbols("x y", real=True)
    g = dgraph.from_sympy(
        [sympy.Piecewise((sympy.sin(x) * y, (x > 0) & (y <= 1)), (y**2, True))], [x, y]
    )
    svg = draw(g).svg()
    assert "&gt; 0" in svg and "≤ 1" in svg and "∧" in svg
