"""Indexing by the loop counter inside a scan body: ``x[i]``, ``lax.dynamic_slice``,
``jnp.take``, ``x.at[i].set(v)``, ``x.at[i].add(v)``, ``lax.dynamic_update_slice``.

A ``fori_loop`` with static bounds is a ``scan`` whose carry ``i`` starts at a constant
and grows by a constant each step (``i = start + t·stride`` at step t); a scan may carry
such a counter itself, or scan over a constant integer ``xs`` (``jnp.arange(T)``). An
index that is a function of such counters and xs (and constants) alone is known at every
step before the loop runs, so each step's read or write is a
fixed selection:

* a read of an array every step reads whole (a loop operand, or a constant): the T
  selections stacked are an array of the program *outside* the loop — a gather at
  constant positions (``gather_flat``, :mod:`.jaxpr_scatter`), or a constant — and the
  body reads its row t as it reads a row of any ``xs`` (:mod:`dgraph.core.regions`); the
  patterns are the chain's with a side input per step, exact;
* a read of an array the body carries or computes: each entry of the read takes one of a
  few positions over the steps, so it is a gather of those candidates, a ``select_n`` on a
  per-step mask and a sum; a write (``x.at[i].set(u)``) whose entries are each written from
  one update entry whenever written is a ``select_n`` between ``x`` and the update spread
  over them; one whose window moves over ``x`` selects among a few update entries per
  entry, as a read does. The masks come from a new ``xs``: a write's, the positions each
  step writes (steps × the few it writes, not a mask over ``x``: :meth:`StepReads._mask`,
  the mask ``any(position == iota)`` computed in the body); a read's, its 0/1 rows over
  the entries it reads (``StepReads.tables``). The region's patterns are exact per step,
  swept over the rows each step's selections reach (:mod:`dgraph.core.step_rows`).

An addition at the counter (``x.at[i].add(u)``) is the write's select against zeros,
added to ``x``. In a loop inside a scan body, an index may also read the enclosing
scan's counter (passed in as an operand of the inner loop): a read of an array the outer
loop reads whole is then one gather outside the outer loop of every (outer, inner)
step's selection, a new xs of the outer loop whose slice is a new xs of the inner one.
In a ``while_loop`` (its trips unknown before it runs) ``dynamic_slice`` (``x[i]``) may
read at any index the body computes (its counter, a carry started at a value, a
comparison): the clamped start is compared in the body with every start the window can
take.

Every target's loop indexes the new ``xs`` by its step variable; the values come from the
same tangent sweep. The positions are JAX's: where every step's window lies inside the
array, the gather's or scatter's map of every step at once by NumPy
(:mod:`.jaxpr_index_maps`, the steps a batch axis in front; ``dynamic_slice`` and
``dynamic_update_slice`` clamped as JAX clamps them), which compiles nothing; else (a
window clamped, filled or dropped at some step, a set writing one entry twice at a step)
the primitive applied to the array's positions ``1, 2, …`` (a write: the update's ids)
at each step's index values, one ``jax.vmap`` over the steps (an XLA compile), so JAX's
clamping holds. An index that depends on values the
body computes is none of this: the array level's take at run-time positions
(:mod:`.jaxpr_dynamic`) or its transpose, read in the body. Refused in one line: an index
read from a loop operand computed from the values, a selection whose per-step tables would
hold more than ``STEP_LIMIT`` entries (steps × the entries a step selects), a combiner
other than ``set`` and ``add`` at the counter, two entries added into one at a step, in a
``while_loop`` anything but ``dynamic_slice`` at an index that changes from trip to trip,
at an outer loop's counter a read of what the inner loop carries or computes. A write at
an outer loop's counter in an inner loop is the transpose of a take at run-time
positions: right, its pattern the union over the positions the outer counter takes (a
superset of the exact one).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..blocks.arrays import ArrayOp, Const, names_read, operand_value, with_leaves
from ..core.regions import STEP_LIMIT
from ..errors import InputError
from .jaxpr_index_maps import gather_map, scatter_map
from .jaxpr_scatter import INDEX_OPERANDS

__all__ = ["StepReads", "counters_of", "known_xs"]

READS = frozenset({"dynamic_slice", "gather"})
WRITES = frozenset({"dynamic_update_slice", "scatter", "scatter-add", "scatter_add"})


def counters_of(closed, n_consts: int, n_carry: int, outside: list, names: list[str]) -> dict:
    """The scan body's counters: carry name -> (start, stride), for each integer scalar
    carry that starts at a constant and whose next value is itself plus a literal."""
    from jax.extend.core import Literal

    jaxpr = closed.jaxpr
    producers = {v: eqn for eqn in jaxpr.eqns for v in eqn.outvars}
    found = {}
    for c in range(n_carry):
        i = n_consts + c
        var, start = jaxpr.invars[i], outside[i]
        if not _integer(var.aval) or var.aval.shape != ():
            continue
        if not isinstance(start, np.ndarray) or start.size != 1:
            continue
        eqn = producers.get(jaxpr.outvars[c])
        if eqn is None or eqn.primitive.name != "add":
            continue
        a, b = eqn.invars
        step = b if a is var else a if b is var else None
        if isinstance(step, Literal) and np.ndim(step.val) == 0:
            found[names[i]] = (int(start.reshape(-1)[0]), int(step.val))
    return found


def known_xs(names: list[str], roles: list[str], outside: list, avals: list) -> dict:
    """The scan's integer xs that are constants (``jnp.arange(T)`` scanned over): name ->
    the stacked values, row t read at step t (T-1-t in a reverse scan)."""
    return {
        n: np.asarray(x)
        for n, r, x, a in zip(names, roles, outside, avals, strict=True)
        if r == "x" and isinstance(x, np.ndarray) and _integer(a)
    }


def _integer(aval) -> bool:
    """An integer dtype (a PRNG key's is no NumPy dtype: not one)."""
    return isinstance(aval.dtype, np.dtype) and np.issubdtype(aval.dtype, np.integer)


def _candidates(chosen: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For ``chosen`` (steps × entries: the position each entry takes at a step, -1 for
    none), each entry's candidates ``C[q, :]`` (the positions it takes, padded with its
    last; 0 where it takes none) and the per-step masks ``chosen[t, q] == C[q, r]``."""
    columns = [np.unique(c[c >= 0]) for c in chosen.T]
    width = max([1, *(c.size for c in columns)])
    cands = np.stack(
        [
            np.pad(c, (0, width - c.size), mode="edge") if c.size else np.zeros(width, int)
            for c in columns
        ]
    )
    real = np.arange(width)[None, :] < np.array([c.size for c in columns])[:, None]
    return cands, (chosen[:, :, None] == cands[None, :, :]) & real[None, :, :]


def _evaluable(x: Any) -> Any:
    """``x`` with every array operand of its nested operations as a
    :class:`~dgraph.blocks.arrays.Const` (the reader leaves literals as arrays)."""
    if isinstance(x, np.ndarray):
        return Const.of(x)
    if not isinstance(x, ArrayOp):
        return x
    return with_leaves(x, lambda y: Const.of(y) if isinstance(y, np.ndarray) else y)


@dataclass
class _Shape:
    """What :meth:`_Reader.result` reads of an aval: its shape and dtype."""

    shape: tuple[int, ...]
    dtype: Any


@dataclass
class StepReads:
    """The reads and writes at the counter met while reading one scan body, each with a
    new ``xs``: ``names`` (body inputs, after the body's own), ``operands`` (the stacked
    arrays, outside the loop), ``shapes`` (a step's slice), ``floats`` (a derivative may
    flow from it); ``tables``: the new xs that are per-step boolean masks (a selection
    inside the body: the region's patterns are then taken step by step)."""

    reader: Any  # the reader of the program around the loop
    counters: dict[str, tuple[int, int]]
    length: int
    reverse: bool
    outside: dict[str, Any]  # body input name -> its operand outside the loop
    first: int  # the first new input is named x<first>
    names: list[str] = field(default_factory=list)
    operands: list[Any] = field(default_factory=list)
    shapes: list[tuple[int, ...]] = field(default_factory=list)
    floats: list[bool] = field(default_factory=list)
    avals: list[Any] = field(default_factory=list)
    tables: dict[str, np.ndarray] = field(default_factory=dict)
    # tables of positions (:meth:`_mask`): name -> (the size they select in, the mask)
    positions: dict[str, tuple[int, Any]] = field(default_factory=dict)
    known: dict[str, np.ndarray] = field(default_factory=dict)  # constant integer xs
    while_loop: bool = False  # a while_loop's body: no counter is known before it runs

    def read(self, sub, eqn, ins: list) -> list | None:
        """The body's value for ``eqn`` if its index is a function of the counters, None
        if its index depends on nothing traced here."""
        name = eqn.primitive.name
        indices = list(ins[INDEX_OPERANDS[name]]) if name in INDEX_OPERANDS else []
        leaves = names_read(indices)
        if not leaves:
            return None
        where = sub.where
        if self.while_loop:
            if name == "gather":
                found = self._while_gather(sub, eqn, ins)
                if found is not None:
                    return [found]
            if name != "dynamic_slice":
                raise InputError(
                    f"{where}: {name} with an index that changes from trip to trip of a"
                    " while_loop is not supported (a read, x[i] or dynamic_slice, is; a"
                    " fori_loop with static bounds is a scan, where writes at i are)"
                )
            return [self._while_read(sub, eqn, ins)]
        unknown = leaves - self.counters.keys() - self.known.keys()
        nested = self._outer(unknown) if unknown else None
        if unknown and nested is None and unknown <= self.outside.keys():
            raise InputError(
                f"{where}: {name} with an index read from a loop operand (an integer"
                " argument, a value of an outer loop) is not supported: only the loops'"
                " counters are read"
            )
        if unknown and nested is None and unknown.isdisjoint(self.outside):
            return None  # positions computed in the body: a dynamic take or its transpose
        if unknown and nested is None:
            raise InputError(
                f"{where}: {name} with an index that depends on the inputs' values (not only"
                " on a loop counter) is not supported: make it a constant or the counter"
            )
        if name in WRITES:
            if nested is not None:  # the transpose of a take at run-time positions
                return None  # (its pattern the union over the outer loop's positions)
            return [self._write(sub, eqn, ins, indices)]
        if name not in READS:
            raise InputError(
                f"{where}: {name} at the loop counter is not supported: only reads (x[i],"
                " dynamic_slice, take) and writes (x.at[i].set, x.at[i].add and"
                " dynamic_update_slice are)"
            )
        data = ins[0]
        if isinstance(data, np.ndarray):
            source: Any = data
        elif isinstance(data, str) and data in self.outside:
            source = self.outside[data]
        elif nested is not None:
            raise InputError(
                f"{where}: {name} at an outer loop's counter of an array this loop carries or"
                " computes is not supported (of a loop operand or a constant it is)"
            )
        else:  # an array the body carries or computes: a selection inside the body
            return [self._select(sub, eqn, data, indices)]
        if nested is not None:
            return [self._nested_read(sub, eqn, indices, source, nested)]
        positions = self._turned(self._positions(eqn, indices, where))
        aval = eqn.outvars[0].aval
        shape = tuple(int(n) for n in aval.shape)
        stacked = (self.length, *shape)
        if isinstance(source, np.ndarray):
            operand: Any = np.asarray(source).reshape(-1)[positions].reshape(stacked)
        else:
            op = ArrayOp(
                "gather_flat",
                (self.reader.operand(source),),
                (("sources", tuple(positions.reshape(-1).tolist())),),
                stacked,
            )
            operand = self.reader.result(op, _Shape(stacked, aval.dtype))
        is_float = np.issubdtype(aval.dtype, np.floating)
        new = self._input(sub, operand, shape, is_float, aval.dtype)
        return [new if is_float else ArrayOp("stop_gradient", (new,), (), shape)]

    def _outer(self, names: set[str]) -> tuple[StepReads, dict[str, Any]] | None:
        """Where each of ``names`` is an operand of this loop that the enclosing scan's
        counters determine (its counter passed in, ``x[i]`` in an inner loop): that
        scan's reads and the operands' values there; else None."""
        outer = getattr(self.reader, "steps", None)
        if outer is None or outer.while_loop or not names <= self.outside.keys():
            return None
        given = outer.counters.keys() | outer.known.keys()
        values = {n: _evaluable(self.outside[n]) for n in names}
        if not all(isinstance(v, ArrayOp) and names_read([v]) <= given for v in values.values()):
            return None
        return outer, values

    def _nested_read(self, sub, eqn, indices: list, source: Any, nested) -> Any:
        """A read at the counters of this loop and of the enclosing scan, of an array
        the enclosing scan reads whole: the selections of all (outer, inner) steps are
        one gather outside the enclosing loop, a new xs of it whose step slice is a new
        xs of this loop (T_outer × T_inner selections, each exact)."""
        outer, _ = nested
        where = sub.where
        aval = eqn.outvars[0].aval
        shape = tuple(int(n) for n in aval.shape)
        rows = self._positions(eqn, indices, where, nested).reshape(outer.length, self.length, -1)
        rows = rows[:, ::-1] if self.reverse else rows
        rows = rows[::-1] if outer.reverse else rows
        stacked = (outer.length, self.length, *shape)
        if isinstance(source, np.ndarray):
            operand: Any = np.asarray(source).reshape(-1)[rows].reshape(stacked)
        elif isinstance(source, str) and source in outer.outside:
            op = ArrayOp(
                "gather_flat",
                (outer.reader.operand(outer.outside[source]),),
                (("sources", tuple(rows.reshape(-1).tolist())),),
                stacked,
            )
            operand = outer.reader.result(op, _Shape(stacked, aval.dtype))
        else:
            raise InputError(
                f"{where}: {eqn.primitive.name} at an outer loop's counter of an array the"
                " outer loop carries or computes is not supported (of its operand it is)"
            )
        is_float = np.issubdtype(aval.dtype, np.floating)
        step = (self.length, *shape)
        there = outer._input(self.reader, operand, step, is_float, aval.dtype)
        value = there if is_float else ArrayOp("stop_gradient", (there,), (), step)
        new = self._input(sub, value, shape, is_float, aval.dtype)
        return new if is_float else ArrayOp("stop_gradient", (new,), (), shape)

    def _input(self, sub, operand: Any, shape: tuple[int, ...], is_float: bool, dtype) -> str:
        """A new xs of the loop (its operand outside, a step's slice of ``shape``)."""
        new = f"x{self.first + len(self.names)}"
        while new in sub.taken or new in sub.index:
            new += "_"
        sub.taken.add(new)
        self.names.append(new)
        self.operands.append(operand)
        self.shapes.append(shape)
        self.floats.append(is_float)
        self.avals.append(_Shape((self.length, *shape), dtype))
        return new

    def _turned(self, rows: np.ndarray) -> np.ndarray:
        """Rows in step order as a stacked xs holds them (a reverse scan reads row T-1-t
        at step t)."""
        return rows[::-1] if self.reverse else rows

    def _table(self, sub, rows: np.ndarray) -> ArrayOp:
        """A new xs of per-step boolean rows (``rows`` in step order), read as a value no
        derivative flows through."""
        table = self._turned(np.asarray(rows, dtype=np.int32))
        shape = tuple(table.shape[1:])
        new = self._input(sub, table, shape, False, table.dtype)
        self.tables[new] = table
        return ArrayOp("stop_gradient", (new,), (), shape)

    def _select(self, sub, eqn, data: Any, indices: list) -> Any:
        """A read at the counter of an array of the body: entry q of the read takes one
        of a few positions of ``data`` over the steps (its candidates ``C[q, :]``), so the
        read is ``sum_r where(mask_t[q, r], data[C[q, r]], 0)``, the mask a new xs of
        booleans: step t's block is its own selection."""
        found = self._positions(eqn, indices, sub.where).reshape(self.length, -1)
        self._bounded(sub.where, eqn.primitive.name, found.size)
        cands, masks = _candidates(found)
        self._bounded(sub.where, eqn.primitive.name, masks.size)
        return self._selected(sub, eqn.outvars[0].aval, data, cands, self._table(sub, masks))

    def _while_read(self, sub, eqn, ins: list) -> Any:
        """``dynamic_slice`` in a ``while_loop`` at an index the body computes: its trips
        are not known before it runs, so the window's start is computed in the body
        (clamped as JAX does) and compared with every start it can take:
        ``sum_r where(start == s_r, x[C[:, r]], 0)``, a gather of the window at every
        start (the block's pattern: any of them, sound for every trip; its values the
        one taken)."""
        dtypes = [v.aval.dtype for v in eqn.invars[1:]]
        sizes = tuple(int(n) for n in eqn.params["slice_sizes"])
        return self._window(sub, ins[0], ins[1:], dtypes, sizes, eqn)

    def _while_gather(self, sub, eqn, ins: list) -> Any | None:
        """A ``gather`` in a ``while_loop`` that is a ``dynamic_slice``: one index vector,
        its starts clamped (``CLIP``, or promised in bounds), the slice's dimensions the
        output's in order (``vmap`` of ``x[j]``, ``jacfwd``'s tangents read at an index
        the body computes); None for any other gather."""
        from jax.lax import GatherScatterMode

        dims = eqn.params["dimension_numbers"]
        out = eqn.outvars[0].aval
        index = eqn.invars[1].aval
        modes = (GatherScatterMode.CLIP, GatherScatterMode.PROMISE_IN_BOUNDS)
        if (
            len(index.shape) != 1
            or eqn.params["mode"] not in modes
            or dims.operand_batching_dims
            or tuple(dims.offset_dims) != tuple(range(len(out.shape)))
        ):
            return None
        whole = eqn.invars[0].aval.shape
        at = {int(d): p for p, d in enumerate(dims.start_index_map)}
        starts: list[Any] = []
        for d in range(len(whole)):
            if d not in at:
                starts.append(np.zeros((), dtype=index.dtype))
            elif isinstance(ins[1], np.ndarray):
                starts.append(np.asarray(np.asarray(ins[1]).reshape(-1)[at[d]]))
            else:
                p = at[d]
                bounds = (("start_indices", (p,)), ("limit_indices", (p + 1,)), ("strides", None))
                entry = ArrayOp("slice", (ins[1],), bounds, (1,))
                starts.append(ArrayOp("reshape", (entry,), (), ()))
        sizes = tuple(int(n) for n in eqn.params["slice_sizes"])
        return self._window(sub, ins[0], starts, [index.dtype] * len(whole), sizes, eqn)

    def _window(self, sub, data: Any, starts: list, dtypes: list, sizes: tuple, eqn) -> Any:
        """The window of ``sizes`` at ``starts`` (clamped) of ``data``, shaped as
        ``eqn``'s output: compared with every start it can take (:meth:`_while_read`)."""
        whole = tuple(int(n) for n in eqn.invars[0].aval.shape)
        ranges = []
        for s, n, m in zip(starts, whole, sizes, strict=True):
            fixed = isinstance(s, np.ndarray)
            ranges.append([min(max(int(s), 0), n - m)] if fixed else range(n - m + 1))
        grid = np.array(np.meshgrid(*ranges, indexing="ij")).reshape(len(whole), -1)
        iota = np.arange(math.prod(whole)).reshape(whole)
        windows = [
            iota[tuple(slice(b, b + m) for b, m in zip(start, sizes, strict=True))].reshape(-1)
            for start in grid.T
        ]
        cands = np.stack(windows, axis=1)  # (entries of the window, starts)
        if cands.size > 10**7:
            raise InputError(
                f"{sub.where}: dynamic_slice in a while_loop: {cands.size} candidate"
                " entries (every start the window can take) is too many"
            )
        pair = cands.shape
        mask: Any = None
        for k, s in enumerate(starts):
            if isinstance(s, np.ndarray):
                continue
            top = Const.of(np.asarray(whole[k] - sizes[k], dtype=dtypes[k]))
            low = Const.of(np.zeros((), dtype=dtypes[k]))
            clamped = ArrayOp("max", (ArrayOp("min", (s, top), (), ()), low), (), ())
            spread = (("broadcast_dimensions", ()),)
            wide = ArrayOp("broadcast_in_dim", (clamped,), spread, pair)
            at = Const.of(np.broadcast_to(grid[k], pair).astype(dtypes[k]))
            test = ArrayOp("eq", (wide, at), (), pair)
            mask = test if mask is None else ArrayOp("and", (mask, test), (), pair)
        return self._selected(sub, eqn.outvars[0].aval, data, cands, mask)

    def _selected(self, sub, aval, data: Any, cands: np.ndarray, mask: Any) -> Any:
        """``sum_r where(mask[q, r], data[cands[q, r]], 0)`` reshaped to ``aval``."""
        dtype, pair, m = aval.dtype, cands.shape, cands.shape[0]
        gathered = self._gathered(sub, data, cands.reshape(-1), pair, dtype)
        zeros = Const.of(np.zeros(pair, dtype=dtype))
        picked = sub.result(
            ArrayOp("select_n", (mask, zeros, gathered), (), pair), _Shape(pair, dtype)
        )
        total = ArrayOp("reduce_sum", (picked,), (("axes", (1,)),), (m,))
        total = sub.result(total, _Shape((m,), dtype))
        return sub.result(ArrayOp("reshape", (total,), (), tuple(aval.shape)), aval)

    def _write(self, sub, eqn, ins: list, indices: list) -> Any:
        """A write at the counter (``x.at[i].set(u)``, ``dynamic_update_slice``) where
        each entry of ``x`` is written from one entry of ``u`` whatever the step (a row
        from the same update entries): ``where(mask_t, u[B], x)``, the mask a new xs of
        booleans; a window whose entries move over ``x`` (an entry takes one of a few
        update entries over the steps) is :meth:`_select`'s form on ``u``."""
        where, name = sub.where, eqn.primitive.name
        adds = name in ("scatter-add", "scatter_add")
        if not adds and (
            name not in ("scatter", "dynamic_update_slice")
            or (name == "scatter" and eqn.params.get("update_jaxpr") is not None)
        ):
            raise InputError(
                f"{where}: {name} at the loop counter is not supported (x.at[i].set,"
                " x.at[i].add and dynamic_update_slice are)"
            )
        x, u = (ins[0], ins[1]) if name == "dynamic_update_slice" else (ins[0], ins[2])
        aval = eqn.outvars[0].aval
        shape = tuple(int(k) for k in aval.shape)
        size = math.prod(shape)
        self._bounded(where, name, self.length * max(1, math.prod(_update_shape(eqn))))
        steps, at, entry = self._writes(eqn, indices, where)  # one triple per entry written
        cands, pick = _written_candidates(at, entry, size)  # each entry's update entries
        width = cands.shape[1]
        if width == 1:  # each entry from one update entry whenever written: a gather
            spread = self._gathered(sub, u, cands[:, 0], shape, aval.dtype)
        else:  # a window moving over x: each entry one of a few update entries per step
            hit = self._mask(sub, steps, at * width + pick, (size, width), where, name)
            spread = self._selected(sub, aval, u, cands, hit)
        if adds and width > 1:  # the selection is zero where nothing is written
            return sub.result(
                ArrayOp("add", (sub.operand(x), sub.operand(spread)), (), shape), aval
            )
        masks = self._mask(sub, steps, at, shape, where, name)
        if not adds:
            return sub.result(ArrayOp("select_n", (masks, sub.operand(x), spread), (), shape), aval)
        zeros = Const.of(np.zeros(shape, dtype=aval.dtype))
        added = sub.result(ArrayOp("select_n", (masks, zeros, spread), (), shape), aval)
        return sub.result(ArrayOp("add", (sub.operand(x), sub.operand(added)), (), shape), aval)

    def _mask(
        self,
        sub,
        steps: np.ndarray,
        flat: np.ndarray,
        shape: tuple[int, ...],
        where: str,
        name: str,
    ) -> ArrayOp:
        """The per-step boolean mask over ``shape`` that is true at ``flat`` (one per
        entry selected, at step ``steps``, in step order) and false elsewhere: a new xs
        of the positions each step selects (steps × the most any step selects, padded
        with the size: no position), and the mask computed from a step's row in the
        body (``any(position == iota)``), read as a value no derivative flows through."""
        size = math.prod(shape)
        counts = np.bincount(steps, minlength=self.length)
        most = max(1, int(counts.max(initial=0)))
        self._bounded(where, name, self.length * most)
        table = np.full((self.length, most), size, dtype=np.int32)
        order = np.lexsort((flat, steps))
        steps, flat = steps[order], flat[order]
        table[steps, np.arange(steps.size) - (np.cumsum(counts) - counts)[steps]] = flat
        table = self._turned(table)
        new = self._input(sub, table, (most,), False, table.dtype)
        self.tables[new] = table
        positions = ArrayOp("stop_gradient", (new,), (), (most,))
        spread = (("broadcast_dimensions", (1,)),)
        wide = ArrayOp("broadcast_in_dim", (positions,), spread, (size, most))
        iota = Const.of(np.broadcast_to(np.arange(size, dtype=np.int32)[:, None], (size, most)))
        hit = ArrayOp("eq", (wide, iota), (), (size, most))
        if most == 1:
            found = ArrayOp("reshape", (hit,), (), (size,))
        else:
            found = ArrayOp("reduce_max", (hit,), (("axes", (1,)),), (size,))
        mask = ArrayOp("reshape", (found,), (), shape)
        self.positions[new] = (size, mask)
        return mask

    def _gathered(self, sub, u: Any, sources: np.ndarray, shape: tuple[int, ...], dtype) -> Any:
        """``u``'s flat entries at ``sources``, in ``shape``."""
        if isinstance(u, np.ndarray):
            return Const.of(np.asarray(u).reshape(-1)[sources].reshape(shape))
        params = (("sources", tuple(sources.tolist())),)
        spread = ArrayOp("gather_flat", (sub.operand(u),), params, shape)
        return sub.result(spread, _Shape(shape, dtype))

    def _bounded(self, where: str, name: str, entries: int) -> None:
        """Refuse, in one line, a selection at the counter in an array the body carries
        or computes whose per-step tables (the positions each step selects, over the
        steps: ``entries``) would hold more than ``STEP_LIMIT`` entries."""
        if entries > STEP_LIMIT:
            raise InputError(
                f"{where}: {name} at the loop counter in an array the loop carries, over"
                f" {self.length:,} steps: its per-step selections would hold {entries:,}"
                f" entries, over {STEP_LIMIT:,} (each step's is its own); make the loop"
                " shorter"
            )

    def _env(self, t: int) -> dict[str, np.ndarray]:
        """The counters' and the constant xs' values at step t."""
        env = {c: np.asarray(start + t * stride) for c, (start, stride) in self.counters.items()}
        row = self.length - 1 - t if self.reverse else t  # a reverse scan's xs row
        env.update({x: np.asarray(rows[row]) for x, rows in self.known.items()})
        return env

    def _index_values(self, eqn, indices: list, nested=None) -> list[np.ndarray]:
        """Each index operand's value at every step, stacked (step order), in the dtype
        the equation takes; ``nested``: at every step of the enclosing scan (outer)
        and of this loop (inner), outer-major."""
        indices = [_evaluable(x) for x in indices]
        outside: list[dict[str, np.ndarray]] = [{}]
        if nested is not None:
            outer, values = nested
            outside = []
            for s in range(outer.length):
                env = outer._env(s)
                outside.append({n: np.asarray(operand_value(v, env)) for n, v in values.items()})
        per_step = []
        for given in outside:
            for t in range(self.length):
                env = {**given, **self._env(t)}
                per_step.append([np.asarray(operand_value(x, env)) for x in indices])
        kinds = [v.aval.dtype for v in eqn.invars[INDEX_OPERANDS[eqn.primitive.name]]]
        return [np.stack([s[k] for s in per_step]).astype(kind) for k, kind in enumerate(kinds)]

    def _writes(self, eqn, indices: list, where: str) -> tuple[np.ndarray, ...]:
        """The entries a write at the counter sets, one triple each (step, in step
        order; flat position in the written array; update entry, flat): a
        ``dynamic_update_slice`` from its starts clamped as JAX clamps them (the
        update's entries per step), another write by JAX's own write of the update's
        ids (1-based) into zeros at each step's index values, a chunk of steps at a time
        (their nonzero entries kept)."""
        name = eqn.primitive.name
        whole = tuple(int(n) for n in eqn.invars[0].aval.shape)
        part = tuple(
            int(n) for n in eqn.invars[1 if name == "dynamic_update_slice" else 2].aval.shape
        )
        if name == "dynamic_update_slice":
            starts = self._index_values(eqn, indices)
            tops = [
                np.clip(s.astype(np.int64), 0, n - m)
                for s, n, m in zip(starts, whole, part, strict=True)
            ]
            offsets = np.indices(part).reshape(len(part), -1)
            places = [top[:, None] + o[None, :] for top, o in zip(tops, offsets, strict=True)]
            at = (
                np.ravel_multi_index(places, whole)
                if places
                else np.zeros((self.length, 1), np.int64)
            )
            count = max(1, math.prod(part))
            steps = np.repeat(np.arange(self.length), count)
            entry = np.tile(np.arange(count), self.length)
            return steps, at.reshape(-1).astype(np.int64), entry
        ids = np.arange(1, math.prod(part) + 1, dtype=np.int32).reshape(part)
        if name in ("scatter-add", "scatter_add"):  # its update_jaxpr adds the array's dtype
            if ids.size >= 2**24:
                raise InputError(f"{where}: {name} of {ids.size} entries at the loop counter")
            ids = ids.astype(eqn.invars[0].aval.dtype)
        zeros = np.zeros(whole, dtype=ids.dtype)
        params = dict(eqn.params)

        adds = name in ("scatter-add", "scatter_add")

        def write(*index):
            return eqn.primitive.bind(zeros, *index, ids, **params)

        def count(*index):  # an addition's count of the entries added into each
            return eqn.primitive.bind(zeros, *index, np.ones_like(ids), **params)

        stacked = self._index_values(eqn, indices)
        found = _stacked_targets(eqn, whole, part, stacked)
        if found is not None:  # by NumPy (a dropped entry's target negative)
            at = found.reshape(self.length, -1)
            repeated = _repeats(at)
            if repeated and adds:
                raise InputError(
                    f"{where}: {name} at the loop counter adds several update entries into"
                    " one entry at a step: not supported"
                )
            if not repeated:  # (a set's repeated position: the entry JAX's write keeps)
                steps = np.repeat(np.arange(self.length, dtype=np.int64), at.shape[1])
                entry = np.tile(np.arange(at.shape[1], dtype=np.int64), self.length)
                written = at.reshape(-1) >= 0
                steps, at, entry = steps[written], at.reshape(-1)[written], entry[written]
                order = np.lexsort((at, steps))
                return steps[order], at[order], entry[order]
        chunk = max(1, 2**22 // max(1, math.prod(whole)))
        found = []
        for lo in range(0, self.length, chunk):
            part = [x[lo : lo + chunk] for x in stacked]
            if adds and (_vmapped(count, eqn, part, where) > 1).any():
                raise InputError(
                    f"{where}: {name} at the loop counter adds several update entries into"
                    " one entry at a step: not supported"
                )
            rows = _vmapped(write, eqn, part, where)
            rows = rows.reshape(rows.shape[0], -1)
            s, q = np.nonzero(rows)
            found.append((s + lo, q, rows[s, q] - 1))
        steps, at, entry = (np.concatenate(x).astype(np.int64) for x in zip(*found, strict=True))
        return steps, at, entry

    def _positions(self, eqn, indices: list, where: str, nested=None) -> np.ndarray:
        """Per step (step order; ``nested``: :meth:`_index_values`'), the flat position
        each entry of the read takes."""
        whole = tuple(int(n) for n in eqn.invars[0].aval.shape)
        size = math.prod(whole)
        if size >= 2**31 - 1:
            raise InputError(f"{where}: an array of {size} entries read at the loop counter")
        iota = np.arange(1, size + 1, dtype=np.int32).reshape(whole)
        params = dict(eqn.params)
        if eqn.primitive.name == "gather":
            params["fill_value"] = 0

        def read(*index):
            return eqn.primitive.bind(iota, *index, **params)

        if eqn.primitive.name == "dynamic_slice" and len(eqn.invars) > 1:  # no vmap: NumPy
            found = _windows(self._index_values(eqn, indices, nested), whole, params)
        elif (
            sources := _stacked_sources(eqn, whole, self._index_values(eqn, indices, nested))
        ) is not None:
            found = sources  # NumPy's map (windows clamped or filled as JAX does), no vmap
        else:
            found = self._mapped(read, eqn, indices, where, nested) - 1
        if (found < 0).any():
            raise InputError(
                f"{where}: {eqn.primitive.name} at the loop counter reads out of bounds (a"
                " fill) at some step: not supported"
            )
        return found

    def _mapped(self, apply, eqn, indices: list, where: str, nested=None) -> np.ndarray:
        """``apply`` at every step's index values (one ``jax.vmap``), as int64."""
        return _vmapped(apply, eqn, self._index_values(eqn, indices, nested), where)


def _windows(starts: list[np.ndarray], whole: tuple[int, ...], params: dict) -> np.ndarray:
    """``dynamic_slice``'s flat positions at each row of the stacked ``starts`` (clamped
    into the array as JAX clamps them): ``(rows, *slice_sizes)``, what ``jax.vmap`` of
    the slice of the array's positions gives."""
    sizes = tuple(int(n) for n in params["slice_sizes"])
    rows = starts[0].shape[0] if starts else 1
    tops = [
        np.clip(s.astype(np.int64).reshape(rows), 0, n - m)
        for s, n, m in zip(starts, whole, sizes, strict=True)
    ]
    offsets = np.indices(sizes).reshape(len(sizes), -1)
    places = [top[:, None] + o[None, :] for top, o in zip(tops, offsets, strict=True)]
    at = np.ravel_multi_index(places, whole) if places else np.zeros((rows, 1), np.int64)
    return at.reshape(rows, *sizes).astype(np.int64)


def _stacked_sources(eqn, whole: tuple[int, ...], stacked: list[np.ndarray]) -> np.ndarray | None:
    """A ``gather``'s flat positions at each row of its stacked index values, ``(rows,
    *output)``: the gather of all rows at once (the rows a batch axis in front,
    :func:`~.jaxpr_index_maps.gather_map`, windows clamped as the mode clamps them, -1
    where one is filled), what ``jax.vmap`` of the gather of the array's positions gives;
    None where the dimension numbers or the mode leave it to JAX."""
    if eqn.primitive.name != "gather" or len(stacked) != 1:
        return None
    idx = stacked[0]
    numbers = eqn.params["dimension_numbers"]
    shape = (idx.shape[0], *(int(n) for n in eqn.outvars[0].aval.shape))
    wider = numbers._replace(offset_dims=tuple(d + 1 for d in numbers.offset_dims))
    sizes = tuple(int(n) for n in eqn.params["slice_sizes"])
    found = gather_map(whole, shape, idx, wider, sizes, eqn.params["mode"])
    return None if found is None else np.where(found[1], found[0], -1).reshape(shape)


def _stacked_targets(
    eqn, whole: tuple[int, ...], part: tuple[int, ...], stacked: list[np.ndarray]
) -> np.ndarray | None:
    """A ``scatter``'s (or ``scatter-add``'s) flat target of each update entry at each row
    of its stacked index values, ``(rows, *update)``
    (:func:`~.jaxpr_index_maps.scatter_map` with the rows a batch axis in front, windows
    clamped as the mode clamps them), a dropped entry's target ``-1 - k`` (``k`` its flat
    place: no two alike); None where the mode leaves it to JAX."""
    if len(stacked) != 1:
        return None
    idx = stacked[0]
    numbers = eqn.params["dimension_numbers"]
    wider = numbers._replace(update_window_dims=tuple(d + 1 for d in numbers.update_window_dims))
    shape = (idx.shape[0], *part)
    found = scatter_map(whole, shape, idx, wider, eqn.params["mode"])
    if found is None:
        return None
    at, kept = found
    return np.where(kept, at, -1 - np.arange(at.size)).reshape(shape)


def _repeats(at: np.ndarray) -> bool:
    """Whether some row of ``at`` holds a position twice."""
    if at.shape[1] < 2:
        return False
    ordered = np.sort(at, axis=1)
    return bool((ordered[:, 1:] == ordered[:, :-1]).any())


def _vmapped(apply, eqn, stacked: list[np.ndarray], where: str) -> np.ndarray:
    """``apply`` at each row of the stacked index values (one ``jax.vmap``), as int64."""
    import jax

    try:
        return np.asarray(jax.vmap(apply)(*stacked)).astype(np.int64)
    except Exception as exc:
        raise InputError(
            f"{where}: {eqn.primitive.name}: reading its positions at the loop counter"
            f" failed: {type(exc).__name__}"
        ) from None


def _update_shape(eqn) -> tuple[int, ...]:
    """A write's update shape (the entries it writes at a step, at most)."""
    name = eqn.primitive.name
    return tuple(int(n) for n in eqn.invars[1 if name == "dynamic_update_slice" else 2].aval.shape)


def _written_candidates(at: np.ndarray, entry: np.ndarray, size: int):
    """From the writes (position ``at`` of an array of ``size`` entries takes update
    entry ``entry``, one pair per write over the steps), each position's candidates
    ``C[q, :]`` (the update entries it takes, ascending, padded with its last; 0 where
    it takes none) and, per write, which candidate it takes."""
    span = int(entry.max(initial=0)) + 1
    keys, inverse = np.unique(at * span + entry, return_inverse=True)
    q, e = np.divmod(keys, span)
    counts = np.bincount(q, minlength=size)
    width = max(1, int(counts.max(initial=0)))
    rank = np.arange(keys.size) - (np.cumsum(counts) - counts)[q]
    cands = np.zeros((size, width), dtype=np.int64)
    cands[q, rank] = e
    for j in range(1, width):
        short = (counts > 0) & (counts <= j)
        cands[short, j] = cands[short, j - 1]
    return cands, rank[inverse.reshape(-1)]
