"""Screenshots of example notebooks as a browser shows them, trusted and untrusted.

Each notebook is executed (nbclient, in its own folder), exported to HTML by nbconvert and
shown in headless chromium. ``--untrusted`` first reduces every output to what JupyterLab
shows for an untrusted notebook, as tests/test_browser.py does (``tests/jupyter_untrusted.py``:
no ``image/svg+xml``, no scripts, ``text/html`` through JupyterLab's sanitizing rules).
``--trusted`` is the plain ``HTMLExporter``. The page is cut into shots of ``--height``
CSS px that together cover every graph output (an output with ``image/png`` or
``image/svg+xml``, or a ``<Drawing``/``<DGraph``/``<StepViewer``/``<FaceState``/
``AnimatedSVG`` repr), named
``NAME-MODE-K.png``::

    python docs/gallery/screenshots/shoot.py examples/01_elimination.ipynb \\
        examples/02_zhou.ipynb examples/06_faces.ipynb --out docs/gallery/screenshots/after

Needs chromium (Debian's ``chromium``) and nbconvert. Network resources of the page
(require.js and MathJax from a CDN) are left out, so LaTeX shows as its source.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository, for tests/
from tests.jupyter_untrusted import is_graph_output, offline, untrusted_notebook

SCALES = (1.0, 0.85, 0.7, 0.6)  # device pixels a CSS px, tried in turn
MEASURE = """
<script>
window.addEventListener("load", function () {
  var rows = [];
  document.querySelectorAll(".jp-Cell").forEach(function (cell) {
    cell.querySelectorAll(".jp-OutputArea-child").forEach(function (child, oi) {
      var r = child.getBoundingClientRect();
      rows.push({id: cell.id, output: oi, top: r.top + window.scrollY, height: r.height});
    });
  });
  var pre = document.createElement("pre");
  pre.id = "dgraph-measure";
  pre.textContent = JSON.stringify({height: document.documentElement.scrollHeight,
                                    outputs: rows});
  document.body.appendChild(pre);
});
</script>
"""


def chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        if found := shutil.which(name):
            return found
    sys.exit("shoot.py: no chromium or chromium-browser on PATH (apt-get install chromium)")


def run_chromium(
    binary: str, profile: Path, width: int, height: int, *args: str, scale: float = 1.0
) -> str:
    cmd = [
        binary,
        "--headless",
        "--disable-gpu",
        "--no-sandbox",
        "--hide-scrollbars",
        "--no-first-run",
        f"--user-data-dir={profile}",
        f"--window-size={width},{height}",
        f"--force-device-scale-factor={scale:g}",
        "--virtual-time-budget=5000",
        *args,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=True).stdout


def execute(path: Path):
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    return nb


def export(nb, untrusted: bool) -> str:
    from nbconvert import HTMLExporter

    body, _ = HTMLExporter().from_notebook_node(untrusted_notebook(nb) if untrusted else nb)
    return offline(body)


def graph_outputs(nb) -> set[tuple[str, int]]:
    """(cell id anchor, output index) of the outputs that are drawings."""
    found = set()
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for oi, out in enumerate(cell.get("outputs", [])):
            if is_graph_output(out):
                found.add((f"cell-id={cell.get('id', '')}", oi))
    return found


def offsets(outputs: list[dict], wanted: set, height: int) -> list[int]:
    """Tops of shots of ``height`` px that between them show the start of every wanted
    output (from 80 px above it), in page order."""
    tops: list[int] = []
    for out in sorted(outputs, key=lambda o: o["top"]):
        if (out["id"], out["output"]) not in wanted:
            continue
        if tops and out["top"] + min(out["height"], height / 2) <= tops[-1] + height:
            continue
        tops.append(int(max(0, out["top"] - 80)))  # the last shot ends with the page
    return tops or [0]


def shoot(binary, nb, stem, mode, out: Path, width: int, height: int, max_kb: int, work: Path):
    page = export(nb, untrusted=mode == "untrusted")
    measured = work / f"{stem}-{mode}-measure.html"
    measured.write_text(page.replace("</body>", MEASURE + "</body>", 1))
    dom = run_chromium(binary, work / "profile-m", width, height, "--dump-dom", measured.as_uri())
    found = re.search(r'<pre id="dgraph-measure">(.*?)</pre>', dom, re.S)
    if not found:
        sys.exit(f"shoot.py: {stem} ({mode}) was not measured")
    info = json.loads(html.unescape(found.group(1)))
    for stale in out.glob(f"{stem}-{mode}-*.png"):
        stale.unlink()
    made = []
    for k, top in enumerate(offsets(info["outputs"], graph_outputs(nb), height)):
        shown = work / f"{stem}-{mode}-{k + 1}.html"
        shift = f"<style>body {{ transform: translateY(-{top}px); }}</style>"
        shown.write_text(page.replace("</head>", shift + "</head>", 1))
        target = out / f"{stem}-{mode}-{k + 1}.png"
        tall = int(min(height, info["height"] - top))
        for scale in SCALES:  # fewer pixels until the PNG is small enough for the repository
            run_chromium(
                binary,
                work / f"profile-{k}",
                width,
                tall,
                f"--screenshot={target}",
                shown.as_uri(),
                scale=scale,
            )
            size = target.stat().st_size // 1024
            if size <= max_kb:
                break
        made.append(target)
        print(
            f"{target}: page y {top}..{top + tall} of {info['height']:.0f}, "
            f"scale {scale:g}, {size} KB"
        )
    return made


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, required=True, help="folder for the PNGs")
    parser.add_argument("--untrusted", action="store_true", help="only the untrusted view")
    parser.add_argument("--trusted", action="store_true", help="only the trusted view")
    parser.add_argument("--width", type=int, default=1000, help="CSS px (default 1000)")
    parser.add_argument("--height", type=int, default=2400, help="CSS px a shot (default 2400)")
    parser.add_argument(
        "--max-kb", type=int, default=400, help="shrink a shot until its PNG is this small"
    )
    args = parser.parse_args(argv)
    modes = [m for m in ("untrusted", "trusted") if getattr(args, m)] or ["untrusted", "trusted"]
    binary = chromium()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="dgraph-shoot-") as tmp:
        for path in args.notebooks:
            nb = execute(path.resolve())
            for mode in modes:
                shoot(
                    binary,
                    nb,
                    path.stem,
                    mode,
                    args.out,
                    args.width,
                    args.height,
                    args.max_kb,
                    Path(tmp),
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
