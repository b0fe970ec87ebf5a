"""Path counts, total path length and depth levels, by dynamic programming (Naumann §2.3).

No path is ever enumerated: the number of input-output paths N and their total length L
follow from one sweep in evaluation order. Naive accumulation by Bauer's formula costs
``L - N`` multiplications.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from .graph import DGraph

__all__ = ["count_paths", "depth_levels", "naive_cost", "path_counts", "path_length", "path_sums"]

T = TypeVar("T")


def _sweep(graph: DGraph) -> tuple[dict[str, int], dict[str, int]]:
    """Per vertex: number of paths from any input, and their total length."""
    n: dict[str, int] = {}
    length: dict[str, int] = {}
    for v in graph.order():
        preds = graph.nx.pred[v]
        if graph.role(v) == "input":
            n[v], length[v] = 1, 0
        else:
            n[v] = sum(n[u] for u in preds)
            length[v] = sum(length[u] + n[u] for u in preds)
    return n, length


def count_paths(graph: DGraph) -> int:
    """N: the number of input-output paths.

    >>> from dgraph.core.builders import bundled
    >>> count_paths(bundled("naumann_sin.trace"))
    3
    """
    n, _ = _sweep(graph)
    return sum(n[y] for y in graph.outputs)


def path_length(graph: DGraph) -> int:
    """L: the total length (in edges) of all input-output paths."""
    _, length = _sweep(graph)
    return sum(length[y] for y in graph.outputs)


def naive_cost(graph: DGraph) -> int:
    """Multiplications of Bauer's formula evaluated path by path: ``L - N``."""
    return path_length(graph) - count_paths(graph)


def path_sums(
    graph: DGraph,
    unit: T,
    extend: Callable[[T, str, str], T],
    add: Callable[[list[T]], T],
) -> dict[tuple[str, str], T]:
    """Bauer's formula in any algebra: for every (output, input) pair joined by a path, the
    sum over those paths, built edge by edge in evaluation order from ``unit`` at the input
    (``extend(value_at_u, u, v)`` carries a partial sum across the edge u -> v)."""
    sums: dict[tuple[str, str], T] = {}
    for x in graph.inputs:
        at = {x: unit}
        for v in graph.order():
            if v != x and graph.role(v) != "input":
                terms = [extend(at[u], u, v) for u in graph.nx.pred[v] if u in at]
                if terms:
                    at[v] = add(terms)
        sums.update(((y, x), at[y]) for y in graph.outputs if y in at)
    return sums


def path_counts(graph: DGraph) -> dict[tuple[str, str], int]:
    """Number of paths per (output, input) pair that has at least one."""
    return path_sums(graph, 1, lambda n, u, v: n, sum)


def depth_levels(graph: DGraph) -> list[list[str]]:
    """Zhou's depth levels: outputs (roots) at level 1, every other vertex at one plus the
    length of its longest path from the roots, and all inputs (terminals) at the last level.

    >>> from dgraph.core.builders import bundled
    >>> depth_levels(bundled("naumann_sin.trace"))
    [['y'], ['v2'], ['v1'], ['x0', 'x1']]
    """
    depth: dict[str, int] = {}
    for v in reversed(graph.order()):
        succ = graph.nx.succ[v]
        depth[v] = 0 if graph.role(v) == "output" else 1 + max((depth[w] for w in succ), default=0)
    last = max(depth[x] for x in graph.inputs)
    for x in graph.inputs:
        depth[x] = last
    levels: list[list[str]] = [[] for _ in range(last + 1)]
    for v in graph.order():
        levels[depth[v]].append(v)
    return [level for level in levels if level]
