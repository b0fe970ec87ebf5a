"""A loop body's values a step at a time in the entries the step writes, not the carried
arrays': a scan that writes at its counter costs its written entries a step.

A scan body that writes at its counter (:mod:`dgraph.frontends.jaxpr_steps`) holds
``select_n`` vertices on per-step masks (:meth:`~dgraph.core.regions.Region.masked_selects`):
each step picks a case other than 0 at a few entries
(:meth:`~dgraph.core.regions.Region.selected_at`), and a carried array comes out as it went
in but there. Evaluated whole, each step costs the array's size (O(n²) for n steps). Here
(a change propagated through the body's dataflow graph to what it reaches alone, as in
self-adjusting computation: U. A. Acar, *Self-Adjusting Computation*, PhD thesis, CMU,
2005), once per run each large vertex (more than :data:`SMALL` entries) is classed:

* *based* on a carried array or on an array the same every step: it equals that base
  outside a set of entries known each step. A carry is based on itself; a masked select
  whose case 0 is based (or the same every step) is based on that, outside the entries
  its mask selects; ``a + 0``, ``a - 0``, ``a · 1`` (the other operand the same every
  step and all zeros or ones) and a reshape or copy of a based ``a`` are based as ``a``
  is;
* *the same every step* (reads only such arrays): evaluated at the first step and kept;
* *read where asked*: an elementwise operation, a gather or a move of the operands, its
  entries computed from theirs only where a based vertex reads them (a masked select's
  other cases at the entries it selects).

Each step, the small vertices are evaluated whole; a carried array's output, based on
it, is computed at the entries its bases' sets give (each entry by the same NumPy
operations as the whole array's: the same numbers) and written into the carry in place.
A body with another large vertex (a reduction over a carried array, a ys output of the
array's size, a dot) is evaluated whole (None from :meth:`StepValues.of`).

``x + 0.0`` and ``x - (-0.0)`` are ``x`` for every ``x`` but ``-0.0`` (``+0.0`` whole): a
run whose based carries hold a ``-0.0`` where such an operation passes them is evaluated
whole (from its start, or from the step that writes one).

A run for values keeps the small values of each step
(:func:`~dgraph.core.region_sweep.forward_run`); the large vertices are left out of them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from ..blocks.arrays import (
    ELEMENTWISE,
    ArrayOp,
    Const,
    elementwise_forward,
    evaluate,
    names_read,
    operand_value,
)
from ..blocks.scatter import positions

__all__ = ["SMALL", "StepValues"]

Region = Any  # dgraph.core.regions.Region (which imports this module's user)

SMALL = 1
"""A vertex of at most this many entries is evaluated whole each step."""

_MOVED = ("reshape", "squeeze", "expand_dims")  # the same flat entries
_ELEMENTWISE_VALUES = frozenset(
    {
        *ELEMENTWISE,
        *("stop_gradient", "floor", "ceil", "round", "sign", "is_finite"),
        *("eq", "ne", "lt", "le", "gt", "ge", "and", "or", "not"),
        "integer_pow",
        "select_n",
    }
)
_IDENTITY = {"add": 0.0, "sub": 0.0, "mul": 1.0}  # a ∘ k is a where k is this


class StepValues:
    """A scan's body evaluated a step at a time in the entries it writes (module
    docstring), at one run's constants: made by :meth:`of`, then :meth:`step` per step."""

    def __init__(self, region: Region, consts: list[np.ndarray]) -> None:
        b = region.body
        self.region, self.body, self.graph = region, b, b.graph
        self.masked = region.masked_selects()
        self.shape = {x: tuple(s) for x, s in zip(b.inputs, b.shapes, strict=True)}
        for v in b.order:
            if self.graph.op(v) is not None:
                self.shape[v] = tuple(self.graph.shape(v))
        self.size = {v: math.prod(s) for v, s in self.shape.items()}
        self.ops = {v: self.graph.op(v) for v in b.order}
        # the same every step: the constants' values, then vertices' (None until made)
        self.same: dict[str, np.ndarray | None] = {}
        for x, value in zip(b.inputs[: region.n_consts], consts, strict=True):
            self.same[x] = np.asarray(value).reshape(self.shape[x])
        self.carry_of = {b.inputs[region.n_consts + c]: c for c in range(region.n_carry)}
        # based vertex -> (its base: a carry's index, or the value it equals outside its
        # set; the vertices whose sets its set joins)
        self.based: dict[str, tuple[Any, list[str]]] = {}
        self.computed: list[str] = []  # large op vertices read at entries, in body order
        self.whole: list[tuple[str, ArrayOp]] = []  # small vertices: evaluated whole
        self.first: list[tuple[str, ArrayOp]] = []  # large, the same every step: once
        self.adds_zero = False  # x + 0.0 or x - (-0.0) passes a carry (module docstring)
        self.broken = False  # a carry took a -0.0 where adds_zero: evaluate whole
        # carry index -> the masked selects added onto it, in order (_sums); None: stepped
        self.sums: dict[int, list[str]] | None = None
        self.reads: set[str] = set()  # the small values the sums' selects read
        self.kept: dict[str, list] = {}  # those values, step by step, for finish()

    @classmethod
    def of(
        cls, region: Region, args: list[np.ndarray], kept: Iterable[str] = ()
    ) -> StepValues | None:
        """For a scan with masked selects whose large vertices are each based, the same
        every step or read where asked, whose large carries come out based on
        themselves and whose outputs otherwise and ``kept`` vertices (read by the
        caller each step) are small or the same every step; else None."""
        if region.kind != "scan" or not region.masked_selects():
            return None
        first = region.n_cond_consts
        found = cls(region, [np.asarray(a) for a in args[first : first + region.n_consts]])
        return found if found._classify(set(kept)) else None

    def _large(self, v: str) -> bool:
        return self.size[v] > SMALL

    def _classify(self, kept: set[str]) -> bool:
        """Each vertex's class (module docstring); False where the body does not fit."""
        b, g, r = self.body, self.graph, self.region
        for x, c in self.carry_of.items():
            if self._large(x) and b.floats[r.n_consts + c]:
                self.based[x] = (c, [])
        for v in b.order:
            op = g.op(v)
            if op is None:
                continue
            if not self._large(v):
                self.whole.append((v, op))
            elif not self._class_of(v, op):
                return False
        read_whole = set(kept)
        for _, op in self.whole:
            read_whole |= names_read([op])
        for o, out in enumerate(b.outputs):
            if o < r.n_carry and isinstance(out, str) and self._large(out):
                base = self.based.get(out)
                size = math.prod(b.shapes[r.n_consts + o])
                if base is None or not isinstance(base[0], int) or base[0] != o:
                    return False
                if self.size[out] != size:
                    return False
            else:
                read_whole |= {out} if isinstance(out, str) else names_read([out])
        large = {v for v in read_whole if self._large(v)}
        slices = set(b.inputs[r.n_consts + r.n_carry :])  # each step's own arrays
        fits = large <= self.same.keys() | slices and bool(self.computed)
        if fits:
            self.sums = self._sums()
        return fits

    def _sums(self) -> dict[int, list[str]] | None:
        """Where each large carry only has masked selects added onto it (``c + s₁ + s₂
        + …``, each ``s`` zero outside the entries its mask picks, its picks reading no
        carry) and nothing else reads the carry or the sums: per carry, the selects in
        the order added; else None. Such a run's steps add their picks onto the carry
        all at once when it ends (:meth:`finish`), each entry's sum in the same order."""
        b, g, r = self.body, self.graph, self.region
        chain = {v for v, (base, _) in self.based.items() if isinstance(base, int)}
        terms = {v for v in self.masked if v in self.based and v not in chain}
        added: dict[str, tuple[str, str | None]] = {}  # chain vertex -> (chain operand, term)
        for v in chain:
            op = g.op(v)
            if op is None:  # a carry
                continue
            if op.primitive in (*_MOVED, "copy", "convert_element_type"):
                added[v] = (op.operands[0], None)
                continue
            if op.primitive != "add" or len(op.operands) != 2:
                return None
            a, other = op.operands
            if other in chain:
                a, other = other, a
            if a not in chain or other not in terms:
                return None
            added[v] = (a, other)
        for v in b.order:  # nothing but the sums reads the carries, the sums or the picks
            op = g.op(v)
            if op is not None and v not in chain and names_read([op]) & (chain | terms):
                return None
        for o, out in enumerate(b.outputs):
            if o >= r.n_carry and (out in chain or names_read([out]) & (chain | terms)):
                return None
        sums: dict[int, list[str]] = {}
        for o in range(r.n_carry):
            out = b.outputs[o]
            if out not in chain:
                continue
            order: list[str] = []
            while out in added:
                out, term = added[out]
                if term is not None:
                    order.append(term)
            if out != b.inputs[r.n_consts + o]:
                return None
            sums[o] = order[::-1]
        used = [t for order in sums.values() for t in order]
        if len(used) != len(set(used)) or set(used) != terms:
            return None
        for v in terms:  # the picks read small values, constants and other picks
            op = g.op(v)
            todo = list(names_read(op.operands[1:]))
            while todo:
                x = todo.pop()
                if x in self.reads:
                    continue
                if x in chain or (self._large(x) and x not in self.computed and x not in self.same):
                    return None
                if x in self.computed and x not in terms:
                    todo.extend(names_read(g.op(x).operands))
                elif not self._large(x):
                    self.reads.add(x)
        return sums

    def _class_of(self, v: str, op: ArrayOp) -> bool:
        """Class the large vertex ``v``; False where it has none."""
        names = names_read([op])
        if names <= self.same.keys():
            self.same[v] = None
            self.first.append((v, op))
            return True
        operands = op.operands[1:] if v in self.masked else op.operands
        if not self._readable(names_read(operands)):
            return False
        nested = names_read([y for y in operands if isinstance(y, ArrayOp)])
        if any(self._large(x) and x not in self.same and x not in self.body.inputs for x in nested):
            return False  # a nested operation reads entries of a vertex only where asked
        if v in self.masked:
            base = self._base(op.operands[1])
            if base is not None:
                self.based[v] = base
                self.computed.append(v)
                return True
        elif op.primitive in (*_MOVED, "copy", "convert_element_type"):
            a = op.operands[0]
            if isinstance(a, str) and a in self.based and self.size[a] == self.size[v]:
                self.based[v] = (self.based[a][0], [a])
                self.computed.append(v)
                return True
        elif op.primitive in _IDENTITY and len(op.operands) == 2 and self._identity(v, op):
            self.computed.append(v)
            return True
        if not self._position_op(op):
            return False
        self.computed.append(v)  # read where asked
        return True

    def _base(self, x: Any) -> tuple[Any, list[str]] | None:
        """A masked select's base from its case 0 ``x``: a based vertex's, or ``x``'s
        value where it is the same every step (its set: the selected entries alone)."""
        if isinstance(x, str) and x in self.based:
            return self.based[x][0], [x]
        if isinstance(x, Const):
            return np.asarray(x.value, dtype=float), []
        if isinstance(x, str) and x in self.same:
            return x, []
        return None

    def _readable(self, names: set[str]) -> bool:
        """Whether every vertex in ``names`` can be read at some entries alone."""
        return all(
            not self._large(x)
            or x in self.same
            or x in self.based
            or x in self.computed
            or x in self.body.inputs
            for x in names
        )

    def _identity(self, v: str, op: ArrayOp) -> bool:
        """``a + 0``, ``0 + a``, ``a - 0``, ``a · 1``, ``1 · a`` with ``a`` based and the
        other operand, outside its set, the same every step and all zeros or ones."""
        k = _IDENTITY[op.primitive]
        for i in (0, 1) if op.primitive != "sub" else (0,):
            a, other = op.operands[i], op.operands[1 - i]
            if not isinstance(a, str) or a not in self.based or self.size[a] != self.size[v]:
                continue
            value, joins = self._outside(other)
            if value is None or not bool((value == k).all()):
                continue
            sign = np.signbit(value)  # x + 0.0 and x - (-0.0) take -0.0 to +0.0
            if op.primitive == "add":
                self.adds_zero |= bool((~sign).any())
            elif op.primitive == "sub":
                self.adds_zero |= bool(sign.any())
            self.based[v] = (self.based[a][0], [a, *joins])
            return True
        return False

    def _outside(self, x: Any) -> tuple[np.ndarray | None, list[str]]:
        """The value ``x`` takes outside its set where that is the same every step (a
        constant, an array the same every step, a vertex based on one), and the
        vertices whose sets it joins; (None, []) else."""
        if isinstance(x, Const):
            return np.asarray(x.value, dtype=float), []
        if not isinstance(x, str):
            return None, []
        if x in self.same:
            return self._same_value(x), []
        base = self.based.get(x)
        if base is None or isinstance(base[0], int):
            return None, []
        return self._value(base[0]), [x]

    def _value(self, base: Any) -> np.ndarray:
        return base if isinstance(base, np.ndarray) else self._same_value(base)

    def _same_value(self, x: str) -> np.ndarray:
        """An array the same every step (a constant's; a vertex's, evaluated once, those
        before it first)."""
        for v, op in self.first:
            if self.same[x] is not None:
                break
            if self.same[v] is None:
                self.same[v] = evaluate(op, self.same)  # type: ignore[arg-type]
        return self.same[x]  # type: ignore[return-value]

    @staticmethod
    def _position_op(op: ArrayOp) -> bool:
        """Whether ``op``'s entries can be computed from its operands' at theirs alone."""
        name = op.primitive
        if name in ("gather_flat", "broadcast_in_dim", *_MOVED):
            return len(op.operands) == 1
        return name in _ELEMENTWISE_VALUES

    # -- a run -------------------------------------------------------------------------

    def start(self, carries: list[np.ndarray]) -> list[np.ndarray] | None:
        """The run's carries, the large ones copies this run writes in place; None
        where an add of zeros would not pass one as it is (a ``-0.0``)."""
        out = []
        for c, value in enumerate(carries):
            x = self.body.inputs[self.region.n_consts + c]
            if x in self.based:
                value = np.array(value, dtype=float).reshape(self.shape[x])
                if self._negative_zero(value):
                    return None
                if self.sums is not None and np.signbit(value[value == 0.0]).any():
                    self.sums = None  # c + 0.0 takes a carried -0.0 to +0.0: stepped
            out.append(value)
        return out

    def _negative_zero(self, values: np.ndarray) -> bool:
        return self.adds_zero and bool(np.signbit(values[values == 0.0]).any())

    def step(self, t: int, inputs: list[np.ndarray], batch: Any = None) -> tuple[dict, list, list]:
        """Step t (run order) at ``inputs`` (the constants, the carries: the large ones
        this run's own, written in place; the slices): the values of the vertices not
        based (those read where asked left out), the carries out and the ys;
        ``batch``: the run's batched values (:class:`~dgraph.core.step_batch.StepBatch`),
        its small vertices and outputs not evaluated again."""
        b, r = self.body, self.region
        values: dict[str, Any] = dict(zip(b.inputs, inputs, strict=True))
        for v, _ in self.first:
            values[v] = self._same_value(v)
        known = None if batch is None else batch.at(t)
        outputs = {} if batch is None else batch.outputs_at(t)
        if known:
            for v, op in self.whole:
                found = known.get(v)
                values[v] = evaluate(op, values) if found is None else found
        else:
            for v, op in self.whole:
                values[v] = evaluate(op, values)
        if self.sums is not None:
            return self._summed_step(values, inputs, outputs)
        selected = r.selected_at(self.masked, t)
        sets: dict[str, np.ndarray] = {}
        for v, (_, joins) in self.based.items():  # in the body's order
            parts = [sets[u] for u in joins]
            if v in self.masked:
                parts.append(selected[v][0])
            sets[v] = _union(parts) if len(parts) != 1 else parts[0]
        wanted = {}
        for o in range(r.n_carry):
            out = b.outputs[o]
            if isinstance(out, str) and out in self.based:
                wanted[out] = sets[out]
        found = _Entries(self, values, selected).of(wanted)
        carries = []
        for o in range(r.n_carry):
            out = b.outputs[o]
            if isinstance(out, str) and out in self.based:
                carries.append(inputs[r.n_consts + o])
            elif o in outputs:
                carries.append(np.asarray(outputs[o]))
            else:
                carries.append(np.asarray(_read(out, values, b.out_shapes[o])))
        ys = [
            np.asarray(outputs[r.n_carry + j])
            if r.n_carry + j in outputs
            else np.asarray(_read(y, values, b.out_shapes[r.n_carry + j]))
            for j, y in enumerate(b.outputs[r.n_carry :])
        ]
        for out, at in wanted.items():  # after every read of the step's carries
            carry = inputs[r.n_consts + b.outputs.index(out)]
            carry.reshape(-1)[at] = found[out]
            self.broken |= self._negative_zero(found[out])
        for x in self.carry_of:
            if x in self.based:
                del values[x]
        return values, carries, ys

    def _summed_step(self, values: dict, inputs: list, outputs: dict) -> tuple[dict, list, list]:
        """:meth:`step` where the large carries are sums (:meth:`_sums`): the small
        values the picks read kept for :meth:`finish`, the large carries passed on."""
        b, r = self.body, self.region
        for x in self.reads:
            self.kept.setdefault(x, []).append(values[x])
        carries, ys = [], []
        for o, out in enumerate(b.outputs):
            if o < r.n_carry and o in self.sums:
                carries.append(inputs[r.n_consts + o])
                continue
            found = outputs[o] if o in outputs else _read(out, values, b.out_shapes[o])
            (carries if o < r.n_carry else ys).append(np.asarray(found))
        for x in self.carry_of:
            if x in self.based:
                del values[x]
        return values, carries, ys

    def finish(self, carries: list[np.ndarray], trips: int) -> None:
        """At the end of a run whose large carries are sums (:meth:`_sums`), every
        step's picks added onto them in place, in the order the steps add them: by
        step, then in the order of the sum, each entry once a select (``np.add.at``
        adds in the order given, so each entry's sum rounds as the steps' do)."""
        if self.sums is None or not trips:
            return
        r = self.region
        stacked = {x: np.stack(found) for x, found in self.kept.items()}
        picks = [r.selected_at(self.masked, t) for t in range(trips)]
        selected, wanted = {}, {}
        for v in self.masked:
            size = self.size[v]
            keys = [t * size + p[v][0] for t, p in enumerate(picks)]
            cases = np.concatenate([p[v][1] for p in picks])
            selected[v] = (np.concatenate(keys), cases)
            wanted[v] = selected[v][0]
        with np.errstate(all="ignore"):
            found = _AllSteps(self, stacked, selected).of(wanted)
        for o, order in self.sums.items():
            steps, which, where, data = [], [], [], []
            for k, v in enumerate(order):
                t, p = np.divmod(wanted[v], self.size[v])
                steps.append(t)
                which.append(np.full(t.size, k))
                where.append(p)
                data.append(found[v])
            if not steps:
                continue
            t, k, p = np.concatenate(steps), np.concatenate(which), np.concatenate(where)
            by = np.lexsort((p, k, t))
            np.add.at(carries[o].reshape(-1), p[by], np.concatenate(data)[by])


def _read(x: Any, values: Mapping[str, Any], shape: tuple[int, ...]) -> Any:
    """A body output's value (:meth:`~dgraph.core.regions.Body.results`)."""
    if isinstance(x, str):
        return values[x]
    return np.broadcast_to(np.asarray(operand_value(x, values)), shape)


def _union(parts: list[np.ndarray]) -> np.ndarray:
    """The entries of ``parts`` (a few each), sorted, each once."""
    found = sorted(set().union(*(p.tolist() for p in parts)))
    return np.array(found, dtype=np.int64)


class _Entries:
    """A step's large vertices at some of their entries (flat positions): the positions
    each needs carried back through their operations, then each computed forward from
    its operands' entries by the same NumPy operations as a whole evaluation."""

    def __init__(self, sv: StepValues, values: Mapping[str, Any], selected: dict) -> None:
        self.sv, self.values, self.selected = sv, values, selected

    def of(self, wanted: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The vertices ``wanted`` at their positions (sorted, unique)."""
        sv, ops = self.sv, self.sv.ops
        need = dict(wanted)
        reads: dict[tuple[str, int], np.ndarray] = {}
        computed = set(sv.computed)
        for v in reversed(sv.computed):
            if v not in need:
                continue
            op = ops[v]
            for k, y in enumerate(op.operands):
                if k == 0 and v in sv.masked:
                    continue  # the mask: the step's picks
                at = self._operand_entries(op, k, need[v])
                reads[(v, k)] = at
                if isinstance(y, str) and y in computed:
                    before = need.get(y)
                    need[y] = _union([at] if before is None else [before, at])
        found: dict[str, np.ndarray] = {}
        for v in sv.computed:
            if v not in need:
                continue
            op, where = ops[v], need[v]
            args = []
            for k, y in enumerate(op.operands):
                if k == 0 and v in sv.masked:
                    args.append(self._cases(v, where))
                else:
                    args.append(self._at(y, reads[(v, k)], found, need))
            if op.primitive in ("gather_flat", "broadcast_in_dim", *_MOVED):
                value = args[0]
            else:
                value = elementwise_forward(op, args)
            found[v] = np.asarray(value, dtype=float).reshape(-1)
        return {v: found[v] for v in wanted}

    def _operand_entries(self, op: ArrayOp, k: int, where: np.ndarray) -> np.ndarray:
        """The flat entries of operand k that ``op``'s entries ``where`` read."""
        name, y = op.primitive, op.operands[k]
        if name == "gather_flat":
            return positions(op, "sources")[where]
        if name in _MOVED:
            return where
        shape, out = self._shape(y), tuple(op.shape)
        if name == "broadcast_in_dim":
            dims = op.param["broadcast_dimensions"]
            multi = np.unravel_index(where, out) if out else ()
            index = [multi[d] if shape[i] != 1 else 0 * where for i, d in enumerate(dims)]
            return np.ravel_multi_index(index, shape) if shape else 0 * where
        if shape == out:
            return where
        if math.prod(shape) == 1:
            return 0 * where
        multi = np.unravel_index(where, out)
        lead = len(out) - len(shape)
        index = [multi[lead + i] if n != 1 else 0 * where for i, n in enumerate(shape)]
        return np.ravel_multi_index(index, shape)

    def _shape(self, y: Any) -> tuple[int, ...]:
        if isinstance(y, Const):
            return tuple(np.shape(y.value))
        if isinstance(y, str):
            return self.sv.shape[y]
        return tuple(y.shape)

    def _cases(self, v: str, where: np.ndarray) -> np.ndarray:
        """The case the masked select ``v`` picks at entries ``where``: the step's pick
        where it selects the entry, else 0."""
        at, cases = self.selected[v]
        hit = np.minimum(np.searchsorted(at, where), max(at.size - 1, 0))
        inside = (at[hit] == where) if at.size else np.zeros(where.size, dtype=bool)
        return np.where(inside, cases[hit] if at.size else 0, 0)

    def _at(self, y: Any, at: np.ndarray, found: dict, need: dict) -> np.ndarray:
        """Operand ``y`` at its flat entries ``at``."""
        if isinstance(y, Const):
            return np.asarray(y.value).reshape(-1)[at]
        if isinstance(y, str):
            if y in found:
                return found[y][np.searchsorted(need[y], at)]
            return np.asarray(self.values[y]).reshape(-1)[at]
        if not names_read([y]):  # a constant expression
            return np.asarray(operand_value(y, {})).reshape(-1)[at]
        args = [
            self._at(u, self._operand_entries(y, k, at), found, need)
            for k, u in enumerate(y.operands)
        ]
        if y.primitive in ("gather_flat", "broadcast_in_dim", *_MOVED):
            return args[0]
        return np.asarray(elementwise_forward(y, args))


class _AllSteps(_Entries):
    """:class:`_Entries` for every step of a run at once: an entry is a key, step ×
    the vertex's size + its flat position; the small values read (``stacked``) have
    the steps first, so a key is their flat index; ``selected``: per masked select
    its keys (sorted) and the cases picked there."""

    def _operand_entries(self, op: ArrayOp, k: int, where: np.ndarray) -> np.ndarray:
        t, at = np.divmod(where, max(math.prod(op.shape), 1))
        found = super()._operand_entries(op, k, at)
        return t * max(math.prod(self._shape(op.operands[k])), 1) + found

    def _at(self, y: Any, at: np.ndarray, found: dict, need: dict) -> np.ndarray:
        if isinstance(y, Const):
            value = np.asarray(y.value).reshape(-1)
            return value[at % max(value.size, 1)]
        if isinstance(y, str):
            if y in found:
                return found[y][np.searchsorted(need[y], at)]
            if y in self.values:
                return np.asarray(self.values[y]).reshape(-1)[at]
            value = np.asarray(self.sv._same_value(y)).reshape(-1)
            return value[at % max(value.size, 1)]
        if not names_read([y]):  # a constant expression
            value = np.asarray(operand_value(y, {})).reshape(-1)
            return value[at % max(value.size, 1)]
        args = [
            self._at(u, self._operand_entries(y, k, at), found, need)
            for k, u in enumerate(y.operands)
        ]
        if y.primitive in ("gather_flat", "broadcast_in_dim", *_MOVED):
            return args[0]
        return np.asarray(elementwise_forward(y, args))
