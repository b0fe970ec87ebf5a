"""J⁻¹ẏ without a tape, when every step of the primal can be inverted (Pearlmutter–Siskind §7.3).

The J⁻¹ẏ sweep runs last step first, so it needs each step's partials at that step's
state: normally a tape of the forward run (here, the :class:`~.steps.Linearization`).
If each statement v = φ(u, S) that overwrites u's slot can be solved for u, the states
can be recomputed backwards from the outputs instead, as reverse mode does for stepwise
invertible programs: at each step, u = φ⁻¹(v, S) restores the slot, the partials
a = ∂φ/∂u and b = ∂φ/∂S are evaluated there, and ẋ_u = (ẏ_v − Σ b·ẏ_S) / a. The memory is
the n slots and their tangents, whatever the number of steps.

Each statement is solved for its consumed argument once, with sympy; one that has no
unique closed-form solution (sin(u) + b has two branches) is refused, as is a program
that is not one statement per step (lumps with temporaries).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import sympy

from ..core.graph import DGraph, vertex_symbol
from ..errors import DGraphError
from .lumps import Lump, lumps, output_slots, resolve_order
from .width import check_square

__all__ = ["TapelessInverse", "tapeless_inverse"]


@dataclass(frozen=True)
class TapelessInverse:
    """J⁻¹ẏ per input, the inputs recovered from the outputs, and the statements run."""

    tangent: np.ndarray
    inputs: np.ndarray
    steps: int


@dataclass(frozen=True)
class _Backward:
    """One statement run backwards: its slots and compiled inverse and partials."""

    slot: int
    read_slots: tuple[int, ...]
    restore: Callable[..., float]  # u from (v, S)
    partials: Callable[..., list[float]]  # (a, b_1, …) from (u, S)


def _backward(graph: DGraph, lump: Lump) -> _Backward:
    if lump.l != 1 or len(lump.vertices) != 1:
        raise DGraphError(
            f"lump {', '.join(lump.vertices)}: the tape-free sweep needs one statement per"
            " step (a constant-width program)"
        )
    (v,), (u,) = lump.produced, lump.consumed
    expr = graph.expr(v)
    if expr is None:
        raise DGraphError(f"statement {v} has no expression to invert")
    out, arg = vertex_symbol(v), vertex_symbol(u)
    reads = [vertex_symbol(w) for w in lump.read]
    try:
        solutions = sympy.solve(sympy.Eq(out, expr), arg)
    except NotImplementedError:
        solutions = []
    if len(solutions) != 1:
        raise DGraphError(
            f"statement {v} = {expr} cannot be inverted for {u}:"
            f" {len(solutions)} closed-form solutions"
        )
    partials = [graph.partial(w, v) for w in (u, *lump.read)]
    if any(p is None for p in partials):
        raise DGraphError(f"statement {v} has an edge without a local partial")
    return _Backward(
        lump.slots[0],
        lump.read_slots,
        sympy.lambdify([out, *reads], solutions[0], "math"),
        sympy.lambdify([arg, *reads], partials, "math"),
    )


def tapeless_inverse(
    graph: DGraph,
    y: Sequence[float],
    ydot: Sequence[float],
    order: str | Sequence[str] | None = "greedy",
) -> TapelessInverse:
    """J⁻¹ẏ at the point x with F(x) = y, running the primal backwards from ``y``.

    >>> from dgraph import from_trace
    >>> g = from_trace("inputs: a, b\\noutputs: y, z\\ny = a*exp(b)\\nz = b", "statement")
    >>> r = tapeless_inverse(g, [2.0, 0.0], [1.0, 0.0])
    >>> r.inputs.tolist(), r.tangent.tolist()
    ([2.0, 0.0], [1.0, 0.0])
    """
    n = check_square(graph)
    found = lumps(graph, resolve_order(graph, order))
    runs = [_backward(graph, lump) for lump in found]
    y, ydot = np.asarray(y, dtype=float), np.asarray(ydot, dtype=float)
    if y.shape != (n,) or ydot.shape != (n,):
        raise DGraphError(f"y and ẏ need {n} entries each, one per output")
    values, tangents = np.zeros(n), np.zeros(n)
    slots = list(output_slots(graph, found))
    values[slots], tangents[slots] = y, ydot
    for run in reversed(runs):
        read = [values[s] for s in run.read_slots]
        values[run.slot] = run.restore(values[run.slot], *read)
        a, *b = run.partials(values[run.slot], *read)
        if a == 0 or not np.isfinite(a):
            raise DGraphError(f"a step has ∂v/∂u = {a}: the Jacobian is singular")
        tangents[run.slot] = (tangents[run.slot] - np.dot(b, tangents[list(run.read_slots)])) / a
    return TapelessInverse(tangents, values, len(runs))
