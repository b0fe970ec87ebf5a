"""``dgraph.explore(graph)``: eliminations tried by clicking, in Jupyter.

The widget shows the SVG dgraph draws of the current state (:func:`drawing`: the step
view's frame, on the pinned layout of the moves so far) with every remaining
intermediate and every edge clickable by its element id: a click on a vertex eliminates
it, a click on an edge (its label or line) front-eliminates it — back-eliminates it with
Shift held or with the *back* mode on. The *line graph* view (:func:`line_drawing`) draws
the line graph instead, each arc between two edge vertices a face that a click
eliminates (Naumann's face elimination); it is pinned too, a vertex that a face makes
placed between its predecessors and successors where it was made. A face move that is no
edge elimination leaves a line graph no graph has: the graph view then says so instead of
drawing. The drawing, the expression set so far (LaTeX, typeset by JupyterLab's MathJax in
an ``ipywidgets.HTMLMath``) and the running counts update at once, beside the best count
of the cheap methods and the proven lower bound; undo, redo, reset (across both views),
and the order as ``--order`` text. The state is an
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
from ..faces.elimination import FaceState
from .drawing import Drawing, check_drawable
from .explore import Exploration, IllegalMove
from .pinned import Layout, layout_of, pin
from .scene import inline_labels
from .stepviews import graph_frames
from .styles import Style, get_style
from .views import line_scene

__all__ = [
    "INSTALL",
    "VIEWS",
    "Explorer",
    "drawing",
    "explore",
    "line_drawing",
    "start_layout",
    "start_line_layout",
]

VIEWS = ("graph", "line")

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
  const views = {};
  for (const [view, label, title] of [
      ["graph", "graph", "the graph: click a vertex or an edge"],
      ["line", "line graph", "the line graph: click a face (an arc between two edges)"]]) {
    const b = document.createElement("button");
    b.textContent = label; b.title = title; b.className = "dgx-view dgx-view-" + view;
    b.addEventListener("click", () => model.send({ action: "view", view }));
    bar.appendChild(b);
    views[view] = b;
  }
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
    if (target[0] === "vertex" || target[0] === "face") {
      model.send({ action: "move", move: target });
    } else {
      const direction = (event.shiftKey || back.checked) ? "backward" : "forward";
      model.send({ action: "move", move: [direction, target[1]] });
    }
  });

  const draw = () => {
    const notice = model.get("notice");
    picture.innerHTML = notice ? "" : model.get("svg");
    if (notice) {
      const box = document.createElement("div");
      box.className = "dgx-notice";
      box.textContent = notice;
      picture.appendChild(box);
    }
    const view = model.get("view");
    for (const v of Object.keys(views)) views[v].classList.toggle("dgx-active", v === view);
    views.line.disabled = !!model.get("line_refusal");
    views.line.title = model.get("line_refusal") || views.line.title;
    mode.style.display = view === "graph" ? "" : "none";
    const targets = model.get("targets");
    for (const id of Object.keys(targets)) {
      const g = picture.querySelector("[id='" + id + "']");
      if (!g) continue;
      g.classList.add(targets[id][0] === "vertex" ? "dgx-vertex" : "dgx-edge");
      const title = g.querySelector("title");  // the tooltip: the face by its two edges
      if (title && targets[id][0] === "face") {
        title.textContent = "face [" + targets[id][1].join(", ") + "]: click to eliminate";
      }
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
      " · lower bound <b>" + bound + "</b>" +
      (s.faces_left === undefined ? "" : " · <span class='dgx-faces'>" + s.faces_left +
       "</span> faces left") +
      (s.graph_state ? "" : " · <i>no graph's state</i>");
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
  model.on("change:notice", draw);
  model.on("change:view", draw);
  draw();
}
export default { render };
"""

_CSS = """
.dgx { font-family: sans-serif; font-size: 13px; }
.dgx-bar { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin-bottom: 4px; }
.dgx-bar button { flex: none; white-space: nowrap; }
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
.dgx-view.dgx-active { font-weight: bold; background: #dde8f5; }
.dgx-notice { border: 1px dashed #b00020; color: #444; padding: 12px; margin: 8px 0;
  max-width: 40em; }
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
        exploration.graph, "explore", direction, get_style(style), exploration.steps, layout, True
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


def start_line_layout(
    graph: DGraph, direction: str = "dataflow", style: str | Style | None = None
) -> Layout:
    """The layout of ``graph``'s line graph before any move (each edge a vertex, each
    face an arc), which every line-graph state is pinned to."""
    scene = line_scene(FaceState(graph), direction, style=get_style(style))
    return layout_of([inline_labels(scene)])


def _point(pos: str) -> tuple[float, float]:
    x, y = pos.rstrip("!").split(",")[:2]
    return float(x), float(y)


def _box(place: dict[str, str]) -> tuple[float, float, float, float]:
    """A node's box in points: centre x, y, half width, half height (graphviz gives sizes
    in inches)."""
    x, y = _point(place["pos"])
    return x, y, float(place["width"]) * 36, float(place["height"]) * 36


def _free(x: float, y: float, w: float, h: float, boxes: list) -> bool:
    return all(abs(x - u) >= w + a + 4 or abs(y - v) >= h + b + 4 for u, v, a, b in boxes)


_ROOM = 6.0  # points between the line graph's box and its outermost vertices


def line_places(
    start: FaceState, faces: list[tuple[str, str]], layout: Layout
) -> tuple[dict[str, dict[str, str]], str]:
    """Where each line-graph vertex that eliminating ``faces`` (by name, in turn) from
    ``start`` makes stands (node id: ``pos``, ``width``, ``height``), and the bounding
    box with them; the start's vertices stand where ``layout`` has them. A face's product
    that replaced one of the face's two vertices (gone with the face) takes its place;
    otherwise it stands beside the point between the two, at the nearest spot free of
    other vertices (the box grows if it must)."""
    known = dict(layout.nodes)
    sizes = [
        (float(known[f"f{v}"]["width"]), float(known[f"f{v}"]["height"]))
        for v in start.succ
        if not start.is_terminal(v) and f"f{v}" in known
    ]
    width, height = (max(w for w, _ in sizes), max(h for _, h in sizes)) if sizes else (1, 0.5)
    size = {"width": f"{width * 1.3:.3f}", "height": f"{height * 1.6:.3f}"}
    x0, y0, x1, y1 = map(float, layout.bb.split(","))
    # room round the edge: the box's corners held by points that touch no vertex, or
    # graphviz routes no arc around vertices (it falls back to straight lines)
    x0, y0, x1, y1 = x0 - _ROOM, y0 - _ROOM, x1 + _ROOM, y1 + _ROOM
    made: dict[str, dict[str, str]] = {}
    state = start.copy()
    state.symbolic = False  # where vertices go depends on the structure only
    for face in faces:
        i, j = state.face_by_name(*face)
        state.eliminate(i, j)
        for k in sorted(v for v in state.succ if f"f{v}" not in known):
            boxes = [_box(known[f"f{u}"]) for u in state.succ if u != k and f"f{u}" in known]
            w, h = width * 1.3 * 36, height * 1.6 * 36
            gone = [v for v in (j, i) if v not in state.succ and f"f{v}" in known]
            if gone:  # in its place, as large as a product needs where that is free
                x, y = _point(known[f"f{gone[0]}"]["pos"])
                roomy = _free(x, y, w, h, boxes)
                place = {**known[f"f{gone[0]}"], **(size if roomy else {})}
            else:
                (xi, yi), (xj, yj) = (_point(known[f"f{v}"]["pos"]) for v in (i, j))
                cx, cy = (xi + xj) / 2, (yi + yj) / 2
                spots = [(cx + d * (w + 4), cy) for n in range(1, 40) for d in (n, -n)]
                x, y = next((x, y) for x, y in [(cx, cy), *spots] if _free(x, y, w, h, boxes))
                x0, y0 = min(x0, x - w - _ROOM), min(y0, y - h - _ROOM)
                x1, y1 = max(x1, x + w + _ROOM), max(y1, y + h + _ROOM)
                place = {"pos": f"{x:g},{y:g}", **size}
            made[f"f{k}"] = known[f"f{k}"] = place
    return made, f"{x0:g},{y0:g},{x1:g},{y1:g}"


def line_drawing(
    exploration: Exploration,
    direction: str = "dataflow",
    style: str | Style | None = None,
    layout: Layout | None = None,
) -> tuple[Drawing, dict[str, list[Any]]]:
    """The current line graph as the ``line`` view draws it, pinned to ``layout``
    (default: :func:`start_line_layout`; a vertex a move made placed by
    :func:`line_places`), the vertices the last move made or changed outlined bold, every
    intermediate face given an SVG element id; the ids' targets: ``["face", [i, j]]``
    (the names of its two vertices)."""
    if layout is None:
        layout = start_line_layout(exploration.graph, direction, style)
    states = exploration.line_states()
    line = states[-1]
    changed = []
    if len(states) > 1:
        before = states[-2].label
        changed = [v for v, label in line.label.items() if before.get(v) != label]
    scene = line_scene(line, direction, style=get_style(style), emphasize=changed)
    made, bb = line_places(states[0], exploration.face_order(), layout)
    placed = Layout({**layout.nodes, **made}, layout.routes, bb)
    faces = {frozenset((f"f{i}", f"f{j}")): (i, j) for i, j in line.faces()}
    targets: dict[str, list[Any]] = {}
    for e in scene.edges:
        face = faces.get(frozenset((e.tail, e.head)))
        if face is not None:
            eid = f"dgx_f{face[0]}_{face[1]}"
            e.attrs["id"] = eid
            targets[eid] = ["face", [line.name[face[0]], line.name[face[1]]]]
    pinned = pin(inline_labels(scene), placed)
    pinned.attrs["splines"] = "true"  # an arc to or from a vertex a move made: around the rest
    return Drawing(pinned), targets


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
        view = traitlets.Unicode("graph").tag(sync=True)
        notice = traitlets.Unicode("").tag(sync=True)  # shown instead of the drawing
        line_refusal = traitlets.Unicode("").tag(sync=True)  # why no line-graph view

    return ExplorerView


class Explorer:
    """The explorer: ``view`` (the clickable drawing and counts, an anywidget) above
    ``math`` (the expression set so far, an ``ipywidgets.HTMLMath``); ``exploration`` is
    the state. Shows itself in Jupyter; :meth:`click` does what a click does,
    :meth:`show` what the view buttons do."""

    def __init__(
        self,
        graph: DGraph,
        direction: str = "dataflow",
        style: str | Style | None = None,
        view: str = "graph",
        layout: Layout | None = None,
    ) -> None:
        view_class = _widget_class()
        import ipywidgets

        self.exploration = Exploration(graph)
        self.direction, self.style = direction, style
        self.layout = layout if layout is not None else start_layout(graph, direction, style)
        self.view = view_class()
        self.view.line_refusal = self.exploration.line_refusal or ""
        self.math = ipywidgets.HTMLMath("")
        self.box = ipywidgets.VBox([self.view, self.math])
        self.view.on_msg(self._on_message)
        self.mode = "graph"
        if view != "graph":
            self.show(view)
        else:
            self.refresh()

    @functools.cached_property
    def line_layout(self) -> Layout:
        """The line graph's start layout (made when the line-graph view first shows)."""
        return start_line_layout(self.exploration.graph, self.direction, self.style)

    def show(self, view: str) -> None:
        """Switch to the ``graph`` or the ``line`` (line-graph) view; the moves stay."""
        if view not in VIEWS:
            raise InputError(f"unknown view {view!r}: graph or line")
        if view == "line" and self.exploration.line_refusal:
            raise IllegalMove(self.exploration.line_refusal)
        self.mode = view
        self.refresh()

    def refresh(self, message: str = "") -> None:
        """Draw the current state: drawing, counts, expression set, at once."""
        x = self.exploration
        summary = x.summary()
        notice, svg, targets = "", "", {}
        if self.mode == "line":
            picture, targets = line_drawing(x, self.direction, self.style, self.line_layout)
            svg = picture.svg()
            summary["faces_left"] = len(x.faces())
        elif x.is_graph():
            picture, targets = drawing(x, self.direction, self.style, self.layout)
            svg = picture.svg()
        else:
            notice = (
                "The graph view cannot draw this state: "
                + x.why_not_graph()
                + ". The line-graph view shows it."
            )
        with self.view.hold_sync():
            self.view.svg = svg
            self.view.notice = notice
            self.view.targets = targets
            self.view.summary = summary
            self.view.message = message
            self.view.view = self.mode
            self.view.can_undo, self.view.can_redo = x.can_undo(), x.can_redo()
        shown = x.moves or x.done()
        self.math.value = f"$$\n{x.latex()}\n$$" if shown else ""

    def click(self, move: list[Any] | tuple[Any, ...]) -> None:
        """Make ``move`` as a click does (``["vertex", v]``, ``["forward", [i, j]]``,
        ``["backward", [i, j]]`` or ``["face", [i, j]]``); a refused move shows its
        reason."""
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
            elif action == "view":
                self.show(content.get("view"))
                return
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
    view: str = "graph",
    layout: Layout | None = None,
) -> Explorer:
    """An explorer of ``graph``'s eliminations in Jupyter (see the module): click a vertex
    to eliminate it, an edge to front- (Shift: back-) eliminate it; in the line-graph
    view, a face to eliminate it. Needs anywidget (``pip install
    'jacobian-accumulation[explore]'``).

    Parameters
    ----------
    graph
        The differentiation graph.
    direction
        ``dataflow`` (Naumann) or ``dependence`` (Zhou).
    style
        ``paper``, ``screen`` or ``plain`` (:func:`~dgraph.render.drawing.draw`).
    force
        Explore a graph too large to draw legibly (refused otherwise).
    view
        ``graph`` or ``line`` (the line graph; also a button in the widget).
    layout
        Where the graph view puts every vertex (default: dot's layout of ``graph``);
        e.g. :func:`~dgraph.render.hessian.hessian_layout` for a Hessian graph.

    Returns
    -------
    Explorer
        The widget, shown when it is a cell's value.

    Raises
    ------
    InputError
        For an unknown view, or without anywidget (the line says what to install).
    DGraphError
        For a graph too large to draw without ``force``.
    """
    _widget_class()  # the one-line install hint before any work
    if not force:
        check_drawable(graph, "graph")
    if view not in VIEWS:
        raise InputError(f"unknown view {view!r}: graph or line")
    return Explorer(graph, direction, style, view, layout)
