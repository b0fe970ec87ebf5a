"""A permutation known only at run time: the block of ``sort``'s values.

∂ sort(x along d)/∂x is a permutation matrix P(x), chosen by the stable ``argsort`` at
the point (JAX's rule: ties keep their order, each output takes exactly one input). Its
pattern is not known when the graph is built, only that each row has one entry, in its
own fibre along d: a :class:`Permutation` block holds that, with one value and one
source position per row (``nnz`` = the array's size, not a fibre's square).

Its values are one array of shape ``(2, *shape)``: ``[0]`` the row values (1 for a sort;
a diagonal multiplied in keeps the form) and ``[1]`` each output's source position along
d (an integer held as a float). Products keep the form where it is exact:

* with a block :func:`~dgraph.blocks.on_the_diagonal` (an elementwise operation, a
  scaling), on either side: again a permutation, one entry per row (D·P scales the rows,
  P·D gathers D's values by the source positions);
* ``L · P`` where L's pattern does not change when its input axis d is permuted within
  each fibre (the axis read by one label of its own, whole: a reduction, a broadcast, a
  dense block along d): L's pattern, its values L·diag(v) gathered along d by the inverse
  permutation; ``P · L`` likewise on L's output side (rows gathered by the sources);
* a row (``out_shape`` (), a gradient or a cotangent) or a column (a tangent) that covers
  only part of the axis is made dense first (n entries), then as above;
* any other product or sum (with a :class:`~dgraph.blocks.Sparse` block, another
  permutation, a block diagonal along d) is that of its **structural block**
  (:func:`structural`): the union of every permutation's pattern, each row dense along
  its fibre (n² entries for a 1-D sort of n), its values a one-hot of the sources. That
  union is also the pattern the element level, the drawings and a sparse Jacobian's
  assembly see: a generated ``sparse=True`` Jacobian that is such a block returns the
  union pattern with the entries the permutation does not take stored as zeros.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import DGraphError
from . import (
    GENERAL,
    ONES,
    BlockValues,
    Labelled,
    Product,
    RunTime,
    dense,
    diagonal,
    multiply,
    multiply_values,
    on_the_diagonal,
)
from . import to_matrix as to_matrix_of

__all__ = [
    "Permutation",
    "apply",
    "apply_transposed",
    "as_structural",
    "check_union",
    "diagonal_values",
    "inverse_order",
    "lay_out",
    "multiply_permutation",
    "multiply_permutation_values",
    "plan",
    "structural",
    "structural_values",
    "to_matrix",
]


@dataclass(frozen=True)
class Permutation(RunTime):
    """∂ sort(along ``axis``)/∂(the sorted operand) over an array of ``shape``: one entry
    per row, its column chosen at run time within the row's fibre along ``axis``."""

    shape: tuple[int, ...]
    axis: int
    kind: int = GENERAL

    @property
    def out_shape(self) -> tuple[int, ...]:
        return self.shape

    @property
    def in_shape(self) -> tuple[int, ...]:
        return self.shape

    @property
    def nnz(self) -> int:
        """One entry per row."""
        return math.prod(self.shape)

    stored = nnz

    @property
    def type_name(self) -> str:
        return "run-time permutation"

    def structural(self) -> Labelled:
        return structural(self)

    def structural_values(self, values: np.ndarray) -> np.ndarray:
        return structural_values(self, values)

    def matrix(self, values: np.ndarray):
        return to_matrix(self, values)

    @staticmethod
    def product(upper, lower) -> Product:
        return multiply_permutation(upper, lower)

    @staticmethod
    def product_values(upper, lower, vu, vl) -> BlockValues:
        return multiply_permutation_values(upper, lower, vu, vl)


def structural(p: Permutation) -> Labelled:
    """The union of every permutation's pattern, as a labelled block: the input's axes as
    labels and one more, the output's position along the axis (dense along each fibre);
    its values over all of them (the last: the output position)."""
    n, d = len(p.shape), p.axis
    ins = tuple(((j,), 0) for j in range(n))
    outs = tuple(((n if j == d else j,), 0) for j in range(n))
    sizes = (*p.shape, p.shape[d])
    return Labelled(p.shape, p.shape, outs, ins, sizes, tuple(range(n + 1)), GENERAL)


UNION_LIMIT = 50_000_000  # entries of the union a permutation's values are spread over


def check_union(p: Permutation) -> None:
    """Refuse to spread a permutation's values over its union of more than
    :data:`UNION_LIMIT` entries (a sort's own Jacobian, or a product no rule keeps
    compact, at a large size), in one line.

    Raises
    ------
    DGraphError
        Naming the sizes and the matrix-free modes, which stay O(n).
    """
    union = structural(p).nnz
    if union > UNION_LIMIT:
        raise DGraphError(
            f"sort along axis {p.axis} of shape {p.shape}: this block is a permutation known"
            f" only at run time; as a fixed pattern it is the union over permutations,"
            f" {union:,} entries (over {UNION_LIMIT:,}): use mode jvp or vjp, or a function"
            " whose other operations keep it compact (a sum, an elementwise operation)"
        )


def structural_values(p: Permutation, values: np.ndarray) -> np.ndarray:
    """The values of :func:`structural` (entry [..., i, ..., o]: the row value of output
    position o where it takes input position i, else 0)."""
    check_union(p)
    v, source = _split(values)
    hit = source[..., None] == np.arange(p.shape[p.axis])
    return np.swapaxes(np.where(hit, v[..., None], 0.0), p.axis, -1)


def as_structural(b, values: np.ndarray | None = None):
    """A :class:`Permutation` as :func:`structural` (with its values, where given, as a
    pair); any other block as it is."""
    if not isinstance(b, Permutation):
        return b if values is None else (b, values)
    return structural(b) if values is None else (structural(b), structural_values(b, values))


def to_matrix(p: Permutation, values: np.ndarray):
    """The permutation at the point as a sparse matrix: one entry per row."""
    import scipy.sparse

    v, source = _split(values)
    size = math.prod(p.shape)
    flat = np.arange(size).reshape(p.shape)
    cols = np.take_along_axis(flat, source, p.axis).reshape(-1)
    return scipy.sparse.csr_array((v.reshape(-1), (np.arange(size), cols)), shape=(size, size))


def _split(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    values = np.asarray(values, dtype=float)
    return values[0], values[1].astype(np.int64)


def inverse_order(source: np.ndarray, axis: int) -> np.ndarray:
    """Where each input position of a fibre goes (the inverse permutation)."""
    return np.argsort(source, axis=axis, kind="stable")


def diagonal_values(d: Labelled, values: np.ndarray) -> np.ndarray:
    """A block :func:`~dgraph.blocks.on_the_diagonal`'s values as an array of its shape."""
    values = np.asarray(values, dtype=float)
    if not d.value:
        return np.broadcast_to(values.reshape(()), d.out_shape)
    labels = [axis[0][0] for axis in d.out_axes]
    return np.transpose(values.reshape([d.sizes[k] for k in d.value]), _ranks(d, labels))


def _ranks(d: Labelled, labels: list[int]) -> tuple[int, ...]:
    return tuple(d.value.index(k) for k in labels)


@dataclass(frozen=True)
class Plan:
    """How a product with a permutation is formed: ``how`` is ``"left"`` (D·P),
    ``"right"`` (P·D), ``"upper"`` (L·P: L·diag(v), then gathered along ``label`` by the
    inverse permutation), ``"lower"`` (P·L: diag(1)·L gathered along ``label`` by the
    sources, then times v) or ``"structural"``; ``block`` the product, ``inner`` the
    labelled product before the gather (upper and lower)."""

    how: str
    cost: int
    block: object
    inner: Labelled | None = None
    label: int = -1
    filled: bool = False  # the other factor, a row (upper) or a column (lower), made dense


def _whole_alone(b: Labelled, side: str, axis: int) -> int | None:
    """The label reading ``axis`` of ``b``'s side where permuting that axis within each
    fibre leaves ``b``'s pattern as it is and its values can be gathered along it: every
    axis of the side read by one label of its own, whole, from 0, the values varying
    along all of them, and that axis's label read nowhere else; else None."""
    axes = b.out_axes if side == "out" else b.in_axes
    shape = b.out_shape if side == "out" else b.in_shape
    other = b.in_axes if side == "out" else b.out_axes
    labels = [a[0][0] if len(a[0]) == 1 else None for a in axes]
    if None in labels or len(set(labels)) != len(labels):
        return None
    if any(off or b.sizes[k] != n for (_, off), k, n in zip(axes, labels, shape, strict=True)):
        return None
    if not set(labels) <= set(b.value):
        return None
    k = labels[axis]
    if any(k in a for a, _ in other):
        return None
    return k


def plan(upper, lower) -> Plan:
    """The :class:`Plan` of ``upper · lower``, one of them a :class:`Permutation`. A row
    (a cotangent, a gradient: ``out_shape`` ()) or a column (a tangent: ``in_shape`` ())
    whose pattern does not cover the axis (a slice of the sorted values) is made dense
    first: its n entries, where the union would be n per entry."""
    found = _plan(upper, lower)
    if found.how != "structural":
        return found
    if isinstance(lower, Permutation) and not _is(upper) and upper.out_shape == ():
        filled = _plan(dense((), lower.shape, max(upper.kind, GENERAL)), lower)
        return Plan(filled.how, filled.cost, filled.block, filled.inner, filled.label, True)
    if isinstance(upper, Permutation) and not _is(lower) and lower.in_shape == ():
        filled = _plan(upper, dense(upper.shape, (), max(lower.kind, GENERAL)))
        return Plan(filled.how, filled.cost, filled.block, filled.inner, filled.label, True)
    return found


def _plan(upper, lower) -> Plan:
    if isinstance(lower, Permutation) and not isinstance(upper, Permutation):
        if on_the_diagonal(upper):
            cost = 0 if upper.kind == ONES else lower.nnz
            return Plan("left", cost, Permutation(lower.shape, lower.axis))
        if isinstance(upper, Labelled):
            cost, inner = multiply(upper, diagonal(lower.shape))
            if isinstance(inner, Labelled) and _whole_alone(inner, "in", lower.axis) is not None:
                k = _whole_alone(inner, "in", lower.axis)
                return Plan("upper", cost, inner, inner, k)  # type: ignore[arg-type]
    if isinstance(upper, Permutation) and not isinstance(lower, Permutation):
        if on_the_diagonal(lower):
            cost = 0 if lower.kind == ONES else upper.nnz
            return Plan("right", cost, Permutation(upper.shape, upper.axis))
        if isinstance(lower, Labelled):
            _, inner = multiply(diagonal(upper.shape), lower)
            if isinstance(inner, Labelled) and _whole_alone(inner, "out", upper.axis) is not None:
                k = _whole_alone(inner, "out", upper.axis)
                cost = 0 if lower.kind == ONES else inner.stored
                return Plan("lower", cost, inner, inner, k)  # type: ignore[arg-type]
    a = structural(upper) if isinstance(upper, Permutation) else upper
    b = structural(lower) if isinstance(lower, Permutation) else lower
    cost, block = multiply(a, b)
    return Plan("structural", cost, block)


def multiply_permutation(upper, lower) -> Product:
    """:func:`~dgraph.blocks.multiply` where a factor is a :class:`Permutation`."""
    found = plan(upper, lower)
    return Product(found.cost, found.block)


def lay_out(b: Labelled, side: str, array: np.ndarray) -> np.ndarray:
    """An array over ``b``'s side (its shape, one label an axis: :func:`_whole_alone`)
    laid along ``b``'s value axes, 1 along the others (to broadcast against its values)."""
    axes = b.out_axes if side == "out" else b.in_axes
    labels = [a[0][0] for a in axes]
    order = sorted(range(len(labels)), key=lambda j: b.value.index(labels[j]))
    moved = np.transpose(array, order)
    shape = [b.sizes[k] if k in labels else 1 for k in b.value]
    return moved.reshape(shape)


def multiply_permutation_values(upper, lower, vu, vl) -> BlockValues:
    """:func:`~dgraph.blocks.multiply_values` where a factor is a :class:`Permutation`."""
    found = plan(upper, lower)
    if found.filled and isinstance(lower, Permutation):
        vu = to_matrix_of(upper, vu).toarray().reshape(lower.shape)
        upper = dense((), lower.shape, GENERAL)
    elif found.filled:
        vl = to_matrix_of(lower, vl).toarray().reshape(upper.shape)
        lower = dense(upper.shape, (), GENERAL)
    if found.how == "left":
        v, source = _split(vl)
        return BlockValues(found.block, np.stack([diagonal_values(upper, vu) * v, source]))
    if found.how == "right":
        v, source = _split(vu)
        gathered = np.take_along_axis(diagonal_values(lower, vl), source, axis=upper.axis)
        return BlockValues(found.block, np.stack([v * gathered, source]))
    if found.how == "upper":
        v, source = _split(vl)
        inner = multiply_values(upper, diagonal(lower.shape), vu, v).values
        index = lay_out(found.inner, "in", inverse_order(source, lower.axis))
        position = found.inner.value.index(found.label)
        return BlockValues(found.block, np.take_along_axis(inner, index, axis=position))
    if found.how == "lower":
        v, source = _split(vu)
        inner = multiply_values(diagonal(upper.shape), lower, np.ones(upper.shape), vl).values
        position = found.inner.value.index(found.label)
        gathered = np.take_along_axis(inner, lay_out(found.inner, "out", source), axis=position)
        return BlockValues(found.block, gathered * lay_out(found.inner, "out", v))
    a, va = (structural(upper), structural_values(upper, vu)) if _is(upper) else (upper, vu)
    b, vb = (structural(lower), structural_values(lower, vl)) if _is(lower) else (lower, vl)
    return multiply_values(a, b, va, vb)


def _is(b) -> bool:
    return isinstance(b, Permutation)


def apply(p: Permutation, values: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """``P · vector``, flat in and out: each row's value times the entry it takes."""
    v, source = _split(values)
    taken = np.take_along_axis(np.asarray(vector, dtype=float).reshape(p.shape), source, p.axis)
    return (v * taken).reshape(-1)


def apply_transposed(p: Permutation, values: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """``vectorᵀ · P``, flat in and out: each row's value times its entry, sent back to
    the position it came from."""
    v, source = _split(values)
    out = np.zeros(p.shape)
    np.put_along_axis(out, source, v * np.asarray(vector, dtype=float).reshape(p.shape), p.axis)
    return out.reshape(-1)
