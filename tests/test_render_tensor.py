"""Drawings and reports of tensor graphs: shapes under the vertex names, each edge's
Jacobian block as the papers write it and in its structure family's line style, step
frames with each new block's type and each step's price in scalar multiplications, and
``dgraph structure``'s shapes and blocks. Scalar drawings are unchanged (the rest of the
render suite checks them)."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from dgraph.blocks.arrays import ArrayOp
from dgraph.cli import main
from dgraph.core.graph import DGraph
from dgraph.elimination.kernel import move_costs
from dgraph.frontends import bundled
from dgraph.methods import accumulate
from dgraph.methods.structure import structure
from dgraph.render.drawing import draw
from dgraph.render.stepviews import steps
from dgraph.render.viewer import frame_panel_html

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz dot not installed")

_NUMBERS = (((1,), (0,)), ((), ()))


def _op(name, operands, shape, **params):
    return ArrayOp(name, tuple(operands), tuple(params.items()), tuple(shape))


def _layer() -> DGraph:
    """s = sum(sum(tanh(x @ W), axis 1)): kronecker, diagonal and reduction blocks, and a
    scalar output."""
    g = DGraph("layer")
    g.add_array_vertex("x", "input", (5, 3))
    g.add_array_vertex("W", "input", (3, 4))
    dot = _op("dot_general", ["x", "W"], (5, 4), dimension_numbers=_NUMBERS)
    g.add_array_vertex("h", "intermediate", (5, 4), dot)
    g.add_array_vertex("t", "intermediate", (5, 4), _op("tanh", ["h"], (5, 4)))
    g.add_array_vertex("y", "intermediate", (5,), _op("reduce_sum", ["t"], (5,), axes=(1,)))
    g.add_array_vertex("s", "output", (), _op("reduce_sum", ["y"], (), axes=(0,)))
    return g.validate()


def _stencil() -> DGraph:
    """y = u[0:4] + u[2:6]: two selections, whose sum after elimination is sparse."""
    g = DGraph("stencil")
    g.add_array_vertex("u", "input", (6,))
    cut = {"strides": None}
    g.add_array_vertex(
        "a",
        "intermediate",
        (4,),
        _op("slice", ["u"], (4,), start_indices=(0,), limit_indices=(4,), **cut),
    )
    g.add_array_vertex(
        "b",
        "intermediate",
        (4,),
        _op("slice", ["u"], (4,), start_indices=(2,), limit_indices=(6,), **cut),
    )
    g.add_array_vertex("e", "intermediate", (4,), _op("exp", ["a"], (4,)))
    g.add_array_vertex("y", "output", (4,), _op("mul", ["e", "b"], (4,)))
    return g.validate()


def _edge_attrs(source: str, tail: str, head: str) -> str:
    """The attribute list of the drawn edge into the label node of tail -> head."""
    line = next(
        x for x in source.splitlines() if x.strip().startswith(f'{tail} -> "label-{tail}-{head}"')
    )
    return line.split("[", 1)[1]


def test_dot_shows_shapes_blocks_and_line_styles():
    source = draw(_layer()).source
    # shapes under the names; the scalar output as a scalar graph draws it
    assert '<I>h</I><BR/><FONT POINT-SIZE="9">5×4</FONT>' in source
    assert '<I>x</I><BR/><FONT POINT-SIZE="9">5×3</FONT>' in source
    assert "s [label=<<I>s</I>>" in source
    # each block as the papers write it
    for text in ("I ⊗ Wᵀ", "x ⊗ I", "diag(1 − tanh(h)<SUP>2</SUP>)", "1ᵀ[axes 1]", "1ᵀ[axes 0]"):
        assert f"label=<{text}>" in source
    # one line style per family: kronecker dashed, moves dotted, diagonal solid
    assert "style=dashed" in _edge_attrs(source, "x", "h")
    assert "style=dotted" in _edge_attrs(source, "t", "y")
    assert "style" not in _edge_attrs(source, "h", "t")
    # the legend names the families present, each with a line sample
    for words in ("diagonal (elementwise)", "kronecker (⊗ with I)", "reduction (moves, free)"):
        assert words in source
    assert source.count('SIDES="B"') == 3


def test_plain_style_and_no_labels():
    g = _layer()
    plain = draw(g, style="plain").source
    assert "I ⊗ Wᵀ" in plain and "5×4" in plain
    bare = draw(g, labels=False).source
    assert "I ⊗ Wᵀ" not in bare and "5×4" in bare and "style=dashed" in bare


@needs_dot
def test_svg_and_tikz_show_shapes_and_blocks():
    d = draw(_layer())
    svg = d.svg()
    for text in ("5×4", "I ⊗ Wᵀ", "1ᵀ[axes 1]", "kronecker (⊗ with I)", "stroke-dasharray"):
        assert text in svg
    tikz = d.tikz()
    assert r"\begin{array}{c}h\\[-2pt]\scriptstyle 5\times 4\end{array}" in tikz
    assert r"I $\otimes$ W$^{\mathsf{T}}$" in tikz
    assert r"diag(1 - tanh(h)\textsuperscript{2})" in tikz
    assert "kronecker ($\\otimes$ with I)" in tikz
    # line samples in the legend, dashed as the kronecker edges are
    assert any("dashed]" in x and " -- " in x for x in tikz.splitlines())
    assert "⊗" not in tikz and "×" not in tikz  # no Unicode left for pdfLaTeX


@needs_dot
def test_other_views_show_shapes_and_blocks():
    g = _layer()
    for view in ("levels", "pages"):
        source = draw(g, view).source
        assert "5×4" in source and "I ⊗ Wᵀ" in source and "kronecker" in source


@needs_dot
@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex not installed")
def test_tensor_tikz_compiles(tmp_path):
    frame = steps(_layer(), "reverse").frames[-1]
    tex = frame.drawing.save(tmp_path / "f.tex", standalone=True)
    draw(_layer()).save(tmp_path / "g.tex", standalone=True)
    for name in ("f.tex", "g.tex"):
        done = subprocess.run(
            ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", name],
            cwd=tex.parent,
            capture_output=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stdout.decode(errors="replace")[-2000:]


@needs_dot
@pytest.mark.parametrize(
    ("method", "prices"),
    # reverse: the reductions times the diagonal are moves (free); then the rows of
    # t's block times I ⊗ Wᵀ and times x ⊗ I, 5·4·3 = 60 each. Forward: diag(1 - tanh²)
    # times each Kronecker block (60 each) first, the reductions after, free.
    [("reverse", [0, 0, 120]), ("forward", [120, 0, 0])],
)
def test_frames_price_each_step_in_scalar_multiplications(method, prices):
    g = _layer()
    viewer = steps(g, method)
    es = viewer.expression_set
    assert len(viewer) == len(es.steps) + 1
    assert [f.price for f in viewer.frames[1:]] == prices
    moves = [("vertex", s.target) for s in es.steps]
    assert move_costs(g, moves)[0] == sum(prices) == es.mults == viewer.frames[-1].mults
    for frame, price in zip(viewer.frames[1:], prices, strict=True):
        assert f"({price} mult" in frame.title
    last = viewer.frames[-1]
    # the accumulated blocks: their types and shapes on the edges and beside the entries
    assert last.blocks[("W", "s")] == "dense 1 ← 3×4"
    assert any(line.endswith("[dense 1 ← 3×4]") for line in last.lines())
    source = last.drawing.source
    assert "dense 1 ← 3×4" in source and "5×4" in source
    assert "[dense 1 ← 3×4]</span>" in frame_panel_html(last)
    # every frame has the legend of every family the frames show
    for frame in viewer.frames:
        assert frame.drawing.source.count('SIDES="B"') == 4  # diagonal, kronecker, moves, dense


@needs_dot
def test_frames_show_a_sum_of_selections_as_sparse():
    """Eliminating a and b moves rows (free); then diag(b) times e's 4 values costs 4, and
    u -> y holds the sum of two shifted selections, scaled: a fixed pattern."""
    viewer = steps(_stencil(), "vertex", order=["a", "b", "e"])
    assert viewer.frames[0].blocks[("u", "a")] == "selection 4 ← 6"
    assert [f.price for f in viewer.frames[1:]] == [0, 0, 4]
    assert viewer.frames[-1].blocks == {("u", "y"): "sparse 4 ← 6"}
    assert "fixed pattern" in viewer.frames[-1].drawing.source
    assert viewer.frames[-1].mults == viewer.expression_set.mults == 4


@needs_dot
def test_scalar_frames_have_no_block_notes():
    viewer = steps(bundled("naumann_sin.trace"), "reverse")
    assert all(f.price is None and f.blocks is None for f in viewer.frames)
    assert viewer.frames[1].title == "step 1 of 2: vertex v2 (2) — 2 mults so far"
    assert "SIDES" not in viewer.frames[1].drawing.source


def test_structure_reports_shapes_and_blocks():
    data = structure(_layer())
    assert data["tensor"] is True
    assert data["shapes"] == {"x": [5, 3], "W": [3, 4], "h": [5, 4], "t": [5, 4], "y": [5], "s": []}
    by_edge = {tuple(b["edge"]): b for b in data["edge_blocks"]}
    assert by_edge["x", "h"] == {
        "edge": ["x", "h"],
        "type": "kronecker",
        "block": "I ⊗ Wᵀ",
        "shape": [[5, 4], [5, 3]],
        "nnz": 5 * 4 * 3,
        "stored": 3 * 4,
    }
    assert by_edge["h", "t"]["type"] == "diagonal" and by_edge["h", "t"]["stored"] == 20
    assert data["block_counts"] == {"kronecker": 2, "reduction": 2, "diagonal": 1}
    scalar = structure(bundled("naumann_sin.trace"))
    assert not {"tensor", "shapes", "edge_blocks", "block_counts"} & set(scalar)


def _load_as(monkeypatch, graph: DGraph) -> None:
    monkeypatch.setattr("dgraph.cli.args.load", lambda *args, **kw: graph)


def test_structure_command_on_a_tensor_graph(monkeypatch, capsys):
    _load_as(monkeypatch, _layer())
    assert main(["structure", "layer.json", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["tensor"] and data["block_counts"]["kronecker"] == 2
    assert main(["structure", "layer.json"]) == 0
    text = capsys.readouterr().out
    assert "shapes: x 5×3, W 3×4, h 5×4, t 5×4, y 5, s 1" in text
    assert "Jacobian block x -> h: I ⊗ Wᵀ   [5×4 ← 5×3, kronecker, 12 values]" in text
    assert "Jacobian blocks by type: kronecker 2, reduction 2, diagonal 1" in text
    # the accumulated Jacobian: s (a scalar) by x's 15 and W's 12 entries, all nonzero
    assert "Jacobian ds/dx: dense, 1×15, 15 nonzeros (15 to 15, mean 15 per row)" in text


def test_structure_reports_the_jacobian_pattern_per_row():
    """The 5-point stencil on an n × n grid: 5n² − 4n nonzeros, 3 in a corner's row, 5
    inside; a stencil with a 1-D pad: tridiagonal."""
    import numpy as np

    from dgraph.frontends import from_function

    def residual(u):
        p = np.pad(u, 1)
        return p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * u + np.exp(u)

    (j,) = structure(from_function(residual, sizes=[(7, 7)], level="array"))["jacobian_blocks"]
    assert j["entry"] == ["y", "u"] and j["shape"] == [49, 49] and j["type"] == "sparse"
    assert j["nnz"] == 5 * 49 - 4 * 7 and j["per_row"][0] == 3 and j["per_row"][2] == 5
    assert j["per_row"][1] == (5 * 49 - 4 * 7) / 49


def test_the_jacobian_pattern_is_that_of_the_forward_expression_set():
    """structure's Jacobian blocks come from forward elimination over blocks alone; they
    are those of the forward expression set's entries (its labels are edge symbols, so
    nothing cancels): same type and nonzeros on a layer, a stencil with a gather and a
    select, a softmax, a matrix chain and a selection of nothing of an input."""
    import numpy as np

    from dgraph.core.block_costs import expression_blocks
    from dgraph.frontends import from_function
    from dgraph.methods.structure import jacobian_pattern

    def stencil(u):
        p = np.pad(u, 1)
        inner = p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * u
        return np.where(u > 0.5, inner, u**2)[::-1]

    def softmax(z, w):
        e = np.exp(z @ w)
        return e / e.sum(axis=1, keepdims=True), (z * z).sum()

    def matrices(a, b):
        return (a @ b @ a.T).T, np.tanh(b).sum(axis=0)

    def picks(x, w):  # the path from x selects nothing of it: a zero block
        return np.concatenate([x, w])[3:] * 2.0

    graphs = [
        _layer(),
        from_function(stencil, sizes=[(5, 5)], level="array"),
        from_function(softmax, sizes=[(4, 3), (3, 5)], level="array"),
        from_function(matrices, sizes=[(3, 4), (4, 4)], level="array"),
        from_function(picks, sizes=[3, 4], level="array"),
    ]
    for g in graphs:
        priced, _ = expression_blocks(accumulate(g, "forward", verify=False))
        got = {tuple(e["entry"]): e for e in jacobian_pattern(g)}
        assert len(got) == len(g.outputs) * len(g.inputs)
        for (y, x), entry in got.items():
            block = priced[y, x].block if (y, x) in priced else None
            expected = ("zero", 0) if block is None else (block.type_name, block.nnz)
            assert (entry["type"], entry["nnz"]) == expected, (g.name, y, x)


@needs_dot
def test_render_steps_command_writes_a_frame_per_step(monkeypatch, capsys, tmp_path):
    g = _layer()
    _load_as(monkeypatch, g)
    out = tmp_path / "steps.svg"
    code = main(
        ["render", "layer.json", "--steps", "--method", "reverse", "-o", str(out), "--json"]
    )
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    es = accumulate(g, "reverse")
    assert summary["frames"] == len(es.steps) + 1 == len(summary["files"])
    assert summary["step_mults"] == [0, 0, 120] and summary["mults"] == 120
    last = (tmp_path / "steps-03.svg").read_text()
    assert "120 mults so far" in last and "dense 1 ← 3×4" in last and "5×4" in last


@needs_dot
def test_tikz_export_leaves_stderr_alone(capfd):
    """graphviz's warnings on a legend's table (``cell size too small for content``, from
    the layout the TikZ export reads) reached the command's stderr: ``dgraph render
    f.py:f --level array -o g.tex`` wrote three stray lines after its notes."""
    import numpy as np

    from dgraph.frontends import from_function

    def f(x, W, b):
        return np.sum(np.tanh(W @ x + b) * x)

    drawing = draw(from_function(f, sizes=[4, (4, 4), 4], level="array"))
    capfd.readouterr()
    assert "tikzpicture" in drawing.tikz()
    assert capfd.readouterr().err == ""
