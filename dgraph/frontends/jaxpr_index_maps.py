"""The flat-position maps of a gather and a scatter at constant indices, by NumPy.

:mod:`.jaxpr_scatter` reads a gather or scatter as a map between flat positions. Where
every window lies inside the operand and no batching dimensions are used, that map is
fixed by the dimension numbers alone (XLA's operation semantics, "Gather" and
"Scatter"), and the modes (``clip``, ``fill``/``drop``, ``promise_in_bounds``) all
agree: it is computed here with NumPy, without an XLA compilation (each of which costs
some 0.03 to 0.1 CPU s, a few per program; the minimal surface's gradient had six). Any
other case returns None and JAX computes the map as before: a window out of bounds
(clamped, filled or dropped as the mode says), batching dimensions, another mode.
:func:`gather_map` and :func:`scatter_map` also take windows out of bounds: clamped into
the operand (``clip``; XLA clamps a gather's start indices so), filled or dropped whole
(``fill``/``drop``), or None (``promise_in_bounds``: XLA's to say).

>>> import jax
>>> numbers = jax.lax.ScatterDimensionNumbers((0,), (0,), (0,))  # x.at[i, :].set(u)
>>> scatter_targets((3, 2), (2,), np.array([2]), numbers, jax.lax.GatherScatterMode.CLIP)
array([4, 5])
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["gather_map", "gather_sources", "scatter_map", "scatter_targets"]


def _modes() -> tuple[Any, ...]:
    import jax

    mode = jax.lax.GatherScatterMode
    return (mode.CLIP, mode.FILL_OR_DROP, mode.PROMISE_IN_BOUNDS)


def _window_map(
    whole: tuple[int, ...],
    shape: tuple[int, ...],
    idx: np.ndarray,
    window_dims: tuple[int, ...],
    dropped: tuple[int, ...],
    index_map: tuple[int, ...],
    sizes: tuple[int, ...],
) -> tuple[np.ndarray, np.ndarray] | None:
    """Per entry of an array of ``shape`` (C order), the flat position of ``whole`` it
    meets: its window's start, read from ``idx`` (last axis: the index vector, its
    entries the starts along ``index_map``) at the entry's other axes and clamped into
    ``whole`` as XLA clamps a gather's, plus its place in the window (``window_dims``:
    the axes of ``shape`` along the axes of ``whole`` not in ``dropped``, in order);
    with it, per entry, whether its window's start was inside ``whole`` unclamped.
    ``sizes``: the window's extent along each axis of ``whole``. None where the shapes
    do not fit together."""
    rank = len(whole)
    batch = [d for d in range(len(shape)) if d not in window_dims]
    kept = [d for d in range(rank) if d not in dropped]
    if (
        idx.dtype.kind not in "iu"
        or idx.ndim < 1
        or idx.shape[-1] != len(index_map)
        or idx.shape[:-1] != tuple(shape[d] for d in batch)
        or len(kept) != len(window_dims)
        or any(shape[w] != sizes[d] for w, d in zip(window_dims, kept, strict=True))
        or any(m > n for m, n in zip(sizes, whole, strict=True))
    ):
        return None
    starts = np.zeros((*idx.shape[:-1], rank), dtype=np.int64)
    for k, d in enumerate(index_map):
        starts[..., d] = idx[..., k]
    top = np.array(whole, dtype=np.int64) - np.array(sizes, dtype=np.int64)
    inside = ((starts >= 0) & (starts <= top)).all(axis=-1)
    starts = np.clip(starts, 0, top)
    strides = np.array([math.prod(whole[d + 1 :]) for d in range(rank)], dtype=np.int64)
    first = (starts * strides).sum(axis=-1) if rank else np.zeros(idx.shape[:-1], np.int64)
    found = np.zeros(shape, dtype=np.int64)
    placed = [1] * len(shape)
    for d, n in zip(batch, first.shape, strict=True):
        placed[d] = n
    found += first.reshape(placed)
    for w, d in zip(window_dims, kept, strict=True):
        step = [1] * len(shape)
        step[w] = shape[w]
        found += (np.arange(shape[w], dtype=np.int64) * strides[d]).reshape(step)
    inside = np.broadcast_to(inside.reshape(placed), shape)
    return found.reshape(-1), inside.reshape(-1)


def _positions(*args: Any) -> np.ndarray | None:
    """:func:`_window_map`'s positions where every window lies inside the array; None
    where one leaves it (clamped, filled or dropped as the mode says: JAX's)."""
    found = _window_map(*args)
    return None if found is None or not found[1].all() else found[0]


def _scatter_args(
    whole: tuple[int, ...], part: tuple[int, ...], idx: np.ndarray, numbers: Any, mode: Any
) -> tuple | None:
    """:func:`_window_map`'s arguments for a scatter; None for batching dimensions or
    another mode."""
    if (
        mode not in _modes()
        or tuple(getattr(numbers, "operand_batching_dims", ()))
        or tuple(getattr(numbers, "scatter_indices_batching_dims", ()))
    ):
        return None
    window_dims = tuple(numbers.update_window_dims)
    inserted = tuple(numbers.inserted_window_dims)
    kept = [d for d in range(len(whole)) if d not in inserted]
    if len(kept) != len(window_dims):
        return None
    sizes = [1] * len(whole)
    for w, d in zip(window_dims, kept, strict=True):
        sizes[d] = part[w]
    index_map = tuple(numbers.scatter_dims_to_operand_dims)
    return whole, part, idx, window_dims, inserted, index_map, tuple(sizes)


def _gather_args(
    whole: tuple[int, ...],
    shape: tuple[int, ...],
    idx: np.ndarray,
    numbers: Any,
    slice_sizes: tuple[int, ...],
    mode: Any,
) -> tuple | None:
    """:func:`_window_map`'s arguments for a gather; None for batching dimensions,
    another mode or a collapsed axis wider than one."""
    if (
        mode not in _modes()
        or tuple(getattr(numbers, "operand_batching_dims", ()))
        or tuple(getattr(numbers, "start_indices_batching_dims", ()))
        or len(slice_sizes) != len(whole)
    ):
        return None
    collapsed = tuple(numbers.collapsed_slice_dims)
    if any(slice_sizes[d] != 1 for d in collapsed):
        return None
    sizes = tuple(int(s) for s in slice_sizes)
    return (
        whole,
        shape,
        idx,
        tuple(numbers.offset_dims),
        collapsed,
        tuple(numbers.start_index_map),
        sizes,
    )


def scatter_targets(
    whole: tuple[int, ...], part: tuple[int, ...], idx: np.ndarray, numbers: Any, mode: Any
) -> np.ndarray | None:
    """Per update entry (C order over ``part``), the flat operand position (``whole``,
    C order) a scatter with these dimension numbers writes it to; None where JAX must
    say (module docstring)."""
    args = _scatter_args(whole, part, idx, numbers, mode)
    return None if args is None else _positions(*args)


def gather_sources(*gather: Any) -> np.ndarray | None:
    """Per output entry (C order over ``shape``), the flat operand position (``whole``,
    C order) a gather with these dimension numbers reads; None where JAX must say
    (module docstring). ``gather``: ``whole, shape, idx, numbers, slice_sizes, mode``
    (:func:`_gather_args`)."""
    args = _gather_args(*gather)
    return None if args is None else _positions(*args)


def _by_mode(
    found: tuple[np.ndarray, np.ndarray] | None, mode: Any
) -> tuple[np.ndarray, np.ndarray] | None:
    """``found`` (:func:`_window_map`) as ``mode`` says: ``clip``: every window clamped
    into the array (all kept); ``fill``/``drop``: a window leaving it filled or dropped
    whole (not kept); ``promise_in_bounds``: None where one leaves it (XLA's to say)."""
    if found is None:
        return None
    import jax

    positions, inside = found
    if mode == jax.lax.GatherScatterMode.CLIP:
        return positions, np.ones_like(inside)
    if mode == jax.lax.GatherScatterMode.PROMISE_IN_BOUNDS and not inside.all():
        return None
    return positions, inside


def gather_map(*gather: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """Per output entry (C order over ``shape``), the flat operand position a gather
    reads, its window clamped into the operand as ``mode`` says, and whether the entry
    is read (False: filled, ``fill`` mode, its window leaving the operand); None where
    JAX must say (batching dimensions, a window out of bounds under
    ``promise_in_bounds``). ``gather``: as :func:`gather_sources` takes it."""
    args = _gather_args(*gather)
    return None if args is None else _by_mode(_window_map(*args), gather[-1])


def scatter_map(
    whole: tuple[int, ...], part: tuple[int, ...], idx: np.ndarray, numbers: Any, mode: Any
) -> tuple[np.ndarray, np.ndarray] | None:
    """Per update entry (C order over ``part``), the flat operand position a scatter
    writes it to, its window clamped as ``mode`` says, and whether it is written (False:
    dropped, ``drop`` mode, its window leaving the operand); None where JAX must say."""
    args = _scatter_args(whole, part, idx, numbers, mode)
    return None if args is None else _by_mode(_window_map(*args), mode)
