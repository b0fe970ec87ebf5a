"""``scipy.interpolate.RegularGridInterpolator`` and ``interpn`` of traced arrays, methods
``"linear"`` and ``"nearest"``, as scipy computes them (``scipy/interpolate/_rgi.py``):
per axis the cell of each query (``searchsorted`` on the grid, the last cell's right edge
its own), its fraction ``t`` in the cell, and the sum over the cell's 2^D corners of the
value there times ``Π (t or 1 − t)`` (``"nearest"``: the corner nearer on each axis, ties
to the lower). Either the table's values or the queries (or both) may depend on the
inputs: a value's derivative is its weight, a query's the slope of its cell. Outside the
grid ``fill_value`` (a number: an ``np.where``; ``None``: the cells' linear extension, as
scipy); ``bounds_error=True`` reads as ``None`` (scipy raises there, and the value check
compares with the user's function at the point). Other methods of data from the inputs
are refused in one line.

>>> import numpy as np
>>> grid = (np.array([0.0, 1.0]), np.array([0.0, 2.0]))
>>> interpn = functions(np)["interpn"]
>>> interpn(grid, np.array([[0.0, 2.0], [1.0, 3.0]]), np.array([0.5, 1.0])).tolist()
[1.5]
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..errors import InputError

__all__ = ["functions", "traced_grid"]

_METHODS = ("linear", "nearest")


def _grid(points: Sequence[Any], values: Any) -> list[np.ndarray]:
    """The grid's axes as constant float arrays, checked against the values' shape."""
    grid = []
    for d, axis in enumerate(points):
        if hasattr(axis, "shape") and not isinstance(axis, np.ndarray):
            raise InputError("scipy.interpolate.RegularGridInterpolator of a grid from the inputs")
        g = np.asarray(axis, dtype=float)
        if g.ndim != 1 or g.size < 2 or np.any(np.diff(g) <= 0):
            raise InputError(f"scipy.interpolate: grid axis {d} is not strictly ascending")
        grid.append(g)
    if tuple(g.size for g in grid) != tuple(np.shape(values)[: len(grid)]):
        raise InputError(
            f"scipy.interpolate: a grid of {tuple(g.size for g in grid)} points for values of"
            f" shape {np.shape(values)}"
        )
    return grid


def _interpolated(
    grid: list[np.ndarray], values: Any, xi: Any, method: str, fill: Any, xp: Any
) -> Any:
    """The interpolant at the queries ``xi`` (..., D); ``xp`` NumPy as the traced code sees
    it (whose ``take`` of a constant at computed positions is read)."""
    if method not in _METHODS:
        raise InputError(
            f"scipy.interpolate.RegularGridInterpolator(method={method!r}) of arrays that"
            " depend on the inputs is not supported (linear or nearest)"
        )
    dims = len(grid)
    if np.ndim(xi) == 1:  # one query: scipy's result has one entry, not none
        xi = xp.reshape(xi, (1, -1))
    if np.shape(xi)[-1:] != (dims,):
        raise InputError(f"scipy.interpolate: queries of shape {np.shape(xi)} for a {dims}-d grid")
    trailing = np.shape(values)[dims:]
    strides = [math.prod(g.size for g in grid[d + 1 :]) for d in range(dims)]
    flat = np.reshape(values, (math.prod(g.size for g in grid), *trailing))
    cells, fractions, inside = [], [], None
    for d, g in enumerate(grid):
        q = xi[..., d]
        i = xp.clip(xp.searchsorted(g, q, side="right") - 1, 0, g.size - 2)
        lo, hi = xp.take(g, i), xp.take(g, i + 1)
        cells.append(i)
        fractions.append((q - lo) / (hi - lo))
        within = (q >= g[0]) & (q <= g[-1])
        inside = within if inside is None else inside & within
    result = 0.0
    for corner in itertools.product((0, 1), repeat=dims):
        position, weight = 0, 1.0
        for d, c in enumerate(corner):
            t = fractions[d]
            if method == "nearest":  # the nearer corner, a tie to the lower, as scipy
                chosen = (t > 0.5) if c else (t <= 0.5)
                weight = weight * np.where(chosen, 1.0, 0.0)
            else:
                weight = weight * (t if c else 1.0 - t)
            position = position + (cells[d] + c) * strides[d]
        taken = xp.take(flat, position, axis=0)
        result = result + np.reshape(weight, np.shape(weight) + (1,) * len(trailing)) * taken
    if fill is None:
        return result
    mask = np.reshape(inside, np.shape(inside) + (1,) * len(trailing))
    return np.where(mask, result, fill)


class _RegularGrid:
    """``RegularGridInterpolator(points, values, method, bounds_error, fill_value)``
    computed with ``xp``, NumPy as the traced code sees it (:func:`functions`)."""

    def __init__(
        self, xp: Any, points: Sequence[Any], values: Any, method: str = "linear",
        bounds_error: bool = True, fill_value: Any = np.nan, **kwargs: Any,
    ) -> None:  # fmt: skip
        if kwargs:
            raise InputError(f"scipy.interpolate.RegularGridInterpolator with {', '.join(kwargs)}")
        self.xp, self.grid = xp, _grid(points, values)
        self.values, self.method = values, method
        self.fill = None if bounds_error else fill_value

    def __call__(self, xi: Any, method: str | None = None, **kwargs: Any) -> Any:
        method = method or self.method
        if _constant(self.values) and _constant(xi):  # numbers alone: scipy's own
            import scipy.interpolate

            fill = np.nan if self.fill is None else self.fill
            built = scipy.interpolate.RegularGridInterpolator(
                self.grid, np.asarray(self.values), method, self.fill is None, fill
            )
            return built(np.asarray(xi), **kwargs)
        return _interpolated(self.grid, self.values, xi, method, self.fill, self.xp)


def _constant(x: Any) -> bool:
    """Whether ``x`` is numbers alone (no traced array in it)."""
    if isinstance(x, list | tuple):
        return all(_constant(v) for v in x)
    return isinstance(x, np.ndarray | np.generic | int | float)


def functions(xp: Any) -> dict[str, Callable[..., Any]]:
    """``scipy.interpolate``'s ``RegularGridInterpolator`` and ``interpn`` computed with
    ``xp`` (NumPy as the traced code sees it)."""

    def interpn(points: Sequence[Any], values: Any, xi: Any, method: str = "linear",
                bounds_error: bool = True, fill_value: Any = np.nan) -> Any:  # fmt: skip
        return _RegularGrid(xp, points, values, method, bounds_error, fill_value)(xi)

    return {"RegularGridInterpolator": functools.partial(_RegularGrid, xp), "interpn": interpn}


def traced_grid(value: Any, xp: Any) -> _RegularGrid | None:
    """A ``RegularGridInterpolator`` of constants (made before the trace, or of numbers
    in it) as one whose queries may be traced (computed with ``xp``); None for anything
    else."""
    import scipy.interpolate

    if not isinstance(value, scipy.interpolate.RegularGridInterpolator):
        return None
    return _RegularGrid(
        xp, value.grid, value.values, value.method, value.bounds_error, value.fill_value
    )
