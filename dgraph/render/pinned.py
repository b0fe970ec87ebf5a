"""One layout for a sequence of scenes (the frames of a step view).

Every node and edge that appears in any frame is placed once, by ``dot``, on the union of
the frames (each edge label as wide as the widest it ever holds); each frame is then drawn
at those positions with ``neato -n2``, which keeps given positions and edge routes. So
vertices hold still from frame to frame, elements appear and vanish in place, and every
frame has the same size: the frames differ only where the steps change them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

from scipy.spatial import cKDTree

from .labels import text_label
from .scene import Edge, Node, Scene, graphviz_failures, inline_labels, to_graphviz

__all__ = ["Layout", "layout_of", "pin", "pin_scenes"]


def _weight(node: Node) -> tuple[int, int]:
    """How much room a node's label takes: lines, then characters."""
    text = node.label.text if node.label is not None else ""
    return text.count("\n") + 1, max(map(len, text.split("\n")))


def union_scene(scenes: list[Scene]) -> Scene:
    """Every node (with its largest label) and edge of the (label-inlined) scenes, and the
    longest title."""
    first = scenes[0]
    nodes: dict[str, Node] = {}
    edges: dict[tuple[str, str], Edge] = {}
    clusters = {}
    ranks: list[tuple[str, list[str]]] = []
    for s in scenes:
        for nid, node in s.nodes.items():
            if nid not in nodes or _weight(node) > _weight(nodes[nid]):
                nodes[nid] = node
        for e in s.edges:
            edges.setdefault((e.tail, e.head), e)
        clusters.update(s.clusters)
        for k, (rank, ids) in enumerate(s.ranks):
            if k == len(ranks):
                ranks.append((rank, []))
            ranks[k][1].extend(v for v in ids if v not in ranks[k][1])
    titles = [s.title for s in scenes if s.title is not None]
    title = max(titles, key=lambda t: len(t.text), default=None)
    return replace(
        first,
        nodes=nodes,
        edges=list(edges.values()),
        clusters=clusters,
        ranks=ranks,
        title=title,
    )


def _title_width(scenes: list[Scene]) -> float | None:
    """Points the widest of the scenes' titles takes (one dot run over all of them)."""
    titles = [s.title for s in scenes if s.title is not None]
    if not titles:
        return None
    first = scenes[0]
    probe = Scene("titles", first.style, attrs={"fontsize": str(first.style.fontsize + 1)})
    for k, title in enumerate(titles):
        probe.node(f"t{k}", title, "note", fontsize=str(first.style.fontsize + 1))
    with graphviz_failures():
        data = json.loads(to_graphviz(probe, sized=True).pipe(format="json", quiet=True))
    return max(float(o["width"]) for o in data["objects"]) * 72 + 8


def _placed(scene: Scene) -> tuple[dict, dict, str]:
    """Node positions and sizes, edge routes and the bounding box of dot's layout."""
    with graphviz_failures():
        data = json.loads(to_graphviz(scene, sized=True).pipe(format="json", quiet=True))
    objects = {o["_gvid"]: o for o in data.get("objects", [])}
    nodes = {
        o["name"]: {"pos": o["pos"], "width": o["width"], "height": o["height"]}
        for o in objects.values()
        if "pos" in o
    }
    routes = {
        (objects[e["tail"]]["name"], objects[e["head"]]["name"]): e["pos"]
        for e in data.get("edges", [])
        if "pos" in e
    }
    return nodes, routes, _extent(data["bb"], routes.values())


def _extent(bb: str, routes) -> str:
    """The bounding box with every edge route's control points in it: ``neato -n2``
    bounds a drawing by the control points, ``dot`` by the curves."""
    x0, y0, x1, y1 = map(float, bb.split(","))
    for route in routes:
        for point in route.split():
            x, y = map(float, point.removeprefix("e,").removeprefix("s,").split(","))
            x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
    return f"{x0:g},{y0:g},{x1:g},{y1:g}"


@dataclass(frozen=True)
class Layout:
    """Where dot put a scene's nodes (``pos``, ``width``, ``height``), its edges' routes
    and the bounding box (with every route's control points in it)."""

    nodes: dict[str, dict[str, str]]
    routes: dict[tuple[str, str], str]
    bb: str


def layout_of(scenes: list[Scene]) -> Layout:
    """One layout for the (label-inlined, equally titled) scenes: dot on their union."""
    # laid out without the legend: each frame draws its caption above the bounding box
    # anyway, so a legend counted in it too would stand that far off the graph
    return Layout(*_placed(replace(union_scene(scenes), legend=[])))


def pin(s: Scene, layout: Layout) -> Scene:
    """``s`` (label-inlined) drawn at ``layout``'s positions and along its routes, inside
    its bounding box (held by two invisible corner points). A label node the layout does
    not have (an edge it never saw) sits halfway between its edge's ends, and that edge
    runs straight."""
    nodes, routes, bb = layout.nodes, layout.routes, layout.bb
    pinned = replace(s, nodes={}, edges=[], pinned=True, ranks=[])
    pinned.attrs = {**s.attrs, "bb": bb}
    ends: dict[str, list[str]] = {}
    for e in s.edges:
        ends.setdefault(e.head, ["", ""])[0] = e.tail
        ends.setdefault(e.tail, ["", ""])[1] = e.head
    taken = _Taken([_point(nodes[nid]["pos"]) for nid in s.nodes if nid in nodes])
    for nid, node in s.nodes.items():
        node = replace(node, attrs=dict(node.attrs))
        if nid in nodes:
            # "shape": the label may differ from the union's (PNG measures it by cairo)
            node.attrs.update(nodes[nid], fixedsize="shape")
            node.attrs["pos"] += "!"
        elif node.kind == "label" and all(v in nodes for v in ends.get(nid, ("", ""))):
            a, b = (_point(nodes[v]["pos"]) for v in ends[nid])
            x, y = _free_point(a, b, taken)
            taken.append((x, y))
            node.attrs["pos"] = f"{x:g},{y:g}!"
        elif node.kind == "anchor":  # it held a rank the layout had no need of
            continue
        pinned.nodes[nid] = node
    x0, y0, x1, y1 = bb.split(",")
    for name, pos in (("corner-0", f"{x0},{y0}!"), ("corner-1", f"{x1},{y1}!")):
        pinned.node(name, text_label(""), "anchor", pos=pos)
    for e in s.edges:
        if e.tail not in pinned.nodes or e.head not in pinned.nodes:
            continue
        edge = replace(e, attrs=dict(e.attrs))
        if (e.tail, e.head) in routes:
            edge.attrs["pos"] = routes[e.tail, e.head]
        pinned.edges.append(edge)
    return pinned


def _point(pos: str) -> tuple[float, float]:
    x, y = pos.rstrip("!").split(",")[:2]
    return float(x), float(y)


_ALONG = (0.5, 0.35, 0.65, 0.25, 0.75, 0.42, 0.58)  # where on its edge a new label may go


class _Taken:
    """The points taken so far, for the distance from a point to the nearest of them
    (labels are wide: horizontal distance counts a third). A k-d tree over x/3 and y
    finds the few candidates near the nearest, and the distance is then computed as
    written over those only: the same number as over all of them (a Hessian's step view
    of 295 frames measured every label against every point: 184 million distances)."""

    def __init__(self, points: list[tuple[float, float]]) -> None:
        self.points = list(points)
        self._tree = None
        self._indexed = 0

    def append(self, point: tuple[float, float]) -> None:
        self.points.append(point)

    def room(self, x: float, y: float) -> float:
        if not self.points:
            return 0.0
        if len(self.points) - self._indexed > 64:
            self._tree = cKDTree([(u / 3, v) for u, v in self.points])
            self._indexed = len(self.points)
        near = self.points[self._indexed :]
        if self._tree is not None:
            d, _ = self._tree.query((x / 3, y))
            ball = self._tree.query_ball_point((x / 3, y), d * (1 + 1e-9) + 1e-9)
            near = near + [self.points[k] for k in ball]
        return min(((x - u) / 3) ** 2 + (y - v) ** 2 for u, v in near)


def _free_point(
    a: tuple[float, float], b: tuple[float, float], taken: _Taken
) -> tuple[float, float]:
    """The point of the segment a-b (among :data:`_ALONG`) farthest from those taken."""

    def room(t: float) -> float:
        return taken.room(a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]))

    t = max(_ALONG, key=room)
    return a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])


def pin_scenes(scenes: list[Scene]) -> list[Scene]:
    """The scenes laid out once together: each returned scene draws (with ``neato -n2``)
    its nodes where the union's layout put them and its edges along the union's routes,
    inside the union's bounding box (held by two invisible corner points), so that all
    frames share one size and one geometry."""
    scenes = [inline_labels(s) for s in scenes]
    if len(scenes) < 2:
        return scenes
    width = _title_width(scenes)
    scenes = [replace(s, title_width=width) for s in scenes]
    layout = layout_of(scenes)
    return [pin(s, layout) for s in scenes]
