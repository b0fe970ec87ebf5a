"""Immediate dominators by Lengauer and Tarjan's algorithm (simple path compression).

networkx's ``immediate_dominators`` is Cooper, Harvey and Kennedy's iteration, whose
``intersect`` walks the dominator tree up from each predecessor: on a chain of 10⁴
statements that all read one input, every walk goes back to the root, and the trees
took 3.7 of 7.2 CPU-s of ``dgraph structure``'s Zhou part at 8,000 statements (growth
exponent 2). Lengauer and Tarjan's semidominators, with the forest's paths compressed,
take O(E log V) on any graph. The result is the same dictionary as networkx's, keys in
the same order (reverse postorder of the same depth-first search).

>>> import networkx as nx
>>> g = nx.DiGraph([(1, 2), (1, 3), (2, 5), (3, 4), (4, 5)])
>>> sorted(immediate_dominators(g, 1).items())
[(2, 1), (3, 1), (4, 3), (5, 1)]

References
----------
Lengauer, T. and Tarjan, R. E. (1979). A fast algorithm for finding dominators in a
flowgraph. ACM TOPLAS 1(1), 121-141.
"""

from __future__ import annotations

from collections.abc import Hashable

import networkx as nx

__all__ = ["immediate_dominators"]


def _depth_first(g: nx.DiGraph, start: Hashable) -> tuple[list, dict, list]:
    """Preorder, each vertex's tree parent, and postorder of one depth-first search
    (successors in the graph's order, as networkx's ``dfs_postorder_nodes``)."""
    pre, parent, post = [start], {start: None}, []
    stack = [(start, iter(g.succ[start]))]
    while stack:
        v, children = stack[-1]
        for w in children:
            if w not in parent:
                parent[w] = v
                pre.append(w)
                stack.append((w, iter(g.succ[w])))
                break
        else:
            stack.pop()
            post.append(v)
    return pre, parent, post


def immediate_dominators(g: nx.DiGraph, start: Hashable) -> dict:
    """Each vertex reachable from ``start`` mapped to its immediate dominator (``start``
    left out), as :func:`networkx.immediate_dominators` returns them."""
    if start not in g:
        raise nx.NetworkXError("start is not in G")
    pre, parent, post = _depth_first(g, start)
    number = {v: i for i, v in enumerate(pre)}
    semi = list(range(len(pre)))  # semidominators, by preorder number
    ancestor: list[int | None] = [None] * len(pre)  # the forest being linked
    label = list(range(len(pre)))
    bucket: list[list[int]] = [[] for _ in pre]
    dom = [0] * len(pre)

    def evaluate(v: int) -> int:
        """The vertex of least semidominator on ``v``'s forest path (compressing it)."""
        if ancestor[v] is None:
            return v
        path = []
        while ancestor[ancestor[v]] is not None:  # type: ignore[index]
            path.append(v)
            v = ancestor[v]  # type: ignore[assignment]
        for u in reversed(path):
            a = ancestor[u]
            if semi[label[a]] < semi[label[u]]:  # type: ignore[index]
                label[u] = label[a]  # type: ignore[index]
            ancestor[u] = ancestor[a]  # type: ignore[index]
        return label[path[0]] if path else label[v]

    for w in range(len(pre) - 1, 0, -1):
        for p in g.pred[pre[w]]:
            if p in number:
                semi[w] = min(semi[w], semi[evaluate(number[p])])
        bucket[semi[w]].append(w)
        up = number[parent[pre[w]]]
        ancestor[w] = up
        for v in bucket[up]:
            u = evaluate(v)
            dom[v] = u if semi[u] < semi[v] else up
        bucket[up].clear()
    for w in range(1, len(pre)):
        if dom[w] != semi[w]:
            dom[w] = dom[dom[w]]
    return {pre[w]: pre[dom[w]] for w in map(number.__getitem__, reversed(post)) if w}
