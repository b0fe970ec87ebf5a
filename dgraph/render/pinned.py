"""One layout for a sequence of scenes (the frames of a step view).

Every node and edge that appears in any frame is placed once, by ``dot``, on the union of
the frames (each edge label as wide as the widest it ever holds); each frame is then drawn
at those positions with ``neato -n2``, which keeps given positions and edge routes. So
vertices hold still from frame to frame, elements appear and vanish in place, and every
frame has the same size: the frames differ only where the steps change them.
"""

from __future__ import annotations

import json
from dataclasses import replace

from .labels import text_label
from .scene import Edge, Node, Scene, inline_labels, to_graphviz

__all__ = ["pin_scenes"]


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
    data = json.loads(to_graphviz(probe, sized=True).pipe(format="json"))
    return max(float(o["width"]) for o in data["objects"]) * 72 + 8


def _placed(scene: Scene) -> tuple[dict, dict, str]:
    """Node positions and sizes, edge routes and the bounding box of dot's layout."""
    data = json.loads(to_graphviz(scene, sized=True).pipe(format="json"))
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
    union = union_scene(scenes)
    # laid out without the legend: each frame draws its caption above the bounding box
    # anyway, so a legend counted in it too would stand that far off the graph
    nodes, routes, bb = _placed(replace(union, legend=[]))
    out = []
    for s in scenes:
        pinned = replace(s, nodes={}, edges=[], pinned=True, ranks=[])
        pinned.attrs = {**s.attrs, "bb": bb}
        for nid, node in s.nodes.items():
            node = replace(node, attrs=dict(node.attrs))
            if nid in nodes:
                # "shape": the label may differ from the union's (PNG measures it by cairo)
                node.attrs.update(nodes[nid], fixedsize="shape")
                node.attrs["pos"] += "!"
            pinned.nodes[nid] = node
        # the union's corners, held by invisible points: every frame has its bounding box
        x0, y0, x1, y1 = bb.split(",")
        for name, pos in (("corner-0", f"{x0},{y0}!"), ("corner-1", f"{x1},{y1}!")):
            pinned.node(name, text_label(""), "anchor", pos=pos)
        for e in s.edges:
            edge = replace(e, attrs=dict(e.attrs))
            if (e.tail, e.head) in routes:
                edge.attrs["pos"] = routes[e.tail, e.head]
            pinned.edges.append(edge)
        out.append(pinned)
    return out
