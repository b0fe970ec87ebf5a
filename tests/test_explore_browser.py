"""``dgraph.explore`` in a real JupyterLab, clicked in headless Chromium.

The test starts JupyterLab (its own config, runtime and workspace folders under
``tmp_path``; the kernel imports this checkout's ``dgraph``) on a notebook whose first cell
is ``dgraph.explore(bundled("naumann_sin.trace"))``, opens it in headless Chromium, runs
the cell through JupyterLab's command registry (``--expose-app-in-browser``), and then,
through the DevTools protocol, clicks vertex v2 of the drawing at its on-screen centre
(``Input.dispatchMouseEvent``): the count must go from 0 to 2 (Naumann's sin example:
eliminating v2 costs two products), the drawing must change (v2 no longer clickable) and
the expression set so far must show. Then a Shift+click on the label of edge x1 -> v1
back-eliminates it: 3 mults, the order ``v:v2,b:x1>v1`` of method ``edges``. A second
cell opens Naumann's discrepancy example in the line-graph view
(``view="line"``); a click on its face [a->k, k->i] eliminates it (1 mult,
the order ``[a->k, k->i]`` of method ``faces``; 13 faces left: the product a->i has
a face to each of i's five out-edges), and the graph view then says that no graph
has this state instead of drawing. Screenshots before and after the vertex click and the
face click, and of that notice, are taken; with ``DGRAPH_SCREENSHOTS=DIR`` they are also
copied to ``DIR`` as ``explore-before.png``, ``explore-after.png``,
``explore-line-before.png``, ``explore-line-after.png`` and ``explore-line-notice.png``
(docs/gallery/screenshots holds the ones in the docs).

The server runs without the extensions the explorer does not use (language servers,
terminals, the classic notebook's shim) and with jsonschema's IRI grammar deferred
(tests/deferred_iri.py): about 2 CPU-s less start-up, the same JupyterLab.

Skipped where jupyterlab, anywidget, websocket-client or a chromium binary is missing.
"""

from __future__ import annotations

import base64
import importlib.util
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM_NAMES = ("chromium", "chromium-browser")
WINDOW = (1100, 1150)
CELL = """import dgraph
from dgraph import bundled

explorer = dgraph.explore(bundled("naumann_sin.trace"))
explorer"""
LINE_CELL = """line = dgraph.explore(bundled("naumann_discrepancy.json"), view="line")
line"""


def _missing() -> str | None:
    for module in ("jupyterlab", "anywidget", "websocket"):
        if importlib.util.find_spec(module) is None:
            extra = "'jacobian-accumulation[explore]' websocket-client"
            return f"{module} not installed (pip install {extra})"
    if not any(map(shutil.which, CHROMIUM_NAMES)):
        return "no chromium binary on PATH"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(what: str, check, seconds: float = 120.0, every: float = 0.25):
    """``check()``'s first truthy value, polled for ``seconds`` of wall time (a bound on
    how long the browser may take, not a measurement)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        value = check()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out waiting for {what}")


class DevTools:
    """A minimal Chrome DevTools protocol client over one page's websocket."""

    def __init__(self, url: str) -> None:
        import websocket

        self.ws = websocket.create_connection(url, timeout=300, suppress_origin=True)  # a busy CI
        self.next = 0

    def call(self, method: str, **params):
        self.next += 1
        self.ws.send(json.dumps({"id": self.next, "method": method, "params": params}))
        while True:
            reply = json.loads(self.ws.recv())
            if reply.get("id") == self.next:
                if "error" in reply:
                    raise AssertionError(f"{method}: {reply['error']}")
                return reply["result"]

    def js(self, expression: str, wait: bool = False):
        """The value of ``expression`` in the page (``wait``: of the promise it gives)."""
        result = self.call(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=wait
        )
        if "exceptionDetails" in result:
            return None
        return result["result"].get("value")

    def screenshot(self, path: Path) -> Path:
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def click(self, x: float, y: float, shift: bool = False) -> None:
        modifiers = 8 if shift else 0
        self.call("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y)
        for kind in ("mousePressed", "mouseReleased"):
            self.call(
                "Input.dispatchMouseEvent",
                type=kind,
                x=x,
                y=y,
                button="left",
                clickCount=1,
                modifiers=modifiers,
            )


@pytest.fixture
def lab(tmp_path):
    """A JupyterLab server on a fresh port serving ``tmp_path/work``; its URL and token."""
    reason = _missing()
    if reason:
        pytest.skip(reason)
    from .deferred_iri import defer_iri_grammar

    defer_iri_grammar()
    import nbformat  # here: paid where a server starts

    work = tmp_path / "work"
    work.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell(CELL))
    nb.cells.append(nbformat.v4.new_code_cell(LINE_CELL))
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    nbformat.write(nb, work / "explore.ipynb")
    config = tmp_path / "config"
    (config / "labconfig").mkdir(parents=True)
    # no "get notified about Jupyter news?" toast over the screenshots
    disabled = {"@jupyterlab/apputils-extension:announcements": True}
    (config / "labconfig" / "page_config.json").write_text(
        json.dumps({"disabledExtensions": disabled})
    )
    # the server extensions the explorer does not use: the language servers' scan of PATH,
    # terminals, the classic notebook's shim
    unused = {"jupyter_lsp": False, "jupyter_server_terminals": False, "notebook_shim": False}
    (config / "jupyter_server_config.json").write_text(
        json.dumps({"ServerApp": {"jpserver_extensions": unused}})
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "JUPYTER_CONFIG_DIR": str(config),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
        "IPYTHONDIR": str(tmp_path / "ipython"),
    }
    port, token = _free_port(), "dgraph-explore-test"
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.deferred_iri",  # python -m jupyterlab, its IRI grammar deferred
            "jupyterlab",
            "--no-browser",
            f"--port={port}",
            "--ServerApp.ip=127.0.0.1",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={work}",
            f"--LabApp.workspaces_dir={tmp_path / 'workspaces'}",
            f"--LabApp.user_settings_dir={tmp_path / 'settings'}",
            "--LabApp.expose_app_in_browser=True",
            "--allow-root",  # harmless for a user; containers run as root
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=open(tmp_path / "lab.log", "w"),  # noqa: SIM115
    )
    base = f"http://127.0.0.1:{port}"

    def up() -> bool:
        try:
            with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2):
                return True
        except OSError:
            return server.poll() is not None  # exited: stop waiting, fail below

    try:
        _wait("JupyterLab to start", up)
        assert server.poll() is None, (tmp_path / "lab.log").read_text()[-2000:]
        yield f"{base}/lab/tree/explore.ipynb?token={token}"
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()


@pytest.fixture
def browser(tmp_path):
    binary = next(p for p in map(shutil.which, CHROMIUM_NAMES) if p)
    profile = tmp_path / "chromium"
    proc = subprocess.Popen(
        [
            binary,
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--no-first-run",
            "--hide-scrollbars",
            "--remote-debugging-port=0",
            f"--user-data-dir={profile}",
            f"--window-size={WINDOW[0]},{WINDOW[1]}",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        active = profile / "DevToolsActivePort"
        port = _wait("chromium's DevTools port", lambda: active.exists() and active.read_text())
        port = port.split()[0]

        def page() -> str | None:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json", timeout=5) as r:
                targets = json.loads(r.read())
            return next((t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page"), None)

        tools = DevTools(_wait("a chromium page", page))
        yield tools
        tools.ws.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


STATE = """(() => {
  const root = document.querySelector('.dgx');
  if (!root) return null;
  const mults = root.querySelector('.dgx-mults');
  const svg = root.querySelector('.dgx-drawing svg');
  if (!mults || !svg) return null;
  const vertex = [...svg.querySelectorAll("g.node")].find(
    g => g.querySelector('title').textContent === 'v2');
  const rect = vertex.getBoundingClientRect();
  const label = [...svg.querySelectorAll("g.node")].find(
    g => g.querySelector('title').textContent === 'label-x1-v1');
  const edge = label ? label.getBoundingClientRect() : {x: 0, y: 0, width: 0, height: 0};
  const box = root.closest('.widget-vbox') || document;
  const math = [...box.querySelectorAll('.widget-htmlmath')].map(m => m.innerText).join('');
  return {mults: mults.textContent, svg: svg.outerHTML, v2: vertex.id,
          x: rect.x + rect.width / 2, y: rect.y + rect.height / 2,
          edge: label ? label.id : null, ex: edge.x + edge.width / 2, ey: edge.y + edge.height / 2,
          order: root.querySelector('.dgx-order').textContent,
          math: math, mathjax: box.querySelectorAll('.widget-htmlmath mjx-container').length};
})()"""

# the second explorer (line-graph view): the counts, and a point of the face [a->k, k->i]
# (its tooltip names it) where a click reaches it and no other element
LINE_STATE = """(() => {
  const root = document.querySelectorAll('.dgx')[1];
  if (!root) return null;
  const mults = root.querySelector('.dgx-mults');
  const svg = root.querySelector('.dgx-drawing svg');
  const notice = root.querySelector('.dgx-notice');
  if (!mults || !(svg || notice)) return null;
  const out = {mults: mults.textContent, svg: svg ? svg.outerHTML : '',
               notice: notice ? notice.textContent : '',
               faces: (root.querySelector('.dgx-faces') || {}).textContent,
               order: root.querySelector('.dgx-order').textContent,
               graph: root.querySelector('.dgx-view-graph').getBoundingClientRect().toJSON()};
  const face = svg && [...svg.querySelectorAll('g.edge')].find(
    g => g.querySelector('title').textContent.startsWith('face [a->k, k->i]'));
  if (face) {
    const path = face.querySelector('path:not(.dgx-hit)');
    const m = path.getScreenCTM(), length = path.getTotalLength();
    for (const t of [0.3, 0.7, 0.5, 0.2, 0.8]) {
      const p = path.getPointAtLength(t * length);
      const x = p.x * m.a + p.y * m.c + m.e, y = p.x * m.b + p.y * m.d + m.f;
      const hit = document.elementFromPoint(x, y);
      if (hit && hit.closest('g.edge') === face) { out.fx = x; out.fy = y; break; }
    }
  }
  return out;
})()"""


DIAGNOSIS = """JSON.stringify({
  widgets: [...jupyterapp.shell.widgets('main')].map(w => w.id),
  kernel: String([...jupyterapp.shell.widgets('main')].find(w => w.sessionContext)
                 ?.sessionContext?.session?.kernel?.status),
  dialog: document.querySelector('.jp-Dialog')?.innerText || null,
  outputs: [...document.querySelectorAll('.jp-OutputArea-output')]
    .map(o => o.innerText.slice(0, 300)),
})"""


def test_click_a_vertex_in_jupyterlab(lab, browser, tmp_path):
    try:
        _click_a_vertex(lab, browser, tmp_path)
    except AssertionError as error:
        browser.screenshot(tmp_path / "explore-failed.png")
        raise AssertionError(f"{error}; the page: {browser.js(DIAGNOSIS)}") from None


def _click_a_vertex(lab, browser, tmp_path):
    started = time.monotonic()
    browser.call("Page.enable")
    browser.call("Page.navigate", url=lab)
    ready = "!!(window.jupyterapp && document.querySelector('.jp-Notebook .jp-Cell'))"
    _wait("the notebook to open", lambda: browser.js(ready), seconds=180)
    # once the kernel is up, the cell runs (a command run earlier would wait for it anyway)
    panel = "[...jupyterapp.shell.widgets('main')].find(w => w.sessionContext)"
    idle = f"{panel}?.sessionContext.session?.kernel?.status === 'idle'"
    _wait("the kernel to start", lambda: browser.js(idle), seconds=120)
    browser.js(f"jupyterapp.shell.activateById({panel}.id)")
    browser.js("jupyterapp.commands.execute('notebook:run-all-cells')", wait=True)
    before = _wait("the explorer to show", lambda: browser.js(STATE), seconds=180)
    assert before["mults"] == "0" and before["v2"].startswith("dgx_v")
    assert "--order ''" in before["order"]
    browser.js("document.querySelector('.dgx').scrollIntoView({block: 'start'})")
    before = browser.js(STATE)
    shot_before = browser.screenshot(tmp_path / "explore-before.png")

    browser.click(before["x"], before["y"])
    after = _wait(
        "the count to change",
        lambda: (s := browser.js(STATE)) and s["mults"] != before["mults"] and s,
        seconds=120,
    )
    assert after["mults"] == "2"  # v2: predecessors x0 and v1, successor y
    assert after["svg"] != before["svg"] and not after["v2"].startswith("dgx_")
    assert "--order 'v2'" in after["order"]
    # the expression set so far: dy/dx0 is complete (typeset where MathJax is present)
    _wait("the expression set", lambda: (s := browser.js(STATE)) and (s["math"] or s["mathjax"]))
    _typeset_pause()
    shot_after = browser.screenshot(tmp_path / "explore-after.png")
    for shot in (shot_before, shot_after):
        assert shot.stat().st_size > 5000
    # Shift+click on the label of x1 -> v1: back elimination, v1's one successor y
    assert after["edge"].startswith("dgx_e")
    browser.click(after["ex"], after["ey"], shift=True)
    edged = _wait(
        "the edge move", lambda: (s := browser.js(STATE)) and s["mults"] == "3" and s, seconds=120
    )
    assert "--method edges --order 'v:v2,b:x1>v1'" in edged["order"]
    shots = [shot_before, shot_after, *_click_a_face(browser, tmp_path)]
    out = os.environ.get("DGRAPH_SCREENSHOTS")
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        for shot in shots:
            shutil.copy(shot, Path(out) / shot.name)
    print(f"browser test: {time.monotonic() - started:.1f} s from navigation to the last shot")


def _typeset_pause() -> None:
    """MathJax typesets asynchronously: a second for it before a screenshot that goes to the
    docs (``DGRAPH_SCREENSHOTS``); the test's own checks of a screenshot (its size) and of
    the expression set (waited for) do not need it."""
    if os.environ.get("DGRAPH_SCREENSHOTS"):
        time.sleep(1.0)


def _click_a_face(browser, tmp_path) -> list[Path]:
    """The second explorer, in the line-graph view: click the face [a->k, k->i] (k has two
    edges in and two out, so no edge elimination is this face), then the graph view."""
    browser.js("document.querySelectorAll('.dgx')[1].scrollIntoView({block: 'start'})")
    before = _wait(
        "the line-graph explorer", lambda: (s := browser.js(LINE_STATE)) and "fx" in s and s
    )
    assert before["mults"] == "0" and before["faces"] == "9" and before["notice"] == ""
    shot_before = browser.screenshot(tmp_path / "explore-line-before.png")
    browser.click(before["fx"], before["fy"])
    after = _wait(
        "the face move", lambda: (s := browser.js(LINE_STATE)) and s["mults"] == "1" and s
    )
    assert after["faces"] == "13" and after["svg"] != before["svg"]  # a->i: five new
    assert "--method faces --order '[a->k, k->i]'" in after["order"]
    _typeset_pause()
    shot_after = browser.screenshot(tmp_path / "explore-line-after.png")
    graph = after["graph"]
    browser.click(graph["x"] + graph["width"] / 2, graph["y"] + graph["height"] / 2)
    notice = _wait("the graph view's notice", lambda: (s := browser.js(LINE_STATE)) and s["notice"])
    assert "the face [a->k, k->i] is no vertex or edge elimination" in notice
    shot_notice = browser.screenshot(tmp_path / "explore-line-notice.png")
    for shot in (shot_before, shot_after, shot_notice):
        assert shot.stat().st_size > 5000
    return [shot_before, shot_after, shot_notice]
