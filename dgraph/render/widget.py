"""``dgraph.explore(graph)``: eliminations tried by clicking, in Jupyter.

The widget shows the SVG dgraph draws of the current state (:func:`drawing`: the step
view's frame, on the pinned layout of the moves so far) with every remaining
intermediate and every edge clickable by its element id: a click on a vertex eliminates
it, a click on an edge (its label or line) front-eliminates it — back-eliminates it with
Shift held or with the *back* mode on. The drawing, the expression set so far (LaTeX,
typeset by JupyterLab's MathJax in an ``ipywidgets.HTMLMath``) and the running counts
update at once, beside the best count of the cheap methods and the proven lower bound;
undo, redo, reset, and the order as ``--order`` text. The state is an
:class:`~dgraph.render.explore.Exploration` (``widget.exploration``), which also gives the
order as an :class:`~dgraph.core.expressions.ExpressionSet`.

anywidget (and with it ipywidgets) is optional: ``pip install 'jacobian-accumulation[explore]'``.
"""

from __future__ import annotations

import functools
import html
from typing import Any

from ..core.graph import DGraph
from ..errors import DGraphError, InputError
from .drawing import Drawing, check_drawable
from .explore import Exploration
from .pinned import Layout, layout_of
from .stepviews import graph_frames
from .styles import Style, get_style

__all__ = ["INSTALL", "Explorer", "drawing", "explore", "start_layout"]

INSTALL = (
    "dgraph.explore needs anywidget: pip install 'jacobian-accumulation[explore]'"
    " (or: pip install anywidget)"
)

_ESM = r"""
function render({ model, el }) {
  el.classList.add("dgx");
  const bar = document.createElement("div");
  bar.className = "dgx-bar";
  const button = (label, title, action) => {
    const b = document.createElement("button");
    b.textContent = label; b.title = title; b.className = "dgx-" + action;
    b.addEventListener("click", () => model.send({ action }));
    bar.appendChild(b);
    return b;
  };
  const undo = button("↶ undo", "undo the last move", "undo");
  const redo = button("↷ redo", "redo the move undone", "redo");
  button("⟲ reset", "back to the start", "reset");
  const mode = document.createElement("label");
  mode.className = "dgx-mode";
  const back = document.createElement("input");
  back.type = "checkbox";
  mode.append(back, " edges: back elimination (else front; Shift+click: back)");
  bar.appendChild(mode);
  const counts = document.createElement("div");
  counts.className = "dgx-counts";
  const message = document.createElement("div");
  message.className = "dgx-message";
  const picture = document.createElement("div");
  picture.className = "dgx-drawing";
  const order = document.createElement("pre");
  order.className = "dgx-order";
  el.append(bar, counts, message, picture, order);

  picture.addEventListener("click", (event) => {
    const hit = event.target.closest("g[id^='dgx_']");
    if (!hit) return;
    const target = model.get("targets")[hit.id];
    if (!target) return;
    if (target[0] === "vertex") {
      model.send({ action: "move", move: target });
    } else {
      const direction = (event.shiftKey || back.checked) ? "backward" : "forward";
      model.send({ action: "move", move: [direction, target[1]] });
    }
  });

  const draw = () => {
    picture.innerHTML = model.get("svg");
    const targets = model.get("targets");
    for (const id of Object.keys(targets)) {
      const g = picture.querySelector("[id='" + id + "']");
      if (!g) continue;
      g.classList.add(targets[id][0] === "vertex" ? "dgx-vertex" : "dgx-edge");
      const path = g.classList.contains("edge") && g.querySelector("path");
      if (path) {  // a wide, invisible twin of the line: easier to hit
        const hit = path.cloneNode();
        hit.setAttribute("stroke", "transparent");
        hit.setAttribute("stroke-width", "10");
        hit.setAttribute("class", "dgx-hit");
        path.parentNode.insertBefore(hit, path);
      }
    }
    const s = model.get("summary");
    const bound = s.lower_bound === null ? "—" : s.lower_bound;
    counts.innerHTML =
      "<span class='dgx-mults'>" + s.mults + "</span> mults so far" +
      " <span class='dgx-small'>(" + s.structural +
      (s.tensor ? " block products, " : " structural, ") + s.moves +
      (s.moves === 1 ? " move" : " moves") +
      (s.done ? ", finished" : "") + ")</span>" +
      " · best known <b>" + s.best + "</b> (" + s.best_by + ")" +
      " · lower bound <b>" + bound + "</b>";
    const error = model.get("message");
    message.textContent = error || (s.last ? "last move: " + s.last : "");
    message.classList.toggle("dgx-error", !!error);
    order.textContent = "--method " + s.method + " --order '" + s.order + "'";
    undo.disabled = !model.get("can_undo");
    redo.disabled = !model.get("can_redo");
  };
  model.on("change:svg", draw);
  model.on("change:summary", draw);
  model.on("change:message", draw);
  draw();
}
export default { render };
"""

_CSS = """
.dgx { font-family: sans-serif; font-size: 13px; }
.dgx-bar { display: flex; gap: 6px; align-items: center; margin-bottom: 4px; }
.dgx-counts { margin: 4px 0; }
.dgx-mults { font-size: 20px; font-weight: bold; }
.dgx-small { color: #666; }
.dgx-message { color: #444; min-height: 1.2em; }
.dgx-error { color: #b00020; }
.dgx-drawing svg { max-width: 100%; height: auto; }
.dgx-vertex, .dgx-edge { cursor: pointer; }
.dgx-hit { pointer-events: stroke; }
.dgx-vertex:hover ellipse, .dgx-vertex:hover polygon { stroke: #d62728; stroke-width: 3px; }
.dgx-edge:hover path:not(.dgx-hit) { stroke: #d62728; }
.dgx-edge:hover text { fill: #d62728; }
.dgx-order { background: #f4f4f4; padding: 4px; white-space: pre-wrap; }
"""


def start_layout(graph: DGraph, direction: str = "dataflow", style: str | Style | None = None):
    """The layout of ``graph`` before any move, which every state is pinned to."""
    frame = graph_frames(graph, "explore", direction, get_style(style), [])[0]
    return layout_of([frame.drawing.scene])


def drawing(
    exploration: Exploration,
    direction: str = "dataflow",
    style: str | Style | None = None,
    layout: Layout | None = None,
) -> tuple[Drawing, dict[str, list[Any]]]:
    """The current state as dgraph's step view draws it, pinned to ``layout`` (default:
    :func:`start_layout`: vertices hold still, an edge the graph did not have runs
    straight), its remaining intermediates and its edges given SVG element ids; the ids'
    targets: ``["vertex", v]`` or ``["edge", [i, j]]``."""
    if layout is None:
        layout = start_layout(exploration.graph, direction, style)
    frame = graph_frames(
        exploration.graph, "explore", direction, get_style(style), exploration.steps, layout
    )[-1]
    scene = frame.drawing.scene
    scene.title = None  # the widget's own line tells the counts; every state one size
    state = exploration.state
    targets: dict[str, list[Any]] = {}
    for k, v in enumerate(exploration.intermediates()):
        if v in scene.nodes:
            scene.nodes[v].attrs["id"] = f"dgx_v{k}"
            targets[f"dgx_v{k}"] = ["vertex", v]
    inner = state.is_intermediate
    movable = {e: k for k, e in enumerate(exploration.edges()) if inner(e[0]) or inner(e[1])}
    # an edge label drawn as a node of its own (inline labels): the edge runs through it
    labels = {n for n, node in scene.nodes.items() if node.kind == "label"}
    ends: dict[str, list[str]] = {n: ["", ""] for n in labels}
    for e in scene.edges:
        if e.head in labels:
            ends[e.head][0] = e.tail
        if e.tail in labels:
            ends[e.tail][1] = e.head
    for n, (tail, head) in ends.items():
        if (tail, head) in movable:
            eid = f"dgx_e{movable[tail, head]}"
            scene.nodes[n].attrs["id"] = eid
            targets[eid] = ["edge", [tail, head]]
    for k, e in enumerate(scene.edges):
        tail = ends[e.tail][0] if e.tail in labels else e.tail
        head = ends[e.head][1] if e.head in labels else e.head
        if (tail, head) in movable:
            eid = f"dgx_e{movable[tail, head]}_{k}"
            e.attrs["id"] = eid
            targets[eid] = ["edge", [tail, head]]
    return frame.drawing, targets


@functools.cache
def _widget_class() -> type:
    try:
        import anywidget
        import traitlets
    except ImportError:
        raise InputError(INSTALL) from None

    class ExplorerView(anywidget.AnyWidget):
        _esm = _ESM
        _css = _CSS
        svg = traitlets.Unicode("").tag(sync=True)
        targets = traitlets.Dict().tag(sync=True)
        summary = traitlets.Dict().tag(sync=True)
        message = traitlets.Unicode("").tag(sync=True)
        can_undo = traitlets.Bool(False).tag(sync=True)
        can_redo = traitlets.Bool(False).tag(sync=True)

    return ExplorerView


class Explorer:
    """The explorer: ``view`` (the clickable drawing and counts, an anywidget) above
    ``math`` (the expression set so far, an ``ipywidgets.HTMLMath``); ``exploration`` is
    the state. Shows itself in Jupyter; :meth:`click` does what a click does."""

    def __init__(
        self, graph: DGraph, direction: str = "dataflow", style: str | Style | None = None
    ) -> None:
        view_class = _widget_class()
        import ipywidgets

        self.exploration = Exploration(graph)
        self.direction, self.style = direction, style
        self.layout = start_layout(graph, direction, style)
        self.view = view_class()
        self.math = ipywidgets.HTMLMath("")
        self.box = ipywidgets.VBox([self.view, self.math])
        self.view.on_msg(self._on_message)
        self.refresh()

    def refresh(self, message: str = "") -> None:
        """Draw the current state: drawing, counts, expression set, at once."""
        x = self.exploration
        picture, targets = drawing(x, self.direction, self.style, self.layout)
        with self.view.hold_sync():
            self.view.svg = picture.svg()
            self.view.targets = targets
            self.view.summary = x.summary()
            self.view.message = message
            self.view.can_undo, self.view.can_redo = x.can_undo(), x.can_redo()
        self.math.value = f"$$\n{x.latex()}\n$$" if x.steps or x.done() else ""

    def click(self, move: list[Any] | tuple[Any, ...]) -> None:
        """Make ``move`` as a click does (``["vertex", v]``, ``["forward", [i, j]]`` or
        ``["backward", [i, j]]``); a refused move shows its reason."""
        self._on_message(self.view, {"action": "move", "move": list(move)}, [])

    def _on_message(self, _widget: Any, content: dict[str, Any], _buffers: Any) -> None:
        x = self.exploration
        action = content.get("action")
        try:
            if action == "move":
                op, target = content["move"]
                x.apply((op, target if op == "vertex" else tuple(target)))
            elif action == "undo":
                x.undo()
            elif action == "redo":
                x.redo()
            elif action == "reset":
                x.reset()
            else:
                raise InputError(f"unknown action {action!r}")
        except DGraphError as error:
            self.refresh(str(error))
            return
        self.refresh()

    def expression_set(self):
        """The finished elimination's :class:`~dgraph.core.expressions.ExpressionSet`."""
        return self.exploration.expression_set()

    def order_text(self) -> str:
        """The moves as ``--order`` text (:meth:`Exploration.order_text`)."""
        return self.exploration.order_text()

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.box)

    def _repr_html_(self) -> str:  # outside a live kernel: the drawing at least
        return f"<div>{self.view.svg}</div><pre>{html.escape(self.order_text())}</pre>"

    def __repr__(self) -> str:
        return f"<Explorer {self.exploration!r}>"


def explore(
    graph: DGraph,
    *,
    direction: str = "dataflow",
    style: str | Style | None = None,
    force: bool = False,
) -> Explorer:
    """An explorer of ``graph``'s eliminations in Jupyter (see the module): click a vertex
    to eliminate it, an edge to front- (Shift: back-) eliminate it. Graphs too large to
    draw legibly are refused unless ``force``. Needs anywidget (``pip install
    'jacobian-accumulation[explore]'``)."""
    _widget_class()  # the one-line install hint before any work
    if not force:
        check_drawable(graph, "graph")
    return Explorer(graph, direction, style)
