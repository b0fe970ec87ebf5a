"""Loops as regions: a ``scan`` or ``while_loop`` as vertices whose body is a graph.

A loop of T steps with body ``(k, c_t, x_t) -> (c_{t+1}, y_t)`` (``k`` the loop-invariant
operands, ``c`` the carries, ``x_t`` step t's slice of the stacked ``xs``, ``y_t`` step
t's row of the stacked ``ys``) is one :class:`Region`, held once whatever T: each loop
output is a tensor vertex computing ``ArrayOp("loop", operands, (("region", R),
("output", j)))`` (:data:`dgraph.blocks.arrays.REGIONS`), and the body is a tensor graph
of its own (:attr:`Body.graph`), read by the same reader as the program around it.

The edges carry the Jacobian blocks of the loop's outputs with respect to its operands,
the Jacobian chain product of the body's (DOMAIN.md §10; Naumann's chain product, seed
002). With ``A = ∂c'/∂c``, ``K = ∂c'/∂k``, ``X = ∂c'/∂x`` of the body and the augmented
step ``M = [[A, K], [0, I]]`` over ``(c, k)``:

* structure: the final carries' block over ``(c_0, k)`` is the top of ``M^T``'s pattern,
  by repeated boolean squaring (O(log T) products; a ``while_loop``'s, whose T is known
  only at a point, the reflexive-transitive closure of ``M``: sound for every trip
  count); blocks over ``xs`` and of ``ys`` read the sequence of patterns ``M^t``, which
  saturates or cycles: it is computed up to its first repeat, never past T; a body that
  selects by per-step masks (indexing at the loop counter, ``step_tables``) has a
  pattern of its own at each step, and the blocks are the boolean tangent sweep of those
  T patterns, swept over the rows each step's selections reach (:mod:`.step_rows`;
  refused in one line past :data:`STEP_LIMIT` rows and entries recomputed), or where
  many rows change each step step by step whole (:meth:`Region.step_sweep`, refused past
  :data:`STEP_LIMIT` steps × body inputs);
* values at a point: one tangent sweep through the T steps (``D ← J_t·D``, the body's
  Jacobian ``J_t`` accumulated over its own graph at step t), which is the chain
  product bracketed from the right — for a chain of equal square factors applied to the
  seeds, the cheapest bracketing of seed 002's dynamic program; a ``while_loop``'s at
  the trip count of that point (JAX's forward-mode convention). The body Jacobians
  are taken a chunk of steps at once (:mod:`dgraph.core.region_sweep`) and the
  recurrence, written once (:mod:`dgraph.core.tangent_recurrence`), runs on dense
  arrays for a scan whose tangents fit them, else on sparse matrices (a larger scan, a
  while loop); the boolean sweep of the patterns above is the same recurrence kept in
  ones.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..blocks import GENERAL, Block, dense, sparse
from ..blocks.arrays import (
    REGIONS,
    ArrayOp,
    Const,
    block_size,
    block_value,
    evaluate,
    finished,
    names_read,
    operand_block,
    operand_value,
    operand_values,
)
from ..blocks.permutation import as_structural
from ..errors import InputError
from .block_values import edge_parts
from .body_patterns import (
    block_structure,
    bool_pattern,
    masked_jacobian,
    ones_matrix,
    selection,
)
from .graph import DGraph
from .kept_runs import KeptRuns
from .lazy import LazyModule
from .leading_axis import Row, RowsApart, Unbatched, batched_value, taken
from .region_sweep import batched_run, fits, forward_run, tangent_sweep, trajectory_run
from .tangent_recurrence import SPARSE, StepLayout, TangentRecurrence

sp = LazyModule("scipy.sparse")

__all__ = [
    "MAX_TRIPS",
    "Body",
    "LoopNotStopped",
    "PatternBlocks",
    "Region",
    "is_region",
    "refuse_regions",
    "region_notes",
    "regions_of",
    "trip_limit",
    "trips_allowed",
]

MAX_TRIPS = 10_000_000  # a while_loop still running after this many trips is refused
_TRIP_LIMIT: ContextVar[int | None] = ContextVar("dgraph_trip_limit", default=None)


class LoopNotStopped(InputError):
    """A ``while_loop`` still running past the trips :func:`trip_limit` allows."""


def trips_allowed() -> int | None:
    """The trips a ``while_loop`` may run within the innermost :func:`trip_limit` (None:
    :data:`MAX_TRIPS`), for the evaluators of generated code that run one too."""
    return _TRIP_LIMIT.get()


@contextmanager
def trip_limit(trips: int) -> Iterator[None]:
    """Within it a ``while_loop`` raises :class:`LoopNotStopped` after ``trips`` trips:
    the value check's random points, where a convergence loop written for the user's
    data (a fixed point to 1e-12) may never converge and would run to :data:`MAX_TRIPS`
    (hours), are passed over instead."""
    token = _TRIP_LIMIT.set(trips)
    try:
        yield
    finally:
        _TRIP_LIMIT.reset(token)


_DENSE = 0.2  # a tangent matrix this full is kept dense


@dataclass(eq=False)
class Body:
    """A loop body: the tensor graph through which its derivatives flow, and how each of
    its outputs is read.

    ``inputs[i]`` names body input i (its value a vertex of ``graph``), ``shapes[i]`` its
    shape, ``floats[i]`` whether a derivative flows from it. ``outputs[o]`` is a vertex
    of ``graph`` (an output vertex: a derivative flows to it) or, for an output no
    derivative reaches (an integer counter, a constant), an operand — a nested
    :class:`~dgraph.blocks.arrays.ArrayOp` over the inputs, or a
    :class:`~dgraph.blocks.arrays.Const` — evaluated alongside."""

    graph: DGraph
    inputs: list[str]
    shapes: list[tuple[int, ...]]
    floats: list[bool]
    outputs: list[Any]
    out_shapes: list[tuple[int, ...]]

    def __post_init__(self) -> None:
        self.order = _program_order(self.graph)
        self.in_offsets = _offsets(self.shapes, self.floats)
        differentiable = [isinstance(o, str) for o in self.outputs]
        self.out_offsets = _offsets(self.out_shapes, differentiable)
        self.n_in = sum(math.prod(s) for s, f in zip(self.shapes, self.floats, strict=True) if f)
        self.n_out = sum(
            math.prod(s) for s, d in zip(self.out_shapes, differentiable, strict=True) if d
        )
        self._structure: dict[tuple[str, str], tuple] = {}
        self._plan: _Plan | bool | None = None  # False: too many products to plan
        self._ops: tuple[int, list] | None = None  # (graph version, (vertex, operation)s)

    def values(
        self,
        args: Sequence[np.ndarray],
        known: Mapping[str, np.ndarray] | None = None,
        rows: int | None = None,
    ) -> dict[str, np.ndarray]:
        """Every vertex's value for these input values; ``known``: vertices' values
        found before (a scan's batched ones, :mod:`dgraph.core.step_batch`), not
        evaluated again. With ``rows``, each input (and known value) holds that many
        sets of values along a first axis, and each vertex's values are found for all
        at once (:func:`_row_values`)."""
        values = dict(zip(self.inputs, args, strict=True))
        version = self.graph.version
        if self._ops is None or self._ops[0] != version:  # the operations, read once
            found = [(v, self.graph.op(v)) for v in self.order]
            self._ops = (version, [(v, op) for v, op in found if op is not None])
        if rows is not None:
            values.update(known or {})
            for v, op in self._ops[1]:
                if v not in values:
                    values[v] = _row_values(op, values, rows)
            return values
        if known:
            values.update(known)
            for v, op in self._ops[1]:
                if v not in known:
                    values[v] = evaluate(op, values)
            return values
        for v, op in self._ops[1]:
            values[v] = evaluate(op, values)
        return values

    def results(
        self,
        values: Mapping[str, np.ndarray],
        known: Mapping[int, np.ndarray] | None = None,
        rows: int | None = None,
    ) -> list[np.ndarray]:
        """The body's outputs from its vertex values; ``known``: outputs found before
        (by index; a scan's batched ones, :mod:`dgraph.core.step_batch`); ``rows``: as
        :meth:`values`."""
        out = []
        for i, (o, shape) in enumerate(zip(self.outputs, self.out_shapes, strict=True)):
            if isinstance(o, str):
                out.append(values[o])
            elif known and i in known:
                out.append(known[i])
            elif rows is not None:
                out.append(_row_operand(o, values, rows, shape))
            else:
                out.append(np.broadcast_to(np.asarray(operand_value(o, values)), shape))
        return out

    def jacobian(
        self, values: Mapping[str, np.ndarray] | None, absolute: bool = False
    ) -> sp.csr_array:
        """∂(float outputs)/∂(float inputs), flat (C order, outputs and inputs in order),
        at ``values``; with None its pattern (ones where an entry may be nonzero); with
        ``absolute``, the same products of the blocks' magnitudes
        (:func:`~dgraph.blocks.arrays.block_size`): the scale of its rounding. The
        products of the body's blocks are planned once (:class:`_Plan`): each step is
        then a gather, a multiply and a sum per block."""
        if values is not None and self.plan():
            return self._plan.jacobian(self, values, absolute)  # type: ignore[union-attr]
        g = self.graph
        rows: dict[str, Any] = {}
        for i, x in enumerate(self.inputs):
            if self.floats[i]:
                size, at = math.prod(self.shapes[i]), self.in_offsets[i]
                rows[x] = selection(size, self.n_in, at)
        parts = None if values is None else edge_parts(g, values, absolute)
        for v in self.order:
            if g.op(v) is None:
                continue
            total = None
            for u in g.predecessors(v):
                if u not in rows:
                    continue
                m = self._edge_matrix(u, v, None if parts is None else parts[(u, v)])
                term = m @ rows[u]
                total = term if total is None else total + term
            if total is not None:
                rows[v] = sp.csr_array(total)
        blocks = []
        for o, shape in zip(self.outputs, self.out_shapes, strict=True):
            if not isinstance(o, str):
                continue
            size = math.prod(shape)
            blocks.append(rows.get(o, sp.csr_array((size, self.n_in))))
        if not blocks:
            return sp.csr_array((0, self.n_in))
        return sp.csr_array(sp.vstack(blocks, format="csr"))

    def plan(self) -> _Plan | bool:
        """The planned products of the body Jacobian (:class:`_Plan`), made once; False
        where there are too many to plan."""
        if self._plan is None:
            self._plan = _Plan.of(self)
        return self._plan

    def _edge_matrix(self, u: str, v: str, parts: list | None) -> sp.csr_array:
        """The edge's block as a matrix: its values (``parts``) or ones; the pattern of
        each block is computed once."""
        g = self.graph
        if parts is None:
            return ones_matrix(g, u, v)
        total = None
        for k, (block, value) in enumerate(parts):
            key = (u, v, k)
            if key not in self._structure:
                self._structure[key] = block_structure(block)
            rows, cols, at, shape = self._structure[key]
            flat = np.asarray(as_structural(block, value)[1], dtype=float).reshape(-1)
            data = flat[at] if at is not None else flat
            m = sp.csr_array((np.broadcast_to(data, rows.shape), (rows, cols)), shape=shape)
            total = m if total is None else total + m
        return total


def _row_values(op: ArrayOp, values: Mapping[str, np.ndarray], rows: int) -> np.ndarray:
    """:func:`~dgraph.blocks.arrays.evaluate` of ``op`` for each of ``rows`` sets of
    values (each value's first axis), stacked: at once where
    :func:`~dgraph.core.leading_axis.batched_value` takes it, a nested loop's runs at once
    (:meth:`Region.forward_rows`), else set by set."""
    try:
        value, per_row = batched_value(op, values, {}, rows)
    except Unbatched:
        if op.primitive == "loop":
            region, j = op.param["region"], op.param["output"]
            sets = [operand_values(op, Row(values, m)) for m in range(rows)]
            outs = region.forward_rows(sets)
            return np.stack([finished(op, outs[m][j], Row(values, m)) for m in range(rows)])
        return np.stack([evaluate(op, Row(values, m)) for m in range(rows)])
    value = np.asarray(value, dtype=float)
    if per_row:
        return value.reshape((rows, *op.shape))
    return np.broadcast_to(value.reshape(op.shape), (rows, *op.shape))


def _row_operand(o: Any, values: Mapping[str, np.ndarray], rows: int, shape) -> np.ndarray:
    """:meth:`Body.results`' value of an output that is an operand (a nested operation,
    a constant) for each of ``rows`` sets of values, stacked, in its own dtype."""
    if isinstance(o, Const):
        return np.broadcast_to(np.asarray(o.value), (rows, *shape))
    try:
        value, per_row = batched_value(o, values, {}, rows)
    except Unbatched:
        found = [
            np.broadcast_to(np.asarray(operand_value(o, Row(values, m))), shape)
            for m in range(rows)
        ]
        return np.stack(found)
    value = np.asarray(value)
    if not per_row:
        return np.broadcast_to(value.reshape(o.shape), (rows, *shape))
    ones = (1,) * (len(shape) - len(o.shape))  # each row broadcast as alone: from the right
    return np.broadcast_to(value.reshape((rows, *ones, *o.shape)), (rows, *shape))


HANDED_MOST = 1 << 18  # entries of the handed blocks a region keeps, all its runs (2 MiB)
_HANDED = {"jacobian": "handed jacobian", "magnitudes": "handed magnitudes"}


def _keep_handed(runs: KeptRuns, run: dict, field: str, key: tuple, m: Any) -> None:
    """Keep a block ``m`` that ``run`` (one of a region's ``runs``) handed over, by
    (output, operand) in its ``field``, while the blocks kept by all the region's runs
    hold at most :data:`HANDED_MOST` entries (:attr:`KeptRuns.handed`): a value check
    asks a point's blocks again (each group of outputs, the code's ``wᵀ·J``), with
    another point's swept in between where a region runs at two (its tangents kept for
    one point at a time), and gets them without a sweep; a larger block is let go, and
    asked again swept again. None: a zero block."""
    entries = 0 if m is None else m.nnz if sp.issparse(m) else np.size(m)
    if runs.handed + entries <= HANDED_MOST:
        handed = run.setdefault(_HANDED[field], {})
        handed[key] = m
        handed["entries"] = handed.get("entries", 0) + entries
        runs.handed += entries


REACH_LIMIT = 50_000_000  # steps × body inputs above which Region.depends reads reachability
STEP_LIMIT = (
    2_000_000  # rows and entries a loop's per-step patterns recompute (whole: steps × inputs)
)
PLAN_LIMIT = 20_000_000  # products of entries a planned body Jacobian may hold


@dataclass
class _Term:
    """One operand block's share of a vertex's rows: entries ``m`` of the block (CSR
    order; ``at``: where each reads the block's values) times rows ``d`` of the operand
    summed into ``out`` (positions of the vertex's pattern)."""

    vertex: str
    k: int
    operand: str
    block: Block
    at: np.ndarray
    m: np.ndarray
    d: np.ndarray
    out: np.ndarray


@dataclass
class _Plan:
    """The body Jacobian's sparsity, planned once: per vertex its rows' pattern over the
    float inputs (CSR), per operand block the products of entries that make it."""

    patterns: dict[str, tuple[np.ndarray, np.ndarray]]  # vertex: (indptr, indices)
    terms: list[_Term]
    outputs: list[str | None]  # per float output row block: the vertex, or None (zero)
    out_sizes: list[int]

    @classmethod
    def of(cls, body: Body) -> _Plan | bool:
        g, width = body.graph, body.n_in
        patterns: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for i, x in enumerate(body.inputs):
            if body.floats[i]:
                size, at = math.prod(body.shapes[i]), body.in_offsets[i]
                patterns[x] = (np.arange(size + 1), np.arange(at, at + size))
        terms: list[_Term] = []
        planned = 0
        for v in body.order:
            op = g.op(v)
            if op is None:
                continue
            shapes = [g._operand_shape(x) for x in op.operands]
            pieces = []
            for k in op.differentiable():
                u = op.operands[k]
                if u not in patterns:
                    continue
                block = operand_block(op, k, shapes)
                rows, cols, at, _ = block_structure(block)
                at = np.arange(rows.size) if at is None else at
                order = np.lexsort((cols, rows))
                rows, cols, at = rows[order], cols[order], at[order]
                indptr, indices = patterns[u]
                counts = indptr[cols + 1] - indptr[cols]
                total = int(counts.sum())
                planned += total
                if planned > PLAN_LIMIT:
                    return False
                m = np.repeat(np.arange(rows.size), counts)
                first = np.repeat(indptr[cols] - (np.cumsum(counts) - counts), counts)
                d = first + np.arange(total)
                keys = rows[m] * width + indices[d]
                pieces.append((k, u, block, at, m, d, keys))
            if not pieces:
                continue
            keys = np.concatenate([p[-1] for p in pieces])
            unique, where = np.unique(keys, return_inverse=True)
            size = math.prod(g.shape(v))
            counts = np.bincount(unique // width, minlength=size) if width else np.zeros(size)
            patterns[v] = (np.concatenate([[0], np.cumsum(counts)]), unique % max(width, 1))
            at = 0
            for k, u, block, entries, m, d, piece in pieces:
                out = where[at : at + piece.size]
                at += piece.size
                terms.append(_Term(v, k, u, block, entries, m, d, out))
        outputs = [o if isinstance(o, str) and o in patterns else None for o in body.outputs]
        outputs = [o for o, b in zip(outputs, body.outputs, strict=True) if isinstance(b, str)]
        sizes = [math.prod(s) for s, b in zip(body.out_shapes, body.outputs, strict=True)]
        sizes = [n for n, b in zip(sizes, body.outputs, strict=True) if isinstance(b, str)]
        return cls(patterns, terms, outputs, sizes)

    def jacobian(
        self, body: Body, values: Mapping[str, np.ndarray], absolute: bool = False
    ) -> sp.csr_array:
        g = body.graph
        data: dict[str, np.ndarray] = {}
        valued = block_size if absolute else block_value
        for term in self.terms:
            if term.vertex not in data:
                data[term.vertex] = np.zeros(self.patterns[term.vertex][1].size)
            value = valued(g.op(term.vertex), term.k, values, term.block)
            value = np.asarray(as_structural(term.block, value)[1])
            flat = value.reshape(-1).astype(float)
            entries = flat[term.at] if flat.size > 1 else np.broadcast_to(flat, term.at.shape)
            source = data.get(term.operand)
            products = entries[term.m] if source is None else entries[term.m] * source[term.d]
            data[term.vertex] += np.bincount(
                term.out, weights=products, minlength=data[term.vertex].size
            )
        indptrs, indices, values_out, at = [np.zeros(1, dtype=np.int64)], [], [], 0
        for o, size in zip(self.outputs, self.out_sizes, strict=True):
            if o is None:
                indptrs.append(np.full(size, at, dtype=np.int64))
                continue
            indptr, cols = self.patterns[o]
            indptrs.append(indptr[1:] + at)
            indices.append(cols)
            values_out.append(data.get(o, np.ones(cols.size)))
            at += cols.size
        shape = (sum(self.out_sizes), body.n_in)
        flat_cols = np.concatenate(indices) if indices else np.zeros(0, dtype=np.int64)
        flat_data = np.concatenate(values_out) if values_out else np.zeros(0)
        return sp.csr_array((flat_data, flat_cols, np.concatenate(indptrs)), shape=shape)


def _program_order(g: DGraph) -> list[str]:
    index = {v: g.nx.nodes[v]["index"] for v in g.nx}
    return sorted(g.nx, key=index.__getitem__)


def _offsets(shapes: Sequence[tuple[int, ...]], which: Sequence[bool]) -> list[int | None]:
    out: list[int | None] = []
    at = 0
    for shape, flag in zip(shapes, which, strict=True):
        out.append(at if flag else None)
        at += math.prod(shape) if flag else 0
    return out


# -- the region -----------------------------------------------------------------------------


class PatternBlocks:
    """The blocks of a region (a loop or a branch) from its patterns: ``_patterns()``
    maps (output, operand) to the CSR pattern of ∂(output)/∂(operand), which holds for
    every trip count or taken branch."""

    out_shapes: Sequence[tuple[int, ...]]
    operand_shapes: Sequence[tuple[int, ...]]

    def _patterns(self) -> dict[tuple[int, int], Any]:
        raise NotImplementedError

    def depends(self, j: int, k: int) -> bool:
        """Whether output j may depend on operand k through a derivative."""
        found = self._patterns().get((j, k))
        return found is not None and found.nnz > 0

    def block(self, j: int, k: int) -> Block:
        """The structure of ∂(output j)/∂(operand k): dense where the pattern fills."""
        m = self._patterns()[(j, k)]
        out, inn = self.out_shapes[j], self.operand_shapes[k]
        if m.nnz == math.prod(out) * math.prod(inn):
            return dense(out, inn, GENERAL)
        m = sp.coo_array(m)
        return sparse(out, inn, m.row, m.col, GENERAL)


@dataclass(eq=False)
class Region(PatternBlocks):
    """A loop held once: a ``scan`` of ``length`` steps or a ``while_loop``.

    Operands, as the loop equation takes them: a scan's ``consts`` (``n_consts``), its
    initial carries (``n_carry``), then its stacked ``xs``; a while loop's condition
    constants (``n_cond_consts``), the body's constants (``n_consts``), then the initial
    carries. Outputs: the final carries, then (a scan) the stacked ``ys``. ``active[k]``:
    whether operand k is a vertex (a derivative may flow from it); ``cond``: a while
    loop's condition, a nested operation (or constant) over ``cond_inputs`` (its
    constants' names, then the carries' body names)."""

    kind: str  # "scan" or "while"
    body: Body
    n_consts: int
    n_carry: int
    operand_shapes: list[tuple[int, ...]]
    out_shapes: list[tuple[int, ...]]
    active: list[bool]
    length: int | None = None
    reverse: bool = False
    n_cond_consts: int = 0
    cond: Any = None
    cond_inputs: list[str] = field(default_factory=list)
    name: str = ""

    def __post_init__(self) -> None:
        self._runs = KeptRuns()  # by operands: trajectories, tangents (KEPT_BYTES)
        self._pattern: dict[tuple[int, int], np.ndarray | None] | None = None
        self.step_tables: dict[str, np.ndarray] = {}  # per-step masks (_step_patterns)
        # tables of the positions a step selects: name -> (size, the mask made of them)
        self.step_positions: dict[str, tuple[int, Any]] = {}
        self._selections: dict[tuple[str, int], tuple] = {}  # selected_at's, made once
        self._sweep_parts = None  # its sweeps' shared setup (region_sweep.sweep_parts)
        b = self.body
        self.n_xs = len(b.inputs) - self.n_consts - self.n_carry
        first = self.n_cond_consts
        # operand k -> body input (None: a condition constant)
        self.body_input: list[int | None] = [None] * first + list(
            range(len(self.operand_shapes) - first)
        )

    def __getstate__(self) -> dict:
        """Pickled without the runs it remembers (trajectories and tangents: large) and
        what it made for them."""
        state = dict(self.__dict__)
        state["_runs"] = KeptRuns()
        state["_selections"] = {}
        state["_sweep_parts"] = None
        return state

    # -- facts ------------------------------------------------------------------------------

    @property
    def n_ys(self) -> int:
        return len(self.out_shapes) - self.n_carry

    def describe(self) -> str:
        """One line: the loop, its steps and its body's size."""
        steps = f"{self.length} steps" if self.kind == "scan" else "trip count at the point"
        return f"{self.kind} ({steps}; body of {len(self.body.graph)} vertices)"

    def label(self) -> str:
        """The region's blocks in a few words: the chain of body Jacobians they are."""
        return f"chain of {self.length} steps" if self.kind == "scan" else "chain of while steps"

    def trips(self, args: Sequence[np.ndarray]) -> int:
        """The steps the loop runs for these operands."""
        return self._run(args)["trips"]

    # -- values ---------------------------------------------------------------------------

    def forward(self, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The loop's outputs for these operand values."""
        return self._run(args)["outputs"]

    def _key(self, args: Sequence[np.ndarray]) -> bytes:
        """The operands' bytes, and the body's version: a run of a body since changed is
        not read again."""
        parts = [b"%d" % self.body.graph.version]
        for a in args:
            a = np.asarray(a)
            parts += [a.dtype.str.encode(), repr(a.shape).encode(), a.tobytes()]
        return b"|".join(parts)

    def _run(
        self,
        args: Sequence[np.ndarray],
        tangents: bool = False,
        absolute: bool = False,
        key: bytes | None = None,
    ) -> dict:
        """The loop at these operands: outputs and trips, with ``tangents`` the Jacobian
        per (output, operand) (``"jacobian"``), with ``absolute`` also its rounding
        scale (``"magnitudes"``: :meth:`block_magnitude`, which the value check reads
        before the values: one sweep gives both)."""
        field = "magnitudes" if absolute else "jacobian"
        key = self._key(args) if key is None else key  # ``key``: the caller's, found once
        run = self._runs.get(key)
        if run is not None and (not tangents or field in run):
            return run
        arrays = [np.asarray(a) for a in args]
        if tangents:
            run = tangent_sweep(self, arrays, run, absolute)
        elif fits(self, arrays):  # its steps' values kept for the tangents asked next
            run = trajectory_run(self, arrays)
        else:
            run = forward_run(self, arrays)
        self._runs.put(key, run)  # one point's tangents kept (the blocks handed kept)
        return run

    def forward_rows(self, sets: Sequence[Sequence[np.ndarray]]) -> list[list[np.ndarray]]:
        """The loop's outputs for each of several sets of operand values (the value
        check's points beside one: :func:`~dgraph.core.block_values.values_at`), each
        exactly :meth:`forward`'s: the sets not run before are run at once where they
        can be (:func:`~dgraph.core.region_sweep.batched_run`), else one by one."""
        keys = [self._key(args) for args in sets]
        runs: dict[int, dict] = {}
        new = [m for m, key in enumerate(keys) if key not in self._runs]
        if len(new) > 1:
            found = batched_run(self, [[np.asarray(a) for a in sets[m]] for m in new])
            for m, run in zip(new, found or [], strict=False):
                runs[m] = run
                self._runs.put(keys[m], run)
        return [
            (runs[m] if m in runs else self._run(args, key=keys[m]))["outputs"]
            for m, args in enumerate(sets)
        ]

    def rows_at_once(self) -> bool:
        """Whether the body's every operation is taken over a leading axis of operand
        sets (:func:`~dgraph.core.leading_axis.taken`): a run of many sets then costs
        about one set's Python calls a step (:meth:`forward_rows`), not one a set."""
        b = self.body
        ops = [b.graph.op(v) for v in b.order]
        outs = [o for o in b.outputs if isinstance(o, ArrayOp)]
        return self.kind == "scan" and all(taken(op) for op in [*ops, *outs] if op is not None)

    def _steps(self, args: list[np.ndarray], rows: int | None = None):
        """Each step's body inputs (consts, carries, this step's slices), as a generator
        that is sent the carries after each step. With ``rows``, each operand holds that
        many sets of values along a first axis, a scan's ``xs`` along their second
        (steps first: each step's slice one block), and a ``while_loop`` stops where
        every set's condition does (:class:`RowsApart` where they do not agree)."""
        b = self.body
        first = self.n_cond_consts
        consts = args[first : first + self.n_consts]
        carry = args[first + self.n_consts : first + self.n_consts + self.n_carry]
        xs = args[first + self.n_consts + self.n_carry :]
        lead = () if rows is None else (rows,)
        carry = [
            np.asarray(c).reshape((*lead, *s))
            for c, s in zip(
                carry, b.shapes[self.n_consts : self.n_consts + self.n_carry], strict=True
            )
        ]
        t = 0
        while True:
            if self.kind == "scan":
                if t == self.length:
                    return
                s = self.length - 1 - t if self.reverse else t
                slices = [np.asarray(x)[s] for x in xs]
            else:
                limit = _TRIP_LIMIT.get()
                if limit is not None and t >= limit:
                    raise LoopNotStopped(
                        f"{self.name or 'while_loop'}: still running after {limit} trips"
                    )
                if t >= MAX_TRIPS:
                    raise InputError(
                        f"{self.name or 'while_loop'}: still running after {MAX_TRIPS} trips"
                    )
                env = [*args[:first], *carry]
                if rows is None:
                    going = self._going(env)
                else:
                    found = {self._going([a[m] for a in env]) for m in range(rows)}
                    if len(found) > 1:
                        raise RowsApart
                    going = found.pop()
                if not going:
                    return
                slices = []
            carry = yield t, [*consts, *carry, *slices]
            t += 1

    def _going(self, env: list[np.ndarray]) -> bool:
        """Whether a ``while_loop``'s condition holds for these condition constants and
        carries."""
        values = dict(zip(self.cond_inputs, env, strict=True))
        return bool(np.asarray(operand_value(self.cond, values)).reshape(-1)[0])

    def outputs_of(self, carry: list[np.ndarray], ys: list[list[np.ndarray]]) -> list:
        """The loop's outputs from its last carry and each step's ys (stacked in step
        order, reversed for a reverse scan; none: zeros of the output's shape)."""
        outputs = [c.reshape(s) for c, s in zip(carry, self.out_shapes, strict=False)]
        for j in range(self.n_ys):
            shape = self.out_shapes[self.n_carry + j]
            rows = ys[j][::-1] if self.reverse else ys[j]
            outputs.append(np.stack(rows).reshape(shape) if rows else np.zeros(shape))
        return outputs

    def _columns(self, args: list[np.ndarray]) -> list[int]:
        """Where each operand's tangent columns start (active float operands only); the
        last entry is the width."""
        out, at = [], 0
        for k, shape in enumerate(self.operand_shapes):
            out.append(at)
            i = self.body_input[k]
            if self.active[k] and i is not None and self.body.floats[i]:
                at += math.prod(shape)
        out.append(at)
        return out

    def _operand_columns(self, k: int, columns: list[int]) -> tuple[int, int]:
        return columns[k], columns[k + 1]

    def _seed_carries(self, columns: list[int], width: int) -> list[Any]:
        b = self.body
        out = []
        for c in range(self.n_carry):
            i = self.n_consts + c
            k = self.n_cond_consts + i
            size = math.prod(b.shapes[i])
            lo, hi = self._operand_columns(k, columns)
            out.append(selection(size, width, lo) if hi > lo else sp.csr_array((size, width)))
        return out

    # -- structure ---------------------------------------------------------------------------

    def block_value(self, j: int, k: int, args: Sequence[np.ndarray], block: Block) -> np.ndarray:
        """The values of ∂(output j)/∂(operand k) at these operands, in the block's
        layout (C order over a dense block's entries, or one per pattern entry). Each
        block is handed over once per run: its matrix then let go, and the run's memory
        with the last one, but for the blocks kept for the point (:data:`HANDED_MOST`
        entries in all: a value check reads each edge once per group of outputs, and the
        code's ``wᵀ·J`` again); another asked again, the tangents are swept again."""
        return self._handed(j, k, args, block, absolute=False)

    def block_magnitude(
        self, j: int, k: int, args: Sequence[np.ndarray], block: Block
    ) -> np.ndarray:
        """The scale of :meth:`block_value`'s rounding, laid out as it is: the chain of
        the body's block magnitudes, |J_T|···|J_1| (each body block by
        :func:`~dgraph.blocks.arrays.block_size`, so a rule whose terms cancel counts
        at its terms' size). The product of the chain's values can be far smaller (its
        sums cancel): a check in units of it would read rounding as an error."""
        return self._handed(j, k, args, block, absolute=True)

    def _handed(
        self, j: int, k: int, args: Sequence[np.ndarray], block: Block, absolute: bool
    ) -> np.ndarray:
        field = "magnitudes" if absolute else "jacobian"
        taken = f"taken {field}"
        key = self._key(args)  # the operands' bytes: read once
        kept = (self._runs.get(key) or {}).get(_HANDED[field], {})
        if (j, k) in kept:  # no sweep, even where the point's other tangents were let go
            m = kept[(j, k)]
        else:
            run = self._run(args, tangents=True, absolute=absolute, key=key)
            if (j, k) in run.setdefault(taken, set()):
                run.pop(field)
                run = self._run(args, tangents=True, absolute=absolute, key=key)
                run[taken] = set()
            run[taken].add((j, k))
            m = run[field].pop((j, k), None)
            _keep_handed(self._runs, run, field, (j, k), m)
        shape = (math.prod(self.out_shapes[j]), math.prod(self.operand_shapes[k]))
        if m is None:
            m = np.zeros(shape)
        if hasattr(block, "value"):  # dense
            full = m.toarray() if sp.issparse(m) else np.asarray(m)
            return full.reshape((*self.out_shapes[j], *self.operand_shapes[k])).copy()
        if sp.issparse(m):
            m = sp.csr_array(m)
            return np.asarray(m[block.rows, block.cols]).reshape(-1)
        return np.asarray(m)[block.rows, block.cols]

    def depends(self, j: int, k: int) -> bool:
        """Whether output j may depend on operand k: for a loop whose exact patterns cost
        ``length × inputs`` above :data:`REACH_LIMIT` (work of every step), by reachability
        over the body's blocks (a sound superset, the patterns made only when the blocks
        are asked for), else from the exact patterns."""
        if self._pattern is None and (self.length or 0) * self.body.n_in > REACH_LIMIT:
            i = self.body_input[k]
            return i is not None and bool(self._reach()[j, i])
        return super().depends(j, k)

    def _reach(self) -> np.ndarray:
        """Body output block o reachable from body input block i, through any number of
        steps (the carries' closure), by the unmasked body Jacobian's blocks."""
        b = self.body
        jp = sp.csr_array(b.jacobian(None))
        nin, nout = len(b.inputs), len(b.outputs)
        direct = np.zeros((nout, nin), bool)
        for o in range(nout):
            if b.out_offsets[o] is None:
                continue
            rows = jp[[b.out_offsets[o] + r for r in range(math.prod(b.out_shapes[o]))]]
            cols = set(rows.indices.tolist())
            for i in range(nin):
                if b.floats[i]:
                    at = b.in_offsets[i]
                    direct[o, i] = any(at <= c < at + math.prod(b.shapes[i]) for c in cols)
        carry = slice(self.n_consts, self.n_consts + self.n_carry)
        reach = direct.copy()
        while True:  # output o over input i via a carry c: reach[c, i] and direct[o, c]
            more = reach | (direct[:, carry].astype(int) @ reach[: self.n_carry].astype(int) > 0)
            if (more == reach).all():
                return reach
            reach = more

    def _patterns(self) -> dict[tuple[int, int], Any]:
        """Each (output, operand) pair's pattern as a boolean sparse matrix."""
        if self._pattern is None:
            rule = _step_patterns if self.step_tables else _loop_patterns
            self._pattern = rule(self)
        return self._pattern

    def step_sweep(self, jacobian_at) -> dict[tuple[int, int], Any]:
        """The pattern of every block by a boolean tangent sweep: ``jacobian_at(t)`` is
        the pattern of step t's body Jacobian (T sparse boolean products, the chain's
        per-step patterns, by the one recurrence kept in ones; no entry is lost, as no
        sum of ones cancels)."""
        layout = StepLayout(self, self._columns([]))
        sweep = TangentRecurrence(layout, SPARSE, steps=self.length or 0, pattern=True)
        last: tuple = (None, None, None)  # the last pattern asked, as CSR, its split
        for t in range(self.length or 0):
            found = jacobian_at(t)
            if found is not last[0]:  # a pattern for every step: split once
                jac = sp.csr_array(found)
                jac.sum_duplicates()
                last = (found, jac, layout.split(jac.indptr, jac.indices))
            s = self.length - 1 - t if self.reverse else t
            sweep.step(last[2], np.ones(last[1].nnz), None, s)
        return {key: bool_pattern(m) for key, m in sweep.found()["jacobian"].items()}

    def masked_selects(self) -> dict[str, ArrayOp]:
        """The body's ``select_n`` vertices on per-step masks (:attr:`step_tables`:
        reads and writes at the loop counter), by name; empty without tables."""
        if not self.step_tables:
            return {}
        g = self.body.graph
        found = {}
        for v in self.body.order:
            op = g.op(v)
            if op is not None and op.primitive == "select_n" and _reads_only(op.operands[0], self):
                found[v] = op
        return found

    def selected_at(
        self, masked: Mapping[str, ArrayOp], t: int
    ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Per masked vertex (:meth:`masked_selects`), the entries whose mask is set at
        step t (in run order) and the case each picks: read off a table of positions
        (every step's sorted and made unique once, :meth:`_positions`), or from the
        mask's values."""
        s = self.length - 1 - t if self.reverse else t
        out = {}
        for v, op in masked.items():
            found = self._positions(v, op)
            if found is not None:
                flat, starts, ones = found
                at = flat[starts[s] : starts[s + 1]]
                out[v] = (at, ones[: at.size])
                continue
            names = self._mask_names(op)
            env = {n: self.step_tables[n][s] for n in names}
            flat = np.asarray(operand_value(op.operands[0], env)).astype(int)
            flat = np.broadcast_to(flat, op.shape).reshape(-1)
            at = np.flatnonzero(flat)
            out[v] = (at, flat[at].astype(np.int64))
        return out

    def _mask_names(self, op: ArrayOp) -> list[str]:
        """The tables a masked select's mask reads, found once per operation."""
        key = ("names", id(op))
        if key not in self._selections:
            self._selections[key] = (op, sorted(names_read([op.operands[0]])))
        return self._selections[key][1]

    def _positions(self, v: str, op: ArrayOp) -> tuple | None:
        """Where the mask of the masked select ``v`` is a table of positions
        (:attr:`step_positions`): every step's entries in range, sorted and each once
        (``np.unique`` of the step's row), as one flat array and each step's start in
        it, with ones for the cases; None for another mask. Made once per region."""
        key = ("positions", id(op))
        if key in self._selections:
            return self._selections[key][1]
        names = self._mask_names(op)
        size, mask = self.step_positions.get(names[0], (None, None)) if names else (None, None)
        found = None
        if len(names) == 1 and mask is not None and mask == op.operands[0]:
            table = np.asarray(self.step_tables[names[0]])
            rows = np.sort(table.reshape(table.shape[0], -1), axis=1)
            keep = rows < size
            keep[:, 1:] &= rows[:, 1:] != rows[:, :-1]
            starts = np.concatenate([[0], np.cumsum(keep.sum(axis=1))])
            flat = rows[keep].astype(np.int64)
            found = (flat, starts, np.ones(rows.shape[1], dtype=np.int64))
        self._selections[key] = (op, found)
        return found


# -- patterns of the chain product ----------------------------------------------------------


def _bmul(a, b) -> sp.csr_array:
    """The boolean product of two patterns (dense BLAS where they are full enough)."""
    if a.shape[0] * a.shape[1] and b.shape[0] * b.shape[1]:
        full = (
            a.nnz / (a.shape[0] * a.shape[1]) > _DENSE
            and b.nnz / (b.shape[0] * b.shape[1]) > _DENSE
        )
        if full:
            p = a.toarray().astype(np.float32) @ b.toarray().astype(np.float32)
            return bool_pattern(p > 0)
    return bool_pattern(a @ b)


def _key(m: sp.csr_array) -> bytes:
    m = sp.csr_array(m)
    m.sort_indices()
    return m.indptr.tobytes() + b"/" + m.indices.tobytes()


def _power(m: sp.csr_array, n: int) -> sp.csr_array:
    """The pattern of ``m^n`` by repeated squaring (O(log n) boolean products)."""
    result = bool_pattern(sp.eye_array(m.shape[0], format="csr"))
    square = m
    while n:
        if n & 1:
            result = _bmul(square, result)
        n >>= 1
        if n:
            before = square
            square = _bmul(square, square)
            if _key(square) == _key(before) and _key(_bmul(square, result)) == _key(result):
                break  # m^(2^j) idempotent and absorbed: every further factor changes nothing
    return result


def _closure(m: sp.csr_array) -> sp.csr_array:
    """The reflexive-transitive closure of a pattern: every power of ``m`` at once, by
    squaring ``I + m`` until it is fixed."""
    s = bool_pattern(sp.eye_array(m.shape[0], format="csr") + m)
    while True:
        nxt = _bmul(s, s)
        if _key(nxt) == _key(s):
            return s
        s = nxt


class _Powers:
    """The patterns ``m^t`` for t = 0, 1, ..., computed one product at a time up to the
    first repeat (they saturate or cycle), then read by index."""

    def __init__(self, m: sp.csr_array) -> None:
        self.m = m
        self.seq = [bool_pattern(sp.eye_array(m.shape[0], format="csr"))]
        self.seen = {_key(self.seq[0]): 0}
        self.cycle: tuple[int, int] | None = None  # (start, period)
        self.made: dict[tuple[str, int], sp.csr_array] = {}

    def __getitem__(self, t: int) -> sp.csr_array:
        return self.seq[self.index(t)]

    def product(self, key: str, t: int, make) -> sp.csr_array:
        """``make(m^t)``, remembered per distinct power (past the repeat, each is one
        of those before it: O(distinct powers) products, not O(T))."""
        at = (key, self.index(t))
        if at not in self.made:
            self.made[at] = make(self.seq[at[1]])
        return self.made[at]

    def index(self, t: int) -> int:
        """Where ``m^t`` is in the sequence of distinct powers."""
        while self.cycle is None and t >= len(self.seq):
            nxt = _bmul(self.m, self.seq[-1])
            key = _key(nxt)
            if key in self.seen:
                start = self.seen[key]
                self.cycle = (start, len(self.seq) - start)
            else:
                self.seen[key] = len(self.seq)
                self.seq.append(nxt)
        if t < len(self.seq):
            return t
        start, period = self.cycle  # type: ignore[misc]
        return start + (t - start) % period


def _loop_patterns(r: Region) -> dict[tuple[int, int], Any]:
    """The pattern of every (output, operand) block of the loop: module docstring."""
    b = r.body
    jp = b.jacobian(None)
    # body input blocks: k (float consts), c (float carries), x (float slices)
    groups = {"k": range(0, r.n_consts), "c": range(r.n_consts, r.n_consts + r.n_carry)}
    groups["x"] = range(r.n_consts + r.n_carry, len(b.inputs))

    def in_cols(which: str) -> np.ndarray:
        cols = [
            np.arange(b.in_offsets[i], b.in_offsets[i] + math.prod(b.shapes[i]))
            for i in groups[which]
            if b.floats[i]
        ]
        return np.concatenate(cols) if cols else np.zeros(0, dtype=np.int64)

    def out_rows(outs: range) -> np.ndarray:
        rows = [
            np.arange(b.out_offsets[o], b.out_offsets[o] + math.prod(b.out_shapes[o]))
            for o in outs
            if b.out_offsets[o] is not None
        ]
        return np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)

    ck, cc, cx = in_cols("k"), in_cols("c"), in_cols("x")
    carry_rows = out_rows(range(r.n_carry))
    y_rows = out_rows(range(r.n_carry, len(b.outputs)))
    n_c, n_k = cc.size, ck.size
    jp = sp.csr_array(jp)

    def part(rows, cols):
        return (
            bool_pattern(jp[rows][:, cols])
            if rows.size and cols.size
            else sp.csr_array((rows.size, cols.size))
        )

    # the body's float carries in and out line up only where every carry is float both ways
    carry_in_sizes, carry_out_sizes = _carry_layout(r)
    a = _rows_to_in(part(carry_rows, cc), carry_in_sizes, carry_out_sizes)
    kk = _rows_to_in(part(carry_rows, ck), carry_in_sizes, carry_out_sizes)
    xx = _rows_to_in(part(carry_rows, cx), carry_in_sizes, carry_out_sizes)
    m = (
        sp.csr_array(sp.block_array([[a, kk], [None, sp.eye_array(n_k)]], format="csr"))
        if n_c + n_k
        else sp.csr_array((0, 0))
    )
    m = bool_pattern(m)
    yc, yk, yx = part(y_rows, cc), part(y_rows, ck), part(y_rows, cx)
    # the final carries over (c_0, k)
    top = _closure(m)[:n_c] if r.kind == "while" else _power(m, r.length)[:n_c]
    final_c, final_k = top[:, :n_c], top[:, n_c:]
    need_sequence = r.kind == "scan" and (r.n_ys or (cx.size and xx.nnz))
    powers = _Powers(m) if need_sequence else None
    T = r.length or 0
    x_size = cx.size
    # final carries over xs: A^(T-1-s) X, step s's columns
    final_x = None
    if r.kind == "scan" and x_size:
        cols = []
        for s in range(T):
            cols.append(
                powers.product("ax", T - 1 - s, lambda p: _bmul(p[:n_c, :n_c], xx))
                if xx.nnz
                else sp.csr_array((n_c, x_size))
            )
        final_x = sp.csr_array(sp.hstack(cols, format="csr")) if cols else sp.csr_array((n_c, 0))
    # ys over (c_0, k) and over xs
    y_ck = y_x = None
    if r.kind == "scan" and r.n_ys:
        yck = sp.csr_array(sp.hstack([yc, yk], format="csr"))
        ny = y_rows.size
        direct = sp.hstack([sp.csr_array((ny, n_c)), yk]) if n_k else None

        def y_step(p):
            step = _bmul(yck, p) if yck.nnz else sp.csr_array((ny, n_c + n_k))
            return step if direct is None else bool_pattern(step + direct)

        rows = [powers.product("y", t, y_step) for t in range(T)]
        y_ck = sp.csr_array(sp.vstack(rows, format="csr")) if rows else sp.csr_array((0, n_c + n_k))
        if x_size:
            z = [
                powers.product("yax", m_, lambda p: _bmul(_bmul(yc, p[:n_c, :n_c]), xx))
                if (yc.nnz and xx.nnz)
                else sp.csr_array((ny, x_size))
                for m_ in range(max(T - 1, 0))
            ]
            y_x = _lower_block_toeplitz(z, yx, T) if T else sp.csr_array((0, 0))
    return _by_operand(r, final_c, final_k, final_x, y_ck, y_x, n_c)


def _lower_block_toeplitz(z: list, diagonal, steps: int) -> sp.csr_array:
    """The pattern of the (steps × steps)-block matrix whose block (t, s) is ``z[t-1-s]``
    below the diagonal, ``diagonal`` on it and empty above: step t's ys over step s's xs.
    Written as CSR directly (not steps² sparse blocks: 4·10⁶ of them at 2,000 steps; nor
    coordinates sorted afterwards): row i of step t holds, for s = 0 .. t in turn, block
    ``t - s``'s row i shifted to step s's columns, so each lag's entries go to known
    places of the rows they reach, already in order."""
    ny, nx = diagonal.shape
    blocks = [sp.csr_array(b) for b in [diagonal, *z]]  # by lag t - s
    for b in blocks:
        b.sum_duplicates()  # canonical: sorted columns, each once
    per_row = np.zeros((max(len(blocks), steps), ny), dtype=np.int64)  # lag × row
    for lag, b in enumerate(blocks):
        per_row[lag] = np.diff(b.indptr)
    upto = np.cumsum(per_row, axis=0)  # entries of lags 0 .. L, per row i
    counts = upto[np.arange(steps)]  # row (t, i): lags 0 .. t
    indptr = np.concatenate([[0], np.cumsum(counts.reshape(-1))])
    indices = np.empty(int(indptr[-1]), dtype=np.int64)
    for lag, b in enumerate(blocks):
        if b.nnz == 0 or lag >= steps:
            continue
        rows = np.repeat(np.arange(ny), np.diff(b.indptr))
        within = np.arange(b.nnz) - b.indptr[rows]
        t = np.arange(lag, steps, dtype=np.int64)[:, None]
        # before lag's entries in row (t, i): lags t .. lag + 1 (steps 0 .. t - lag - 1)
        at = indptr[t * ny + rows] + (counts[t, rows] - upto[lag, rows]) + within
        indices[at.reshape(-1)] = ((t - lag) * nx + b.indices[None, :]).reshape(-1)
    shape = (steps * ny, steps * nx)
    small = max(shape[1], indices.size) < 2**31  # SciPy's own index type where it fits
    kind = np.int32 if small else np.int64
    out = sp.csr_array(
        (np.ones(indices.size), indices.astype(kind), indptr.astype(kind)), shape=shape
    )
    out.has_canonical_format = True
    return out


def _step_patterns(r: Region) -> dict[tuple[int, int], Any]:
    """The patterns of a scan whose body selects by per-step masks (``r.step_tables``:
    reads and writes at the loop counter, :mod:`dgraph.frontends.jaxpr_steps`): the
    body's pattern at step t keeps, of each ``select_n`` on a mask, the entries the
    mask picks at t; the chain of those T patterns is exact per step. Swept row by row
    where few rows change per step (:mod:`.step_rows`: the work in the rows each step
    selects, bounded by :data:`STEP_LIMIT`), else step by step whole (T × the body's
    inputs, bounded by :data:`STEP_LIMIT`)."""
    from .step_rows import row_sweep

    b = r.body
    masked = r.masked_selects()

    def picks_at(t: int) -> dict[str, np.ndarray]:
        s = r.length - 1 - t if r.reverse else t
        env = {name: table[s] for name, table in r.step_tables.items()}
        return {v: np.asarray(operand_value(op.operands[0], env)) for v, op in masked.items()}

    if masked:
        found = row_sweep(r, masked, lambda t: r.selected_at(masked, t), STEP_LIMIT)
        if found is not None:
            return found
    if (r.length or 0) * b.n_in > STEP_LIMIT:
        raise InputError(
            f"{r.name or 'scan'}: a loop of {r.length:,} steps that selects at its counter in"
            f" what it carries ({b.n_in:,} body inputs): its patterns, step by step, would"
            f" cost {r.length * b.n_in:,} over {STEP_LIMIT:,} (each step's selection is its"
            " own); make the loop shorter or the carried array smaller"
        )
    whole = b.jacobian(None)
    if not masked:
        return r.step_sweep(lambda t: whole)
    return r.step_sweep(lambda t: masked_jacobian(b, picks_at(t)))


def _reads_only(x: Any, r: Region) -> bool:
    """Whether the nested operation ``x`` reads per-step masks and nothing else."""
    names = names_read([x])
    return bool(names) and names <= r.step_tables.keys()


def _carry_layout(r: Region) -> tuple[list[int], list[int]]:
    """Each carry's float entries as a body input and as a body output (0 where it is
    not a float there)."""
    b = r.body
    ins = [
        math.prod(b.shapes[r.n_consts + c]) if b.floats[r.n_consts + c] else 0
        for c in range(r.n_carry)
    ]
    outs = [
        math.prod(b.out_shapes[c]) if b.out_offsets[c] is not None else 0 for c in range(r.n_carry)
    ]
    return ins, outs


def _rows_to_in(m, ins: list[int], outs: list[int]) -> sp.csr_array:
    """Rows over the carries' output entries moved to the carries' input entries (a
    carry with no derivative out: zero rows there)."""
    if ins == outs:
        return bool_pattern(m)
    pieces, at = [], 0
    for i, o in zip(ins, outs, strict=True):
        if o:
            piece = m[at : at + o]
            at += o
            pieces.append(piece if i else None)
        elif i:
            pieces.append(sp.csr_array((i, m.shape[1])))
    pieces = [p for p in pieces if p is not None]
    return (
        bool_pattern(sp.vstack(pieces, format="csr")) if pieces else sp.csr_array((0, m.shape[1]))
    )


def _ranges(sizes: Iterable[tuple[int, int]]) -> tuple[dict[int, tuple[int, int]], int]:
    """Consecutive ranges from 0 of the given sizes, by key (``(key, size)`` pairs in
    order), and where the last one ends."""
    out: dict[int, tuple[int, int]] = {}
    at = 0
    for key, size in sizes:
        out[key] = (at, at + size)
        at += size
    return out, at


def _by_operand(r: Region, final_c, final_k, final_x, y_ck, y_x, n_c: int) -> dict:
    """The patterns split by (output, operand)."""
    b = r.body
    out: dict[tuple[int, int], Any] = {}
    # columns of (c_0, k) space per body input, and of xs per body x input
    carries = range(r.n_consts, r.n_consts + r.n_carry)
    c_at, _ = _ranges(
        (i, math.prod(b.shapes[i])) for i in [*carries, *range(r.n_consts)] if b.floats[i]
    )
    x_inputs = range(r.n_consts + r.n_carry, len(b.inputs))
    x_at, x_width = _ranges((i, math.prod(b.shapes[i])) for i in x_inputs if b.floats[i])
    ck = sp.csr_array(sp.hstack([final_c, final_k], format="csr")) if final_c.shape[0] else final_c
    carry_rows, _ = _ranges(
        (i - r.n_consts, math.prod(b.shapes[i])) for i in carries if b.floats[i]
    )
    ys = range(r.n_carry, r.n_carry + r.n_ys)
    y_rows, ny = _ranges(
        (o - r.n_carry, math.prod(b.out_shapes[o])) for o in ys if b.out_offsets[o] is not None
    )
    T = r.length or 0
    for k, i in enumerate(r.body_input):
        if i is None or not b.floats[i]:
            continue
        for j in range(len(r.out_shapes)):
            if j < r.n_carry:
                if j not in carry_rows:
                    continue
                lo, hi = carry_rows[j]
                if i in c_at:
                    a, z = c_at[i]
                    out[(j, k)] = bool_pattern(ck[lo:hi, a:z])
                elif final_x is not None:
                    a, z = x_at[i]
                    cols = _per_step(T, x_width, a, z)
                    out[(j, k)] = bool_pattern(final_x[lo:hi][:, cols])
            else:
                jj = j - r.n_carry
                if jj not in y_rows:
                    continue
                lo, hi = y_rows[jj]
                rows = _per_step(T, ny, lo, hi)
                if i in c_at and y_ck is not None:
                    a, z = c_at[i]
                    out[(j, k)] = _reverse_rows(bool_pattern(y_ck[rows][:, a:z]), r, hi - lo)
                elif i in x_at and y_x is not None:
                    a, z = x_at[i]
                    cols = _per_step(T, x_width, a, z)
                    found = bool_pattern(y_x[rows][:, cols])
                    out[(j, k)] = _reverse_cols(_reverse_rows(found, r, hi - lo), r, z - a)
            if (j, k) in out and j < r.n_carry and i in x_at:
                out[(j, k)] = _reverse_cols(out[(j, k)], r, x_at[i][1] - x_at[i][0])
    return out


def _reverse_rows(m, r: Region, size: int):
    """A reverse scan writes step t's row at T-1-t: the step order turned round."""
    if not r.reverse or not r.length:
        return m
    order = np.concatenate([np.arange(s * size, (s + 1) * size) for s in reversed(range(r.length))])
    return bool_pattern(sp.csr_array(m)[order])


def _reverse_cols(m, r: Region, size: int):
    """A reverse scan reads step t's slice at T-1-t."""
    if not r.reverse or not r.length:
        return m
    order = np.concatenate([np.arange(s * size, (s + 1) * size) for s in reversed(range(r.length))])
    return bool_pattern(sp.csr_array(m)[:, order])


# -- tangent matrices ------------------------------------------------------------------------


# -- graphs with regions ----------------------------------------------------------------------


def is_region(op: ArrayOp | None) -> bool:
    return op is not None and op.primitive in REGIONS


def regions_of(graph: DGraph) -> list[tuple[str, Region]]:
    """The graph's loop vertices and their regions (each vertex once)."""
    out = []
    for v in graph.nx:
        op = graph.op(v)
        if is_region(op):
            out.append((v, op.param["region"]))
    return out


def refuse_regions(graph: DGraph, what: str) -> None:
    """Raise InputError in one line where ``graph`` holds a loop and ``what`` (code
    generation) has no loop to print it with yet: never a wrong program."""
    found = regions_of(graph)
    if found:
        v, region = found[0]
        raise InputError(
            f"{graph.name or 'the graph'}: {what} of a loop ({v!r}: {region.kind}) is not"
            " supported yet"
        )


def region_notes(graph: DGraph, values: Mapping[str, np.ndarray]) -> list[str]:
    """A note per ``while_loop`` of ``graph``: its trip count at these vertex values,
    the one its derivative is taken at."""
    notes, seen = [], set()
    for v, region in regions_of(graph):
        if region.kind != "while" or id(region) in seen:
            continue
        seen.add(id(region))
        op = graph.op(v)
        args = [np.asarray(operand_value(x, values)) for x in op.operands]
        trips = region.trips(args)
        notes.append(
            f"{v}: while_loop ran {trips} trips at the point; its derivative is that of"
            f" {trips} trips (the trip count at the point)"
        )
    return notes


def _per_step(steps: int, width: int, lo: int, hi: int) -> np.ndarray:
    """Positions lo..hi of each of ``steps`` stacked blocks of ``width``, step by step."""
    starts = np.arange(steps, dtype=np.int64)[:, None] * width
    return (starts + np.arange(lo, hi, dtype=np.int64)).reshape(-1)
