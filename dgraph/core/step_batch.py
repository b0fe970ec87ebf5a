"""A scan body's vertices that read no changing carry, for every step at once.

A scan's body runs once per step, and a body of scalars costs its operations' Python
calls a step (some 30 µs each), whatever the arithmetic. Its vertices that read only
the loop's constants, carries that each step passes on unchanged (the body's output
is the carry itself or its ``copy``: its initial value at every step) and the step's
slices of the ``xs`` are values of the step alone, not of the trajectory: the steps'
values of such a vertex are one array op over the stacked slices (a first axis of
steps), the same NumPy function on arrays one axis longer (the loop-invariant and
vectorizable part of a loop, as a compiler hoists and vectorizes it: K. Kennedy and
J. R. Allen, *Optimizing Compilers for Modern Architectures*, Morgan Kaufmann, 2001,
ch. 5). Only what the steps then compute one after another is evaluated step by step
(:func:`~dgraph.core.region_sweep.forward_run`, :class:`~dgraph.core.step_values.StepValues`).

Batched: the operations :func:`~dgraph.core.leading_axis.batched_value` takes over a
leading axis (elementwise operations and moves of entries); any other operation, and the
vertices past :data:`BATCH_ENTRIES` stacked entries in all, are left to the steps. A run
of the loop at several operand sets at once (:func:`~dgraph.core.region_sweep.batched_run`)
reads each set's batch, stacked (:class:`RowBatches`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..blocks.arrays import ArrayOp, Const
from .leading_axis import Unbatched, batched_value

__all__ = ["BATCH_ENTRIES", "RowBatches", "StepBatch"]

Region = Any  # dgraph.core.regions.Region

BATCH_ENTRIES = 4_000_000
"""The most entries (steps × a vertex's, summed over the batched vertices) a run holds
stacked."""


class StepBatch:
    """The batched vertices of a scan at one run's operands (module docstring): each
    one's values at every step (run order first), or, where it reads nothing that
    changes from step to step, its one value (:attr:`same`)."""

    def __init__(self, region: Region, args: list[np.ndarray], largest: int | None = None) -> None:
        b = region.body
        self.steps = region.length or 0
        self.largest = largest
        self.held = 0  # entries held stacked (BATCH_ENTRIES)
        self.stacked: dict[str, np.ndarray] = {}  # vertex -> (steps, *shape)
        self.same: dict[str, np.ndarray] = {}  # vertex or input -> its value every step
        first = region.n_cond_consts
        consts = args[first : first + region.n_consts]
        carries = args[first + region.n_consts : first + region.n_consts + region.n_carry]
        xs = args[first + region.n_consts + region.n_carry :]
        for x, value in zip(b.inputs[: region.n_consts], consts, strict=True):
            self.same[x] = np.asarray(value)
        for c, value in enumerate(carries):
            x, i = b.inputs[region.n_consts + c], region.n_consts + c
            value = np.asarray(value)
            step = _counted(b, x, c)
            if _passed_on(b, x, c) and value.dtype == np.float64:
                self.same[x] = value.reshape(b.shapes[i])
            elif step is not None and value.shape == () and value.dtype.kind in "iu":
                count = np.arange(self.steps, dtype=np.int64) * step
                self.stacked[x] = value + count.astype(np.result_type(value, step))
        for x, value in zip(b.inputs[region.n_consts + region.n_carry :], xs, strict=True):
            value = np.asarray(value)
            self.stacked[x] = value[::-1] if region.reverse else value
        self.inputs = set(b.inputs)
        for v in b.order:
            op = b.graph.op(v)
            if op is not None:
                self._add(v, op)
        self.outputs: dict[int, tuple[np.ndarray, bool]] = {}  # an operation's, by index
        for o, out in enumerate(b.outputs):
            if isinstance(out, ArrayOp):
                self._add_output(o, out, tuple(b.out_shapes[o]))
        for x in self.inputs:
            self.stacked.pop(x, None)
            self.same.pop(x, None)

    @classmethod
    def of(
        cls, region: Region, args: list[np.ndarray], largest: int | None = None
    ) -> StepBatch | None:
        """For a scan of at least two steps, its batched vertices (``largest``: of at
        most this many entries, where the steps evaluate the larger ones at a few
        entries alone, :class:`~dgraph.core.step_values.StepValues`); None where there
        is none."""
        if region.kind != "scan" or (region.length or 0) < 2:
            return None
        found = cls(region, args, largest)
        return found if found.stacked or found.same else None

    def names(self) -> set[str]:
        return self.stacked.keys() | self.same.keys()

    def at(self, t: int) -> dict[str, np.ndarray]:
        """The batched vertices' values at step t (run order)."""
        out = {v: a[t, ...] for v, a in self.stacked.items()}
        out.update(self.same)
        return out

    def outputs_at(self, t: int) -> dict[int, np.ndarray]:
        """The body's outputs that are operations (no vertex: a counter, an index read
        off it), batched, at step t, each in its own dtype as
        :meth:`~dgraph.core.regions.Body.results` gives it."""
        return {o: a[t, ...] if per_step else a for o, (a, per_step) in self.outputs.items()}

    def _batched(self, op: ArrayOp) -> tuple[np.ndarray, bool] | None:
        """``op``'s value over every step and whether it differs by step
        (:func:`~dgraph.core.leading_axis.batched_value`); None where it is not
        batched."""
        try:
            with np.errstate(all="ignore"):
                return batched_value(op, self.stacked, self.same, self.steps)
        except Unbatched:
            return None

    def _add_output(self, o: int, op: ArrayOp, shape: tuple[int, ...]) -> None:
        if self.held + self.steps * math.prod(shape) > BATCH_ENTRIES:
            return
        found = self._batched(op)
        if found is None:
            return
        value, per_step = found
        if per_step:
            value = value.reshape((self.steps, *op.shape))
            self.outputs[o] = (np.broadcast_to(value, (self.steps, *shape)), True)
            self.held += value.size
        else:
            self.outputs[o] = (np.broadcast_to(value, shape), False)

    def _add(self, v: str, op: ArrayOp) -> None:
        """Batch ``v`` where its operation and every operand are batched."""
        steps, size = self.steps, math.prod(op.shape)
        if self.held + steps * size > BATCH_ENTRIES or (self.largest or size) < size:
            return
        found = self._batched(op)
        if found is None:
            return
        value, per_step = found
        if per_step:
            if value.size != steps * math.prod(op.shape):
                return
            self.stacked[v] = np.asarray(value, dtype=float).reshape((steps, *op.shape))
            self.held += self.stacked[v].size
        else:
            if value.size != math.prod(op.shape):
                return
            self.same[v] = np.asarray(value, dtype=float).reshape(op.shape)


class RowBatches:
    """The :class:`StepBatch` of each of several operand sets run at once
    (:func:`~dgraph.core.region_sweep.batched_run`), stacked behind the steps' axis:
    at step t each vertex's values of all the sets, one row per set."""

    def __init__(self, batches: list[StepBatch]) -> None:
        self.stacked = {
            v: np.stack([b.stacked[v] for b in batches], axis=1) for v in batches[0].stacked
        }
        self.same = {v: np.stack([b.same[v] for b in batches]) for v in batches[0].same}
        self.outputs: dict[int, tuple[np.ndarray, bool]] = {}
        for o, (_, per_step) in batches[0].outputs.items():
            rows = np.stack([b.outputs[o][0] for b in batches], axis=1 if per_step else 0)
            self.outputs[o] = (rows, per_step)

    @classmethod
    def of(cls, region: Region, arg_lists: list[list[np.ndarray]]) -> RowBatches | None:
        """For a scan, each operand set's batch stacked; None where a set has none, where
        they batch different vertices (the shapes and dtypes decide, the same for all
        sets: never, but checked), or where they hold past :data:`BATCH_ENTRIES` in all."""
        batches = [StepBatch.of(region, args) for args in arg_lists]
        first = batches[0]
        if any(b is None for b in batches) or sum(b.held for b in batches) > BATCH_ENTRIES:
            return None
        flags = {o: per_step for o, (_, per_step) in first.outputs.items()}
        for b in batches[1:]:
            if (b.stacked.keys(), b.same.keys()) != (first.stacked.keys(), first.same.keys()):
                return None
            if {o: per_step for o, (_, per_step) in b.outputs.items()} != flags:
                return None
        return cls(batches)

    def at(self, t: int) -> dict[str, np.ndarray]:
        """The batched vertices' rows at step t (run order)."""
        out = {v: a[t, ...] for v, a in self.stacked.items()}
        out.update(self.same)
        return out

    def outputs_at(self, t: int) -> dict[int, np.ndarray]:
        """The body's batched outputs' rows at step t (:meth:`StepBatch.outputs_at`)."""
        return {o: a[t, ...] if per_step else a for o, (a, per_step) in self.outputs.items()}


def _counted(b, x: str, c: int) -> Any:
    """The integer constant k where the body's output for carry ``x`` (the c-th) is
    ``x + k`` (``x`` perhaps under ``stop_gradient``): a counter, ``x₀ + t·k`` at step t;
    else None."""
    out = b.outputs[c]
    if not isinstance(out, ArrayOp) or out.primitive != "add" or len(out.operands) != 2:
        return None
    for inner, k in (out.operands, out.operands[::-1]):
        if isinstance(inner, ArrayOp) and inner.primitive == "stop_gradient":
            inner = inner.operands[0] if len(inner.operands) == 1 else None
        if inner == x and isinstance(k, Const):
            value = np.asarray(k.value)
            if value.shape == () and value.dtype.kind in "iu":
                return value
    return None


def _passed_on(b, x: str, c: int) -> bool:
    """Whether the body passes carry ``x`` (the c-th) on unchanged: its output is the
    carry's input itself or a copy of it."""
    out = b.outputs[c]
    if out == x:
        return True
    if not isinstance(out, str) or b.graph.op(out) is None:
        return False
    op = b.graph.op(out)
    return op.primitive == "copy" and op.operands == (x,)
