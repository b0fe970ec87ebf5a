"""A loop region's tangent recurrence, written once: ``D ← J_t·D`` through the steps.

The blocks of a loop (:class:`~dgraph.core.regions.Region`) at a point are the chain
product of its body Jacobians ``J_t`` bracketed from the right (Naumann's tangent mode on
the chain, seed 002): ``D`` holds the tangents of the float carries (their rows stacked)
over the seed columns of the loop's active operands, and each step

* takes ``J_t``'s entries in the carries' columns times ``D`` (one product), and its
  entries in a constant's or a slice's columns placed at their seed columns (a slice's
  moved by the step: no product);
* keeps the carries' output rows as the next ``D`` and each ys output's rows of the step;
* with the rounding scale asked (:meth:`~dgraph.core.regions.Region.block_magnitude`),
  also sweeps ``F ← J_t·F + E_t·|D|`` from zero, ``E_t`` the body Jacobian's magnitudes
  less its absolute values (where its sums or its rules' terms cancel): the scale is
  ``|D| + |F|``;
* for a pattern (:meth:`~dgraph.core.regions.Region.step_sweep`), keeps ones where the
  product is nonzero (the sums of ones never cancel).

The tangents are held in one of three storages, the same steps on each: :data:`DENSE`
(NumPy arrays), :data:`SPARSE` (CSR matrices) or :data:`ROWS` (sparse rows one by one,
for a step that writes few of them: :mod:`dgraph.core.step_entries` gives its body
Jacobian in those rows alone, each written row the sum of the rows it reads, the others
left as they are); the ys rows dense only with dense tangents
(:func:`~dgraph.core.region_sweep.tangent_sweep` chooses). Dense tangents whose
carried rows are their own are written in place, a step touching only the rows it
changes: a carried row whose body Jacobian row is its own entry 1 alone (a sum carried
along a scan, an array written elsewhere) takes the step's placed entries and no
product. A step's ``J_t`` comes as its entries on a CSR pattern (:class:`Split`: made
once where the body's pattern is planned, else per step).
"""

from __future__ import annotations

import math
from functools import cached_property
from typing import Any

import numpy as np

from .body_patterns import bool_pattern
from .lazy import LazyModule

sp = LazyModule("scipy.sparse")  # importing dgraph stays light

Region = Any  # dgraph.core.regions.Region (which imports this module)

__all__ = [
    "DENSE",
    "ROWS",
    "SPARSE",
    "Split",
    "StepLayout",
    "TangentRecurrence",
    "assemble_blocks",
]

DENSE = "dense"
SPARSE = "sparse"
ROWS = "rows"  # sparse rows held one by one: a step writes only the rows it changes


class StepLayout:
    """Where each body input column's tangent comes from: a carried tangent row (the
    float carries' rows stacked), or a constant's or a slice's seed column (a slice's
    moved by its size each step); and where each body output's rows go."""

    def __init__(self, region: Region, columns: list[int]) -> None:
        b = region.body
        self.region, self.columns, self.width = region, columns, columns[-1]
        carries = range(region.n_consts, region.n_consts + region.n_carry)
        self.stack = np.full(b.n_in, -1, dtype=np.int64)  # input column -> carried row
        self.base = np.full(b.n_in, -1, dtype=np.int64)  # input column -> its seed column
        self.shift = np.zeros(b.n_in, dtype=np.int64)  # per step, for a slice's columns
        at_stack = 0
        for i in range(len(b.inputs)):
            if not b.floats[i]:
                continue
            size, at = math.prod(b.shapes[i]), b.in_offsets[i]
            if i in carries:
                self.stack[at : at + size] = at_stack + np.arange(size)
                at_stack += size
                continue
            lo, hi = region._operand_columns(region.n_cond_consts + i, columns)
            if hi > lo:
                self.base[at : at + size] = lo + np.arange(size)
                self.shift[at : at + size] = size if i >= region.n_consts else 0
        self.n_stack = at_stack
        self.rows = b.n_out
        # per carry: its output rows (None: zero), whether its input is float, its size
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
        self.per_step = self.rows - self.carry_total  # the ys rows of a step
        self.in_place = self._own_rows()

    @cached_property
    def seeds(self) -> list:
        """Each carry's seed rows over the width (CSR; made once, read by every sweep
        on this layout, never written)."""
        return self.region._seed_carries(self.columns, self.width)

    def _own_rows(self) -> bool:
        """Whether the carries' output rows, in order, are the carried ones: each float
        carry's output rows its own, a carry not float (a counter) no output rows."""
        at = 0
        for floats, rows, size in zip(
            self.carry_floats, self.carry_rows, self.carry_sizes, strict=True
        ):
            if floats != (rows is not None) or (floats and rows[0] != at):
                return False
            at += size if floats else 0
        return True

    def split(self, indptr: np.ndarray, cols: np.ndarray) -> Split:
        """A body Jacobian pattern (CSR over the body's float outputs and inputs) split
        into its carries' columns and its constants' and slices'."""
        return Split(self, np.asarray(indptr, dtype=np.int64), np.asarray(cols, dtype=np.int64))


SPARSE_FILL = 10  # a step's carries' part below 1/10 filled is multiplied as CSR in place


class Split:
    """A body Jacobian pattern's entries in the carries' columns (a product with ``D``)
    and in the constants' and slices' (placed at their seed columns)."""

    def __init__(self, layout: StepLayout, indptr: np.ndarray, cols: np.ndarray) -> None:
        self.layout = layout
        rows = layout.rows
        row_of = np.repeat(np.arange(rows), np.diff(indptr))
        stack, base = layout.stack[cols], layout.base[cols]
        # per entry: its row, its carried row (-1 none), its seed column (-1 none)
        self.row_of, self.stack_of, self.base_of = row_of, stack, base
        self.shift_of = layout.shift[cols]
        self.carried = stack >= 0
        self.carry_rows = row_of[self.carried]
        self.carry_indptr = _row_pointer(self.carry_rows, rows)
        self.carry_cols = stack[self.carried]
        self.placed = base >= 0
        self.placed_rows = row_of[self.placed]
        self.placed_indptr = _row_pointer(self.placed_rows, rows)
        self.placed_base = base[self.placed]
        self.placed_shift = layout.shift[cols][self.placed]
        # where the carries' rows are their own (StepLayout.in_place): a carried row whose
        # one entry in the carries' columns is its own (kept where that entry is 1), the
        # ys rows with entries there (their products), the placed entries in carried rows
        counts = np.bincount(self.carry_rows, minlength=rows)[: layout.carry_total]
        first = self.carry_indptr[: layout.carry_total]
        own = counts == 1
        own[own] = self.carry_cols[first[own]] == np.flatnonzero(own)
        self.own_rows = np.flatnonzero(own)
        self.own_entries = np.flatnonzero(self.carried)[first[own]]
        self.ys_products = layout.carry_total + np.flatnonzero(
            np.diff(self.carry_indptr)[layout.carry_total :]
        )
        # the carries' part multiplied as CSR where it fills little of its dense shape (an
        # elementwise body: n of n² entries), else dense (BLAS)
        self.sparse_carry = self.carry_rows.size * SPARSE_FILL < rows * layout.n_stack

    # made once a pattern, where the in-place step (_step_in_place) first reads them (a
    # body not planned has a pattern a step): the dense carries' part's flat places, the
    # carried rows' placed entries (flat places, moved by a slice's each step) and the
    # ys rows' (row, seed column, shift, entry)
    @cached_property
    def carried_at(self) -> np.ndarray:
        return np.flatnonzero(self.carried)

    @cached_property
    def carry_flat(self) -> np.ndarray:
        return self.carry_rows * self.layout.n_stack + self.carry_cols

    @cached_property
    def every(self) -> np.ndarray:
        return np.arange(self.layout.carry_total)

    @cached_property
    def _placed_carried(self) -> np.ndarray:
        return self.placed_rows < self.layout.carry_total

    @cached_property
    def placed_flat(self) -> tuple:
        carried, at = self._placed_carried, np.flatnonzero(self.placed)
        shift = self.placed_shift[carried]
        flat = self.placed_rows[carried] * self.layout.width + self.placed_base[carried]
        return flat, shift if shift.any() else None, at[carried]

    @cached_property
    def placed_ys(self) -> tuple:
        ys, at = ~self._placed_carried, np.flatnonzero(self.placed)
        return self.placed_rows[ys], self.placed_base[ys], self.placed_shift[ys], at[ys]

    def carry_part(self, data: np.ndarray, dense: bool):
        """A step's entries (``data``) in the carries' columns: rows × carried rows."""
        shape = (self.layout.rows, self.layout.n_stack)
        if dense:
            out = np.zeros(shape[0] * shape[1])
            out[self.carry_flat] = data[self.carried_at]
            return out.reshape(shape)
        return sp.csr_array((data[self.carried], self.carry_cols, self.carry_indptr), shape=shape)

    def kept(self, jac: np.ndarray, excess: np.ndarray | None) -> np.ndarray:
        """The carried rows a step leaves as they are (but for its placed entries): their
        body Jacobian row in the carries' columns their own entry 1 alone, its excess
        magnitude zero (boolean over the carried rows)."""
        ok = jac[self.own_entries] == 1.0
        if excess is not None:
            ok &= excess[self.own_entries] == 0.0
        out = np.zeros(self.layout.carry_total, dtype=bool)
        out[self.own_rows[ok]] = True
        return out

    def redo(self, jac: np.ndarray, excess: np.ndarray | None) -> np.ndarray:
        """The carried rows a step writes as products (not :meth:`kept`), in order."""
        if not self.own_rows.size:  # none its own: every one
            return self.every
        kept = self.kept(jac, excess)
        return np.flatnonzero(~kept) if kept.any() else self.every

    def place(self, d: np.ndarray, data: np.ndarray, s: int) -> None:
        """Step s's placed entries of the carried rows added to them (``d``: the carried
        rows, dense), in place."""
        flat, shift, at = self.placed_flat
        if not at.size:
            return
        if shift is not None:
            flat = flat + s * shift
        if d.flags.c_contiguous:
            d.reshape(-1)[flat] += data[at]  # each place once
        else:
            d[np.divmod(flat, self.layout.width)] += data[at]

    def placed_at(self, data: np.ndarray, s: int) -> tuple:
        """Step s's placed entries in the ys rows: (row, seed column, value)."""
        rows, base, shift, at = self.placed_ys
        return rows, base + s * shift, data[at]

    def plus_placed(self, out, data: np.ndarray, s: int):
        """``out`` plus step s's entries in the constants' and slices' columns, at their
        seeds' (a dense ``out`` in place)."""
        cols = self.placed_base + s * self.placed_shift
        if isinstance(out, np.ndarray):
            out[self.placed_rows, cols] += data[self.placed]  # each place once
            return out
        shape = (self.layout.rows, self.layout.width)
        return out + sp.csr_array((data[self.placed], cols, self.placed_indptr), shape=shape)


def _row_pointer(rows_of_entries: np.ndarray, rows: int) -> np.ndarray:
    """The CSR row pointer of entries in row order, each entry's row given."""
    counts = np.bincount(rows_of_entries, minlength=rows)
    return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)


class TangentRecurrence:
    """The recurrence through a loop's steps (module docstring): the carried tangents
    ``D`` (and with ``absolute`` the rounding scale's ``F``) and the last step's (each
    carry's rows after the loop) in ``storage``, each step's ys rows in ``ys_storage``
    (the same unless given: dense ys need dense tangents); with ``pattern``, ones where
    a product is nonzero (sparse storage only)."""

    def __init__(
        self,
        layout: StepLayout,
        storage: str,
        absolute: bool = False,
        steps: int = 0,
        pattern: bool = False,
        ys_storage: str | None = None,
    ) -> None:
        self.layout, self.dense, self.pattern = layout, storage == DENSE, pattern
        self.by_rows = storage == ROWS
        self.dense_ys = (ys_storage or storage) == DENSE and self.dense
        width = layout.width
        self.seeds = [s.toarray() if self.dense else s for s in layout.seeds]
        floats = [s for s, f in zip(self.seeds, layout.carry_floats, strict=True) if f]
        self.d = self._vstack(floats)
        if self.dense:  # its own (a step may write it in place)
            self.d = self.d.copy()
        self.f = self._zeros(self.d.shape[0]) if absolute else None
        if self.by_rows:
            self.d = _Rows(self.d)
            self.f = None if self.f is None else _Rows(self.f)
        self.last: list = [None, None]  # the last step's tangents: of D, of F
        if self.dense_ys:
            self.dys = np.zeros((steps, layout.per_step, width))
            self.fys = np.zeros_like(self.dys) if absolute else None
        else:
            self.dys, self.fys = [None] * steps, [None] * steps

    def _zeros(self, rows: int):
        shape = (rows, self.layout.width)
        return np.zeros(shape) if self.dense else sp.csr_array(shape)

    def _vstack(self, parts: list):
        """Tangent rows stacked (one part: itself)."""
        if len(parts) == 1:
            return parts[0]
        if not parts:
            return self._zeros(0)
        return np.vstack(parts) if self.dense else _vstack(parts, self.layout.width)

    def step(
        self,
        split: Split,
        jac: np.ndarray,
        excess: np.ndarray | None,
        s: int,
        rows: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> None:
        """Step s (its place in the stacked xs): ``jac`` and ``excess`` its body
        Jacobian's entries and their excess magnitudes on ``split``'s pattern; with
        ``rows`` (:data:`ROWS` storage: the rows the step writes, sorted, and their
        entries on the pattern) at those entries alone, every other row its own entry
        1 alone."""
        if self.by_rows:
            self._step_rows(split, rows, jac, excess, s)
            return
        if self.dense and self.layout.in_place and not self.pattern:
            self._step_in_place(split, jac, excess, s)
            return
        j_c = split.carry_part(jac, self.dense)
        d_out = split.plus_placed(j_c @ self.d, jac, s)
        if self.pattern:
            d_out = bool_pattern(d_out)
        if excess is not None:
            f_out = j_c @ self.f
            if excess.any():  # where the step's sums or its rules' terms cancel
                f_out = f_out + split.carry_part(excess, self.dense) @ abs(self.d)
                f_out = split.plus_placed(f_out, excess, s)
            self.f = self._carried(f_out)
            self._keep(self.fys, f_out, s)
            self.last[1] = f_out
        self.d = self._carried(d_out)
        self._keep(self.dys, d_out, s)
        self.last[0] = d_out

    def _step_in_place(
        self, split: Split, jac: np.ndarray, excess: np.ndarray | None, s: int
    ) -> None:
        """:meth:`step` on dense tangents whose carried rows are their own
        (:attr:`StepLayout.in_place`), touching only the rows the step changes: a kept row
        (:meth:`Split.kept`: a sum carried along, an array written elsewhere) takes the
        step's placed entries alone; the other carried rows, and the ys rows with
        entries in the carries' columns, are products."""
        j_c = split.carry_part(jac, not split.sparse_carry)
        redo = split.redo(jac, excess)
        ys = split.ys_products
        rows = _taken_rows(j_c, redo, ys)
        d_new, dy = _by_rows(rows, redo, ys, self.d)
        if excess is not None:
            f_new, fy = _by_rows(rows, redo, ys, self.f)
            if redo.size or ys.size:  # |D| read by those rows alone
                e_c = split.carry_part(excess, not split.sparse_carry)
                e_new, ey = _by_rows(_taken_rows(e_c, redo, ys), redo, ys, abs(self.d))
                f_new, fy = f_new + e_new, fy + ey
            self.f = _written(self.f, redo, f_new)
            split.place(self.f, excess, s)
            self._keep_rows(self.fys, s, ys, fy, split, excess)
        self.d = _written(self.d, redo, d_new)
        split.place(self.d, jac, s)
        self._keep_rows(self.dys, s, ys, dy, split, jac)
        self.last = [self.d, self.f]

    def _step_rows(
        self, split: Split, rows: tuple, jac: np.ndarray, excess: np.ndarray | None, s: int
    ) -> None:
        """:meth:`step` on :data:`ROWS` storage: each written row the sum of the carried
        rows its entries read, times them, and its placed entries; a carried row not
        written is left as it is (its own entry 1 alone)."""
        written, entries = rows
        row_of, stack = split.row_of[entries], split.stack_of[entries]
        base = split.base_of[entries]
        carried, placed = stack >= 0, base >= 0
        r, k = row_of[carried], stack[carried]
        at = (row_of[placed], base[placed] + s * split.shift_of[entries][placed])
        width = self.layout.width
        parts = [(r, k, jac[carried], self.d, False)]
        d_new = _row_products(written, width, parts, (*at, jac[placed]))
        if excess is not None:
            e = excess[carried]
            some = e != 0.0  # where the step's sums or its rules' terms cancel
            parts = [(r, k, jac[carried], self.f, False), (r[some], k[some], e[some], self.d, True)]
            f_new = _row_products(written, width, parts, (*at, excess[placed]))
            self._write_rows(self.f, self.fys, s, written, f_new)
        self._write_rows(self.d, self.dys, s, written, d_new)
        self.last = [None, None]

    def _write_rows(self, store: _Rows, held: list, s: int, written, found: tuple) -> None:
        """A step's written rows (``found``: CSR over them) kept: a carried row as the
        next step's, a ys row as step s's entries."""
        lay = self.layout
        indptr, cols, values = found
        carried = written < lay.carry_total
        for j in np.flatnonzero(carried).tolist():
            lo, hi = indptr[j], indptr[j + 1]
            store.cols[written[j]], store.values[written[j]] = cols[lo:hi], values[lo:hi]
        if lay.per_step:
            counts = np.diff(indptr)
            ys = np.repeat(~carried, counts)
            at = np.repeat(written - lay.carry_total + s * lay.per_step, counts)[ys]
            held[s] = (at, cols[ys], values[ys])

    def _keep_rows(self, held, s: int, ys, rows, split: Split, data: np.ndarray) -> None:
        """Step s's ys rows kept: ``rows`` (products) at body output rows ``ys``, plus the
        placed entries of the ys rows (:meth:`Split.placed_at` of the step's ``data``)."""
        lay = self.layout
        if not lay.per_step:
            return
        at, cols, data = split.placed_at(data, s)
        at = at - lay.carry_total
        if self.dense_ys:
            held[s][ys - lay.carry_total] = rows
            held[s][at, cols] += data
            return
        which, where = np.nonzero(rows)
        values = np.concatenate([rows[which, where], data])
        which = np.concatenate([ys[which] - lay.carry_total, at]) + s * lay.per_step
        held[s] = (which, np.concatenate([where, cols]), values)

    def _carried(self, out):
        """The float carries' rows of a step's tangents, stacked (zero where a carry's
        output is no vertex)."""
        lay = self.layout
        if lay.in_place:  # the carries' output rows, in order, are the carried ones
            return out if lay.rows == lay.carry_total else _rows(out, 0, lay.carry_total)
        parts = [
            self._zeros(size) if rows is None else _rows(out, *rows)
            for rows, floats, size in zip(
                lay.carry_rows, lay.carry_floats, lay.carry_sizes, strict=True
            )
            if floats
        ]
        return self._vstack(parts)

    def _keep(self, held, out, s: int) -> None:
        """Step s's ys rows of ``out`` kept at place s."""
        lay = self.layout
        if lay.per_step:
            rows = _rows(out, lay.carry_total, lay.per_step)
            if self.dense and not self.dense_ys:  # their entries, made sparse at the end
                at, cols = np.nonzero(rows)
                rows = (at + s * lay.per_step, cols, rows[at, cols])
            held[s] = rows

    def found(self) -> dict:
        """The run's ``"jacobian"`` (and ``"magnitudes"``), per (output, operand)."""
        if self.by_rows and self.last[0] is None and self.layout.region.length:
            self.last = [self.d.matrix(), None if self.f is None else self.f.matrix()]
        out = {"jacobian": self._assemble(self.last[0], self.seeds, self.dys)}
        if self.f is not None:
            zeros = [self._zeros(s.shape[0]) for s in self.seeds]
            extra = self._assemble(self.last[1], zeros, self.fys)
            out["magnitudes"] = {
                key: abs(m) + abs(extra[key]) for key, m in out["jacobian"].items()
            }
        return out

    def _assemble(self, last, before: list, held) -> dict:
        """Per (output, operand): the carries' rows of the last step (``before``: with
        no step), each ys output's rows of every step stacked in the order of the
        stacked ys."""
        lay = self.layout
        width = lay.width
        carries = before
        if last is not None:
            carries = [
                self._zeros(size) if rows is None else _rows(last, *rows)
                for rows, size in zip(lay.carry_rows, lay.carry_sizes, strict=True)
            ]
        stacked = None if self.dense_ys or not lay.per_step else self._sparse_ys(held)
        steps = np.arange(len(held), dtype=np.int64)[:, None] * lay.per_step
        ys = []
        for found in lay.ys:
            if found is None:
                ys.append(None)
                continue
            at, size = found[0] - lay.carry_total, found[1]
            if self.dense_ys:
                ys.append(held[:, at : at + size].reshape(-1, width))
            elif size == lay.per_step:
                ys.append(stacked)
            else:
                ys.append(sp.csr_array(stacked[(steps + at + np.arange(size)).ravel()]))
        return assemble_blocks(lay.region, lay.columns, carries, ys)

    def _sparse_ys(self, held: list) -> sp.csr_array:
        """Every step's ys rows kept sparse, stacked: (steps × rows) × width."""
        shape = (len(held) * self.layout.per_step, self.layout.width)
        if not self.dense and not self.by_rows:
            return _vstack(held, shape[1]) if held else sp.csr_array(shape)
        rows, cols, data = (np.concatenate(x) for x in zip(*held, strict=True))
        return sp.csr_array((data, (rows, cols)), shape=shape)


class _Rows:
    """Sparse tangent rows held one by one (columns, values): a step replaces the rows it
    writes and leaves the others (:data:`ROWS`)."""

    def __init__(self, m) -> None:
        m = sp.csr_array(m)
        self.width = m.shape[1]
        self.cols = [m.indices[m.indptr[i] : m.indptr[i + 1]] for i in range(m.shape[0])]
        self.values = [m.data[m.indptr[i] : m.indptr[i + 1]] for i in range(m.shape[0])]

    def matrix(self) -> sp.csr_array:
        """The rows as one CSR matrix."""
        counts = [c.size for c in self.cols]
        indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        cols = np.concatenate(self.cols) if self.cols else np.zeros(0, np.int64)
        data = np.concatenate(self.values) if self.values else np.zeros(0)
        return sp.csr_array((data, cols, indptr), shape=(len(self.cols), self.width))


def _taken_rows(m, redo: np.ndarray, ys: np.ndarray):
    """The rows ``redo`` then ``ys`` of a step's carries' part ``m``: a CSR's taken at
    once (one selection for every product of :func:`_by_rows`), a dense one as it is."""
    return m[np.concatenate([redo, ys])] if sp.issparse(m) else m


def _by_rows(rows, redo: np.ndarray, ys: np.ndarray, d: np.ndarray) -> tuple:
    """(``m[redo] @ d``, ``m[ys] @ d``) from :func:`_taken_rows`'s ``rows`` of ``m``: a
    CSR's in one product (each row its own sum, in its entries' order: the same numbers
    as taken apart), a dense one's rows apart (BLAS as before; ``m`` itself where
    ``redo`` is every row, none where ``ys`` is empty)."""
    if sp.issparse(rows):
        found = rows @ d
        return found[: redo.size], found[redo.size :]
    found = (rows if redo.size == rows.shape[0] else rows[redo]) @ d
    return found, rows[ys] @ d if ys.size else np.zeros((0, d.shape[1]))


def _written(d: np.ndarray, redo: np.ndarray, new: np.ndarray) -> np.ndarray:
    """``d`` with its rows ``redo`` now ``new`` (in place; ``new`` itself, a fresh
    product, where those are all its rows)."""
    if redo.size == d.shape[0]:
        return new
    d[redo] = new
    return d


def _row_products(written: np.ndarray, width: int, parts: list, placed: tuple) -> tuple:
    """Rows ``written`` (sorted) of ``Σ w·store[k]`` (``parts``: the rows ``r``, the
    stored rows ``k`` they read, the factors ``w``, the :class:`_Rows` read, whether
    their magnitudes) plus the ``placed`` (row, column, value) entries: CSR over
    ``written`` (indptr, columns, values), exact zeros dropped."""
    rows, cols, values = [placed[0]], [placed[1]], [placed[2]]
    for r, k, w, store, absolute in parts:
        picked = k.tolist()
        lengths = np.fromiter((store.cols[x].size for x in picked), np.int64, len(picked))
        if not lengths.sum():
            continue
        found = np.concatenate([store.values[x] for x in picked])
        rows.append(np.repeat(r, lengths))
        cols.append(np.concatenate([store.cols[x] for x in picked]))
        values.append((np.abs(found) if absolute else found) * np.repeat(w, lengths))
    local = np.searchsorted(written, np.concatenate(rows))
    keys, where = np.unique(local * width + np.concatenate(cols), return_inverse=True)
    sums = np.bincount(where.reshape(-1), weights=np.concatenate(values), minlength=keys.size)
    kept = sums != 0.0
    at, found_cols = np.divmod(keys[kept], max(width, 1))
    indptr = np.searchsorted(at, np.arange(written.size + 1))
    return indptr, found_cols, sums[kept]


def assemble_blocks(region: Region, columns: list[int], carries: list, ys: list) -> dict:
    """Per (output, operand): the derivative's columns of the operand, from each carry's
    rows after the last step and each ys output's rows stacked as the output is (None:
    zero)."""
    out: dict[tuple[int, int], Any] = {}
    width = columns[-1]
    for j, shape in enumerate(region.out_shapes):
        rows = carries[j] if j < region.n_carry else ys[j - region.n_carry]
        if rows is None:
            rows = sp.csr_array((math.prod(shape), width))
        for k in range(len(region.operand_shapes)):
            lo, hi = region._operand_columns(k, columns)
            if hi > lo:
                out[(j, k)] = rows[:, lo:hi]
    return out


def _rows(m, at: int, size: int):
    """Rows ``at .. at + size - 1`` of a tangent matrix (CSR: without copying entries
    outside them)."""
    if isinstance(m, np.ndarray):
        return m[at : at + size]
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
