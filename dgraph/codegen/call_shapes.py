"""The result shapes of the array functions that are not elementwise, from their
operands' shapes and their literal parameters: one rule table that both shape inferences
of the code IR read (:func:`dgraph.codegen.array_passes.array_shapes`, where an unknown
shape is None, and :class:`dgraph.codegen.shapes.ShapeInference`, which also types).

An operand that is an array is passed to a rule as :class:`Operand` (its shape), a literal
parameter as itself. Shapes are NumPy's (Harris et al., "Array programming with NumPy",
Nature 585, 2020: broadcasting and reductions as ``numpy`` computes them).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["CALL_SHAPES", "Operand", "call_shape", "reduced_shape", "table_name"]

Shape = tuple[int, ...]


@dataclass(frozen=True)
class Operand:
    """An array operand of a call: its shape (its entries unknown)."""

    shape: Shape


def reduced_shape(shape: Shape, axis: Any = None, keepdims: Any = False) -> Shape:
    """The shape of a reduction of ``shape`` over ``axis`` (None: every axis)."""
    axes = range(len(shape)) if axis is None else (axis,) if np.ndim(axis) == 0 else axis
    axes = {int(a) % len(shape) for a in axes} if shape else set()
    if keepdims:
        return tuple(1 if d in axes else n for d, n in enumerate(shape))
    return tuple(n for d, n in enumerate(shape) if d not in axes)


def _reduce(x: Operand, axis: Any = None, keepdims: Any = False, **_: Any) -> Shape:
    return reduced_shape(x.shape, axis, keepdims)


def _cumulative(x: Operand, axis: Any = None, **_: Any) -> Shape:
    return (math.prod(x.shape),) if axis is None else x.shape


def _expand_dims(x: Operand, axis: int) -> Shape:
    axis %= len(x.shape) + 1
    return (*x.shape[:axis], 1, *x.shape[axis:])


def _swapaxes(x: Operand, axis1: int, axis2: int) -> Shape:
    moved = list(x.shape)
    i, j = axis1 % len(moved), axis2 % len(moved)
    moved[i], moved[j] = moved[j], moved[i]
    return tuple(moved)


def _moveaxis(x: Operand, source: int, destination: int) -> Shape:
    order = list(range(len(x.shape)))
    order.insert(destination % len(order), order.pop(source % len(order)))
    return tuple(x.shape[k] for k in order)


def _take_along_axis(x: Operand, index: Operand, axis: int) -> Shape:
    axis %= len(x.shape)
    pairs = enumerate(zip(x.shape, index.shape, strict=True))
    return tuple(b if k == axis else max(a, b) for k, (a, b) in pairs)


def _matmul(a: Operand, b: Operand) -> Shape:
    """A 1-d operand is a row (first) or a column (second) whose axis is dropped, other
    leading axes broadcast."""
    if not a.shape or not b.shape:
        raise ValueError("matmul of a 0-d operand")
    if len(b.shape) == 1:
        return a.shape[:-1]
    if len(a.shape) == 1:
        return (*b.shape[:-2], b.shape[-1])
    batch = tuple(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
    return (*batch, a.shape[-2], b.shape[-1])


def _second(a: Operand, b: Operand, **_: Any) -> Shape:
    """``solve(A, b)``, ``solve_triangular(T, b)``: b's shape."""
    return b.shape


def _triangle(x: Operand, k: int = 0) -> Shape:
    """``tril``, ``triu``: the operand's shape."""
    return x.shape


def _clip(x: Operand, *bounds: Any, **named: Any) -> Shape:
    """The operand and its bounds (arrays or numbers) broadcast."""
    shapes = [b.shape if isinstance(b, Operand) else np.shape(b)
              for b in (x, *bounds, *named.values()) if b is not None]  # fmt: skip
    return tuple(np.broadcast_shapes(*shapes))


def _frexp(x: Operand) -> list[Shape]:
    return [x.shape, x.shape]


def _linalg(name: str) -> Callable[..., Any]:
    def rule(a: Operand, **_: Any) -> Any:
        """Reduced QR and SVD; batch axes first."""
        *batch, m, n = a.shape
        k = min(m, n)
        return {
            "eigh": [(*batch, n), a.shape],
            "qr": [(*batch, m, k), (*batch, k, n)],
            "svd": [(*batch, m, k), (*batch, k), (*batch, k, n)],
            "slogdet": [tuple(batch), tuple(batch)],
            "det": tuple(batch),
        }.get(name, a.shape)  # inv, cholesky: the matrix's

    return rule


# name -> (shape rule, dtype rule); the dtype rules ShapeInference reads: "same" (the
# first operand's), "summed" (a sum's), "index" (intp), "float", "frexp" (float, int32)
CALL_SHAPES: dict[str, tuple[Callable[..., Any], str]] = {
    "sum": (_reduce, "summed"),
    "prod": (_reduce, "summed"),
    "max": (_reduce, "same"),
    "min": (_reduce, "same"),
    "argmax": (_reduce, "index"),
    "argmin": (_reduce, "index"),
    "cumsum": (_cumulative, "summed"),
    "cumprod": (_cumulative, "summed"),
    "expand_dims": (_expand_dims, "same"),
    "swapaxes": (_swapaxes, "same"),
    "moveaxis": (_moveaxis, "same"),
    "take_along_axis": (_take_along_axis, "same"),
    "matmul": (_matmul, "float"),
    "solve": (_second, "float"),
    "solve_triangular": (_second, "float"),
    "frexp": (_frexp, "frexp"),
    "tril": (_triangle, "same"),
    "triu": (_triangle, "same"),
    "clip": (_clip, "same"),
    **{f"linalg.{f}": (_linalg(f), "float") for f in
       ("eigh", "qr", "svd", "slogdet", "det", "inv", "cholesky", "matrix_power")},
}  # fmt: skip


def table_name(func: str) -> str | None:
    """The key of ``func`` (``numpy.linalg.det``, ``jnp.cumprod``) in :data:`CALL_SHAPES`."""
    last = func.rpartition(".")[2]
    if "linalg." + last in CALL_SHAPES and func.endswith("linalg." + last):
        return "linalg." + last
    return last if last in CALL_SHAPES else None


def call_shape(func: str, args: list[Any], keywords: dict[str, Any]) -> Any:
    """The shape (a list of shapes for several results) of ``func(*args, **keywords)``;
    KeyError where the table has no rule, TypeError/ValueError where the arguments do not
    fit it."""
    name = table_name(func)
    if name is None:
        raise KeyError(func)
    return CALL_SHAPES[name][0](*args, **keywords)
