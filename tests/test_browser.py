"""The example notebooks' graphs show in a browser as an *untrusted* notebook is shown.

A notebook received from someone else, or executed by nbconvert and opened afterwards, is
untrusted: JupyterLab renders no ``image/svg+xml`` and no script from it, and sanitizes
its ``text/html`` (the rules: :mod:`tests.jupyter_untrusted`). This test executes
examples 01 and 06 with nbclient, reduces every output to what JupyterLab shows
untrusted, exports the result with nbconvert's ``HTMLExporter``, loads the page in
headless chromium and checks that every graph output shows as an image.

(nbconvert's own ``SanitizeHTML`` preprocessor is stricter than JupyterLab: it escapes
``<img>`` in HTML outputs and drops ``data:`` sources, so under it only outputs without
``text/html`` can show an image; dgraph's step viewer, whose slider needs HTML, shows
there as text. JupyterLab, the place where notebooks are untrusted, is the model here.)

How it measures: the test appends its own script to the exported page (no output's
script: those are gone); after ``load`` it writes into ``<pre id="dgraph-measure">`` a JSON
record per output area child -- cell index and id, output index, shown MIME type, a text
excerpt, and every ``<img>``/``<svg>`` in it with its rendered CSS width and height and
``naturalWidth`` -- which ``chromium --headless --dump-dom`` prints back. A *graph output*
is a code-cell output whose data, as executed, has ``image/png`` or ``image/svg+xml``, or
whose ``text/plain`` starts with ``<Drawing``, ``<DGraph``, ``<StepViewer``, ``<FaceState``
or contains ``AnimatedSVG``; each must show at least one decoded image of at least
60 x 40 CSS px, and no SVG markup may show as text. A screenshot of the top of each page
is taken in the same chromium run and must not be blank (its colours counted with
Pillow).

Skipped where no chromium binary or no nbconvert is installed (``sh setup.sh test``
installs Debian's ``chromium`` when it can).
"""

from __future__ import annotations

import html
import importlib.util
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from .deferred_iri import defer_iri_grammar
from .jupyter_untrusted import is_graph_output, offline, untrusted_notebook
from .notebook_kernel import EXAMPLES, shared_kernel

# one notebook per kind of graph output and of content: 01 has a graph (PNG beside SVG),
# step viewers (HTML) and an animation (SVG beside HTML); 06 the drawings of dgraph.render
# (PNG beside SVG, one far wider than the page) and the line graph's step viewer. 02's
# outputs are of those kinds, drawn and shown by the same code (Drawing's PNG, the step
# viewer's HTML): it runs in tests/test_notebooks.py
NOTEBOOKS = ["01_elimination.ipynb", "06_faces.ipynb"]
CHROMIUM_NAMES = ("chromium", "chromium-browser")
MIN_WIDTH, MIN_HEIGHT = 60, 40  # CSS px
WINDOW = (1100, 2600)

MEASURE_SCRIPT = """
<script>
window.addEventListener("load", function () {
  var outputs = [];
  document.querySelectorAll(".jp-Cell").forEach(function (cell, ci) {
    cell.querySelectorAll(".jp-OutputArea-child").forEach(function (child, oi) {
      var shown = child.querySelector(".jp-OutputArea-output");
      var images = [];
      child.querySelectorAll("img, svg").forEach(function (el) {
        var tag = el.tagName.toLowerCase();
        if (tag === "svg" && el.parentElement && el.parentElement.closest("svg")) return;
        var r = el.getBoundingClientRect();
        images.push({kind: tag, width: r.width, height: r.height,
                     naturalWidth: tag === "img" ? el.naturalWidth : null,
                     complete: tag === "img" ? el.complete : null});
      });
      var mime = shown && (shown.getAttribute("data-mime-type") ||
        (shown.classList.contains("jp-RenderedImage") ? "image/png or jpeg" : shown.className));
      outputs.push({cell: ci, id: cell.id, output: oi, mime: mime || null,
                    text: (child.innerText || "").replace(/\\s+/g, " ").slice(0, 160),
                    images: images});
    });
  });
  var pre = document.createElement("pre");
  pre.id = "dgraph-measure";
  pre.textContent = JSON.stringify({outputs: outputs,
                                    height: document.documentElement.scrollHeight});
  document.body.appendChild(pre);
});
</script>
"""


def _chromium() -> str | None:
    return next((p for p in map(shutil.which, CHROMIUM_NAMES) if p), None)


def _run_chromium(binary: str, profile: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [
        binary,
        "--headless",
        "--disable-gpu",
        "--no-sandbox",
        "--hide-scrollbars",
        "--no-first-run",
        f"--user-data-dir={profile}",
        f"--window-size={WINDOW[0]},{WINDOW[1]}",
        "--virtual-time-budget=5000",
        *args,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)


def colours(png: Path) -> dict:
    """A screenshot's size, its number of distinct colours and the share of its pixels not
    in the commonest colour (a blank page: one or two colours, no foreground)."""
    from PIL import Image  # matplotlib's dependency (the test extra)

    with Image.open(png) as image:
        rgb = image.convert("RGB")
    pixels = rgb.width * rgb.height
    counts = rgb.getcolors(maxcolors=pixels)
    top = max(n for n, _ in counts)
    return {"width": rgb.width, "height": rgb.height, "colors": len(counts),
            "foreground": 1 - top / pixels}  # fmt: skip


def untrusted_html(nb) -> str:
    """``nb`` as JupyterLab shows it untrusted, as one HTML page."""
    defer_iri_grammar()
    from nbconvert import HTMLExporter

    body, _ = HTMLExporter().from_notebook_node(untrusted_notebook(nb))
    return offline(body)


def graph_outputs(nb) -> dict[tuple[int, int], str]:
    """(cell index, output index) -> what it is, for the outputs that are drawings."""
    found = {}
    for ci, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        for oi, out in enumerate(cell.get("outputs", [])):
            if is_graph_output(out):
                data = out.get("data", {})
                plain = data.get("text/plain", "")
                found[ci, oi] = (
                    f"{plain[:60]!r} with {sorted(k for k in data if k != 'text/plain')}"
                )
    return found


@pytest.fixture(scope="module")
def kernel(request):
    """The process's kernel for notebooks (tests/test_notebooks.py's too), each notebook
    executed once in it (the two tests of 01 share its run) as in a fresh kernel
    (tests/notebook_kernel.py); a cell's error fails there, as in tests/test_notebooks.py,
    which leaves these notebooks to this file where chromium is installed."""
    # imported there, with jsonschema's IRI grammar deferred (tests/deferred_iri.py): paid
    # by the processes that run a notebook, not by every worker that collects this file
    defer_iri_grammar()
    return shared_kernel(request.config)


def browser_available() -> bool:
    """Whether these tests run here: a chromium binary and nbconvert (found, not imported:
    tests/test_notebooks.py asks in processes that may never export a page)."""
    if importlib.util.find_spec("nbconvert") is None:
        return False
    return _chromium() is not None


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_untrusted_notebook_shows_every_graph(name, tmp_path, request):
    binary = _chromium()
    if binary is None:
        pytest.skip(f"no chromium binary ({' or '.join(CHROMIUM_NAMES)}) on PATH")
    defer_iri_grammar()
    pytest.importorskip("nbconvert", reason="nbconvert is not installed")

    nb = request.getfixturevalue("kernel").executed(EXAMPLES / name)
    graphs = graph_outputs(nb)
    assert graphs, f"{name}: no graph outputs found; the test would check nothing"
    page = untrusted_html(nb)
    stem = Path(name).stem
    shown = tmp_path / f"{stem}-untrusted.html"
    shown.write_text(page)

    shot = tmp_path / f"{stem}-untrusted.png"
    measured = tmp_path / f"{stem}-measure.html"
    measured.write_text(page.replace("</body>", MEASURE_SCRIPT + "</body>", 1))
    run = _run_chromium(
        binary, tmp_path / "profile", f"--screenshot={shot}", "--dump-dom", measured.as_uri()
    )
    assert shot.exists(), f"chromium wrote no screenshot: {run.stderr[-2000:]}"
    found = re.search(r'<pre id="dgraph-measure">(.*?)</pre>', run.stdout, re.S)
    assert found, f"the page was not measured; chromium said: {run.stderr[-2000:]}"
    result = json.loads(html.unescape(found.group(1)))

    screenshot = colours(shot)
    assert screenshot["colors"] > 16 and screenshot["foreground"] > 0.01, (
        f"the screenshot {shot} looks blank: {screenshot}"
    )

    by_cell_id = {}
    for out in result["outputs"]:
        by_cell_id.setdefault(out["id"], []).append(out)
    failures = []
    for (ci, oi), what in sorted(graphs.items()):
        cell = nb.cells[ci]
        outs = by_cell_id.get(f"cell-id={cell.get('id', '')}", [])
        if len(outs) != len(cell.outputs):
            failures.append(
                f"cell {ci} output {oi} {what}: the page shows {len(outs)} outputs for this "
                f"cell, the notebook has {len(cell.outputs)}"
            )
            continue
        out = outs[oi]
        good = [
            im
            for im in out["images"]
            if im["width"] >= MIN_WIDTH
            and im["height"] >= MIN_HEIGHT
            and (im["kind"] != "img" or im["naturalWidth"])
        ]
        verdict = "ok" if good else "FAILED"
        sizes = ", ".join(
            f"{im['kind']} {im['width']:.0f}x{im['height']:.0f}"
            + (f" natural width {im['naturalWidth']}" if im["kind"] == "img" else "")
            for im in out["images"]
        )
        line = f"cell {ci} output {oi} {what}: shown as {out['mime']}, images: [{sizes or 'none'}]"
        print(f"{name}: {verdict} {line}")  # shown with -s or -rA
        if not good or "&lt;svg" in out["text"] or "<svg" in out["text"]:
            failures.append(f"{line}, text: {out['text'][:100]!r}")
    if failures:
        pytest.fail(
            f"{name}: {len(failures)} of {len(graphs)} graph outputs show no image of at least "
            f"{MIN_WIDTH}x{MIN_HEIGHT} CSS px in the untrusted page {shown}:\n  "
            + "\n  ".join(failures),
            pytrace=False,
        )


SLIDE_SCRIPT = """
<script>
window.addEventListener("load", function () {
  var viewers = [];
  document.querySelectorAll(".dgraph-steps").forEach(function (root) {
    var live = root.querySelector(".dgraph-live"), strip = root.querySelector(".dgraph-strip");
    var slider = live.querySelector("input"), svg = live.querySelector("svg");
    var r = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
    var frames = [];
    for (var k = 0; slider && k <= +slider.max; k++) {
      slider.value = k; slider.oninput();
      var wrong = 0, shown = 0;
      live.querySelectorAll("[data-frames]").forEach(function (g) {
        var inside = (" " + g.getAttribute("data-frames") + " ").indexOf(" " + k + " ") >= 0;
        var visible = getComputedStyle(g).display !== "none";
        if (inside !== visible) wrong++;
        if (visible) shown++;
      });
      frames.push({shown: shown, wrong: wrong,
                   count: live.querySelector(".dgraph-count").textContent});
    }
    viewers.push({live: getComputedStyle(live).display, strip: getComputedStyle(strip).display,
                  width: r.width, height: r.height, frames: frames});
  });
  var pre = document.createElement("pre");
  pre.id = "dgraph-measure";
  pre.textContent = JSON.stringify(viewers);
  document.body.appendChild(pre);
});
</script>
"""


def test_trusted_step_viewer_slides_through_its_frames(tmp_path, request):
    """Trusted, the step viewer's script replaces the PNG strip by the shared SVG, and each
    slider position shows exactly the versions marked for that frame."""
    binary = _chromium()
    if binary is None:
        pytest.skip(f"no chromium binary ({' or '.join(CHROMIUM_NAMES)}) on PATH")
    defer_iri_grammar()
    nbconvert = pytest.importorskip("nbconvert", reason="nbconvert is not installed")

    nb = request.getfixturevalue("kernel").executed(EXAMPLES / "01_elimination.ipynb")
    body, _ = nbconvert.HTMLExporter().from_notebook_node(nb)
    page = tmp_path / "trusted.html"
    page.write_text(offline(body).replace("</body>", SLIDE_SCRIPT + "</body>", 1))
    run = _run_chromium(binary, tmp_path / "profile", "--dump-dom", page.as_uri())
    found = re.search(r'<pre id="dgraph-measure">(.*?)</pre>', run.stdout, re.S)
    assert found, f"the page was not measured; chromium said: {run.stderr[-2000:]}"
    viewers = json.loads(html.unescape(found.group(1)))
    assert [len(v["frames"]) for v in viewers] == [3, 8]  # reverse and edge-optimal
    for v in viewers:
        assert v["live"] != "none" and v["strip"] == "none"
        assert v["width"] >= MIN_WIDTH and v["height"] >= MIN_HEIGHT
        n = len(v["frames"])
        assert [f["count"] for f in v["frames"]] == [f"{k} / {n - 1}" for k in range(n)]
        assert all(f["wrong"] == 0 and f["shown"] > 0 for f in v["frames"])
