"""The documentation site (``sh setup.sh docs``) as headless chromium shows it.

The built site (docs/_build/html) is served over HTTP from this process, and one chromium
run loads a harness page of the same origin that fetches every page of the site, four at a
time, parses it (``DOMParser``) and records whether it loaded (its article is there and not
empty). A page with an ``<img>``, math (``.math``) or a notebook widget's state is then
opened in an iframe, which records every ``<img>`` with ``complete`` and ``naturalWidth``
after ``decode()``, the math elements Sphinx wrote and the ``mjx-container`` elements
MathJax made of them once ``MathJax.startup.promise`` resolved; a page with none of them
(the API reference's pages, most of the site) has nothing to decode or typeset, and
laying it out in a frame was two thirds of the crawl's time. The record comes back through
``--dump-dom`` (as in tests/test_browser.py; ``--virtual-time-budget`` lets the loads and
the typesetting finish first). Then a screenshot each of the home page, a concept page, a
notebook page and an API page must not be blank; with ``DGRAPH_SITE_SHOTS=1`` they are
written to docs/gallery/screenshots/site/ (the committed ones were made so).

Skipped where the site has not been built (the build executes the notebooks once, about
two minutes, so the suite does not build it) or where no chromium binary is installed.
The check takes about 25 s (a crawl of 192 pages, four screenshots).
"""

from __future__ import annotations

import functools
import html
import http.server
import importlib
import json
import os
import re
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from .test_browser import colours

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "docs" / "_build" / "html"
SHOTS = ROOT / "docs" / "gallery" / "screenshots" / "site"
CHROMIUM_NAMES = ("chromium", "chromium-browser")
#: the packages whose ``__all__`` the API reference covers (docs/conf.py's PACKAGES)
PACKAGES = ("dgraph", "dgraph.methods", "dgraph.codegen", "dgraph.render", "dgraph.chain")
PACKAGES += ("dgraph.inverse", "dgraph.cli")
SCREENSHOTS = {  # name: (page, window height in CSS px)
    "home": ("docs/index.html", 1000),
    "concept": ("docs/concepts.html", 1400),
    "notebook": ("examples/01_elimination.html", 3300),  # down to its first expression set
    "api": ("docs/api/generated/dgraph.DGraph.html", 1400),
}
HARNESS = "/__dgraph_check__.html"

HARNESS_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>
<script>
var PAGES = %s;
function sleep(ms) { return new Promise(function (r) { setTimeout(r, ms); }); }
async function parsed(url) {
  var response = await fetch(url);
  var d = new DOMParser().parseFromString(await response.text(), "text/html");
  if (!response.ok || d.querySelector("img, .math, script[type*=widget]")) return null;
  var article = d.querySelector("article");
  return {url: url, title: d.title, article: article ? article.textContent.trim().length : 0,
          images: [], math: 0, typeset: 0, mathjax: false, raw: 0, parsed: true};
}
async function check(url) {
  var record = await parsed(url);
  if (record) return record;
  var frame = document.createElement("iframe");
  frame.style.width = "1200px"; frame.style.height = "900px";
  var loaded = new Promise(function (r) { frame.onload = r; });
  frame.src = url;
  document.body.appendChild(frame);
  await loaded;
  var w = frame.contentWindow, d = frame.contentDocument;
  record = {url: url, title: d.title, article: 0, images: [], math: 0, typeset: 0,
             mathjax: false};
  var article = d.querySelector("article");
  record.article = article ? article.innerText.trim().length : 0;
  var imgs = Array.from(d.querySelectorAll("img"));
  for (var img of imgs) {
    var ok = true;
    try { await img.decode(); } catch (e) { ok = false; }
    record.images.push({src: img.getAttribute("src").slice(0, 120), decoded: ok,
                        complete: img.complete, naturalWidth: img.naturalWidth});
  }
  record.math = d.querySelectorAll(".math").length;
  if (record.math && w.MathJax) {
    for (var k = 0; k < 200 && !(w.MathJax.startup && w.MathJax.startup.promise); k++)
      await sleep(50);
    if (w.MathJax.startup) { await w.MathJax.startup.promise; record.mathjax = true; }
  }
  record.typeset = d.querySelectorAll(".math mjx-container").length;
  record.raw = Array.from(d.querySelectorAll(".math")).filter(function (m) {
    return !m.querySelector("mjx-container"); }).length;
  frame.remove();
  return record;
}
async function main() {
  var results = [], next = 0;
  async function worker() {
    while (next < PAGES.length) {
      var url = PAGES[next++];
      try { results.push(await check(url)); }
      catch (e) { results.push({url: url, error: String(e)}); }
    }
  }
  await Promise.all([worker(), worker(), worker(), worker()]);
  var pre = document.createElement("pre");
  pre.id = "dgraph-measure";
  pre.textContent = JSON.stringify(results);
  document.body.appendChild(pre);
}
main();
</script></body></html>
"""


def _chromium() -> str | None:
    return next((p for p in map(shutil.which, CHROMIUM_NAMES) if p), None)


def _run_chromium(binary: str, profile: Path, window: str, budget: int, *args: str):
    cmd = [binary, "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars"]
    cmd += ["--no-first-run", f"--user-data-dir={profile}", f"--window-size={window}"]
    cmd += [f"--virtual-time-budget={budget}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180, check=False)


def _measured(run: subprocess.CompletedProcess):
    found = re.search(r'<pre id="dgraph-measure">(.*?)</pre>', run.stdout, re.S)
    assert found, f"the page was not measured; chromium said: {run.stderr[-2000:]}"
    return json.loads(html.unescape(found.group(1)))


def pages() -> list[str]:
    """Every HTML page of the built site, as paths relative to its root."""
    skip = ("_static", "_sources", "_downloads", "_images")
    return sorted(
        p.relative_to(SITE).as_posix()
        for p in SITE.rglob("*.html")
        if p.relative_to(SITE).parts[0] not in skip
    )


class _Handler(http.server.SimpleHTTPRequestHandler):
    harness = b""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=str(SITE), **kwargs)

    def do_GET(self):
        if self.path != HARNESS:
            return super().do_GET()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(self.harness)))
        self.end_headers()
        self.wfile.write(self.harness)
        return None

    def log_message(self, *args):  # quiet
        pass


@pytest.fixture(scope="module")
def served():
    """The built site over HTTP on a free local port: its base URL."""
    if not (SITE / "docs" / "index.html").exists():
        pytest.skip("the site is not built here (sh setup.sh docs builds it)")
    binary = _chromium()
    if binary is None:
        pytest.skip(f"no chromium binary ({' or '.join(CHROMIUM_NAMES)}) on PATH")
    _Handler.harness = (HARNESS_PAGE % json.dumps(["/" + p for p in pages()])).encode()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield binary, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@functools.cache
def _site_records(binary: str, base: str, profile: str) -> tuple:
    run = _run_chromium(binary, Path(profile), "1280,1000", 600000, "--dump-dom", base + HARNESS)
    return tuple(_measured(run))


def test_every_page_loads_shows_its_images_and_typesets_its_math(served, tmp_path_factory):
    binary, base = served
    records = _site_records(binary, base, str(tmp_path_factory.mktemp("profile")))
    expected = pages()
    assert sorted(r["url"].lstrip("/") for r in records) == expected
    failures = []
    for r in records:
        if "error" in r:
            failures.append(f"{r['url']}: {r['error']}")
            continue
        if r["article"] == 0 and not r["url"].endswith(("/index.html", "search.html")):
            failures.append(f"{r['url']}: no article text (title {r['title']!r})")
        broken = [im["src"] for im in r["images"] if not (im["decoded"] and im["naturalWidth"])]
        if broken:
            failures.append(f"{r['url']}: broken images {broken}")
        if r["math"] and (r["raw"] or not r["typeset"]):
            failures.append(f"{r['url']}: {r['raw']} of {r['math']} math elements not typeset")
    assert not failures, "\n".join(failures)
    # what the site must show: the figures of the concept pages, the notebooks' drawings
    # and their expression sets typeset by MathJax
    by_url = {r["url"].lstrip("/"): r for r in records}
    assert len(by_url["docs/concepts.html"]["images"]) >= 20
    assert len(by_url["docs/gallery/index.html"]["images"]) >= 20
    notebook = by_url["examples/01_elimination.html"]
    assert notebook["images"] and notebook["typeset"] >= 1 and notebook["mathjax"]
    assert sum(1 for r in records if r["typeset"]) >= 3  # 01, 03, 06 show expression sets


def test_api_reference_covers_every_public_name(served):
    """Each name in ``__all__`` of dgraph and its public subpackages is on its package's
    page, and one that is not the very object of a top-level name has its own page."""
    import dgraph

    top = {id(getattr(dgraph, n)) for n in dgraph.__all__}
    missing = []
    for package in PACKAGES:
        module = importlib.import_module(package)
        listing = (SITE / "docs" / "api" / f"{package}.html").read_text()
        for name in module.__all__:
            own = package == "dgraph" or id(getattr(module, name)) not in top
            page = SITE / "docs" / "api" / "generated" / f"{package}.{name}.html"
            if name not in listing or (own and not page.exists()):
                missing.append(f"{package}.{name}")
    assert not missing, f"public names without a reference page: {missing}"


@pytest.mark.parametrize("name", sorted(SCREENSHOTS))
def test_screenshot_is_not_blank(served, name, tmp_path):
    binary, base = served
    shot = tmp_path / f"{name}.png"
    page, height = SCREENSHOTS[name]
    window = f"1280,{height}"
    run = _run_chromium(
        binary, tmp_path / "p1", window, 10000, f"--screenshot={shot}", base + "/" + page
    )
    assert shot.exists(), f"chromium wrote no screenshot: {run.stderr[-2000:]}"
    result = colours(shot)  # a blank page has one or two colours
    assert result["width"] == 1280 and result["colors"] > 16 and result["foreground"] > 0.02
    if os.environ.get("DGRAPH_SITE_SHOTS") == "1":
        SHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, SHOTS / f"{name}.png")
