"""NumPy 2's array-API names of traced arrays, as the NumPy operations they are defined by
(numpy/_core/numeric.py, numpy/linalg/_linalg.py): the generalized ufuncs ``np.vecdot``
(a sum of products along an axis; ``np.linalg.vecdot`` too), ``np.matvec`` and
``np.vecmat`` (NumPy 2.2's),
``np.linalg.matmul``, ``np.linalg.outer``, ``np.linalg.tensordot``, ``np.linalg.trace``
and ``np.linalg.diagonal`` (of the last two axes), ``np.linalg.cross``,
``np.matrix_transpose``, ``np.cumulative_sum`` / ``np.cumulative_prod``
(``include_initial``), ``np.astype``, ``np.linalg.svdvals``, ``np.linalg.multi_dot``
and ``np.linalg.tensorsolve``. Each calls NumPy on the traced values, so the array
tracer's operations and their derivative rules are all there is (the element level
reads the same names through NumPy's own object-array code).

>>> import numpy as np
>>> FUNCTIONS[np.linalg.vecdot](np.array([1.0, 2.0]), np.array([3.0, 4.0]))
np.float64(11.0)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..errors import InputError

__all__ = ["FUNCTIONS", "GUFUNCS"]


def _vecdot(x1: Any, x2: Any, /, *, axis: int = -1, **kwargs: Any) -> Any:
    """``Σ_k x1[..., k] x2[..., k]`` along ``axis`` (real arrays: ``conj`` is itself)."""
    _no_out("vecdot", kwargs)
    return np.sum(np.multiply(x1, x2), axis=axis)


def _matvec(x1: Any, x2: Any, /, **kwargs: Any) -> Any:
    """``x1[..., i, j] x2[..., j]``: a stack of matrices times a stack of vectors."""
    _no_out("matvec", kwargs)
    return np.sum(np.multiply(x1, np.expand_dims(x2, -2)), axis=-1)


def _vecmat(x1: Any, x2: Any, /, **kwargs: Any) -> Any:
    """``x1[..., j] x2[..., j, i]``: a stack of vectors times a stack of matrices."""
    _no_out("vecmat", kwargs)
    return np.sum(np.multiply(np.expand_dims(x1, -1), x2), axis=-2)


def _no_out(name: str, kwargs: dict[str, Any]) -> None:
    """Refuses the ufunc keywords (``out``, ``axes``, ``where``...) these do not read."""
    if kwargs:
        raise InputError(f"numpy.{name} with {', '.join(sorted(kwargs))} is not supported")


def _linalg_trace(x: Any, /, *, offset: int = 0, dtype: Any = None) -> Any:
    return np.trace(x, offset, axis1=-2, axis2=-1, dtype=dtype)


def _linalg_diagonal(x: Any, /, *, offset: int = 0) -> Any:
    return np.diagonal(x, offset, axis1=-2, axis2=-1)


def _cumulative(name: str, cumulate: Callable[..., Any], initial: float) -> Callable[..., Any]:
    """``np.cumulative_sum`` / ``np.cumulative_prod``: ``cumulate`` along ``axis`` (needed
    beyond one dimension), ``include_initial`` the identity ``initial`` before the first."""

    def cumulative(
        x: Any, /, *, axis: int | None = None, dtype: Any = None, out: Any = None,
        include_initial: bool = False,
    ) -> Any:  # fmt: skip
        if out is not None:
            raise InputError(f"numpy.{name} with out= is not supported")
        if axis is None:
            if np.ndim(x) != 1:
                raise InputError(f"numpy.{name} of {np.ndim(x)} axes needs axis=")
            axis = 0
        result = cumulate(x, axis=axis, dtype=dtype)
        if not include_initial:
            return result
        shape = list(np.shape(result))
        shape[axis] = 1
        return np.concatenate([np.full(shape, initial), result], axis=axis)

    return cumulative


def _matrix_transpose(x: Any, /) -> Any:
    if np.ndim(x) < 2:
        raise InputError("numpy.matrix_transpose of an array of fewer than 2 axes")
    return np.swapaxes(x, -1, -2)


def _astype(x: Any, dtype: Any, /, *, copy: bool = True, device: Any = None) -> Any:
    return x.astype(dtype)


def _linalg_tensordot(x1: Any, x2: Any, /, *, axes: Any = 2) -> Any:
    return np.tensordot(x1, x2, axes)


def _linalg_cross(x1: Any, x2: Any, /, *, axis: int = -1) -> Any:
    return np.cross(x1, x2) if axis == -1 else np.cross(x1, x2, axis=axis)


def _svdvals(x: Any, /) -> Any:
    return np.linalg.svd(x, compute_uv=False)


def _multi_dot(arrays: Sequence[Any], *, out: Any = None) -> Any:
    """The product left to right (NumPy chooses an order of equal value; the order of
    the graph's products is dgraph's to choose)."""
    if out is not None:
        raise InputError("numpy.linalg.multi_dot with out= is not supported")
    product = arrays[0]
    for a in arrays[1:]:
        product = np.matmul(product, a)
    return product


def _tensorsolve(a: Any, b: Any, axes: Sequence[int] | None = None) -> Any:
    """``x`` with ``tensordot(a, x, x.ndim) = b``: one square solve of ``a`` reshaped to
    ``(size(b), size(x))``, as NumPy computes it."""
    if axes is not None:  # those axes moved to the end, in order
        axes = [k % np.ndim(a) for k in axes]
        a = np.transpose(a, [k for k in range(np.ndim(a)) if k not in axes] + axes)
    shape = np.shape(a)[np.ndim(b) :]
    rows = math.prod(np.shape(b))
    if math.prod(shape) != rows:
        raise InputError("numpy.linalg.tensorsolve: a's trailing axes are not square with b")
    x = np.linalg.solve(np.reshape(a, (rows, rows)), np.reshape(b, (rows,)))
    return np.reshape(x, shape)


#: NumPy's generalized ufuncs (``np.vecdot``, ``np.matvec``, ``np.vecmat``), by name
GUFUNCS: dict[str, Callable[..., Any]] = {"vecdot": _vecdot, "matvec": _matvec, "vecmat": _vecmat}

FUNCTIONS: dict[Callable[..., Any], Callable[..., Any]] = {
    f: h
    for f, h in (
        (getattr(np.linalg, "vecdot", None), _vecdot),
        (getattr(np.linalg, "matmul", None), lambda x1, x2, /: np.matmul(x1, x2)),
        (getattr(np.linalg, "outer", None), lambda x1, x2, /: np.outer(x1, x2)),
        (getattr(np.linalg, "tensordot", None), _linalg_tensordot),
        (getattr(np.linalg, "trace", None), _linalg_trace),
        (getattr(np.linalg, "diagonal", None), _linalg_diagonal),
        (getattr(np.linalg, "cross", None), _linalg_cross),
        (getattr(np, "matrix_transpose", None), _matrix_transpose),
        (getattr(np.linalg, "matrix_transpose", None), _matrix_transpose),
        (getattr(np, "cumulative_sum", None), _cumulative("cumulative_sum", np.cumsum, 0.0)),
        (getattr(np, "cumulative_prod", None), _cumulative("cumulative_prod", np.cumprod, 1.0)),
        (getattr(np, "astype", None), _astype),
        (getattr(np.linalg, "svdvals", None), _svdvals),
        (np.linalg.multi_dot, _multi_dot),
        (np.linalg.tensorsolve, _tensorsolve),
    )
    if f is not None  # NumPy 2's names
}  # fmt: skip
