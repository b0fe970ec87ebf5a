"""Gathers and windows at positions computed from the inputs (``x[jnp.argmax(x)]``,
``x[jnp.argsort(x)]``, ``jnp.take_along_axis``): read as ``take_dynamic``
(:mod:`dgraph.blocks.dynamic_take`), one axis at a time; their transposes (``scatter-add``,
``dynamic_update_slice``) by :mod:`.jaxpr_dynamic_scatter`. Each reader returns the
equation's value, or None where the form is another (its usual error line then)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..blocks.arrays import ArrayOp
from ..blocks.dynamic_take import DYNAMIC_TAKE

__all__ = ["read_dynamic"]


def read_dynamic(reader, eqn, ins: list[Any]) -> list[Any] | None:
    """``gather`` or ``dynamic_slice`` whose positions depend on the inputs, else None."""
    name = eqn.primitive.name
    if not all(isinstance(i, (str, ArrayOp, np.ndarray)) for i in ins[1:]):
        return None  # an opaque index: refused where it is read
    if name == "gather":
        return _gather(reader, eqn, ins)
    if name == "dynamic_slice":
        return [_window(reader, eqn, ins)]
    return None


def _take(reader, x: Any, index: Any, params: dict, shape: tuple[int, ...], aval) -> Any:
    op = ArrayOp(
        DYNAMIC_TAKE, (reader.operand(x), reader.operand(index)), tuple(params.items()), shape
    )
    return reader.result(op, aval)


def _gather(reader, eqn, ins: list[Any]) -> list[Any] | None:
    """Positions along one axis: whole slices at an array of them (``x[idx]``,
    ``x[:, idx]``, ``E[T]``, ``take_along_axis`` of a 1-D array), at one (the output lacks the
    axis: JAX's transpose of ``x.at[i].set``), or one per output, each in its own
    fibre (``take_along_axis`` of an n-d array: every other axis a batch axis)."""
    numbers = eqn.params["dimension_numbers"]
    axes = tuple(numbers.start_index_map)
    whole = tuple(int(n) for n in eqn.invars[0].aval.shape)
    index_shape = tuple(int(n) for n in eqn.invars[1].aval.shape)
    shape = tuple(int(n) for n in eqn.outvars[0].aval.shape)
    if not axes or index_shape[-1:] != (len(axes),):
        return None
    if len(axes) > 1:
        found = _gather_points(reader, eqn, ins, whole, index_shape, shape)
        return None if found is None else [found]
    a = axes[0]
    others = tuple(k for k in range(len(whole)) if k != a)
    batched = tuple(getattr(numbers, "operand_batching_dims", ()))
    laid = None  # the output's shape where the take's lacks the axis
    one = tuple(1 if k == a else n for k, n in enumerate(whole))
    if batched and _mapped_one(eqn, a, whole, index_shape, shape):
        size = 1  # one entry per fibre: take_along_axis with positions of one
        index = ArrayOp("reshape", (reader.operand(ins[1]),), (), one)
        if shape != one:  # x[i]: the output lacks the axis
            laid, shape = shape, one
    elif tuple(numbers.collapsed_slice_dims) != axes:
        kept = _kept_axis(eqn, a, whole, index_shape, shape)
        if kept is None or batched:
            return None
        size, laid, shape = index_shape[0], shape, kept
        index = ArrayOp("reshape", (reader.operand(ins[1]),), (), (size,))
    elif index_shape == (1,) and not batched:  # one position (JAX's transpose of x.at[i].set)
        if tuple(numbers.offset_dims) != tuple(range(len(others))) or tuple(
            eqn.params["slice_sizes"]
        ) != tuple(1 if k == a else n for k, n in enumerate(whole)):
            return None
        laid, shape = shape, tuple(1 if k == a else n for k, n in enumerate(whole))
        size, index = 1, ArrayOp("reshape", (reader.operand(ins[1]),), (), (1,))
    elif batched:  # take_along_axis of an n-d array
        along = (
            batched == others
            and tuple(numbers.start_indices_batching_dims) == others
            and not tuple(numbers.offset_dims)
            and tuple(eqn.params["slice_sizes"]) == (1,) * len(whole)
            and index_shape[:-1] == shape
            and all(shape[k] == whole[k] for k in others)
        )
        if not along:
            return None
        size, index = shape[a], ArrayOp("reshape", (reader.operand(ins[1]),), (), shape)
    else:  # positions of any rank (E[T], T (m, 3)): taken flat, their axes laid back
        batch = index_shape[:-1]
        lift = len(batch) - 1
        if (
            not batch
            or tuple(numbers.offset_dims) != tuple(k if k < a else k + lift for k in others)
            or tuple(eqn.params["slice_sizes"])
            != tuple(1 if k == a else n for k, n in enumerate(whole))
        ):
            return None
        size = int(np.prod(batch, dtype=int))
        index = ArrayOp("reshape", (reader.operand(ins[1]),), (), (size,))
        if lift:
            laid, shape = shape, tuple(size if k == a else n for k, n in enumerate(whole))
    mode = "fill" if "FILL" in str(eqn.params.get("mode")) else "clip"
    fill = eqn.params.get("fill_value")
    params = {
        "axis": a,
        "mode": mode,
        "size": size,
        "length": whole[a],
        "fill": float("nan") if fill is None else float(fill),
    }
    if batched:
        params["along"] = True
    aval = eqn.outvars[0].aval
    taken = _take(reader, ins[0], index, params, shape, aval)
    if laid is None:
        return [taken]
    return [reader.result(ArrayOp("reshape", (reader.operand(taken),), (), laid), aval)]


def _gather_points(reader, eqn, ins: list[Any], whole, index_shape, shape) -> Any:
    """Single entries at computed points of several axes (``img[i, j]`` with ``i``, ``j``
    arrays: ``jax.scipy.ndimage.map_coordinates``'s corners), each coordinate clamped into
    its axis as XLA's gather clamps it: one take along the flattened array at the flat
    positions ``Σ clamp(iₐ) · strideₐ``. Other forms (slices, batches, filling): None."""
    numbers = eqn.params["dimension_numbers"]
    axes = tuple(numbers.start_index_map)
    if (
        "FILL" in str(eqn.params.get("mode"))
        or tuple(numbers.offset_dims)
        or tuple(getattr(numbers, "operand_batching_dims", ()))
        or tuple(sorted(numbers.collapsed_slice_dims)) != tuple(range(len(whole)))
        or tuple(sorted(axes)) != tuple(range(len(whole)))
        or tuple(eqn.params["slice_sizes"]) != (1,) * len(whole)
        or index_shape[:-1] != shape
    ):
        return None
    count, total = int(np.prod(shape, dtype=int)), int(np.prod(whole, dtype=int))
    strides = np.cumprod((1, *whole[:0:-1]))[::-1]  # row-major, per axis
    at, ints, one = reader.operand(ins[1]), eqn.invars[1].aval, (*shape, 1)
    flat = None
    for j, a in enumerate(axes):
        bounds = (("start_indices", (0,) * len(shape) + (j,)),
                  ("limit_indices", (*shape, j + 1)), ("strides", None))  # fmt: skip
        c = ArrayOp("slice", (at,), bounds, one)
        c = ArrayOp("max", (c, np.zeros(one)), (), one)
        c = ArrayOp("min", (c, np.full(one, whole[a] - 1.0)), (), one)
        c = ArrayOp("mul", (c, np.full(one, float(strides[a]))), (), one)
        flat = c if flat is None else ArrayOp("add", (flat, c), (), one)
    index = reader.result(ArrayOp("reshape", (flat,), (), (count,)), ints)
    x = ins[0]
    if isinstance(x, np.ndarray):
        data = np.reshape(x, -1)
    else:
        data = reader.result(ArrayOp("reshape", (reader.operand(x),), (), (total,)),
                             eqn.invars[0].aval)  # fmt: skip
    params = {"axis": 0, "mode": "clip", "size": count, "length": total, "fill": float("nan")}
    aval = eqn.outvars[0].aval
    taken = _take(reader, data, index, params, (count,), aval)
    return reader.result(ArrayOp("reshape", (reader.operand(taken),), (), shape), aval)


def _mapped_one(eqn, a: int, whole, index_shape, shape) -> bool:
    """Whether the gather is ``jax.vmap`` of one entry at a computed position, ``x[i]`` (the
    output lacks the axis ``a``) or a ``dynamic_slice`` of one (the simplex projection's
    ``cumsum[k - 1]``: ``a`` of length 1): every axis but ``a`` a batch axis, in order,
    one position per fibre."""
    numbers = eqn.params["dimension_numbers"]
    others = tuple(k for k in range(len(whole)) if k != a)
    lacking = tuple(numbers.collapsed_slice_dims) == (a,) and not tuple(numbers.offset_dims)
    window = not tuple(numbers.collapsed_slice_dims) and tuple(numbers.offset_dims) == (a,)
    return (
        (lacking or window)
        and tuple(numbers.operand_batching_dims) == others
        and tuple(numbers.start_indices_batching_dims) == tuple(range(len(others)))
        and tuple(eqn.params["slice_sizes"]) == (1,) * len(whole)
        and index_shape == (*(whole[k] for k in others), 1)
        and shape
        == (
            tuple(whole[k] for k in others)
            if lacking
            else tuple(1 if k == a else n for k, n in enumerate(whole))
        )
    )


def _kept_axis(eqn, a: int, whole, index_shape, shape) -> tuple[int, ...] | None:
    """The take's shape where the gather keeps the axis it indexes as a slice of one
    (``searchsorted``'s ``x[i:i + 1]``): positions ``(m, 1)`` whose one batch axis lies
    just before or after that slice, so the output is the take's, reshaped; else None."""
    numbers = eqn.params["dimension_numbers"]
    offsets = tuple(numbers.offset_dims)
    if (
        tuple(numbers.collapsed_slice_dims)
        or len(index_shape) != 2
        or tuple(eqn.params["slice_sizes"])
        != tuple(1 if k == a else n for k, n in enumerate(whole))
        or len(shape) != len(whole) + 1
        or len(offsets) != len(whole)
    ):
        return None
    b = next(k for k in range(len(shape)) if k not in offsets)  # the positions' axis
    if b not in (a, a + 1):
        return None
    return tuple(index_shape[0] if k == a else n for k, n in enumerate(whole))


def _window(reader, eqn, ins: list[Any]) -> Any:
    """A window at offsets some of which are computed: a slice along the constant ones
    (JAX clamps them into range), then a ``take_dynamic`` along each computed one."""
    x, starts = ins[0], ins[1:]
    shape = [int(n) for n in eqn.invars[0].aval.shape]
    sizes = tuple(int(n) for n in eqn.params["slice_sizes"])
    begin = [
        min(max(int(s), 0), n - m) if isinstance(s, np.ndarray) else 0
        for s, n, m in zip(starts, shape, sizes, strict=True)
    ]
    end = [
        b + m if isinstance(s, np.ndarray) else n
        for s, b, n, m in zip(starts, begin, shape, sizes, strict=True)
    ]
    value, aval = x, eqn.outvars[0].aval
    if begin != [0] * len(shape) or end != shape:
        params = (("start_indices", tuple(begin)), ("limit_indices", tuple(end)), ("strides", None))
        shape = [e - b for b, e in zip(begin, end, strict=True)]
        value = reader.result(ArrayOp("slice", (reader.operand(x),), params, tuple(shape)), aval)
    moving = [a for a, s in enumerate(starts) if not isinstance(s, np.ndarray)]
    for a in moving:
        params = {"axis": a, "mode": "window", "size": sizes[a], "length": shape[a]}
        shape[a] = sizes[a]
        value = _take(reader, value, starts[a], {**params, "fill": 0.0}, tuple(shape), aval)
    return value
