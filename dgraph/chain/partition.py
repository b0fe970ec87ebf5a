"""Cut a graph into a chain at small vertex cuts (Naumann, matrix-free chaining, §6).

The paper partitions a program's DAG into elemental functions by *vertex cuts*: after
each step of the evaluation order the values still waiting for a later use (the active
variables) separate everything computed so far from everything still to come. Split
positions are placed at local minima of the cut size, so the factors' inputs and
outputs are narrow. The cut vertex sets returned here are what :func:`stages` and the
method ``layers`` take as ``cuts`` (from the outputs down); a value that stays live across
a later split is passed through it by a copy there.
"""

from __future__ import annotations

from ..core.graph import DGraph
from ..errors import DGraphError

__all__ = ["cut_profile", "vertex_cuts"]


def _steps(graph: DGraph) -> list[str]:
    return [v for v in graph.order() if graph.role(v) != "input"]


def _live(graph: DGraph, steps: list[str]) -> list[list[str]]:
    """After each step but the last, the values used by a later step (in order)."""
    at = {v: t for t, v in enumerate(steps)}
    at.update(dict.fromkeys(graph.inputs, -1))
    last = {u: max((at[w] for w in graph.successors(u)), default=-1) for u in graph.order()}
    order = graph.order()
    return [[u for u in order if at[u] <= t < last[u]] for t in range(len(steps) - 1)]


def cut_profile(graph: DGraph) -> list[int]:
    """The size of the vertex cut after each step of the evaluation order but the last.

    >>> from dgraph.core.builders import bundled
    >>> cut_profile(bundled("naumann_sin.trace"))  # {x0, v1}, then {v1, v2}
    [2, 2]
    """
    return [len(s) for s in _live(graph, _steps(graph))]


def _minima(sizes: list[int]) -> list[int]:
    """Positions of local minima; on a plateau, its first position."""
    found = []
    for t, s in enumerate(sizes):
        before = next((sizes[u] for u in range(t - 1, -1, -1) if sizes[u] != s), None)
        if t > 0 and sizes[t - 1] == s:
            continue  # inside a plateau: its first position speaks for it
        after = next((x for x in sizes[t + 1 :] if x != s), None)
        if (before is None or before > s) and (after is None or after > s):
            found.append(t)
    return found


def vertex_cuts(graph: DGraph, parts: int | None = None) -> list[list[str]]:
    """Vertex cuts at the local minima of :func:`cut_profile`, from the outputs down.

    ``parts`` asks for at most that many factors: the ``parts - 1`` smallest minima (the
    earlier on ties). A cut holds the intermediates computed since the previous split that
    a later step still uses, less those with a path to another of them (the lower one is
    then copied across the split, as any value that skips a cut is).

    >>> import dgraph
    >>> g = dgraph.from_trace("inputs: a, b, c\\noutputs: y\\nu = a*b\\nv = u + c\\n"
    ...                       "w = sin(v)\\nz = sin(w)\\ny = z + 1")
    >>> cut_profile(g), vertex_cuts(g)
    ([2, 1, 1, 1], [['v']])
    """
    if parts is not None and parts < 1:
        raise DGraphError(f"vertex cuts: parts must be at least 1, not {parts}")
    steps = _steps(graph)
    live = _live(graph, steps)
    splits = _minima([len(s) for s in live])
    if parts is not None:
        splits = sorted(sorted(splits, key=lambda t: (len(live[t]), t))[: parts - 1])
    at = {v: t for t, v in enumerate(steps)}
    cuts: list[list[str]] = []
    since = -1
    for t in splits:
        window = {u for u in live[t] if graph.role(u) == "intermediate" and at[u] > since}
        feeds: set[str] = set()  # values computed by t with a path to a value of the window
        for u in reversed(steps[: t + 1]):
            if any(w in window or w in feeds for w in graph.successors(u) if at[w] <= t):
                feeds.add(u)
        cut = [u for u in live[t] if u in window and u not in feeds]
        if cut:
            cuts.append(cut)
            since = t
    return cuts[::-1]
