"""Given edge labels against the vertex expressions they claim to differentiate.

A dgraph/1 file may give a vertex's expression and its in-edges' labels both; code
generated from it computes values from the one and derivatives from the other, so a
label that is not ∂target/∂source would give a silently wrong Jacobian. Each given label
is compared with sympy's derivative of the target's expression: equal as expressions, or
equal at the user's point (:attr:`DGraph.point` with the parameters' values given with it,
where the graph has one and both sides are finite there) and at random real points
(relative tolerance :data:`TOLERANCE`); where no point gives both finite real values,
``sympy``'s ``equals`` decides, and an undecided label counts as a mismatch. The user's
point comes first: a label wrong only away from the drawn ranges (``Max(a - 3, 0)`` at
``a = 10``) is still caught where the user evaluates.
"""

from __future__ import annotations

import math
import random

import numpy as np
import sympy

from ..errors import GraphError, InputError
from . import numeric
from .graph import DGraph, local_derivative, vertex_symbol

__all__ = ["POINTS", "TOLERANCE", "check_labels", "label_mismatch", "user_values"]

POINTS = 4  # random points where both sides must agree
TOLERANCE = 1e-8
_RANGES = ((0.5, 1.5), (-1.0, 1.0), (1.0, 3.0), (-3.0, -0.5), (0.05, 0.5))


def label_mismatch(
    graph: DGraph,
    source: str,
    target: str,
    seed: int = 0,
    at: dict[sympy.Symbol, sympy.Float] | None = None,
) -> str | None:
    """Why the given label of ``source -> target`` is not ∂target/∂source, or None (also
    when there is nothing to compare: no label given, or no expression); ``at``: the
    symbols' values at the user's point (:func:`user_values`), compared there first."""
    label, expr = graph.given_partial(source, target), graph.expr(target)
    if label is None or expr is None:
        return None
    derivative = local_derivative(expr, source)
    if derivative == label:
        return None
    args = sorted(derivative.free_symbols | label.free_symbols, key=str)
    if at is not None and set(args) <= at.keys():
        why = _differ(derivative, label, {s: at[s] for s in args}, source, target)
        if why:
            return why + " at the user's point"
    rng = random.Random(f"{seed}:{source}:{target}")
    agreed = 0
    for attempt in range(8 * POINTS):
        low, high = _RANGES[attempt % len(_RANGES)]
        point = {s: sympy.Float(rng.uniform(low, high)) for s in args}
        if _value(derivative, point) is None or _value(label, point) is None:
            continue
        why = _differ(derivative, label, point, source, target)
        if why:
            return why
        agreed += 1
        if agreed == POINTS:
            return None
    if derivative.equals(label) is True:
        return None
    return f"the label {sympy.sstr(label)[:60]} cannot be confirmed to equal d{target}/d{source}"


def _differ(
    derivative: sympy.Expr, label: sympy.Expr, point: dict, source: str, target: str
) -> str | None:
    """Why ``label`` and ``derivative`` differ at ``point``; None where they agree or
    either is not a finite real number there."""
    a, b = _value(derivative, point), _value(label, point)
    if a is None or b is None or abs(a - b) <= TOLERANCE * max(1.0, abs(a), abs(b)):
        return None
    where = ", ".join(f"{s} = {float(v):.6g}" for s, v in point.items())
    return (
        f"the label {sympy.sstr(label)[:60]} is not d{target}/d{source} ="
        f" {sympy.sstr(derivative)[:60]} (at {where}: {b:.6g} against {a:.6g})"
    )


def user_values(graph: DGraph) -> dict[sympy.Symbol, sympy.Float] | None:
    """Every vertex's and parameter's value at the user's point, by symbol; None without
    a point (or parameter values), or where the values are not finite there."""
    point = graph.point
    if point is None or graph.is_tensor or graph.solved:
        return None
    known = graph.parameter_point
    if any(p not in known for p in graph.parameters):
        return None
    if any(np.size(point[u]) != 1 for u in graph.inputs):
        return None
    x = np.array([np.asarray(point[u], float).item() for u in graph.inputs])
    params = [np.asarray(known[p], float).item() for p in graph.parameters]
    params = np.array(params) if params else None
    try:
        with np.errstate(all="ignore"):
            values = numeric.vertex_values(graph, x, params)
    except (GraphError, InputError, TypeError, ValueError):
        return None
    found = {}
    for v, value in values.items():
        value = float(np.asarray(value, dtype=float).reshape(-1)[0])
        if not math.isfinite(value):
            return None
        found[vertex_symbol(v)] = sympy.Float(value)
    return found


def _value(expr: sympy.Expr, point: dict) -> float | None:
    """``expr`` at ``point`` as a finite real number, else None."""
    try:
        value = complex(sympy.N(expr.xreplace(point)))
    except (TypeError, ValueError, ZeroDivisionError, OverflowError):
        return None
    if value.imag or not math.isfinite(value.real):
        return None
    return value.real


def check_labels(graph: DGraph, source: str = "") -> None:
    """Raise :class:`GraphError` naming the first edge whose given label disagrees with
    its target's expression; remembered until the graph changes."""
    key: tuple = ("labels checked",)
    if not graph.is_tensor:  # only a graph of scalars is compared at its point (user_values)
        point, known = graph.point or {}, graph.parameter_point
        key += tuple(np.asarray(v, float).tobytes() for v in point.values())
        key += tuple(sorted((p, np.asarray(v, float).tobytes()) for p, v in known.items()))
    if graph.derived.get(key):
        return
    given = [(u, v) for u, v in graph.edges() if graph.given_partial(u, v) is not None]
    at = user_values(graph) if given else None
    for u, v in given:
        why = label_mismatch(graph, u, v, at=at)
        if why:
            raise GraphError(f"{source + ': ' if source else ''}edge {u} -> {v}: {why}")
    graph.derived[key] = True
