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
* ``Q · P`` where the two are inverses of each other: the identity's pattern, a diagonal
  whose values are P's row values gathered by Q's sources times Q's. Which permutation a
  block is, is known when the graph is built only as the ``tie`` it carries (the
  ``argsort`` that orders it: a sort's own block, a take at those positions, the
  scatter-add that is its transpose, ``inverse``), so ``Sᵀ·D·S`` of a Hessian through a
  sort is diagonal, as it is at every point;
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
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..errors import DGraphError
from . import (
    GENERAL,
    ONES,
    BlockValues,
    Labelled,
    Product,
    RunTime,
    Sparse,
    dense,
    diagonal,
    multiply,
    multiply_values,
    on_the_diagonal,
    sparse,
)
from . import to_matrix as to_matrix_of

__all__ = [
    "Permutation",
    "apply",
    "apply_transposed",
    "as_structural",
    "check_union",
    "diagonal_values",
    "flat_identity",
    "inverse_order",
    "inverses",
    "lay_out",
    "multiply_permutation",
    "multiply_permutation_values",
    "plan",
    "reshapes",
    "same_order",
    "structural",
    "structural_values",
    "to_matrix",
    "within_diagonal",
]


@dataclass(frozen=True)
class Permutation(RunTime):
    """∂ sort(along ``axis``)/∂(the sorted operand) over an array of ``shape``: one entry
    per row, its column chosen at run time within the row's fibre along ``axis``.

    ``tie``: what orders it, where known (the ``argsort`` operation whose positions it
    takes, hashable, equal for equal operations), else None; ``inverse``: it is that
    order's inverse (a scatter-add at those positions: the take's transpose). Two blocks
    of one tie, one of them inverse, multiply to the identity's pattern.

    ``outer``, ``inner``: the output's and the input's shapes where a reshape beside it
    (:func:`flat_identity`: the identity on flat indices) is taken into it, else None
    (``shape``); its matrix, values and sources stay those over ``shape``."""

    shape: tuple[int, ...]
    axis: int
    kind: int = GENERAL
    tie: Any = None
    inverse: bool = False
    outer: tuple[int, ...] | None = None
    inner: tuple[int, ...] | None = None

    @property
    def out_shape(self) -> tuple[int, ...]:
        return self.shape if self.outer is None else self.outer

    @property
    def in_shape(self) -> tuple[int, ...]:
        return self.shape if self.inner is None else self.inner

    @property
    def plain(self) -> bool:
        """Over ``shape`` on both sides (no reshape taken in)."""
        return self.outer is None and self.inner is None

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

    @staticmethod
    def summed(a, b) -> Permutation | None:
        """Two blocks of one order (:func:`same_order`): that permutation, its row values
        added (the same sources); else None."""
        return replace(a, kind=GENERAL) if same_order(a, b) else None


def structural(p: Permutation) -> Labelled | Sparse:
    """The union of every permutation's pattern, as a labelled block: the input's axes as
    labels and one more, the output's position along the axis (dense along each fibre);
    its values over all of them (the last: the output position). With a reshape taken in,
    that block between the reshapes (:func:`reshapes`)."""
    if not p.plain:
        out, inn = reshapes(p)
        core = structural(replace(p, outer=None, inner=None))
        return multiply(out, multiply(core, inn).product).product
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
    if not p.plain:
        out, inn = reshapes(p)
        core = replace(p, outer=None, inner=None)
        found = multiply_values(structural(core), inn, structural_values(core, values), _ones(inn))
        return multiply_values(out, found.block, _ones(out), found.values).values
    v, source = _split(values)
    hit = source[..., None] == np.arange(p.shape[p.axis])
    return np.swapaxes(np.where(hit, v[..., None], 0.0), p.axis, -1)


def reshapes(p: Permutation) -> tuple[Sparse, Sparse]:
    """The identities on flat indices from ``shape`` to the output's shape and from the
    input's to ``shape`` (sparse, ones)."""
    return _flat_identity(p.out_shape, p.shape), _flat_identity(p.shape, p.in_shape)


def _flat_identity(out_shape: tuple[int, ...], in_shape: tuple[int, ...]) -> Sparse:
    every = np.arange(math.prod(out_shape))
    return sparse(out_shape, in_shape, every, every, ONES)


def _flat_diagonal(out_shape: tuple[int, ...], in_shape: tuple[int, ...]) -> Labelled | Sparse:
    """The pattern of a diagonal on flat indices: :func:`~dgraph.blocks.diagonal` where the
    shapes are one, else a sparse block of those entries (a diagonal, then a reshape)."""
    if out_shape == in_shape:
        return diagonal(out_shape)
    return multiply(diagonal(out_shape), _flat_identity(out_shape, in_shape)).product


def _ones(b: Sparse) -> np.ndarray:
    return np.ones(b.nnz)


def flat_identity(b) -> bool:
    """Whether ``b`` is a reshape: ones, the identity on flat indices between two shapes of
    one size that differ (every axis of each side a run of whole labels, the runs of both
    sides the same labels in the same order)."""
    if b.kind != ONES or b.out_shape == b.in_shape:
        return False
    if math.prod(b.out_shape) != math.prod(b.in_shape):
        return False
    if isinstance(b, Sparse):
        every = np.arange(math.prod(b.out_shape))
        return b.nnz == every.size and bool(
            np.array_equal(b.rows, every) and np.array_equal(b.cols, every)
        )
    if not isinstance(b, Labelled) or b.value:
        return False

    def run(axes, shape) -> list[int] | None:
        labels: list[int] = []
        for (ks, off), n in zip(axes, shape, strict=True):
            if off or math.prod(b.sizes[k] for k in ks) != n:
                return None
            labels.extend(ks)
        return labels

    out, inn = run(b.out_axes, b.out_shape), run(b.in_axes, b.in_shape)
    return out is not None and out == inn and len(set(out)) == len(out)


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


def diagonal_values(d: Labelled | Sparse, values: np.ndarray) -> np.ndarray:
    """A block :func:`~dgraph.blocks.on_the_diagonal`'s values as an array of its shape
    (one :func:`within_diagonal`: zeros where it has no entry)."""
    values = np.asarray(values, dtype=float)
    if isinstance(d, Sparse):
        full = np.zeros(math.prod(d.out_shape))
        full[d.rows] = values.reshape(-1)
        return full.reshape(d.out_shape)
    if not d.value:
        return np.broadcast_to(values.reshape(()), d.out_shape)
    labels = [axis[0][0] for axis in d.out_axes]
    return np.transpose(values.reshape([d.sizes[k] for k in d.value]), _ranks(d, labels))


def _ranks(d: Labelled, labels: list[int]) -> tuple[int, ...]:
    return tuple(d.value.index(k) for k in labels)


@dataclass(frozen=True)
class Plan:
    """How a product with a permutation is formed: ``how`` is ``"left"`` (D·P),
    ``"right"`` (P·D), ``"inverse"`` (Q·P, each the other's inverse: a diagonal),
    ``"upper"`` (L·P: L·diag(v), then gathered along ``label`` by the
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
    if found.how != "structural" or not all(b.plain for b in (upper, lower) if _is(b)):
        return found
    if isinstance(lower, Permutation) and not _is(upper) and upper.out_shape == ():
        filled = _plan(dense((), lower.shape, max(upper.kind, GENERAL)), lower)
        return Plan(filled.how, filled.cost, filled.block, filled.inner, filled.label, True)
    if isinstance(upper, Permutation) and not _is(lower) and lower.in_shape == ():
        filled = _plan(upper, dense(upper.shape, (), max(lower.kind, GENERAL)))
        return Plan(filled.how, filled.cost, filled.block, filled.inner, filled.label, True)
    return found


def same_order(a, b) -> bool:
    """Whether two blocks are permutations known to be the same one: of one tie and
    orientation, over the same shape and axis (their sources equal at every point)."""
    return (
        isinstance(a, Permutation)
        and isinstance(b, Permutation)
        and a.tie is not None
        and (a.tie, a.inverse, a.shape, a.axis) == (b.tie, b.inverse, b.shape, b.axis)
    )


def inverses(upper, lower) -> bool:
    """Whether two blocks are permutations known to be each other's inverse: of one tie
    (the same order), one of them its inverse, over the same shape and axis."""
    return (
        isinstance(upper, Permutation)
        and isinstance(lower, Permutation)
        and upper.tie is not None
        and upper.tie == lower.tie
        and upper.inverse != lower.inverse
        and (upper.shape, upper.axis) == (lower.shape, lower.axis)
    )


def within_diagonal(b) -> bool:
    """Whether ``b`` is a square :class:`~dgraph.blocks.Sparse` block with entries on the
    diagonal only (an elementwise product with a constant that has zeros): a product
    with a permutation takes it as the diagonal, zeros where it has no entry."""
    return (
        isinstance(b, Sparse) and b.out_shape == b.in_shape and bool(np.array_equal(b.rows, b.cols))
    )


def _plan(upper, lower) -> Plan:
    if inverses(upper, lower):
        return Plan("inverse", upper.nnz, _flat_diagonal(upper.out_shape, lower.in_shape))
    if isinstance(upper, Permutation) and not _is(lower) and flat_identity(lower):
        inner = None if lower.in_shape == upper.shape else lower.in_shape
        return Plan("relabel", 0, replace(upper, inner=inner))
    if isinstance(lower, Permutation) and not _is(upper) and flat_identity(upper):
        outer = None if upper.out_shape == lower.shape else upper.out_shape
        return Plan("relabel", 0, replace(lower, outer=outer))
    if isinstance(lower, Permutation) and within_diagonal(upper):
        return Plan("left", lower.nnz, replace(lower, kind=GENERAL))
    if isinstance(upper, Permutation) and within_diagonal(lower):
        return Plan("right", upper.nnz, replace(upper, kind=GENERAL))
    if isinstance(lower, Permutation) and not isinstance(upper, Permutation):
        if on_the_diagonal(upper):
            cost = 0 if upper.kind == ONES else lower.nnz
            return Plan("left", cost, replace(lower, kind=GENERAL))
        if isinstance(upper, Labelled) and lower.plain:
            cost, inner = multiply(upper, diagonal(lower.shape))
            if isinstance(inner, Labelled) and _whole_alone(inner, "in", lower.axis) is not None:
                k = _whole_alone(inner, "in", lower.axis)
                return Plan("upper", cost, inner, inner, k)  # type: ignore[arg-type]
    if isinstance(upper, Permutation) and not isinstance(lower, Permutation):
        if on_the_diagonal(lower):
            cost = 0 if lower.kind == ONES else upper.nnz
            return Plan("right", cost, replace(upper, kind=GENERAL))
        if isinstance(lower, Labelled) and upper.plain:
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
    if found.how == "relabel":
        return BlockValues(found.block, vu if _is(upper) else vl)
    if found.how == "inverse":
        v, source = _split(vu)
        product = v * np.take_along_axis(_split(vl)[0], source, upper.axis)
        shape = found.block.out_shape if isinstance(found.block, Labelled) else (-1,)
        return BlockValues(found.block, product.reshape(shape))
    if found.how == "left":
        v, source = _split(vl)
        d = diagonal_values(upper, vu).reshape(lower.shape)
        return BlockValues(found.block, np.stack([d * v, source]))
    if found.how == "right":
        v, source = _split(vu)
        d = diagonal_values(lower, vl).reshape(upper.shape)
        gathered = np.take_along_axis(d, source, axis=upper.axis)
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
