"""Gathers and scatters at constant positions: what they compute and each operand's block.

Every index here is a constant, fixed when the graph is built (the jaxpr reader asks JAX
where each entry goes), so each operation is a map between flat positions (C order):

* ``gather_flat`` (``sources``: per output entry, the operand entry it reads): a selection,
  one 1 per row;
* ``scatter`` (``sources``: per operand entry, the update entry that overwrites it, -1
  where none does; ``x.at[i].set(u)``, ``dynamic_update_slice``): with respect to the
  operand a selection of the entries kept, with respect to the updates an embedding of
  the entries that win (where an index repeats, the one JAX's own scatter keeps);
* ``scatter_add``, ``scatter_mul``, ``scatter_min``, ``scatter_max`` (``targets``: per
  update entry, the operand entry it combines into, -1 where it is dropped): out[p] is
  x[p] combined with every update aimed at p. With respect to the operand the identity
  (add), a diagonal (mul: the product of the updates at p; min/max: the run-time share of
  x[p] among the values equal to the result), with respect to the updates one entry per
  update that lands (1 for add, where repeated indices sum; x[p] for mul; the shares for
  min/max), as JAX's rules differentiate them: for min/max every value equal to the
  result (x[p] and the updates at p) gets an equal share, as ``max``'s tie rule.

The value functions read NumPy arrays; :mod:`dgraph.codegen.tensor.scatter_code` prints
the same formulas as array statements.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import InputError
from . import FORGETS, GENERAL, ONES, Block, Labelled, diagonal, identity, sparse

__all__ = [
    "COMBINE",
    "SCATTERS",
    "check",
    "describe",
    "elements",
    "forward",
    "held",
    "operand_block",
    "positions",
    "slots",
    "values",
    "zero_block",
]

# the scatters that combine an update with the operand's entry, and NumPy's way to
COMBINE = {
    "scatter_add": np.add,
    "scatter_mul": np.multiply,
    "scatter_min": np.minimum,
    "scatter_max": np.maximum,
}
SCATTERS = frozenset({"gather_flat", "scatter", *COMBINE})


def _param(op: Any, name: str) -> np.ndarray:
    """The positions ``op`` holds as ``name``, as a read-only int64 array. A graph keeps
    them as a tuple (a 10⁶-entry one costs some 20 ms to convert, and every rule, value
    and check of the operation reads it again): converted once per tuple, by its
    identity (:data:`_HELD`)."""
    value = op.param[name]
    found = _HELD.get(id(value))
    if found is not None and found[0] is value:
        return found[1]
    array = np.asarray(value, dtype=np.int64).reshape(-1)
    array.flags.writeable = False
    if isinstance(value, tuple) and len(value) > _HELD_FROM:
        if len(_HELD) >= _HELD_SIZE:
            del _HELD[next(iter(_HELD))]
        _HELD[id(value)] = (value, array)  # the tuple held: its id stays its own
    return array


def positions(op: Any, name: str) -> np.ndarray:
    """The positions ``op`` holds as ``name`` (``"sources"``, ``"targets"``), flat and
    read-only, converted once per tuple as :func:`_param` converts them (the code
    generator reads a scatter's positions for each statement it writes from them)."""
    return _param(op, name)


def held(found: np.ndarray) -> tuple:
    """Positions ``found`` as the tuple an operation keeps them in (its ``"sources"`` or
    ``"targets"`` param), their int64 array remembered for it as :func:`_param` would
    convert it (a reader that computed the array saves converting the tuple back: some
    25 ms per 10⁶ entries, four times in the minimal surface's gradient)."""
    array = np.array(found, dtype=np.int64).reshape(-1)
    value = tuple(array.tolist())
    if len(value) > _HELD_FROM:
        array.flags.writeable = False
        if len(_HELD) >= _HELD_SIZE:
            del _HELD[next(iter(_HELD))]
        _HELD[id(value)] = (value, array)
    return value


_HELD: dict[int, tuple[tuple, np.ndarray]] = {}  # id of a positions tuple -> it, its array
_HELD_SIZE, _HELD_FROM = 16, 1024  # at most 16 arrays; tuples of up to 1024 converted anew
FORGETS.append(_HELD.clear)


def check(op: Any, shapes: Sequence[tuple[int, ...]]) -> None:
    """That the positions fit the operand shapes (a dgraph/1 file may say otherwise).

    Raises
    ------
    InputError
        Where a position list has the wrong length or an entry out of range.
    """
    name = op.primitive
    n = math.prod(shapes[0])
    wanted = 1 if name == "gather_flat" else 2
    if len(shapes) != wanted:
        raise InputError(f"{name}: takes {wanted} operands, not {len(shapes)}")
    key = "targets" if name in COMBINE else "sources"
    if key not in op.param:
        raise InputError(f"{name}: the param {key!r} is missing")
    found = _param(op, key)
    if name == "gather_flat":
        length, low, high = math.prod(op.shape), 0, n
    elif name == "scatter":
        length, low, high = n, -1, math.prod(shapes[1])
    else:
        length, low, high = math.prod(shapes[1]), -1, n
    if name != "gather_flat" and tuple(op.shape) != tuple(shapes[0]):
        raise InputError(f"{name}: the result's shape {op.shape} is not the operand's")
    if found.size != length or (found.size and (found.min() < low or found.max() >= high)):
        raise InputError(f"{name}: {key} must be {length} positions in [{low}, {high})")


def slots(targets: np.ndarray, n: int) -> list[np.ndarray]:
    """The updates aimed at each position, in layers: layer s gives per position the
    flat index of its s-th update (in update order), or -1 where it has fewer."""
    valid = np.nonzero(targets >= 0)[0]
    order = valid[np.argsort(targets[valid], kind="stable")]
    t = targets[order]
    first = np.searchsorted(t, t, side="left")
    rank = np.arange(t.size) - first
    layers = []
    for s in range(int(rank.max()) + 1 if rank.size else 0):
        layer = np.full(n, -1, dtype=np.int64)
        hit = rank == s
        layer[t[hit]] = order[hit]
        layers.append(layer)
    return layers


def forward(op: Any, args: list[np.ndarray]) -> np.ndarray:
    """The result: NumPy's indexing and ``ufunc.at`` at the constant positions."""
    name = op.primitive
    check(op, [np.shape(a) for a in args])
    x = np.asarray(args[0], dtype=float).reshape(-1)
    if name == "gather_flat":
        return x[_param(op, "sources")].reshape(op.shape)
    u = np.asarray(args[1], dtype=float).reshape(-1)
    out = x.copy()
    if name == "scatter":
        src = _param(op, "sources")
        out[src >= 0] = u[src[src >= 0]]
    else:
        t = _param(op, "targets")
        COMBINE[name].at(out, t[t >= 0], u[t >= 0])
    return out.reshape(op.shape)


def _landing(op: Any) -> tuple[np.ndarray, np.ndarray]:
    """The (position, update) pairs of the updates that land, in row order."""
    if op.primitive == "scatter":
        src = _param(op, "sources")
        rows = np.nonzero(src >= 0)[0]
        return rows, src[rows]
    t = _param(op, "targets")
    cols = np.nonzero(t >= 0)[0]
    order = np.lexsort((cols, t[cols]))
    return t[cols][order], cols[order]


def operand_block(op: Any, k: int, shapes: Sequence[tuple[int, ...]]) -> Block:
    """The structure of ∂op/∂(operand k), its pattern exact."""
    check(op, shapes)
    name, out, mine = op.primitive, tuple(op.shape), tuple(shapes[k])
    if name == "gather_flat":
        src = _param(op, "sources")
        return sparse(out, mine, np.arange(src.size), src, ONES)
    if k == 0:
        if name == "scatter":
            kept = np.nonzero(_param(op, "sources") < 0)[0]
            return sparse(out, mine, kept, kept, ONES)
        return identity(out) if name == "scatter_add" else diagonal(out, GENERAL)
    rows, cols = _landing(op)
    return sparse(out, mine, rows, cols, ONES if name in ("scatter", "scatter_add") else GENERAL)


def zero_block(op: Any, k: int) -> bool:
    """Whether ∂op/∂(operand k) has no entry (every entry overwritten, every update
    dropped): no edge then."""
    name = op.primitive
    if name == "scatter":
        src = _param(op, "sources")
        return not (src < 0).any() if k == 0 else not (src >= 0).any()
    if name in COMBINE and k == 1:
        return not (_param(op, "targets") >= 0).any()
    return False


def _extreme_counts(op: Any, x: np.ndarray, u: np.ndarray, out: np.ndarray):
    """Per position, 1 where x[p] equals the result; per position, the number of values
    equal to the result there (x[p] and the updates)."""
    t = _param(op, "targets")
    kept = (x == out).astype(float)
    hit = t >= 0
    winners = np.zeros_like(out)
    np.add.at(winners, t[hit], (u[hit] == out[t[hit]]).astype(float))
    return kept, kept + winners


def values(op: Any, k: int, args: list[np.ndarray], block: Block) -> np.ndarray:
    """The block's values: C order over its value labels (a diagonal), one per entry in
    row order (a sparse block), 1 where it is all ones."""
    name = op.primitive
    if block.kind == ONES:
        return np.ones(block.nnz) if not isinstance(block, Labelled) else np.asarray(1.0)
    x = np.asarray(args[0], dtype=float).reshape(-1)
    u = np.asarray(args[1], dtype=float).reshape(-1)
    rows, cols = _landing(op)
    if name == "scatter_mul":
        if k == 0:
            d = np.ones_like(x)
            t = _param(op, "targets")
            np.multiply.at(d, t[t >= 0], u[t >= 0])
            return d.reshape(op.shape)
        return x[rows]
    out = forward(op, list(args)).reshape(-1)
    kept, shares = _extreme_counts(op, x, u, out)
    if k == 0:
        return (kept / shares).reshape(op.shape)
    return (u[cols] == out[rows]).astype(float) / shares[rows]


def describe(op: Any, k: int) -> str:
    """The block as a formula: ``S[gather 6]``, ``E[scatter 3 of 4]``, ``diag(...)``."""
    name = op.primitive
    if name == "gather_flat":
        return f"S[gather {math.prod(op.shape)}]"
    if k == 0:
        return {"scatter": "S[kept]", "scatter_add": "I"}.get(name, f"diag(∂{name}/∂x)")
    return "E[updates]" if name in ("scatter", "scatter_add") else f"E[∂{name}/∂u]"


def elements(op: Any, args: list[np.ndarray], combine: dict[str, Any]) -> np.ndarray:
    """The result's elements over object arrays (sympy expressions), for the element
    level: ``combine`` gives n-ary add/mul/min/max of sympy expressions."""
    name = op.primitive
    x = np.asarray(args[0], dtype=object).reshape(-1)
    if name == "gather_flat":
        return x[_param(op, "sources")].reshape(op.shape)
    u = np.asarray(args[1], dtype=object).reshape(-1)
    out = x.copy()
    if name == "scatter":
        src = _param(op, "sources")
        out[src >= 0] = u[src[src >= 0]]
        return out.reshape(op.shape)
    t = _param(op, "targets")
    for p in np.unique(t[t >= 0]):
        out[p] = combine[name](x[p], *u[t == p])
    return out.reshape(op.shape)
