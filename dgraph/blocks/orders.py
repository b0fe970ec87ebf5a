"""Which order a run-time permutation is: the tie of a
:class:`~dgraph.blocks.permutation.Permutation` block.

A sort's block, a take at the positions an ``argsort`` gives (``x[jnp.argsort(x)]``,
``take_along_axis``) and the scatter-add at them (JAX's transpose of either: the gradient
of a sort) are permutations chosen at run time, but the same one, or its inverse, where
the order is the same ``argsort``. The order is known when the graph is built as the
``argsort``'s keys, axis and shape (:func:`order_of`), so the product of a scatter-add and
a take of one order is the identity's pattern at every point, with the moves between
them (:mod:`dgraph.blocks.permutation`): ``Sᵀ·D·S`` of a Hessian through a sort is
diagonal (Griewank & Walther, *Evaluating Derivatives*, 2nd ed., SIAM
2008, §3.2: the adjoint of a gather is a scatter-add at the same positions).

Operations are read by their fields (``primitive``, ``operands``, ``params``, ``shape``),
as :mod:`dgraph.blocks.array_extra` reads them: :mod:`dgraph.blocks.arrays` imports this.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .permutation import inverse_order

__all__ = ["order_of", "permuted_by", "sort_order_tie", "sources"]

Tie = tuple[Any, int, tuple[int, ...]]  # the argsort's keys, its dimension, its shape


def sort_order_tie(op) -> Tie:
    """The tie of ``sort``'s block: its keys (every operand but the sorted one, or the
    one operand), its dimension, its shape."""
    keys = op.operands[:-1] if len(op.operands) > 1 else op.operands
    return (tuple(keys), int(op.param["dimension"]), tuple(op.shape))


def order_of(positions) -> Tie | None:
    """The tie of the ``argsort`` whose values ``positions`` are, in C order (through
    reshapes, conversions, broadcasts that add unit axes and the wrap of negative
    positions, which an ``argsort`` never has); None where they are not one."""
    x = positions
    while True:
        name = getattr(x, "primitive", None)
        if _keeps_order(x, name):
            x = x.operands[0]
        elif name == "select_n" and _wraps_negative(x):
            x = x.operands[1]
        else:
            break
    if getattr(x, "primitive", None) != "argsort":
        return None
    return (tuple(x.operands), int(x.param["dimension"]), tuple(x.shape))


def permuted_by(op) -> Tie | None:
    """The tie of a ``take_dynamic`` or a ``scatter_add_dynamic`` (not ``replace``) at
    the positions of an ``argsort`` along its axis, each position once: one
    ``argsort`` of the operation's shape along its axis (``along``), or of one fibre
    (a vector of the axis's length); else None."""
    p = op.param
    if p.get("mode") == "window" or p.get("replace"):
        return None
    tie = order_of(op.operands[1])
    if tie is None:
        return None
    _, d, shape = tie
    a, n = int(p["axis"]), int(op.shape[int(p["axis"])])
    if not int(p["size"]) == int(p.get("length", n)) == n:
        return None
    if p.get("along"):
        return tie if (shape, d) == (tuple(op.shape), a) else None
    return tie if (shape, d) == ((n,), 0) else None


def sources(op, positions: np.ndarray, inverse: bool) -> np.ndarray:
    """Each output's source position along the axis, of the operation's shape: the
    positions (a take), or their inverse (the scatter-add: the update that lands there)."""
    a = int(op.param["axis"])
    shape = tuple(op.shape)
    at = np.asarray(positions).astype(np.int64)
    if op.param.get("along"):
        at = at.reshape(shape)
    else:
        at = np.broadcast_to(at.reshape([-1 if j == a else 1 for j in range(len(shape))]), shape)
    return inverse_order(at, a) if inverse else at


def _keeps_order(x, name: str | None) -> bool:
    """A reshape, a conversion or a broadcast that only adds unit axes: the same values
    in C order."""
    if name in ("reshape", "convert_element_type"):
        return _same_size(x)
    return name == "broadcast_in_dim" and _same_size(x) and _in_order(x)


def _same_size(x) -> bool:
    inner = x.operands[0]
    return hasattr(inner, "shape") and math.prod(inner.shape) == math.prod(x.shape)


def _in_order(x) -> bool:
    dims = tuple(x.param.get("broadcast_dimensions", ()))
    return list(dims) == sorted(dims)


def _wraps_negative(x) -> bool:
    """``select_n(a < 0, a, a + n)``: JAX's wrap of negative indices (``a`` itself where
    ``a`` is never negative, as an ``argsort`` is not)."""
    if len(x.operands) != 3:
        return False
    test, a, wrapped = x.operands
    bound = getattr(test, "operands", (None, None))[1]
    return (
        getattr(test, "primitive", None) == "lt"
        and test.operands[0] == a
        and hasattr(bound, "value")
        and bool(np.all(np.asarray(bound.value) <= 0))
        and getattr(wrapped, "primitive", None) == "add"
        and wrapped.operands[0] == a
    )
