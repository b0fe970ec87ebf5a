"""Dixon's Hessian graph drawn (dgraph.render.hessian): every adjoint at the mirror image
of its vertex, every mirror edge along the mirror image of its forward edge's route, the
three kinds of edge styled apart, labels as math (x̄, second partials); a Hessian graph's
expression set in LaTeX as ∂²f/∂x_i∂x_j; step views and the explorer on the mirror
layout."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest
import sympy

import dgraph
from dgraph.core.hessian_graph import hessian_graph
from dgraph.errors import DGraphError
from dgraph.frontends import from_sympy, from_trace
from dgraph.render import draw_hessian, hessian_layout
from dgraph.render.hessian import EDGE_KINDS, edge_kinds
from dgraph.render.labels import adjoint_pairs, vertex_label
from dgraph.render.styles import PALETTE

from .layout_geometry import collisions, overlaps

x, y = sympy.symbols("x y")
TRACE = "inputs: a, b, c\noutputs: f\nv = a*b\nw = v + c\nf = sin(w)"


@pytest.fixture(scope="module")
def product():
    """f = sin(a·b + c): a product, a sum and a sine, so all three kinds of edge."""
    g = from_trace(TRACE)
    H = hessian_graph(g)
    return g, H, draw_hessian(g, H=H)


def _pos(drawing, v: str) -> tuple[float, float]:
    x_, y_ = drawing.scene.nodes[v].attrs["pos"].rstrip("!").split(",")
    return float(x_), float(y_)


def _laid(drawing) -> dict:
    """The drawing as graphviz draws it (neato -n2: given positions and routes kept)."""
    return json.loads(drawing._svg_dot.pipe(format="json", neato_no_op=2))


def test_every_adjoint_sits_at_the_mirror_image_of_its_vertex(product):
    g, _, d = product
    pairs = [(v, v + "_bar") for v in g.vertices]
    assert all(u in d.scene.nodes and b in d.scene.nodes for u, b in pairs)  # context: all
    axes = {round((_pos(d, u)[0] + _pos(d, b)[0]) / 2, 1) for u, b in pairs}
    assert len(axes) == 1  # one vertical axis for every pair
    axis = axes.pop()
    for u, b in pairs:
        assert _pos(d, u)[1] == pytest.approx(_pos(d, b)[1])  # same height
        assert _pos(d, u)[0] < axis < _pos(d, b)[0]  # forward left, adjoints right
    # an edge label of the mirror edge w̄ -> ū sits at the mirror image of u -> w's
    lx, ly = _pos(d, "label-a-v")
    mx, my = _pos(d, "label-v_bar-a_bar")
    assert (lx + mx) / 2 == pytest.approx(axis, abs=0.1) and ly == pytest.approx(my)


def test_mirror_routes_are_mirror_images_and_the_drawing_is_clear(product):
    _, _, d = product
    routes = {(e.tail, e.head): e.attrs["pos"] for e in d.scene.edges if "pos" in e.attrs}
    axis = (_pos(d, "a")[0] + _pos(d, "a_bar")[0]) / 2

    def points(route):
        return [tuple(map(float, p.split(",")[-2:])) for p in route.split()]

    forward = points(routes["a", "label-a-v"])  # from a's box up to the label, no arrow
    tip, *mirrored = routes["label-v_bar-a_bar", "a_bar"].split()  # down to ā's box
    tip = points(tip[2:])[0]
    mirrored = points(" ".join(mirrored))
    assert tip[0] == pytest.approx(2 * axis - forward[0][0], abs=0.02)
    assert tip[1] == pytest.approx(forward[0][1], abs=0.02)  # ends where a -> v starts
    assert mirrored[0][0] == pytest.approx(2 * axis - forward[-1][0], abs=0.02)
    assert mirrored[0][1] == pytest.approx(forward[-1][1], abs=0.02)
    data = _laid(d)
    assert collisions(data) == [] and overlaps(data) == []


def test_edges_of_each_kind_are_styled_and_labelled(product):
    g, H, d = product
    kinds = edge_kinds(g, H)
    assert {e for e, k in kinds.items() if k == "nonlinear"} == {
        ("w", "w_bar"),
        ("b", "a_bar"),
        ("a", "b_bar"),
    }
    assert kinds["w_bar", "v_bar"] == "mirror" and kinds["a", "v"] == "forward"
    by_label = {}
    for e in d.scene.edges:  # labels are nodes of their own: label-<tail>-<head>
        if e.tail.startswith("label-"):
            by_label[e.tail] = e.attrs
    assert by_label["label-w-w_bar"]["style"] == "dashed"
    assert by_label["label-w-w_bar"]["color"] == PALETTE[2]
    assert by_label["label-w_bar-v_bar"]["color"] == PALETTE[1]
    assert "color" not in by_label["label-a-v"]
    nodes = d.scene.nodes
    assert nodes["label-w-w_bar"].label.text == "-sin(w)"  # w̄·∂²sin(w)/∂w², w̄ = 1
    assert nodes["label-b-a_bar"].label.tex == r"\bar{v}"  # v̄·∂²(a·b)/∂a∂b
    assert nodes["a_bar"].label.html == "<O><I>a</I></O>"
    assert nodes["f"].kind == "ghost" and nodes["f_bar"].kind == "ghost"
    assert [key[2] for key, _ in d.scene.legend] == ["solid", "solid", "dashed"]
    assert len(d.scene.legend) == len(EDGE_KINDS)


def test_svg_and_tikz(product):
    _, _, d = product
    svg = d.svg()
    assert svg.count("<svg") == 1 and 'text-decoration="overline"' in svg
    tikz = d.tikz()
    assert r"$\bar{w}$" in tikz and "dashed" in tikz and r"$- \sin{\left(w \right)}$" in tikz


def test_worked_example_of_domain_11_drawn_without_context():
    g = from_sympy(x * y + sympy.sin(x), [x, y])
    d = draw_hessian(g, context=False)
    shown = {v for v, n in d.scene.nodes.items() if n.kind not in ("label", "anchor")}
    assert shown == {"x", "y", "x_bar", "y_bar"}  # t1, t2, f: their adjoints are constants
    assert ("y", "y_bar") not in edge_kinds(g, hessian_graph(g))  # ∂²(x·y)/∂y² = 0
    labels = sorted(n.label.text for v, n in d.scene.nodes.items() if v.startswith("label-"))
    assert labels == ["-sin(x)", "1", "1"]
    assert collisions(_laid(d)) == []


def test_hessian_layout_feeds_the_step_views_and_the_explorer(product):
    g, H, _ = product
    layout = hessian_layout(g, H, labels="symbol")
    viewer = dgraph.steps(H, "markowitz", layout=layout)
    for frame in viewer.frames:  # every vertex where the mirror layout puts it
        for v in ("a", "a_bar", "w", "w_bar"):
            assert frame.drawing.scene.nodes[v].attrs["pos"] == layout.nodes[v]["pos"] + "!"
    assert viewer.frames[-1].mults == 15
    from dgraph.render.explore import Exploration
    from dgraph.render.widget import drawing

    state = Exploration(H)
    state.eliminate("v_bar")
    picture, targets = drawing(state, layout=layout)
    assert picture.scene.nodes["a_bar"].attrs["pos"] == layout.nodes["a_bar"]["pos"] + "!"
    assert ["vertex", "w_bar"] in targets.values()


def test_hessian_expression_set_in_latex_html_and_markdown():
    g = from_sympy(x * y + sympy.sin(x), [x, y])
    H = hessian_graph(g)
    assert adjoint_pairs(H) == {"x_bar": "x", "y_bar": "y"}
    assert adjoint_pairs(g) is None
    es = dgraph.accumulate(H, "reverse")
    assert es.evaluate([0.5, 0.3])[0, 0] == pytest.approx(-np.sin(0.5))  # -0.4794
    latex = es.to_latex()
    assert r"\frac{\partial^{2} f}{\partial x^{2}} &= c_{\bar{x},x}" in latex
    assert r"\frac{\partial^{2} f}{\partial x\,\partial y} &= c_{\bar{x},y}" in latex
    assert r"\frac{\partial^{2} f}{\partial y\,\partial x} &= c_{\bar{y},x}" in latex
    assert r"$\frac{\partial^{2} f}{\partial x^{2}}$" in es.to_markdown()
    html = es.to_html()
    assert "∂²<i>f</i>/∂<i>x</i>∂<i>y</i>" in html and "<sub>x̄,y</sub>" in html
    # a graph whose outputs are not its inputs' adjoints keeps ∂y/∂x
    plain = dgraph.accumulate(g, "reverse").to_latex()
    assert r"\frac{\partial f}{\partial x}" in plain and "partial^{2}" not in plain


def test_adjoint_names_print_with_a_bar():
    assert vertex_label("x1_bar").tex == r"\bar{x}_{1}"
    assert vertex_label("theta_bar").tex == r"\bar{\theta}"
    assert vertex_label("rst_bar").tex == r"\overline{\mathit{rst}}"
    assert vertex_label("x_bar2").html == "<O><I>x</I></O>"
    assert vertex_label("bar").tex == r"\mathit{bar}"


def test_refusals(product):
    g, H, _ = product
    other = hessian_graph(from_sympy(x * y, [x, y]))
    with pytest.raises(DGraphError, match="not the Hessian graph of this graph"):
        draw_hessian(g, H=other)
    with pytest.raises(DGraphError, match="unknown labels 'bogus'"):
        hessian_layout(g, H, labels="bogus")


@pytest.mark.skipif(importlib.util.find_spec("anywidget") is None, reason="anywidget not installed")
def test_the_explorer_keeps_the_mirror_layout(product):
    g, H, _ = product
    layout = hessian_layout(g, H, labels="symbol")
    w = dgraph.explore(H, layout=layout)
    assert w.layout is layout
    w.click(["vertex", "w_bar"])
    assert w.view.summary["structural"] == 2 and w.view.message == ""  # both labels are 1
    assert r"\frac{\partial^{2} f}{\partial a\,\partial b} &= c_{\bar{a},b}" in w.math.value


def test_each_curve_is_sampled_once_for_the_labels_placement(monkeypatch):
    """Placing each nonlinear edge's label tests its candidate spots against every other
    curve; each curve's samples are made once (a 100-operation function's Hessian graph
    took 65 CPU-s, its curves sampled again for every test: 2.4 million tests), and the
    drawing is the same."""
    from dgraph.render import hessian as module

    a, b, c = sympy.symbols("a b c")
    t = a
    for k in range(4):
        t = sympy.sin(t) * b + c / (1 + t * t) + k
    g = from_sympy(t * a, [a, b, c])
    calls = []
    at = module._at
    monkeypatch.setattr(module, "_at", lambda curve, s: calls.append(1) or at(curve, s))
    layout = hessian_layout(g)
    routes = len(layout.routes)
    assert calls and len(calls) < 60 * routes, (len(calls), routes)
