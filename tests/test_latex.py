"""LaTeX output compiles: the TikZ of every view (graphs, line graphs under face
elimination, expression sets laid out as graphs, step frames, titles with every character
text mode treats specially) and an expression set's ``align*``, all in one document, with
pdfLaTeX where it is installed; ``dgraph accumulate --latex`` prints LaTeX only."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dgraph.cli import main
from dgraph.faces.elimination import FaceState
from dgraph.frontends import bundled
from dgraph.methods import accumulate
from dgraph.render.drawing import VIEWS, draw
from dgraph.render.labels import text_label
from dgraph.render.stepviews import frames

from .pdflatex import pdflatex

# every character LaTeX's text mode treats specially, a backslash first
DATA = Path(__file__).resolve().parent.parent / "dgraph" / "data"
HOSTILE_TITLE = "a\\b {c} 50% #1 $x$ x_1 ~ ^ <y> -> & \\\\ \\{"

_DOCUMENT = r"""\documentclass{article}
\usepackage{amsmath}
\usepackage{tikz}
\usetikzlibrary{arrows.meta,shapes.geometric}
\begin{document}
%s
\end{document}
"""


def test_text_label_escapes_a_backslash_once():
    """The old code escaped ``\\`` before the braces: ``\\textbackslash\\{\\}``."""
    assert text_label("a\\b").tex == r"a\textbackslash{}b"
    assert text_label("{x}_1 -> y").tex == r"\{x\}\_1 $\to$ y"
    assert text_label("100% & #2").tex == r"100\% \& \#2"


def _pictures() -> list[str]:
    """The TikZ of every view and kind of drawing, and an expression set's LaTeX."""
    discrepancy = bundled("naumann_discrepancy.json")
    out = [draw(discrepancy, view, highlight="factors").tikz() for view in VIEWS]
    out.append(draw(bundled("zhou_two_blocks.json"), "pages", highlight="pages").tikz())
    out.append(draw(bundled("naumann_sin.trace"), title=HOSTILE_TITLE).tikz())
    es = accumulate(discrepancy, "zhou")
    out.append(draw(es).tikz())
    out.append(es.to_latex())
    vertex = accumulate(bundled("naumann_sin.trace"), "vertex", order=["v1", "v2"])
    out += [f.drawing.tikz() for f in frames(vertex)[:2]]
    faces = accumulate(bundled("naumann_sin.trace"), "face-greedy")
    out += [f.drawing.tikz() for f in frames(faces)[:2]]
    out.append(draw(FaceState(bundled("naumann_sin.trace")), "line").tikz())
    return out


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex not installed")
def test_every_picture_and_an_expression_set_compile(tmp_path, capsys):
    code = main(
        [
            "accumulate",
            str(DATA / "naumann_discrepancy.json"),
            "-m",
            "dstar",
            "--latex",
        ]
    )
    cli_latex, _ = capsys.readouterr()
    assert code == 0
    body = "\n\n".join([*_pictures(), cli_latex])
    (tmp_path / "all.tex").write_text(_DOCUMENT % body)
    run = pdflatex(tmp_path, "all.tex")
    assert run.returncode == 0, run.stdout[-3000:]
    assert (tmp_path / "all.pdf").read_bytes().startswith(b"%PDF")
    assert "Missing character" not in (tmp_path / "all.log").read_text(errors="replace")


def test_accumulate_latex_prints_latex_only(capsys):
    """Every stdout line is a LaTeX comment or part of the align* (the old code printed
    the report lines first, as text)."""
    assert main(["accumulate", str(DATA / "naumann_sin.trace"), "-m", "dstar", "--latex"]) == 0
    out, _ = capsys.readouterr()
    lines = out.splitlines()
    start = lines.index(r"\begin{align*}")
    assert lines[-1] == r"\end{align*}"
    assert all(line.startswith("% ") for line in lines[:start])
    assert any("dstar: 3 mults" in line for line in lines[:start])
