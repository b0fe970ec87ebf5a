"""Given edge labels against the vertex expressions they claim to differentiate.

A dgraph/1 file may give a vertex's expression and its in-edges' labels both; code
generated from it computes values from the one and derivatives from the other, so a
label that is not ∂target/∂source would give a silently wrong Jacobian. Each given label
is compared with sympy's derivative of the target's expression: equal as expressions, or
equal at random real points (relative tolerance :data:`TOLERANCE`); where no point gives
both finite real values, ``sympy``'s ``equals`` decides, and an undecided label counts
as a mismatch.
"""

from __future__ import annotations

import math
import random

import sympy

from ..errors import GraphError
from .graph import DGraph, local_derivative

__all__ = ["POINTS", "TOLERANCE", "check_labels", "label_mismatch"]

POINTS = 4  # random points where both sides must agree
TOLERANCE = 1e-8
_RANGES = ((0.5, 1.5), (-1.0, 1.0), (1.0, 3.0), (-3.0, -0.5), (0.05, 0.5))


def label_mismatch(graph: DGraph, source: str, target: str, seed: int = 0) -> str | None:
    """Why the given label of ``source -> target`` is not ∂target/∂source, or None (also
    when there is nothing to compare: no label given, or no expression)."""
    label, expr = graph.given_partial(source, target), graph.expr(target)
    if label is None or expr is None:
        return None
    derivative = local_derivative(expr, source)
    if derivative == label:
        return None
    args = sorted(derivative.free_symbols | label.free_symbols, key=str)
    rng = random.Random(f"{seed}:{source}:{target}")
    agreed = 0
    for attempt in range(8 * POINTS):
        low, high = _RANGES[attempt % len(_RANGES)]
        point = {s: sympy.Float(rng.uniform(low, high)) for s in args}
        a, b = _value(derivative, point), _value(label, point)
        if a is None or b is None:
            continue
        if abs(a - b) > TOLERANCE * max(1.0, abs(a), abs(b)):
            where = ", ".join(f"{s} = {float(v):.6g}" for s, v in point.items())
            return (
                f"the label {sympy.sstr(label)[:60]} is not d{target}/d{source} ="
                f" {sympy.sstr(derivative)[:60]} (at {where}: {b:.6g} against {a:.6g})"
            )
        agreed += 1
        if agreed == POINTS:
            return None
    if derivative.equals(label) is True:
        return None
    return f"the label {sympy.sstr(label)[:60]} cannot be confirmed to equal d{target}/d{source}"


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
    key = "labels checked"
    if graph.derived.get(key):
        return
    for u, v in graph.edges():
        why = label_mismatch(graph, u, v)
        if why:
            raise GraphError(f"{source + ': ' if source else ''}edge {u} -> {v}: {why}")
    graph.derived[key] = True
