"""NumPy functions that select, repeat or lay out entries of traced arrays, as the NumPy
operations NumPy defines them by (numpy/_core/fromnumeric.py, numpy/lib/_function_base_impl.py,
numpy/_core/function_base.py): ``np.choose`` (nested ``np.where``), ``np.delete`` (a take of
the kept positions), ``np.resize`` (a take of the repeated positions), ``np.compress`` and
``np.extract`` (a boolean index: a mask computed from the inputs is a masked selection, as
``x[mask]``), ``np.diagflat``, ``np.dstack`` and ``np.atleast_3d`` (reshapes and a
concatenation), ``np.logspace`` and ``np.geomspace`` (powers of ``np.linspace``, the
geometric one's ends set to ``start`` and ``stop`` as NumPy sets them) and ``np.fix``
(``np.trunc``), the writes in place ``np.putmask``, ``np.copyto(where=)``, ``np.place`` (of
one value) and ``np.put_along_axis`` (an assignment of ``np.where`` or at positions),
``np.broadcast_arrays``, the tests of a real array ``np.iscomplexobj``, ``np.isrealobj``,
``np.iscomplex``, ``np.isreal``, ``np.isfortran`` and ``np.real_if_close`` (NumPy's answers
for C-ordered floats); the ufuncs ``np.signbit``, ``np.divmod`` and ``np.modf``. Each calls
NumPy on the traced values, so the array tracer's operations are all there is.

>>> import numpy as np
>>> FUNCTIONS[np.delete](np.arange(5.0), [1, 3]).tolist()
[0.0, 2.0, 4.0]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..errors import InputError

__all__ = ["FUNCTIONS", "IN_PLACE", "UFUNCS"]


def _choose(a: Any, choices: Sequence[Any], out: Any = None, mode: str = "raise") -> Any:
    """``choices[a]`` entry by entry: ``np.where(a == k, choices[k], ...)`` (``a`` integer
    positions, constant or computed from the inputs)."""
    if out is not None or mode != "raise":
        raise InputError("numpy.choose with out= or mode= is not supported")
    if isinstance(a, np.ndarray) and a.size and (a.min() < 0 or a.max() >= len(choices)):
        raise InputError(f"numpy.choose: positions outside 0..{len(choices) - 1}")
    result = choices[0]
    for k in range(1, len(choices)):
        result = np.where(a == k, choices[k], result)
    return np.broadcast_to(result, np.broadcast_shapes(np.shape(a), *map(np.shape, choices)))


def _constant_positions(obj: Any, what: str) -> Any:
    if hasattr(obj, "shape") and not isinstance(obj, np.ndarray):
        raise InputError(f"numpy.{what} at positions computed from the inputs is not supported")
    return obj


def _delete(arr: Any, obj: Any, axis: int | None = None) -> Any:
    """The entries of ``arr`` but those at ``obj`` (constant positions, a slice, a mask)."""
    if axis is None:
        arr, axis = np.ravel(arr), 0
    n = np.shape(arr)[axis]
    kept = np.delete(np.arange(n), _constant_positions(obj, "delete"))
    return np.take(arr, kept, axis=axis)


def _resize(a: Any, new_shape: Any) -> Any:
    """``a``'s entries repeated in order to fill ``new_shape``."""
    shape = (new_shape,) if isinstance(new_shape, int) else tuple(new_shape)
    flat = np.ravel(a)
    size = np.shape(flat)[0]
    if size == 0:
        raise InputError("numpy.resize of an empty array is not supported")
    return np.reshape(np.take(flat, np.arange(math.prod(shape)) % size), shape)


def _compress(condition: Any, a: Any, axis: int | None = None, out: Any = None) -> Any:
    """The entries (slices along ``axis``) where ``condition`` holds."""
    if out is not None:
        raise InputError("numpy.compress with out= is not supported")
    if axis is None:
        a, axis = np.ravel(a), 0
    if isinstance(condition, (np.ndarray, list, tuple)):
        return np.take(a, np.nonzero(np.asarray(condition))[0], axis=axis)
    if np.ndim(a) != 1 or np.shape(condition) != np.shape(a):
        raise InputError("numpy.compress of a mask computed from the inputs: a vector's own")
    return a[condition]


def _extract(condition: Any, arr: Any) -> Any:
    """``np.ravel(arr)[np.ravel(condition)]``."""
    if isinstance(condition, (np.ndarray, list, tuple)):
        return np.take(np.ravel(arr), np.nonzero(np.ravel(np.asarray(condition)))[0])
    return np.ravel(arr)[np.ravel(condition)]


def _diagflat(v: Any, k: int = 0) -> Any:
    return np.diag(np.ravel(v), k)


def _atleast_3d(*arys: Any) -> Any:
    """0-d as (1, 1, 1), (N,) as (1, N, 1), (M, N) as (M, N, 1)."""

    def one(a: Any) -> Any:
        shape = np.shape(a)
        if len(shape) >= 3:
            return a
        return np.reshape(a, {0: (1, 1, 1), 1: (1, *shape, 1), 2: (*shape, 1)}[len(shape)])

    return one(arys[0]) if len(arys) == 1 else [one(a) for a in arys]


def _dstack(tup: Sequence[Any]) -> Any:
    return np.concatenate([_atleast_3d(a) for a in tup], axis=2)


def _logspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, base: Any = 10.0,
              dtype: Any = None, axis: int = 0) -> Any:  # fmt: skip
    """``base ** np.linspace(start, stop)``."""
    return np.power(base, np.linspace(start, stop, num, endpoint, axis=axis))


def _geomspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None,
               axis: int = 0) -> Any:  # fmt: skip
    """``sign · 10 ** np.linspace(log10 |start|, log10 |stop|)``, its ends ``start`` and
    ``stop`` themselves (NumPy's definition; ``start`` and ``stop`` of one sign)."""
    if axis != 0 or np.ndim(start) or np.ndim(stop):
        raise InputError("numpy.geomspace of arrays of ends or along another axis is not supported")
    sign = np.sign(start)
    y = sign * _logspace(np.log10(start * sign), np.log10(stop * sign), num, endpoint)
    if num == 0:
        return y
    ends = [np.reshape(start, (1,)), y[1 : num - 1 if endpoint else num]]
    if endpoint and num > 1:
        ends.append(np.reshape(stop, (1,)))
    return np.concatenate(ends)


def _putmask(a: Any, mask: Any, values: Any) -> None:
    """``a[mask] = values`` in place, ``values`` of one entry or of ``a``'s shape."""
    if np.size(values) != 1 and np.shape(values) != np.shape(a):
        raise InputError("numpy.putmask with values of another shape than a is not supported")
    a[...] = np.where(mask, np.reshape(values, ()) if np.size(values) == 1 else values, a)


def _copyto(dst: Any, src: Any, casting: str = "same_kind", where: Any = True) -> None:
    """``dst[...] = src`` in place where ``where`` holds (broadcast)."""
    dst[...] = np.where(where, src, dst) if where is not True else src * np.ones(np.shape(dst))


def _place(arr: Any, mask: Any, vals: Any) -> None:
    """``np.place`` of one value: ``arr[mask] = vals[0]`` in place (several values are
    used in turn, which the mask's count decides: refused)."""
    if np.size(vals) != 1:
        raise InputError("numpy.place with more than one value is not supported (np.putmask)")
    _putmask(arr, mask, vals)


def _put_along_axis(arr: Any, indices: Any, values: Any, axis: int | None) -> None:
    """``arr[..., indices, ...] = values`` along ``axis`` at constant positions, the other
    axes' positions their own (``np.take_along_axis``'s index)."""
    if not isinstance(indices, np.ndarray) or axis is None:
        raise InputError("numpy.put_along_axis at constant positions along one axis only")
    shape = np.shape(arr)
    axis %= len(shape)
    index = [np.arange(n).reshape([-1 if d == k else 1 for d in range(len(shape))])
             for k, n in enumerate(shape)]  # fmt: skip
    index[axis] = indices
    arr[tuple(index)] = values


def _broadcast_arrays(*args: Any, subok: bool = False) -> tuple[Any, ...]:
    """Each argument broadcast to their common shape."""
    shape = np.broadcast_shapes(*(np.shape(a) for a in args))
    return tuple(np.broadcast_to(a, shape) for a in args)


def _fix(x: Any, out: Any = None) -> Any:
    if out is not None:
        raise InputError("numpy.fix with out= is not supported")
    return np.trunc(x)


def _signbit(x: Any) -> Any:
    """Whether the sign bit is set: negative, or ``-0.0`` (``arctan2(-0.0, -1) = -π``)."""
    return (x < 0) | ((x == 0) & (np.arctan2(x, -1.0) < 0))


FUNCTIONS: dict[Callable[..., Any], Callable[..., Any]] = {
    np.choose: _choose,
    np.delete: _delete,
    np.resize: _resize,
    np.compress: _compress,
    np.extract: _extract,
    np.diagflat: _diagflat,
    np.dstack: _dstack,
    np.atleast_3d: _atleast_3d,
    np.logspace: _logspace,
    np.geomspace: _geomspace,
    np.fix: _fix,
    np.putmask: _putmask,
    np.copyto: _copyto,
    np.place: _place,
    np.put_along_axis: _put_along_axis,
    np.broadcast_arrays: _broadcast_arrays,
    # traced arrays are real: as NumPy answers of a float array
    np.iscomplexobj: lambda x: False,
    np.isrealobj: lambda x: True,
    np.iscomplex: lambda x: np.zeros(np.shape(x), dtype=bool),
    np.isreal: lambda x: np.ones(np.shape(x), dtype=bool),
    np.real_if_close: lambda a, tol=100: a,
    np.isfortran: lambda a: False,
}

#: the functions that write into their first argument (a fresh array stays one)
IN_PLACE = frozenset({np.putmask, np.copyto, np.place, np.put_along_axis})

#: ufuncs by name
UFUNCS: dict[str, Callable[..., Any]] = {
    "signbit": _signbit,
    "divmod": lambda x1, x2: (np.floor_divide(x1, x2), np.remainder(x1, x2)),
    "modf": lambda x: (x - np.trunc(x), np.trunc(x)),
}
