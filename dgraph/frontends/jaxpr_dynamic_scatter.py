"""Scatter-adds, scatters and window updates at positions computed from the inputs, the transposes
of :mod:`.jaxpr_dynamic`'s takes (JAX's derivative of ``x[jnp.argsort(x)]``,
``jnp.take_along_axis``, ``lax.dynamic_slice`` at a traced start, so a Hessian through
them): read as ``scatter_add_dynamic`` (:mod:`dgraph.blocks.dynamic_scatter`), one axis
at a time; a ``scatter`` (``.set``) or ``dynamic_update_slice`` that replaces entries (into
anything but a constant zero, or at positions that may repeat) with its param ``replace``
(JAX's semantics: one update kept of a repeat). Each reader returns the equation's value,
or None where the form is another (its usual error line then)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..blocks.arrays import ArrayOp
from ..blocks.dynamic_scatter import DYNAMIC_ADD
from ..blocks.dynamic_take import DYNAMIC_TAKE
from ..errors import InputError

__all__ = ["read_dynamic_write"]


def read_dynamic_write(reader, eqn, ins: list[Any]) -> list[Any] | None:
    """``scatter-add``, ``scatter`` or ``dynamic_update_slice`` whose positions depend on
    the inputs, else None."""
    name = eqn.primitive.name
    if not all(isinstance(i, (str, ArrayOp, np.ndarray)) for i in ins):
        return None  # an opaque index: refused where it is read
    if name in ("scatter-add", "scatter_add", "scatter"):
        return _scatter_add(reader, eqn, ins, replace=name == "scatter")
    if name == "dynamic_update_slice":
        return [_update_window(reader, eqn, ins)]
    return None


def _shape(var) -> tuple[int, ...]:
    return tuple(int(n) for n in var.aval.shape)


def _add(reader, x: Any, index: Any, u: Any, params: dict, shape, aval) -> Any:
    operands = (reader.operand(x), index, reader.operand(u))
    return reader.result(ArrayOp(DYNAMIC_ADD, operands, tuple(params.items()), shape), aval)


def _scatter_add(reader, eqn, ins: list[Any], *, replace: bool = False) -> list[Any] | None:
    """Updates along one axis, the transposes of the take's gathers: whole slices at an
    array of positions (``x.at[idx].add(u)``, ``x.at[:, idx].add(u)``, ``x.at[T].add(u)``),
    at one position (``x.at[i].add(u)``: the updates lack the axis), or one per update,
    each in its own fibre (the transpose of ``take_along_axis`` of an n-d array). ``replace``: a
    ``scatter`` (``.set``): into a constant zero at distinct positions its updates
    added, else read with the param ``replace`` (of repeated positions JAX keeps one
    update, no sum).

    Raises
    ------
    InputError
        A ``scatter`` applying a function (``.at[].apply``), which JAX does not
        differentiate."""
    numbers = eqn.params["dimension_numbers"]
    axes = tuple(numbers.scatter_dims_to_operand_dims)
    whole, index_shape, given = (_shape(v) for v in eqn.invars[:3])
    if len(axes) != 1:
        return None
    a = axes[0]
    others = tuple(k for k in range(len(whole)) if k != a)
    window_dims = tuple(numbers.update_window_dims)
    batched = tuple(getattr(numbers, "operand_batching_dims", ()))
    if tuple(numbers.inserted_window_dims) != axes:  # jax.vmap of a window of one's transpose
        window = (
            bool(batched)
            and not tuple(numbers.inserted_window_dims)
            and window_dims == (a,)
            and given == tuple(1 if k == a else n for k, n in enumerate(whole))
        )
        if not window or not _mapped(numbers, others, whole, index_shape):
            return None
        size = 1
    elif batched and len(given) < len(whole):  # jax.vmap of x.at[i].set(u): u lacks the axis
        if window_dims or given != tuple(whole[k] for k in others):
            return None
        if not _mapped(numbers, others, whole, index_shape):
            return None
        size = 1
    elif batched:  # the transpose of take_along_axis of an n-d array
        along = (
            batched == others
            and tuple(numbers.scatter_indices_batching_dims) == others
            and not window_dims
            and index_shape == (*given, 1)
            and all(given[k] == whole[k] for k in others)
        )
        if not along:
            return None
        size = given[a]
    elif index_shape == (1,):  # one position: the updates lack the axis
        if window_dims != tuple(range(len(others))) or given != tuple(whole[k] for k in others):
            return None
        size = 1
    elif len(index_shape) >= 2 and index_shape[-1] == 1:  # positions of any rank (x.at[T])
        batch, lift = index_shape[:-1], len(index_shape) - 2
        size = int(np.prod(batch, dtype=int))
        if window_dims != tuple(k if k < a else k + lift for k in others) or given != (
            *whole[:a],
            *batch,
            *whole[a + 1 :],
        ):
            return None
    else:
        return None
    laid = tuple(size if k == a else n for k, n in enumerate(whole))
    index = ArrayOp("reshape", (reader.operand(ins[1]),), (), laid if batched else (size,))
    u = ins[2]
    if given != laid:  # one position: its axis, of length 1; positions of rank 2: flat
        u = (
            np.reshape(u, laid)
            if isinstance(u, np.ndarray)
            else reader.result(
                ArrayOp("reshape", (reader.operand(u),), (), laid), eqn.invars[2].aval
            )
        )
    params: dict[str, Any] = {
        "axis": a,
        "mode": "fill" if "FILL" in str(eqn.params.get("mode")) else "clip",
        "size": size,
        "length": whole[a],
        "fill": 0.0,
    }
    if batched:
        params["along"] = True
    aval = eqn.outvars[0].aval
    if replace and not _distinct_into_zeros(reader, eqn, ins[0], size):
        params["replace"] = True  # x with the positions replaced, one update kept a repeat
    return [_add(reader, ins[0], index, u, params, whole, aval)]


def _mapped(numbers, others: tuple[int, ...], whole, index_shape) -> bool:
    """Whether a scatter's batch axes are ``jax.vmap``'s of a write at one position per
    fibre: every operand axis but the written one, in order, one position each."""
    return (
        tuple(numbers.operand_batching_dims) == others
        and tuple(numbers.scatter_indices_batching_dims) == tuple(range(len(others)))
        and index_shape == (*(whole[k] for k in others), 1)
    )


def _distinct_into_zeros(reader, eqn, x: Any, size: int) -> bool:
    """Whether a ``scatter`` writes into a constant zero at distinct positions (one, or
    ``unique_indices``), which adding its updates sets (the others replace).

    Raises
    ------
    InputError
        A ``scatter`` that applies a function (``.at[].apply``): JAX has no derivative of
        it (its ``_scatter_jvp`` refuses ``update_jaxpr``)."""
    if eqn.params.get("update_jaxpr") is not None:
        raise InputError(
            f"{reader.where}: scatter applying a function (.at[].apply) at positions computed"
            " from the inputs is not supported (JAX has no derivative of it): use .set"
        )
    distinct = size == 1 or bool(eqn.params.get("unique_indices"))
    return distinct and _zeros(x)


def _zeros(x: Any) -> bool:
    """Whether a write's base is a constant zero, where adding the updates sets them."""
    return isinstance(x, np.ndarray) and not np.any(x)


def _update_window(reader, eqn, ins: list[Any]) -> Any:
    """A constant zero with the window at offsets some of which are computed set to
    ``u`` (JAX's transpose of ``dynamic_slice``): a ``pad`` along the constant offsets
    (JAX clamps them into range) and a ``scatter_add_dynamic`` along each computed one,
    whose start is clamped the same way (a window's positions are distinct: adding into
    zeros sets). Into anything else, :func:`_put`."""
    x, value, starts = ins[0], ins[1], ins[2:]
    whole, sizes = _shape(eqn.invars[0]), _shape(eqn.invars[1])
    aval = eqn.outvars[0].aval
    if not _zeros(x):
        narrower = [a for a, (n, m) in enumerate(zip(whole, sizes, strict=True)) if m < n]
        return _put(reader, x, value, (whole, sizes, starts), narrower, aval)
    fixed = [isinstance(s, np.ndarray) for s in starts]
    config = tuple(
        (b, n - m - b, 0) if f else (0, 0, 0)
        for f, s, n, m in zip(fixed, starts, whole, sizes, strict=True)
        for b in [min(max(int(s), 0), n - m) if f else 0]
    )
    shape = [n if f else m for f, n, m in zip(fixed, whole, sizes, strict=True)]
    if any(lo or hi for lo, hi, _ in config):
        padded = ArrayOp("pad", (reader.operand(value), 0.0), (("padding_config", config),), shape)
        value = reader.result(padded, aval)
    for a in [a for a, f in enumerate(fixed) if not f]:
        shape[a] = whole[a]
        params = {"axis": a, "mode": "window", "size": sizes[a], "length": whole[a], "fill": 0.0}
        zeros = np.zeros(shape)
        value = _add(reader, zeros, reader.operand(starts[a]), value, params, tuple(shape), aval)
    return value


def _put(reader, base: Any, value: Any, window: tuple, axes: list[int], aval) -> Any:
    """``base`` with the window (``window``: the base's shape, the window's sizes and
    starts, each clamped into ``[0, n - m]`` as JAX clamps it) set to ``value``, one axis
    of ``axes`` (those along which the window is narrower) at a time: the window's slab of
    ``base`` along the axis, the rest of the window put in it the same way, put back. At a
    constant start a ``slice``, and a ``pad`` chosen by a constant mask (``select_n``); at
    a computed one a ``take_dynamic`` window and a replacing ``scatter_add_dynamic``."""
    if not axes:
        return value
    shape, sizes, starts = window
    a, n, m = axes[0], shape[axes[0]], sizes[axes[0]]
    inner = tuple(m if j == a else k for j, k in enumerate(shape))
    start = starts[a]
    if not isinstance(start, np.ndarray):
        params = {"axis": a, "mode": "window", "size": m, "length": n, "fill": 0.0}
        operands = (reader.operand(base), reader.operand(start))
        take = ArrayOp(DYNAMIC_TAKE, operands, tuple(params.items()), inner)
        slab = reader.result(take, aval)
        put = _put(reader, slab, value, (inner, sizes, starts), axes[1:], aval)
        params["replace"] = True
        return _add(reader, base, reader.operand(start), put, params, tuple(shape), aval)
    b = min(max(int(start), 0), n - m)
    begin = tuple(b if j == a else 0 for j in range(len(shape)))
    end = tuple(b + m if j == a else k for j, k in enumerate(shape))
    bounds = (("start_indices", begin), ("limit_indices", end), ("strides", None))
    slab = reader.result(ArrayOp("slice", (reader.operand(base),), bounds, inner), aval)
    put = _put(reader, slab, value, (inner, sizes, starts), axes[1:], aval)
    config = tuple((b, n - m - b, 0) if j == a else (0, 0, 0) for j in range(len(shape)))
    pad = ArrayOp("pad", (reader.operand(put), 0.0), (("padding_config", config),), tuple(shape))
    padded = reader.result(pad, aval)
    inside = np.zeros(shape, dtype=bool)
    inside[(slice(None),) * a + (slice(b, b + m),)] = True
    operands = (reader.operand(inside), reader.operand(base), reader.operand(padded))
    return reader.result(ArrayOp("select_n", operands, (), tuple(shape)), aval)
