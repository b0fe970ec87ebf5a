"""Jacobian blocks of tensor vertices: structure types kept through products and sums.

An edge u -> v between tensor vertices carries the block ∂v/∂u, of shape
``v.shape + u.shape``. Array programs give blocks with structure (Naumann's vector
c-graphs, seed 000; Graphax's sparsity types), and the structure is most of the saving:
an elementwise operation gives a diagonal, ``x @ W`` a Kronecker product with an
identity, a slice or a pad a selection with one 1 per row, a sum over an axis a row of
ones. One exact form covers all of them, a *labelled block*:

* each axis of the output side and of the input side is read by one or more integer
  *labels* (several: a reshaped axis, row-major), plus an *offset* (an axis with one
  label: index = label + offset);
* ``value`` names the labels the block's values vary along; the entry J[o, i] is the value
  at the labels that o and i give, where every axis that shares a label agrees, else 0.

A label shared by an output axis and an input axis is a Kronecker delta (a diagonal);
one on the output side only is a broadcast; one on the input side only a sum; labels
outside ``value`` cost nothing to multiply along. Diagonal, scaled identity, Kronecker
products with an identity, selections, embeddings, reductions and dense blocks are all
labelled blocks (:func:`dense`, :func:`diagonal`, :func:`identity`). Their product is
again one, found by unifying the labels of the shared vertex's axes (an einsum with
deltas): diag·diag is diag, a selection times a block picks rows of it. A sum of two
blocks of different structure (the shifted selections of a stencil) is a
:class:`Sparse` block: its pattern as index arrays, computed once, never a dense
intermediate; kept as compressed rows, so a sum of two is a merge of each row's sorted
columns and a product scipy's product of 0/1 patterns: time linear in the entries and
the pairs that meet, no sort of them all (a 10⁶-unknown stencil's Jacobian in about a
second).

One block's pattern is known only at run time: ``sort``'s, a permutation chosen by
``argsort`` at the point (:class:`~dgraph.blocks.permutation.Permutation`, one entry per
row); its products and sums are :mod:`dgraph.blocks.permutation`'s.

Each product's price is counted in *true* scalar multiplications: the size of its einsum
over the labels both values vary along, and nothing where one factor is all ones (a
selection, a broadcast, a reduction: moves and additions) or both are constants (folded
when the code is made). A sparse product costs the
multiplications its patterns pair, Σ_k nnz(A[:, k]) · nnz(B[k, :]).

References: U. Naumann, "Elimination techniques for cheap Jacobians", INRIA RR-3659,
1999 (vector c-graphs); J. Lohoff and E. Neftci, "Optimizing automatic differentiation
with deep reinforcement learning", NeurIPS 2024 (Graphax's sparse Jacobian types).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import math
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import FrozenInstanceError, dataclass
from typing import Any, NamedTuple

import numpy as np

from . import heap

__all__ = [
    "CONSTANT",
    "DENSE_PAIRS_FROM",
    "FORGETS",
    "GENERAL",
    "ONES",
    "SPLIT_FROM",
    "SPLIT_PARTS",
    "SPLIT_WASTE",
    "Applied",
    "Block",
    "BlockValues",
    "DiagonalPart",
    "DiagonalSplit",
    "EinsumPlan",
    "Labelled",
    "Listed",
    "OneHot",
    "Product",
    "RunTime",
    "Sparse",
    "add",
    "applied",
    "dense",
    "dense_pays",
    "dense_plan",
    "diagonal",
    "diagonal_parts",
    "einsum_plan",
    "first_appearance",
    "forget",
    "free_product",
    "identity",
    "in_scope",
    "merge_flags",
    "move_source",
    "moved_onehot",
    "multiply",
    "on_the_diagonal",
    "onehot_applied",
    "pattern",
    "plain_dense",
    "remember_sum",
    "remembered_sum",
    "rule_side",
    "scalar_block",
    "scale",
    "scoped",
    "sparse",
    "split_label",
    "split_of",
    "split_product",
    "split_values",
    "to_matrix",
]

ONES, CONSTANT, GENERAL = 0, 1, 2  # what a block's values are: all 1, known numbers, run time

Axis = tuple[tuple[int, ...], int]  # the labels reading one axis (row-major), and its offset


class Product(NamedTuple):
    """A product of two labels and the multiplications it costs, in any label algebra:
    blocks here (:func:`multiply`), label values (:func:`dgraph.core.kinds.multiply`), the
    eliminations' algebras (:class:`dgraph.elimination.kernel.Algebra`). A tuple, so
    ``cost, product = multiply(a, b)`` unpacks it."""

    cost: int
    product: Any


class BlockValues(NamedTuple):
    """A block and its values (C order over its value labels, or one per pattern entry):
    what :func:`multiply_values` and :func:`add_values` give."""

    block: Any  # a Block; None for a product that is zero
    values: Any  # an ndarray; None beside a zero block


@dataclass(frozen=True)
class Labelled:
    """A block J (``out_shape + in_shape``) whose entries are its value at the labels the
    indices give (see the module docstring); ``sizes[k]`` is label k's range."""

    out_shape: tuple[int, ...]
    in_shape: tuple[int, ...]
    out_axes: tuple[Axis, ...]
    in_axes: tuple[Axis, ...]
    sizes: tuple[int, ...]
    value: tuple[int, ...]
    kind: int = GENERAL

    @property
    def nnz(self) -> int:
        """The entries that may be nonzero: one per assignment of the labels."""
        return math.prod(self.sizes)

    @property
    def stored(self) -> int:
        """The values kept: one per assignment of the value's labels."""
        return math.prod(self.sizes[k] for k in self.value)

    @property
    def type_name(self) -> str:
        """The structure's name as the papers call it."""
        return _type_name(self)

    def canonical(self) -> Labelled:
        """The same block with labels numbered in order of first appearance."""
        order = first_appearance(self)
        sizes = [0] * len(order)
        for k, new in order.items():
            sizes[new] = self.sizes[k]

        def axes(side: tuple[Axis, ...]) -> tuple[Axis, ...]:
            return tuple((tuple(order[k] for k in labels), off) for labels, off in side)

        return Labelled(
            self.out_shape,
            self.in_shape,
            axes(self.out_axes),
            axes(self.in_axes),
            tuple(sizes),
            tuple(sorted(order[k] for k in self.value)),
            self.kind,
        )


INT32_LIMIT = 2**31  # a pattern's columns and entries below it: int32 indices


def _index_dtype(largest: int) -> type:
    """The integer type of a sparse pattern's column indices and row pointer whose
    values are below ``largest`` (the columns, the entries): int32 where they fit, else
    int64 (half the memory, and half the pages to fault, of the patterns pricing and the
    code generator form: 7·10⁶ entries each at 10⁶ unknowns). Arithmetic that may pass
    2³¹ (a flat index ``row * width + col``) is done in int64: the rows are int64."""
    return np.int32 if largest < INT32_LIMIT else np.int64


def _read_only(a: np.ndarray, dtype: type = np.int64) -> np.ndarray:
    """``a`` as a read-only view of ``dtype`` (copied only where its type differs)."""
    view = np.asarray(a, dtype=dtype).view()
    view.flags.writeable = False
    return view


class Sparse:
    """A block with a fixed pattern: row and column indices of the flattened block
    (``prod(out_shape)`` by ``prod(in_shape)``), each entry once, in row-major order;
    immutable, its arrays read-only. Kept as compressed rows (``indptr``, ``cols``, of
    :func:`_index_dtype`: int32 where they fit): a product or a sum made here gives its
    ``rows`` (int64) only when asked for them (half the memory of a 10⁶-entry pattern).
    Two are equal when their patterns are (``digest``, a
    hash of the indices, computed the first time a block is hashed or compared: the
    caches see small blocks only, and hashing a stencil's pattern costs about what a sum
    of two does)."""

    out_shape: tuple[int, ...]
    in_shape: tuple[int, ...]
    cols: np.ndarray
    kind: int

    def __init__(
        self,
        out_shape: tuple[int, ...],
        in_shape: tuple[int, ...],
        rows: np.ndarray | None,
        cols: np.ndarray,
        kind: int = GENERAL,
        *,
        indptr: np.ndarray | None = None,
    ) -> None:
        if rows is None and indptr is None:
            raise ValueError("a sparse block needs its rows or its row pointer")
        state = self.__dict__
        state.update(out_shape=tuple(out_shape), in_shape=tuple(in_shape), kind=kind)
        index = _index_dtype(max(math.prod(in_shape), np.size(cols)))
        state["cols"] = _read_only(cols, index)
        if rows is not None:
            state["rows"] = _read_only(rows)
        if indptr is not None:
            state["indptr"] = _read_only(indptr, index)

    def __getattr__(self, name: str) -> object:
        if name == "cols" and "_pending" in self.__dict__:  # a union not merged yet
            self._settle()
            return self.__dict__["cols"]
        raise AttributeError(name)

    def _settle(self) -> None:
        """A pending union (:class:`_Pending`) merged into its arrays, once."""
        pending = self.__dict__.pop("_pending", None)
        if pending is None:
            return
        indptr, cols = pending.settled()
        index = _index_dtype(max(math.prod(self.in_shape), cols.size))
        self.__dict__["cols"] = _read_only(cols, index)
        self.__dict__["indptr"] = _read_only(indptr, index)

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __repr__(self) -> str:
        return (
            f"Sparse(out_shape={self.out_shape!r}, in_shape={self.in_shape!r}, kind={self.kind!r})"
        )

    @functools.cached_property
    def rows(self) -> np.ndarray:
        """Each entry's row (sorted): each row's index repeated as often as it has entries."""
        counts = np.diff(self.indptr)
        return _read_only(np.repeat(np.arange(counts.size, dtype=np.int64), counts))

    @functools.cached_property
    def indptr(self) -> np.ndarray:
        """Where each row's entries start (compressed sparse rows): the rows are sorted."""
        if "_pending" in self.__dict__:
            self._settle()
            return self.__dict__["indptr"]
        counts = np.bincount(self.rows, minlength=math.prod(self.out_shape))
        indptr = np.zeros(counts.size + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        return _read_only(indptr, self.cols.dtype.type)

    @functools.cached_property
    def digest(self) -> bytes:
        """A hash of the pattern (the row pointer, then the columns, as int64 bytes:
        the same whatever :func:`_index_dtype` stores them in)."""
        found = hashlib.blake2b(np.asarray(self.indptr, dtype=np.int64).tobytes(), digest_size=16)
        found.update(np.asarray(self.cols, dtype=np.int64).tobytes())
        return found.digest()

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other.__class__ is not self.__class__:
            return NotImplemented
        if (self.out_shape, self.in_shape, self.kind, self.nnz) != (
            other.out_shape,  # type: ignore[attr-defined]
            other.in_shape,  # type: ignore[attr-defined]
            other.kind,  # type: ignore[attr-defined]
            other.nnz,  # type: ignore[attr-defined]
        ):
            return False  # different sizes never share a digest: no hash computed
        return self.digest == other.digest  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((self.out_shape, self.in_shape, self.kind, self.digest))

    @property
    def nnz(self) -> int:
        pending = self.__dict__.get("_pending")
        return pending.nnz if pending is not None else int(self.cols.size)

    stored = nnz

    @property
    def type_name(self) -> str:
        return "sparse"

    def same_pattern(self, kind: int) -> Sparse:
        """The same pattern with values of ``kind`` (its arrays shared; a structured
        subclass stays structured)."""
        return _with_kind(self, kind)


Block = Labelled | Sparse


# -- the structure types -------------------------------------------------------------------


class Listed(Sparse):
    """A pattern held by its structure (a convolution's, a Kronecker product's, a running
    sum's): its index arrays are those of :attr:`listed`, made only where something asks
    for them (a sum, a product with another block)."""

    @property
    def listed(self) -> Sparse:
        """The pattern as index arrays (a subclass's ``explicit``)."""
        return self.explicit  # type: ignore[attr-defined]

    @functools.cached_property
    def cols(self) -> np.ndarray:  # type: ignore[override]
        return self.listed.cols

    @functools.cached_property
    def indptr(self) -> np.ndarray:
        return self.listed.indptr

    @functools.cached_property
    def rows(self) -> np.ndarray:
        return self.listed.rows


class RunTime:
    """A block whose pattern is chosen at run time (``sort``'s permutation,
    :class:`~dgraph.blocks.permutation.Permutation`). The subclass gives its products,
    sums and matrices through these methods, so that this module, which dispatches to
    them, never imports it."""

    def structural(self) -> Labelled:
        """The union of the patterns it may take, as a fixed block."""
        raise NotImplementedError

    def structural_values(self, values: np.ndarray) -> np.ndarray:
        """:meth:`structural`'s values for these run-time values."""
        raise NotImplementedError

    def matrix(self, values: np.ndarray):
        """The block at the point (its run-time values) as a SciPy sparse matrix."""
        raise NotImplementedError

    @staticmethod
    def product(upper: Block, lower: Block) -> Product:
        """:func:`multiply` where a factor is of this kind."""
        raise NotImplementedError

    @staticmethod
    def product_values(upper: Block, lower: Block, vu: np.ndarray, vl: np.ndarray) -> BlockValues:
        """:func:`multiply_values` where a factor is of this kind."""
        raise NotImplementedError

    @staticmethod
    def summed(a: Block, b: Block) -> Block | None:
        """:func:`add` where a summand is of this kind and the sum keeps it; else None
        (the sum is then that of the unions)."""
        return None


def _run_time(*blocks: object) -> RunTime | None:
    """The first of ``blocks`` whose pattern is chosen at run time, if any."""
    return next((b for b in blocks if isinstance(b, RunTime)), None)


def _fixed(b: Block, values: np.ndarray | None = None):
    """A run-time block as its union (with its values, where given, as a pair); any other
    block as it is."""
    if not isinstance(b, RunTime):
        return b if values is None else (b, values)
    return b.structural() if values is None else (b.structural(), b.structural_values(values))


def dense(out_shape: tuple[int, ...], in_shape: tuple[int, ...], kind: int = GENERAL) -> Labelled:
    """Every entry its own value.

    >>> dense((2,), (3,)).nnz
    6
    """
    n = len(out_shape) + len(in_shape)
    shape = (*out_shape, *in_shape)
    axes = tuple(((k,), 0) for k in range(n))
    return Labelled(
        tuple(out_shape),
        tuple(in_shape),
        axes[: len(out_shape)],
        axes[len(out_shape) :],
        shape,
        tuple(range(n)),
        kind,
    )


@dataclass(frozen=True)
class Applied(Labelled):
    """A dense block held as the linear map it is: an operation's derivative applied by
    its rules (:mod:`dgraph.blocks.linalg`: ``cholesky``, ``triangular_solve``), not by
    its n²·n² entries. A product with rows on its left (a gradient's, a cotangent's) is
    the cotangent rule applied to each row; with columns on its right, the tangent rule
    applied to each column (:func:`multiply`, where that costs fewer multiplications than
    the entries' product); anything else reads it as :func:`dense` (its values the
    tangent rule applied to every basis direction). ``rule`` names the operation (its
    primitive, params, operand and shapes); ``costs`` the multiplications shared by the
    rows or columns of one product (an inverse), then those of one row and of one column."""

    rule: tuple = ()
    costs: tuple[int, int, int] = (0, 0, 0)

    def plain(self) -> Labelled:
        """The same block as :func:`dense` reads it."""
        return dense(self.out_shape, self.in_shape, self.kind)


def applied(out_shape, in_shape, rule: tuple, costs: tuple[int, int, int]) -> Applied:
    """An :class:`Applied` block of these shapes (dense: every entry its own value)."""
    b = dense(tuple(out_shape), tuple(in_shape))
    return Applied(*(getattr(b, f) for f in _LABELLED_FIELDS), rule=rule, costs=costs)


_LABELLED_FIELDS = ("out_shape", "in_shape", "out_axes", "in_axes", "sizes", "value", "kind")


def _values_cost(b: Applied) -> int:
    """The multiplications of an :class:`Applied` block's dense values: the tangent
    rule on every basis direction of the operand or the cotangent rule on every basis
    row of the result, the cheaper (:func:`dgraph.blocks.linalg.by_rows`)."""
    shared, row, column = b.costs
    return shared + min(math.prod(b.out_shape) * row, math.prod(b.in_shape) * column)


def _plain(b: Block) -> Block:
    return b.plain() if isinstance(b, Applied) else b


@dataclass(frozen=True)
class OneHot(Labelled):
    """A take's or a scatter-add's union block at positions known only at run time
    (:func:`~dgraph.blocks.dynamic_take.union_block`), its values a one-hot of the
    positions: label ``position`` the input position along the axis, ``group`` the
    labels whose C order is the output (update) position, ``take`` whether a take's (a
    scatter-add's is the transpose). A product that contracts one of the two and keeps
    the other is a gather or a segment sum, as the generated code prints it
    (:mod:`dgraph.codegen.tensor.dynamic_gathers`): it multiplies nothing, and is priced
    0 (:func:`_gathers`), not the union's n · positions products per vector."""

    position: int = -1
    group: tuple[int, ...] = ()
    take: bool = True


def _gathers(hot: OneHot, shift: int, other: Labelled, plan_parts: tuple) -> bool:
    """Whether the product of ``hot`` (its labels moved up by ``shift``) with ``other``
    (the other factor, its labels as the plan reads them) is a gather or a segment sum:
    :func:`~dgraph.codegen.tensor.dynamic_gathers.onehot_product`'s conditions on the
    einsum's letters (here the plan's roots): ``hot`` whole (not cut), the position i
    contracted and the output's group kept and not read by ``other`` (a gather), or
    the group contracted, i kept and every other kept label ``other``'s (a segment
    sum). ``plan_parts``: :func:`_plan`'s ``find``, ``place``, ``sizes``, ``width`` and
    the product's value roots."""
    find, place, sizes, width, value = plan_parts
    labels = (hot.position + shift, *(k + shift for k in hot.group))
    if sorted(labels) != sorted(k + shift for k in hot.value):
        return False
    for k in labels:  # whole: the einsum's operand not cut
        root, start = place(k)
        if start != 0 or width[root] != sizes[k]:
            return False
    i = find(labels[0])[0]
    group = {find(k)[0] for k in labels[1:]}
    sub = [find(k)[0] for k in other.value]
    if not sub or len(set(sub)) != len(sub) or i in group or len(group) != len(labels) - 1:
        return False
    if i in sub:
        return i not in value and not group & set(sub)
    return i in value and group <= set(sub) and value - {i} <= set(sub)


def split_label(
    block: Labelled, other: Labelled, take: bool
) -> tuple[Labelled, tuple[int, ...]] | None:
    """A one-hot ``block`` (labels ``(position, o)``: a take's, ``take``, whose ``o`` runs
    over its output positions, or a scatter-add's over its updates) against ``other``
    (the factor above a take's, below a scatter-add's) whose axis against ``o`` is a
    reshape's (a triangle's corners (m, 3) against the flat 3m): the block with ``o``
    split alike, C order, so that the labels line up, and the parts' sizes; else None.
    The price (:func:`_split_onehot`) and the generated code
    (:meth:`~dgraph.codegen.tensor.blockops.BlockOps._split_onehot`) split it so."""
    if len(block.value) != 2:
        return None
    position, o = block.value
    mine = block.out_axes if take else block.in_axes
    theirs = other.in_axes if take else other.out_axes
    at = [k for k, axis in enumerate(mine) if axis == ((o,), 0)]
    if len(at) != 1 or theirs[at[0]][1] != 0 or len(theirs[at[0]][0]) < 2:
        return None
    parts = tuple(other.sizes[k] for k in theirs[at[0]][0])
    if math.prod(parts) != block.sizes[o]:
        return None
    new = (o, *range(len(block.sizes), len(block.sizes) + len(parts) - 1))
    sizes = [*block.sizes, *parts[1:]]
    sizes[o] = parts[0]
    axes = tuple((new, 0) if k == at[0] else axis for k, axis in enumerate(mine))
    split = Labelled(
        block.out_shape,
        block.in_shape,
        axes if take else block.out_axes,
        block.in_axes if take else axes,
        tuple(sizes),
        (position, *new),
        block.kind,
    )
    return split, parts


def _split_onehot(upper: Block, lower: Block) -> tuple[Block, Block] | None:
    """A take's :class:`OneHot` below a factor whose axis against the output positions
    is a reshape's, or a scatter-add's above one: the same one-hot with that label split
    alike (:func:`split_label`); else None."""
    for h in (1, 0):
        block, other = (lower, upper) if h else (upper, lower)
        if not isinstance(block, OneHot) or block.take != bool(h) or len(block.group) != 1:
            continue
        if block.value != (block.position, block.group[0]) or not isinstance(other, Labelled):
            continue
        found = split_label(block, other, bool(h))
        if found is None:
            continue
        fields = {f: getattr(found[0], f) for f in _LABELLED_FIELDS}
        split = OneHot(**fields, position=block.position, group=found[0].value[1:], take=block.take)
        return (upper, split) if h else (split, lower)
    return None


def moved_onehot(upper: Block, lower: Block, product: Block | None) -> OneHot | None:
    """``product`` (of ``upper · lower``) as a :class:`OneHot` where it is still one: a
    take's union of a 1-D array (n) times a C-order reshape of its output on the left,
    or a scatter-add's times a reshape of its updates on the right (a move of ones whose
    sources are in order), the product dense, the one-hot laid over the move's axes and
    n (what :meth:`~dgraph.codegen.tensor.blockops.BlockOps._moved_onehot` keeps
    gathering); else None."""
    for take in (True, False):
        hot, move = (lower, upper) if take else (upper, lower)
        if not (isinstance(hot, OneHot) and hot.take == take) or len(hot.group) != 1:
            continue
        n = hot.sizes[hot.position]
        size = hot.sizes[hot.group[0]]
        ends = (hot.in_shape, move.out_shape) if take else (hot.out_shape, move.in_shape)
        if tuple(ends[0]) != (n,) or math.prod(ends[1]) != size or move.kind != ONES:
            continue
        if sorted(hot.value) != sorted((hot.position, *hot.group)):
            continue
        source = move_source(move)
        if source is None or not np.array_equal(source, np.arange(size)):
            continue
        laid = dense(tuple(move.out_shape), (n,)) if take else dense((n,), tuple(move.in_shape))
        if product != laid:
            continue
        last = len(laid.sizes) - 1
        position, group = (last, tuple(range(last))) if take else (0, tuple(range(1, last + 1)))
        fields = {f: getattr(laid, f) for f in _LABELLED_FIELDS}
        return OneHot(**fields, position=position, group=group, take=take)
    return None


def rule_side(upper: Block, lower: Block) -> str | None:
    """Where :func:`multiply` applies an :class:`Applied` factor by its rules: ``"rows"``
    (``lower`` is one: each row of ``upper`` by the cotangent rule), ``"columns"``
    (``upper`` is one: each column of ``lower`` by the tangent rule), or None (the
    entries' product of the dense blocks)."""
    return _applied_product(upper, lower)[0]


def _applied_product(upper: Block, lower: Block) -> tuple[str | None, Product]:
    """The side an :class:`Applied` factor is applied from, and the product's price:
    the rule's where it costs fewer multiplications than the dense product does, that
    product's price counting the dense values it reads (the tangent rule on every
    basis direction of the operand)."""
    built = sum(_values_cost(b) for b in (upper, lower) if isinstance(b, Applied))
    if isinstance(upper, Applied) == isinstance(lower, Applied):
        explicit = multiply(_plain(upper), _plain(lower))
        return None, Product(explicit.cost + built, explicit.product)
    if isinstance(lower, Applied):
        shared, each, _ = lower.costs
        side, cost = "rows", shared + math.prod(upper.out_shape) * each
        pairs = upper.nnz * math.prod(lower.in_shape)  # each entry meets a whole row
    else:
        shared, _, each = upper.costs  # type: ignore[union-attr]
        side, cost = "columns", shared + math.prod(lower.in_shape) * each
        pairs = math.prod(upper.out_shape) * lower.nnz
    if upper.nnz and lower.nnz and cost < built + (0 if free_product(upper, lower) else pairs):
        # the rule's, the explicit product not formed: its pattern, the other factor's
        # rows or columns of the dense block, is as large (10⁸ entries for the GP's
        # Hessian at 120 points, a triangle's rows of cholesky's block: 5 GB)
        return side, Product(cost, dense(upper.out_shape, lower.in_shape))
    explicit = multiply(_plain(upper), _plain(lower))
    explicit = Product(explicit.cost + built, explicit.product)
    if explicit.product is None or cost >= explicit.cost:
        return None, explicit
    return side, Product(cost, dense(upper.out_shape, lower.in_shape))


def diagonal(shape: tuple[int, ...], kind: int = GENERAL) -> Labelled:
    """diag(d) over an array of ``shape`` (an elementwise operation's block).

    >>> diagonal((3, 4)).type_name, diagonal((3, 4)).nnz
    ('diagonal', 12)
    """
    axes = tuple(((k,), 0) for k in range(len(shape)))
    return Labelled(
        tuple(shape), tuple(shape), axes, axes, tuple(shape), tuple(range(len(shape))), kind
    )


def identity(shape: tuple[int, ...], kind: int = ONES) -> Labelled:
    """The identity (``kind`` CONSTANT: a scaled identity, one value).

    >>> identity((5,)).type_name
    'identity'
    """
    axes = tuple(((k,), 0) for k in range(len(shape)))
    return Labelled(tuple(shape), tuple(shape), axes, axes, tuple(shape), (), kind)


def _type_name(b: Labelled) -> str:
    out = {k for labels, _ in b.out_axes for k in labels}
    inn = {k for labels, _ in b.in_axes for k in labels}
    shared, value = out & inn, set(b.value)
    shifted = any(off for _, off in (*b.out_axes, *b.in_axes))
    if not shared:
        if b.kind == ONES and not value and bool(out) != bool(inn):
            return "broadcast" if out else "reduction"  # of or to a scalar: all ones
        return "dense" if value == out | inn else "outer"
    if b.kind == ONES and not value:
        same_axes = b.out_axes == b.in_axes and b.out_shape == b.in_shape
        if same_axes:
            return "identity"
        if out == inn:  # a permutation is square; a slice or a pad from 0 is not
            rows, cols = math.prod(b.out_shape), math.prod(b.in_shape)
            if rows != cols:
                return "selection" if rows < cols else "embedding"
            return "selection" if shifted else "permutation"
        if out < inn:
            return "reduction" if not shifted else "selection"
        if inn < out:
            return "broadcast" if not shifted else "embedding"
        return "selection"
    if value <= shared and out == inn == shared:
        return "diagonal" if value else "scaled identity"
    return "kronecker" if not value & shared else "block diagonal"


# -- products ------------------------------------------------------------------------------


class _Shifts:
    """Labels known equal up to a shift: a union-find where label = root + shift."""

    def __init__(self) -> None:
        self.parent: dict[int, tuple[int, int]] = {}

    def find(self, k: int) -> tuple[int, int]:
        shift = 0
        path = []
        while k in self.parent:
            path.append((k, shift))
            k, s = self.parent[k]
            shift += s
        root = k
        for node, before in path:  # compress: node = root + (shift - before)
            self.parent[node] = (root, shift - before)
        return root, shift

    def union(self, a: int, b: int, s: int) -> bool:
        """Record a = b + s; False where it contradicts what is known."""
        ra, sa = self.find(a)
        rb, sb = self.find(b)
        if ra == rb:
            return sa == sb + s
        self.parent[ra] = (rb, sb + s - sa)
        return True


def multiply(upper: Block, lower: Block) -> Product:
    """``upper · lower`` (upper: w ← v, lower: v ← u) and its scalar multiplications.

    Parameters
    ----------
    upper, lower
        The blocks, ``upper.in_shape == lower.out_shape``.

    Returns
    -------
    Product
        ``cost``: the true scalar multiplications; ``product``: the block, None for a
        product that is zero (selections that pick disjoint parts).

    Raises
    ------
    ValueError
        When the shapes do not meet.

    >>> a, b = diagonal((4,)), diagonal((4,))
    >>> cost, c = multiply(a, b)
    >>> cost, c.type_name
    (4, 'diagonal')
    >>> cost, c = multiply(dense((2,), (4,)), dense((4,), (3,)))
    >>> cost, c.type_name
    (24, 'dense')
    """
    if upper.in_shape != lower.out_shape:
        raise ValueError(f"block product: {upper.in_shape} against {lower.out_shape}")
    if (kind := _run_time(upper, lower)) is not None:  # a sort's run-time permutation
        return kind.product(upper, lower)
    if isinstance(upper, Applied) or isinstance(lower, Applied):
        return _applied_product(upper, lower)[1]
    if isinstance(upper, Labelled) and isinstance(lower, Labelled):
        done = _labelled_product(upper, lower)
        if done is not False:
            laid = moved_onehot(upper, lower, done[1]) if _marked(upper, lower) else None
            return Product(done[0], done[1] if laid is None else laid)  # type: ignore[misc]
    if _marked(upper, lower):  # as the generated code multiplies it (blockops.py)
        found = multiply(_unmarked(upper), _unmarked(lower))
        laid = moved_onehot(upper, lower, found.product)
        if laid is not None:  # a reshape of the positions: still a one-hot
            return Product(found.cost, laid)
        split = _split_onehot(upper, lower)
        if split is not None:  # the labels line up now: a gather or a segment sum
            return multiply(*split)
        parts = split_product(upper, lower)  # a sparse factor's diagonal parts, each
        if parts is not None and parts.cost < found.cost:  # a gather or a segment sum
            return Product(parts.cost, parts.product)
        return found
    structured = _diagonal_product(upper, lower) if _structured(upper, lower) else None
    for rule in STRUCTURED_PRODUCTS if structured is None and _structured(upper, lower) else ():
        structured = rule(upper, lower)  # a convolution's after a convolution's: per axis
        if structured is not None:
            break
    if structured is not None:  # a convolution's block times a diagonal: still that block
        return Product(*structured)
    if upper.nnz <= SMALL and lower.nnz <= SMALL:  # priced again and again by the searches
        return Product(*_small_sparse_product(upper, lower))
    filled = _full_product(upper, lower)
    if filled is not None:
        return Product(*filled)
    found = RECENT.get("product", upper, lower)
    if found is None:
        found = (
            _diagonal_product(upper, lower)
            or _move_product(upper, lower)
            or _split_product(upper, lower)
            or _sparse_product(as_sparse(upper), as_sparse(lower))
        )
        RECENT.put("product", upper, lower, found)
    return Product(*found)


def _split_product(upper: Block, lower: Block) -> tuple[int, Block] | None:
    """A sparse block with diagonal parts times a labelled one, as the parts' labelled
    products summed (:func:`split_product`); else None."""
    split = split_product(upper, lower)
    return None if split is None else (split.cost, split.product)


def split_of(upper: Block, lower: Block, product: Block) -> Any:
    """The :class:`DiagonalSplit` that gave ``product`` as
    ``upper · lower`` (:func:`multiply`), or None where another rule gave it."""
    split = split_product(upper, lower)
    if split is None or not (split.product is product or split.product == product):
        return None
    return split


def _marked(*blocks: Block) -> bool:
    return any(isinstance(b, OneHot) for b in blocks)


def _unmarked(b: Block) -> Block:
    """A :class:`OneHot` as the plain labelled block it is; others as they are."""
    if not isinstance(b, OneHot):
        return b
    return Labelled(*(getattr(b, f) for f in _LABELLED_FIELDS))


def _structured(*blocks: Block) -> bool:
    """Whether one of the blocks is a structured sparse pattern (a subclass of
    :class:`Sparse` holding its pattern implicitly: a convolution's)."""
    return any(type(b) not in (Labelled, OneHot, Sparse) for b in blocks)


def _full_product(upper: Block, lower: Block) -> tuple[int, Labelled] | None:
    """A product whose pattern is every entry, as a dense block (as a sum with a dense
    block is, :func:`add`): a dense factor times one with an entry in every row (upper)
    or column (lower) meeting it, its price every pair that meets (each entry of the
    other factor times a whole row or column); None for any other product. No pattern
    of every entry is formed (a reshape or a gather times a dense block: their
    product's indices, eight bytes an entry, where its values need as many)."""
    if full(lower) and _mostly_covers(upper, "out", math.prod(lower.in_shape)):
        cost, exactly_one = upper.nnz * math.prod(lower.in_shape), upper.nnz == _size(upper, "out")
    elif full(upper) and _mostly_covers(lower, "in", math.prod(upper.out_shape)):
        cost, exactly_one = math.prod(upper.out_shape) * lower.nnz, lower.nnz == _size(lower, "in")
    else:
        return None
    kind = max(upper.kind, lower.kind)
    if kind == ONES and not exactly_one:  # an entry sums several ones
        kind = CONSTANT
    return (0 if free_product(upper, lower) else cost), dense(upper.out_shape, lower.in_shape, kind)


HALF_FULL = 10**6  # a product's entries from which half of every entry is held dense


def _mostly_covers(b: Block, side: str, other: int) -> bool:
    """Whether every row (``side="out"``) or column of ``b`` has an entry, or (the
    product with a dense block then of at least :data:`HALF_FULL` entries, ``other`` the
    dense block's other side) at least half of them: that product is held dense, its
    rows or columns that ``b`` misses zeros (a triangle's rows of cholesky's n²×n²
    block: 10⁸ entries as a pattern, 5 GB of indices, at 120 points)."""
    if _covers(b, side):
        return True
    if not isinstance(b, Sparse) or _size(b, side) * other < 2 * HALF_FULL:
        return False
    hit = np.diff(b.indptr) > 0 if side == "out" else np.bincount(b.cols, minlength=_size(b, side))
    return 2 * int(np.count_nonzero(hit)) >= _size(b, side)


def _size(b: Block, side: str) -> int:
    return math.prod(b.out_shape if side == "out" else b.in_shape)


def _covers(b: Block, side: str) -> bool:
    """Whether every row (``side="out"``) or column (``"in"``) of ``b`` has an entry. A
    labelled block's side reads one place per assignment of its labels there (a side's
    labels read its axes row-major, plus offsets: distinct places)."""
    size = _size(b, side)
    if isinstance(b, Sparse):
        if side == "out":
            return bool(np.all(np.diff(b.indptr) > 0))
        return bool(np.bincount(b.cols, minlength=size).all())
    axes = b.out_axes if side == "out" else b.in_axes
    labels = {k for axis, _ in axes for k in axis}
    return math.prod(b.sizes[k] for k in labels) == size


def _diagonal_product(upper: Block, lower: Block) -> tuple[int, Sparse] | None:
    """A sparse block times a block :func:`on_the_diagonal` (either side): the sparse
    one's pattern, its index arrays shared, one multiplication an entry; None for any
    other product."""
    for one, other in ((lower, upper), (upper, lower)):
        if isinstance(other, Sparse) and on_the_diagonal(one):
            cost = 0 if free_product(upper, lower) else other.nnz
            kind = max(upper.kind, lower.kind)
            if type(other) is not Sparse:  # a structured pattern (a convolution's) stays one
                return cost, other.same_pattern(kind)
            if "_pending" in other.__dict__:  # a union not merged: not merged for this
                return cost, _lazy(
                    other.out_shape, other.in_shape, kind, other.__dict__["_pending"]
                )
            return cost, Sparse(
                other.out_shape, other.in_shape, None, other.cols, kind, indptr=other.indptr
            )
    return None


SMALL = 4096  # entries up to which a sparse product or sum is remembered


def on_the_diagonal(b: Block) -> bool:
    """Whether ``b`` is square with every diagonal entry and no other (an elementwise
    operation's block, a scaling, the identity): a product with it keeps the other
    factor's pattern, entry for entry, its values in C order along the diagonal."""
    if not isinstance(b, Labelled) or b.out_shape != b.in_shape or b.out_axes != b.in_axes:
        return False
    labels = [k for axis, _ in b.out_axes for k in axis]
    return (
        all(len(axis) == 1 and off == 0 for axis, off in b.out_axes)
        and len(set(labels)) == len(labels)
        and all(b.sizes[k] == n for k, n in zip(labels, b.out_shape, strict=True))
        and set(b.value) in (set(), set(labels))
    )


class _Recent:
    """The last few large products and sums, by the identity of their operands (held
    weakly: an entry goes with either operand), at most ``size`` of them and ``budget``
    pattern entries in all. Pricing an expression set replays the products and sums its
    elimination just made, on the same block objects (a graph keeps its edges' blocks,
    and each hit returns the very block it returned before, so a chain of them hits all
    along); hashing a 10⁶-entry pattern to look it up by equality would cost about what
    a sum does.

    Beside them, what one elimination formed may be kept whole (:meth:`recorded`,
    :meth:`pin`: its operands and results held, not weakly, whatever their size), so
    that the code generated for the expression set pricing chose forms none of its
    products and sums again (the minimal surface at 10⁶ unknowns: 35 products and 17
    sums of up to 7·10⁶ entries, some 0.9 GB of patterns, which the elimination itself
    lets go step by step); they go with :meth:`clear`."""

    def __init__(self, size: int, budget: int) -> None:
        self.size, self.budget, self.held = size, budget, 0
        self.entries: OrderedDict[tuple[str, int, int], tuple] = OrderedDict()
        self.recording: list[tuple[tuple, tuple]] | None = None
        self.pinned: dict[tuple, tuple] = {}
        self.handing_over = False  # a pinned entry found goes to the recent ones

    def get(self, op: str, a: object, b: object) -> object | None:
        key = (op, _identity(a), _identity(b))
        kept = self.pinned.get(key)
        if kept is not None and kept[0] is _held(a) and kept[1] is _held(b):
            self._record(key, a, b, kept[2])
            if self.handing_over:
                del self.pinned[key]
                self.put(op, a, b, kept[2])
            return kept[2]
        entry = self.entries.get(key)
        if entry is None or entry[0]() is not _held(a) or entry[1]() is not _held(b):
            return None
        with contextlib.suppress(KeyError):  # its operand collected meanwhile: still right
            self.entries.move_to_end(key)
        self._record(key, a, b, entry[2])
        return entry[2]

    @contextlib.contextmanager
    def recorded(self) -> Iterator[list[tuple[tuple, tuple]]]:
        """Within this block every product and sum formed or found here is listed (its
        key, operands and result, held), for :meth:`pin`."""
        formed: list[tuple[tuple, tuple]] = []
        self.recording = formed
        try:
            yield formed
        finally:
            self.recording = None

    def pin(self, formed: list[tuple[tuple, tuple]]) -> None:
        """Keep these (:meth:`recorded`) until :meth:`clear`, in place of any kept before."""
        self.pinned = dict(formed)
        self.handing_over = False

    def hand_over(self) -> None:
        """From now on each pinned entry, once found, is one of the recent ones (its
        operands held weakly, within the budget): the code generator's walk, which
        finds each of them in turn, lets each go after its use."""
        self.handing_over = True

    def _record(self, key: tuple, a: object, b: object, result: object) -> None:
        if self.recording is not None:
            self.recording.append((key, (_held(a), _held(b), result)))

    def put(self, op: str, a: object, b: object, result: object) -> None:
        self._record((op, _identity(a), _identity(b)), a, b, result)
        block = result[1] if isinstance(result, tuple) else result
        weight = block.nnz if isinstance(block, Sparse) else 0
        if weight > self.budget:
            return
        key = (op, _identity(a), _identity(b))
        self._drop(key)
        gone = functools.partial(self._gone, key)
        refs = [_Ref(x) if isinstance(x, Labelled) else weakref.ref(x, gone) for x in (a, b)]
        self.entries[key] = (refs[0], refs[1], result, weight)
        self.held += weight
        while len(self.entries) > self.size or self.held > self.budget:
            self._drop(next(iter(self.entries)))

    def _gone(self, key: tuple[str, int, int], ref: weakref.ref) -> None:
        entry = self.entries.get(key)
        if entry is not None and (entry[0] is ref or entry[1] is ref):  # not a newer one
            self._drop(key)

    def _drop(self, key: tuple[str, int, int]) -> None:
        entry = self.entries.pop(key, None)
        if entry is not None:
            self.held -= entry[3]

    def clear(self) -> None:
        """Forget every entry, pinned ones too (their results' memory goes with them)."""
        self.entries.clear()
        self.pinned = {}
        self.handing_over = False
        self.held = 0


def _identity(block: object) -> object:
    """A labelled block by its value (a few integers, equal ones made again and again by
    the code generator), a sparse one by its identity."""
    return block if isinstance(block, Labelled) else id(block)


def _held(block: object) -> object:
    return None if isinstance(block, Labelled) else block


class _Ref:
    """A labelled operand's place in an entry: nothing to watch (it is part of the key)."""

    def __init__(self, block: Labelled) -> None:
        del block

    def __call__(self) -> None:
        return None


RECENT = _Recent(32, 2**26)  # at most 32 results, 2²⁶ entries (some 0.6 GB of indices)


@functools.lru_cache(maxsize=16384)
def _small_sparse_product(upper: Block, lower: Block) -> tuple[int, Sparse | None]:
    return _sparse_product(as_sparse(upper), as_sparse(lower))


@dataclass(frozen=True)
class _Plan:
    """How two labelled blocks multiply: the product, its price, and for each factor's
    value axes the product's label (a root) and where its range starts."""

    cost: int
    product: Labelled
    axes_a: list[tuple[int, int]]
    axes_b: list[tuple[int, int]]
    width: dict[int, int]
    out_roots: list[int]  # the product's value axes, as roots, in its order
    scale: int  # sums of ones along labels neither value varies along


def _labelled_product(a: Labelled, b: Labelled) -> tuple[int, Labelled | None] | bool:
    """The labelled product, or False where the axes' labels do not line up (reshaped
    axes split differently, or a shifted axis against a reshaped one)."""
    plan = _plan(a, b)
    if plan is None or plan is False:
        return plan if plan is False else (0, None)
    return plan.cost, plan.product


@functools.lru_cache(maxsize=65536)
def _plan(a: Labelled, b: Labelled) -> _Plan | bool | None:
    """:func:`_labelled_product` with the value plan; None for a zero product."""
    n = len(a.sizes)
    given = b
    b = _relabel(b, n)
    sizes = dict(enumerate(a.sizes))
    sizes.update({n + k: size for k, size in enumerate(b.sizes)})
    shifts = _Shifts()
    for (la, oa), (lb, ob) in zip(a.in_axes, b.out_axes, strict=True):
        if len(la) == 1 and len(lb) == 1:
            if not shifts.union(lb[0], la[0], oa - ob):
                return None
        elif oa == ob == 0 and [sizes[k] for k in la] == [sizes[k] for k in lb]:
            for x, y in zip(la, lb, strict=True):
                if not shifts.union(y, x, 0):
                    return None
        else:
            return False
    # each class's range: the intersection of its members' ranges, read at the root
    lo: dict[int, int] = {}
    hi: dict[int, int] = {}
    for k, size in sizes.items():
        root, shift = shifts.find(k)
        lo[root] = max(lo.get(root, -(10**18)), -shift)
        hi[root] = min(hi.get(root, 10**18), size - shift)
    if any(hi[r] <= lo[r] for r in lo):
        return None
    width = {r: hi[r] - lo[r] for r in lo}

    def place(k: int) -> tuple[int, int]:
        root, shift = shifts.find(k)
        return root, lo[root] + shift  # k = root' + (lo + shift), root' from 0

    def axes(side: tuple[Axis, ...]) -> tuple[Axis, ...] | None:
        out = []
        for labels, off in side:
            placed = [place(k) for k in labels]
            if len(placed) == 1:
                out.append(((placed[0][0],), off + placed[0][1]))
            elif all(
                s == 0 and sizes[k] == width[r] for k, (r, s) in zip(labels, placed, strict=True)
            ):
                out.append((tuple(r for r, _ in placed), off))
            else:
                return None
        return tuple(out)

    out_axes, in_axes = axes(a.out_axes), axes(b.in_axes)
    if out_axes is None or in_axes is None:
        return False
    kept = {k for labels, _ in (*out_axes, *in_axes) for k in labels}
    val_a = {shifts.find(k)[0] for k in a.value}
    val_b = {shifts.find(k)[0] for k in b.value}
    mid = {shifts.find(k)[0] for labels, _ in a.in_axes for k in labels}
    summed = mid - kept
    value = (val_a | val_b) - summed
    kind = max(a.kind, b.kind)
    ones_summed = summed - val_a - val_b
    if ones_summed and kind == ONES:
        kind = CONSTANT  # a sum of ones along a label neither value varies along
    cost = 0 if free_product(a, b) else math.prod(width[r] for r in val_a | val_b)
    if cost and (isinstance(a, OneHot) or isinstance(given, OneHot)):
        parts = (shifts.find, place, sizes, width, value)
        if (isinstance(a, OneHot) and _gathers(a, 0, b, parts)) or (
            isinstance(given, OneHot) and _gathers(given, n, a, parts)
        ):
            cost = 0  # a gather or a segment sum: no multiplication
    roots = sorted(kept | value)
    index = {r: i for i, r in enumerate(roots)}
    product = Labelled(
        a.out_shape,
        b.in_shape,
        tuple((tuple(index[k] for k in labels), off) for labels, off in out_axes),
        tuple((tuple(index[k] for k in labels), off) for labels, off in in_axes),
        tuple(width[r] for r in roots),
        tuple(sorted(index[r] for r in value)),
        kind,
    )
    order = first_appearance(product)
    canonical = product.canonical()
    by_new = {order[index[r]]: r for r in value}
    return _Plan(
        cost,
        canonical,
        [place(k) for k in a.value],
        [place(k) for k in b.value],
        width,
        [by_new[c] for c in canonical.value],
        math.prod(width[r] for r in ones_summed),
    )


def free_product(a: Block, b: Block) -> bool:
    """A product that costs nothing at run time: a factor of ones (a move, a broadcast, a
    sum), or two constants (folded when the code is made)."""
    return a.kind == ONES or b.kind == ONES or max(a.kind, b.kind) == CONSTANT


def first_appearance(b: Labelled) -> dict[int, int]:
    """Labels renumbered in order of first appearance (out axes, in axes, value)."""
    order: dict[int, int] = {}
    for labels, _ in (*b.out_axes, *b.in_axes):
        for k in labels:
            order.setdefault(k, len(order))
    for k in b.value:
        order.setdefault(k, len(order))
    return order


def _relabel(b: Labelled, n: int) -> Labelled:
    """``b`` with every label moved up by ``n`` (its ``sizes`` still indexed from 0)."""
    return Labelled(
        b.out_shape,
        b.in_shape,
        tuple((tuple(k + n for k in labels), off) for labels, off in b.out_axes),
        tuple((tuple(k + n for k in labels), off) for labels, off in b.in_axes),
        b.sizes,
        tuple(k + n for k in b.value),
        b.kind,
    )


DENSE_PAIRS_FROM = 10**7
"""Pairs of entries meeting in a product of sparse blocks from which it may be done as a
product of dense matrices (:func:`dense_pays`): a sparse product's work and memory grow
with the pairs (the Hessian of ``sum(cumsum(x)**2)`` at 2,000 unknowns pairs 1.3·10⁹
entries: 44 s of scipy's sparse products for its patterns, and 24 GB for its code's
pairs), a dense one's with the matrices, multiplied by BLAS."""
DENSE_WORK = 64  # the most dense multiplications per pair for the dense product


def dense_pays(m: int, k: int, n: int, pairs: int) -> bool:
    """Whether an (m × k)·(k × n) product in which ``pairs`` pairs of entries meet is done
    as dense matrices: from :data:`DENSE_PAIRS_FROM` pairs, where the dense product does
    at most :data:`DENSE_WORK` multiplications a pair and no matrix of it (the factors,
    the product) holds more entries than there are pairs."""
    largest = max(m * k, k * n, m * n)
    return pairs >= DENSE_PAIRS_FROM and m * k * n <= DENSE_WORK * pairs and largest <= pairs


def _sparse_product(a: Sparse, b: Sparse) -> tuple[int, Sparse | None]:
    """The product's pattern from the two patterns (scipy's sparse product of 0/1
    matrices counts, per entry, the pairs that meet; a dense product of them where
    :func:`dense_pays`); its price is the pairs in all, Σ_k nnz(A[:, k]) · nnz(B[k, :]),
    from the column counts of A and the row counts of B."""
    inner = math.prod(a.in_shape)
    pairs = int(np.bincount(a.cols, minlength=inner) @ np.diff(b.indptr))
    cost = 0 if free_product(a, b) else pairs
    kind = max(a.kind, b.kind)
    counts = kind == ONES  # only ones need the count: two pairs that meet sum to a constant
    m, n = math.prod(a.out_shape), math.prod(b.in_shape)
    if dense_pays(m, inner, n, pairs):
        c = _dense_pattern_product(a, b, counts)
    else:
        c = _pattern_matrix(a, counts) @ _pattern_matrix(b, counts)
    if c.nnz == 0:
        return cost, None
    if counts and c.data.max() > 1:
        kind = CONSTANT
    c.sort_indices()  # within each row: the product's rows come out in order already
    return cost, _from_csr(a.out_shape, b.in_shape, c.indptr, c.indices, kind)


class _Move(NamedTuple):
    """A block of ones with at most one entry per row and per column (a slice, a pad, a
    shift, a permutation, a selection): ``source[r]`` the column of row r's entry, -1
    where it has none, and whether the entries keep their order (the columns increase
    with the rows)."""

    source: np.ndarray
    monotone: bool


def _move(b: Block) -> _Move | None:
    """``b`` as a :class:`_Move`, None where it is not one (values other than ones, a row
    or a column with two entries)."""
    if b.kind != ONES or (isinstance(b, Labelled) and b.value):
        return None
    if isinstance(b, Labelled):
        return _labelled_move(b)
    if type(b) is not Sparse:  # a structured pattern (a convolution's): its own products
        return None
    return _sparse_move(b)


def move_source(b: Block) -> np.ndarray | None:
    """Where ``b`` is a move (ones, at most one entry per row and per column: a slice, a
    pad, a reshape, a transpose, a selection): each row's column, -1 where it has none
    (read-only); else None."""
    found = _move(b)
    return None if found is None else found.source


@functools.lru_cache(maxsize=16)  # two index arrays each: forgotten with the blocks
def _labelled_move(b: Labelled) -> _Move | None:
    rows, cols, _ = pattern(b)
    m, n = math.prod(b.out_shape), math.prod(b.in_shape)
    source = np.full(m, -1, dtype=np.int64)
    source[rows] = cols
    if np.count_nonzero(source >= 0) != rows.size:  # a row with two entries
        return None
    return _move_of(source, n)


def _sparse_move(b: Sparse) -> _Move | None:
    counts = np.diff(b.indptr)
    if counts.size and counts.max(initial=0) > 1:
        return None
    source = np.full(counts.size, -1, dtype=np.int64)
    source[counts > 0] = b.cols
    return _move_of(source, math.prod(b.in_shape))


def _move_of(source: np.ndarray, n: int) -> _Move | None:
    """The move of ``source`` (each row's column or -1) over ``n`` columns; None where a
    column has two entries."""
    has = source >= 0
    cols = source[has]
    monotone = bool(cols.size < 2 or (cols[1:] > cols[:-1]).all())  # then each column once
    if not monotone and np.bincount(cols, minlength=n).max() > 1:
        return None
    source.flags.writeable = False
    return _Move(source, monotone)


def _move_product(upper: Block, lower: Block) -> tuple[int, Sparse | None] | None:
    """A product with a move (:class:`_Move`) on either side, as :func:`_sparse_product`
    gives it (the same canonical pattern and kind; no multiplication, each entry one pair
    of a one and the other factor's entry) without a product of patterns: a move on the
    left takes the other factor's rows, one on the right renames its columns. None for
    any other product."""
    kind = max(upper.kind, lower.kind)
    if type(lower) is Sparse and (move := _move(upper)) is not None:
        if "_pending" in lower.__dict__ and _identity_move(move, lower):  # not merged for it
            pending = lower.__dict__["_pending"]
            return 0, _lazy(tuple(upper.out_shape), lower.in_shape, kind, pending)
        return 0, _rows_taken(lower, move.source, upper.out_shape, kind)
    if type(upper) is Sparse and (move := _move(lower)) is not None:
        return 0, _columns_renamed(upper, move, lower.in_shape, kind)
    return None


def _identity_move(move: _Move, b: Block) -> bool:
    """Whether the move takes every row of ``b`` in place."""
    source = move.source
    m = math.prod(b.out_shape)
    return bool(
        move.monotone
        and source.size == m
        and (m == 0 or (source[0] == 0 and source[-1] == m - 1))
        and np.count_nonzero(source >= 0) == m
    )


def _rows_taken(b: Sparse, source: np.ndarray, out_shape, kind: int) -> Sparse | None:
    """Row r of the result is ``b``'s row ``source[r]`` (empty where -1): each row's
    length one gather of b's row lengths, a zero appended for -1 to read (no mask, the
    picked rows taken apart only where some row has no source)."""
    lengths_of = np.empty(b.indptr.size, dtype=np.int64)  # b's row lengths, then 0
    np.subtract(b.indptr[1:], b.indptr[:-1], out=lengths_of[:-1])
    lengths_of[-1] = 0
    indptr = np.zeros(source.size + 1, dtype=np.int64)
    np.cumsum(lengths_of[source], out=indptr[1:])
    total = int(indptr[-1])
    if total == 0:
        return None
    has = source >= 0
    every_row = bool(np.count_nonzero(has) == has.size)
    picked = source if every_row else source[has]
    in_order = bool(picked.size and (picked[1:] > picked[:-1]).all())
    if in_order and total == b.nnz:
        cols = b.cols  # every entry, rows in order: the same columns
    elif in_order and picked[-1] - picked[0] + 1 == picked.size:  # a run of rows
        cols = b.cols[b.indptr[picked[0]] : b.indptr[picked[-1] + 1]]
    elif in_order:  # rows in order: their entries, by a mask of the entries
        kept = np.zeros(b.indptr.size - 1, dtype=bool)
        kept[picked] = True
        cols = b.cols[np.repeat(kept, np.diff(b.indptr))]
    else:
        starts = b.indptr[picked]
        lengths = b.indptr[picked + 1] - starts
        first = indptr[:-1][has]
        cols = b.cols[np.repeat(starts - first, lengths) + np.arange(total)]
    return _from_csr(out_shape, b.in_shape, indptr, cols, kind)


def _columns_renamed(b: Sparse, move: _Move, in_shape, kind: int) -> Sparse | None:
    """Column j of ``b`` becomes the move's ``source[j]`` (dropped where -1)."""
    cols = move.source[b.cols]
    keep = cols >= 0
    indptr = b.indptr
    if not keep.all():
        dropped = np.flatnonzero(~keep)  # a few entries of many, as a rule
        cols = cols[keep]
        # less those dropped before each row's start: each dropped entry counted from
        # the first row starting after it (a search of the few dropped, not of every row)
        after = np.searchsorted(indptr, dropped, side="right")
        indptr = indptr - np.cumsum(np.bincount(after, minlength=indptr.size))
    if cols.size == 0:
        return None
    if not move.monotone:  # each row's columns sorted again
        import scipy.sparse

        m = scipy.sparse.csr_array(
            (np.ones(cols.size, dtype=bool), cols, indptr),
            shape=(math.prod(b.out_shape), math.prod(in_shape)),
        )
        m.sort_indices()
        indptr, cols = m.indptr, m.indices
    return _from_csr(b.out_shape, in_shape, indptr, cols, kind)


def _pattern_matrix(s: Sparse, counts: bool = False, flag: int | None = None):
    """The pattern as a scipy CSR matrix of ones: booleans (a product or a sum of them is
    the pattern, one byte an entry), or int32 where a product's entries must count the
    pairs that meet (at most the inner size); with ``flag``, that number in int8 (a sum
    of two flagged 1 and 2 tells which summand each entry holds)."""
    import scipy.sparse  # here: importing dgraph stays light

    shape = (math.prod(s.out_shape), math.prod(s.in_shape))
    if flag is not None:
        ones = np.full(s.nnz, flag, dtype=np.int8)
    else:
        ones = np.ones(s.nnz, dtype=np.int32 if counts else bool)
    m = scipy.sparse.csr_array((ones, s.cols, s.indptr), shape=shape)
    m.has_canonical_format = True  # sorted and distinct within each row (the invariant)
    return m


def _dense_pattern_product(a: Sparse, b: Sparse, counts: bool):
    """The product of the two patterns (:func:`_pattern_matrix`'s) through dense matrices
    of ones, multiplied by BLAS: each entry counts the pairs that meet, exactly (float64:
    integers up to 2⁵³), returned as a canonical CSR matrix (int32 counts, or booleans)."""
    import scipy.sparse

    left = _pattern_matrix(a).toarray().astype(np.float64)
    right = _pattern_matrix(b).toarray().astype(np.float64)
    found = left @ right
    del left, right
    c = scipy.sparse.csr_array(found.astype(np.int32) if counts else found != 0)
    c.has_canonical_format = True
    return c


def _from_csr(out_shape, in_shape, indptr: np.ndarray, cols: np.ndarray, kind: int) -> Sparse:
    """A :class:`Sparse` block of a canonical CSR pattern (each row's columns sorted and
    distinct): its rows made only when asked for."""
    return Sparse(out_shape, in_shape, None, cols, kind, indptr=indptr)


def sparse(out_shape, in_shape, rows, cols, kind: int = GENERAL) -> Sparse:
    """A :class:`Sparse` block of these entries (flat indices), each once: sorted into row
    order where they are not in it already (checked in one pass)."""
    width = max(1, math.prod(in_shape))
    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    keys = rows * width + cols
    if keys.size > 1 and not (keys[1:] > keys[:-1]).all():
        order = np.argsort(keys, kind="stable")  # a merge of the sorted runs there are
        rows, cols = rows[order], cols[order]
    return Sparse(
        tuple(out_shape),
        tuple(in_shape),
        np.ascontiguousarray(rows),
        np.ascontiguousarray(cols),
        kind,
    )


# -- sums ----------------------------------------------------------------------------------


def add(a: Block, b: Block) -> Block:
    """``a + b``: the same labelled structure keeps it (the values along the labels
    either varies along); different structures give the union of their patterns.

    >>> add(diagonal((3,)), identity((3,))).type_name
    'diagonal'
    >>> add(diagonal((3,)), dense((3,), (3,))).type_name  # no pattern of every entry
    'dense'
    """
    if a.out_shape != b.out_shape or a.in_shape != b.in_shape:
        raise ValueError("block sum: shapes differ")
    if (kind := _run_time(a, b)) is not None:  # the same permutation, else the unions
        return kind.summed(a, b) or add(_fixed(a), _fixed(b))
    a, b = _plain(a), _plain(b)
    if a.nnz <= SMALL and b.nnz <= SMALL:
        return _small_add(a, b)
    if id(b) < id(a):  # a sum's pattern and kind do not depend on the order
        a, b = b, a
    found = RECENT.get("sum", a, b)
    if found is None:
        found = _add(a, b)
        RECENT.put("sum", a, b, found)
    return found  # type: ignore[return-value]


@functools.lru_cache(maxsize=16384)
def _small_add(a: Block, b: Block) -> Block:
    return _add(a, b)


def remembered_sum(a: Block, b: Block) -> Block | None:
    """The sum of two large blocks :func:`add` remembers (:data:`RECENT`); None if none."""
    return RECENT.get("sum", *sorted((a, b), key=id))


def merge_flags(a: Block, b: Block, total: Block) -> tuple[np.ndarray, bool] | None:
    """The flags of the merge that made ``total`` as ``a + b`` (:class:`_Flags`) and
    whether it merged them as ``b + a`` (a's entries flagged 2); None where there was
    no such merge, or it is forgotten."""
    return FLAGS.of(a, b, total)


def remember_sum(a: Block, b: Block, total: Block) -> None:
    """Remember ``total`` as ``a + b`` for :func:`add` (a sum formed elsewhere: the code
    generator's merge of the two patterns, which also places each summand's entries)."""
    RECENT.put("sum", *sorted((a, b), key=id), total)


_SCOPES = [0]  # calls inside scoped() now: the outermost one forgets on its way out
FORGETS: list[Callable[[], None]] = []  # other modules' caches, forgotten with these
# products of structured patterns another module knows (upper, lower) -> (cost, block) or None
STRUCTURED_PRODUCTS: list[Callable[[Any, Any], Any]] = []


def forget() -> None:
    """Forget the products, sums and plans block arithmetic remembers (:data:`RECENT`
    and the small ones' caches: up to some 10⁸ pattern entries in all), and the caches
    other modules put in :data:`FORGETS`."""
    RECENT.clear()
    PARTS.clear()
    FLAGS.clear()
    for cached in (_small_sparse_product, _small_add, _plan, _labelled_move, pattern):
        cached.cache_clear()
    for clear in FORGETS:
        clear()


@contextlib.contextmanager
def scoped(*also: Callable[[], None]) -> Iterator[None]:
    """Within one call (a search's pricing, then its code, share them) blocks are
    remembered; when the outermost ``scoped`` call returns they are forgotten
    (:func:`forget`), with whatever each of ``also`` forgets, so that no call's caches
    outlive it. Meanwhile large freed buffers stay in the process's heap for the next
    ones (:mod:`dgraph.blocks.heap`), returned when it ends."""
    if not _SCOPES[0]:
        heap.keep()
    _SCOPES[0] += 1
    try:
        yield
    finally:
        _SCOPES[0] -= 1
        if not _SCOPES[0]:
            try:
                forget()
                for clear in also:
                    clear()
            finally:
                heap.release()


def in_scope() -> bool:
    """Whether a :func:`scoped` call is under way (what is remembered then is forgotten
    when it returns)."""
    return _SCOPES[0] > 0


def same_structure(a: Block, b: Block) -> bool:
    """Whether two labelled blocks read their axes by the same labels (their sum keeps
    that structure; only the labels the values vary along may differ)."""
    if not (isinstance(a, Labelled) and isinstance(b, Labelled)):
        return False
    ca, cb = a.canonical(), b.canonical()
    return (ca.out_axes, ca.in_axes, ca.sizes) == (cb.out_axes, cb.in_axes, cb.sizes)


def full(b: Block) -> bool:
    """Whether every entry of the block may be nonzero (a dense pattern)."""
    return b.nnz == math.prod(b.out_shape) * math.prod(b.in_shape)


def _add(a: Block, b: Block) -> Block:
    if not same_structure(a, b) and (full(a) or full(b)):  # no pattern of every entry
        return dense(a.out_shape, a.in_shape, max(a.kind, b.kind, CONSTANT))
    pending = _pending_sum(a, b)
    if pending is not None:
        return pending
    if isinstance(a, Labelled) and isinstance(b, Labelled):
        ca, cb = a.canonical(), b.canonical()
        if (ca.out_axes, ca.in_axes, ca.sizes) == (cb.out_axes, cb.in_axes, cb.sizes):
            kind = max(ca.kind, cb.kind, CONSTANT)
            return Labelled(
                ca.out_shape,
                ca.in_shape,
                ca.out_axes,
                ca.in_axes,
                ca.sizes,
                tuple(sorted(set(ca.value) | set(cb.value))),
                kind,
            )
    sa, sb = as_sparse(a), as_sparse(b)
    kind = max(a.kind, b.kind, CONSTANT)
    if sa is sb:
        return _with_kind(sa, kind)
    held = PARTS.holding(a, sa, b, sb)  # one summand's pattern known to hold the other's
    if held is not None:
        return _with_kind(held, kind)
    # a merge of each row's sorted columns, a's entries flagged 1 and b's 2 (the same
    # pattern as a merge of booleans, at the same price)
    union = _pattern_matrix(sa, False, 1) + _pattern_matrix(sb, False, 2)
    total = _from_csr(a.out_shape, a.in_shape, union.indptr, union.indices, kind)
    if in_scope():  # forgotten with the call's other blocks (:func:`scoped`)
        PARTS.union(total, (a, sa), (b, sb))
        FLAGS.keep(a, b, total, union.data)
    return total


PENDING_SHARE = 4  # a term of at most 1/4 of the other summand's entries is added pending


class _Pending:
    """A union of patterns not merged yet: a merged ``base`` (:class:`Sparse`) and the
    entries the later, smaller terms added, as sorted flat keys (row · width + column)
    in levels of falling size (each level at least twice the next: a binary counter),
    each key in no other level nor in the base. A term is looked up in the base and the
    levels (its new entries, and so the union's count, known without a merge) and
    becomes a level; equal-sized levels merge, and levels holding more than the base
    merge into a new base. A band that grows by a term per eliminated vertex (a
    Hessian's, K terms into 2K - 1 diagonals) costs O(K n log K) so, not O(K² n): the
    log-structured merge of P. O'Neil et al., "The log-structured merge-tree", Acta
    Informatica 33 (1996) 351–385. The arrays are merged when first read."""

    def __init__(self, base: Sparse, levels: tuple[np.ndarray, ...], nnz: int) -> None:
        self.base, self.levels, self.nnz = base, levels, nnz
        self._settled: tuple[np.ndarray, np.ndarray] | None = None

    @staticmethod
    def width(b: Block) -> int:
        return max(1, math.prod(b.in_shape))

    def keys(self) -> np.ndarray:
        """The base's sorted flat keys (made once per base)."""
        return _flat_keys(self.base)

    def added(self, term: Sparse) -> _Pending | None:
        """With ``term``'s entries; None where it adds none."""
        width = self.width(term)
        new = term.rows * width + term.cols  # sorted: row-major
        for known in (self.keys(), *self.levels):
            if not new.size:
                break
            if not known.size:
                continue
            at = np.searchsorted(known, new)
            np.minimum(at, known.size - 1, out=at)
            new = new[known[at] != new]
        if not new.size:
            return None
        levels = [*self.levels, new]
        while len(levels) > 1 and levels[-2].size <= 2 * levels[-1].size:
            last = levels.pop()
            levels[-1] = _sorted_union(levels[-1], last)
        nnz = self.nnz + int(new.size)
        if sum(level.size for level in levels) > self.base.nnz:  # a new base
            indptr, cols = _Pending(self.base, tuple(levels), nnz).settled()
            base = _from_csr(self.base.out_shape, self.base.in_shape, indptr, cols, GENERAL)
            return _Pending(base, (), nnz)
        return _Pending(self.base, tuple(levels), nnz)

    def settled(self) -> tuple[np.ndarray, np.ndarray]:
        """The union's row pointer and columns (merged once, then kept)."""
        if self._settled is None:
            base = self.base
            if not self.levels:
                self._settled = (base.indptr, base.cols)
            else:
                keys = _sorted_union(self.keys(), *self.levels)
                width = self.width(base)
                rows, cols = np.divmod(keys, width)
                m = math.prod(base.out_shape)
                indptr = np.zeros(m + 1, dtype=np.int64)
                np.cumsum(np.bincount(rows, minlength=m), out=indptr[1:])
                self._settled = (indptr, cols)
        return self._settled


def _sorted_union(*keys: np.ndarray) -> np.ndarray:
    """Sorted flat keys, disjoint, as one sorted array."""
    return np.sort(np.concatenate(keys))


_BASE_KEYS: OrderedDict[int, tuple[weakref.ref, np.ndarray]] = OrderedDict()


def _flat_keys(b: Sparse) -> np.ndarray:
    """``b``'s entries as sorted flat keys, kept for the last few patterns (by the
    identity of their column array, held weakly)."""
    cols = b.cols
    found = _BASE_KEYS.get(id(cols))
    if found is not None and found[0]() is cols:
        _BASE_KEYS.move_to_end(id(cols))
        return found[1]
    keys = b.rows * _Pending.width(b) + cols
    _BASE_KEYS[id(cols)] = (weakref.ref(cols), keys)
    while len(_BASE_KEYS) > 4:
        _BASE_KEYS.popitem(last=False)
    return keys


def shares_pattern(a: Block, b: Block) -> bool:
    """Whether two sparse blocks of one shape hold one pattern object: the same arrays,
    or the same pending union (none merged to tell)."""
    if a is b:
        return True
    if type(a) is not Sparse or type(b) is not Sparse:
        return False
    if (a.out_shape, a.in_shape) != (b.out_shape, b.in_shape):
        return False
    pa, pb = a.__dict__.get("_pending"), b.__dict__.get("_pending")
    if pa is not None or pb is not None:
        return pa is pb
    return a.cols is b.cols and a.indptr is b.indptr


def _lazy(out_shape, in_shape, kind: int, pending: _Pending) -> Sparse:
    """A :class:`Sparse` block whose pattern is ``pending``'s union, merged when read."""
    block = Sparse.__new__(Sparse)
    block.__dict__.update(out_shape=out_shape, in_shape=in_shape, kind=kind, _pending=pending)
    return block


def _pending_sum(a: Block, b: Block) -> Sparse | None:
    """``a + b`` as a pending union (:class:`_Pending`) where one summand is sparse and
    the other holds at most 1/:data:`PENDING_SHARE` of its entries; else None."""
    if b.nnz > a.nnz:
        a, b = b, a
    if type(a) is not Sparse or isinstance(b, RunTime) or b.nnz * PENDING_SHARE > a.nnz:
        return None
    kind = max(a.kind, b.kind, CONSTANT)
    pending = a.__dict__.get("_pending") or _Pending(a, (), a.nnz)
    grown = pending.added(as_sparse(b))
    if grown is None:
        return _with_kind(a, kind)
    return _lazy(a.out_shape, a.in_shape, kind, grown)


class _Flags:
    """Each merged sum's flags (:func:`_add`: per entry of the union, 1 where it holds
    one of the first summand's entries, 2 the second's, 3 both; one byte an entry), by
    the summands (a labelled one by its value, a sparse one by its identity, held
    weakly, as :class:`_Recent` keys them) and the sum (held weakly): the code generator
    places each summand's values in the sum by them where the sum is the one pricing
    formed (:meth:`_Recent.pin`), and merges no pattern again."""

    def __init__(self) -> None:
        self.flags: dict[tuple[object, object], tuple] = {}

    def keep(self, a: Block, b: Block, total: Sparse, flags: np.ndarray) -> None:
        key = (_identity(a), _identity(b))
        gone = functools.partial(self._gone, key)
        refs = tuple(None if isinstance(x, Labelled) else weakref.ref(x, gone) for x in (a, b))
        self.flags[key] = (*refs, weakref.ref(total, gone), flags)

    def of(self, a: Block, b: Block, total: Block) -> tuple[np.ndarray, bool] | None:
        """The flags of ``a + b`` where it was merged into ``total`` (and whether a's
        entries are flagged 2: the sum was merged as ``b + a``); else None."""
        for first, second, swapped in ((a, b, False), (b, a, True)):
            entry = self.flags.get((_identity(first), _identity(second)))
            if entry is None or entry[2]() is not total:
                continue
            pairs = zip(entry[:2], (first, second), strict=True)
            if all(ref is None or ref() is x for ref, x in pairs):
                return entry[3], swapped
        return None

    def _gone(self, key: tuple[object, object], ref: weakref.ref) -> None:
        entry = self.flags.get(key)
        if entry is not None and any(ref is mine for mine in entry[:3]):  # not a newer one's
            del self.flags[key]

    def clear(self) -> None:
        self.flags.clear()


FLAGS = _Flags()


class _Parts:
    """The patterns each union (:func:`_add`) is known to hold: its summands', and what
    each of them held, so that a sum whose one summand holds the other is that summand's
    pattern at once, with no merge (the minimal surface at 10⁶ unknowns: 12 of 39 sums
    its pricing forms, a stencil's block times a diagonal added to the part it came
    from). A sparse pattern is known by the identity of its arrays (shared by the blocks
    of one pattern: :func:`_with_kind`, a product with a diagonal), held weakly and
    checked on every look-up, so that an array collected and its ``id`` reused is never
    taken for it; a labelled one by its canonical labels (its pattern, whatever its
    values). Only what was merged is recorded (within a :func:`scoped` call, forgotten
    when it returns): never a guess, a hash or a comparison."""

    def __init__(self) -> None:
        self.held: dict[object, set[object]] = {}  # a union's key -> keys of its parts
        self.alive: dict[object, tuple[weakref.ref, weakref.ref]] = {}  # a sparse key's arrays

    def key(self, block: Block, pattern: Sparse) -> object:
        """``block``'s pattern key: its canonical labels, or its arrays' identities."""
        if isinstance(block, Labelled):
            c = block.canonical()
            return (c.out_shape, c.in_shape, c.out_axes, c.in_axes, c.sizes)
        (kc, cols), (ki, indptr) = _where(pattern.cols), _where(pattern.indptr)
        key = (kc, ki)
        refs = self.alive.get(key)
        if refs is None or refs[0]() is not cols or refs[1]() is not indptr:
            self.held.pop(key, None)  # another pattern's arrays had these ids once
            self.alive[key] = (weakref.ref(cols), weakref.ref(indptr))
        return key

    def holding(self, a: Block, sa: Sparse, b: Block, sb: Sparse) -> Sparse | None:
        """``sa`` where ``a``'s pattern is known to hold ``b``'s, ``sb`` where ``b``'s
        holds ``a``'s; else None."""
        if type(sa) is not Sparse or type(sb) is not Sparse:
            return None  # a structured pattern (a convolution's): merged as it is
        ka, kb = self.key(a, sa), self.key(b, sb)
        if ka == kb or kb in self.held.get(ka, ()):
            return sa
        if ka in self.held.get(kb, ()):
            return sb
        return None

    def union(self, total: Sparse, *summands: tuple[Block, Sparse]) -> None:
        """Record ``total`` as the union of the summands' patterns."""
        if any(type(s) is not Sparse for _, s in summands):
            return
        parts: set[object] = set()
        for block, pattern in summands:
            k = self.key(block, pattern)
            parts |= self.held.get(k, set())
            parts.add(k)
        self.held[self.key(total, total)] = parts

    def clear(self) -> None:
        self.held.clear()
        self.alive.clear()


def _where(a: np.ndarray) -> tuple[tuple, np.ndarray]:
    """Where ``a``'s entries are: the array that owns its memory (``a`` itself where it
    owns it, or where a buffer other than an array does), and ``a``'s place in it
    (address, shape, strides, type), so that views of one array that read the same
    entries share it and views of different parts of it do not."""
    owner = a.base if isinstance(a.base, np.ndarray) else a
    place = (id(owner), a.__array_interface__["data"][0], a.shape, a.strides, a.dtype.str)
    return place, owner


PARTS = _Parts()


# -- patterns ------------------------------------------------------------------------------


@functools.lru_cache(maxsize=4)  # three index arrays each: forgotten with the blocks
def pattern(b: Labelled) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Flat row and column indices of every entry that may be nonzero, and for each the
    flat index into the value array (C order over ``value``'s labels), in C order over
    the labels. Each is linear in the labels (an axis reads its labels row-major, plus
    its offset), so each is a broadcast sum of one range per label: one pass over the
    entries, no grid of every label. Read-only, the last few remembered (the code
    generator asks for the same leaf blocks' entries again and again: 14 blocks asked
    81 times for the minimal surface, 10⁶ entries each at 10⁶ unknowns)."""
    rows, cols, at = _pattern(b)
    return _read_only(rows), _read_only(cols), _read_only(at)


def _pattern(b: Labelled) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    sizes = b.sizes

    def linear(terms: list[tuple[int, int]], start: int) -> np.ndarray:
        coefficient: dict[int, int] = {}
        for k, c in terms:
            coefficient[k] = coefficient.get(k, 0) + c
        total = np.full((1,) * len(sizes), start, dtype=np.int64)
        for k in sorted(coefficient, key=lambda k: sizes[k]):  # the small ranges first
            if coefficient[k]:
                shape = [-1 if j == k else 1 for j in range(len(sizes))]
                step = np.arange(sizes[k], dtype=np.int64) * coefficient[k]
                total = total + step.reshape(shape)
        return np.broadcast_to(total, sizes).reshape(-1)

    def flat(axes: tuple[Axis, ...], shape: tuple[int, ...]) -> np.ndarray:
        terms: list[tuple[int, int]] = []
        start, stride = 0, 1
        for (labels, off), length in reversed(list(zip(axes, shape, strict=True))):
            start += off * stride
            inner = stride
            for k in reversed(labels):
                terms.append((k, inner))
                inner *= sizes[k]
            stride *= length
        return linear(terms, start)

    values: list[tuple[int, int]] = []
    inner = 1
    for k in reversed(b.value):
        values.append((k, inner))
        inner *= sizes[k]
    return flat(b.out_axes, b.out_shape), flat(b.in_axes, b.in_shape), linear(values, 0)


def as_sparse(b: Block) -> Sparse:
    """The block's pattern as a :class:`Sparse` block."""
    if isinstance(b, Sparse):
        return b
    if isinstance(b, RunTime):  # its union over permutations
        b = b.structural()
    rows, cols, _ = pattern(b)
    return sparse(b.out_shape, b.in_shape, rows, cols, b.kind)


def to_matrix(b: Block, values: np.ndarray | None = None):
    """The block as a sparse matrix (flattened out by in): a labelled block's values
    given in C order over its value labels (ones when None), a sparse block's per entry."""
    import scipy.sparse

    shape = (math.prod(b.out_shape), math.prod(b.in_shape))
    if isinstance(b, RunTime):  # the permutation at the point, else the union
        return to_matrix(b.structural()) if values is None else b.matrix(values)
    if isinstance(b, Sparse):
        data = np.ones(b.nnz) if values is None else np.asarray(values, dtype=float).ravel()
        return scipy.sparse.csr_array((data, b.cols, b.indptr), shape=shape, copy=True)
    rows, cols, at = pattern(b)
    data = np.ones(rows.size) if values is None else np.asarray(values, dtype=float).ravel()[at]
    return scipy.sparse.csr_array((data, (rows, cols)), shape=shape)


def _with_kind(b: Sparse, kind: int) -> Sparse:
    """The same pattern (its arrays and row pointer shared) with values of ``kind``."""
    if b.kind == kind:
        return b
    if type(b) is not Sparse:
        return b.same_pattern(kind)
    if "_pending" in b.__dict__:
        return _lazy(b.out_shape, b.in_shape, kind, b.__dict__["_pending"])
    other = Sparse(b.out_shape, b.in_shape, None, b.cols, kind, indptr=b.indptr)
    for cached in ("rows", "digest"):
        if cached in b.__dict__:
            other.__dict__[cached] = b.__dict__[cached]
    return other


def scalar_block(kind: int = GENERAL) -> Labelled:
    """A scalar graph's edge: a 1 x 1 block (of a general value by default)."""
    return Labelled((), (), (), (), (), (), kind)


def scale(b: Block) -> Block:
    """``c · b`` for a number c other than 0 and ±1: the same structure, values no longer
    all ones."""
    if b.kind != ONES:
        return b
    if isinstance(b, Sparse):
        return _with_kind(b, CONSTANT)
    return Labelled(b.out_shape, b.in_shape, b.out_axes, b.in_axes, b.sizes, b.value, CONSTANT)


# -- values --------------------------------------------------------------------------------

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def multiply_values(upper: Block, lower: Block, vu: np.ndarray, vl: np.ndarray) -> BlockValues:
    """:func:`multiply` with values: the product and its values (C order over its value
    labels, or one per pattern entry), from each factor's. One ``einsum`` over the
    labels, each factor's value axes cut to the range the product keeps.

    >>> d = diagonal((3,))
    >>> multiply_values(d, d, np.array([1.0, 2, 3]), np.array([4.0, 5, 6])).values
    array([ 4., 10., 18.])
    """
    if (kind := _run_time(upper, lower)) is not None:
        return kind.product_values(upper, lower, vu, vl)
    if isinstance(upper, Applied) or isinstance(lower, Applied):
        return _applied_values(upper, lower, vu, vl)
    plan = einsum_plan(upper, lower)
    if plan is None:
        return BlockValues(None, None)
    if plan is not False:
        einsum = _onehot_einsum(upper, lower) or _einsum
        return BlockValues(plan.product, einsum(plan, np.asarray(vu), np.asarray(vl)))  # type: ignore[arg-type]
    replanned = dense_plan(upper, lower)
    if replanned is not None:
        plan, perms = replanned
        va, vb = (
            _in_c_order(b, v, p) for b, v, p in ((upper, vu, perms[0]), (lower, vl, perms[1]))
        )
        return BlockValues(plan.product, _einsum(plan, va, vb))
    product = multiply(upper, lower).product
    if product is None:
        return BlockValues(None, None)
    split = split_of(upper, lower, product)
    if split is not None:  # a sparse factor's diagonal parts, one einsum each
        return BlockValues(*split_values(split, *(
            (vu, vl) if split.sparse_first else (vl, vu)), _einsum, add_values))  # fmt: skip
    ma, mb = to_matrix(upper, vu), to_matrix(lower, vl)
    if isinstance(product, Labelled) and full(product):  # dense (:func:`_full_product`)
        return BlockValues(product, np.asarray((ma @ mb).todense()).reshape(_shape(product)))
    if isinstance(product, Labelled):  # each entry its own value (two running sums)
        rows, cols, at = pattern(product)
        values = np.zeros(product.stored)
        values[at] = np.asarray((ma @ mb).tocsr()[rows, cols]).ravel()
        return BlockValues(product, values.reshape(_shape(product)))
    return BlockValues(product, _values_on(product, ma @ mb))


def _applied_values(upper: Block, lower: Block, vu, vl) -> BlockValues:
    """:func:`multiply_values` where a factor is :class:`Applied`: its values (an object
    with ``applied_rows`` and ``applied_columns``, :class:`dgraph.blocks.linalg.Applier`)
    applied to the other factor's rows or columns by its rules, or both read as dense."""
    side = rule_side(upper, lower)
    rows, cols = math.prod(upper.out_shape), math.prod(lower.in_shape)
    if side == "rows" and hasattr(vl, "applied_rows"):
        bar = np.asarray(to_matrix(_plain(upper), vu).todense()).reshape(rows, -1)
        found = vl.applied_rows(bar)
        return BlockValues(_dense_of(upper, lower), found.reshape(_shape_of(upper, lower)))
    if side == "columns" and hasattr(vu, "applied_columns"):
        dirs = np.asarray(to_matrix(_plain(lower), vl).todense()).reshape(-1, cols)
        found = vu.applied_columns(dirs.T).T  # (columns, out) by the rule: transposed
        return BlockValues(_dense_of(upper, lower), found.reshape(_shape_of(upper, lower)))
    return multiply_values(_plain(upper), _plain(lower), _dense_values(vu), _dense_values(vl))


def _dense_values(v):
    """An :class:`Applied` block's values read as :func:`dense`'s; others as they are."""
    return np.asarray(v) if hasattr(v, "applied_rows") else v


def _dense_of(upper: Block, lower: Block) -> Labelled:
    return dense(upper.out_shape, lower.in_shape)


def _shape_of(upper: Block, lower: Block) -> tuple[int, ...]:
    return (*upper.out_shape, *lower.in_shape)


def _shape(b: Labelled) -> tuple[int, ...]:
    """The shape of a labelled block's values (C order over its value labels)."""
    return tuple(b.sizes[k] for k in b.value)


def plain_dense(b: Block) -> tuple[int, ...] | None:
    """For a labelled block with every entry its own value and each label read once
    (a dense block whose axes are labelled differently, e.g. reshaped), the order of its
    value axes that puts its values in C order over its entries (then reshaped to
    ``out_shape + in_shape``: :func:`dense`'s values); None for any other block."""
    if not isinstance(b, Labelled) or not full(b):
        return None
    order = [k for labels, _ in (*b.out_axes, *b.in_axes) for k in labels]
    if len(set(order)) != len(order) or sorted(order) != sorted(b.value):
        return None
    return tuple(b.value.index(k) for k in order)


def dense_plan(upper: Block, lower: Block) -> tuple[EinsumPlan, tuple] | None:
    """Where two blocks' labels do not line up and the product is dense (:func:`multiply`
    gives :func:`dense`), the :class:`EinsumPlan` with each :func:`plain_dense` factor
    read as :func:`dense` (its values put in C order, the permutation per factor, None
    for one taken as it is): a contraction, not a pattern of pairs. None where that
    plan does not give the product :func:`multiply` gives."""
    perms = (plain_dense(upper), plain_dense(lower))
    if perms == (None, None):
        return None
    product = multiply(upper, lower).product
    if not (isinstance(product, Labelled) and full(product)):
        return None
    a, b = (
        dense(x.out_shape, x.in_shape, x.kind) if p is not None else x
        for x, p in zip((upper, lower), perms, strict=True)
    )
    plan = einsum_plan(a, b)
    if not plan:
        return None
    order = first_appearance(plan.product)
    ranks = [order[k] for k in plan.product.value]
    mine, theirs = plan.product.canonical(), product.canonical()
    if ranks != sorted(ranks) or (mine.out_axes, mine.in_axes, mine.sizes, mine.value) != (
        theirs.out_axes,
        theirs.in_axes,
        theirs.sizes,
        theirs.value,
    ):
        return None
    return EinsumPlan(product, plan.subscripts, plan.cuts, plan.scale), perms


def _in_c_order(b: Block, values: np.ndarray, perm: tuple[int, ...] | None) -> np.ndarray:
    if perm is None:
        return np.asarray(values)
    shape = (*b.out_shape, *b.in_shape)
    return np.transpose(np.asarray(values), perm).reshape(shape)


@dataclass(frozen=True)
class EinsumPlan:
    """How the values of a labelled product are computed, as data (what
    :func:`multiply_values` runs and code generation prints): each factor's value array
    cut to ``cuts`` (a (start, stop) per value axis), then ``einsum(subscripts)``, then
    times ``scale`` (sums of ones along labels neither value varies along)."""

    product: Labelled
    subscripts: str
    cuts: tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]
    scale: int


def einsum_plan(upper: Block, lower: Block) -> EinsumPlan | bool | None:
    """The :class:`EinsumPlan` of ``upper · lower``; None for a zero product, False where
    the product is not a labelled one (a sparse block, or labels that do not line up).

    >>> plan = einsum_plan(diagonal((3,)), dense((3,), (2,)))
    >>> plan.subscripts, plan.cuts, plan.product.type_name
    ('a,ab->ab', (((0, 3),), ((0, 3), (0, 2))), 'dense')
    """
    if not (isinstance(upper, Labelled) and isinstance(lower, Labelled)):
        return False
    plan = _plan(upper, lower)
    if plan is None or plan is False:
        return plan
    letter = {r: _LETTERS[i] for i, r in enumerate(sorted(plan.width))}

    def cuts(axes: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
        return tuple((start, start + plan.width[r]) for r, start in axes)

    sa = "".join(letter[r] for r, _ in plan.axes_a)
    sb = "".join(letter[r] for r, _ in plan.axes_b)
    out = "".join(letter[r] for r in plan.out_roots)
    return EinsumPlan(
        plan.product, f"{sa},{sb}->{out}", (cuts(plan.axes_a), cuts(plan.axes_b)), plan.scale
    )


def _einsum(plan: EinsumPlan, va: np.ndarray, vb: np.ndarray) -> np.ndarray:
    def cut(v: np.ndarray, cuts: tuple[tuple[int, int], ...]) -> np.ndarray:
        return v[tuple(slice(lo, hi) for lo, hi in cuts)] if cuts else v

    a, b = cut(va, plan.cuts[0]), cut(vb, plan.cuts[1])
    result = np.einsum(plan.subscripts, a, b)
    return result * plan.scale if plan.scale != 1 else result


def onehot_applied(
    multiply: Callable[[Any, np.ndarray], np.ndarray], hot: Any, other: np.ndarray
) -> np.ndarray:
    """``multiply(hot, other)`` for a take's or scatter-add's one-hot values ``hot`` (None:
    ones) whose zeros are structural, as the gather or segment sum the generated code
    prints: a NaN or infinity of ``other`` at a position not taken contributes nothing
    (``sqrt(clip(z, 0))[argmax(z)]``: ∞·0 at a clipped entry, not taken), one taken
    makes the result NaN there."""
    bad = ~np.isfinite(other)
    if not bad.any():
        return multiply(hot, other)
    found = multiply(hot, np.where(bad, 0.0, other))
    taken = None if hot is None else (np.asarray(hot) != 0).astype(float)
    return np.where(multiply(taken, bad.astype(float)) != 0, np.nan, found)


def _onehot_einsum(upper: Block, lower: Block) -> Callable[..., np.ndarray] | None:
    """For a product with a :class:`OneHot`: its einsum by :func:`onehot_applied`."""
    if isinstance(upper, OneHot) == isinstance(lower, OneHot):
        return None
    first = isinstance(upper, OneHot)

    def einsum(plan: EinsumPlan, va: np.ndarray, vb: np.ndarray) -> np.ndarray:
        if first:
            return onehot_applied(lambda h, o: _einsum(plan, h, o), va, vb)
        return onehot_applied(lambda h, o: _einsum(plan, o, h), vb, va)

    return einsum


def add_values(a: Block, b: Block, va: np.ndarray, vb: np.ndarray) -> BlockValues:
    """:func:`add` with values."""
    if (kind := _run_time(a, b)) is not None:
        kept = kind.summed(a, b)
        if kept is not None:  # one permutation: its row values added
            return BlockValues(kept, np.stack([va[0] + vb[0], va[1]]))
        (a, va), (b, vb) = _fixed(a, va), _fixed(b, vb)
    total = add(a, b)
    if isinstance(total, Labelled) and not same_structure(a, b):  # made dense: scattered
        flat = np.zeros(math.prod(total.out_shape) * math.prod(total.in_shape))
        width = max(1, math.prod(total.in_shape))
        summands = [(a, va), (b, vb)]
        for k, (block, v) in enumerate(summands):
            perm = plain_dense(block)
            if perm is not None:  # a dense summand: its values themselves (no pattern)
                flat = np.array(_in_c_order(block, v, perm), dtype=float).reshape(-1)
                del summands[k]
                break
        for block, v in summands:
            m = to_matrix(block, v).tocoo()
            np.add.at(flat, m.row.astype(np.int64) * width + m.col, m.data)
        return BlockValues(total, flat.reshape((*total.out_shape, *total.in_shape)))
    if isinstance(total, Labelled):
        parts = []
        for block, v in ((a, va), (b, vb)):
            c = block.canonical()  # type: ignore[union-attr]
            order = first_appearance(block)  # type: ignore[arg-type]
            ranks = sorted(range(len(block.value)), key=lambda i: order[block.value[i]])  # type: ignore[union-attr]
            v = np.transpose(np.asarray(v), ranks) if block.value else np.asarray(v)  # type: ignore[union-attr]
            shape = [c.sizes[k] if k in c.value else 1 for k in total.value]
            parts.append(v.reshape(shape) if total.value else v)
        return BlockValues(total, parts[0] + parts[1])
    return BlockValues(total, _values_on(total, to_matrix(a, va) + to_matrix(b, vb)))  # type: ignore[arg-type]


def _values_on(block: Sparse, m) -> np.ndarray:
    """The values of the sparse matrix ``m`` at ``block``'s entries, in its order (0 where
    ``m`` has none). ``m``'s entries are among the block's (a product or sum of matrices
    of the factors' patterns; scipy leaves out those that came to 0), so where as many
    they are the same, in the same order once sorted; else each is found by its key."""
    m = m.tocsr()
    m.sum_duplicates()  # sorted and each once (scipy's products and sums are already)
    data = np.asarray(m.data, dtype=float)
    if m.nnz == block.nnz:
        return data
    width = max(1, math.prod(block.in_shape))
    counts = np.diff(m.indptr)
    rows = np.repeat(np.arange(counts.size, dtype=np.int64), counts)
    keys = block.rows * width + block.cols
    values = np.zeros(block.nnz)
    values[np.searchsorted(keys, rows * width + m.indices)] = data
    return values


# -- diagonal parts ---------------------------------------------------------------------
# A sparse block as a sum of a few labelled ones, and its product with a labelled block
# as one ``einsum`` a part: no pattern of the pairs that meet.
#
# A sum of labelled blocks of different structure is a Sparse
# block (the union of their patterns). Where each of its entries has an output axis
# equal to an input axis of the same length — the gradient's block of a symmetric
# matrix's product ``x̄ = (S + Sᵀ)·x``, ``∂x̄_k/∂S_ij`` nonzero where ``i = k`` or
# ``j = k`` — the block is that many *diagonal parts*: each a labelled block whose one
# label reads both axes (a Kronecker delta, module :mod:`dgraph.blocks`), its values
# the entries it holds, 0 at the places the pattern lacks. Its product with a labelled
# block (a matrix product's Kronecker block: ``n³`` entries for n×n matrices) is then a
# few labelled products, each an ``einsum`` over the labels, summed, where the sparse
# product pairs each entry with a row of the other factor: 2n³ pairs for ``x̄`` above,
# three index arrays of that many entries held while the code is made and kept in the
# module (some 7 GB at n = 512, the Hessian of ``Σ c·eigvalsh(D + x xᵀ)``).
#
# Each entry goes to the first relation (output axis, input axis) it satisfies, the
# relations taken greedily by how many entries they hold; the split is refused
# (None) where an entry satisfies none, where more than :data:`SPLIT_PARTS` parts are
# needed, or where the parts would hold more than :data:`SPLIT_WASTE` values an entry.

SPLIT_FROM = 2**15  # the pairs (estimated) from which a product is split: below, the pairs
# are cheap, and small programs keep the code they had
SPLIT_PARTS = 4  # the most parts (a statement each)
SPLIT_WASTE = 2  # the parts' values at most twice the block's entries, and the split's
# multiplications at most twice the pairs of the sparse product


@dataclass(frozen=True)
class DiagonalPart:
    """One diagonal part: its labelled block, the sparse block's entries it holds
    (positions in the block's entry order) and their flat places among its values."""

    block: Labelled
    positions: np.ndarray
    places: np.ndarray


@dataclass(frozen=True)
class DiagonalSplit:
    """A product split (:func:`split_product`): its cost and block, and per part the
    part, the product's plan (an :class:`~dgraph.blocks.EinsumPlan`) and its block;
    ``sparse_first``: the sparse factor is the upper (left) one. Where the parts' zeros
    widen the parts' products summed beyond the entries some pair of the factors meets,
    ``product`` is those entries only and ``kept`` each one's flat index into the summed
    values (their storage dense, the pattern exact: :func:`_met_entries`); else None."""

    cost: int
    product: Block
    terms: tuple[tuple[DiagonalPart, object], ...]
    sparse_first: bool
    kept: np.ndarray | None = None


def _unravel(flat: np.ndarray, shape: tuple[int, ...]) -> tuple[np.ndarray, ...]:
    """``np.unravel_index`` that takes a scalar's shape ``()`` too (no axes: ``()``; NumPy
    refuses several indices into a 0-d array)."""
    return np.unravel_index(flat, shape) if shape else ()


def _diagonal_relations(
    b: Sparse, at: np.ndarray | None = None
) -> list[tuple[int, int, np.ndarray]]:
    """Each (output axis, input axis) of one length, and which entries (of ``at``: all
    where None) have them equal."""
    rows, cols = np.asarray(b.rows, dtype=np.int64), np.asarray(b.cols, dtype=np.int64)
    if at is not None:
        rows, cols = rows[at], cols[at]
    outs, ins = _unravel(rows, b.out_shape), _unravel(cols, b.in_shape)
    found = []
    for p, size in enumerate(b.out_shape):
        for q, other in enumerate(b.in_shape):
            if size == other and size > 1:
                found.append((p, q, outs[p] == ins[q]))
    return found


def _diagonal_matchings(
    relations: list[tuple[int, int, np.ndarray]],
) -> list[tuple[tuple[int, int], ...]]:
    """For each set of relations some entries satisfy, a matching of it: each input axis
    read by the first output axis it equals (several input axes may share one): the
    candidate parts."""
    if not relations:
        return [()]
    bits = np.zeros(relations[0][2].size, dtype=np.int64)
    for r, (_, _, held) in enumerate(relations):
        bits |= held.astype(np.int64) << r
    found = []
    for mask in np.unique(bits).tolist():
        chosen: dict[int, int] = {}
        for r, (p, q, _) in enumerate(relations):
            if mask >> r & 1 and q not in chosen:
                chosen[q] = p
        matching = tuple(sorted((p, q) for q, p in chosen.items()))
        if matching not in found:
            found.append(matching)
    return found


def _diagonal_block(b: Sparse, matching: tuple[tuple[int, int], ...]) -> Labelled:
    """The labelled block of a part of ``b``, each input axis of ``matching`` read by its
    output axis's label; labels: the output axes', then the other input axes', in order."""
    n_out = len(b.out_shape)
    matched = {q: p for p, q in matching}
    others = [j for j in range(len(b.in_shape)) if j not in matched]
    label = {j: n_out + k for k, j in enumerate(others)} | matched
    sizes = (*b.out_shape, *(b.in_shape[j] for j in others))
    # canonical() numbers the labels by first appearance: output axes first, in order,
    # then the other input axes in order, as ``sizes`` lists them: the same C order
    return Labelled(
        b.out_shape,
        b.in_shape,
        tuple(((k,), 0) for k in range(n_out)),
        tuple(((label[j],), 0) for j in range(len(b.in_shape))),
        sizes,
        tuple(range(len(sizes))),
        b.kind,
    ).canonical()


def _diagonal_part(
    b: Sparse, matching: tuple[tuple[int, int], ...], positions: np.ndarray, block: Labelled
) -> DiagonalPart:
    """The part of the entries ``positions`` (its block :func:`_diagonal_block`): their
    flat places among the block's values."""
    outs = _unravel(np.asarray(b.rows, dtype=np.int64)[positions], b.out_shape)
    ins = _unravel(np.asarray(b.cols, dtype=np.int64)[positions], b.in_shape)
    matched = {q for _, q in matching}
    others = [j for j in range(len(b.in_shape)) if j not in matched]
    sizes = (*b.out_shape, *(b.in_shape[j] for j in others))
    if not sizes:  # a scalar by a scalar: one value, at place 0
        return DiagonalPart(block, positions, np.zeros(len(positions), dtype=np.int64))
    places = np.ravel_multi_index((*outs, *(ins[j] for j in others)), sizes)
    return DiagonalPart(block, positions, places)


_DIAGONAL_PARTS: dict[int, tuple[weakref.ref, tuple[DiagonalPart, ...] | None]] = {}
FORGETS.append(_DIAGONAL_PARTS.clear)


def diagonal_parts(b: Sparse) -> tuple[DiagonalPart, ...] | None:
    """The block's diagonal parts (module docstring), or None; found once per block."""
    kept = _DIAGONAL_PARTS.get(id(b))
    if kept is not None and kept[0]() is b:
        return kept[1]
    found = _diagonal_parts_of(b)
    key = id(b)
    _DIAGONAL_PARTS[key] = (weakref.ref(b, lambda _: _DIAGONAL_PARTS.pop(key, None)), found)
    return found


def _too_wide(b: Sparse) -> bool:
    """Whether some of ``b``'s entries (a few thousand, evenly spaced) lies in no part
    that stores at most :data:`SPLIT_WASTE` values an entry: each part that holds an
    entry stores at least the part of the matching its own relations make (it matches
    the most input axes), so the split is refused without a pass over every entry."""
    at = np.unique(np.linspace(0, b.nnz - 1, min(b.nnz, 4096)).astype(np.int64))
    for matching in _diagonal_matchings(_diagonal_relations(b, at)):
        if _diagonal_block(b, matching).stored > SPLIT_WASTE * b.nnz:
            return True
    return False


def _diagonal_parts_of(b: Sparse) -> tuple[DiagonalPart, ...] | None:
    if b.nnz == 0 or _too_wide(b):
        return None
    relations = _diagonal_relations(b)
    held = {(p, q): h for p, q, h in relations}
    candidates = []
    for matching in _diagonal_matchings(relations):
        covered = np.ones(b.nnz, dtype=bool)
        for pair in matching:
            covered &= held[pair]
        candidates.append((matching, covered))
    left = np.ones(b.nnz, dtype=bool)
    found: list[DiagonalPart] = []
    stored = 0
    while left.any():
        if len(found) == SPLIT_PARTS:
            return None
        counts = [int(np.count_nonzero(covered & left)) for _, covered in candidates]
        best = int(np.argmax(counts))
        if counts[best] == 0:
            return None
        matching, covered = candidates[best]
        block = _diagonal_block(b, matching)
        stored += block.stored
        if stored > SPLIT_WASTE * b.nnz:  # before the places: a refusal costs no pass
            return None
        mine = np.flatnonzero(covered & left)
        found.append(_diagonal_part(b, matching, mine, block))
        left[mine] = False
    return tuple(found)


def split_product(upper: Block, lower: Block) -> DiagonalSplit | None:
    """``upper · lower`` as the sum of its diagonal parts' labelled products, where one
    factor is a plain :class:`~dgraph.blocks.Sparse` block (not of ones) with diagonal
    parts, the other a labelled block, the pairs that meet are at least
    :data:`SPLIT_FROM` (estimated: the sparse block's entries times the other's per
    line) and the parts' products cost at most :data:`SPLIT_WASTE` times them; else None.
    Every part's product is a labelled one (None where one is not)."""
    if type(upper) is Sparse and type(lower) in (Labelled, OneHot):
        sparse, other, first = upper, lower, True
    elif type(lower) is Sparse and type(upper) in (Labelled, OneHot):
        sparse, other, first = lower, upper, False
    else:
        return None
    if sparse.kind == ONES:  # a move's or a sum's ones: the rules for moves
        return None
    if sparse.nnz <= SMALL and other.nnz <= SMALL:  # :func:`~dgraph.blocks.multiply`'s
        return None  # small products, remembered as patterns
    lines = math.prod(other.out_shape if first else other.in_shape)
    pairs = sparse.nnz * (other.nnz / max(lines, 1))
    if pairs < SPLIT_FROM:
        return None
    found = diagonal_parts(sparse)
    if found is None:
        return None
    terms, cost, products = [], 0, []
    for part in found:
        a, b = (part.block, other) if first else (other, part.block)
        plan = einsum_plan(a, b)
        if plan is False:
            return None
        if plan is None:  # this part meets nothing of the other factor
            continue
        cost += multiply(a, b).cost
        terms.append((part, plan))
        products.append(plan.product)
    if not products or cost > SPLIT_WASTE * pairs:
        return None
    total: Block = functools.reduce(add, products)
    exact = _met_entries(sparse, other, first, tuple(terms), total)
    if exact is None:
        return DiagonalSplit(cost, total, tuple(terms), first)
    return DiagonalSplit(cost, exact[0], tuple(terms), first, exact[1])


_MET: OrderedDict[tuple, tuple[Sparse, np.ndarray] | None] = OrderedDict()
FORGETS.append(_MET.clear)
MET_KEPT = 16  # the last split products' met entries remembered (by the factors' patterns)
FLAGGED_SPREAD = 4  # possible entries per entry of a sum of parts up to which the met ones
# are marked by flags over every possible entry (linear time) rather than sorted


def _met_entries(
    factor: Sparse, other: Labelled, first: bool, terms: tuple, total: Block
) -> tuple[Sparse, np.ndarray] | None:
    """The entries of a split product that some pair of the factors meets, where the
    parts hold zeros (a triangle's rows stored as a rectangle: causal attention's mask)
    and so their labelled products are wider: each part's product run on 0/1 values
    (its entries 1, the other factor's values 1) counts the pairs at each entry, exactly
    in floats. The pattern as a sparse block, and each entry's flat index into the summed
    values; None where the parts hold no zero, where every entry is met, or where the
    met ones are whole rows (columns) of a dense product (:func:`_whole_lines`). Found
    once per pair of factors' patterns (:func:`split_of` asks again, and each search
    forms the product anew), the last :data:`MET_KEPT` remembered.

    Exact for every input: an entry no pair meets is a sum of products with the parts'
    stored zeros (values at which the other factor is finite)."""
    if all(part.block.stored == part.positions.size for part, _ in terms):
        return None
    key = (factor.out_shape, factor.in_shape, factor.kind, factor.digest, other, first)
    if key in _MET:  # the searches form the same product from blocks made again
        _MET.move_to_end(key)
        return _MET[key]
    width = math.prod(total.in_shape)
    if isinstance(total, Sparse):
        held, places = np.asarray(total.rows, dtype=np.int64) * width + total.cols, None
    else:
        rows, cols, places = pattern(total)
        held = rows * width + cols
    take = np.zeros(total.nnz, dtype=bool)  # the total's entries some pair meets
    met = []
    for part, plan in terms:
        mask = np.zeros(part.block.stored)
        mask[part.places] = 1.0
        mask = mask.reshape(_shape(part.block))
        ones = np.ones(_shape(other))
        counted = np.asarray(_einsum(plan, *((mask, ones) if first else (ones, mask))))
        if places is not None and plan.product == total:  # one part: the values' places
            take |= counted.reshape(-1)[places] != 0
            continue
        rows, cols, at = pattern(plan.product)
        hit = counted.reshape(-1)[at] != 0
        met.append(rows[hit] * width + cols[hit])
    size = math.prod(total.out_shape) * width
    if met and size <= FLAGGED_SPREAD * total.nnz:  # flags over every entry: no sort
        flags = np.zeros(size, dtype=bool)
        for keys in met:
            flags[keys] = True
        take |= flags[held]
    elif met:
        take |= np.isin(held, np.concatenate(met))
    found = None
    if not take.all():
        keys = held[take]
        kept = np.flatnonzero(take) if places is None else places[take]
        if keys.size > 1 and not (keys[1:] > keys[:-1]).all():
            order = np.argsort(keys)
            keys, kept = keys[order], kept[order]
        if not _whole_lines(keys, total, width):
            narrowed = sparse(
                total.out_shape, total.in_shape, keys // width, keys % width, total.kind
            )
            found = (narrowed, _read_only(kept))
    _MET[key] = found
    if len(_MET) > MET_KEPT:
        _MET.popitem(last=False)
    return found


def _whole_lines(keys: np.ndarray, total: Block, width: int) -> bool:
    """Whether the entries ``keys`` (flat, sorted) are whole rows, or whole columns, of
    every entry of ``total``'s shape: some rows of a dense product and every column
    (cholesky's triangle of rows times a dense block), which :func:`_full_product`
    holds dense too (its zero rows' values are zeros)."""
    height = math.prod(total.out_shape)
    if keys.size % width == 0:
        rows = keys // width
        if keys.size == width * (np.count_nonzero(np.diff(rows)) + 1):
            return True
    if keys.size % height == 0:
        return keys.size == height * np.count_nonzero(np.bincount(keys % width, minlength=width))
    return False


def split_values(
    split: DiagonalSplit,
    sparse_values: np.ndarray,
    other_values: np.ndarray,
    run: Callable,
    summed: Callable,
) -> tuple[Block, object]:
    """The split product's block and values: each part's values placed (zeros
    elsewhere), ``run(plan, va, vb)`` its product, ``summed`` adding them in order
    (``add_values``)."""
    total = None
    flat = np.ravel(np.asarray(sparse_values, dtype=float))
    for part, plan in split.terms:
        values = np.zeros(part.block.stored)
        values[part.places] = flat[part.positions]
        values = values.reshape(tuple(part.block.sizes[k] for k in part.block.value))
        dense = np.asarray(other_values)
        va, vb = (values, dense) if split.sparse_first else (dense, values)
        found = (plan.product, run(plan, va, vb))
        total = found if total is None else summed(total[0], found[0], total[1], found[1])
    if split.kept is not None:  # the entries the pairs meet (:func:`_met_entries`)
        return split.product, np.ravel(np.asarray(total[1]))[split.kept]  # type: ignore[index]
    return total  # type: ignore[return-value]
