"""The patterns of a loop that selects at its counter, row by row: work per step in the
rows the step changes, not in the carried arrays' entries.

A scan body that reads or writes at its counter (:mod:`dgraph.frontends.jaxpr_steps`)
holds ``select_n`` vertices on per-step masks, so step t has a body Jacobian pattern
``J_t`` of its own and the loop's blocks are the boolean tangent sweep ``D ← J_t·D``
(:meth:`~dgraph.core.regions.Region.step_sweep`). Taken whole, each step costs the
body's size: T steps × the carried entries n. Here the sweep is taken row by row:

* the *base* ``J_0``: every mask false (the case each entry takes where the step does
  not select it: a write keeps ``x``), made once;
* a carried entry whose base row is its own input entry alone is *passed through*: its
  tangent row is unchanged by a step that does not select anything reaching it; the
  others (the ys, a carried scalar that accumulates) are *active*, recomputed each step;
* at step t the entries whose mask is set are few (the positions written or read);
  the output rows they reach (through the body's blocks of ones: a superset, made once)
  are recomputed exactly as rows of ``J_t``: the paths that avoid the masked vertices,
  and through each masked entry on a row's paths the case the step picks there
  (:class:`_Cut`, its parts made once), or where one masked vertex reaches another by a
  reverse pass through the body with the step's masks (:class:`_Reverse`); every other
  row is the base's.

So a step costs its active and changed rows (and the tangent rows they read), and the
patterns are those of the whole sweep, exact per step. The rows recomputed over all
steps are bounded by :data:`~dgraph.core.regions.STEP_LIMIT`, checked as the sweep runs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..errors import InputError
from .body_patterns import (
    bool_pattern,
    masked_jacobian,
    ones_matrix,
    selection,
    stacked_outputs,
)
from .tangent_recurrence import assemble_blocks

__all__ = ["influence", "picked", "reached_rows", "row_sweep", "rows_entries"]

Region = Any  # dgraph.core.regions.Region (which imports this module)


def row_sweep(
    r: Region, masked: Mapping[str, Any], picks_at: Callable[[int], dict], limit: int
) -> dict | None:
    """The patterns of every (output, operand) block of ``r``, as
    :meth:`Region.step_sweep` gives them, swept row by row (module docstring);
    ``picks_at(t)``: per masked vertex, the entries the step selects (sorted, flat) and
    the case each picks (the others pick case 0). None where the rows to recompute each
    step are not few (the whole-step sweep is then as cheap) or a carry is float only
    one way."""

    b = r.body
    steps = r.length or 0
    layout = _layout(r)
    if not steps or layout is None:
        return None
    target, dropped = layout
    base = masked_jacobian(b, {v: np.zeros(op.shape, int) for v, op in masked.items()})
    base = sp.csr_array(base)
    base.sort_indices()
    own = np.diff(base.indptr) == 1
    own[own] = base.indices[base.indptr[:-1][own]] == target[own]
    active = np.flatnonzero(~own | (target < 0))
    if rows_entries(base, active)[0].size > max(64, b.n_in // 8):
        return None
    rows_of = _Cut.of(b, masked) or _Reverse(b, masked)
    columns = r._columns([])
    width = columns[-1]
    sources = _Sources(r, columns, width)
    dys: list[list[Any]] = []
    work = 0
    y_rows = _y_rows(r)
    for t in range(steps):
        picks = picks_at(t)
        changed = rows_of.reached(picks)
        kept = np.setdiff1d(active, changed, assume_unique=True)
        ids = np.concatenate([kept, changed]).astype(np.int64)
        w, c = rows_entries(base, kept)
        if changed.size:
            w2, c2 = rows_of.exact(picks, changed)
            w, c = np.concatenate([w, w2 + kept.size]), np.concatenate([c, c2])
        indptr, cols = sources.product(w, c, ids.size, t)
        work += ids.size + w.size + cols.size
        if work > limit:
            raise InputError(
                f"{r.name or 'scan'}: a loop of {steps:,} steps that selects at its counter"
                f" in what it carries: its patterns, row by row, recompute over {limit:,}"
                " rows and entries (each step's selection is its own); make the loop"
                " shorter"
            )
        sources.store_rows(indptr, cols, target[ids], dropped if t == 0 else ())
        dys.append(_ys_of(indptr, cols, ids, y_rows, width))
    ys = [_stacked([d[j] for d in dys], r.reverse, width) for j in range(len(y_rows))]
    found = assemble_blocks(r, columns, sources.carries(), ys)
    return {key: bool_pattern(m) for key, m in found.items()}


def _stacked(steps: list, reverse: bool, width: int) -> sp.csr_array:
    """A ys output's rows of every step, stacked in the order of the stacked ys."""
    steps = steps[::-1] if reverse else steps
    return sp.csr_array(sp.vstack(steps, format="csr")) if steps else sp.csr_array((0, width))


def rows_entries(m: sp.csr_array, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The entries of rows ``rows`` of ``m``: (which of ``rows``, column) pairs."""
    rows = np.asarray(rows, dtype=np.int64)
    starts = m.indptr[rows].astype(np.int64)
    counts = m.indptr[rows + 1] - starts
    total = int(counts.sum())
    which = np.repeat(np.arange(rows.size), counts)
    at = np.repeat(starts - (np.cumsum(counts) - counts), counts) + np.arange(total)
    return which, m.indices[at].astype(np.int64)


def _layout(r: Region) -> tuple[np.ndarray, list[tuple[int, int]]] | None:
    """Per body output row, the carried input entry it becomes (-1: none, a ys row), and
    the float carried inputs whose output is no vertex (their tangents zero after a
    step); None where a carry is float as an output but not as an input."""
    b = r.body
    target = np.full(b.n_out, -1, dtype=np.int64)
    dropped = []
    for c in range(r.n_carry):
        i = r.n_consts + c
        at_in, at_out = b.in_offsets[i], b.out_offsets[c]
        size = math.prod(b.shapes[i])
        if at_out is not None and at_in is None:
            return None
        if at_out is None:
            if at_in is not None:
                dropped.append((at_in, at_in + size))
            continue
        target[at_out : at_out + size] = at_in + np.arange(size)
    return target, dropped


def picked(picks: tuple[np.ndarray, np.ndarray], entries: np.ndarray) -> np.ndarray:
    """The case each of ``entries`` picks: its pick where the step selects it (``picks``:
    the entries selected, sorted, and their cases), else 0."""
    selected, cases = picks
    out = np.zeros(entries.size, dtype=np.int64)
    if selected.size:
        at = np.minimum(np.searchsorted(selected, entries), selected.size - 1)
        hit = selected[at] == entries
        out[hit] = cases[at[hit]]
    return out


def _y_rows(r: Region) -> list[tuple[int | None, int]]:
    """Each ys output's first body output row (None: no derivative reaches it) and
    its size."""
    b = r.body
    return [
        (b.out_offsets[o], math.prod(b.out_shapes[o])) for o in range(r.n_carry, len(b.outputs))
    ]


def _ys_of(indptr, cols, ids: np.ndarray, y_rows: list, width: int) -> list[Any]:
    """Step's tangent rows of each ys output, from the rows computed (``ids``)."""
    if not y_rows:
        return []
    new = sp.csr_array((np.ones(cols.size), cols, indptr), shape=(ids.size, width))
    where = np.full(int(ids.max(initial=-1)) + 1, -1, dtype=np.int64)
    where[ids] = np.arange(ids.size)
    out = []
    for lo, size in y_rows:
        if lo is None:
            out.append(sp.csr_array((size, width)))
        else:
            out.append(sp.csr_array(new[where[lo : lo + size]]))
    return out


class _Cut:
    """Rows of a step's body Jacobian pattern where no masked vertex reaches another (a
    path from an input to an output passes through one at most): the rows that avoid
    them (``block``), and per masked vertex ``v`` the output rows each of its entries
    reaches (``down[v]``: output rows × entries) and each case's pattern at each entry
    (``up[v]``: rows case·size + entry). Row o at a step is then ``block[o]`` and, for
    each entry e of each ``v`` reaching o, ``up[v]`` at the case the step picks at e."""

    def __init__(self, block, down, up, sizes, cases, reach, at) -> None:
        self.block, self.down, self.up = block, down, up
        self.sizes, self.cases, self.reach, self.at = sizes, cases, reach, at

    @classmethod
    def of(cls, b, masked: Mapping[str, Any]) -> _Cut | None:

        g = b.graph
        rows: dict[str, Any] = {}
        for i, x in enumerate(b.inputs):
            if b.floats[i]:
                rows[x] = selection(math.prod(b.shapes[i]), b.n_in, b.in_offsets[i])
        tainted: set[str] = set()
        up, sizes, cases = {}, {}, {}
        for v in b.order:
            op = g.op(v)
            if op is None:
                continue
            before = [u for u in g.predecessors(v) if u in rows or u in tainted]
            if any(u in tainted for u in before):
                if v in masked:
                    return None  # a masked vertex reached from another
                tainted.add(v)
            if v in masked:
                size = math.prod(g.shape(v))
                parts = []
                for x in op.operands[1:]:
                    if isinstance(x, str) and x in rows:
                        parts.append(bool_pattern(ones_matrix(g, x, v) @ rows[x]))
                    else:
                        parts.append(sp.csr_array((size, b.n_in)))
                up[v] = sp.csr_array(sp.vstack(parts, format="csr"))
                sizes[v], cases[v] = size, len(parts)
                tainted.add(v)
                continue
            total = None
            for u in before:
                if u in rows:
                    term = ones_matrix(g, u, v) @ rows[u]
                    total = term if total is None else total + term
            if total is not None:
                rows[v] = bool_pattern(total)
        block = stacked_outputs(b, rows, b.n_in)
        block = sp.csr_array((0, b.n_in)) if block is None else block
        reach, at = influence(b, masked)
        down = {}
        for v in masked:
            part = sp.csr_array(reach[at[v] : at[v] + sizes[v]].T)
            part.sort_indices()
            down[v] = part
        return cls(block, down, up, sizes, cases, reach, at)

    def reached(self, picks: Mapping[str, np.ndarray]) -> np.ndarray:
        """The output rows the step's selected entries reach (sorted)."""
        return reached_rows(self.reach, self.at, picks)

    def exact(self, picks: Mapping[str, np.ndarray], rows: np.ndarray):
        """Rows ``rows`` of the step's body Jacobian pattern, as entries (which row,
        input)."""
        w, c = rows_entries(self.block, rows)
        ws, cs = [w], [c]
        for v, down in self.down.items():
            wv, e = rows_entries(down, rows)
            k = picked(picks[v], e)
            ok = (k >= 0) & (k < self.cases[v])
            wu, cu = rows_entries(self.up[v], k[ok] * self.sizes[v] + e[ok])
            ws.append(wv[ok][wu])
            cs.append(cu)
        return _unique(np.concatenate(ws), np.concatenate(cs))


class _Reverse:
    """Rows of a step's body Jacobian pattern by a reverse pass from them through the
    body with the step's masks (masked vertices in a chain: :class:`_Cut` does not
    apply)."""

    def __init__(self, b, masked: Mapping[str, Any]) -> None:
        self.b = b
        self.sizes = {v: math.prod(op.shape) for v, op in masked.items()}
        self.reach, self.at = influence(b, masked)
        self.cache: dict = {}

    def reached(self, picks: Mapping[str, np.ndarray]) -> np.ndarray:
        return reached_rows(self.reach, self.at, picks)

    def exact(self, picks: Mapping[str, np.ndarray], rows: np.ndarray):
        dense = {}
        for v, (selected, cases) in picks.items():
            dense[v] = np.zeros(self.sizes[v], dtype=np.int64)
            dense[v][selected] = cases
        m = _exact_rows(self.b, dense, rows, self.cache)
        return rows_entries(m, np.arange(rows.size))


def reached_rows(reach: sp.csr_array, at: Mapping[str, int], picks) -> np.ndarray:
    """The output rows reached from the entries the step selects (a pick other than 0)."""
    hit = [at[v] + selected for v, (selected, _) in picks.items()]
    if not hit:
        return np.zeros(0, np.int64)
    return np.unique(rows_entries(reach, np.concatenate(hit))[1])


def _unique(w: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(row, column) pairs without repeats, in order."""
    if not w.size:
        return w, c
    span = int(c.max()) + 1
    keys = np.unique(w * span + c)
    return keys // span, keys % span


def influence(b, masked: Mapping[str, Any]) -> tuple[sp.csr_array, dict[str, int]]:
    """For each entry of each masked vertex (rows, the vertices one after another from
    ``at[v]``), the body output rows it reaches through the body's blocks of ones (a
    superset of any step's)."""

    g = b.graph
    at, total = {}, 0
    for v in masked:
        at[v] = total
        total += math.prod(g.shape(v))
    rows: dict[str, Any] = {}
    for v in b.order:
        if g.op(v) is None:
            continue
        found = selection(math.prod(g.shape(v)), total, at[v]) if v in masked else None
        for u in g.predecessors(v):
            if u in rows:
                term = ones_matrix(g, u, v) @ rows[u]
                found = term if found is None else found + term
        if found is not None:
            rows[v] = bool_pattern(found)
    found = stacked_outputs(b, rows, total)
    if found is None:
        return sp.csr_array((total, 0)), at
    return sp.csr_array(found.T), at


def _exact_rows(b, picks: Mapping[str, np.ndarray], rows: np.ndarray, cache: dict):
    """Rows ``rows`` of the body Jacobian's pattern with the step's masks (each masked
    ``select_n`` entry through the case it picks), by a reverse pass from those rows."""

    g = b.graph
    k = rows.size
    adjoint: dict[str, Any] = {}
    for o, shape, at in zip(b.outputs, b.out_shapes, b.out_offsets, strict=True):
        if at is None:
            continue
        size = math.prod(shape)
        inside = np.flatnonzero((rows >= at) & (rows < at + size))
        if not inside.size:
            continue
        seed = sp.csr_array((np.ones(inside.size), (inside, rows[inside] - at)), shape=(k, size))
        adjoint[o] = seed if o not in adjoint else adjoint[o] + seed
    for v in reversed(b.order):
        op = g.op(v)
        a = adjoint.get(v)
        if op is None or a is None or not a.nnz:
            continue
        for u in g.predecessors(v):
            if (u, v) not in cache:
                cache[(u, v)] = ones_matrix(g, u, v)
            m = cache[(u, v)]
            part = a
            if v in picks:
                chosen = picks[v]
                keep = np.zeros(chosen.size, bool)
                for case, x in enumerate(op.operands[1:]):
                    if x == u:
                        keep |= chosen == case
                part = a @ sp.diags_array(keep.astype(float))
            term = part @ m
            adjoint[u] = term if u not in adjoint else adjoint[u] + term
    pieces = []
    for i, x in enumerate(b.inputs):
        if not b.floats[i] or x not in adjoint:
            continue
        m = sp.coo_array(adjoint[x])
        pieces.append((m.row, m.col + b.in_offsets[i]))
    if not pieces:
        return sp.csr_array((k, b.n_in))
    r_, c_ = (np.concatenate(p) for p in zip(*pieces, strict=True))
    return bool_pattern(sp.csr_array((np.ones(r_.size), (r_, c_)), shape=(k, b.n_in)))


class _Sources:
    """The tangent row of every float body input at a step: a constant's or a slice's
    seed column (its operand's, the slice's at that step), a carried entry's row kept
    from the step before."""

    def __init__(self, r: Region, columns: list[int], width: int) -> None:
        b = r.body
        self.width = width
        self.reverse, self.steps = r.reverse, r.length
        n = b.n_in
        self.seed = np.full(n, -1, dtype=np.int64)  # a constant's or a slice's column
        self.stride = np.zeros(n, dtype=np.int64)  # a slice's columns per step
        self.carried: list[np.ndarray | None] = [None] * n
        first_x = r.n_consts + r.n_carry
        for i in range(len(b.inputs)):
            if not b.floats[i]:
                continue
            size, at = math.prod(b.shapes[i]), b.in_offsets[i]
            lo, hi = columns[r.n_cond_consts + i], columns[r.n_cond_consts + i + 1]
            entries = np.arange(size)
            if r.n_consts <= i < first_x:
                for e in range(size):
                    self.carried[at + e] = np.array([lo + e] if hi > lo else [], np.int64)
            elif hi > lo:
                self.seed[at + entries] = lo + entries
                self.stride[at + entries] = size if i >= first_x else 0
        self.carry_spans = [
            (b.in_offsets[r.n_consts + c], math.prod(b.shapes[r.n_consts + c]))
            for c in range(r.n_carry)
        ]

    def product(self, w: np.ndarray, c: np.ndarray, n: int, t: int):
        """``J·D`` for rows of ``J`` given by their entries (row ``w``, input ``c``):
        each row the union of the tangent rows of the inputs it reads (CSR pattern)."""
        s = self.steps - 1 - t if self.reverse else t
        inputs, which = np.unique(c, return_inverse=True)
        lists = []
        for k in inputs.tolist():
            row = self.carried[k]
            if row is None:
                row = self.seed[k : k + 1] + s * self.stride[k] if self.seed[k] >= 0 else ()
            lists.append(np.asarray(row, dtype=np.int64))
        lengths = np.array([x.size for x in lists], dtype=np.int64)
        flat = np.concatenate(lists) if lists else np.zeros(0, np.int64)
        starts = np.cumsum(lengths) - lengths
        counts = lengths[which]
        total = int(counts.sum())
        at = np.repeat(starts[which] - (np.cumsum(counts) - counts), counts) + np.arange(total)
        keys = np.unique(np.repeat(w, counts) * max(self.width, 1) + flat[at])
        rows, cols = np.divmod(keys, max(self.width, 1))
        indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=n))])
        return indptr, cols

    def store_rows(self, indptr, cols, targets: np.ndarray, dropped) -> None:
        """The step's rows kept as the next step's carried rows (``targets``: the
        carried input entry of each row, -1 none); ``dropped``: spans emptied."""
        found = [
            (e, cols[indptr[k] : indptr[k + 1]]) for k, e in enumerate(targets.tolist()) if e >= 0
        ]
        for lo, hi in dropped:
            for e in range(lo, hi):
                self.carried[e] = np.zeros(0, np.int64)
        for e, row in found:
            self.carried[e] = row

    def carries(self) -> list[sp.csr_array]:
        """Each carry's tangent rows after the last step."""
        out = []
        for at, size in self.carry_spans:
            if at is None:
                out.append(sp.csr_array((size, self.width)))
                continue
            lists = [self.carried[at + e] for e in range(size)]
            lengths = np.array([x.size for x in lists], dtype=np.int64)
            indptr = np.concatenate([[0], np.cumsum(lengths)])
            flat = np.concatenate(lists) if lists else np.zeros(0, np.int64)
            m = sp.csr_array((np.ones(flat.size), flat, indptr), shape=(size, self.width))
            out.append(m)
        return out
