"""Step-by-step views and the ``dgraph render`` command: every frame is a real state of the
accumulation (costs add up step by step, the last frame holds the method's Jacobian), the
viewers hold every frame, and the command writes what it says."""

from __future__ import annotations

import base64
import html as _html
import itertools
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import dgraph
from dgraph.bench.suite import spherical_harmonics
from dgraph.cli import main
from dgraph.errors import DGraphError
from dgraph.faces.examples import circular_example
from dgraph.frontends import bundled
from dgraph.render import viewer as viewer_module
from dgraph.render.drawing import lay_out_svgs, pipe_all, pngs
from dgraph.render.scene import place_scripts
from dgraph.render.stepviews import frames, steps
from dgraph.render.viewer import _runs, shared_svg, strip_frames

from .layout_geometry import collisions, overlaps
from .strategies import dags

SVG = "{http://www.w3.org/2000/svg}"

DATA = Path(dgraph.__file__).parent / "data"
SIN, TWO_BLOCKS = str(DATA / "naumann_sin.trace"), str(DATA / "zhou_two_blocks.json")


def _resolved(frame) -> dict[tuple[str, str], sympy.Expr]:
    """The frame's input-output labels with its references substituted."""
    refs: dict = {}
    for name, definition in frame.references:
        refs[name] = definition.xreplace(refs)
    return {key: sympy.expand(e.xreplace(refs)) for key, e in frame.entries}


def _check(es) -> None:
    fs = frames(es)
    assert len(fs) == len(es.steps) + 1
    assert [f.mults for f in fs] == [0, *itertools.accumulate(s.mults for s in es.steps)]
    assert fs[-1].mults == es.mults
    expected = {k: sympy.expand(v) for k, v in es.resolved().items()}
    assert _resolved(fs[-1]) == expected


@pytest.mark.parametrize(
    ("name", "method", "mults"),
    [
        ("naumann_sin.trace", "forward", [0, 2, 4]),
        ("naumann_sin.trace", "reverse", [0, 2, 3]),
        ("naumann_discrepancy.json", "edge-optimal", [0, 1, 3, 5, 7, 9, 11, 13]),
        ("zhou_two_blocks.json", "zhou", [0, 1, 2, 3, 4, 5]),
        ("spherical_coordinates.trace", "umbrella", None),
    ],
)
def test_frames_replay_the_method(name, method, mults):
    es = dgraph.accumulate(bundled(name), method)
    _check(es)
    if mults is not None:
        assert [f.mults for f in frames(es)] == mults


def test_first_and_last_frames(sin_graph):
    viewer = steps(sin_graph, "reverse")
    first, last = viewer.frames[0], viewer.frames[-1]
    assert first.title.startswith("start") and first.lines() == []
    assert last.lines() == [
        "r1 = d_y_v1 + d_y_v2*d_v2_v1",
        "dy/dx0 = d_y_v2*d_v2_x0",
        "dy/dx1 = r1*d_v1_x1",
    ]
    # v2 eliminated in step 1: drawn dotted, in place
    assert viewer.frames[1].drawing.scene.nodes["v2"].kind == "ghost"
    bold = [e for e in viewer.frames[1].drawing.scene.edges if e.attrs.get("penwidth") == "2.6"]
    into_labels = {(e.tail, e.head) for e in bold if e.head.startswith("label-")}
    assert into_labels == {("x0", "label-x0-y"), ("v1", "label-v1-y")}


def test_face_frames(sin_graph):
    es = dgraph.accumulate(sin_graph, "face-optimal")
    _check(es)
    fs = frames(es)
    assert all(f.drawing.scene.name.endswith("-line") for f in fs)
    assert len(fs) == 4


@settings(max_examples=20)
@given(
    dags(max_intermediates=5), st.sampled_from(["forward", "reverse", "markowitz", "edge-optimal"])
)
def test_random_frames_end_in_the_jacobian(graph, method):
    _check(dgraph.accumulate(graph, method, budget=1.0))


def test_steps_refuse_what_they_cannot_replay(discrepancy_graph):
    for method in ("layers", "dstar", "paths"):
        with pytest.raises(DGraphError, match="no step-by-step view"):
            steps(discrepancy_graph, method)
    assert len(steps(circular_example().graph, "markowitz")) == 4
    # Zhou's pages work on copies of the graph: their steps do not replay on it whole
    with pytest.raises(DGraphError, match="strategy='global'"):
        steps(discrepancy_graph, "zhou", strategy="pages")


def _live(html: str) -> str:
    """The interactive part of a step viewer's HTML (base64 in ``data-live``)."""
    (payload,) = re.findall(r"data-live='([^']*)'", html)
    return base64.b64decode(payload).decode()


def test_viewers(discrepancy_graph, tmp_path):
    viewer = steps(discrepancy_graph, "edge-optimal")
    html = viewer._repr_html_()
    # where scripts do not run: a strip of PNG frames (first, last, evenly between)
    strip = html[: html.index("dgraph-live")]
    assert strip.count("<img src='data:image/png;base64,") == len(strip_frames(8)) == 4
    assert "<svg" not in strip and "<svg" not in html.replace(strip, "").split("<script")[0]
    live = _live(html)
    assert live.count("<svg") == 1 and "type='range'" in live and "max='7'" in live
    assert live.count("class='dgraph-panel'") == len(viewer) == 8
    animated = viewer.animation().svg()
    root = ET.fromstring(animated)
    assert sum(1 for _ in root.iter("{http://www.w3.org/2000/svg}svg")) == 1
    groups = [g for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("data-frames")]
    shown = [int(k) for g in groups for k in g.get("data-frames").split()]
    assert set(shown) == set(range(8))
    for g in groups:  # each version of a changing element is shown in its own frames
        sets = g.findall("{http://www.w3.org/2000/svg}set")
        frames_of = [int(k) for k in g.get("data-frames").split()]
        assert len(sets) == len(_runs(frames_of)) and g.get("display") == "none"
    files = viewer.save(tmp_path / "frames" / "d.pdf")
    assert [f.name for f in files] == [f"d-{k:02d}.pdf" for k in range(8)]
    assert all(f.read_bytes().startswith(b"%PDF") for f in files)
    (page,) = viewer.save(tmp_path / "d.html")
    assert "dgraph-live" in page.read_text()


def test_a_viewer_s_html_is_the_same_bytes_in_every_run(monkeypatch):
    """``render --steps -o f.html`` wrote a random element id (uuid4): two runs of one
    command gave other bytes (survey37b). The id now comes from the content and the
    viewers made before it in the process: the same in every run, other for a second
    viewer on the same page."""
    viewer = steps(circular_example().graph, "markowitz")
    monkeypatch.setattr(viewer_module, "_VIEWERS", itertools.count(), raising=False)
    first, second = viewer._repr_html_(), viewer._repr_html_()
    monkeypatch.setattr(viewer_module, "_VIEWERS", itertools.count(), raising=False)
    assert viewer._repr_html_() == first  # a new run: the same bytes
    ids = [re.findall(r"id='(dgraph-steps-[0-9a-f]+)'", h) for h in (first, second)]
    assert len(ids[0]) == len(ids[1]) == 1 and ids[0] != ids[1]  # two on one page


def _positions(svg: str) -> dict[str, tuple]:
    """Where each node of a graphviz SVG is drawn: its shape's coordinates."""
    root = ET.fromstring(svg)
    out = {}
    for g in root.iter(f"{SVG}g"):
        title = g.find(f"{SVG}title")
        if g.get("class") != "node" or title is None:
            continue
        shape = g.find(f"{SVG}ellipse")
        if shape is not None:
            out[title.text] = (shape.get("cx"), shape.get("cy"))
        elif (shape := g.find(f"{SVG}polygon")) is not None:
            out[title.text] = shape.get("points")
    return out


@pytest.mark.parametrize(
    "name,method",
    [
        ("naumann_discrepancy.json", "edge-optimal"),
        ("naumann_discrepancy.json", "markowitz"),
        ("naumann_sin.trace", "face-optimal"),
        ("zhou_two_blocks.json", "reverse"),
    ],
)
def test_frames_keep_every_vertex_in_place_and_share_one_size(name, method):
    viewer = steps(bundled(name), method)
    lay_out_svgs([f.drawing for f in viewer.frames])  # as each alone: the test below
    svgs = [f.drawing.svg() for f in viewer.frames]
    first = _positions(svgs[0])
    vertices = [v for v in first if not v.startswith("label-")]
    assert len(vertices) >= 4
    for svg in svgs[1:]:
        placed = _positions(svg)
        kept = [v for v in vertices if v in placed]  # face elimination removes some
        assert len(kept) >= 3 and {v: placed[v] for v in kept} == {v: first[v] for v in kept}
    sizes = {
        tuple(re.findall(r'<g id="graph0" class="graph" transform="([^"]*)"', s)) for s in svgs
    }
    assert len(sizes) == 1
    # the frames shared: one SVG smaller than every frame written out
    assert len(shared_svg(viewer.frames).svg()) < 0.9 * sum(map(len, svgs))


def test_a_long_viewer_grows_with_the_changes_not_with_the_frames():
    viewer = steps(spherical_harmonics(4), "markowitz")
    shared = shared_svg(viewer.frames).svg()  # lays out every frame, in one dot run
    svgs = [f.drawing.svg() for f in viewer.frames]
    assert len(viewer) == 19
    # 19 frames of 62 kB each (1.06 MB together) share one SVG of 133 kB
    assert len(shared) < 3 * len(svgs[0])


def test_frames_laid_out_together_are_laid_out_as_each_alone(sin_graph):
    """One graphviz process for all frames (pipe_all) gives each frame's bytes as its own
    process does, in SVG and in PNG."""
    drawings = [f.drawing for f in steps(sin_graph, "reverse").frames]
    dots = [d._svg_dot for d in drawings]
    alone = [d.pipe(format="svg", neato_no_op=2, quiet=True) for d in dots]
    assert pipe_all(dots, "svg", 2) == alone and b'id="graph0"' in alone[-1]
    lay_out_svgs(drawings)
    assert [d.svg() for d in drawings] == [place_scripts(s.decode()) for s in alone]
    dpis = [40, 50, 60]
    assert pngs(drawings, dpis) == [d.pipe("png", k) for d, k in zip(drawings, dpis, strict=True)]


def test_step_frames_keep_labels_clear():
    viewer = steps(bundled("naumann_discrepancy.json"), "edge-optimal")
    for frame in viewer.frames:
        data = json.loads(frame.drawing._svg_dot.pipe(format="json", neato_no_op=2))
        assert collisions(data) == [] and overlaps(data) == []


# -- the command ---------------------------------------------------------------------------


def _json(capsys, *argv) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("view", ["graph", "line", "levels", "pages"])
def test_render_command_views(capsys, tmp_path, view):
    for suffix in (".svg", ".tex"):
        out = tmp_path / f"g{suffix}"
        data = _json(capsys, "render", TWO_BLOCKS, "-o", str(out), "--view", view)
        assert data == {"file": str(out), "files": [str(out)], "view": view}
    assert "<svg" in (tmp_path / "g.svg").read_text()
    assert "tikzpicture" in (tmp_path / "g.tex").read_text()
    standalone = tmp_path / "s.tex"
    _json(capsys, "render", TWO_BLOCKS, "-o", str(standalone), "--view", view, "--standalone")
    assert standalone.read_text().startswith("\\documentclass")


def test_render_command_highlight_and_steps(capsys, tmp_path):
    out = tmp_path / "h.dot"
    _json(capsys, "render", TWO_BLOCKS, "-o", str(out), "--highlight", "blocks,chains")
    assert out.read_text().count("subgraph cluster_") >= 2
    data = _json(capsys, "render", SIN, "-o", str(tmp_path / "s.svg"), "--steps", "-m", "reverse")
    assert data["frames"] == 3 and data["mults"] == 3 and len(data["files"]) == 3
    assert main(["render", SIN, "-o", str(tmp_path / "s.png"), "--steps", "--view", "line"]) == 2


def test_render_command_bad_input_exits_2(tmp_path, capsys):
    """Each bad input: exit 2, one line on stderr, no traceback; through ``main`` in this
    process (no interpreter start each: ``python -m dgraph`` runs this ``main``, and
    tests/test_cli.py and tests/test_hostile.py run it in processes of their own)."""
    for argv in (
        ["render", str(tmp_path / "missing.json"), "-o", str(tmp_path / "g.svg")],
        ["render", SIN, "-o", str(tmp_path / "g.gif")],
        ["render", SIN, "-o", str(tmp_path / "g.svg"), "--highlight", "rainbows"],
        ["render", SIN, "-o", str(tmp_path / "g.svg"), "--steps", "-m", "layers"],
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1, (argv, err)


def test_png_frames_past_the_pixel_limit_are_refused_in_one_line(tmp_path, monkeypatch, capsys):
    """Every frame is as large as all frames together: the 150 PNG frames of a
    100-operation function (24 gigapixels) took 5.4 CPU-s each. Past
    ``PNG_PIXEL_LIMIT`` (here lowered to 10⁶: naumann_sin's 3 reverse-mode frames are 609×940
    pixels each) the command says so in one line and writes nothing; ``--force`` writes
    them, each at least as large as the refusal said (graphviz adds a padding and the
    caption)."""
    from dgraph.render import stepviews

    monkeypatch.setattr(stepviews, "PNG_PIXEL_LIMIT", 10**6)
    monkeypatch.chdir(tmp_path)
    code = main(["render", SIN, "--steps", "-m", "reverse", "-o", "s.png"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err, err
    said = re.match(r"dgraph: error: 3 PNG frames of at least (\d+)×(\d+) pixels each: 1\.5 ", err)
    assert said is not None and "--force" in err, err
    assert not list(tmp_path.iterdir())
    assert main(["render", SIN, "--steps", "-m", "reverse", "-o", "s.png", "--force"]) == 0
    pngs = sorted(tmp_path.iterdir())
    assert [p.name for p in pngs] == ["s-00.png", "s-01.png", "s-02.png"]
    for png in pngs:
        size = png.read_bytes()[16:24]
        width, height = int.from_bytes(size[:4], "big"), int.from_bytes(size[4:], "big")
        assert 1 <= width / int(said[1]) < 1.15 and 1 <= height / int(said[2]) < 1.15
    viewer = steps(dgraph.bundled("naumann_sin.trace"), "reverse")
    with pytest.raises(DGraphError, match="3 PNG frames of at least"):
        viewer.save(tmp_path / "api.png")
    monkeypatch.setattr(stepviews, "PNG_PIXEL_LIMIT", 2 * 10**6)
    assert len(viewer.save(tmp_path / "api.png")) == 3


def test_a_graphviz_crash_is_one_clear_line(tmp_path, monkeypatch, capsys):
    """graphviz 2.43's ``dot`` crashes (SIGSEGV) laying out the union of a 300-operation
    function's 450 frames, after 58 CPU-s: that was ``dgraph: internal error:
    CalledProcessError ...``. Here ``dot`` and ``neato`` are scripts that crash the same
    way (a signal to themselves): every graphviz run of a drawing, a step view and a TikZ
    export says so in one line (exit 2), and the API raises a DGraphError."""
    import os
    import stat

    fake = tmp_path / "bin"
    fake.mkdir()
    for program in ("dot", "neato"):
        script = fake / program
        script.write_text("#!/bin/sh\ncat > /dev/null\necho 'out of luck' >&2\nkill -SEGV $$\n")
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{fake}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.chdir(tmp_path)
    for argv, program in (
        (["-o", "g.svg"], "dot"),
        (["-o", "g.png"], "dot"),
        (["-o", "g.tex"], "dot"),
        (["--steps", "-m", "reverse", "-o", "s.html"], "dot"),
    ):
        assert main(["render", SIN, *argv]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and "internal error" not in err, err
        assert err.startswith(f"dgraph: error: graphviz's {program} crashed (SIGSEGV)"), err
        assert "(out of luck)" in err, err
    frame = steps(dgraph.bundled("naumann_sin.trace"), "reverse").frames[1]
    with pytest.raises(DGraphError, match="graphviz's dot crashed"):
        frame.drawing.svg()  # the frames' layout: dot on their union
    assert not [p for p in tmp_path.iterdir() if p.name != "bin"]


def test_a_frame_title_appears_once_in_the_viewer(sin_graph):
    viewer = steps(dgraph.accumulate(sin_graph, "forward"))
    live = _live(viewer._repr_html_())
    for frame in viewer.frames:
        assert live.count(_html.escape(frame.title, quote=False)) == 1, frame.title


def test_frames_whose_union_is_too_large_to_lay_out_are_refused_before_graphviz(
    tmp_path, monkeypatch, capsys
):
    """Every frame is drawn on one layout of all of them: past ``STEP_EDGE_LIMIT`` edges
    in their union (here lowered to 5: naumann_sin's reverse frames have 10) the step view
    is refused in one line before any graphviz run (graphviz 2.43's dot crashed on the
    1,576 of a 300-operation function after 83 CPU-s); ``--force`` draws them."""
    from dgraph.render import stepviews

    monkeypatch.setattr(stepviews, "STEP_EDGE_LIMIT", 5)
    monkeypatch.setattr(stepviews, "pin_scenes", None)  # a layout now: exit 1, not 2
    monkeypatch.chdir(tmp_path)
    code = main(["render", SIN, "--steps", "-m", "reverse", "-o", "s.html"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "a step view of 3 frames whose union has 10 edges" in err and "--force" in err
    assert not list(tmp_path.iterdir())
    monkeypatch.undo()
    monkeypatch.setattr(stepviews, "STEP_EDGE_LIMIT", 5)
    monkeypatch.chdir(tmp_path)
    assert main(["render", SIN, "--steps", "-m", "reverse", "-o", "s.html", "--force"]) == 0
    with pytest.raises(DGraphError, match="whose union has 10 edges"):
        steps(dgraph.bundled("naumann_sin.trace"), "reverse")


def test_a_tensor_step_view_makes_its_shared_legend_once(monkeypatch):
    """The block families' legend every frame of a tensor graph's step view shows is one
    list, made once (it was made again for each frame over all frames' blocks: 900 calls
    over 84 million block types, 87 of 120 CPU-s at 300 operations)."""
    from dgraph.render import stepviews

    made = []
    legend = stepviews.family_legend
    monkeypatch.setattr(stepviews, "family_legend", lambda t, s: made.append(1) or legend(t, s))
    graph = dgraph.from_function(
        lambda x: np.sum(np.sin(x) * x[::-1]) + np.prod(np.exp(x[:2])), sizes=[(3,)], level="array"
    )
    viewer = steps(graph, "markowitz")
    assert len(viewer.frames) >= 3 and len(made) == 1
    legends = {tuple(f.pinning.scenes[f.index].legend) for f in viewer.frames}
    assert len(legends) >= 1 and all(len(rows) for rows in legends)


def test_the_room_around_a_label_is_the_brute_force_minimum():
    """``pin``'s distance from a candidate label spot to the nearest point taken (x
    counting a third) is the same number as over every point, while points are added
    (a k-d tree finds the candidates near the nearest; the distance is computed as
    written over those)."""
    import random

    from dgraph.render.pinned import _Taken

    rng = random.Random(5)
    for trial in range(20):
        points = [(rng.uniform(0, 900), rng.uniform(0, 600)) for _ in range(rng.randint(0, 300))]
        taken = _Taken(points)
        for _ in range(150):
            x, y = rng.uniform(-50, 950), rng.uniform(-50, 650)
            want = min((((x - u) / 3) ** 2 + (y - v) ** 2 for u, v in points), default=0.0)
            assert taken.room(x, y) == want, trial
            if rng.random() < 0.5:
                p = (round(rng.uniform(0, 900)), round(rng.uniform(0, 600)))  # ties too
                taken.append(p)
                points.append(p)
