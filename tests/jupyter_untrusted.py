"""A notebook's outputs as JupyterLab shows them when the notebook is untrusted (received
from someone else, or executed by nbconvert and opened afterwards).

JupyterLab (``@jupyterlab/rendermime``) picks, for an untrusted output, the first
MIME type by renderer rank whose renderer is *safe*: ``text/html`` (sanitized),
``text/markdown``, ``text/latex``, then images (``image/png``, ``image/jpeg``,
``image/gif``), then ``text/plain``; ``image/svg+xml`` and ``application/javascript`` are
unsafe and never shown. Its sanitizer (``@jupyterlab/apputils`` ``sanitizer.ts``, on
sanitize-html) keeps an allow-list of HTML tags, drops ``<script>``, ``<style>`` and a few
others with their content, drops other disallowed tags (``<svg>``, ``<input>``) but keeps
their text, and keeps ``<img src="data:...">``. This module reproduces those rules with
bleach, so that a test can look at the result in a browser.
"""

from __future__ import annotations

import copy
import re

__all__ = [
    "REMOTE_SCRIPT",
    "SAFE_ORDER",
    "is_graph_output",
    "offline",
    "sanitize",
    "untrusted_notebook",
]

SAFE_ORDER = (
    "text/html",
    "text/markdown",
    "text/latex",
    "image/png",
    "image/jpeg",
    "image/gif",
    "text/plain",
)
# sanitize-html drops these with everything inside them
_DROPPED_WITH_CONTENT = re.compile(
    r"<(script|style|textarea|option|noscript)\b.*?</\1\s*>", re.I | re.S
)
# JupyterLab's allowed tags (from Google Caja's list), less the form and media elements
# that play no part here
TAGS = frozenset(
    """a abbr acronym address article aside b bdi bdo big blockquote br caption center cite
    code col colgroup dd del details dfn dir div dl dt em figcaption figure font footer
    h1 h2 h3 h4 h5 h6 header hgroup hr i img ins kbd label li mark nav nobr ol p pre q s
    samp section small span strike strong sub summary sup table tbody td tfoot th thead
    time tr tt u ul var wbr""".split()  # noqa: SIM905
)
ATTRIBUTES = {
    "*": ["class", "dir", "id", "lang", "title"],
    "a": ["href", "name", "target"],
    "img": ["src", "alt", "width", "height", "align", "border"],
    "td": ["colspan", "rowspan", "align", "valign"],
    "th": ["colspan", "rowspan", "align", "valign"],
    "font": ["color", "face", "size"],
}
PROTOCOLS = ["http", "https", "mailto", "ftp", "data", "attachment"]


GRAPH_REPRS = ("<Drawing", "<DGraph", "<StepViewer", "<FaceState")
# require.js and MathJax from a CDN: these machines are offline
REMOTE_SCRIPT = re.compile(r'<script[^>]*\ssrc="https?://[^"]*"[^>]*>\s*</script>')


def is_graph_output(out) -> bool:
    """Whether an executed output is a drawing: image data, or a dgraph display object's
    repr (a step viewer's HTML, an animation's SVG)."""
    data = out.get("data", {})
    plain = data.get("text/plain", "")
    return (
        "image/png" in data
        or "image/svg+xml" in data
        or plain.startswith(GRAPH_REPRS)
        or "AnimatedSVG" in plain
    )


def offline(page: str) -> str:
    """An exported page without the scripts it would fetch from the network."""
    return REMOTE_SCRIPT.sub("", page)


def sanitize(html: str) -> str:
    """``html`` as JupyterLab's sanitizer leaves it (styles dropped: the stricter case)."""
    import bleach

    html = _DROPPED_WITH_CONTENT.sub("", html)
    return bleach.clean(html, tags=TAGS, attributes=ATTRIBUTES, protocols=PROTOCOLS, strip=True)


def untrusted_notebook(nb):
    """A copy of ``nb`` whose outputs hold only what JupyterLab shows untrusted."""
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data")
            if data is None:
                continue
            shown = next((m for m in SAFE_ORDER if m in data), None)
            kept = {} if shown is None else {shown: data[shown]}
            if shown == "text/html":
                value = data[shown]
                kept[shown] = sanitize("".join(value) if isinstance(value, list) else value)
            out["data"] = kept
            out["metadata"] = {k: v for k, v in out.get("metadata", {}).items() if k in kept}
    return nb
