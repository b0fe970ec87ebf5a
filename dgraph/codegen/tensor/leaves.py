"""Each edge block's values as array statements (``block_value``'s semantics): an
elementwise derivative printed from its sympy formula in the operands' names, the other
operand of a ``dot_general`` transposed to the block's value-label order, a one-hot of
the extremes for ``reduce_max``, and one value for a block without value labels (a 0-d
block's derivative, a constant one's first entry, 1 for a move)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import sympy

from ...blocks import Block, Sparse
from ...blocks.arrays import (
    ELEMENTWISE,
    RUN_TIME,
    A,
    ArrayOp,
    B,
    labelled_block,
    narrowed,
    other_labels,
)
from ...errors import InputError
from .dialect import Dialect

__all__ = ["leaf_values"]


def leaf_values(
    op: ArrayOp,
    k: int,
    block: Block,
    args: Sequence[str],
    shapes: Sequence[tuple[int, ...]],
    d: Dialect,
    emit: Callable[[str], str],
    index: Callable[[np.ndarray], str] | None = None,
) -> str:
    """The values of ∂op/∂(operand k), as an expression in the operands named ``args``
    (C order over the block's value labels; one per entry of a sparse block); ``emit``
    assigns a helper expression to a new name, ``index`` names a constant integer array
    (the entries a block narrowed by a constant keeps: ``arrays.narrowed``)."""
    name, xp = op.primitive, d.xp
    if isinstance(block, Sparse):
        labelled = labelled_block(op, k, shapes)
        found = narrowed(op, k, shapes, labelled)
        if found is None:
            return f"{xp}.ones({block.nnz})"
        if index is None:
            raise InputError(f"{name}: a block narrowed by a constant needs its index array")
        values = leaf_values(op, k, labelled, args, shapes, d, emit)
        return f"{xp}.reshape({values}, (-1,))[{index(found[1])}]"
    if not block.value:
        return _number(op, k, args, shapes, d, emit)
    return _values(op, k, args, shapes, d, emit)


def _values(
    op: ArrayOp,
    k: int,
    args: Sequence[str],
    shapes: Sequence[tuple[int, ...]],
    d: Dialect,
    emit: Callable[[str], str],
) -> str:
    """The values of a labelled block over its value labels (every label of an
    elementwise operation's diagonal, the other operand of a dot)."""
    name, xp, shape = op.primitive, d.xp, op.shape
    if name == "integer_pow":
        y = int(op.param["y"])
        return _broadcast(_power_derivative(y, args[0], xp), shapes[0], shape, xp)
    if name == "select_n":
        which = f"{xp}.where({xp}.asarray({args[0]}).astype(int) == {k - 1}, 1.0, 0.0)"
        return _broadcast(which, shapes[0], shape, xp)
    if name in ELEMENTWISE:
        names = dict(zip((A, B), (sympy.Symbol(a, real=True) for a in args), strict=False))
        formula = ELEMENTWISE[name][1][k].xreplace(names)  # max(x, x)'s is a number
        read = formula.free_symbols
        natural = [s for s, a in zip(shapes, names.values(), strict=False) if a in read]
        text = d.formula(formula)
        if not natural:
            return f"{xp}.full({shape!r}, 1.0 * ({text}))"
        return _broadcast(f"(1.0 * ({text}))", np.broadcast_shapes(*natural), shape, xp)
    if name == "dot_general":
        return _dot(op, k, args, shapes, xp)
    if name in ("reduce_max", "reduce_min"):
        axes = tuple(op.param["axes"])
        best = f"{xp}.{name[7:]}({args[0]}, axis={axes!r}, keepdims=True)"
        hit = emit(f"{xp}.where({args[0]} == {best}, 1.0, 0.0)")
        return f"({hit} / {xp}.sum({hit}, axis={axes!r}, keepdims=True))"
    raise InputError(f"{name}: no values for its block")


def _broadcast(text: str, natural, shape: tuple[int, ...], xp: str) -> str:
    return text if tuple(natural) == tuple(shape) else f"{xp}.broadcast_to({text}, {shape!r})"


def _number(
    op: ArrayOp,
    k: int,
    args: Sequence[str],
    shapes: Sequence[tuple[int, ...]],
    d: Dialect,
    emit: Callable[[str], str],
) -> str:
    """A block's one value: a formula's number, 1 for a move or a sum, else the first
    entry of the values (a 0-d block, or a derivative constant along the block)."""
    if op.primitive in ELEMENTWISE and ELEMENTWISE[op.primitive][1][k].is_Number:
        return repr(float(ELEMENTWISE[op.primitive][1][k]))
    if op.primitive == "integer_pow" and int(op.param["y"]) in (0, 1):
        return repr(float(op.param["y"]))
    if op.primitive not in RUN_TIME:
        return "1.0"
    values = _values(op, k, args, shapes, d, emit)
    return values if op.shape == () else f"{d.xp}.ravel({values})[0]"  # 0-d: one already


def _power_derivative(y: int, x: str, xp: str) -> str:
    """``y·x**(y-1)`` (0 for y = 0, where x**-1 would be inf at 0)."""
    return f"({y} * {x} ** {y - 1})" if y else f"{xp}.zeros_like({x})"


def _dot(op: ArrayOp, k: int, args, shapes, xp: str) -> str:
    """The other operand, its axes in the order of the block's value labels
    (``arrays._dot_value``, the permutation found here once)."""
    (lc, rc), (lb, rb) = op.param["dimension_numbers"]
    other = shapes[1 - k]
    oc, ob = (rc, rb) if k == 0 else (lc, lb)
    mine = shapes[k]
    mc, mb = (lc, lb) if k == 0 else (rc, rb)
    n_batch, n_free_m = len(mb), len(mine) - len(mc) - len(mb)
    start = n_batch + n_free_m
    contract = list(range(start, start + len(mc)))
    free_o = list(range(start + len(mc), start + len(mc) + len(other) - len(oc) - len(ob)))
    labels = other_labels(other, oc, ob, contract, list(range(n_batch)), free_o)
    order = tuple(int(i) for i in np.argsort(labels))
    if order == tuple(range(len(order))):
        return args[1 - k]
    return f"{xp}.transpose({args[1 - k]}, {order!r})"
