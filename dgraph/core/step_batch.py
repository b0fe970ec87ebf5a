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

Batched: elementwise operations (their operands' shapes aligned on the right, as NumPy
broadcasts each step's), ``integer_pow``, ``select_n``, reshapes and ``squeeze``,
``broadcast_in_dim`` and ``gather_flat`` (constant positions); any other operation, and
the vertices past :data:`BATCH_ENTRIES` stacked entries in all, are left to the steps.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..blocks.arrays import ELEMENTWISE, ArrayOp, Const, elementwise_forward
from ..blocks.scatter import positions

__all__ = ["BATCH_ENTRIES", "StepBatch"]

Region = Any  # dgraph.core.regions.Region

BATCH_ENTRIES = 4_000_000
"""The most entries (steps × a vertex's, summed over the batched vertices) a run holds
stacked."""

_ELEMENTWISE = frozenset(
    {
        *ELEMENTWISE,
        *("stop_gradient", "floor", "ceil", "round", "sign", "is_finite"),
        *("eq", "ne", "lt", "le", "gt", "ge", "and", "or", "not"),
        "integer_pow",
        "select_n",
    }
) - {"copy", "convert_element_type"}  # moves below
_MOVED = frozenset({"reshape", "squeeze", "expand_dims", "copy", "convert_element_type"})


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
        """``op``'s value over every step and whether it differs by step; None where
        it is not batched."""
        try:
            with np.errstate(all="ignore"):
                return self._value(op)
        except _Unbatched:
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

    def _value(self, op: ArrayOp) -> tuple[np.ndarray, bool] | None:
        """``op``'s value (nested operations, innermost first, without recursion) and
        whether it is per step; None where an operand changes from step to step
        otherwise than by the batch."""
        done: dict[int, tuple[np.ndarray, bool]] = {}
        pending = [(op, False)]
        while pending:
            top, ready = pending.pop()
            if id(top) in done:
                continue
            inner = [y for y in top.operands if isinstance(y, ArrayOp) and id(y) not in done]
            if inner and not ready:
                pending += [(top, True), *((y, False) for y in inner)]
                continue
            args = []
            for y in top.operands:
                if isinstance(y, str):
                    if y in self.stacked:
                        args.append((self.stacked[y], True))
                    elif y in self.same:
                        args.append((self.same[y], False))
                    else:
                        return None
                elif isinstance(y, Const):
                    args.append((np.asarray(y.value), False))
                else:
                    args.append(done[id(y)])
            done[id(top)] = self._forward(top, args)
        return done[id(op)]

    def _forward(self, op: ArrayOp, args: list[tuple[np.ndarray, bool]]) -> tuple[np.ndarray, bool]:
        """One operation on batched operands (each with whether it is per step)."""
        name, steps = op.primitive, self.steps
        if not any(per_step for _, per_step in args):  # the same every step
            if name not in _ELEMENTWISE | _MOVED | {"broadcast_in_dim", "gather_flat"}:
                raise _Unbatched
            value = elementwise_forward(op, [a for a, _ in args])
            return np.asarray(value).reshape(op.shape), False
        if name in _ELEMENTWISE:
            rank = len(op.shape)
            aligned = []
            for a, per_step in args:
                if per_step:
                    if a.ndim - 1 > rank:
                        raise _Unbatched
                    a = a.reshape((steps, *(1,) * (rank + 1 - a.ndim), *a.shape[1:]))
                elif a.ndim > rank:
                    raise _Unbatched
                aligned.append(a)
            value = np.asarray(elementwise_forward(op, aligned))
            if value.shape[:1] != (steps,) or value[0].size != math.prod(op.shape):
                raise _Unbatched
            return value.reshape((steps, *op.shape)), True
        if len(args) != 1:
            raise _Unbatched
        a = args[0][0]
        if name in _MOVED:
            if name == "copy":
                return np.array(a).reshape((steps, *op.shape)), True
            if name == "convert_element_type":
                return np.asarray(a, dtype=float).reshape((steps, *op.shape)), True
            return a.reshape((steps, *op.shape)), True
        if name == "broadcast_in_dim":
            dims = op.param["broadcast_dimensions"]
            shape = a.shape[1:]
            if len(dims) != len(shape):
                raise _Unbatched
            spread = [shape[dims.index(k)] if k in dims else 1 for k in range(len(op.shape))]
            return np.broadcast_to(a.reshape((steps, *spread)), (steps, *op.shape)), True
        if name == "gather_flat":
            flat = np.asarray(a, dtype=float).reshape(steps, -1)
            return flat[:, positions(op, "sources")].reshape((steps, *op.shape)), True
        raise _Unbatched


class _Unbatched(Exception):
    """An operation the batch leaves to the steps."""


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
