"""A loop body's Jacobian values in the rows a step writes: work per step in those rows,
not in the carried arrays' entries.

A scan body that writes at its counter (:mod:`dgraph.frontends.jaxpr_steps`) holds
``select_n`` vertices on per-step masks: at step t its Jacobian ``J_t`` is the identity
on the carried entries no selected entry reaches, and the step's tangent recurrence
(:mod:`dgraph.core.tangent_recurrence`, Naumann's tangent mode on the chain of body
Jacobians, seed 002) changes only the other rows. Here, as :mod:`.step_rows` does for
the patterns, for values:

* once, the planned body Jacobian (:class:`~dgraph.core.regions._Plan`) at the *base*
  (every mask picking case 0) with only the values known without a point: a block of
  ones, a masked ``select_n``'s 0 or 1; the others unknown. A carried row whose entries
  are known to be its own entry 1 alone (and no constant's or slice's) is *passed
  through*; the others (a ys row, a carry scaled or summed into) are *active*;
* at step t, the rows to write are the active ones and those the step's selected
  entries reach (:func:`~dgraph.core.step_rows.influence`: a superset, made once); their
  entries are the plan's products restricted to them: the positions each vertex needs,
  carried back through the plan's products (each product's operand position), then
  the products at those positions alone, forward, each block's values at its entries
  alone (:func:`~dgraph.blocks.arrays.stacked_block_entries`; a masked ``select_n``'s
  from the step's picks).

A chunk of steps is taken at once, each (step, position) pair a key.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..blocks import ONES
from ..blocks.arrays import known_block_value, names_read, stacked_block_entries
from ..blocks.scatter import SCATTERS

__all__ = ["StepEntries"]

Region = Any  # dgraph.core.regions.Region (which imports this module's user)


class StepEntries:
    """The rows a step of ``region`` writes, and its body Jacobian's entries there, on
    the plan's output pattern (``indptr``: its CSR row pointer); ``masked``: the body's
    masked selects (:meth:`~dgraph.core.regions.Region.masked_selects`)."""

    def __init__(self, region: Region, plan, indptr: np.ndarray, masked: dict) -> None:
        b = region.body
        self.region, self.plan, self.indptr, self.masked = region, plan, indptr, masked
        g = b.graph
        self.ops = [g.op(term.vertex) for term in plan.terms]
        self.sizes = {v: p[1].size for v, p in plan.patterns.items()}
        self.computed = {term.vertex for term in plan.terms}
        self.by_out = []  # per term: its products ordered by position, and the row pointer
        for term in plan.terms:
            size = self.sizes[term.vertex]
            order = np.argsort(term.out, kind="stable")
            counts = np.bincount(term.out, minlength=size)
            self.by_out.append((order, np.concatenate([[0], np.cumsum(counts)])))
        self.labels = [term.at[term.m] for term in plan.terms]
        self.blocks = []  # output blocks: (vertex, first entry, entries)
        at = 0
        for o in plan.outputs:
            if o is not None:
                self.blocks.append((o, at, self.sizes[o]))
                at += self.sizes[o]
        self.starts = np.array([lo for _, lo, _ in self.blocks], dtype=np.int64)
        from .step_rows import influence  # it imports SciPy: not at `import dgraph`

        self.reach, self.reach_at = influence(b, masked)
        self.entries = 0  # body Jacobian entries evaluated, over all steps
        self.active = np.zeros(0, dtype=np.int64)  # rows every step writes (:meth:`of`)

    @classmethod
    def of(cls, region: Region, plan, indptr: np.ndarray, split) -> StepEntries | None:
        """For a scan with masked selects whose carried rows are their own and whose
        passed-through rows are most of them; else None (the whole step is as cheap)."""
        layout = split.layout
        masked = region.masked_selects()
        if region.kind != "scan" or not masked or not layout.in_place:
            return None
        found = cls(region, plan, indptr, masked)
        found.active = found._active(split)
        rows = layout.rows
        return found if found.active.size <= max(64, rows // 8) else None

    def _active(self, split) -> np.ndarray:
        """The rows every step writes: a carried row whose base entries are not known to
        be its own entry 1 alone, every ys row (module docstring)."""
        layout = split.layout
        rows = np.arange(layout.rows)
        entries = _ranges(self.indptr, rows)[1]
        known = self._evaluate([rows], self._known, known=True)[0]
        row_of, stack, base = split.row_of[entries], split.stack_of[entries], split.base_of[entries]
        own = stack == row_of
        relevant = (stack >= 0) | (base >= 0)  # an entry with a tangent to carry
        good = np.where(own, known == 1.0, ~relevant | (known == 0.0))
        fine = np.zeros(layout.rows, dtype=bool)
        fine[row_of[own & good]] = True
        fine[row_of[~good]] = False
        fine &= rows < layout.carry_total
        return np.flatnonzero(~fine)

    def reads(self) -> set[str]:
        """The vertices whose values :meth:`of_steps` reads (through ``stacked`` or
        ``value_at``): those of the blocks whose values no rule here gives."""
        found: set[str] = set()
        for term, op in zip(self.plan.terms, self.ops, strict=True):
            if term.vertex in self.masked:
                continue
            if op.primitive in SCATTERS and term.block.kind == ONES:
                continue
            if known_block_value(op, term.k, term.block) is None:
                found |= {term.vertex, *names_read(op.operands)}
        return found

    def of_steps(
        self, first: int, steps: int, stacked: dict, value_at: Callable, absolute: bool
    ) -> list:
        """Per step of a chunk (``first``: its first step, run order, of ``steps``;
        ``stacked``: the chunk's values), (the rows it writes, their entries on the
        output pattern, the Jacobian's values there, with ``absolute`` its magnitudes'
        there else None); ``value_at(i, points, labels, absolute)``: term i's block
        values where the rule here has none."""
        selected = [self.region.selected_at(self.masked, first + t) for t in range(steps)]
        rows = self._chunk_rows(selected)
        picks = self._picks(selected)

        def at(i: int, points: np.ndarray, labels: np.ndarray, size: bool) -> np.ndarray:
            term, op = self.plan.terms[i], self.ops[i]
            if term.vertex in self.masked:
                return _picked(picks[term.vertex], points, labels, op, term) == term.k - 1
            if op.primitive in SCATTERS and term.block.kind == ONES:  # a gather's ones
                return np.ones(points.size)
            block = term.block
            number = known_block_value(op, term.k, block)  # an add's 1: no operand read
            if number is not None:
                return np.full(points.size, abs(number) if size else number)
            found = stacked_block_entries(op, term.k, stacked, block, (points, labels), size)
            return value_at(i, points, labels, size) if found is None else found

        wanted, need, chosen = self._needed(rows)
        values = self._forward(wanted, need, chosen, lambda i, p, q: at(i, p, q, False))
        sizes = [None] * steps
        if absolute:
            size = self._forward(wanted, need, chosen, lambda i, p, q: at(i, p, q, True), True)
            sizes = size
        entries = np.split(wanted[1], np.cumsum(wanted[3])[:-1])
        out = []
        for r, e, v, m in zip(rows, entries, values, sizes, strict=True):
            out.append((r, e, v, m))
            self.entries += v.size
        return out

    def _chunk_rows(self, selected: list[dict]) -> list[np.ndarray]:
        """:meth:`_rows` of every step of a chunk (``selected``: each step's picks),
        found at once: (step, row) keys."""
        from .step_rows import rows_entries

        steps, width = len(selected), int(self.reach.shape[1]) + 1
        width = max(width, int(self.active.max(initial=-1)) + 1)
        hit, at_step = [], []
        for t, picks in enumerate(selected):
            for v, (positions, _) in picks.items():
                hit.append(self.reach_at[v] + positions)
                at_step.append(np.full(positions.size, t, dtype=np.int64))
        keys = [np.add.outer(np.arange(steps, dtype=np.int64) * width, self.active).ravel()]
        if hit:
            which, reached = rows_entries(self.reach, np.concatenate(hit))
            keys.append(np.concatenate(at_step)[which] * width + reached)
        keys = np.unique(np.concatenate(keys))
        step, row = np.divmod(keys, width)
        counts = np.bincount(step, minlength=steps)
        return np.split(row, np.cumsum(counts)[:-1])

    def _picks(self, selected: list[dict]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Per masked vertex, the chunk's selected (step, entry) keys, sorted, and the
        case each picks."""
        found: dict[str, tuple[list, list]] = {v: ([], []) for v in self.masked}
        for t, step in enumerate(selected):
            for v, (at, cases) in step.items():
                size = math.prod(self.masked[v].shape)
                found[v][0].append(t * size + at)
                found[v][1].append(cases)
        out = {}
        for v, (keys, cases) in found.items():
            keys, cases = np.concatenate(keys), np.concatenate(cases)
            order = np.argsort(keys, kind="stable")
            out[v] = (keys[order], cases[order])
        return out

    def _known(self, i: int, points: np.ndarray, labels: np.ndarray) -> np.ndarray:
        """Term i's block values known without a point at the base (module docstring):
        a block of ones, a rule's constant, a masked ``select_n``'s case 0 picked; NaN
        unknown."""
        term, op = self.plan.terms[i], self.ops[i]
        if term.vertex in self.masked:
            value = 1.0 if term.k == 1 else 0.0
        elif op.primitive in SCATTERS and term.block.kind == ONES:
            value = 1.0
        else:
            value = known_block_value(op, term.k, term.block)
        return np.full(points.size, np.nan if value is None else value)

    def _evaluate(self, rows: list[np.ndarray], at: Callable, known: bool = False) -> list:
        """The output pattern's values in ``rows[t]`` at each step t of a chunk
        (:meth:`_needed`, then :meth:`_forward`)."""
        return self._forward(*self._needed(rows), at, known=known)

    def _needed(self, rows: list[np.ndarray]) -> tuple:
        """The positions of each vertex the output entries in ``rows[t]`` (at each step
        t) need, carried back through the plan's products: every step's entries at once
        (their output blocks, the entries, their steps, each step's count), per vertex
        its (step, position) keys sorted, per term the products that make them (product,
        step, which key) or None."""
        plan, sizes = self.plan, self.sizes
        need: dict[str, np.ndarray] = {}
        pending: dict[str, list[np.ndarray]] = {}
        counts = np.array([r.size for r in rows], dtype=np.int64)
        flat = np.concatenate(rows).astype(np.int64) if rows else np.zeros(0, np.int64)
        which, entries = _ranges(self.indptr, flat)
        step = np.repeat(np.arange(len(rows), dtype=np.int64), counts)[which]
        block = np.searchsorted(self.starts, entries, side="right") - 1
        for j, (o, lo, size) in enumerate(self.blocks):
            here = block == j
            pending.setdefault(o, []).append(step[here] * size + entries[here] - lo)
        per_step = np.bincount(step, minlength=len(rows))
        wanted = (block, entries, step, per_step)  # every step's entries, in step order
        chosen: list[tuple | None] = [None] * len(plan.terms)
        for i in range(len(plan.terms) - 1, -1, -1):  # a vertex's users come after it
            term = plan.terms[i]
            v = term.vertex
            if v not in need:
                parts = pending.pop(v, [])
                need[v] = np.unique(np.concatenate(parts)) if parts else np.zeros(0, np.int64)
            keys = need[v]
            if not keys.size:
                continue
            points, at_v = np.divmod(keys, sizes[v])
            order, indptr = self.by_out[i]
            slot, products = _ranges(indptr, at_v)
            products = order[products]
            points = points[slot]
            chosen[i] = (products, points, slot)
            u = term.operand
            if u in self.computed:
                pending.setdefault(u, []).append(points * sizes[u] + term.d[products])
        return wanted, need, chosen

    def _forward(
        self,
        wanted: list,
        need: dict,
        chosen: list,
        at: Callable,
        absolute: bool = False,
        known: bool = False,
    ) -> list[np.ndarray]:
        """The products :meth:`_needed` chose, forward: per step, the values of its
        entries (``at(i, points, labels)``: term i's block values at those pairs; with
        ``absolute`` their magnitudes; with ``known``, a product with a known 0 is 0
        whatever the other factor)."""
        plan, sizes = self.plan, self.sizes
        found: dict[str, np.ndarray] = {v: np.zeros(keys.size) for v, keys in need.items()}
        for i, term in enumerate(plan.terms):
            if chosen[i] is None:
                continue
            products, points, slot = chosen[i]
            value = np.asarray(at(i, points, self.labels[i][products]), dtype=float)
            if absolute:
                value = np.abs(value)
            u = term.operand
            if u in found:
                source = found[u][np.searchsorted(need[u], points * sizes[u] + term.d[products])]
                if known:
                    zero = (value == 0.0) | (source == 0.0)
                    value = np.where(zero, 0.0, value * source)
                else:
                    value = value * source
            v = term.vertex
            found[v] += np.bincount(slot, weights=value, minlength=found[v].size)
        block, entries, step, per_step = wanted
        values = np.ones(entries.size)  # an output no product makes: its input's 1
        for j, (o, lo, size) in enumerate(self.blocks):
            here = block == j
            if o in found:
                keys = step[here] * size + entries[here] - lo
                values[here] = found[o][np.searchsorted(need[o], keys)]
        return np.split(values, np.cumsum(per_step)[:-1])


def _picked(picks: tuple[np.ndarray, np.ndarray], points, labels, op, term) -> np.ndarray:
    """The case a masked ``select_n`` picks at each (step, entry): its pick where the
    step selects the entry, else 0 (``picks`` keyed by step × the result's size + entry)."""
    entry = labels if term.block.value else np.zeros_like(labels)
    from .step_rows import picked

    return picked(picks, points * math.prod(op.shape) + entry)


def _ranges(indptr: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The entries of CSR rows ``rows``: (which of ``rows``, entry), in order."""
    rows = np.asarray(rows, dtype=np.int64)
    starts = indptr[rows].astype(np.int64)
    counts = indptr[rows + 1] - starts
    which = np.repeat(np.arange(rows.size), counts)
    at = np.repeat(starts - (np.cumsum(counts) - counts), counts) + np.arange(int(counts.sum()))
    return which, at
