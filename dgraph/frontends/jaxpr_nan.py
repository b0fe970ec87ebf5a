"""Entries that are NaN whatever the inputs: an elementwise operation that reads a constant
with NaN entries (missing data, ``y[::3] = nan``), directly or through another such
operation, is NaN there at every point, so those entries are constants and carry no
derivative. Read as ``select_n(mask, op(x'), nan)`` with ``x'`` the operands with a finite
placeholder at those entries: the value is the program's, the derivative through them is
a structural zero (a select's), never ``0 · nan``. Without it, ``jnp.nanmean((A @ x -
y)**2)`` has the partial ``2 (A x − y)``, NaN where ``y`` is, times the where's zero: NaN,
where ``jax.jacfwd`` (a select of tangents) gives the finite gradient."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..blocks.arrays import ELEMENTWISE, ArrayOp

__all__ = ["read_constant_nan"]

#: a finite value every elementwise rule's partial is finite at (log, sqrt, 1/x, acos …)
PLACEHOLDER = 0.5


def read_constant_nan(
    reader, primitive: str, ins: list[Any], kept: tuple, shape: tuple, aval
) -> Any:
    """``primitive(*ins)`` (parameters ``kept``) guarded as the module says where it reads
    NaN entries that are constants (``reader.nan_entries``: each guarded vertex's), else
    None (a vertex of NaN entries read broadcast: as it was)."""
    if primitive not in ELEMENTWISE and primitive != "integer_pow":
        return None
    masks = [_nan_mask(reader, x) for x in ins]
    if all(m is None for m in masks):
        return None
    if any(isinstance(x, str) and m is not None and m.shape != tuple(shape)
           for x, m in zip(ins, masks, strict=True)):  # fmt: skip
        return None
    mask = np.logical_or.reduce([np.broadcast_to(m, shape) for m in masks if m is not None])
    if mask.all():
        return None  # NaN everywhere: the program's own value (folded or not) stays
    operands = [_finite(reader, x, m, aval) for x, m in zip(ins, masks, strict=True)]
    inner = reader.result(ArrayOp(primitive, tuple(operands), kept, shape), aval)
    if not isinstance(inner, str):
        return None
    out = reader.result(ArrayOp("select_n", (mask, inner, np.full(shape, np.nan)), (), shape),
                        aval)  # fmt: skip
    if isinstance(out, str):
        reader.nan_entries[out] = mask
    return out


def _nan_mask(reader, x: Any) -> np.ndarray | None:
    """Where ``x`` is NaN whatever the inputs (its own shape), or None."""
    if isinstance(x, np.ndarray) and x.dtype.kind == "f" and np.isnan(x).any():
        return np.isnan(x)
    if isinstance(x, str):
        return reader.nan_entries.get(x)
    return None


def _finite(reader, x: Any, mask: np.ndarray | None, aval) -> Any:
    """``x`` with the placeholder at its NaN entries (a constant replaced, a vertex selected)."""
    if mask is None:
        return reader.operand(x)
    if isinstance(x, np.ndarray):
        return reader.operand(np.where(np.isnan(x), PLACEHOLDER, x))
    shape = tuple(mask.shape)
    op = ArrayOp("select_n", (mask, x, np.full(shape, PLACEHOLDER)), (), shape)
    return reader.result(op, aval)
