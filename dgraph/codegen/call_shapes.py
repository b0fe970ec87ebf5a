"""The result shapes of the array functions that are not elementwise, from their
operands' shapes and their literal parameters: one rule table that both shape inferences
of the code IR read (:func:`dgraph.codegen.array_passes.array_shapes`, where an unknown
shape is None, and :class:`dgraph.codegen.shapes.ShapeInference`, which also types).

An operand that is an array is passed to a rule as :class:`Operand` (its shape; None where
the passes do not know it: a rule that needs it fails, one that reads only its literals,
``reshape(x, (3, 4))``, does not), a list of them (``concatenate``) as a list, a literal
parameter as itself. A rule raises ValueError or TypeError, one line, where NumPy would
refuse the call. Shapes are NumPy's (Harris et al., "Array programming with NumPy",
Nature 585, 2020: broadcasting and reductions as ``numpy`` computes them).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

__all__ = [
    "CALL_SHAPES",
    "Operand",
    "call_shape",
    "einsum_sizes",
    "reduced_shape",
    "table_name",
]

Shape = tuple[int, ...]


class Operand(NamedTuple):
    """An array operand of a call: its shape (its entries unknown; None: not known)."""

    shape: Shape | None


def _dims(value: Any) -> Shape:
    """The shape of an operand or of a literal array."""
    if isinstance(value, Operand):
        if value.shape is None:
            raise TypeError("an operand of unknown shape")
        return value.shape
    return tuple(np.shape(value))


def _unknown(value: Any) -> bool:
    return isinstance(value, Operand) and value.shape is None


def _as_shape(value: Any) -> Shape:
    """A literal shape (an int or a sequence of ints)."""
    if isinstance(value, Operand):
        raise TypeError("a shape that is computed")
    if isinstance(value, (tuple, list)):
        return tuple(int(n) for n in value)
    return tuple(int(n) for n in np.atleast_1d(value))


def reduced_shape(shape: Shape, axis: Any = None, keepdims: Any = False) -> Shape:
    """The shape of a reduction of ``shape`` over ``axis`` (None: every axis)."""
    axes = range(len(shape)) if axis is None else (axis,) if np.ndim(axis) == 0 else axis
    axes = {int(a) % len(shape) for a in axes} if shape else set()
    if keepdims:
        return tuple(1 if d in axes else n for d, n in enumerate(shape))
    return tuple(n for d, n in enumerate(shape) if d not in axes)


def _reduce(x: Operand, axis: Any = None, keepdims: Any = False, **_: Any) -> Shape:
    return reduced_shape(_dims(x), axis, keepdims)


def _cumulative(x: Operand, axis: Any = None, **_: Any) -> Shape:
    return (math.prod(_dims(x)),) if axis is None else _dims(x)


def _accumulate(x: Operand, axis: int = 0, **_: Any) -> Shape:
    """A ufunc's ``accumulate`` (``logaddexp.accumulate``: cumlogsumexp): the operand's."""
    return _dims(x)


def _expand_dims(x: Operand, axis: int) -> Shape:
    axis %= len(_dims(x)) + 1
    return (*_dims(x)[:axis], 1, *_dims(x)[axis:])


def _swapaxes(x: Operand, axis1: int, axis2: int) -> Shape:
    moved = list(_dims(x))
    i, j = axis1 % len(moved), axis2 % len(moved)
    moved[i], moved[j] = moved[j], moved[i]
    return tuple(moved)


def _moveaxis(x: Operand, source: int, destination: int) -> Shape:
    order = list(range(len(_dims(x))))
    order.insert(destination % len(order), order.pop(source % len(order)))
    return tuple(_dims(x)[k] for k in order)


def _take_along_axis(x: Operand, index: Operand, axis: int) -> Shape:
    axis %= len(_dims(x))
    pairs = enumerate(zip(_dims(x), _dims(index), strict=True))
    return tuple(b if k == axis else max(a, b) for k, (a, b) in pairs)


def _searchsorted(a: Operand, v: Operand, side: Any = "left", **_: Any) -> Shape:
    """``searchsorted(a, v)``: the queries' shape (``a`` a 1-D table)."""
    if len(_dims(a)) != 1:
        raise ValueError("searchsorted: the table must be 1-D")
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side {side!r}")
    return _dims(v)


def _argsort(x: Operand, axis: Any = -1, **_: Any) -> Shape:
    """``argsort``: the operand's shape (``axis=None``, flattened: its size)."""
    return (math.prod(_dims(x)),) if axis is None else _dims(x)


def _lexsort(keys: Any, axis: Any = -1) -> Shape:
    """``lexsort``: the keys' shape (broadcast)."""
    return tuple(np.broadcast_shapes(*(_dims(k) for k in keys)))


def _reshape(x: Any, shape: Any = None, order: str = "C", **_: Any) -> Shape:
    """``shape`` with its one ``-1`` resolved; the size kept."""
    target = _as_shape(shape)
    if _unknown(x) and -1 not in target:
        return target
    size = math.prod(_dims(x))
    known = math.prod(n for n in target if n != -1)
    if target.count(-1) == 1 and known:
        target = tuple(size // known if n == -1 else n for n in target)
    if -1 in target or math.prod(target) != size:
        raise ValueError(f"cannot reshape {size} entries to {target}")
    return target


def _ravel(x: Any, order: str = "C") -> Shape:
    return (math.prod(_dims(x)),)


def _transpose(x: Any, axes: Any = None) -> Shape:
    shape = _dims(x)
    order = range(len(shape))[::-1] if axes is None else [int(a) for a in axes]
    if sorted(a % max(len(shape), 1) for a in order) != list(range(len(shape))):
        raise ValueError(f"axes {tuple(order)} do not permute the shape {shape}")
    return tuple(shape[a] for a in order)


def _broadcast_to(x: Any, shape: Any, **_: Any) -> Shape:
    target = _as_shape(shape)
    if _unknown(x):
        return target
    shape = _dims(x)
    pairs = zip(shape[::-1], target[::-1], strict=False)
    if len(shape) > len(target) or any(n not in (1, m) for n, m in pairs):
        raise ValueError(f"cannot broadcast {shape} to {target}")
    return target


def _flip(x: Any, axis: Any = None) -> Shape:
    return _dims(x)


def _pad(x: Any, pad_width: Any, mode: Any = "constant", **_: Any) -> Shape:
    """Widths as NumPy reads them: one number, one pair, or a pair per axis."""
    shape = _dims(x)
    if isinstance(pad_width, Operand):
        raise TypeError("pad widths that are computed")
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (len(shape), 2))
    return tuple(int(n + lo + hi) for n, (lo, hi) in zip(shape, widths, strict=True))


def _take(x: Any, indices: Any, axis: Any = None, **_: Any) -> Shape:
    shape, picked = _dims(x), _dims(indices)
    if axis is None:  # of the flattened array
        return picked
    axis = _axis(axis, len(shape))
    return (*shape[:axis], *picked, *shape[axis + 1 :])


def _concatenate(arrays: Any, axis: Any = 0, **_: Any) -> Shape:
    """The pieces joined along ``axis`` (None: flattened); the other axes equal."""
    shapes = [_dims(a) for a in arrays]
    if axis is None:
        return (sum(math.prod(s) for s in shapes),)
    first = shapes[0]
    axis = _axis(axis, len(first))
    if any(len(s) != len(first) or s[:axis] + s[axis + 1 :] != first[:axis] + first[axis + 1 :]
           for s in shapes):  # fmt: skip
        raise ValueError(f"shapes {shapes} differ off axis {axis}")
    return (*first[:axis], sum(s[axis] for s in shapes), *first[axis + 1 :])


def _stack(arrays: Any, axis: Any = 0, **_: Any) -> Shape:
    shapes = [_dims(a) for a in arrays]
    first = shapes[0]
    if any(s != first for s in shapes):
        raise ValueError(f"shapes {shapes} differ")
    axis = _axis(axis, len(first) + 1)
    return (*first[:axis], len(shapes), *first[axis:])


def einsum_sizes(spec: str, shapes: list[Shape]) -> tuple[str, dict[str, int]]:
    """The result subscripts of ``einsum(spec, ...)`` on operands of ``shapes`` (implicit:
    the letters seen once, in order) and each letter's size (an axis of length 1 is
    broadcast, as NumPy's einsum does)."""
    if not isinstance(spec, str) or "." in spec:
        raise ValueError("subscripts without a letter for every axis")
    sources, arrow, result = spec.replace(" ", "").partition("->")
    terms = sources.split(",")
    if len(terms) != len(shapes):
        raise ValueError(f"{spec} of {len(shapes)} operands")
    sizes: dict[str, int] = {}
    for term, shape in zip(terms, shapes, strict=True):
        if len(term) != len(shape):
            raise ValueError(f"{spec} of an operand of shape {shape}")
        for letter, n in zip(term, shape, strict=True):
            if sizes.get(letter, 1) not in (1, n) and n != 1:
                raise ValueError(f"{spec}: axis {letter} of sizes {sizes[letter]} and {n}")
            sizes[letter] = max(sizes.get(letter, 1), n)
    if not arrow:
        every = sources.replace(",", "")
        result = "".join(sorted(c for c in set(every) if every.count(c) == 1))
    return result, sizes


def _einsum(spec: Any, *operands: Any, **_: Any) -> Shape:
    result, sizes = einsum_sizes(spec, [_dims(o) for o in operands])
    return tuple(sizes[c] for c in result)


def _axis(axis: Any, ndim: int) -> int:
    if not -ndim <= int(axis) < ndim:
        raise ValueError(f"axis {axis} of {ndim} axes")
    return int(axis) % ndim


def _matmul(a: Operand, b: Operand) -> Shape:
    """A 1-d operand is a row (first) or a column (second) whose axis is dropped, other
    leading axes broadcast."""
    if not _dims(a) or not _dims(b):
        raise ValueError("matmul of a 0-d operand")
    if len(_dims(b)) == 1:
        return _dims(a)[:-1]
    if len(_dims(a)) == 1:
        return (*_dims(b)[:-2], _dims(b)[-1])
    batch = tuple(np.broadcast_shapes(_dims(a)[:-2], _dims(b)[:-2]))
    return (*batch, _dims(a)[-2], _dims(b)[-1])


def _second(a: Operand, b: Operand, **_: Any) -> Shape:
    """``solve(A, b)``, ``solve_triangular(T, b)``: b's shape."""
    return _dims(b)


def _triangle(x: Operand, k: int = 0) -> Shape:
    """``tril``, ``triu``: the operand's shape."""
    return _dims(x)


def _clip(x: Operand, *bounds: Any, **named: Any) -> Shape:
    """The operand and its bounds (arrays or numbers) broadcast."""
    shapes = [_dims(b) if isinstance(b, Operand) else np.shape(b)
              for b in (x, *bounds, *named.values()) if b is not None]  # fmt: skip
    return tuple(np.broadcast_shapes(*shapes))


def _frexp(x: Operand) -> list[Shape]:
    return [_dims(x), _dims(x)]


def _linalg(name: str) -> Callable[..., Any]:
    def rule(a: Operand, **_: Any) -> Any:
        """Reduced QR and SVD; batch axes first."""
        *batch, m, n = _dims(a)
        k = min(m, n)
        return {
            "eigh": [(*batch, n), _dims(a)],
            "eig": [(*batch, n), _dims(a)],
            "qr": [(*batch, m, k), (*batch, k, n)],
            "svd": [(*batch, m, k), (*batch, k), (*batch, k, n)],
            "slogdet": [tuple(batch), tuple(batch)],
            "det": tuple(batch),
        }.get(name, _dims(a))  # inv, cholesky: the matrix's

    return rule


# name -> (shape rule, dtype rule); the dtype rules ShapeInference reads: "same" (the
# first operand's), "summed" (a sum's), "index" (intp), "float", "frexp" (float, int32),
# "joined" (the pieces' promoted: concatenate, stack), "operands" (all but the first's)
CALL_SHAPES: dict[str, tuple[Callable[..., Any], str]] = {
    "reshape": (_reshape, "same"),
    "ravel": (_ravel, "same"),
    "transpose": (_transpose, "same"),
    "broadcast_to": (_broadcast_to, "same"),
    "flip": (_flip, "same"),
    "pad": (_pad, "same"),
    "take": (_take, "same"),
    "concatenate": (_concatenate, "joined"),
    "stack": (_stack, "joined"),
    "einsum": (_einsum, "operands"),
    "sum": (_reduce, "summed"),
    "prod": (_reduce, "summed"),
    "max": (_reduce, "same"),
    "min": (_reduce, "same"),
    "argmax": (_reduce, "index"),
    "argmin": (_reduce, "index"),
    "cumsum": (_cumulative, "summed"),
    "cumprod": (_cumulative, "summed"),
    "accumulate": (_accumulate, "float"),
    "expand_dims": (_expand_dims, "same"),
    "swapaxes": (_swapaxes, "same"),
    "moveaxis": (_moveaxis, "same"),
    "take_along_axis": (_take_along_axis, "same"),
    "argsort": (_argsort, "index"),
    "searchsorted": (_searchsorted, "index"),
    "lexsort": (_lexsort, "index"),
    "matmul": (_matmul, "float"),
    "solve": (_second, "float"),
    "solve_triangular": (_second, "float"),
    "frexp": (_frexp, "frexp"),
    "tril": (_triangle, "same"),
    "triu": (_triangle, "same"),
    "clip": (_clip, "same"),
    **{f"linalg.{f}": (_linalg(f), "float") for f in
       ("eigh", "eig", "qr", "svd", "slogdet", "det", "inv", "cholesky", "matrix_power")},
}  # fmt: skip


@functools.cache  # a few names, looked up for every call of every statement
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
