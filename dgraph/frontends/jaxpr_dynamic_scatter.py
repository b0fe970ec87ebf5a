"""Scatter-adds, scatters and window updates at positions computed from the inputs, the transposes
of :mod:`.jaxpr_dynamic`'s takes (JAX's derivative of ``x[jnp.argsort(x)]``,
``jnp.take_along_axis``, ``lax.dynamic_slice`` at a traced start, so a Hessian through
them): read as ``scatter_add_dynamic`` (:mod:`dgraph.blocks.dynamic_scatter`), one axis
at a time. Each reader returns the equation's value, or None where the form is another
(its usual error line then)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..blocks.arrays import ArrayOp
from ..blocks.dynamic_scatter import DYNAMIC_ADD
from ..errors import InputError

__all__ = ["read_dynamic_write"]


def read_dynamic_write(reader, eqn, ins: list[Any]) -> list[Any] | None:
    """``scatter-add``, ``scatter`` or ``dynamic_update_slice`` whose positions depend on
    the inputs, else None."""
    name = eqn.primitive.name
    if not all(isinstance(i, (str, ArrayOp, np.ndarray)) for i in ins):
        return None  # an opaque index (top_k's): refused where it is read
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
    """Updates along one axis, the transposes of the take's gathers: whole slices at a
    vector of positions (``x.at[idx].add(u)``, ``x.at[:, idx].add(u)``), at one position
    (``x.at[i].add(u)``: the updates lack the axis), or one per update, each in its own
    fibre (the transpose of ``take_along_axis`` of an n-d array). ``replace``: a
    ``scatter`` (``.set``) at distinct positions, ``x + add(u - take(x))``.

    Raises
    ------
    InputError
        A ``scatter`` at more than one position not promised distinct
        (``unique_indices``): of repeated ones JAX keeps one update, no sum."""
    numbers = eqn.params["dimension_numbers"]
    axes = tuple(numbers.scatter_dims_to_operand_dims)
    whole, index_shape, given = (_shape(v) for v in eqn.invars[:3])
    if len(axes) != 1 or tuple(numbers.inserted_window_dims) != axes:
        return None
    a = axes[0]
    others = tuple(k for k in range(len(whole)) if k != a)
    window_dims = tuple(numbers.update_window_dims)
    batched = tuple(getattr(numbers, "operand_batching_dims", ()))
    if batched:  # the transpose of take_along_axis of an n-d array
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
    elif len(index_shape) == 2 and index_shape[1] == 1 and window_dims == others:
        size = index_shape[0]
        if given != tuple(size if k == a else n for k, n in enumerate(whole)):
            return None
    else:
        return None
    laid = tuple(size if k == a else n for k, n in enumerate(whole))
    index = ArrayOp("reshape", (reader.operand(ins[1]),), (), laid if batched else (size,))
    u = ins[2]
    if given != laid:  # one position: its axis, of length 1
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
    if replace:
        _distinct_into_zeros(reader, eqn, ins[0], size)
    return [_add(reader, ins[0], index, u, params, whole, aval)]


def _distinct_into_zeros(reader, eqn, x: Any, size: int) -> None:
    """Refuse a ``scatter`` but one into a constant zero at distinct positions (one, or
    ``unique_indices``), which adding its updates sets."""
    if size > 1 and not eqn.params.get("unique_indices"):
        raise InputError(
            f"{reader.where}: scatter (.set) at positions computed from the inputs that may"
            " repeat is not supported (JAX keeps one update of a repeat): use .at[].add, or"
            " unique_indices=True where they are distinct"
        )
    _into_zeros(reader, x, "scatter (.set)")


def _into_zeros(reader, x: Any, what: str) -> None:
    """Refuse a write that replaces entries of anything but a constant zero: adding
    ``u - x`` there would lose ``u`` where ``x`` is much larger (not a rounding)."""
    if not (isinstance(x, np.ndarray) and not np.any(x)):
        raise InputError(
            f"{reader.where}: {what} at positions computed from the inputs into an array"
            " that is not a constant zero is not supported (JAX's derivatives write into"
            " zeros): add into zeros (.at[].add) and combine with the array yourself"
        )


def _update_window(reader, eqn, ins: list[Any]) -> Any:
    """A constant zero with the window at offsets some of which are computed set to
    ``u`` (JAX's transpose of ``dynamic_slice``): a ``pad`` along the constant offsets
    (JAX clamps them into range) and a ``scatter_add_dynamic`` along each computed one,
    whose start is clamped the same way (a window's positions are distinct: adding into
    zeros sets)."""
    x, value, starts = ins[0], ins[1], ins[2:]
    _into_zeros(reader, x, "dynamic_update_slice")
    whole, sizes = _shape(eqn.invars[0]), _shape(eqn.invars[1])
    aval = eqn.outvars[0].aval
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
