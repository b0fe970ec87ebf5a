"""A scan's tangent sweep on dense arrays, its body Jacobians taken for all steps at once.

:meth:`Region._sweep <dgraph.core.regions.Region>` carries the tangents through the T
steps of a loop (``D ← J_t·D``: the chain product of the body Jacobians bracketed from
the right, Naumann's tangent mode on the chain; seed 002). Step by step with sparse
matrices it pays SciPy's overhead per step and per body input (about a millisecond a
step: 11 s for the four sweeps of a 2,000-step scan's Hessian check). Where the arrays
are small enough to be dense, this module makes the same sweep in three parts:

1. the trajectory, step by step (the body's values at each step: the carries make it
   sequential), its values stacked along a first axis of steps;
2. the body Jacobian at every step at once: the planned products of the body's blocks
   (:class:`~dgraph.core.regions._Plan`) on arrays whose first axis is the step, each
   block's values from :func:`~dgraph.blocks.arrays.stacked_block_value` (elementwise
   rules and blocks of ones, for all steps in one call) or, for the others, from
   :func:`~dgraph.blocks.arrays.block_value` step by step;
3. the recurrence ``D_{t+1} = A_t D_t + (the step's own columns)`` on dense arrays:
   per step one small matrix product and a slice added per body input, each output's
   rows written into one preallocated array of steps × rows × width.

The values are those of the sparse sweep up to rounding (the same products, summed in
another order); the patterns are not read here (:mod:`dgraph.core.regions` keeps
them). Where the dense arrays would be large (:data:`DENSE_ENTRIES`), or the steps' values
many arrays (:data:`KEPT_VALUES`), a scan takes :func:`sparse_sweep`: the same body
Jacobians, a chunk of steps at once (:data:`CHUNK_ENTRIES`), and the recurrence on
sparse tangents, one sparse product a step (step by step through ``Region._sweep`` it
was a product and a column slice per body input a step, and the body Jacobian's
products step by step: 8.7 of the chained Rosenbrock's 28 CPU-s at n = 1,000). A
``while_loop`` (its trip count known only by running) takes ``Region._sweep``.
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

sp = LazyModule("scipy.sparse")  # importing dgraph stays light

Region = Any  # dgraph.core.regions.Region (which imports this module)

__all__ = [
    "CHUNK_ENTRIES",
    "DENSE_ENTRIES",
    "KEPT_VALUES",
    "dense_sweep",
    "fits",
    "sparse_sweep",
    "trajectory_run",
]

DENSE_ENTRIES = 50_000_000  # steps × rows × width (and steps × body Jacobian) held dense
KEPT_VALUES = 2_000_000  # steps × body vertices: the arrays of every step's values kept


def fits(region: Region, args: list[np.ndarray]) -> bool:
    """Whether the dense sweep applies: a scan of at least one step whose arrays, dense,
    hold at most :data:`DENSE_ENTRIES` entries."""
    b = region.body
    steps = region.length or 0
    if region.kind != "scan" or steps == 0:
        return False
    width = region._columns(args)[-1]
    held = sum(math.prod(b.graph.shape(v)) for v in b.graph.nx)
    if steps * len(b.graph) > KEPT_VALUES:  # each step's values are kept, one array each
        return False
    return steps * max(b.n_out * b.n_in, b.n_out * width, held, 1) <= DENSE_ENTRIES


def _step(region: Region, inputs, ys: list[list[np.ndarray]]) -> tuple[dict, list[np.ndarray]]:
    """One step of the body at ``inputs``: its values and the carries it returns; the
    step's ys appended to ``ys``."""
    values = region.body.values(inputs)
    outs = region.body.results(values)
    for j, y in enumerate(outs[region.n_carry :]):
        ys[j].append(np.asarray(y))
    return values, [np.asarray(o) for o in outs[: region.n_carry]]


def trajectory_run(region: Region, args: list[np.ndarray]) -> dict:
    """The run of :meth:`Region._sweep` without tangents (outputs and trips), keeping
    the body's values at every step for a later :func:`dense_sweep` at the same
    operands (the value check evaluates the program, then asks for the blocks)."""
    outputs, stacked, per_step = _trajectory(region, args)
    return {"outputs": outputs, "trips": region.length, "steps": (stacked, per_step)}


def dense_sweep(
    region: Region, args: list[np.ndarray], run: dict | None = None, absolute: bool = False
) -> dict | None:
    """The run of :meth:`Region._sweep` with tangents (outputs, trips and the Jacobian
    per (output, operand)), or None where the dense sweep does not apply (module
    docstring); ``run``: a :func:`trajectory_run` at these operands, whose values it
    reads instead of stepping again; with ``absolute`` also the rounding scale of the
    Jacobian (``"magnitudes"``: :meth:`~dgraph.core.regions.Region.block_magnitude`)."""
    b = region.body
    if not fits(region, args):
        return None
    plan = b.plan()
    if not plan:
        return None
    steps = region.length
    columns = region._columns(args)
    if run is not None and "steps" in run:
        outputs, (stacked, per_step) = run["outputs"], run["steps"]
    else:
        outputs, stacked, per_step = _trajectory(region, args)
    nested = _nested_values(b, plan, per_step, steps, absolute)
    sized = _jacobians(b, plan, stacked, per_step, steps, nested, True) if absolute else None
    jac = _jacobians(b, plan, stacked, per_step, steps, nested)  # after: as Region._sweep
    run = {"outputs": outputs, "trips": steps}
    if sized is None:
        d_carry, dys = _recurrence(region, jac, columns, columns[-1], steps)
        run["jacobian"] = _assemble(region, d_carry, dys, columns)
        return run
    excess = np.maximum(sized - np.abs(jac), 0.0)
    d_carry, dys, f_carry, fys = _recurrence(region, jac, columns, columns[-1], steps, excess)
    run["jacobian"] = _assemble(region, d_carry, dys, columns)
    found = _assemble(region, f_carry, fys, columns)
    run["magnitudes"] = {key: np.abs(m) + np.abs(found[key]) for key, m in run["jacobian"].items()}
    return run


def _trajectory(region: Region, args: list[np.ndarray]):
    """The loop's outputs, every body vertex's values stacked over the steps, and the
    per-step values (dicts, for blocks taken step by step)."""
    b = region.body
    first = region.n_cond_consts
    carry = [
        np.asarray(c)
        for c in args[first + region.n_consts : first + region.n_consts + region.n_carry]
    ]
    ys: list[list[np.ndarray]] = [[] for _ in range(region.n_ys)]
    per_step: list[dict[str, np.ndarray]] = []
    gen = region._steps(args)
    try:
        _, inputs = next(gen)
        while True:
            values, carry = _step(region, inputs, ys)
            per_step.append(values)
            _, inputs = gen.send(carry)
    except StopIteration:
        pass
    outputs = region.outputs_of(carry, ys)
    names = [*b.inputs, *(v for v in b.order if b.graph.op(v) is not None)]
    stacked = {}
    for v in dict.fromkeys(names):
        stacked[v] = np.stack([np.asarray(s[v], dtype=float) for s in per_step])
    return outputs, stacked, per_step


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


def _jacobians(
    b, plan, stacked, per_step, steps: int, nested: dict[int, tuple], absolute: bool = False
) -> np.ndarray:
    """The body Jacobian at every step, dense: (steps, float outputs, float inputs); with
    ``absolute``, of its blocks' magnitudes (``nested``: :func:`_nested_values`)."""
    indptr, cols = _output_pattern(plan)
    entries = _output_entries(b, plan, stacked, per_step, steps, nested, absolute)
    jac = np.zeros((steps, indptr.size - 1, b.n_in))
    jac[:, np.repeat(np.arange(indptr.size - 1), np.diff(indptr)), cols] = entries
    return jac


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
    g = b.graph
    placing = placing or _placing(plan)
    valued = block_size if absolute else block_value
    data: dict[str, np.ndarray] = {}
    for i, term in enumerate(plan.terms):
        v = term.vertex
        if v not in data:
            data[v] = np.zeros((steps, plan.patterns[v][1].size))
        op = g.op(v)
        if i in nested:
            flat = nested[i][1 if absolute else 0]
        elif op.primitive in SCATTERS and term.block.kind == ONES:  # a gather's ones
            flat = np.ones((steps, 1))
        else:
            flat = stacked_block_value(op, term.k, stacked, term.block, steps, absolute)
        if flat is None:  # step by step, as the sparse sweep does
            rows = []
            for values in per_step:
                value = valued(op, term.k, values, term.block)
                rows.append(_entries(term.block, value))
            flat = np.stack(rows).reshape(steps, -1)
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


def _recurrence(
    region: Region, jac: np.ndarray, columns, width: int, steps: int, excess=None
) -> tuple:
    """The carries' tangents after the last step and each ys output's rows per step
    (in the order of the stacked ys), dense; with ``excess`` (the body Jacobians'
    magnitudes less their absolute values) also those of ``F ← J_t·F + E_t·|D|`` from
    zero (:meth:`~dgraph.core.regions.Region.block_magnitude`)."""
    b = region.body
    carries = range(region.n_consts, region.n_consts + region.n_carry)
    d_carry: list[np.ndarray] = []
    for c in carries:
        size = math.prod(b.shapes[c])
        lo, hi = region._operand_columns(region.n_cond_consts + c, columns)
        seed = np.zeros((size, width))
        if hi > lo:
            seed[:, lo:hi] = np.eye(size)
        d_carry.append(seed)
    product_cols = [
        np.arange(b.in_offsets[c], b.in_offsets[c] + math.prod(b.shapes[c]))
        for c in carries
        if b.floats[c]
    ]
    product_cols = np.concatenate(product_cols) if product_cols else np.zeros(0, np.int64)
    placed = []  # (input columns of J, seed column) of the constants and slices
    for i in range(len(b.inputs)):
        if not b.floats[i] or i in carries:
            continue
        size, at = math.prod(b.shapes[i]), b.in_offsets[i]
        lo, hi = region._operand_columns(region.n_cond_consts + i, columns)
        if hi > lo:
            placed.append((at, size, lo, i >= region.n_consts))
    ys = [
        (b.out_offsets[o], math.prod(b.out_shapes[o]))
        for o in range(region.n_carry, len(b.outputs))
    ]
    dys = [None if at is None else np.zeros((steps, size, width)) for at, size in ys]
    j_carry = jac[:, :, product_cols]
    n_out = jac.shape[1]
    floats = [b.floats[c] for c in carries]

    def applied(j_t, placed_t, d_carry, s: int) -> np.ndarray:
        """``J_t·D`` at step t (``placed_t``: J_t's columns of the constants and slices,
        None: their tangents zero)."""
        d_in = [d for f, d in zip(floats, d_carry, strict=True) if f]
        out = j_t @ np.vstack(d_in) if d_in else np.zeros((n_out, width))
        if placed_t is not None:
            for at, size, lo, per_step in placed:
                lo += s * size if per_step else 0
                out[:, lo : lo + size] += placed_t[:, at : at + size]
        return out

    def split(out: np.ndarray, into: list, s: int) -> list[np.ndarray]:
        for y, (at, size) in zip(into, ys, strict=True):
            if y is not None:
                y[s] = out[at : at + size]
        return [
            np.zeros((math.prod(shape), width)) if at is None else out[at : at + math.prod(shape)]
            for shape, at in zip(b.out_shapes[: region.n_carry], b.out_offsets, strict=False)
        ]

    if excess is not None:
        e_carry = excess[:, :, product_cols]
        f_carry = [np.zeros_like(d) for d in d_carry]
        fys = [None if y is None else np.zeros_like(y) for y in dys]
    for t in range(steps):
        s = steps - 1 - t if region.reverse else t
        out = applied(j_carry[t], jac[t], d_carry, s)
        if excess is not None:
            f = applied(j_carry[t], None, f_carry, s)
            f += applied(e_carry[t], excess[t], [np.abs(d) for d in d_carry], s)
            f_carry = split(f, fys, s)
        d_carry = split(out, dys, s)
    if excess is not None:
        return d_carry, dys, f_carry, fys
    return d_carry, dys


def _assemble(region: Region, d_carry, dys, columns) -> dict[tuple[int, int], Any]:
    """Per (output, operand): the derivative, dense (as :meth:`Region._assemble`)."""
    out: dict[tuple[int, int], Any] = {}
    for j, shape in enumerate(region.out_shapes):
        if j < region.n_carry:
            rows = d_carry[j]
        else:
            y = dys[j - region.n_carry]
            size = math.prod(shape)
            rows = np.zeros((size, columns[-1])) if y is None else y.reshape(size, -1)
        for k in range(len(region.operand_shapes)):
            lo, hi = region._operand_columns(k, columns)
            if hi > lo:
                out[(j, k)] = rows[:, lo:hi]
    return out


CHUNK_ENTRIES = 2_000_000
"""The most entries (steps × the body's values and Jacobian entries) :func:`sparse_sweep`
holds for the steps it takes at once."""


def sparse_sweep(region: Region, args: list[np.ndarray], absolute: bool = False) -> dict | None:
    """The run of :meth:`Region._sweep` with tangents, where the dense arrays would be
    too large (:func:`fits`): the same recurrence ``D ← J_t·D`` on sparse tangents, the
    body Jacobians taken for a chunk of steps at once (:data:`CHUNK_ENTRIES`) as the dense
    sweep takes them (the planned products on arrays with a first axis of steps), each
    step then one sparse product of its carries' columns and the slices' and constants'
    entries placed. None where it does not apply (a ``while_loop``, a body without a
    plan)."""
    b = region.body
    steps = region.length or 0
    plan = b.plan() if region.kind == "scan" and steps else None
    if not plan:
        return None
    layout = _Layout(region, plan, region._columns(args))
    names = [*b.inputs, *(v for v in b.order if b.graph.op(v) is not None)]
    names = list(dict.fromkeys(names))
    entries = sum(math.prod(b.graph.shape(v)) for v in names)
    entries += sum(p[1].size for p in plan.patterns.values()) * (2 if absolute else 1)
    chunk = max(1, min(steps, CHUNK_ENTRIES // max(entries, 1)))
    sweep = _SparseRecurrence(layout, absolute)
    placing = _placing(plan)
    first = region.n_cond_consts
    carry = [
        np.asarray(c)
        for c in args[first + region.n_consts : first + region.n_consts + region.n_carry]
    ]
    ys: list[list[np.ndarray]] = [[] for _ in range(region.n_ys)]
    gen = region._steps(args)
    _, inputs = next(gen)
    done = 0
    while done < steps:
        per_step = []
        while len(per_step) < chunk and done + len(per_step) < steps:
            values, carry = _step(region, inputs, ys)
            per_step.append(values)
            _, inputs = _next(gen, carry)
        size = len(per_step)
        stacked = {v: np.stack([np.asarray(s[v], dtype=float) for s in per_step]) for v in names}
        nested = _nested_values(b, plan, per_step, size, absolute)
        sized = None
        if absolute:  # first, as the sparse sweep (a nested loop sweeps both at once)
            sized = _output_entries(b, plan, stacked, per_step, size, nested, True, placing)
        jac = _output_entries(b, plan, stacked, per_step, size, nested, False, placing)
        for t in range(size):
            s = steps - 1 - (done + t) if region.reverse else done + t
            excess = None if sized is None else np.maximum(sized[t] - np.abs(jac[t]), 0.0)
            sweep.step(jac[t], excess, s)
        done += size
    run = {"outputs": region.outputs_of(carry, ys), "trips": steps}
    run.update(sweep.found())
    return run


def _next(gen, carry: list[np.ndarray]):
    """The next step's inputs from :meth:`Region._steps` (None after the last)."""
    try:
        return gen.send(carry)
    except StopIteration:
        return None, None


class _Layout:
    """Where a scan's body Jacobian entries go in its tangent sweep: the fixed pattern
    (:func:`_output_pattern`) split into the carries' columns (a product with the
    carried tangents) and the constants' and slices' (placed at their seed columns,
    a slice's moved by the step's offset), and each body output's rows."""

    def __init__(self, region: Region, plan, columns: list[int]) -> None:
        b = region.body
        self.region, self.columns, self.width = region, columns, columns[-1]
        indptr, cols = _output_pattern(plan)
        self.rows = indptr.size - 1
        row_of = np.repeat(np.arange(self.rows), np.diff(indptr))
        carries = range(region.n_consts, region.n_consts + region.n_carry)
        stack = np.full(b.n_in, -1, dtype=np.int64)  # input column -> carried tangent row
        base = np.full(b.n_in, -1, dtype=np.int64)  # input column -> its seed column
        shift = np.zeros(b.n_in, dtype=np.int64)  # per step, for a slice's columns
        at_stack = 0
        for i in range(len(b.inputs)):
            if not b.floats[i]:
                continue
            size, at = math.prod(b.shapes[i]), b.in_offsets[i]
            if i in carries:
                stack[at : at + size] = at_stack + np.arange(size)
                at_stack += size
                continue
            lo, hi = region._operand_columns(region.n_cond_consts + i, columns)
            if hi > lo:
                base[at : at + size] = lo + np.arange(size)
                shift[at : at + size] = size if i >= region.n_consts else 0
        self.n_stack = at_stack
        self.carried = stack[cols] >= 0  # the entries in a carry's columns
        self.carry_indptr = _row_pointer(row_of[self.carried], self.rows)
        self.carry_cols = stack[cols][self.carried]
        self.placed = base[cols] >= 0  # the entries in a constant's or a slice's
        self.placed_indptr = _row_pointer(row_of[self.placed], self.rows)
        self.placed_base, self.placed_shift = base[cols][self.placed], shift[cols][self.placed]
        # per carry: its output rows (None: zero) and whether its input is float
        self.carry_rows = [
            None if b.out_offsets[c] is None else (b.out_offsets[c], math.prod(b.out_shapes[c]))
            for c in range(region.n_carry)
        ]
        self.carry_floats = [b.floats[c] for c in carries]
        self.carry_sizes = [math.prod(b.shapes[c]) for c in carries]
        self.ys = [
            None if b.out_offsets[o] is None else (b.out_offsets[o], math.prod(b.out_shapes[o]))
            for o in range(region.n_carry, len(b.outputs))
        ]
        self.carry_total = sum(size for _, size in filter(None, self.carry_rows))
        starts = np.cumsum([0, *self.carry_sizes])[:-1].tolist()
        self.in_place = all(  # every carry float both ways, its output rows its own
            f and rows is not None and rows[0] == at
            for f, rows, at in zip(self.carry_floats, self.carry_rows, starts, strict=True)
        )

    def carry_part(self, data: np.ndarray) -> sp.csr_array:
        """A step's entries (``data``) in the carries' columns: rows × carried rows."""
        m = (data[self.carried], self.carry_cols, self.carry_indptr)
        return sp.csr_array(m, shape=(self.rows, self.n_stack))

    def placed_part(self, data: np.ndarray, s: int) -> sp.csr_array:
        """Step s's entries in the constants' and slices' columns, at their seeds'."""
        cols = self.placed_base + s * self.placed_shift
        m = (data[self.placed], cols, self.placed_indptr)
        return sp.csr_array(m, shape=(self.rows, self.width))


def _row_pointer(rows_of_entries: np.ndarray, rows: int) -> np.ndarray:
    """The CSR row pointer of entries in row order, each entry's row given."""
    counts = np.bincount(rows_of_entries, minlength=rows)
    return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)


class _SparseRecurrence:
    """:func:`sparse_sweep`'s recurrence, step by step: the carried tangents ``D`` (the
    float carries' rows stacked), each step's ys rows, and with ``absolute`` the rounding
    scale's ``F ← J_t·F + E_t·|D|`` (:meth:`Region._sweep`)."""

    def __init__(self, layout: _Layout, absolute: bool) -> None:
        self.layout = layout
        r = layout.region
        seeds = r._seed_carries(layout.columns, layout.width)
        floats = layout.carry_floats
        self.d = _vstack([d for d, f in zip(seeds, floats, strict=True) if f], layout.width)
        self.f = sp.csr_array(self.d.shape) if absolute else None
        self.last: tuple = (None, None)  # the last step's rows: of D, of F
        self.dys: list[sp.csr_array] = []
        self.fys: list[sp.csr_array] = []

    def step(self, jac: np.ndarray, excess: np.ndarray | None, s: int) -> None:
        """Step s (its place in the stacked xs): ``jac`` and ``excess`` its body
        Jacobian's entries and their excess magnitudes (:func:`_output_pattern`)."""
        lay = self.layout
        j_c = lay.carry_part(jac)
        d_out = j_c @ self.d + lay.placed_part(jac, s)
        f_out = None
        ys = lay.rows - lay.carry_total
        if excess is not None:
            f_out = j_c @ self.f
            if excess.any():  # where the step's sums or its rules' terms cancel
                f_out = f_out + lay.carry_part(excess) @ abs(self.d)
                f_out = f_out + lay.placed_part(excess, s)
            self.f = self._carried(f_out)
            if ys:
                self.fys.append(_rows(f_out, lay.carry_total, ys))
        self.d = self._carried(d_out)
        if ys:
            self.dys.append(_rows(d_out, lay.carry_total, ys))
        self.last = (d_out, f_out)

    def _carried(self, out: sp.csr_array) -> sp.csr_array:
        """The float carries' rows of a step's tangents, stacked (zero where a carry's
        output is no vertex)."""
        lay = self.layout
        if lay.in_place:  # the carries' output rows, in order, are the carried ones
            return out if lay.rows == lay.carry_total else _rows(out, 0, lay.carry_total)
        parts = [
            _rows(out, *rows) if rows is not None else sp.csr_array((size, lay.width))
            for rows, floats, size in zip(
                lay.carry_rows, lay.carry_floats, lay.carry_sizes, strict=True
            )
            if floats
        ]
        return _vstack(parts, lay.width)

    def found(self) -> dict:
        """The run's ``"jacobian"`` (and ``"magnitudes"``), per (output, operand)."""
        out = {"jacobian": self._assemble(self.last[0], self.dys)}
        if self.f is not None:
            extra = self._assemble(self.last[1], self.fys)
            out["magnitudes"] = {
                key: abs(m) + abs(extra[key]) for key, m in out["jacobian"].items()
            }
        return out

    def _assemble(self, last: sp.csr_array, ys_rows: list) -> dict:
        """Per (output, operand): the carries' rows of the last step, the ys' rows of
        every step stacked in the order of the stacked ys."""
        lay = self.layout
        r = lay.region
        stacked = _vstack(ys_rows[::-1] if r.reverse else ys_rows, lay.width)
        per_step = lay.rows - lay.carry_total
        out: dict = {}
        for j in range(len(r.out_shapes)):
            found = lay.carry_rows[j] if j < r.n_carry else lay.ys[j - r.n_carry]
            size = math.prod(r.body.out_shapes[j])
            if found is None:
                rows = sp.csr_array((math.prod(r.out_shapes[j]), lay.width))
            elif j < r.n_carry:
                rows = _rows(last, *found)
            else:
                at = found[0] - lay.carry_total
                steps = np.arange(r.length, dtype=np.int64)[:, None] * per_step
                rows = sp.csr_array(stacked[(steps + at + np.arange(size)).ravel()])
            for k in range(len(r.operand_shapes)):
                lo, hi = r._operand_columns(k, lay.columns)
                if hi > lo:
                    out[(j, k)] = rows[:, lo:hi]
        return out


def _rows(m: sp.csr_array, at: int, size: int) -> sp.csr_array:
    """Rows ``at .. at + size - 1`` of a CSR matrix."""
    start, stop = m.indptr[at], m.indptr[at + size]
    indptr = m.indptr[at : at + size + 1] - start
    found = (m.data[start:stop], m.indices[start:stop], indptr)
    return sp.csr_array(found, shape=(size, m.shape[1]))


def _vstack(parts: list, width: int) -> sp.csr_array:
    """CSR matrices stacked (one: itself)."""
    if len(parts) == 1:
        return parts[0]
    if not parts:
        return sp.csr_array((0, width))
    return sp.csr_array(sp.vstack(parts, format="csr"))
