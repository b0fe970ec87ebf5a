"""Cuts through a graph: where each vertex sits between vertex sets from the outputs down.

Shared by the local-Jacobian method (``layers``) and the Jacobian-chain bridge: both cut
the graph into stages, by default its depth levels, or by vertex sets the user gives.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import DGraphError
from .graph import DGraph
from .paths import depths

__all__ = ["cut_members", "cut_positions"]


def cut_positions(graph: DGraph, cuts: Sequence[Sequence[str]] | None) -> dict[str, float]:
    """Cut index of every cut vertex (0 = the outputs; without ``cuts``, the depth level);
    k + 0.5 for a vertex strictly between cuts k and k + 1.

    >>> from dgraph.frontends import bundled
    >>> g = bundled("naumann_sin.trace")
    >>> cut_positions(g, [["v2"]]) == {"y": 0.0, "v2": 1.0, "x0": 2.0, "x1": 2.0, "v1": 1.5}
    True
    """
    if cuts is None:
        return {v: float(d) for v, d in depths(graph.nx).items()}
    levels = [graph.outputs, *[list(c) for c in cuts], graph.inputs]
    position: dict[str, float] = {}
    for k, level in enumerate(levels):
        if not level:
            raise DGraphError(f"cut {k}: empty")
        for v in level:
            if v not in graph:
                raise DGraphError(f"cut {k}: unknown vertex {v!r}")
            if v in position:
                raise DGraphError(f"vertex {v!r} is in two cuts")
            if 0 < k < len(levels) - 1 and graph.role(v) != "intermediate":
                raise DGraphError(f"cut {k}: {v!r} is an {graph.role(v)}; cuts hold intermediates")
            position[v] = float(k)
    for v in reversed(graph.order()):  # a free vertex sits in the stage under its users
        if v not in position:
            position[v] = max(
                p + 0.5 if p.is_integer() else p for p in (position[w] for w in graph.successors(v))
            )
    for u, v in graph.edges():
        pu, pv = position[u], position[v]
        if pu < pv or (pu == pv and pu.is_integer()):
            raise DGraphError(f"cuts out of order: {u!r} ({_where(pu)}) feeds {v!r} ({_where(pv)})")
    return position


def cut_members(graph: DGraph, position: dict[str, float]) -> list[list[str]]:
    """The vertices on each cut, from cut 0 (the outputs) down, in evaluation order."""
    members: list[list[str]] = [[] for _ in range(int(max(position.values())) + 1)]
    for v in graph.order():
        if position[v].is_integer():
            members[int(position[v])].append(v)
    return members


def _where(p: float) -> str:
    return f"cut {int(p)}" if p.is_integer() else f"between cuts {int(p)} and {int(p) + 1}"
