"""A loop's tangent sweep: its trajectory and body Jacobians, a chunk of steps at once.

A loop's blocks at a point are one tangent sweep through its T steps (``D ← J_t·D``:
the chain product of the body Jacobians bracketed from the right, Naumann's tangent
mode on the chain; seed 002), the recurrence written once
(:mod:`dgraph.core.tangent_recurrence`). This module feeds it, a chunk of steps at a
time (:func:`tangent_sweep`):

1. the trajectory, step by step (the body's values at each step: the carries make it
   sequential), its values stacked along a first axis of steps;
2. the body Jacobian at every step of the chunk at once: the planned products of the
   body's blocks (:class:`~dgraph.core.regions._Plan`) on arrays whose first axis is
   the step, each block's values from
   :func:`~dgraph.blocks.arrays.stacked_block_value` (elementwise rules and blocks of
   ones, for all steps in one call) or, for the others, from
   :func:`~dgraph.blocks.arrays.block_value` step by step: the entries of one pattern
   (:func:`_output_pattern`); a body too large to plan gives its Jacobian step by step
   (:meth:`~dgraph.core.regions.Body.jacobian`);
3. the recurrence, one product a step, on dense arrays where a scan's tangents fit
   them (:func:`fits`: :data:`DENSE_ENTRIES`, :data:`KEPT_VALUES`; every step in one
   chunk, each output's rows written into one preallocated array of steps × rows ×
   width), else on sparse matrices (a chunk of :data:`CHUNK_ENTRIES`): a scan too large
   for dense arrays, and a ``while_loop`` (its trip count known only by running); there
   the carried tangents stay dense where their rows are few (:data:`DENSE_STEP`: one
   carried sum's row over n columns, sparse, is rebuilt each step, O(n²) in all; the
   ys rows, kept apart where the carries' rows are their own, not counted); and
   where a scan writes at its counter and most of its carried rows pass through a step
   unchanged (:class:`~dgraph.core.step_entries.StepEntries`), its body Jacobian is
   taken in the rows each step writes alone, and the tangents held row by row
   (:data:`~dgraph.core.tangent_recurrence.ROWS`): a step's work in those rows, not n.

What depends on the loop alone (the tangents' layout and seeds, the body Jacobian's
pattern split into the carries' and the placed columns) is made at its first sweep and
kept by the loop (:class:`SweepParts`): a loop in a loop's body is swept again at every
outer step.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..blocks import ONES
from ..blocks.arrays import REGIONS, block_size, block_value, stacked_block_value
from ..blocks.permutation import as_structural
from ..blocks.scatter import SCATTERS
from .lazy import LazyModule
from .leading_axis import RowsApart
from .step_batch import RowBatches, StepBatch
from .step_entries import StepEntries
from .step_values import SMALL, StepValues
from .tangent_recurrence import DENSE, ROWS, SPARSE, Split, StepLayout, TangentRecurrence

sp = LazyModule("scipy.sparse")  # importing dgraph stays light

Region = Any  # dgraph.core.regions.Region (which imports this module)

__all__ = [
    "CHUNK_ENTRIES",
    "DENSE_ENTRIES",
    "DENSE_STEP",
    "KEPT_VALUES",
    "SweepParts",
    "batched_run",
    "fits",
    "forward_run",
    "sweep_parts",
    "tangent_sweep",
    "trajectory_run",
]

DENSE_ENTRIES = 50_000_000  # steps × rows × width (and steps × body Jacobian) held dense
KEPT_VALUES = 2_000_000  # steps × body vertices: the arrays of every step's values kept
DENSE_STEP = 100_000  # carried rows × width: a step's tangents held dense, ys sparse
CHUNK_ENTRIES = 2_000_000
"""The most entries (steps × the body's values and Jacobian entries) a sparse sweep
holds for the steps it takes at once."""


def fits(region: Region, args: list[np.ndarray]) -> bool:
    """Whether the tangents are held dense: a scan of at least one step whose arrays,
    dense, hold at most :data:`DENSE_ENTRIES` entries."""
    b = region.body
    steps = region.length or 0
    if region.kind != "scan" or steps == 0:
        return False
    parts = sweep_parts(region)
    if steps * len(b.graph) > KEPT_VALUES:  # each step's values are kept, one array each
        return False
    width = parts.layout.width
    return steps * max(b.n_out * b.n_in, b.n_out * width, parts.held, 1) <= DENSE_ENTRIES


class SweepParts:
    """What every tangent sweep of a loop shares, made at its first and kept by the
    loop (:func:`sweep_parts`): a loop in a loop's body is swept at every outer step,
    its setup the same each time. The layout of its tangents (with its carries' seeds),
    its body's vertices and the entries they hold, and for the body's plan
    (:class:`~dgraph.core.regions._Plan`) its Jacobian's output pattern, that pattern
    split into the carries' and the placed columns, and how each term's products are
    summed (:func:`_placing`)."""

    def __init__(self, region: Region) -> None:
        b = region.body
        self.layout = StepLayout(region, region._columns([]))  # the columns: the operands'
        self.held = sum(math.prod(b.graph.shape(v)) for v in b.graph.nx)
        names = [*b.inputs, *(v for v in b.order if b.graph.op(v) is not None)]
        self.names = list(dict.fromkeys(names))
        self.consts = frozenset(b.inputs[: region.n_consts])  # the same array every step
        self.plan = None  # the plan the next three are of
        self.pattern: tuple[np.ndarray, np.ndarray] | None = None
        self.split: Split | None = None
        self.placing: list[tuple] = []

    def planned(self, plan) -> SweepParts:
        """These parts with the plan's (made again for another plan)."""
        if plan is not self.plan:
            self.pattern = _output_pattern(plan)
            self.split = self.layout.split(*self.pattern)
            self.placing = _placing(plan)
            self.plan = plan
        return self


def sweep_parts(region: Region) -> SweepParts:
    """The loop's :class:`SweepParts`, made once (kept as ``region._sweep_parts``)."""
    if region._sweep_parts is None:
        region._sweep_parts = SweepParts(region)
    return region._sweep_parts


def _step(
    region: Region, inputs, ys: list[list[np.ndarray]], batch=None, t: int = 0
) -> tuple[dict, list[np.ndarray]]:
    """One step of the body at ``inputs``: its values and the carries it returns; the
    step's ys appended to ``ys``; ``batch``: the run's batched values
    (:class:`~dgraph.core.step_batch.StepBatch`), read at step t."""
    if batch is None:
        values = region.body.values(inputs)
        outs = region.body.results(values)
    else:
        values = region.body.values(inputs, batch.at(t))
        outs = region.body.results(values, batch.outputs_at(t))
    for j, y in enumerate(outs[region.n_carry :]):
        ys[j].append(np.asarray(y))
    return values, [np.asarray(o) for o in outs[: region.n_carry]]


def trajectory_run(region: Region, args: list[np.ndarray]) -> dict:
    """The loop's outputs and trips, keeping the body's values at every step for a
    later :func:`tangent_sweep` at the same operands (the value check evaluates the
    program, then asks for the blocks)."""
    steps = _Steps(region, args)
    per_step = steps.take(math.inf)
    return {"outputs": steps.outputs(), "trips": steps.trips, "steps": per_step}


def forward_run(region: Region, args: list[np.ndarray]) -> dict:
    """The loop's outputs and trips; a scan's small values at every step kept
    (:func:`_small_names`: ``"steps"``, ``"kept"``) where they are at most
    :data:`KEPT_VALUES`, for a :func:`tangent_sweep` asked next at the same operands
    that reads no other (the value check evaluates the program, then asks for the
    blocks: one run of the steps, not two)."""
    steps = _Steps(region, args, kept=set())
    names = _small_names(region)
    keep = region.kind == "scan" and (region.length or 0) * len(names) <= KEPT_VALUES
    per_step = steps.take(math.inf, keep=keep)
    run: dict = {"outputs": steps.outputs(), "trips": steps.trips}
    if keep:
        run["steps"] = [{v: values[v] for v in names} for values in per_step]
        run["kept"] = names
    return run


def batched_run(region: Region, sets: list[list[np.ndarray]]) -> list[dict] | None:
    """:func:`forward_run`'s outputs and trips for each of several operand sets (the value
    check's points beside one) in one run: each operand stacked along a first axis of
    sets (a scan's ``xs`` along their second), each step's body values for all sets at
    once (:meth:`~dgraph.core.regions.Body.values` with ``rows``: one NumPy call an
    operation for an elementwise one or a move, :mod:`dgraph.core.leading_axis`; set by
    set for any other), the steps' batched vertices each set's
    (:class:`~dgraph.core.step_batch.RowBatches`). Each set's values are those its own
    run gives, bit for bit: the operations taken at once compute each set's entries
    apart. None where the sets are not run at once: operands of different shapes or
    dtypes, a scan whose large carries are written in place
    (:class:`~dgraph.core.step_values.StepValues`: a step's few entries alone, not each
    set's whole carries), a ``while_loop`` whose sets stop at different trips."""
    rows = len(sets)
    xs = region.n_cond_consts + region.n_consts + region.n_carry  # the first of the xs
    stacked = []
    for k, parts in enumerate(zip(*sets, strict=True)):
        if any(p.shape != parts[0].shape or p.dtype != parts[0].dtype for p in parts):
            return None
        stacked.append(np.stack(parts, axis=1 if k >= xs else 0))
    if StepValues.of(region, sets[0], set()) is not None:
        return None
    b = region.body
    batch = RowBatches.of(region, sets)
    carry = stacked[xs - region.n_carry : xs]
    ys: list[list[np.ndarray]] = [[] for _ in range(region.n_ys)]
    trips = 0
    steps = region._steps(stacked, rows)
    try:
        with np.errstate(all="ignore"):  # the value check's points: their own checks
            inputs = steps.send(None)[1]
            while True:
                known = None if batch is None else batch.at(trips)
                values = b.values(inputs, known, rows)
                outs = b.results(values, None if batch is None else batch.outputs_at(trips), rows)
                for j, y in enumerate(outs[region.n_carry :]):
                    ys[j].append(np.asarray(y))
                carry = [np.asarray(o) for o in outs[: region.n_carry]]
                trips += 1
                inputs = steps.send(carry)[1]
    except StopIteration:
        pass
    except RowsApart:
        return None
    stacked_ys = [np.stack(found, axis=1) if found else None for found in ys]  # sets first
    runs = []
    for m in range(rows):
        outputs = [c[m].reshape(s) for c, s in zip(carry, region.out_shapes, strict=False)]
        for j, found in enumerate(stacked_ys):
            shape = region.out_shapes[region.n_carry + j]
            if found is None:
                outputs.append(np.zeros(shape))
            else:  # as :meth:`~dgraph.core.regions.Region.outputs_of` stacks them
                order = found[m, ::-1] if region.reverse else found[m]
                outputs.append(np.ascontiguousarray(order).reshape(shape))
        runs.append({"outputs": outputs, "trips": trips})
    return runs


def _small_names(region: Region) -> frozenset[str]:
    """The body's constants (the same arrays every step) and its inputs and vertices of
    at most :data:`~dgraph.core.step_values.SMALL` entries."""
    b = region.body
    found = set(b.inputs[: region.n_consts])
    found |= {x for x, s in zip(b.inputs, b.shapes, strict=True) if math.prod(s) <= SMALL}
    for v in b.order:
        if b.graph.op(v) is not None and math.prod(b.graph.shape(v)) <= SMALL:
            found.add(v)
    return frozenset(found)


def tangent_sweep(
    region: Region, args: list[np.ndarray], run: dict | None = None, absolute: bool = False
) -> dict:
    """The loop's run with tangents: outputs, trips and the Jacobian per (output,
    operand), and the body Jacobian entries evaluated (``"entries"``: steps × its
    pattern's, or in the rows each step writes); with ``absolute`` also its rounding
    scale (``"magnitudes"``:
    :meth:`~dgraph.core.regions.Region.block_magnitude`). The trajectory a chunk of steps
    at a time, the chunk's body Jacobians at once, then the one recurrence
    (:class:`~dgraph.core.tangent_recurrence.TangentRecurrence`) step by step, on dense
    arrays where they fit (:func:`fits`: every step at once) else on sparse matrices
    (:data:`CHUNK_ENTRIES`), the carried tangents dense where a step's are few
    (:data:`DENSE_STEP`: a sum carried along a scan, a while loop's small carries);
    ``run``: a :func:`trajectory_run` at these operands, whose
    values it reads instead of stepping again."""
    dense = fits(region, args)
    parts = sweep_parts(region)
    layout = parts.layout
    steps = (region.length or 0) if region.kind == "scan" else 0
    carried = layout.carry_total if layout.in_place else layout.rows  # ys rows kept apart
    small = carried * layout.width <= DENSE_STEP
    storage = DENSE if dense or small else SPARSE
    ys = DENSE if dense else SPARSE
    jacobians = _BodyJacobians(region, parts, absolute, by_rows=storage == SPARSE)
    if jacobians.rows is not None:  # a step writes few rows: those alone
        storage = ROWS
    sweep = TangentRecurrence(layout, storage, absolute, steps, ys_storage=ys)
    trajectory = None
    if (
        run is not None
        and "steps" in run
        and (dense or jacobians.reads() <= run.get("kept", frozenset()))
    ):
        kept_steps, outputs, trips = run["steps"], run["outputs"], run["trips"]
        size = max(len(kept_steps), 1) if dense else jacobians.chunk()
        chunks = [kept_steps[i : i + size] for i in range(0, len(kept_steps), size)]
    else:
        kept = None if jacobians.rows is None else jacobians.rows.reads()
        trajectory = _Steps(region, args, kept)
        chunks = trajectory.chunks(math.inf if dense else jacobians.chunk())
    t = 0
    for per_step in chunks:
        for split, jac, excess, rows in jacobians.of(per_step):
            sweep.step(split, jac, excess, steps - 1 - t if region.reverse else t, rows)
            t += 1
    if trajectory is not None:
        outputs, trips = trajectory.outputs(), trajectory.trips
    found = sweep.found()
    return {"outputs": outputs, "trips": trips, **found, "entries": jacobians.entries}


class _Steps:
    """A loop's trajectory, run a chunk of steps at a time: each step's body values,
    the carries and each step's ys. With ``kept`` (the vertices a caller reads of each
    step's values; None: all) a scan that writes at its counter is evaluated in the
    entries each step writes (:class:`~dgraph.core.step_values.StepValues`: its large
    carries written in place, the step's values without its large vertices), where it
    can be."""

    def __init__(
        self, region: Region, args: list[np.ndarray], kept: set[str] | None = None
    ) -> None:
        self.region = region
        first = region.n_cond_consts + region.n_consts
        self.carry = [np.asarray(c) for c in args[first : first + region.n_carry]]
        self.ys: list[list[np.ndarray]] = [[] for _ in range(region.n_ys)]
        self.trips = 0
        self.gen = region._steps(args)
        self.inputs = self._advance(None)
        self.written = None if kept is None else StepValues.of(region, args, kept)
        self.batch = StepBatch.of(region, args, None if self.written is None else SMALL)
        if self.written is not None and self.inputs is not None:
            at = region.n_consts
            carry = self.written.start(self.inputs[at : at + region.n_carry])
            self.written = None if carry is None else self.written
            if carry is not None:  # this run's own, written in place
                self.inputs[at : at + region.n_carry] = carry

    def _advance(self, carry: list[np.ndarray] | None):
        """The next step's body inputs from :meth:`Region._steps` (None after the last)."""
        try:
            return self.gen.send(carry)[1]
        except StopIteration:
            return None

    def take(self, most: float, keep: bool = True) -> list[dict]:
        """Up to ``most`` more steps, each step's values (with ``keep``)."""
        found: list[dict] = []
        taken = 0
        while self.inputs is not None and taken < most:
            if self.written is not None and self.written.broken:
                self.written = None  # a -0.0 carried: whole from here (StepValues)
            if self.written is not None:
                values, self.carry, ys = self.written.step(self.trips, self.inputs, self.batch)
                for j, y in enumerate(ys):
                    self.ys[j].append(y)
            else:
                step = (self.region, self.inputs, self.ys, self.batch, self.trips)
                values, self.carry = _step(*step)
            self.trips += 1
            taken += 1
            if keep:
                found.append(values)
            self.inputs = self._advance(self.carry)
            if self.inputs is None and self.written is not None:
                self.written.finish(self.carry, self.trips)  # a run of sums: added now
        return found

    def chunks(self, most: float):
        """The steps' values, ``most`` steps at a time."""
        while self.inputs is not None:
            yield self.take(most)

    def outputs(self) -> list[np.ndarray]:
        return self.region.outputs_of(self.carry, self.ys)


class _BodyJacobians:
    """The body Jacobians of a chunk of steps, each step's entries on a pattern: a
    planned body's (:class:`~dgraph.core.regions._Plan`) on its one pattern, for the
    chunk at once (:func:`_output_entries`); another's step by step
    (:meth:`~dgraph.core.regions.Body.jacobian`), on its own pattern."""

    def __init__(
        self, region: Region, parts: SweepParts, absolute: bool, by_rows: bool = False
    ) -> None:
        b = region.body
        self.body, self.layout, self.absolute = b, parts.layout, absolute
        plan = b.plan()
        self.plan = plan or None
        self.names, self.consts = parts.names, parts.consts
        self.rows: StepEntries | None = None  # the rows each step writes, where few
        self.entries = 0  # body Jacobian entries evaluated (values; magnitudes alike)
        self.taken = 0  # steps taken
        if self.plan is not None:
            parts = parts.planned(self.plan)
            self.split, self.placing = parts.split, parts.placing
            if by_rows:
                self.rows = StepEntries.of(region, self.plan, parts.pattern[0], self.split)

    def reads(self) -> set[str]:
        """The vertices whose values at each step :meth:`of` reads: in the rows a step
        writes, those of the blocks no rule there gives (:meth:`StepEntries.reads`),
        else every one."""
        return self.rows.reads() if self.rows is not None else set(self.names)

    def chunk(self) -> int:
        """The steps a sparse sweep takes at once (:data:`CHUNK_ENTRIES`): the entries a
        step holds are its vertices' values and its pattern's; in the rows a step
        writes, those of the vertices read there alone (:meth:`reads`) and of their
        blocks with no rule there (each step's whole, :func:`_term_values`)."""
        if self.plan is None:
            return 1
        g = self.body.graph
        if self.rows is not None:
            reads = self.reads()
            entries = sum(math.prod(g.shape(v)) for v in reads if v not in self.consts)
            blocks = [t for t in self.plan.terms if t.vertex in reads]
            entries += sum(int(t.at.max(initial=0)) + 1 for t in blocks) * (1 + self.absolute)
            return max(1, CHUNK_ENTRIES // max(entries, 1))
        entries = sum(math.prod(g.shape(v)) for v in self.names if v not in self.consts)
        vertices = {t.vertex for t in self.plan.terms}  # an input's pattern is not held
        held = sum(self.plan.patterns[v][1].size for v in vertices)
        return max(1, CHUNK_ENTRIES // max(entries + held * (1 + self.absolute), 1))

    def of(self, per_step: list[dict]):
        """Per step of the chunk: (its pattern's :class:`Split`, the entries, the excess
        magnitudes' entries or None, None; in the rows a step writes alone
        (:attr:`rows`), those at the rows' entries and (the rows, the entries))."""
        first = self.taken
        self.taken += len(per_step)
        if self.plan is None:
            for values in per_step:
                split, jac, excess = self._stepped(values)
                self.entries += jac.size
                yield split, jac, excess, None
            return
        b, plan, size = self.body, self.plan, len(per_step)
        nested = _nested_values(b, plan, per_step, size, self.absolute)
        if self.rows is not None:
            yield from self._of_rows(first, _Stacked(per_step, self.consts), per_step, nested)
            return
        stacked = _Stacked(per_step, self.consts)  # each vertex stacked when first read
        sized = None
        if self.absolute:  # first: a nested loop's run then sweeps both at once
            sized = _output_entries(b, plan, stacked, per_step, size, nested, True, self.placing)
        jac = _output_entries(b, plan, stacked, per_step, size, nested, False, self.placing)
        self.entries += jac.size
        excess = None if sized is None else np.maximum(sized - np.abs(jac), 0.0)
        for t in range(size):
            yield self.split, jac[t], None if excess is None else excess[t], None

    def _of_rows(self, first: int, stacked: dict, per_step: list[dict], nested: dict):
        """:meth:`of` in the rows each step writes alone (:class:`StepEntries`): a block
        whose values have no rule there whole for the chunk, read where asked."""
        b, plan, size = self.body, self.plan, len(per_step)
        whole: dict[tuple[int, bool], np.ndarray] = {}

        def value_at(i: int, points, labels, absolute: bool) -> np.ndarray:
            if (i, absolute) not in whole:
                flat = _term_values(b, plan, i, stacked, per_step, size, nested, absolute)
                whole[(i, absolute)] = flat
            flat = whole[(i, absolute)]
            return flat[points, labels if flat.shape[1] > 1 else 0]

        found = self.rows.of_steps(first, size, stacked, value_at, self.absolute)
        self.entries = self.rows.entries
        for rows, entries, jac, sized in found:
            excess = None if sized is None else np.maximum(sized - np.abs(jac), 0.0)
            yield self.split, jac, excess, (rows, entries)

    def _stepped(self, values: dict) -> tuple:
        """One step's body Jacobian (and excess magnitudes) on one pattern."""
        b = self.body
        sized = b.jacobian(values, absolute=True) if self.absolute else None
        jac = b.jacobian(values)  # after: a nested loop sweeps both at once
        indptr, cols, found = _on_one_pattern([jac] if sized is None else [jac, sized])
        excess = None if sized is None else np.maximum(found[1] - np.abs(found[0]), 0.0)
        return self.layout.split(indptr, cols), found[0], excess


class _Stacked(dict):
    """The chunk's values of a vertex stacked (steps first) when first read: a step's
    rows read few of them; a loop constant (``consts``: the same array every step)
    broadcast along the steps, not copied once a step."""

    def __init__(self, per_step: list[dict], consts: frozenset = frozenset()) -> None:
        super().__init__()
        self.per_step, self.consts = per_step, consts

    def __missing__(self, v: str) -> np.ndarray:
        if v in self.consts:
            value = np.asarray(self.per_step[0][v], dtype=float)
            self[v] = np.broadcast_to(value, (len(self.per_step), *value.shape))
        else:
            self[v] = np.stack([np.asarray(s[v], dtype=float) for s in self.per_step])
        return self[v]


def _on_one_pattern(ms: list) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """Sparse matrices of one shape on the union of their patterns (CSR indptr,
    columns), and each one's entries there."""
    ms = [sp.coo_array(m) for m in ms]
    rows, width = ms[0].shape
    keys = [m.row.astype(np.int64) * max(width, 1) + m.col for m in ms]
    union = np.unique(np.concatenate(keys))
    found = []
    for m, k in zip(ms, keys, strict=True):
        data = np.zeros(union.size)
        np.add.at(data, np.searchsorted(union, k), m.data)
        found.append(data)
    row_of, cols = np.divmod(union, max(width, 1))
    indptr = np.concatenate([[0], np.cumsum(np.bincount(row_of, minlength=rows))])
    return indptr, cols, found


def _nested_values(b, plan, per_step, steps: int, absolute: bool) -> dict[int, tuple]:
    """The blocks of the body's nested regions (a loop or a branch in the body), per
    term (its index in the plan): their values at every step (steps × entries), with
    ``absolute`` also their magnitudes (else None), taken step by step with the steps
    the outer loop, so that a nested region runs each step once for all its blocks,
    magnitudes and values together (block by block, each pass over the steps, its runs
    of the earlier steps were forgotten and each step swept again)."""
    g = b.graph
    nested = [i for i, term in enumerate(plan.terms) if g.op(term.vertex).primitive in REGIONS]
    rows: dict[int, tuple[list, list]] = {i: ([], []) for i in nested}
    for values in per_step:
        for i in nested:
            term = plan.terms[i]
            op = g.op(term.vertex)
            if absolute:  # first, as the value check asks: its run sweeps both
                size = block_size(op, term.k, values, term.block)
                rows[i][1].append(_entries(term.block, size))
            value = block_value(op, term.k, values, term.block)
            rows[i][0].append(_entries(term.block, value))
    return {
        i: tuple(np.stack(r).reshape(steps, -1) if r else None for r in found)
        for i, found in rows.items()
    }


def _output_pattern(plan) -> tuple[np.ndarray, np.ndarray]:
    """The body Jacobian's pattern (CSR indptr and columns): the float output rows in
    order, each output vertex's rows as the plan made them (none: an output no float
    input reaches)."""
    indptrs, cols, at = [np.zeros(1, dtype=np.int64)], [], 0
    for o, size in zip(plan.outputs, plan.out_sizes, strict=True):
        if o is None:
            indptrs.append(np.full(size, at, dtype=np.int64))
            continue
        indptr, found = plan.patterns[o]
        indptrs.append(np.asarray(indptr[1:], dtype=np.int64) + at)
        cols.append(np.asarray(found, dtype=np.int64))
        at += found.size
    flat = np.concatenate(cols) if cols else np.zeros(0, dtype=np.int64)
    return np.concatenate(indptrs), flat


def _output_entries(
    b,
    plan,
    stacked,
    per_step,
    steps: int,
    nested: dict[int, tuple],
    absolute: bool = False,
    placing: list | None = None,
) -> np.ndarray:
    """The body Jacobian's entries at every step, (steps, entries of
    :func:`_output_pattern`); with ``absolute``, of its blocks' magnitudes (``placing``:
    :func:`_placing` of the plan's terms, made once for many calls)."""
    placing = placing or _placing(plan)
    data: dict[str, np.ndarray] = {}
    for i, term in enumerate(plan.terms):
        v = term.vertex
        if v not in data:
            data[v] = np.zeros((steps, plan.patterns[v][1].size))
        flat = _term_values(b, plan, i, stacked, per_step, steps, nested, absolute)
        how, read, d = placing[i]
        whole = flat.shape[1] == 1 or (read is None and flat.shape[1] == term.m.size)
        entries = flat if whole else flat[:, term.at[term.m] if read is None else read]
        source = data.get(term.operand)
        if source is None:
            products = np.broadcast_to(entries, (steps, term.m.size))
        else:
            whole = d is None and source.shape[1] == term.d.size
            products = entries * (source if whole else source[:, term.d])
        _add_summed(data[v], products, how)
    found = [
        np.broadcast_to(data.get(o, 1.0), (steps, plan.patterns[o][1].size))
        for o in plan.outputs
        if o is not None
    ]
    return np.concatenate(found, axis=1) if found else np.zeros((steps, 0))


def _term_values(
    b, plan, i: int, stacked, per_step, steps: int, nested: dict[int, tuple], absolute: bool
) -> np.ndarray:
    """Term i's block values at every step of a chunk, (steps, value labels) or (steps,
    1) where the block holds one number; with ``absolute``, their magnitudes."""
    term = plan.terms[i]
    op = b.graph.op(term.vertex)
    if i in nested:
        return nested[i][1 if absolute else 0]
    if op.primitive in SCATTERS and term.block.kind == ONES:  # a gather's ones
        return np.ones((steps, 1))
    flat = stacked_block_value(op, term.k, stacked, term.block, steps, absolute)
    if flat is not None:
        return flat
    valued = block_size if absolute else block_value
    rows = []
    for values in per_step:  # step by step
        rows.append(_entries(term.block, valued(op, term.k, values, term.block)))
    return np.stack(rows).reshape(steps, -1)


def _entries(block, value) -> np.ndarray:
    """A block's value at one step as its structural entries, in floats."""
    return np.asarray(as_structural(block, value)[1], dtype=float)


def _placing(plan) -> list[tuple]:
    """Per term of the plan, how its products are read and summed: (how they are summed
    into the vertex's entries, :func:`_add_summed`: None where each lands on its own
    place in order, the places where each place takes at most one, else the sparse
    matrix summing them; the block's entry each product reads, ``at[m]``, None where
    that is every entry in order; the operand's, ``d``, None likewise)."""
    out = []
    for term in plan.terms:
        size = plan.patterns[term.vertex][1].size
        if _in_order(term.out, size):
            how = None
        elif np.bincount(term.out, minlength=size).max(initial=0) <= 1:
            how = term.out
        else:
            ones = np.ones(term.out.size)
            where = (term.out, np.arange(term.out.size))
            how = sp.csr_array((ones, where), shape=(size, term.out.size))
        read = term.at[term.m]
        d = None if _in_order(term.d, term.d.size) else term.d  # all of it: checked where read
        out.append((how, None if _in_order(read, read.size) else read, d))
    return out


def _in_order(index: np.ndarray, size: int) -> bool:
    """Whether ``index`` is ``0 .. size - 1`` in order."""
    return index.size == size and bool((index == np.arange(size)).all())


def _add_summed(data: np.ndarray, products: np.ndarray, how) -> None:
    """``products`` (steps × entries) summed into their places of ``data``
    (steps × places), in place; ``how``: the term's :func:`_placing`."""
    if how is None:
        data += products
    elif isinstance(how, np.ndarray):
        data[:, how] += products
    else:
        data += np.asarray(how @ products.T).T
