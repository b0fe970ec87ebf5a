"""Constant width: the live values between the steps of an evaluation order.

Pearlmutter & Siskind, *Automatic Differentiation: Inverse Accumulation Mode*,
§3: inverse accumulation needs F: Rⁿ → Rⁿ computed with exactly n live active values
between steps. After the first t steps of a topological order, a value is *live* when it
has been computed and is an output or still has a successor to come. Fewer than n live
values anywhere means the Jacobian factors through fewer than n numbers: it is singular.
"""

from __future__ import annotations

from ..core.graph import DGraph
from ..errors import DGraphError

__all__ = [
    "SingularJacobian",
    "check_order",
    "check_square",
    "check_width",
    "evaluation_order",
    "is_constant_width",
    "live_sets",
    "width_drop",
    "width_profile",
]


class SingularJacobian(DGraphError):
    """The Jacobian is singular: a step's block A is singular or the width drops below n."""


def check_square(graph: DGraph) -> int:
    """The common number n of inputs and outputs; a DGraphError when they differ."""
    n, m = len(graph.inputs), len(graph.outputs)
    if n != m:
        raise DGraphError(
            "inverse accumulation needs as many outputs as inputs:"
            f" {n} input{'s' * (n != 1)}, {m} output{'s' * (m != 1)}"
        )
    return n


def evaluation_order(graph: DGraph) -> list[str]:
    """The steps of the graph's own evaluation order: every vertex but the inputs."""
    return [v for v in graph.order() if graph.role(v) != "input"]


def check_order(graph: DGraph, order: list[str]) -> list[str]:
    """``order`` itself when it lists every non-input vertex once, after its predecessors."""
    steps = evaluation_order(graph)
    known = set(steps)
    done = set(graph.inputs)
    for v in order:
        if v not in known:
            what = "an input" if v in graph else "not a vertex"
            raise DGraphError(f"order: {v!r} is {what}; list the vertices that are computed")
        if v in done:
            raise DGraphError(f"order: {v!r} is listed twice")
        missing = [u for u in graph.nx.predecessors(v) if u not in done]
        if missing:
            raise DGraphError(f"order: {v!r} comes before its predecessor {min(missing)!r}")
        done.add(v)
    left = [v for v in steps if v not in done]
    if left:
        raise DGraphError(f"order: {left[0]!r} is missing")
    return list(order)


def live_sets(graph: DGraph, order: list[str] | None = None) -> list[frozenset[str]]:
    """The live values before the first step and after each step t = 1..T of ``order``.

    >>> from dgraph import from_trace
    >>> g = from_trace("inputs: a, b\\noutputs: y, z\\nu = a*b\\nz = b + u\\ny = u", "statement")
    >>> [sorted(s) for s in live_sets(g)]  # y (a copy of u) comes before z
    [['a', 'b'], ['b', 'u'], ['b', 'u', 'y'], ['y', 'z']]
    """
    order = evaluation_order(graph) if order is None else check_order(graph, order)
    return _live_sets(graph, order)


def _live_sets(graph: DGraph, order: list[str]) -> list[frozenset[str]]:
    """:func:`live_sets` for an order already checked."""
    waiting = {v: graph.nx.out_degree(v) for v in graph.nx}
    live = {x for x in graph.inputs if waiting[x]}
    sets = [frozenset(live)]
    for v in order:
        for u in graph.nx.predecessors(v):
            waiting[u] -= 1
            if not waiting[u]:
                live.discard(u)
        live.add(v)  # an intermediate has a successor still to come; an output stays
        sets.append(frozenset(live))
    return sets


def width_profile(graph: DGraph, order: list[str] | None = None) -> list[int]:
    """The number of live values before the first step and after every step."""
    return [len(s) for s in live_sets(graph, order)]


def is_constant_width(graph: DGraph, order: list[str] | None = None) -> bool:
    """True when the graph is square and ``order`` keeps exactly n values live throughout.

    >>> from dgraph import from_trace
    >>> g = from_trace("inputs: a, b\\noutputs: y, z\\nu = a*b\\nz = b + u\\ny = u", "statement")
    >>> is_constant_width(g), width_profile(g)
    (False, [2, 2, 3, 2])
    >>> is_constant_width(g, ["u", "z", "y"]), width_profile(g, ["u", "z", "y"])
    (True, [2, 2, 2, 2])
    """
    n = len(graph.inputs)
    return len(graph.outputs) == n and all(w == n for w in width_profile(graph, order))


def check_width(graph: DGraph, order: list[str] | None = None) -> list[int]:
    """The width profile of ``order``; SingularJacobian naming the step where it drops below n."""
    n = check_square(graph)
    order = evaluation_order(graph) if order is None else check_order(graph, order)
    sets = _live_sets(graph, order)
    for t, live in enumerate(sets):
        if len(live) < n:
            raise width_drop(graph, order, t, len(live), set(sets[t - 1] - live) if t else set())
    return [len(s) for s in sets]


def width_drop(
    graph: DGraph, order: list[str], t: int, width: int, dead: set[str]
) -> SingularJacobian:
    """The error for ``width`` < n live values after step ``t`` (at which ``dead`` died)."""
    n = len(graph.inputs)
    if t == 0:
        unused = [x for x in graph.inputs if not graph.nx.out_degree(x)]
        return SingularJacobian(
            f"the width is {width} < n = {n} before the first step (unused input"
            f" {', '.join(unused)}): the Jacobian is singular"
        )
    rank = {v: i for i, v in enumerate(graph.order())}
    return SingularJacobian(
        f"the width drops to {width} < n = {n} after step {t} ({order[t - 1]}, the last"
        f" use of {', '.join(sorted(dead, key=rank.__getitem__))}): the Jacobian is singular"
    )
