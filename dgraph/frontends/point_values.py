"""The graph's values at the user's point against the function's own: a reading that
changes values (an operation read as another) is refused before anything is built on it.

The value check compares derivatives with central differences of the graph's program,
or with JAX's ``jvp`` of the function; neither sees a NumPy function the tracer read
wrongly, since the differences are of the graph itself. Running the user's function at
the user's point is the one reference that shares nothing with the reading.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..blocks.linalg import COND_MOST, eigenvector_condition
from ..core import numeric
from ..core.block_values import vertex_values
from ..core.graph import DGraph
from ..errors import InputError

__all__ = ["TOLERANCE", "check_point_values", "refuse_unread_roots"]

TOLERANCE = 1e-6  # of the larger magnitude, plus this much of the largest value computed
SINGLE = 1e-3  # the same where the function computes in single precision (JAX's default)


def check_point_values(graph: DGraph, f: Callable[..., Any], point: Sequence[Any], label: str):
    """Refuse ``graph`` (InputError, one line) where an output entry at its point differs
    from ``f(*point)``'s beyond :data:`TOLERANCE`, or is not finite where ``f``'s is (a
    non-finite entry of ``f``'s is not compared), and the two sorted differ too (outputs
    listed in another order are not compared entry by entry); nothing is claimed
    where ``f`` cannot run on the arrays, gives something else than numbers of the
    outputs' total size, or gives different numbers on a second call (randomness)."""
    if graph.parameters or graph.parameter_shapes or graph.point is None:
        return
    refuse_unread_roots(graph, label)
    own, single = _own_values(f, point)
    if own is None or own.size != sum(int(np.prod(graph.shape(y))) for y in graph.outputs):
        return
    read, largest = _graph_values(graph)
    tolerance = SINGLE if single else TOLERANCE
    off = _differing(read, own, tolerance, largest)
    # the same numbers in another order (a reader that lists a constant output first) are
    # no misreading
    if off.size and _differing(np.sort(read), np.sort(own), tolerance, largest).size:
        k = int(off[0])
        raise InputError(
            f"{label}: read wrongly: at the point, output entry {k} of the graph is"
            f" {read[k]:.6g} where the function gives {own[k]:.6g}"
            f" ({'1 entry differs' if off.size == 1 else f'{off.size} entries differ'};"
            " a dgraph bug, please report it)"
        )


def refuse_unread_roots(graph: DGraph, label: str) -> None:
    """Refuse (InputError, one line) a graph one of whose ``sqrtm`` or ``logm`` operations
    takes, at its point, a matrix it is not read for: one with a real eigenvalue at most 0
    (its principal square root or logarithm is not real there, or does not exist: the real
    one read has no value, NaN), or a defective one (eigenvectors past
    :data:`dgraph.blocks.linalg.COND_MOST`: the derivative, read through them, is NaN)."""
    roots = [
        v
        for v in [*graph.intermediates, *graph.outputs]
        if graph.is_tensor and (op := graph.op(v)) is not None and op.primitive in ("sqrtm", "logm")
    ]
    if not roots or graph.point is None:
        return
    with np.errstate(all="ignore"):
        values = vertex_values(graph, graph.point)
    for v in roots:
        x = graph.op(v).operands[0]
        a = np.asarray(values[x] if isinstance(x, str) else x.value, dtype=float)
        if not np.isfinite(a).all():
            continue
        name = graph.op(v).primitive
        w = np.linalg.eigvals(a)
        bad = w.real[(w.imag == 0) & (w.real <= 0)]
        if bad.size:
            what = "square root" if name == "sqrtm" else "logarithm"
            raise InputError(
                f"{label}: {name} of a matrix with a real eigenvalue {np.min(bad):.3g} ≤ 0"
                f" at the point: its principal {what} is not real (only real ones, of"
                " matrices whose real eigenvalues are positive, are read)"
            )
        cond = float(eigenvector_condition(a))
        if not cond <= COND_MOST:
            raise InputError(
                f"{label}: {name} of a defective matrix at the point (its eigenvectors'"
                f" condition number {cond:.3g} > {COND_MOST:.3g}): the derivative is read"
                " through A = V·diag(λ)·V⁻¹, which a defective matrix does not have"
            )


def _differing(read: np.ndarray, own: np.ndarray, tolerance: float, largest: float) -> np.ndarray:
    """The entries where ``read`` is apart from ``own`` or not finite where it is; apart:
    beyond ``tolerance`` of the larger plus that of the largest output or vertex value
    (``largest``: an output that cancels to rounding, a residual at a solution, differs
    by rounding in the terms it summed)."""
    both = np.isfinite(own) & np.isfinite(read)
    scale = max(np.max(np.abs(own[both]), initial=0.0), largest)
    with np.errstate(all="ignore"):
        allowed = tolerance * (np.maximum(np.abs(own), np.abs(read)) + scale)
        apart = both & (np.abs(read - own) > allowed)
    return np.flatnonzero(apart | (np.isfinite(own) & ~np.isfinite(read)))


def _own_values(f: Callable[..., Any], point: Sequence[Any]) -> tuple[np.ndarray | None, bool]:
    """``f(*point)`` flattened, twice the same, or None; whether any part of it was in
    single precision."""
    got = []
    for _ in range(2):
        arguments = [np.array(v, dtype=float) for v in point]  # f may write into them
        try:
            with (
                np.errstate(all="ignore"),
                contextlib.redirect_stdout(io.StringIO()),
            ):
                out = f(*arguments)
            parts = out if isinstance(out, (tuple, list)) else [out]
            single = any(np.asarray(p).dtype in (np.float32, np.float16) for p in parts)
            flat = [np.asarray(p, dtype=float).reshape(-1) for p in parts]
        except Exception:
            return None, False
        got.append(np.concatenate(flat) if flat else np.zeros(0))
    if got[0].shape != got[1].shape or not np.array_equal(got[0], got[1], equal_nan=True):
        return None, False
    return got[0], single


def _graph_values(graph: DGraph) -> tuple[np.ndarray, float]:
    """The outputs' values at the point, flat, and the largest finite |value| of any
    vertex there."""
    point = graph.point
    assert point is not None
    with np.errstate(all="ignore"):
        if graph.is_tensor:
            values = vertex_values(graph, point)
        else:
            flat = np.array([float(point[x]) for x in graph.inputs])
            values = numeric.vertex_values(graph, flat)
    outputs = np.concatenate(
        [np.asarray(values[y], dtype=float).reshape(-1) for y in graph.outputs] or [np.zeros(0)]
    )
    largest = 0.0
    for value in values.values():
        magnitudes = np.abs(np.asarray(value, dtype=float))
        largest = max(largest, float(np.max(magnitudes, where=np.isfinite(magnitudes), initial=0)))
    return outputs, largest
