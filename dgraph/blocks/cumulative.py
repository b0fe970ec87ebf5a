"""``cumprod`` and ``cumlogsumexp`` along one axis as one array operation each.

Each output ``y_i`` along the axis reads the entries ``x_j`` with ``j ≤ i`` (``j ≥ i``
reversed), so the block is dense and triangular along the axis, a delta along the others:
a :class:`~dgraph.blocks.Labelled` block whose labels are the operand's axes and one
more, the output's position along the axis, its values over all of them (zero off the
triangle). The rules (Griewank and Walther, *Evaluating Derivatives*, 2nd ed., 2008,
ch. 3: the derivative of a running sum or product is that of each of its terms):

* ``cumlogsumexp``: ``∂y_i/∂x_j = exp(x_j - y_i)``, j ≤ i;
* ``cumprod``: ``∂y_i/∂x_j = Π_{k<j} x_k · Π_{j<k≤i} x_k``, j ≤ i: a prefix product
  times the product of the segment after j, no division, so a zero entry is exact.

Each formula is written once over an array vocabulary ``xp`` (:class:`NumPyOps` here;
:mod:`dgraph.codegen.tensor.cumulative_code` prints the same calls as array statements),
so that the values and the generated code cannot differ.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import SearchTooLarge
from . import (
    CONSTANT,
    FORGETS,
    GENERAL,
    ONES,
    STRUCTURED_PRODUCTS,
    Labelled,
    Listed,
    Sparse,
    dense,
    free_product,
    full,
    multiply,
    sparse,
)
from .operator_values import OperatorValues

__all__ = [
    "CUMULATIVE",
    "EXPLICIT_LIMIT",
    "CumsumPattern",
    "NumPyOps",
    "SumValues",
    "check_explicit",
    "cumsum_pattern",
    "cumulative_block",
    "cumulative_value",
    "forward",
    "running_product",
    "triangle",
]

CUMULATIVE = frozenset({"cumprod", "cumlogsumexp"})

# the most entries cumsum's triangle is listed with (index arrays: a product no rule keeps
# compact). A trapezoidal cost of np.cumsum's path at 20,000 unknowns listed 2·10⁸ and was
# killed at 23.6 GB of memory (session 33); at 6,000 it built at 5.9 GB
EXPLICIT_LIMIT = 50_000_000


def check_explicit(shape: tuple[int, ...], axis: int, entries: int) -> None:
    """Refuse, in one line, to list a running sum's triangle of more than
    :data:`EXPLICIT_LIMIT` entries, before any is made.

    Raises
    ------
    SearchTooLarge
        Naming the sizes: the method forming the product is dropped, the others priced
        (as the elimination kernel refuses a sum of a large pattern)."""
    if entries > EXPLICIT_LIMIT:
        lanes = math.prod(shape) // shape[axis]
        raise SearchTooLarge(
            f"cumsum along axis {axis} of shape {shape}: its block as a list of entries (a"
            f" product no rule keeps compact) holds {entries:,} ({shape[axis]:,}²/2 per lane,"
            f" {lanes:,} lane(s)), over {EXPLICIT_LIMIT:,}: it would not fit in memory"
        )


class NumPyOps:
    """The array vocabulary of the formulas, in NumPy."""

    moveaxis = staticmethod(np.moveaxis)
    expand_dims = staticmethod(np.expand_dims)
    flip = staticmethod(np.flip)
    cumprod = staticmethod(lambda a: np.cumprod(a, axis=-1))
    logaddexp_accumulate = staticmethod(lambda a: np.logaddexp.accumulate(a, axis=-1))
    exp = staticmethod(np.exp)
    where = staticmethod(np.where)
    sub = staticmethod(np.subtract)
    mul = staticmethod(np.multiply)
    ones = staticmethod(np.ones)
    concatenate = staticmethod(lambda a, b: np.concatenate([a, b], axis=-1))
    head = staticmethod(lambda a: a[..., :-1])  # all but the last entry along the last axis
    arange = staticmethod(np.arange)
    less_equal = staticmethod(np.less_equal)
    less = staticmethod(np.less)


def _last(op: Any, x: Any, xp: Any) -> tuple[Any, int, bool]:
    """The operand with the op's axis moved last, that axis, and whether reversed."""
    axis, reverse = int(op.param["axis"]), bool(op.param.get("reverse"))
    return (x if axis == len(op.shape) - 1 else xp.moveaxis(x, axis, -1)), axis, reverse


def _along(op: Any, xm: Any, xp: Any) -> Any:
    """The running result along the last axis (not reversed)."""
    if op.primitive == "cumprod":
        return xp.cumprod(xm)
    return xp.logaddexp_accumulate(xm)


def forward(op: Any, args: Sequence[Any], xp: Any = NumPyOps) -> Any:
    """``op``'s value: the running product or log-sum-exp along its axis."""
    xm, axis, reverse = _last(op, args[0], xp)
    if reverse:
        xm = xp.flip(xm, -1)
    y = _along(op, xm, xp)
    if reverse:
        y = xp.flip(y, -1)
    return y if axis == len(op.shape) - 1 else xp.moveaxis(y, -1, axis)


def cumulative_block(op: Any, mine: tuple[int, ...]) -> Labelled:
    """The operand's axes as labels, the output's position along the axis one more."""
    n, d = len(mine), int(op.param["axis"])
    ins = tuple(((j,), 0) for j in range(n))
    outs = tuple(((n if j == d else j,), 0) for j in range(n))
    sizes = (*mine, mine[d])
    return Labelled(tuple(op.shape), mine, outs, ins, sizes, tuple(range(n + 1)), GENERAL)


def cumulative_value(op: Any, args: Sequence[Any], xp: Any = NumPyOps) -> Any:
    """The block's values, shape ``operand + (length,)``: ``[..., j (at the axis), ...,
    i]`` is ∂y_i/∂x_j (module docstring), 0 off the triangle."""
    xm, axis, reverse = _last(op, args[0], xp)
    length = int(op.shape[axis])
    lead = tuple(s for k, s in enumerate(op.shape) if k != axis)
    if reverse:
        xm = xp.flip(xm, -1)
    position = xp.arange(length)
    below = xp.less_equal(xp.expand_dims(position, 1), xp.expand_dims(position, 0))  # j ≤ i
    if op.primitive == "cumprod":
        before = xp.cumprod(xp.concatenate(xp.ones((*lead, 1)), xp.head(xm)))  # Π_{k<j}
        past = xp.less(xp.expand_dims(position, 1), xp.expand_dims(position, 0))  # j < k
        segment = xp.where(past, xp.expand_dims(xm, -2), 1.0)  # x_k after j, else 1
        values = xp.mul(xp.expand_dims(before, -1), xp.cumprod(segment))
        values = xp.where(below, values, 0.0)
    else:
        y = xp.logaddexp_accumulate(xm)
        diff = xp.sub(xp.expand_dims(xm, -1), xp.expand_dims(y, -2))
        values = xp.where(below, xp.exp(xp.where(below, diff, 0.0)), 0.0)
    if reverse:
        values = xp.flip(xp.flip(values, -1), -2)
    return values if axis == len(op.shape) - 1 else xp.moveaxis(values, -2, axis)


@functools.lru_cache(maxsize=4)
def triangle(shape: tuple[int, ...], axis: int, reverse: bool) -> tuple[np.ndarray, ...]:
    """The block's entries on the triangle, ``j ≤ i`` (``j ≥ i`` reversed), in row order:
    rows, columns (flat indices) and each one's flat index into :func:`cumulative_value`'s
    array; the pattern :func:`~dgraph.blocks.arrays.narrowed` narrows the labelled block
    to. Made once per shape (read-only; a block's pattern is asked several times)."""
    length, size = shape[axis], math.prod(shape)
    index = np.moveaxis(np.arange(size).reshape(shape), axis, 0).reshape(length, -1)
    on = np.tril(np.ones((length, length), dtype=bool))  # [i, j]: j ≤ i
    i, j = np.nonzero(on.T if reverse else on)
    rows, cols = index[i].ravel(), index[j].ravel()
    at = (index[j] * length + i[:, None]).ravel()
    order = np.argsort(rows * size + cols, kind="stable")
    found = rows[order], cols[order], at[order]
    for a in found:
        a.flags.writeable = False
    return found


class SumValues(OperatorValues):
    """``cumsum``'s block values, all ones on its triangle (:func:`~dgraph.blocks.arrays.
    block_value`), held as the running sum they apply: ``block · v`` is ``v``'s running
    sum along the axis, ``vᵀ · block`` the running sum the other way (the transpose of a
    triangle of ones), each O(n) where the explicit triangle holds n(n+1)/2 entries per
    lane (Griewank and Walther, *Evaluating Derivatives*, 2nd ed., 2008, ch. 3: a sum's
    derivative is that of its terms). The entries, all 1, are made only when read."""

    OWN = ("shape", "axis", "reverse", "nnz")

    def __init__(self, shape: tuple[int, ...], axis: int, reverse: bool, nnz: int) -> None:
        self.shape, self.axis, self.reverse, self.nnz = tuple(shape), axis, reverse, nnz

    def _running(self, vector: np.ndarray, reverse: bool) -> np.ndarray:
        x = np.reshape(np.asarray(vector, dtype=float), self.shape)
        if reverse:
            x = np.flip(x, self.axis)
        y = np.cumsum(x, axis=self.axis)
        return (np.flip(y, self.axis) if reverse else y).reshape(-1)

    def applied(self, vector: np.ndarray) -> np.ndarray:
        """``block · vector``, flat in and out."""
        return self._running(vector, self.reverse)

    def applied_transposed(self, vector: np.ndarray) -> np.ndarray:
        """``vectorᵀ · block``, flat in and out."""
        return self._running(vector, not self.reverse)

    @functools.cached_property
    def entries(self) -> np.ndarray:
        """One 1 per pattern entry (the explicit form)."""
        return np.ones(self.nnz)

    def absolute(self) -> SumValues:
        """Its magnitudes: the same ones."""
        return self


class CumsumPattern(Listed):
    """``cumsum``'s block held as the running sum it is: its shape, axis and direction;
    nothing per entry. Output ``i`` along the axis reads every input ``j ≤ i`` (``j ≥ i``
    reversed) of its lane, so the explicit pattern is a triangle per lane,
    ``size · (length + 1) / 2`` entries; here it is counted, not listed, and its values
    (all ones) are :class:`SumValues`. A product with a dense block is a running sum of
    that block along the axis (:func:`running_product`; the code prints ``cumsum``,
    :mod:`dgraph.codegen.tensor.blockops`), with a diagonal the same pattern. The index
    arrays of a :class:`~dgraph.blocks.Sparse` block (``rows``, ``cols``, ``indptr``) are
    made only where something asks for them (a sum, a product with any other block):
    the explicit fallback, as :class:`~dgraph.blocks.convolution.ConvPattern`'s
    (Griewank and Walther, *Evaluating Derivatives*, 2nd ed., 2008, ch. 3)."""

    def __init__(self, shape: tuple[int, ...], axis: int, reverse: bool, kind: int = ONES) -> None:
        shape = tuple(int(s) for s in shape)
        state = self.__dict__
        state.update(out_shape=shape, in_shape=shape, kind=kind)
        state.update(shape=shape, axis=int(axis), reverse=bool(reverse))

    @property
    def explicit(self) -> Sparse:
        """The triangles as index arrays (made once per shape, cached), of its kind."""
        check_explicit(self.shape, self.axis, self.nnz)
        return _explicit(self.shape, self.axis, self.reverse).same_pattern(self.kind)

    @property
    def nnz(self) -> int:  # type: ignore[override]
        return math.prod(self.shape) * (self.shape[self.axis] + 1) // 2

    @property
    def stored(self) -> int:  # type: ignore[override]
        """The values kept: none but one 1 for ones (:class:`SumValues`), else one per
        entry (a product with a diagonal)."""
        return 1 if self.kind == ONES else self.nnz

    def same_pattern(self, kind: int) -> CumsumPattern:
        """The same running sum with values of ``kind`` (a product with a diagonal)."""
        if kind == self.kind:
            return self
        return CumsumPattern(self.shape, self.axis, self.reverse, kind)

    def transposed(self) -> CumsumPattern:
        """The transpose: the running sum the other way along the same axis."""
        return CumsumPattern(self.shape, self.axis, not self.reverse, self.kind)

    def dense(self) -> np.ndarray:
        """The block as a 0/1 matrix (``prod(shape)`` square; small shapes only)."""
        n = math.prod(self.shape)
        out = np.zeros((n, n))
        out[self.rows, self.cols] = 1.0
        return out

    def _key(self) -> tuple:
        return (self.shape, self.axis, self.reverse, self.kind)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if isinstance(other, CumsumPattern):
            return self._key() == other._key()
        return super().__eq__(other)

    def __hash__(self) -> int:
        return hash(("cumsum", *self._key()))


@functools.lru_cache(maxsize=8)
def _explicit(shape: tuple[int, ...], axis: int, reverse: bool) -> Sparse:
    rows, cols, _ = triangle(shape, axis, reverse)
    return sparse(shape, shape, rows, cols, ONES)


FORGETS.append(_explicit.cache_clear)


def cumsum_pattern(shape: tuple[int, ...], axis: int, reverse: bool) -> Sparse:
    """``cumsum``'s block along ``axis`` of an array of ``shape``: a
    :class:`CumsumPattern`, or, along an axis of length 1, the identity as a pattern."""
    shape = tuple(int(s) for s in shape)
    if shape[axis] > 1:
        return CumsumPattern(shape, axis, reverse)
    n = math.prod(shape)
    return sparse(shape, shape, np.arange(n), np.arange(n), ONES)


def running_product(upper: object, lower: object) -> tuple[int, object] | None:
    """``upper · lower`` where one is a :class:`CumsumPattern`: with a dense block, dense
    (the running sum reaches every entry of a dense block's side), priced as
    :func:`~dgraph.blocks.multiply` prices a dense product (each entry of the pattern
    times a whole row or column; nothing where either factor is ones); with another
    along the same axis, :func:`_two_running`; with any other block, the product of the
    explicit triangles (a move's rows of them, a sparse product). None where neither is
    one."""
    if isinstance(lower, CumsumPattern) and isinstance(upper, Labelled) and full(upper):
        cost = math.prod(upper.out_shape) * lower.nnz
    elif isinstance(upper, CumsumPattern) and isinstance(lower, Labelled) and full(lower):
        cost = upper.nnz * math.prod(lower.in_shape)
    elif isinstance(upper, CumsumPattern) and isinstance(lower, CumsumPattern):
        if (upper.shape, upper.axis) == (lower.shape, lower.axis):
            return _two_running(upper, lower)
        return tuple(multiply(upper.explicit, lower.explicit))  # type: ignore[return-value]
    elif isinstance(upper, CumsumPattern) or isinstance(lower, CumsumPattern):
        explicit = [b.explicit if isinstance(b, CumsumPattern) else b for b in (upper, lower)]
        return tuple(multiply(*explicit))  # type: ignore[return-value]
    else:
        return None
    kind = max(upper.kind, lower.kind, CONSTANT)  # each entry a sum of several
    return (0 if free_product(upper, lower) else cost), dense(upper.out_shape, lower.in_shape, kind)


def _two_running(upper: CumsumPattern, lower: CumsumPattern) -> tuple[int, Sparse | Labelled]:
    """Two running sums along the same axis: the same direction a running sum again
    (its values the counts, or products, of the pairs that meet); opposite directions
    every pair of a lane (``i, j`` meet at ``k = 0``, or ``k = length - 1``): dense
    along the axis, a delta along the others. Priced by the pairs that meet, column
    counts of ``upper`` times row counts of ``lower`` (nothing where one is ones)."""
    shape, axis = upper.shape, upper.axis
    length = shape[axis]
    k = np.arange(length, dtype=np.int64)
    column = (k + 1) if upper.reverse else (length - k)  # entries of upper's column k
    row = (length - k) if lower.reverse else (k + 1)  # entries of lower's row k
    pairs = math.prod(shape) // length * int(column @ row)
    kind = max(upper.kind, lower.kind, CONSTANT)
    cost = 0 if free_product(upper, lower) else pairs
    if upper.reverse == lower.reverse:
        return cost, CumsumPattern(shape, axis, upper.reverse, kind)
    rank = len(shape)
    axes = tuple(((j,), 0) for j in range(rank))
    ins = tuple(((rank if j == axis else j,), 0) for j in range(rank))
    sizes = (*shape, length)
    return cost, Labelled(shape, shape, axes, ins, sizes, tuple(range(rank + 1)), kind)


STRUCTURED_PRODUCTS.append(running_product)
