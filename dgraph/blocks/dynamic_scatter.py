"""A scatter-add at positions known only at run time, the transpose of ``take_dynamic``
(:mod:`dgraph.blocks.dynamic_take`): the array operation ``scatter_add_dynamic``.

JAX's derivative of a take at computed positions (``x[jnp.argsort(x)]``,
``jnp.take_along_axis``, ``x[jnp.argmax(x)]``, ``lax.dynamic_slice`` at a traced start)
is a ``scatter-add`` (or a ``dynamic_update_slice`` into zeros) at the same positions,
so a Hessian through such a take reads one (Griewank & Walther, *Evaluating Derivatives*,
2nd ed., SIAM 2008, §3.2: the adjoint of a gather is a scatter-add).

Its operands are the base ``x``, the positions (a nested integer operation: no
derivative flows through them, as in JAX) and the updates ``u``; its params are the
take's (``axis``, ``mode``, ``size``: the updates' length along the axis, ``length``: the
base's, ``fill``, ``along``), read the same way:

* ``"clip"``: ``size`` positions clipped into the axis (JAX's ``CLIP`` and
  ``PROMISE_IN_BOUNDS``, as for the take);
* ``"fill"``: an update whose position is out of range is dropped (``FILL_OR_DROP``);
* ``along``: one position per update, each in its own fibre (the transpose of
  ``take_along_axis`` of an n-d array);
* ``"window"``: one start, clamped into ``[0, n - size]`` (``dynamic_update_slice``).

The value is ``x`` plus each update added at its position (repeats add up). ∂/∂x is the
identity; ∂/∂u is the transpose of the take's block: the union over positions (each
output row dense over the updates of its fibre), its values the take's one-hot over the
same two labels, so that a ``sparse=True`` Hessian's pattern holds at every point, the
entries not hit stored as zeros; over :data:`~dgraph.blocks.dynamic_take.UNION_LIMIT`
entries it is refused in one line, as the take's is.

With the param ``replace`` (a ``scatter``, ``x.at[i].set(u)``, or a
``dynamic_update_slice`` into anything) the value is ``x`` with the entries at the
positions replaced, as JAX's ``scatter``: where positions repeat one update is kept, the
last in the updates' order (the one JAX's CPU backend keeps, and the one its
``_scatter_jvp`` finds by scattering update ids and gathering them back; which one wins is
JAX's choice, unspecified by XLA). ∂/∂x is then a diagonal 0/1 mask, 0 at the positions
written (:func:`last_update`: computed from the positions at run time, a constant for
differentiation); ∂/∂u the same union block, its one-hot keeping only each position's
kept update. Both are linear in ``(x, u)`` for fixed positions, so their second
derivatives are zero, as JAX's.
"""

from __future__ import annotations

import numpy as np

from . import Labelled, diagonal, identity
from .dynamic_take import dynamic_value, positions, union_block

__all__ = [
    "DYNAMIC_ADD",
    "add_block",
    "add_forward",
    "add_value",
    "last_update",
    "updates_shape",
]

DYNAMIC_ADD = "scatter_add_dynamic"


def updates_shape(op) -> tuple[int, ...]:
    """The updates' shape: the result's with ``size`` along the axis."""
    a, size = int(op.param["axis"]), int(op.param["size"])
    return tuple(size if j == a else m for j, m in enumerate(op.shape))


def add_forward(op, args) -> np.ndarray:
    """``x`` with each update added at its position along the axis (``numpy.add.at``: a
    repeated position adds each update; an update out of range in ``"fill"`` dropped);
    ``replace``: each position written set to its kept update (:func:`last_update`)."""
    x = np.array(args[0], dtype=float).reshape(op.shape)
    shape = updates_shape(op)
    u = np.broadcast_to(np.asarray(args[2], dtype=float), shape)
    a = int(op.param["axis"])
    if op.param.get("replace"):
        return _replaced(op, x, args[1], u)
    at, valid = positions(op, args[1], x.shape[a], shape)
    if op.param.get("along"):
        where = list(np.indices(shape, sparse=True))
        where[a] = at
        np.add.at(x, tuple(np.broadcast_arrays(*where)), np.where(valid, u, 0.0))
        return x
    np.add.at(np.moveaxis(x, a, 0), at[valid], np.moveaxis(u, a, 0)[valid])
    return x


def last_update(op, index, shape: tuple[int, ...] | None = None) -> np.ndarray:
    """Per result entry, the update kept there along the axis: the last in range that
    lands on it (JAX's CPU ``scatter``), -1 where none does; of the result's shape where
    ``along``, else one per position along the axis (``shape``: the updates'; unless
    given, :func:`updates_shape`)."""
    a, n, size = int(op.param["axis"]), int(op.param["length"]), int(op.param["size"])
    at, valid = positions(op, index, n, shape or updates_shape(op))
    if op.param.get("along"):  # (..., o at the axis, ..., i last) -> i at the axis, o last
        hit = np.swapaxes((at[..., None] == np.arange(n)) & valid[..., None], a, -1)
    else:
        hit = (np.arange(n)[:, None] == at[None, :]) & valid[None, :]
    return np.max(np.where(hit, np.arange(size), -1), axis=-1)


def _replaced(op, x: np.ndarray, index, u: np.ndarray) -> np.ndarray:
    """``x`` with each position written set to its kept update (exact: a copy)."""
    a = int(op.param["axis"])
    last = last_update(op, index, u.shape)
    if op.param.get("along"):
        kept = np.take_along_axis(u, np.maximum(last, 0), axis=a)
        return np.where(last >= 0, kept, x)
    written = last >= 0
    np.moveaxis(x, a, 0)[written] = np.moveaxis(u, a, 0)[last[written]]
    return x


def _kept_mask(op, last: np.ndarray) -> np.ndarray:
    """Where the result keeps ``x`` (no update kept there), as 0/1 of the result's shape."""
    keep = (last < 0).astype(float)
    if op.param.get("along"):
        return keep
    a = int(op.param["axis"])
    lay = tuple(-1 if j == a else 1 for j in range(len(op.shape)))
    return np.broadcast_to(keep.reshape(lay), op.shape)


def add_block(op, k: int, mine: tuple[int, ...]) -> Labelled:
    """∂/∂x: the identity (``replace``: a diagonal, the 0/1 mask of the entries kept).
    ∂/∂u: the union block, the base's axes as labels and one more, the update's position
    along the axis (the output's position reads the others); values over those two
    labels (``along``: over every label).

    Raises
    ------
    DGraphError
        Where the union holds over :data:`~dgraph.blocks.dynamic_take.UNION_LIMIT`
        entries.
    """
    out = tuple(op.shape)
    if k == 0:
        return diagonal(out) if op.param.get("replace") else identity(out)
    whole = not op.param.get("replace") and tuple(mine) == updates_shape(op)
    return union_block(
        op, out, tuple(mine), "scatter-add", "add fewer updates", transposed=True, gathered=whole
    )


def add_value(op, k: int, args) -> np.ndarray:
    """The block values: 1 for the identity; for the updates the take's one-hot (entry
    [i, o]: 1 where update o lands on position i along the axis and is in range).
    ``replace``: the mask of the entries kept (over the result's labels), and the one-hot
    of the kept updates only (entry [i, o]: 1 where o is the update kept at i)."""
    if op.param.get("replace"):
        last = last_update(op, args[1])
        if k == 0:
            return np.ascontiguousarray(_kept_mask(op, last))
        return (last[..., None] == np.arange(int(op.param["size"]))).astype(float)
    if k == 0:
        return np.asarray(1.0)
    return dynamic_value(op, args, updates_shape(op))
