"""A take at positions known only at run time: ``x[i]``, ``x[idx]``, ``x[:, j]`` and
``jnp.take_along_axis`` along one axis where the positions are computed from the inputs
(``argmax``, ``argsort``), as the array operation ``take_dynamic``.

Its operands are the data ``x`` and the positions (a nested integer operation: no
derivative flows through an integer, as in JAX), its params the ``axis``, the ``mode``
and the output length ``size`` along the axis:

* ``"clip"``: a vector of ``size`` positions, clipped into the axis (``x[idx]``: JAX's
  ``PROMISE_IN_BOUNDS`` and ``CLIP``);
* ``"fill"``: a vector of positions, an output out of range the ``fill`` value with a zero
  derivative (``take_along_axis``: ``FILL_OR_DROP``);
* ``along``: with ``"clip"`` or ``"fill"``, one position per output (``take_along_axis``
  of an n-d array: the positions' shape is the output's, each read in its own fibre);
* ``"window"``: one start, clamped into ``[0, n - size]``, and ``size`` positions from it
  (``dynamic_slice``).

∂take/∂x has one entry per output, at a column chosen at run time within the output's
fibre along the axis. Its block is the union over every choice: a labelled block whose
rows are dense along that fibre (n entries per output), its values a one-hot of the
chosen positions over two labels (the input position along the axis, the output's).
That union is the pattern a ``sparse=True`` Jacobian returns, the entries not taken
stored as zeros: an honest pattern at every point, n times the nonzeros of one point.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import UnionTooLarge
from . import GENERAL, Labelled, OneHot

__all__ = [
    "DYNAMIC_TAKE",
    "UNION_LIMIT",
    "dynamic_block",
    "dynamic_forward",
    "dynamic_value",
    "positions",
    "union_block",
]

DYNAMIC_TAKE = "take_dynamic"
UNION_LIMIT = 50_000_000  # entries of the union a block's one-hot values are spread over


def positions(
    op, index: np.ndarray, n: int, shape: tuple[int, ...] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The positions read along the axis (each within the axis; ``size`` of them, or one
    per output where ``along``: the index's ``shape``, the output's unless given) and which
    are in range (the others read the fill value)."""
    p = op.param
    size = int(p["size"])
    index = np.asarray(index).astype(np.int64)
    if p["mode"] == "window":
        start = min(max(int(index.reshape(-1)[0]), 0), n - size)
        return np.arange(start, start + size), np.ones(size, dtype=bool)
    index = index.reshape((shape or op.shape) if p.get("along") else (size,))
    valid = (index >= 0) & (index < n) if p["mode"] == "fill" else np.ones(index.shape, bool)
    return np.clip(index, 0, n - 1), valid


def dynamic_forward(op, args) -> np.ndarray:
    """The value: ``x`` taken at :func:`positions` along the axis."""
    x = np.asarray(args[0])
    a = int(op.param["axis"])
    at, valid = positions(op, args[1], x.shape[a])
    along = bool(op.param.get("along"))
    out = np.take_along_axis(x, at, axis=a) if along else np.take(x, at, axis=a)
    if valid.all():
        return out
    laid = valid if along else valid.reshape([-1 if j == a else 1 for j in range(x.ndim)])
    return np.where(laid, out, float(op.param["fill"]))


def dynamic_block(op, mine: tuple[int, ...]) -> Labelled:
    """The union block: the input's axes as labels and one more, the output's position
    along the axis (the output reads the others); values over those two labels.

    Raises
    ------
    UnionTooLarge
        Where the union holds over :data:`UNION_LIMIT` entries (every mode is checked
        against a reference that forms it; the generated ``jvp``, ``vjp`` and block
        products multiply as a gather and a segment sum, never by the one-hot:
        :mod:`dgraph.codegen.tensor.dynamic_gathers`).
    """
    a, shape = int(op.param["axis"]), tuple(op.shape)
    whole = len(mine) == len(shape) and all(
        m == s for j, (m, s) in enumerate(zip(mine, shape, strict=True)) if j != a
    )
    return union_block(op, tuple(mine), shape, "take", "take fewer positions", gathered=whole)


def union_block(
    op,
    array: tuple[int, ...],
    other: tuple[int, ...],
    what: str,
    fewer: str,
    transposed=False,
    gathered=False,
) -> Labelled:
    """The union over positions along ``op``'s axis of ``array`` (the taken array, or
    the array a scatter-add adds into): ``array``'s axes as labels and one more, the
    position in ``other`` (the take's output, or the updates) along the axis; rows
    ``other``'s and columns ``array``'s, or ``transposed`` (the scatter-add's ∂/∂updates)
    the other way round. Refused in one line past :data:`UNION_LIMIT` entries, naming
    ``what`` and what to do (``fewer``). ``gathered``: the block's products are printed
    as gathers and segment sums (the moved operand whole, not broadcast; not
    ``along``): a :class:`~dgraph.blocks.OneHot`, priced so."""
    a, n = int(op.param["axis"]), len(array)
    size = int(op.param["size"])
    union = math.prod(array) * size
    if union > UNION_LIMIT:
        raise UnionTooLarge(
            f"{what} at positions known only at run time, shape {array} along axis {a}:"
            f" as a fixed pattern it is the union over positions, {union:,} entries (over"
            f" {UNION_LIMIT:,}), which every mode holds: {fewer} or a smaller axis, or close"
            " over the index data (constants in the function: their own pattern)"
        )
    plain = tuple(((j,), 0) for j in range(n))
    moved = tuple(((n if j == a else j,), 0) for j in range(n))
    value = tuple(range(n + 1)) if op.param.get("along") else (a, n)
    if transposed:
        fields = (array, other, plain, moved, (*array, size), value, GENERAL)
    else:
        fields = (other, array, moved, plain, (*array, size), value, GENERAL)
    if gathered and not op.param.get("along"):  # the position a, the output's n
        return OneHot(*fields, position=a, group=(n,), take=not transposed)
    return Labelled(*fields)


def dynamic_value(op, args, shape: tuple[int, ...] | None = None) -> np.ndarray:
    """The block's values over its two labels: entry [i, o] is 1 where output o reads
    input position i along the axis (and is in range), else 0; ``along``: over every
    label, entry [..., i, ..., o] (i at the axis, o last) for the fibre of the others
    (``shape``: the positions', the output's unless given)."""
    a = int(op.param["axis"])
    n = np.asarray(args[0]).shape[a]
    at, valid = positions(op, args[1], n, shape)
    if op.param.get("along"):
        hit = (at[..., None] == np.arange(n)) & valid[..., None]
        return np.swapaxes(hit, a, -1).astype(float)
    return ((np.arange(n)[:, None] == at[None, :]) & valid[None, :]).astype(float)
