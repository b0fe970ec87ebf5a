"""Zhou's structures of a differentiation graph (Zhou 2020, §3): chains, blocks and levels.

* **Simple chains and blocks** (Defs. 3.2-3.3) are the nodes of the series-parallel
  decomposition (:func:`dgraph.zhou.simple.decompose`), with their nesting.
* **Complex blocks** (Def. 3.1) are what that reduction leaves: regions between a source
  u and a sink v whose inner vertices have no edge leaving the region. Every inner vertex
  is then dominated by u (from the roots) and postdominated by v (towards the
  terminals), so the candidates come from networkx's dominator trees.
* **Levels** (Def. 3.4), **cross-level edges**, **undivided bipartite subgraphs** between
  adjacent levels after segmentation (Def. 3.5), and every vertex's **r-degree** and
  **t-degree**.

Everything is reported in Zhou's dependence direction: a chain or block's ``source`` is
its upper end (nearer the roots, i.e. the outputs), its ``sink`` the lower end.
"""

from __future__ import annotations

import bisect
from typing import Any

import networkx as nx

from ..core.graph import DGraph
from ..core.paths import depth_levels, depths
from ..dominance.trees import Tree, between, dominator_tree, postdominator_tree
from .levels import cross_level_edges, root_degrees, terminal_degrees
from .segment import copy_name
from .simple import Component, decompose

__all__ = ["complex_blocks", "undivided_bipartite", "zhou_structure"]


def _parent(tree: Tree, v: str) -> str | None:
    """``v``'s parent in the tree; None at or below the root's children."""
    p = tree.parent.get(v, tree.root)
    return None if p == tree.root else p


def _meet(tree: Tree, v: str, w: str, cache: dict[tuple[str, str], str | None]) -> str | None:
    """The nearest strict ancestor of ``v`` that is also one of ``w`` (None: only the
    root). The vertices walked past are remembered, so walks from many vertices towards
    the same ``w`` cost the tree's depth once."""
    walked = []
    a = _parent(tree, v)
    while a is not None and (a, w) not in cache and not tree.is_ancestor(a, w):
        walked.append(a)
        a = _parent(tree, a)
    met = cache.get((a, w), a) if a is not None else None
    for b in walked:
        cache[b, w] = met
    return met


def _leak(h: nx.DiGraph, above: Tree, below: Tree, u: str, v: str) -> tuple[str | None, str | None]:
    """An edge leaving the candidate block from ``u`` down to ``v`` (inner vertices:
    dominated by ``u`` from the roots, postdominated by ``v`` towards the terminals,
    neither end): an inner vertex's successor outside, not ``u``, or its predecessor
    outside, not ``v`` (the first met; both None: the block is closed); the walk stops
    at the first leak."""

    def inside(w: str) -> bool:
        return w != u and w != v and above.is_ancestor(u, w) and below.is_ancestor(v, w)

    for w in between(above, below, u, v):
        if w in (u, v):
            continue
        for s in h.successors(w):
            if s != u and not inside(s):
                return s, None
        for p in h.predecessors(w):
            if p != v and not inside(p):
                return None, p
    return None, None


def _region(above: Tree, below: Tree, u: str, v: str) -> set[str]:
    """The inner vertices of the block from ``u`` down to ``v``."""
    return set(between(above, below, u, v)) - {u, v}


def complex_blocks(h: nx.DiGraph) -> list[tuple[str, str, set[str]]]:
    """Blocks of a graph that series-parallel reduction left: ``(source, sink, inner)``
    in dependence direction, the innermost around each vertex.

    Each intermediate ``x`` takes the first closed region in the order: its dominators
    ``u`` nearest first and, for each, its postdominators ``v`` nearest first. Where an
    edge leaves the region upwards (inner ``w`` feeds ``s`` outside), it stays open for
    every ``v`` further down that does not postdominate ``s`` and every ``u`` further up
    (``w`` stays inside, ``s``, below ``u``, outside); where one enters it from below
    (``p`` outside feeds inner ``w``), for every ``u`` further up that does not dominate
    ``p`` and every ``v`` further down. So the search climbs straight to the next ``v``
    postdominating ``s``, or the next ``u`` dominating ``p``, and each region is looked
    at once: a chain of 10⁴ statements no longer walks its dominator tree from every
    vertex (quadratic before, cubic where a shared term fed every step).
    """
    above = postdominator_tree(h)  # dependence direction: outputs on top
    below = dominator_tree(h)
    leaks: dict[tuple[str, str], tuple[str | None, str | None]] = {}
    meet_above: dict[tuple[str, str], str | None] = {}
    meet_below: dict[tuple[str, str], str | None] = {}
    found: dict[tuple[str, str], set[str]] = {}
    for x, role in h.nodes(data="role"):
        if role != "intermediate":
            continue
        u, v = _parent(above, x), _parent(below, x)
        while u is not None and v is not None:
            if (u, v) not in leaks:
                leaks[u, v] = _leak(h, above, below, u, v)
            out, into = leaks[u, v]
            if out is None and into is None:
                if (u, v) not in found:
                    found[u, v] = _region(above, below, u, v)
                break
            if out is not None:
                v = _meet(below, v, out, meet_below)
            else:
                u = _meet(above, u, into, meet_above)  # type: ignore[arg-type]
    return [(u, v, inner) for (u, v), inner in found.items()]


def _block_members(h: nx.DiGraph, u: str, v: str, inner: set[str]) -> set[str]:
    """The inner vertices and those of the components on the block's edges (those
    between its vertices that touch an inner one, and a direct ``u``-``v`` edge)."""
    ends, members = inner | {u, v}, set(inner)
    for w in inner:
        for a, b, data in (*h.in_edges(w, data=True), *h.out_edges(w, data=True)):
            if a in ends and b in ends:
                members.update(data["component"].vertices())
    for a, b in ((u, v), (v, u)):
        if h.has_edge(a, b):
            members.update(h.edges[a, b]["component"].vertices())
    return members


def undivided_bipartite(graph: DGraph) -> list[dict[str, Any]]:
    """Connected bipartite pieces between adjacent levels once cross-level edges are
    segmented (copies named as :func:`dgraph.zhou.segment.segment` names them)."""
    depth = depths(graph.nx)
    taken = set(graph.nx)
    copy_of: dict[tuple[str, int], str] = {}
    pieces_by_level: list[nx.Graph] = [nx.Graph() for _ in range(max(depth.values()))]
    built: dict[str, int] = {}  # the level u's chain of copies reaches up to (its own: none)
    for u, v in graph.nx.edges:  # u below v
        # u's copies are one chain shared by its edges: each edge extends it only past
        # where the edges before it took it (walking it whole made a value read at every
        # step of a 10⁴-statement program quadratic: 35 s at 2,000 statements)
        top = built.get(u, depth[u])
        for level in range(top - 1, depth[v], -1):
            copy_of[u, level] = copy_name(u, level + 1, taken)
            taken.add(copy_of[u, level])
            pieces_by_level[level].add_edge(copy_of[u, level], copy_of.get((u, level + 1), u))
        built[u] = min(top, depth[v] + 1)
        below = copy_of[u, depth[v] + 1] if depth[v] + 1 < depth[u] else u
        pieces_by_level[depth[v]].add_edge(v, below)
    position = {v: i for i, v in enumerate(graph.order())}
    level_of = dict(depth) | {name: level for (_, level), name in copy_of.items()}
    pieces = []
    for k, bip in enumerate(pieces_by_level):
        for comp in nx.connected_components(bip):
            ordered = sorted(comp, key=lambda w: (position.get(w, len(position)), w))
            pieces.append(
                {
                    "levels": [k + 1, k + 2],
                    "upper": [w for w in ordered if level_of[w] == k],
                    "lower": [w for w in ordered if level_of[w] == k + 1],
                }
            )
    return pieces


def _component_entry(c: Component, order: dict[str, int]) -> dict[str, Any]:
    return {
        "source": c.source,
        "sink": c.sink,
        "inner": sorted(c.vertices(), key=order.__getitem__),
        "direct": c.direct,
    }


def zhou_structure(graph: DGraph) -> dict[str, Any]:
    """The ``chains``, ``blocks``, ``levels`` and related keys of ``dgraph structure``."""
    order = {v: i for i, v in enumerate(graph.order())}
    h, tops = decompose(graph.nx)
    chains: list[dict[str, Any]] = []
    blocks: list[dict[str, Any]] = []

    def visit(top: Component) -> None:
        """Each chain and block of ``top`` listed before its parts, in order (a stack:
        a sum over n terms nests n blocks)."""
        stack: list[tuple[Component, int | None]] = [(top, None)]
        while stack:
            c, parent_block = stack.pop()
            if c.kind == "chain":
                entry = _component_entry(c, order)
                kind = "direct" if c.direct else "indirect"
                entry.update(kind=kind, simple=True, block=parent_block)
                chains.append(entry)
                stack.extend((p, parent_block) for p in reversed(c.parts))
            elif c.kind == "block":
                entry = _component_entry(c, order)
                entry.update(kind="simple", parent=parent_block)
                blocks.append(entry)
                stack.extend((p, len(blocks) - 1) for p in reversed(c.parts))

    simple_top: dict[tuple[str, str], int] = {}
    for c in tops:
        visit(c)
        if c.kind == "block":
            simple_top[c.source, c.sink] = len(blocks) - 1
    for u, v, inner in sorted(complex_blocks(h), key=lambda b: -len(b[2])):
        members = _block_members(h, u, v, inner)
        entry = {
            "source": u,
            "sink": v,
            "inner": sorted(members, key=order.__getitem__),
            "direct": False,
            "kind": "complex",
            "parent": None,
        }
        blocks.append(entry)
    _nest_complex(blocks)
    return {
        "levels": depth_levels(graph),
        "chains": chains,
        "blocks": blocks,
        "cross_level_edges": [[v, u, span] for u, v, span in cross_level_edges(graph.nx)],
        "bipartite": undivided_bipartite(graph),
        "r_degree": root_degrees(graph.nx),
        "t_degree": terminal_degrees(graph.nx),
    }


def _nest_complex(blocks: list[dict[str, Any]]) -> None:
    """A block's parent is the smallest complex block strictly containing it (of those
    as small, the first listed): one whose inner vertices hold every vertex of the block
    but its own two ends, and more of them. Such a block holds any one vertex of the
    block as an inner vertex or an end, so only the complex blocks at the block's vertex
    that the fewest complex blocks hold are tried, smallest first, and the first that
    contains it is taken: for blocks nested or apart, one try each (every pair was)."""
    at, sizes, inner = _complex_at(blocks)
    for b in blocks:
        if b["parent"] is not None and b["kind"] != "complex":
            continue  # a simple block inside a simple one keeps that parent
        inside = [*b["inner"], b["source"], b["sink"]]
        pivot = min(inside, key=lambda w: len(at.get(w, ())))
        k = bisect.bisect_right(sizes.get(pivot, []), len(b["inner"]))
        for j in at.get(pivot, [])[k:]:
            if blocks[j] is not b and _holds(blocks[j], inner[j], inside):
                b["parent"] = j
                break


def _holds(c: dict[str, Any], inner: set[str], inside: list[str]) -> bool:
    """Whether the complex block ``c`` (its ``inner`` vertices) holds every vertex
    ``inside`` another block as an inner vertex or one of its ends."""
    ends = (c["source"], c["sink"])
    return all(w in inner or w in ends for w in inside)


def _complex_at(blocks: list[dict[str, Any]]) -> tuple[dict, dict, dict[int, set[str]]]:
    """(the complex blocks at each vertex, as an inner vertex or an end, ordered by
    (size, place in ``blocks``); their sizes in that order; each one's inner vertices)."""
    at: dict[str, list[tuple[int, int]]] = {}
    inner: dict[int, set[str]] = {}
    for j, c in enumerate(blocks):
        if c["kind"] == "complex":
            inner[j] = set(c["inner"])
            for w in inner[j] | {c["source"], c["sink"]}:
                at.setdefault(w, []).append((len(inner[j]), j))
    for pairs in at.values():
        pairs.sort()
    sizes = {w: [size for size, _ in pairs] for w, pairs in at.items()}
    return {w: [j for _, j in pairs] for w, pairs in at.items()}, sizes, inner
