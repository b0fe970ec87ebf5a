"""Path counts, total path length and depth levels, by dynamic programming (Naumann §2.3).

No path is ever enumerated: the number of input-output paths N and their total length L
follow from one sweep in evaluation order. Naive accumulation by Bauer's formula costs
``L - N`` multiplications. (Naumann's report counts L itself: his products start from the
seed 1 of the input, so every factor is a multiplication; dgraph takes the first factor of
each path as it is, which saves one per path.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TypeVar

import networkx as nx

from .graph import DGraph

__all__ = [
    "count_paths",
    "depth_levels",
    "depths",
    "depths_of",
    "joined_pairs",
    "naive_cost",
    "path_counts",
    "path_length",
    "path_sums",
    "prefix_length",
]

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
    """N: the number of input-output paths, counted by one sweep (never listed).

    Parameters
    ----------
    graph
        The differentiation graph.

    Returns
    -------
    int
        The paths from any input to any output.

    >>> from dgraph.frontends import bundled
    >>> count_paths(bundled("naumann_sin.trace"))
    3
    """
    n, _ = _sweep(graph)
    return sum(n[y] for y in graph.outputs)


def path_length(graph: DGraph) -> int:
    """L: the total length of all input-output paths, counted by one sweep.

    Parameters
    ----------
    graph
        The differentiation graph.

    Returns
    -------
    int
        The edges of every input-output path, summed over the paths.
    """
    _, length = _sweep(graph)
    return sum(length[y] for y in graph.outputs)


def prefix_length(graph: DGraph) -> int:
    """The total length of the paths from an input to every vertex, summed over the
    vertices: the symbols Bauer's formula written out word by word builds on the way
    (quadratic in a chain's length, though its one path is linear)."""
    _, length = _sweep(graph)
    return sum(length.values())


def naive_cost(graph: DGraph) -> int:
    """Multiplications of Bauer's formula evaluated path by path: the baseline every
    accumulation is compared with.

    Parameters
    ----------
    graph
        The differentiation graph.

    Returns
    -------
    int
        ``L - N`` (:func:`path_length` less :func:`count_paths`): Naumann's L with the
        first factor of each path free.

    >>> from dgraph.frontends import bundled
    >>> g = bundled("naumann_discrepancy.json")
    >>> path_length(g), count_paths(g), naive_cost(g)
    (34, 12, 22)
    """
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
    position = {v: k for k, v in enumerate(graph.order())}
    rank = {y: k for k, y in enumerate(graph.outputs)}
    pred = graph.nx.pred
    sums: dict[tuple[str, str], T] = {}
    for x in graph.inputs:  # only what x reaches: O(sum of the reached parts), not O(n |V|)
        at = {x: unit}
        for v in sorted(nx.descendants(graph.nx, x), key=position.__getitem__):
            terms = [extend(at[u], u, v) for u in pred[v] if u in at]
            if terms:
                at[v] = add(terms)
        reached = sorted((y for y in at if y in rank), key=rank.__getitem__)
        sums.update(((y, x), at[y]) for y in reached)
    return sums


def path_counts(graph: DGraph) -> dict[tuple[str, str], int]:
    """Number of paths per (output, input) pair that has at least one."""
    return path_sums(graph, 1, lambda n, u, v: n, sum)


def depths(g: nx.DiGraph) -> dict[str, int]:
    """Zhou's depth level of every vertex, counted from 0 at the roots (outputs): one plus
    the longest path from the roots; all terminals (inputs) share the last level. Takes a
    data-flow networkx graph whose vertices carry a ``role`` (``DGraph.nx`` or a working
    copy under elimination).

    >>> from dgraph.frontends import bundled
    >>> depths(bundled("naumann_sin.trace").nx)
    {'y': 0, 'v2': 1, 'v1': 2, 'x1': 3, 'x0': 3}
    """
    depth: dict[str, int] = {}
    for v in reversed(list(nx.topological_sort(g))):
        if g.nodes[v]["role"] == "output":
            depth[v] = 0
        else:
            depth[v] = 1 + max((depth[w] for w in g.successors(v)), default=-1)
    terminals = [v for v, role in g.nodes(data="role") if role == "input"]
    last = max((depth[x] for x in terminals), default=0)
    depth.update((x, last) for x in terminals)
    return depth


def depths_of(succ: Mapping[str, Iterable[str]], role: Mapping[str, str]) -> dict[str, int]:
    """:func:`depths` over adjacency maps (an elimination state's ``succ`` and ``role``),
    without building a networkx graph: one depth-first pass, O(V + E).

    >>> from dgraph.frontends import bundled
    >>> g = bundled("naumann_sin.trace").nx
    >>> depths_of(g.succ, dict(g.nodes(data="role"))) == depths(g)
    True
    """
    depth: dict[str, int] = {}
    for start in succ:
        stack = [start]
        while stack:
            v = stack[-1]
            if v in depth:
                stack.pop()
                continue
            waiting = [w for w in succ[v] if w not in depth]
            if waiting:
                stack.extend(waiting)
                continue
            stack.pop()
            below = max((depth[w] for w in succ[v]), default=-1)
            depth[v] = 0 if role[v] == "output" else 1 + below
    terminals = [v for v in succ if role[v] == "input"]
    last = max((depth[x] for x in terminals), default=0)
    depth.update((x, last) for x in terminals)
    return depth


def depth_levels(graph: DGraph) -> list[list[str]]:
    """Zhou's depth levels: the cuts his factorization and the ``layers`` method use.

    Parameters
    ----------
    graph
        The differentiation graph.

    Returns
    -------
    list of list of str
        The vertices of each level, in the graph's order, level 1 (the roots) first.

    >>> from dgraph.frontends import bundled
    >>> depth_levels(bundled("naumann_sin.trace"))
    [['y'], ['v2'], ['v1'], ['x0', 'x1']]
    """
    depth = depths(graph.nx)
    levels: list[list[str]] = [[] for _ in range(max(depth.values()) + 1)]
    for v in graph.order():
        levels[depth[v]].append(v)
    return [level for level in levels if level]


def joined_pairs(
    g: nx.DiGraph, sources: Sequence[str], targets: Sequence[str]
) -> list[tuple[str, str]]:
    """The ``(target, source)`` pairs that a path joins (a vertex with itself too): the
    targets in order, each one's sources in order. One sweep in topological order carries,
    per vertex, the set of sources that reach it as the bits of an integer (freed after
    its last successor), where a path search per pair costs pairs x edges: 2,000 inputs
    and 1,000 outputs of an element-level graph took 2·10⁶ searches.

    >>> g = nx.DiGraph([("a", "u"), ("b", "u"), ("u", "y"), ("b", "z")])
    >>> joined_pairs(g, ["a", "b"], ["y", "z"])
    [('y', 'a'), ('y', 'b'), ('z', 'b')]
    """
    bit = {x: 1 << i for i, x in enumerate(sources)}
    wanted = set(targets)
    left = {v: g.out_degree(v) for v in g}
    reach: dict[str, int] = {}
    kept: dict[str, int] = {}
    for v in nx.topological_sort(g):
        r = bit.get(v, 0)
        for u in g.pred[v]:
            r |= reach[u]
            left[u] -= 1
            if not left[u]:
                del reach[u]
        if left[v]:
            reach[v] = r
        if v in wanted:
            kept[v] = r
    pairs = []
    for y in targets:
        r = kept.get(y, 0)
        while r:
            low = r & -r
            pairs.append((y, sources[low.bit_length() - 1]))
            r ^= low
    return pairs
