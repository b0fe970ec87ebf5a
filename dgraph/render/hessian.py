"""Dixon's Hessian graph drawn as the symmetric graph it is: the forward graph on the left,
its adjoint mirror image on the right, nonlinear edges between them.

:func:`dgraph.core.hessian_graph.hessian_graph` builds ``H(g)``, whose Jacobian is the
Hessian; a plain drawing of it (:func:`~dgraph.render.drawing.draw`) ranks its vertices by
depth and hides the symmetry. :func:`draw_hessian` lays the forward part out as ``draw``
would (``dot``, data flow upwards) and puts every adjoint ``ū`` at the mirror image of
``u`` across a vertical axis, each mirror edge ``w̄ -> ū`` along the mirror image of the
route of ``u -> w``; so the adjoint sweep runs down the right half. The three kinds of
edge (:func:`edge_kinds`) are drawn apart, in gray print too: forward edges solid, mirror
edges solid in blue, nonlinear edges dashed in red with their label
``Σ_w w̄·∂²φ_w/∂u∂v``. With ``context``, the vertices of ``g`` that ``H(g)`` does not
need (an output, whose adjoint is the weight; a vertex whose adjoint is a constant) are
drawn dotted at their places, so that the picture is the whole symmetric graph.

:func:`hessian_layout` is that layout on its own: :func:`~dgraph.render.stepviews.steps`
and :func:`~dgraph.render.widget.explore` take it (``layout=``) to show the
eliminations on ``H(g)`` in the mirror layout.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import replace
from typing import NamedTuple

from ..core.graph import DGraph
from ..core.hessian_graph import hessian_graph
from ..core.paths import depths
from ..errors import DGraphError
from .drawing import Drawing, check_drawable
from .labels import Label, expr_label, symbol_names, text_label, vertex_label
from .pinned import Layout, layout_of, pin
from .scene import Scene, inline_labels
from .styles import PALETTE, Style, get_style

__all__ = [
    "EDGE_KINDS",
    "draw_hessian",
    "edge_kinds",
    "hessian_layout",
    "hessian_scene",
    "mirror_names",
]

# what each kind of edge is, and its graphviz line attributes (distinct in gray print:
# solid, solid in a darker tone, dashed)
EDGE_KINDS: dict[str, tuple[Label, dict[str, str]]] = {
    "forward": (
        Label(
            "forward u → w: ∂φ_w/∂u",
            "forward <I>u</I> → <I>w</I>: ∂φ<SUB><I>w</I></SUB>/∂<I>u</I>",
            r"forward $u\to w$: $\partial\varphi_w/\partial u$",
            math=False,
        ),
        {},
    ),
    "mirror": (
        Label(
            "mirror w̄ → ū: the same ∂φ_w/∂u",
            "mirror <O><I>w</I></O> → <O><I>u</I></O>: the same ∂φ<SUB><I>w</I></SUB>/∂<I>u</I>",
            r"mirror $\bar w\to\bar u$: the same $\partial\varphi_w/\partial u$",
            math=False,
        ),
        {"color": PALETTE[1]},
    ),
    "nonlinear": (
        Label(
            "nonlinear v → ū: Σ_w w̄·∂²φ_w/∂u∂v",
            "nonlinear <I>v</I> → <O><I>u</I></O>: Σ<SUB><I>w</I></SUB> <O><I>w</I></O>"
            "·∂²φ<SUB><I>w</I></SUB>/∂<I>u</I>∂<I>v</I>",
            r"nonlinear $v\to\bar u$: $\sum_w \bar w\,\partial^2\varphi_w/\partial u\,\partial v$",
            math=False,
        ),
        {"color": PALETTE[2], "style": "dashed"},
    ),
}
_GHOST_EDGE = {"style": "dotted", "color": "#aaaaaa"}
_GAP = 54.0  # points between the forward half's right edge and its mirror's left edge
_ARROW = 7.0  # points an arrowhead takes (graphviz's 10 at the drawings' arrowsize 0.7)


def mirror_names(g: DGraph, H: DGraph) -> dict[str, str]:
    """The adjoint's name of every vertex of ``g`` in ``H = hessian_graph(g)``: ``v`` plus
    the suffix ``H`` gives its inputs' adjoints (``x_bar`` for ``x``), whether or not
    ``H`` has that adjoint as a vertex."""
    if not H.outputs or H.inputs != g.inputs or not H.outputs[0].startswith(g.inputs[0]):
        raise DGraphError("not the Hessian graph of this graph: its inputs or outputs differ")
    suffix = H.outputs[0][len(g.inputs[0]) :]
    return {v: v + suffix for v in g.vertices}


def edge_kinds(g: DGraph, H: DGraph) -> dict[tuple[str, str], str]:
    """Every edge of ``H = hessian_graph(g)`` by kind: ``forward`` (an edge of ``g``),
    ``mirror`` (``w̄ -> ū`` for an edge ``u -> w`` of ``g``) or ``nonlinear`` (``v -> ū``,
    a second partial).

    >>> import sympy
    >>> from dgraph.frontends import from_sympy
    >>> x, y = sympy.symbols("x y")
    >>> g = from_sympy(x * y + sympy.sin(x), [x, y])
    >>> sorted(edge_kinds(g, hessian_graph(g)).items())
    [(('x', 'x_bar'), 'nonlinear'), (('x', 'y_bar'), 'nonlinear'), (('y', 'x_bar'), 'nonlinear')]
    """
    adjoint = {bar: v for v, bar in mirror_names(g, H).items()}
    kinds = {}
    for u, v in H.edges():
        if u not in adjoint and v not in adjoint:
            kinds[u, v] = "forward"
        elif u in adjoint and v in adjoint:
            kinds[u, v] = "mirror"
        else:
            kinds[u, v] = "nonlinear"
    return kinds


def _forward_scene(g: DGraph, H: DGraph, style: Style, labels: str, context: bool, names) -> Scene:
    """The left half: ``g``'s vertices (those ``H`` lacks as ghosts, with ``context``) and
    edges, ranked by ``g``'s depth levels, data flow upwards."""
    scene = Scene(H.name or "hessian", style, "BT")
    bar = mirror_names(g, H)
    shown = [v for v in g.order() if v in H or bar[v] in H or context]
    for v in shown:
        kind = "ghost" if v not in H else ("input" if H.role(v) == "input" else "intermediate")
        scene.node(v, vertex_label(v, style.math), kind)
    for u, w in g.edges():
        if u not in scene.nodes or w not in scene.nodes:
            continue
        if H.nx.has_edge(u, w):
            scene.edge(u, w, _label(H, u, w, labels, names, style))
        else:
            scene.edge(u, w, None, **_GHOST_EDGE)
    level = depths(g.nx)
    groups: dict[int, list[str]] = {}
    for v in shown:
        groups.setdefault(level[v], []).append(v)
    scene.ranks = [("same", groups[k]) for k in sorted(groups)]
    return scene


def _label(H: DGraph, u: str, v: str, labels: str, names, style: Style) -> Label | None:
    """An edge's label: its local partial (``partial``), its symbol, or none."""
    if labels == "none":
        return None
    value = H.partial(u, v) if labels == "partial" else None
    return expr_label(
        H.symbol(u, v) if value is None else value, names, style.math, style.max_label
    )


def _flip(route: str, axis: float, arrow: bool) -> str:
    """A graphviz edge route (``e,x,y`` then control points, tail to head) mirrored at
    ``x = axis`` and run backwards: the route of the mirror edge, head to tail. The old
    arrow's tip becomes the first point, joined to the old last one straight; with
    ``arrow``, the route stops short of its end, where its arrow's tip goes."""
    end, points = None, []
    for item in route.split():
        if item.startswith("e,"):
            end = _xy(item[2:])
        elif not item.startswith("s,"):
            points.append(_xy(item))
    if end is not None:  # a straight cubic from the old tip to the old last point
        (x0, y0), (x1, y1) = end, points[-1]
        third = ((x1 - x0) / 3, (y1 - y0) / 3)
        points += [(x0 + 2 * third[0], y0 + 2 * third[1]), (x0 + third[0], y0 + third[1]), end]
    flipped = [(2 * axis - x, y) for x, y in reversed(points)]
    return _with_tip(flipped, arrow)


def _xy(text: str) -> tuple[float, float]:
    x, y = text.split(",")[:2]
    return float(x), float(y)


def _point(place: Mapping[str, str]) -> tuple[float, float]:
    return _xy(place["pos"].rstrip("!"))


def hessian_layout(
    g: DGraph,
    H: DGraph | None = None,
    style: str | Style | None = None,
    *,
    labels: str = "partial",
    context: bool = True,
) -> Layout:
    """The mirror layout of ``H = hessian_graph(g)``: the forward vertices (with
    ``context`` every vertex of ``g``) where ``dot`` puts them, data flow upwards, each
    adjoint ``ū`` at the mirror image of ``u`` across a vertical axis right of them, each
    mirror edge's route the mirror image of its forward edge's; a nonlinear edge's label
    node where it is farthest from the others along the edge. Node ids are the vertex
    names and, for edge labels, ``label-<tail>-<head>`` (:func:`~.scene.inline_labels`),
    as :func:`~dgraph.render.pinned.pin` reads them. ``labels`` sizes the edge labels
    for the partials (``partial``), the edge symbols (``symbol``: what the frames of
    :func:`~dgraph.render.stepviews.steps` start with) or none (``none``).

    >>> import sympy
    >>> from dgraph.frontends import from_sympy
    >>> x, y = sympy.symbols("x y")
    >>> layout = hessian_layout(from_sympy(x * y + sympy.sin(x), [x, y]))
    >>> [layout.nodes[v]["pos"].split(",")[1] for v in ("x", "x_bar", "y", "y_bar")]
    ['18', '18.00', '18', '18.00']
    """
    if labels not in ("partial", "symbol", "none"):
        raise DGraphError(f"unknown labels {labels!r}: use partial, symbol or none")
    chosen = get_style(style)
    H = hessian_graph(g) if H is None else H
    names = symbol_names(H)
    bar = mirror_names(g, H)
    forward = inline_labels(_forward_scene(g, H, chosen, labels, context, names))
    laid = layout_of([forward])
    nodes = dict(laid.nodes)
    right = max(_point(p)[0] + float(p["width"]) * 36 for p in laid.nodes.values())
    axis = right + _GAP / 2
    for nid, place in laid.nodes.items():
        x, y = _point(place)
        twin = _twin(nid, bar)
        if twin is not None:
            nodes[twin] = {**place, "pos": f"{2 * axis - x:.2f},{y:.2f}"}
    routes = dict(laid.routes)
    for (tail, head), route in laid.routes.items():
        a, b = _twin(tail, bar), _twin(head, bar)
        if a is not None and b is not None:
            routes[b, a] = _flip(route, axis, arrow=tail in bar)
    # the nonlinear edges' labels, measured by dot, then placed along their edges
    probe = inline_labels(_nonlinear_probe(g, H, chosen, labels, names))
    sizes = layout_of([probe]).nodes if probe.nodes else {}
    levels = sorted({round(_point(nodes[v])[1], 1) for v in g.vertices if v in nodes})
    gap = min((b - a for a, b in itertools.pairwise(levels)), default=72.0)
    taken = [_point(p) for p in nodes.values()]
    ends = {}  # each nonlinear edge's (tail, label node or None, head)
    for e in probe.edges:
        if not e.tail.startswith("label-"):
            label = e.head if e.head.startswith("label-") else None
            ends[e.tail, _edge_end(probe, label) if label else e.head] = label
    sags = _sags({e: (_point(nodes[e[0]]), _point(nodes[e[1]])) for e in ends}, levels, gap)
    curves = {e: _arc(_point(nodes[e[0]]), _point(nodes[e[1]]), sags.get(e, 0.0)) for e in ends}
    drawn = [_Sampled.of(c) for route in routes.values() for c in _cubics(route)]
    sampled = {e: _Sampled.of(c) for e, c in curves.items()}
    boxes_taken = [_box(place, nid) for nid, place in nodes.items()]
    for (tail, head), label in ends.items():
        curve = curves[tail, head]
        others = drawn + [c for e, c in sampled.items() if e != (tail, head)]

        def cost(t: float, curve=curve, others=others, label=label) -> tuple[int, float]:
            if label is None:
                return 0, 0.0
            x, y = _at(curve, t)
            box = (x, y, float(sizes[label]["width"]) * 36, float(sizes[label]["height"]) * 36)
            hits = sum(c.meets(box) for c in others) + 4 * sum(
                _overlap(box, b) for b in boxes_taken
            )
            return hits, -_room((x, y), taken)

        t = min(_ALONG, key=cost)
        boxes = (_box(nodes[tail], tail), _box(nodes[head], head))
        if label is None:
            routes[tail, head] = _route(_clipped(curve, *boxes), arrow=True)
            continue
        spot = _at(curve, t)
        taken.append(spot)
        nodes[label] = {**sizes[label], "pos": f"{spot[0]:.2f},{spot[1]:.2f}"}
        boxes_taken.append(_box(nodes[label], label))
        first, second = _split(curve, t)
        box = _box(nodes[label], label)
        routes[tail, label] = _route(_clipped(first, boxes[0], box), arrow=False)
        routes[label, head] = _route(_clipped(second, box, boxes[1]), arrow=True)
    return Layout(nodes, routes, _bounds(nodes, routes))


Point = tuple[float, float]
Cubic = tuple[Point, Point, Point, Point]


def _sags(
    edges: Mapping[tuple[str, str], tuple[Point, Point]], levels: list[float], gap: float
) -> dict[tuple[str, str], float]:
    """How far each nonlinear edge between two vertices of one rank bows (straight, it
    would run through the vertices between them): below the lowest rank and above the
    highest, deeper the farther it reaches; at a rank between, below it within
    ``0.42·gap``, in the order of their reach. Negative: upwards."""
    rows: dict[float, list[tuple[float, tuple[str, str]]]] = {}
    for e, (a, b) in edges.items():
        if abs(a[1] - b[1]) <= 1:
            rows.setdefault(round(a[1], 1), []).append((abs(b[0] - a[0]), e))
    sags = {}
    for y, arcs in rows.items():
        arcs.sort()
        outer = y in (levels[0], levels[-1])
        sign = -1.0 if y == levels[-1] and y != levels[0] else 1.0
        deepest = 0.0
        for k, (reach, e) in enumerate(arcs, start=1):
            if outer:  # nothing beyond: as deep as the reach asks, each below the last
                deepest = max(14 + 0.16 * reach, deepest + 12)
            else:
                deepest = max(0.42 * gap * k / len(arcs), 8.0)
            sags[e] = sign * deepest
    return sags


def _arc(a: Point, b: Point, sag: float) -> Cubic:
    """A nonlinear edge's curve from centre ``a`` to centre ``b``: an arc that bows
    ``sag`` below them (:func:`_sags`), a straight line for none."""
    (xa, ya), (xb, yb) = a, b
    if not sag:
        return a, _mix(a, b, 1 / 3), _mix(a, b, 2 / 3), b
    drop = 4 / 3 * sag  # a cubic with both control points this far down sags by ``sag``
    lean = 0.15 * (xb - xa)  # arcs of one vertex leave it apart
    return a, (xa + lean, ya - drop), (xb - lean, yb - drop), b


def _mix(a: Point, b: Point, t: float) -> Point:
    return a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])


def _at(c: Cubic, t: float) -> Point:
    return _split(c, t)[0][3]


def _split(c: Cubic, t: float) -> tuple[Cubic, Cubic]:
    """De Casteljau: the curve's parts before and after ``t``."""
    p0, p1, p2, p3 = c
    a, b, d = _mix(p0, p1, t), _mix(p1, p2, t), _mix(p2, p3, t)
    e, f = _mix(a, b, t), _mix(b, d, t)
    m = _mix(e, f, t)
    return (p0, a, e, m), (m, f, d, p3)


def _box(place: Mapping[str, str], nid: str) -> tuple[float, float, float, float, bool]:
    """Centre, half width, half height (points) of a placed node, and whether it is round
    (a vertex drawn as a circle: the inputs are boxes, labels plain text)."""
    x, y = _point(place)
    w, h = float(place["width"]) * 36, float(place["height"]) * 36
    return x, y, w, h, not nid.startswith("label-") and abs(w - h) < 1


def _inside(p: Point, box: tuple[float, float, float, float, bool]) -> bool:
    x, y, w, h, round_ = box
    dx, dy = (p[0] - x) / max(w, 1e-9), (p[1] - y) / max(h, 1e-9)
    return dx * dx + dy * dy <= 1 if round_ else abs(dx) <= 1 and abs(dy) <= 1


def _crossing(c: Cubic, box, leaving: bool) -> float:
    """The parameter where the curve leaves (``leaving``) or enters the box, by bisection:
    the curve starts inside the first box and ends inside the last."""
    lo, hi = 0.0, 1.0
    for _ in range(30):
        mid = (lo + hi) / 2
        if _inside(_at(c, mid), box) == leaving:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def _clipped(c: Cubic, start, end) -> Cubic:
    """The part of the curve between leaving ``start``'s box and entering ``end``'s."""
    t0, t1 = _crossing(c, start, True), _crossing(c, end, False)
    if t1 <= t0:
        return c
    head = _split(c, t1)[0]
    return _split(head, t0 / t1)[1]


def _route(c: Cubic, arrow: bool) -> str:
    """A curve as a graphviz route; with ``arrow`` it stops short of its end, where the
    arrow's tip goes (``e,x,y``)."""
    return _with_tip(list(c), arrow)


def _with_tip(points: list[Point], arrow: bool) -> str:
    tip = ""
    if arrow:
        (xa, ya), (xb, yb) = points[-2], points[-1]
        if (xa, ya) == (xb, yb):
            xa, ya = points[0]
        norm = max(((xb - xa) ** 2 + (yb - ya) ** 2) ** 0.5, 1e-9)
        dx, dy = _ARROW * (xb - xa) / norm, _ARROW * (yb - ya) / norm
        tip = f"e,{xb:.2f},{yb:.2f} "
        points[-2:] = [(xa - dx, ya - dy), (xb - dx, yb - dy)]
    return tip + " ".join(f"{x:.2f},{y:.2f}" for x, y in points)


def _cubics(route: str) -> list[Cubic]:
    """A graphviz route's Bézier pieces."""
    points = [_xy(i) for i in route.split() if not i.startswith(("e,", "s,"))]
    return [tuple(points[k : k + 4]) for k in range(0, len(points) - 3, 3)]


class _Sampled(NamedTuple):
    """A curve's 25 points at t = k/24 and their bounding box, made once: each label's
    candidate spots are tested against every other curve (a 100-operation function's
    Hessian graph: 2.4 million tests, which sampled each curve again took 215 s)."""

    points: tuple[Point, ...]
    left: float
    right: float
    low: float
    high: float

    @classmethod
    def of(cls, c: Cubic) -> _Sampled:
        points = tuple(_at(c, k / 24) for k in range(25))
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        return cls(points, min(xs), max(xs), min(ys), max(ys))

    def meets(self, box: tuple[float, float, float, float]) -> bool:
        """Whether the curve runs through the box (centre, half width, half height), 2
        points around it included (sampled: a label is wider than the samples are
        apart); a box clear of the samples' bounding box is met by none of them."""
        x, y, w, h = box[:4]
        if self.left > x + w + 2 or self.right < x - w - 2:
            return False
        if self.low > y + h + 2 or self.high < y - h - 2:
            return False
        return any(abs(p[0] - x) <= w + 2 and abs(p[1] - y) <= h + 2 for p in self.points)


def _overlap(a: tuple, b: tuple) -> bool:
    """Whether two boxes (centre, half width, half height) overlap."""
    return abs(a[0] - b[0]) < a[2] + b[2] and abs(a[1] - b[1]) < a[3] + b[3]


def _room(p: Point, taken: list[Point]) -> float:
    """How far ``p`` is from the points taken (labels are wide: a horizontal distance
    counts a third)."""
    return min((((p[0] - u) / 3) ** 2 + (p[1] - v) ** 2 for u, v in taken), default=0.0)


def _bounds(nodes: Mapping[str, Mapping[str, str]], routes: Mapping) -> str:
    """The bounding box of the nodes and of every route's points, 8 points more around."""
    xs, ys = [], []
    for nid, place in nodes.items():
        x, y, w, h, _ = _box(place, nid)
        xs += [x - w, x + w]
        ys += [y - h, y + h]
    for route in routes.values():
        for item in route.split():
            x, y = _xy(item.removeprefix("e,").removeprefix("s,"))
            xs.append(x)
            ys.append(y)
    return f"{min(xs) - 8:.2f},{min(ys) - 8:.2f},{max(xs) + 8:.2f},{max(ys) + 8:.2f}"


def _twin(nid: str, bar: Mapping[str, str]) -> str | None:
    """The mirror image's id of a node of the forward half: ``ū`` for ``u``, the label of
    ``w̄ -> ū`` for that of ``u -> w``."""
    if nid in bar:
        return bar[nid]
    if nid.startswith("label-"):
        for u, ubar in bar.items():
            rest = nid[len("label-") :]
            if rest.startswith(u + "-") and rest[len(u) + 1 :] in bar:
                return f"label-{bar[rest[len(u) + 1 :]]}-{ubar}"
    return None


def _nonlinear_probe(g: DGraph, H: DGraph, style: Style, labels: str, names) -> Scene:
    """The nonlinear edges alone (their labels are what dot measures)."""
    scene = Scene("probe", style)
    for (u, v), kind in edge_kinds(g, H).items():
        if kind == "nonlinear":
            for w in (u, v):
                if w not in scene.nodes:
                    scene.node(w, vertex_label(w, style.math), "intermediate")
            scene.edge(u, v, _label(H, u, v, labels, names, style))
    return scene


def _edge_end(scene: Scene, label: str) -> str:
    """The head of the edge whose label node is ``label`` (in a label-inlined scene)."""
    return next(e.head for e in scene.edges if e.tail == label)


# where on its curve a label may go, in the order tried
_ALONG = (0.5, 0.42, 0.58, 0.35, 0.65, 0.25, 0.75, 0.15, 0.85)


def hessian_scene(
    g: DGraph,
    H: DGraph | None = None,
    *,
    style: str | Style | None = None,
    labels: str = "partial",
    context: bool = True,
    legend: bool = True,
    title: str | None = None,
) -> Scene:
    """The pinned scene :func:`draw_hessian` draws (see there); ``labels`` as
    :func:`hessian_layout` takes it."""
    chosen = get_style(style)
    H = hessian_graph(g) if H is None else H
    names = symbol_names(H)
    bar = mirror_names(g, H)
    kinds = edge_kinds(g, H)
    scene = Scene(H.name or "hessian", chosen, "BT")
    if title:
        scene.title = text_label(title)
    left = _forward_scene(g, H, chosen, labels, context, names)
    scene.nodes.update(left.nodes)
    for v in g.order():
        b = bar[v]
        if b not in H and not context:
            continue
        node = scene.node(b, vertex_label(b, chosen.math), H.role(b) if b in H else "ghost")
        if g.role(v) == "input":  # an input's box mirrored: a box, doubled as outputs are
            node.attrs.update(shape="box", peripheries="2")
    for e in left.edges:  # forward edges, then the mirror image of each
        scene.edges.append(replace(e, attrs=dict(e.attrs)))
    for u, w in g.edges():
        a, b = bar[w], bar[u]
        if H.nx.has_edge(a, b):
            attrs = EDGE_KINDS["mirror"][1]
            scene.edge(a, b, _label(H, a, b, labels, names, chosen), **attrs)
        elif context and a in scene.nodes and b in scene.nodes:
            scene.edge(a, b, None, **_GHOST_EDGE)
    for (u, v), kind in kinds.items():
        if kind == "nonlinear":
            attrs = EDGE_KINDS["nonlinear"][1]
            scene.edge(u, v, _label(H, u, v, labels, names, chosen), **attrs)
    if legend:
        present = set(kinds.values())
        for kind, (words, attrs) in EDGE_KINDS.items():
            if kind in present:
                color = attrs.get("color", chosen.edge_color)
                key = (color, "#ffffff", attrs.get("style", "solid"), 1.0)
                scene.legend.append((key, words))
    return pin(inline_labels(scene), hessian_layout(g, H, chosen, labels=labels, context=context))


def draw_hessian(
    g: DGraph,
    weights: Mapping[str, float] | None = None,
    *,
    H: DGraph | None = None,
    style: str | Style | None = None,
    font: str | None = None,
    labels: bool = True,
    context: bool = True,
    legend: bool = True,
    title: str | None = None,
    force: bool = False,
) -> Drawing:
    """Draw Dixon's Hessian graph of ``g`` as the symmetric graph: ``g``'s forward graph
    on the left (inputs at the bottom), the adjoints on the right, ``ū`` at the mirror
    image of ``u``, and the nonlinear edges between the halves.

    Parameters
    ----------
    g
        A scalar graph with vertex expressions (or labelled edges).
    weights
        The outputs' weights λ, as :func:`~dgraph.core.hessian_graph.hessian_graph` takes
        them (the Hessian drawn is that of ``λᵀy``).
    H
        ``hessian_graph(g, weights)`` where already built.
    style, font
        As :func:`~dgraph.render.drawing.draw` takes them.
    labels
        Whether edges show their local partials (a mirror edge the same as its forward
        edge; a nonlinear edge ``Σ w̄·∂²φ_w/∂u∂v``).
    context
        Draw the vertices and edges of ``g`` that ``H(g)`` does not need (an output; a
        vertex whose adjoint is a constant), and their mirror images, dotted.
    legend
        Name the three kinds of edge under the drawing.
    title
        A caption.
    force
        Draw a graph too large to read.

    Returns
    -------
    Drawing
        SVG, PNG, PDF, DOT and TikZ as for any drawing; ``drawing.scene.nodes[v]
        .attrs["pos"]`` holds each vertex's place (points).

    Raises
    ------
    DGraphError
        For a graph ``hessian_graph`` refuses, an ``H`` not built from ``g``, or one
        too large to draw without ``force``.

    >>> import sympy
    >>> from dgraph.frontends import from_sympy
    >>> x, y = sympy.symbols("x y")
    >>> d = draw_hessian(from_sympy(x * y + sympy.sin(x), [x, y]))
    >>> sorted(v for v, n in d.scene.nodes.items() if n.kind not in ("ghost", "label", "anchor"))
    ['x', 'x_bar', 'y', 'y_bar']
    """
    chosen = get_style(style, font)
    H = hessian_graph(g, weights) if H is None else H
    if not force:
        check_drawable(H)
    scene = hessian_scene(
        g,
        H,
        style=chosen,
        labels="partial" if labels else "none",
        context=context,
        legend=legend,
        title=title,
    )
    return Drawing(scene)
