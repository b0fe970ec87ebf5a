"""An array operation over a leading axis of values: each row's result the one its
operands' rows give alone.

A scan's steps (:mod:`dgraph.core.step_batch`) and the runs of a loop at several points
at once (the value check's shifted points: :func:`~dgraph.core.region_sweep.batched_run`)
evaluate a body operation on operands one axis longer, the same NumPy function on all
rows in one call, as a vectorizing compiler strip-mines a loop of independent
iterations (K. Kennedy and J. R. Allen, *Optimizing Compilers for Modern
Architectures*, Morgan Kaufmann, 2001, ch. 5). Only operations whose rows are computed
apart, entry by entry or by moving entries, are taken this way (elementwise operations
with their operands' shapes aligned on the right as NumPy broadcasts one row's,
``integer_pow``, ``select_n``, reshapes, ``squeeze``, ``broadcast_in_dim``, ``slice``,
``concatenate``, ``transpose``, ``rev`` and ``gather_flat``): a reduction or a product
over the longer arrays may sum in another order, so any other operation is left to the
caller, row by row.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from ..blocks.arrays import ELEMENTWISE, ArrayOp, Const, elementwise_forward, rule_parts
from ..blocks.scatter import positions

__all__ = ["ENTRYWISE", "MOVED", "Row", "RowsApart", "Unbatched", "batched_value", "taken"]

ENTRYWISE = frozenset(
    {
        *ELEMENTWISE,
        *("stop_gradient", "floor", "ceil", "round", "sign", "is_finite"),
        *("eq", "ne", "lt", "le", "gt", "ge", "and", "or", "not"),
        "integer_pow",
        "select_n",
    }
) - {"copy", "convert_element_type"}  # moves below
_RESHAPES = frozenset({"reshape", "squeeze", "expand_dims", "copy", "convert_element_type"})
MOVED = _RESHAPES | {"broadcast_in_dim", "gather_flat", "slice", "concatenate"}
MOVED |= {"transpose", "rev"}
"""The operations taken over the leading axis that only move entries."""
_TAKEN = ENTRYWISE | MOVED


class Unbatched(Exception):
    """An operation not taken over the leading axis: the caller's rows one by one."""


class RowsApart(Exception):
    """Rows that part ways: a ``while_loop`` run for several operand sets at once whose
    conditions disagree at a step (each set is then run alone:
    :meth:`~dgraph.core.regions.Region.forward_rows`)."""


def batched_value(
    op: ArrayOp, rows: Mapping[str, np.ndarray], same: Mapping[str, np.ndarray], n: int
) -> tuple[np.ndarray, bool]:
    """``op``'s value over the ``n`` rows (nested operations innermost first, without
    recursion) and whether it differs by row (else its one value); a vertex's value is
    read from ``rows`` (with the leading axis) or ``same`` (without: the same in every
    row). Raises :class:`Unbatched` where an operation is not taken, reads a vertex
    neither gives, or is a custom rule's output (whose non-finite entries
    :func:`~dgraph.blocks.arrays.evaluate` replaces)."""
    if not any(isinstance(y, ArrayOp) for y in op.operands):  # most: no nested operation
        return _forward(op, _operands(op, rows, same, {}), n)
    done: dict[int, tuple[np.ndarray, bool]] = {}
    pending = [(op, False)]
    while pending:
        top, ready = pending.pop()
        if id(top) in done:
            continue
        inner = [y for y in top.operands if isinstance(y, ArrayOp) and id(y) not in done]
        if inner and not ready:
            pending += [(top, True), *((y, False) for y in inner)]
            continue
        done[id(top)] = _forward(top, _operands(top, rows, same, done), n)
    return done[id(op)]


def taken(op: ArrayOp) -> bool:
    """Whether :func:`batched_value` takes ``op`` (its nested operations too) over the
    leading axis whatever its operands' values: every operation one NumPy call for all
    rows, none a custom rule's output."""
    stack = [op]
    while stack:
        top = stack.pop()
        if top.primitive not in _TAKEN or (top.primitive == "add" and rule_parts(top)):
            return False
        stack += [y for y in top.operands if isinstance(y, ArrayOp)]
    return True


def _operands(
    op: ArrayOp, rows: Mapping[str, np.ndarray], same: Mapping[str, np.ndarray], done: dict
) -> list[tuple[np.ndarray, bool]]:
    """``op``'s operands' values, each with whether it has the leading axis."""
    args = []
    for y in op.operands:
        if isinstance(y, str):
            if y in rows:
                args.append((rows[y], True))
            elif y in same:
                args.append((same[y], False))
            else:
                raise Unbatched
        elif isinstance(y, Const):
            args.append((np.asarray(y.value), False))
        else:
            args.append(done[id(y)])
    return args


def _forward(op: ArrayOp, args: list[tuple[np.ndarray, bool]], n: int) -> tuple[np.ndarray, bool]:
    """One operation on operands with a leading axis of ``n`` rows or without one."""
    name = op.primitive
    if name not in _TAKEN or (name == "add" and rule_parts(op) is not None):
        raise Unbatched
    if not any(per_row for _, per_row in args):  # the same in every row
        value = elementwise_forward(op, [a for a, _ in args])
        return np.asarray(value).reshape(op.shape), False
    if name in ENTRYWISE:
        rank = len(op.shape)
        aligned = []
        for a, per_row in args:
            if per_row:
                if a.ndim - 1 > rank:
                    raise Unbatched
                if a.ndim - 1 < rank:
                    a = a.reshape((n, *(1,) * (rank + 1 - a.ndim), *a.shape[1:]))
            elif a.ndim > rank:
                raise Unbatched
            aligned.append(a)
        value = np.asarray(elementwise_forward(op, aligned))
        shape = (n, *op.shape)
        if value.shape != shape:
            if value.shape[:1] != (n,) or value[0].size != math.prod(op.shape):
                raise Unbatched
            value = value.reshape(shape)
        return value, True
    if name == "concatenate":
        return _concatenate(op, args, n), True
    if len(args) != 1:
        raise Unbatched
    return _moved(op, args[0][0], n), True


def _moved(op: ArrayOp, a: np.ndarray, n: int) -> np.ndarray:
    """A move of one operand's rows (each its row's :func:`~dgraph.blocks.arrays.move`)."""
    name, p = op.primitive, op.param
    if name in _RESHAPES:
        if name == "copy":
            return np.array(a).reshape((n, *op.shape))
        if name == "convert_element_type":
            return np.asarray(a, dtype=float).reshape((n, *op.shape))
        return a.reshape((n, *op.shape))
    if name == "broadcast_in_dim":
        dims = p["broadcast_dimensions"]
        shape = a.shape[1:]
        if len(dims) != len(shape):
            raise Unbatched
        spread = [shape[dims.index(k)] if k in dims else 1 for k in range(len(op.shape))]
        return np.broadcast_to(a.reshape((n, *spread)), (n, *op.shape))
    if name == "gather_flat":
        flat = np.asarray(a, dtype=float).reshape(n, -1)
        return flat[:, positions(op, "sources")].reshape((n, *op.shape))
    if name == "slice":
        strides = p.get("strides") or (1,) * (a.ndim - 1)
        index = zip(p["start_indices"], p["limit_indices"], strides, strict=True)
        return a[(slice(None), *(slice(s, e, k) for s, e, k in index))]
    if name == "transpose":
        return np.transpose(a, (0, *(k + 1 for k in p["permutation"])))
    if name == "rev":
        return np.flip(a, tuple(k + 1 for k in p["dimensions"]))
    raise Unbatched


def _concatenate(op: ArrayOp, args: list[tuple[np.ndarray, bool]], n: int) -> np.ndarray:
    """``concatenate`` of rows, an operand without the leading axis repeated in each."""
    parts = []
    for a, per_row in args:
        a = np.asarray(a)
        parts.append(a if per_row else np.broadcast_to(a, (n, *a.shape)))
    if any(part.ndim != len(op.shape) + 1 for part in parts):
        raise Unbatched
    return np.concatenate(parts, axis=op.param["dimension"] + 1)


class Row(Mapping):
    """Row ``m`` of values that each have the leading axis, as a mapping by name: an
    operation not taken over the axis is evaluated on each row's values alone."""

    def __init__(self, values: Mapping[str, np.ndarray], m: int) -> None:
        self.values, self.m = values, m

    def __getitem__(self, key: str) -> Any:
        return self.values[key][self.m]

    def __iter__(self) -> Iterator[str]:
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)
