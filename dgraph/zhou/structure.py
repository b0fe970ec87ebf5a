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

from typing import Any

import networkx as nx

from ..core.graph import DGraph
from ..core.paths import depth_levels, depths
from ..dominance.trees import SINK, SOURCE, dominator_tree, postdominator_tree
from .levels import cross_level_edges, root_degrees, terminal_degrees
from .segment import copy_name
from .simple import Component, decompose

__all__ = ["complex_blocks", "undivided_bipartite", "zhou_structure"]

_ROOT, _SINK = "__root__", "__sink__"


def _dominance(h: nx.DiGraph) -> tuple[dict, dict]:
    """Immediate dominators (from the roots) and postdominators (to the terminals) in
    dependence direction, with a super-root and a super-sink."""
    dom = postdominator_tree(h)  # dependence direction: outputs on top
    pdom = dominator_tree(h)
    return (_renamed(dom.parent, SINK, _ROOT), _renamed(pdom.parent, SOURCE, _SINK))


def _renamed(parent: dict, old: str, new: str) -> dict:
    return {(new if v == old else v): (new if p == old else p) for v, p in parent.items()}


def _ancestors(idom: dict, v: str, stop: str) -> list[str]:
    out = []
    while idom.get(v, v) != v and idom[v] != stop:
        v = idom[v]
        out.append(v)
    return out


def _subtrees(idom: dict) -> dict[str, set[str]]:
    """Every vertex's dominated set (its subtree in the dominator tree, itself included)."""
    below: dict[str, set[str]] = {v: {v} for v in idom}
    for v in idom:
        for a in _ancestors(idom, v, stop=object()):
            below.setdefault(a, {a}).add(v)
    return below


def complex_blocks(h: nx.DiGraph) -> list[tuple[str, str, set[str]]]:
    """Blocks of a graph that series-parallel reduction left: ``(source, sink, inner)``
    in dependence direction, the innermost around each vertex."""
    idom, ipdom = _dominance(h)
    dominated, postdominated = _subtrees(idom), _subtrees(ipdom)
    found: dict[tuple[str, str], set[str]] = {}
    for x, role in h.nodes(data="role"):
        if role != "intermediate":
            continue
        for u in _ancestors(idom, x, _ROOT):
            hit = None
            for v in _ancestors(ipdom, x, _SINK):
                inner = (dominated[u] & postdominated[v]) - {u, v}
                # in data-flow terms: inner vertices take inputs from inner/v, feed inner/u
                if all(
                    set(h.predecessors(w)) <= inner | {v} and set(h.successors(w)) <= inner | {u}
                    for w in inner
                ):
                    hit = (u, v, inner)
                    break
            if hit:
                found.setdefault((hit[0], hit[1]), hit[2])
                break
    return [(u, v, inner) for (u, v), inner in found.items()]


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

    def visit(c: Component, parent_block: int | None) -> None:
        if c.kind == "chain":
            entry = _component_entry(c, order)
            entry.update(kind="direct" if c.direct else "indirect", simple=True, block=parent_block)
            chains.append(entry)
            for p in c.parts:
                visit(p, parent_block)
        elif c.kind == "block":
            entry = _component_entry(c, order)
            entry.update(kind="simple", parent=parent_block)
            blocks.append(entry)
            index = len(blocks) - 1
            for p in c.parts:
                visit(p, index)

    simple_top: dict[tuple[str, str], int] = {}
    for c in tops:
        visit(c, None)
        if c.kind == "block":
            simple_top[c.source, c.sink] = len(blocks) - 1
    for u, v, inner in sorted(complex_blocks(h), key=lambda b: -len(b[2])):
        members = set(inner)
        for a, b, data in h.edges(data=True):
            if {a, b} <= inner | {u, v} and (a in inner or b in inner or {a, b} == {u, v}):
                members.update(data["component"].vertices())
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
    """A block's parent is the smallest complex block strictly containing it."""
    for i, b in enumerate(blocks):
        inside = set(b["inner"]) | {b["source"], b["sink"]}
        best = None
        for j, c in enumerate(blocks):
            if j == i or c["kind"] != "complex":
                continue
            outer = set(c["inner"])
            contains = inside - {c["source"], c["sink"]} <= outer and len(outer) > len(b["inner"])
            if contains and (best is None or len(outer) < len(blocks[best]["inner"])):
                best = j
        if best is not None and (b["parent"] is None or b["kind"] == "complex"):
            b["parent"] = best
