"""Regenerate docs/gallery: every benchmark graph and the notebooks' figures, as SVG and
PNG, with index.md. Run by docs/make_figures.sh (``python docs/gallery/make_gallery.py``).
TikZ figures are compiled to PNG when pdflatex and pdftoppm are installed."""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
import tempfile
from pathlib import Path

import dgraph
from dgraph.bench.suite import spherical_harmonics, suite
from dgraph.faces.elimination import FaceState
from dgraph.faces.examples import circular_example
from dgraph.faces.realize import check_faces
from dgraph.render import draw, get_style, steps
from dgraph.render.regions import Region

OUT = Path(__file__).resolve().parent
PAPER = dataclasses.replace(get_style("paper"), dpi=110)
sections: list[tuple[str, str, list[tuple[str, str]]]] = []


def save(drawing, name: str) -> str:
    drawing.scene.style = dataclasses.replace(drawing.scene.style, dpi=PAPER.dpi)
    drawing.__dict__.pop("dot", None)
    drawing.save(OUT / f"{name}.svg")
    drawing.save(OUT / f"{name}.png")
    print(f"wrote docs/gallery/{name}.svg .png")
    return name


def section(title: str, text: str, items: list[tuple[str, str]]) -> None:
    sections.append((title, text, items))


def tikz_png(drawing, name: str) -> list[tuple[str, str]]:
    tex = drawing.save(OUT / f"{name}.tex", standalone=True)
    if not (shutil.which("pdflatex") and shutil.which("pdftoppm")):
        print("pdflatex or pdftoppm missing: TikZ figure not compiled")
        return []
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(tex, tmp)
        subprocess.run(
            ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", tex.name],
            cwd=tmp,
            check=True,
            capture_output=True,
        )
        pdf = Path(tmp) / f"{name}.pdf"
        subprocess.run(
            ["pdftoppm", "-png", "-r", "110", "-singlefile", str(pdf), str(OUT / name)],
            check=True,
        )
    print(f"wrote docs/gallery/{name}.tex .png")
    return [(name, "the TikZ export, typeset by pdfLaTeX (labels in LaTeX math)")]


def main() -> None:
    for old in OUT.glob("*"):
        if old.suffix in (".svg", ".png", ".tex") or old.name == "index.md":
            old.unlink()

    bench = []
    for name, build in suite("quick").items():
        g = build()
        facts = f"{len(g.inputs)} inputs, {len(g.intermediates)} intermediates, "
        facts += f"{len(g.outputs)} outputs, {g.n_edges} edges"
        bench.append((save(draw(g, style=PAPER), f"bench-{name}"), f"{name}: {facts}"))
    section(
        "Benchmark graphs",
        "The quick benchmark suite (`dgraph bench`), graph view, data-flow direction, "
        "one rank per depth level, edges labeled with their local partials.",
        bench,
    )

    s = dgraph.bundled("spherical_coordinates.trace")
    d = dgraph.bundled("naumann_discrepancy.json")
    t = dgraph.bundled("zhou_two_blocks.json")
    c = dgraph.bundled("zhou_complex_block.json")
    section(
        "Views",
        "The spherical-coordinates map in the four views (`--view graph|levels|line|pages`).",
        [
            (save(draw(s, style=PAPER), "view-graph"), "graph"),
            (save(draw(s, "levels", style=PAPER), "view-levels"), "levels: copies dashed, J_k"),
            (save(draw(d, "line", style=PAPER), "view-line"), "line graph (discrepancy graph)"),
            (save(draw(s, "pages", style=PAPER), "view-pages"), "pages (Zhou §5)"),
        ],
    )
    umbrellas = draw(s, highlight="umbrellas", style=PAPER)
    section(
        "Highlights",
        "`--highlight chains|blocks|umbrellas|closed-umbrellas|factors|pages`: clusters "
        "where regions nest, edges in the region's color and line pattern, a legend.",
        [
            (
                save(draw(t, highlight="chains", direction="dependence", style=PAPER), "hl-chains"),
                "chains of Zhou's two blocks",
            ),
            (
                save(draw(t, highlight="blocks", direction="dependence", style=PAPER), "hl-blocks"),
                "blocks",
            ),
            (
                save(
                    draw(t, highlight="closed-umbrellas", direction="dependence", style=PAPER),
                    "hl-closed-umbrellas",
                ),
                "closed umbrellas (the hierarchy)",
            ),
            (save(umbrellas, "hl-umbrellas"), "umbrellas with copying"),
            (
                save(
                    draw(d, highlight="factors", direction="dependence", style=PAPER), "hl-factors"
                ),
                "D*'s factor subgraph",
            ),
            (save(draw(s, highlight="pages", style=PAPER), "hl-pages"), "pages on the graph"),
            *tikz_png(draw(s, highlight="umbrellas"), "tikz-umbrellas"),
        ],
    )

    sin = dgraph.bundled("naumann_sin.trace")
    frames = []
    for k, f in enumerate(steps(sin, "reverse", style=PAPER).frames):
        frames.append((save(f.drawing, f"steps-reverse-{k:02d}"), f.title))
    for k, f in enumerate(
        steps(c, "zhou", strategy="global", variant="backward", direction="dependence").frames
    ):
        frames.append((save(f.drawing, f"steps-zhou-backward-{k:02d}"), f.title))
    for k, f in enumerate(steps(sin, "face-optimal", style=PAPER).frames):
        frames.append((save(f.drawing, f"steps-faces-{k:02d}"), f.title))
    steps(sin, "forward").animation().save(OUT / "steps-forward-animated.svg")
    print("wrote docs/gallery/steps-forward-animated.svg")
    section(
        "Step by step",
        "`dgraph render --steps -m METHOD` (notebooks 01, 02, 06): reverse mode on "
        "y = x0 sin(x1) sin(x1), Zhou's backward factorization of the complex block, and "
        "face elimination. [steps-forward-animated.svg](steps-forward-animated.svg) is "
        "forward mode as one animated SVG (open it in a browser).",
        frames,
    )

    es = dgraph.accumulate(c, "zhou", strategy="global", variant="forward")
    g5 = spherical_harmonics(5)
    where = Region(
        "circular faces",
        frozenset({"y", "t4", "t5", "t7"}),
        frozenset({("y", "t4"), ("t4", "t5"), ("t5", "t7")}),
    )
    circular = circular_example()
    check = check_faces(circular)
    left = FaceState(circular.graph)
    for face in check.faces_done:
        left.eliminate(*left.face_by_name(*face))
    section(
        "From the notebooks",
        "Figures of examples/02_zhou, 03_umbrellas_dstar and 06_faces.",
        [
            (save(draw(es, style=PAPER), "nb-forward-factorization"), "forward factorization"),
            (save(draw(t, "levels", style=PAPER), "nb-two-blocks-levels"), "levels, J1..J4"),
            (save(draw(d, "pages", style=PAPER), "nb-discrepancy-pages"), "two pages"),
            (
                save(draw(g5, highlight=[where], labels=False, style=PAPER), "nb-harmonics-cycle"),
                "where D*'s circular dependency sits (spherical harmonics, l < 5)",
            ),
            (
                save(
                    draw(left, "line", faces=[dep.face for dep in check.cycle], style=PAPER),
                    "nb-circular-faces",
                ),
                "the two faces that wait for each other",
            ),
        ],
    )
    section(
        "Styles",
        "`--style screen` (sans serif) and `--style plain` (labels as the text output "
        "writes them).",
        [
            (save(draw(sin, style="screen"), "style-screen"), "screen"),
            (save(draw(sin, style="plain"), "style-plain"), "plain"),
        ],
    )

    lines = [
        "# Gallery",
        "",
        "Every figure dgraph's renderer draws for the benchmark graphs and the notebooks, as",
        "SVG and PNG (click a picture for its SVG). Regenerated by `sh docs/make_figures.sh`;",
        "see [rendering.md](../rendering.md) for the API and the command.",
        "",
    ]
    for title, text, items in sections:
        lines += [f"## {title}", "", text, ""]
        for name, caption in items:
            target = f"{name}.tex" if name.startswith("tikz") else f"{name}.svg"
            lines += [f"[![{caption}]({name}.png)]({target})", "", f"*{caption}*", ""]
    (OUT / "index.md").write_text("\n".join(lines))
    print("wrote docs/gallery/index.md")


if __name__ == "__main__":
    main()
