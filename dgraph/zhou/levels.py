"""r- and t-degrees and cross-level edges (Zhou 2020, §3, Def. 3.4).

Zhou reads the graph in dependence direction: roots (outputs) at level 1, terminals
(inputs) at the last level (levels: :func:`dgraph.core.paths.depths`). These functions
take a data-flow networkx graph whose vertices carry a ``role``.
"""

from __future__ import annotations

import networkx as nx

from ..core.paths import depths

__all__ = ["cross_level_edges", "root_degrees", "terminal_degrees"]


def _roles(g: nx.DiGraph, role: str) -> list[str]:
    return [v for v, r in g.nodes(data="role") if r == role]


def root_degrees(g: nx.DiGraph) -> dict[str, int]:
    """r-degree: how many roots (outputs) each vertex reaches."""
    return {v: m.bit_count() for v, m in _reach(g, "output", reverse=False).items()}


def terminal_degrees(g: nx.DiGraph) -> dict[str, int]:
    """t-degree: how many terminals (inputs) reach each vertex."""
    return {v: m.bit_count() for v, m in _reach(g, "input", reverse=True).items()}


def _reach(g: nx.DiGraph, role: str, reverse: bool) -> dict[str, int]:
    ends = {v: 1 << k for k, v in enumerate(_roles(g, role))}
    order = list(nx.topological_sort(g))
    if not reverse:
        order.reverse()
    mask: dict[str, int] = {}
    for v in order:
        nbrs = g.predecessors(v) if reverse else g.successors(v)
        m = ends.get(v, 0)
        for w in nbrs:
            m |= mask[w]
        mask[v] = m
    return mask


def cross_level_edges(g: nx.DiGraph) -> list[tuple[str, str, int]]:
    """Edges spanning more than one level: ``(source, target, levels crossed)``."""
    d = depths(g)
    return [(u, v, d[u] - d[v]) for u, v in g.edges if d[u] - d[v] > 1]
