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
* with a move (ones, at most one entry per row and per column: a slice, a pad, a
  reshape, a transpose), on either side: the move is taken in (``left``, ``right``: the
  block is ``left · P · right``, its values still P's), so that a slice of the sorted
  values and the pad that is its transpose do not hide the inverse pair: ``Q·(R·L)·P``,
  where the moves between meet on the diagonal only, is a diagonal, then the outer
  moves; where such a block meets anything else, its moves are let go again and the
  product formed as it would have been without them (``"release"``);
* any other product or sum (with a :class:`~dgraph.blocks.Sparse` block, another
  permutation, a block diagonal along d) is that of its **structural block**
  (:func:`structural`): the union of every permutation's pattern, each row dense along
  its fibre (n² entries for a 1-D sort of n), its values a one-hot of the sources. That
  union is also the pattern the element level, the drawings and a sparse Jacobian's
  assembly see: a generated ``sparse=True`` Jacobian that is such a block returns the
  union pattern with the entries the permutation does not take stored as zeros. With
  moves taken in (a few order statistics as an output), it is the union between them,
  its values read entry by entry (:func:`entries_between`): k·n for k of n sorted values.
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
    move_source,
    multiply,
    multiply_values,
    on_the_diagonal,
    pattern,
)
from . import to_matrix as to_matrix_of

__all__ = [
    "Permutation",
    "apply",
    "apply_transposed",
    "as_structural",
    "check_union",
    "diagonal_values",
    "entries_between",
    "entry_rows",
    "flat_sources",
    "inverse_order",
    "inverses",
    "lay_out",
    "middle",
    "multiply_permutation",
    "multiply_permutation_values",
    "ones",
    "plan",
    "same_order",
    "structural",
    "structural_values",
    "through",
    "to_matrix",
    "weighted",
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

    ``left``, ``right``: moves taken in (ones, at most one entry per row and column:
    :func:`~dgraph.blocks.move_source`), the block being ``left · P · right``, or None; its
    values and sources stay those over ``shape``."""

    shape: tuple[int, ...]
    axis: int
    kind: int = GENERAL
    tie: Any = None
    inverse: bool = False
    left: Any = None
    right: Any = None

    @property
    def out_shape(self) -> tuple[int, ...]:
        return self.shape if self.left is None else tuple(self.left.out_shape)

    @property
    def in_shape(self) -> tuple[int, ...]:
        return self.shape if self.right is None else tuple(self.right.in_shape)

    @property
    def plain(self) -> bool:
        """Over ``shape`` on both sides (no move taken in)."""
        return self.left is None and self.right is None

    @property
    def core(self) -> Permutation:
        """The permutation without the moves taken in."""
        return replace(self, left=None, right=None)

    @property
    def nnz(self) -> int:
        """One entry per row (at most: per row ``left`` keeps)."""
        return math.prod(self.shape) if self.left is None else int(self.left.nnz)

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
    its values over all of them (the last: the output position). With moves taken in,
    that block between them."""
    if not p.plain:
        return _between(p, structural(p.core))
    n, d = len(p.shape), p.axis
    ins = tuple(((j,), 0) for j in range(n))
    outs = tuple(((n if j == d else j,), 0) for j in range(n))
    sizes = (*p.shape, p.shape[d])
    return Labelled(p.shape, p.shape, outs, ins, sizes, tuple(range(n + 1)), GENERAL)


def _between(p: Permutation, block):
    """``p.left · block · p.right`` (the moves that are there)."""
    if p.right is not None:
        block = multiply(block, p.right).product
    if p.left is not None and block is not None:
        block = multiply(p.left, block).product
    return block


def _values_between(p: Permutation, block, values: np.ndarray) -> BlockValues:
    """:func:`_between` with values (the moves' ones)."""
    found = BlockValues(block, values)
    if p.right is not None:
        found = multiply_values(found.block, p.right, found.values, ones(p.right))
    if p.left is not None and found.block is not None:
        found = multiply_values(p.left, found.block, ones(p.left), found.values)
    return found


def ones(move) -> np.ndarray:
    """A move's values: one per entry of a sparse block, one number for a labelled one."""
    return np.ones(move.nnz) if isinstance(move, Sparse) else np.asarray(1.0)


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
        found = entries_between(p)
        if found is not None:  # entry by entry: the core's union never formed
            block, rows, cols = found
            v, source = _split(values)
            at = np.maximum(rows, 0)
            taken = flat_sources(p.core, source)[at] == cols
            kept = np.where(taken & (rows >= 0), v.reshape(-1)[at], 0.0)
            return kept if isinstance(block, Sparse) else kept.reshape(_value_shape(block))
        core = p.core
        return _values_between(p, structural(core), structural_values(core, values)).values
    v, source = _split(values)
    hit = source[..., None] == np.arange(p.shape[p.axis])
    return np.swapaxes(np.where(hit, v[..., None], 0.0), p.axis, -1)


def flat_sources(p: Permutation, source: np.ndarray) -> np.ndarray:
    """Each row's source as a flat input position (over ``p.shape``, no moves)."""
    flat = np.arange(math.prod(p.shape)).reshape(p.shape)
    return np.take_along_axis(flat, np.asarray(source, dtype=np.int64), p.axis).reshape(-1)


def _value_shape(b: Labelled) -> tuple[int, ...]:
    return tuple(b.sizes[k] for k in b.value)


def entries_between(p: Permutation) -> tuple[Labelled | Sparse, np.ndarray, np.ndarray] | None:
    """``left · P · right``'s structural block and, per entry of its values (in their
    order), the core's flat row and flat column it reads (-1 where a move has none): so
    its values are read from P's row values and sources, entry by entry, without P's own
    union (n² for a sort of n, where one order statistic's is n). None where the block's
    values are not one per entry."""
    block = structural(p)
    if block is None:
        return None
    if isinstance(block, Sparse):
        rows, cols = block.rows, block.cols
    else:
        rows, cols, at = pattern(block)
        if at.size != math.prod(_value_shape(block)):
            return None
        ordered = np.full(at.size, -1, dtype=np.int64)
        ordered[at] = np.arange(at.size)
        if (ordered < 0).any():
            return None
        rows, cols = rows[ordered], cols[ordered]
    if p.left is not None:
        rows = move_source(p.left)[rows]
    if p.right is not None:
        source = move_source(p.right)
        has = np.flatnonzero(source >= 0)
        inverse = np.full(math.prod(p.right.in_shape), -1, dtype=np.int64)
        inverse[source[has]] = has
        cols = inverse[cols]
    return block, rows, cols


def as_structural(b, values: np.ndarray | None = None):
    """A :class:`Permutation` as :func:`structural` (with its values, where given, as a
    pair); any other block as it is."""
    if not isinstance(b, Permutation):
        return b if values is None else (b, values)
    return structural(b) if values is None else (structural(b), structural_values(b, values))


def to_matrix(p: Permutation, values: np.ndarray):
    """The permutation at the point as a sparse matrix: one entry per row."""
    import scipy.sparse

    if not p.plain:
        matrix = to_matrix(p.core, values)
        if p.right is not None:
            matrix = matrix @ to_matrix_of(p.right, ones(p.right))
        if p.left is not None:
            matrix = to_matrix_of(p.left, ones(p.left)) @ matrix
        return scipy.sparse.csr_array(matrix)
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
    ``"right"`` (P·D), ``"inverse"`` (Q·P, each the other's inverse: a diagonal between
    their outer moves), ``"absorb"`` (a move taken in), ``"release"`` (the moves taken in
    let go: :func:`_release`), ``"upper"`` (L·P: L·diag(v), then gathered along ``label`` by the
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
    orientation, over the same shape and axis, with the same moves taken in (their
    sources equal at every point)."""
    return (
        isinstance(a, Permutation)
        and isinstance(b, Permutation)
        and a.tie is not None
        and (a.tie, a.inverse, a.shape, a.axis) == (b.tie, b.inverse, b.shape, b.axis)
        and (a.left, a.right) == (b.left, b.right)
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


def middle(upper: Permutation, lower: Permutation) -> np.ndarray | None:
    """Of an inverse pair, which positions over ``shape`` the moves between them
    (``upper.right · lower.left``) keep: a 0/1 array of ``shape`` (all ones where there
    are none), or None where they meet off the diagonal (or not at all)."""
    n = math.prod(lower.shape)
    if upper.right is None and lower.left is None:
        return np.ones(lower.shape)
    if upper.right is None or lower.left is None:
        between = upper.right if lower.left is None else lower.left
    else:
        between = multiply(upper.right, lower.left).product
    source = None if between is None else move_source(between)
    if source is None:
        return None
    kept = source == np.arange(n)
    if not (kept | (source < 0)).all() or not kept.any():
        return None
    return kept.astype(float).reshape(lower.shape)


def _diagonal_between(upper: Permutation, lower: Permutation):
    """``upper.left · diag · lower.right``: the pattern of an inverse pair's product."""
    return _between(replace(upper, right=lower.right), diagonal(upper.shape))


def _absorbed(p: Permutation, move, side: str) -> Plan | None:
    """``move · p`` (side ``"left"``) or ``p · move``: p with the move taken in; None
    where the moves multiply to zero, or to a block that is no move (a product whose
    values are constants: the nearest-rank quantile's row of a sort, kept with its
    axis, as ``np.percentile(..., keepdims=True)`` reads it), multiplied otherwise."""
    if side == "left":
        left = move if p.left is None else multiply(move, p.left).product
        if left is None or move_source(left) is None:
            return None
        return Plan("absorb", 0, replace(p, left=_unless_identity(left)))
    right = move if p.right is None else multiply(p.right, move).product
    if right is None or move_source(right) is None:
        return None
    return Plan("absorb", 0, replace(p, right=_unless_identity(right)))


def _unless_identity(move):
    """None for the identity over one shape (a move that moves nothing), else the move."""
    if move.out_shape != move.in_shape:
        return move
    source = move_source(move)
    return None if np.array_equal(source, np.arange(source.size)) else move


def _plan(upper, lower) -> Plan:
    if inverses(upper, lower) and middle(upper, lower) is not None:
        return Plan("inverse", upper.core.nnz, _diagonal_between(upper, lower))
    if isinstance(lower, Permutation) and within_diagonal(upper):
        return Plan("left", lower.nnz, replace(lower, kind=GENERAL))
    if isinstance(upper, Permutation) and within_diagonal(lower):
        return Plan("right", upper.nnz, replace(upper, kind=GENERAL))
    for p, other, side in ((lower, upper, "left"), (upper, lower, "right")):
        if (
            _is(p)
            and not _is(other)
            and not on_the_diagonal(other)
            and move_source(other) is not None
        ):
            found = _absorbed(p, other, side)
            if found is not None:
                return found
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
    if _released(upper, lower):
        return Plan("release", *_release(upper, lower))
    a = structural(upper) if isinstance(upper, Permutation) else upper
    b = structural(lower) if isinstance(lower, Permutation) else lower
    cost, block = multiply(a, b)
    return Plan("structural", cost, block)


def _released(upper, lower) -> bool:
    """Whether the product is formed with the moves a permutation took in let go again:
    one factor a permutation with moves, the other no permutation. Taking a move in
    never costs what the product would have without it (a slice's row of a sort made
    dense is n entries, not the union's n²)."""
    return (_is(lower) and not lower.plain and not _is(upper)) or (
        _is(upper) and not upper.plain and not _is(lower)
    )


def _release(upper, lower) -> tuple[int, object]:
    """Cost and block of a :func:`_released` product: ``(upper·L)·P·R`` for a lower
    ``L·P·R``, ``L·(P·(R·lower))`` for an upper one."""
    cost = 0

    def times(a, b):
        nonlocal cost
        if a is None or b is None:
            return None
        more, block = multiply(a, b)
        cost += more
        return block

    if _is(lower):
        block = upper if lower.left is None else times(upper, lower.left)
        block = times(block, lower.core)
        block = block if lower.right is None else times(block, lower.right)
    else:
        block = lower if upper.right is None else times(upper.right, lower)
        block = times(upper.core, block)
        block = block if upper.left is None else times(upper.left, block)
    return cost, block


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
    if found.how == "absorb":
        if _is(upper):
            return BlockValues(found.block, weighted(upper, vu, lower, vl, "right"))
        return BlockValues(found.block, weighted(lower, vl, upper, vu, "left"))
    if found.how == "inverse":
        v, source = _split(vu)
        kept = middle(upper, lower) * _split(vl)[0]  # type: ignore[operator]
        d = v * np.take_along_axis(kept, source, upper.axis)
        return _values_between(replace(upper, right=lower.right), diagonal(upper.shape), d)
    if found.how == "left":
        v, source = _split(vl)
        d = through(lower.left, diagonal_values(upper, vu), "left", lower.shape)
        return BlockValues(found.block, np.stack([d * v, source]))
    if found.how == "right":
        v, source = _split(vu)
        d = through(upper.right, diagonal_values(lower, vl), "right", upper.shape)
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
    if found.how == "release":
        return _release_values(upper, lower, vu, vl)
    a, va = (structural(upper), structural_values(upper, vu)) if _is(upper) else (upper, vu)
    b, vb = (structural(lower), structural_values(lower, vl)) if _is(lower) else (lower, vl)
    return multiply_values(a, b, va, vb)


def _release_values(upper, lower, vu, vl) -> BlockValues:
    """:func:`_release` with values (the moves' ones)."""
    if _is(lower):
        found = BlockValues(upper, vu)
        if lower.left is not None:
            found = multiply_values(upper, lower.left, vu, ones(lower.left))
        if found.block is not None:
            found = multiply_values(found.block, lower.core, found.values, vl)
        if lower.right is not None and found.block is not None:
            found = multiply_values(found.block, lower.right, found.values, ones(lower.right))
        return found
    found = BlockValues(lower, vl)
    if upper.right is not None:
        found = multiply_values(upper.right, lower, ones(upper.right), vl)
    if found.block is not None:
        found = multiply_values(upper.core, found.block, vu, found.values)
    if upper.left is not None and found.block is not None:
        found = multiply_values(upper.left, found.block, ones(upper.left), found.values)
    return found


def through(move, d: np.ndarray, side: str, shape: tuple[int, ...]) -> np.ndarray:
    """A diagonal's values ``d`` (over the move's far side) carried through the move onto
    ``shape`` (a permutation's rows, ``side`` ``"left"``: D·L = L·D', D' at each column
    of L the value of its row; or its columns, ``"right"``: R·D = D''·R, D'' at each row
    of R the value of its column), zero where the move has no entry."""
    if move is None:
        return np.asarray(d).reshape(shape)
    source = move_source(move)
    has = source >= 0
    flat = np.asarray(d, dtype=float).reshape(-1)
    out = np.zeros(math.prod(shape))
    if side == "left":
        out[source[has]] = flat[has]
    else:
        out[has] = flat[source[has]]
    return out.reshape(shape)


def weighted(p: Permutation, values: np.ndarray, move, weights, side: str) -> np.ndarray:
    """A permutation's values after a move is taken in (``"left"``: move · p, ``"right"``:
    p · move): as they were where the move's values are ones; else each row (left) or
    column (right) of the permutation times the value of the move's entry there (one
    number, or one per entry in row order)."""
    w = np.asarray(weights, dtype=float)
    if w.size == 1 and float(w.reshape(-1)[0]) == 1.0:
        return values
    v, source = _split(values)
    if w.size == 1:
        return np.stack([float(w.reshape(-1)[0]) * v, source])
    moves = move_source(move)
    has = np.flatnonzero(moves >= 0)
    d = np.zeros(math.prod(p.shape))
    d[moves[has] if side == "left" else has] = w.reshape(-1)
    d = d.reshape(p.shape)
    row = d if side == "left" else np.take_along_axis(d, source, p.axis)
    return np.stack([row * v, source])


def entry_rows(p: Permutation) -> np.ndarray:
    """The flat rows with an entry: every row, or the rows ``left`` keeps."""
    if p.left is None:
        return np.arange(math.prod(p.shape))
    return np.flatnonzero(move_source(p.left) >= 0)


def _is(b) -> bool:
    return isinstance(b, Permutation)


def apply(p: Permutation, values: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """``P · vector``, flat in and out: each row's value times the entry it takes."""
    if not p.plain:
        return to_matrix(p, values) @ np.asarray(vector, dtype=float).reshape(-1)
    v, source = _split(values)
    taken = np.take_along_axis(np.asarray(vector, dtype=float).reshape(p.shape), source, p.axis)
    return (v * taken).reshape(-1)


def apply_transposed(p: Permutation, values: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """``vectorᵀ · P``, flat in and out: each row's value times its entry, sent back to
    the position it came from."""
    if not p.plain:
        return np.asarray(vector, dtype=float).reshape(-1) @ to_matrix(p, values)
    v, source = _split(values)
    out = np.zeros(p.shape)
    np.put_along_axis(out, source, v * np.asarray(vector, dtype=float).reshape(p.shape), p.axis)
    return out.reshape(-1)
