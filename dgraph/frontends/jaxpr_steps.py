"""Reads at the loop counter inside a scan body (``x[i]``, ``lax.dynamic_slice(x, (i,),
(k,))``, ``jnp.take(x, i)``) as per-step slices of an ``xs`` the scan did not have.

A ``fori_loop`` with static bounds is a ``scan`` whose carry ``i`` starts at a constant
and grows by a constant each step (``i = start + t·stride`` at step t); a scan may carry
such a counter itself. An index that is a function of such counters (and constants)
alone is known at every step before the loop runs, so the body's read at step t is a
fixed selection of the array read: for an array that every step reads whole (a loop
operand, or a constant), the T selections stacked are an array of the program *outside*
the loop — a gather at constant positions (``gather_flat``, :mod:`.jaxpr_scatter`), or a
constant — and the body reads its row t as it reads a row of any ``xs``
(:mod:`dgraph.core.regions`). Nothing else changes: the block patterns are those of the
chain with a side input per step (exact: step t's pattern is its own selection), the
values come from the same tangent sweep, and every target's loop code indexes the new
``xs`` by its step variable.

The positions are JAX's own: the primitive applied to the array's positions
``1, 2, …`` at each step's index values (so JAX's clamping and modes hold), one
``jax.vmap`` over the steps. A write at the counter (``x.at[i].set(v)``,
``dynamic_update_slice``) and a read of an array the body carries or computes are
refused in one line; so is an index that depends on values other than the counters.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..blocks.arrays import ArrayOp, Const, operand_value
from ..errors import InputError
from .jaxpr_scatter import INDEX_OPERANDS

__all__ = ["StepReads", "counters_of"]

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
        if not np.issubdtype(var.aval.dtype, np.integer) or var.aval.shape != ():
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


def _leaves(values: list) -> set[str]:
    """The vertex names the nested operations in ``values`` read."""
    out, stack = set(), list(values)
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            out.add(x)
        elif isinstance(x, ArrayOp):
            stack.extend(x.operands)
    return out


def _evaluable(x: Any) -> Any:
    """``x`` with every array operand of its nested operations as a
    :class:`~dgraph.blocks.arrays.Const` (the reader leaves literals as arrays)."""
    if isinstance(x, np.ndarray):
        return Const.of(x)
    if not isinstance(x, ArrayOp):
        return x
    done: dict[int, ArrayOp] = {}
    stack = [x]
    while stack:
        top = stack[-1]
        pending = [y for y in top.operands if isinstance(y, ArrayOp) and id(y) not in done]
        if pending:
            stack.extend(pending)
            continue
        stack.pop()
        operands = tuple(
            Const.of(y) if isinstance(y, np.ndarray) else done.get(id(y), y) for y in top.operands
        )
        done[id(top)] = ArrayOp(top.primitive, operands, top.params, top.shape)
    return done[id(x)]


@dataclass
class _Shape:
    """What :meth:`_Reader.result` reads of an aval: its shape and dtype."""

    shape: tuple[int, ...]
    dtype: Any


@dataclass
class StepReads:
    """The reads at the counter met while reading one scan body, each a new ``xs``:
    ``names`` (body inputs, after the body's own), ``operands`` (the stacked arrays,
    outside the loop), ``shapes`` (a step's slice), ``floats`` (a derivative may flow
    from it)."""

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

    def read(self, sub, eqn, ins: list) -> list | None:
        """The body's value for ``eqn`` if its index is a function of the counters (a
        new ``xs`` input), None if its index depends on nothing traced here."""
        name = eqn.primitive.name
        indices = list(ins[INDEX_OPERANDS[name]]) if name in INDEX_OPERANDS else []
        leaves = _leaves(indices)
        if not leaves:
            return None
        where = sub.where
        if not leaves <= self.counters.keys():
            raise InputError(
                f"{where}: {name} with an index that depends on the inputs' values (not only"
                " on a loop counter) is not supported: make it a constant or the counter"
            )
        if name not in READS:
            raise InputError(
                f"{where}: {name} at the loop counter (a write, x.at[i].set(...)) is not"
                " supported yet: only reads at the counter are (x[i], dynamic_slice, take)"
            )
        data = ins[0]
        if isinstance(data, np.ndarray):
            source: Any = data
        elif isinstance(data, str) and data in self.outside:
            source = self.outside[data]
        else:
            raise InputError(
                f"{where}: {name} at the loop counter of an array the body carries or"
                " computes is not supported yet: only loop operands and constants are read"
                " at the counter"
            )
        positions = self._positions(eqn, indices, where)
        aval = eqn.outvars[0].aval
        shape = tuple(int(n) for n in aval.shape)
        stacked = (self.length, *shape)
        if isinstance(source, np.ndarray):
            operand: Any = np.asarray(source).reshape(-1)[positions].reshape(stacked)
        elif isinstance(source, (str, ArrayOp)):
            op = ArrayOp(
                "gather_flat",
                (self.reader.operand(source),),
                (("sources", tuple(positions.reshape(-1).tolist())),),
                stacked,
            )
            operand = self.reader.result(op, _Shape(stacked, aval.dtype))
        else:
            raise InputError(
                f"{where}: {name} at the loop counter of this operand is not supported"
            )
        new = f"x{self.first + len(self.names)}"
        while new in sub.taken or new in sub.index:
            new += "_"
        sub.taken.add(new)
        is_float = np.issubdtype(aval.dtype, np.floating)
        self.names.append(new)
        self.operands.append(operand)
        self.shapes.append(shape)
        self.floats.append(is_float)
        self.avals.append(_Shape(stacked, aval.dtype))
        return [new if is_float else ArrayOp("stop_gradient", (new,), (), shape)]

    def _positions(self, eqn, indices: list, where: str) -> np.ndarray:
        """Per step (in the order the stacked array is read: reversed for a reverse
        scan), the flat position each entry of the read takes."""
        import jax

        whole = tuple(int(n) for n in eqn.invars[0].aval.shape)
        size = math.prod(whole)
        if size >= 2**31 - 1:
            raise InputError(f"{where}: an array of {size} entries read at the loop counter")
        steps = range(self.length)
        indices = [_evaluable(x) for x in indices]
        per_step = []
        for t in steps:
            env = {
                c: np.asarray(start + t * stride) for c, (start, stride) in self.counters.items()
            }
            per_step.append([np.asarray(operand_value(x, env)) for x in indices])
        kinds = [v.aval.dtype for v in eqn.invars[INDEX_OPERANDS[eqn.primitive.name]]]
        stacked = [np.stack([s[k] for s in per_step]).astype(kind) for k, kind in enumerate(kinds)]
        iota = np.arange(1, size + 1, dtype=np.int32).reshape(whole)
        params = dict(eqn.params)
        if eqn.primitive.name == "gather":
            params["fill_value"] = 0
        try:

            def read(*index):
                return eqn.primitive.bind(iota, *index, **params)

            found = np.asarray(jax.vmap(read)(*stacked)).astype(np.int64) - 1
        except Exception as exc:
            raise InputError(
                f"{where}: {eqn.primitive.name}: reading its positions at the loop counter"
                f" failed: {type(exc).__name__}: {exc}"
            ) from None
        if (found < 0).any():
            raise InputError(
                f"{where}: {eqn.primitive.name} at the loop counter reads out of bounds (a"
                " fill) at some step: not supported"
            )
        return found[::-1] if self.reverse else found
