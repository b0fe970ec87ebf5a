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

import itertools

from ..core.graph import DGraph
from ..errors import DGraphError

__all__ = ["cut_profile", "vertex_cuts"]

Schedule = tuple[list[str], dict[str, int], dict[str, int]]


def _schedule(graph: DGraph) -> Schedule:
    """The steps (non-inputs in evaluation order), each value's step (inputs: -1) and the
    step of its last use (-1: none)."""
    steps = [v for v in graph.order() if graph.role(v) != "input"]
    at = dict.fromkeys(graph.inputs, -1)
    at.update((v, t) for t, v in enumerate(steps))
    last = {u: max((at[w] for w in graph.successors(u)), default=-1) for u in graph.order()}
    return steps, at, last


def cut_profile(graph: DGraph) -> list[int]:
    """The size of the vertex cut after each step of the evaluation order but the last:
    the values computed so far that a later step uses.

    >>> from dgraph.frontends import bundled
    >>> cut_profile(bundled("naumann_sin.trace"))  # {x0, v1}, then {v1, v2}
    [2, 2]
    """
    return _profile(_schedule(graph))


def _profile(schedule: Schedule) -> list[int]:
    """:func:`cut_profile` by a difference array over the steps."""
    steps, at, last = schedule
    change = [0] * (len(steps) + 1)
    for u, t in at.items():  # live after steps max(t, 0) … last[u] - 1
        if last[u] > max(t, 0):
            change[max(t, 0)] += 1
            change[last[u]] -= 1
    return list(itertools.accumulate(change[: max(len(steps) - 1, 0)]))


def _minima(sizes: list[int]) -> list[int]:
    """Positions of local minima; on a plateau, its first position."""
    runs = [(size, len(list(group))) for size, group in itertools.groupby(sizes)]
    found, start = [], 0
    for k, (size, length) in enumerate(runs):
        lower_before = k == 0 or runs[k - 1][0] > size
        lower_after = k == len(runs) - 1 or runs[k + 1][0] > size
        if lower_before and lower_after:
            found.append(start)
        start += length
    return found


def _live_at(graph: DGraph, schedule: Schedule, splits: list[int]) -> dict[int, list[str]]:
    """The live values after each split step, in evaluation order, by one sweep."""
    steps, _, last = schedule
    ending: dict[int, list[str]] = {}
    for u, t in last.items():
        ending.setdefault(t, []).append(u)
    live = dict.fromkeys(x for x in graph.inputs if last[x] >= 0)
    wanted, found = set(splits), {}
    for t, v in enumerate(steps):
        if last[v] > t:
            live[v] = None
        for u in ending.get(t, ()):
            live.pop(u, None)
        if t in wanted:
            found[t] = list(live)
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
    schedule = _schedule(graph)
    sizes = _profile(schedule)
    splits = _minima(sizes)
    if parts is not None:
        splits = sorted(sorted(splits, key=lambda t: (sizes[t], t))[: parts - 1])
    steps, at, _ = schedule
    live = _live_at(graph, schedule, splits)
    cuts: list[list[str]] = []
    since = -1
    for t in splits:
        window = {u for u in live[t] if graph.role(u) == "intermediate" and at[u] > since}
        feeds: set[str] = set()  # values since the last split with a path into the window
        for u in reversed(steps[since + 1 : t + 1]):  # such paths stay inside the window
            if any(w in window or w in feeds for w in graph.successors(u) if at[w] <= t):
                feeds.add(u)
        cut = [u for u in live[t] if u in window and u not in feeds]
        if cut:
            cuts.append(cut)
            since = t
    return cuts[::-1]
