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
many arrays (:data:`KEPT_VALUES`), or the loop is a ``while_loop`` (its trip count known
only by running), the sparse sweep runs.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..blocks.arrays import REGIONS, block_size, block_value, stacked_block_value
from ..blocks.permutation import as_structural

Region = Any  # dgraph.core.regions.Region (which imports this module)

__all__ = ["DENSE_ENTRIES", "KEPT_VALUES", "dense_sweep", "fits", "trajectory_run"]

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
            values = b.values(inputs)
            per_step.append(values)
            outs = b.results(values)
            carry = [np.asarray(o) for o in outs[: region.n_carry]]
            for j, y in enumerate(outs[region.n_carry :]):
                ys[j].append(np.asarray(y))
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
    g = b.graph
    valued = block_size if absolute else block_value
    data: dict[str, np.ndarray] = {}
    for i, term in enumerate(plan.terms):
        v = term.vertex
        if v not in data:
            data[v] = np.zeros((steps, plan.patterns[v][1].size))
        op = g.op(v)
        if i in nested:
            flat = nested[i][1 if absolute else 0]
        else:
            flat = stacked_block_value(op, term.k, stacked, term.block, steps, absolute)
        if flat is None:  # step by step, as the sparse sweep does
            rows = []
            for values in per_step:
                value = valued(op, term.k, values, term.block)
                rows.append(_entries(term.block, value))
            flat = np.stack(rows).reshape(steps, -1)
        entries = flat[:, term.at] if flat.shape[1] > 1 else flat[:, [0] * term.at.size]
        source = data.get(term.operand)
        products = entries[:, term.m] if source is None else entries[:, term.m] * source[:, term.d]
        data[v] += _summed(products, term.out, data[v].shape[1])
    jac = np.zeros((steps, sum(plan.out_sizes), b.n_in))
    at = 0
    for o, size in zip(plan.outputs, plan.out_sizes, strict=True):
        if o is not None:
            indptr, cols = plan.patterns[o]
            rows = at + np.repeat(np.arange(size), np.diff(indptr))
            jac[:, rows, cols] = data.get(o, 1.0)
        at += size
    return jac


def _entries(block, value) -> np.ndarray:
    """A block's value at one step as its structural entries, in floats."""
    return np.asarray(as_structural(block, value)[1], dtype=float)


def _summed(products: np.ndarray, out: np.ndarray, size: int) -> np.ndarray:
    """``products`` (steps × entries) summed into ``size`` places per step (``out``)."""
    if out.size == size and (out == np.arange(size)).all():
        return products
    import scipy.sparse

    ones = np.ones(out.size)
    gather = scipy.sparse.csr_array((ones, (out, np.arange(out.size))), shape=(size, out.size))
    return np.asarray(gather @ products.T).T


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
