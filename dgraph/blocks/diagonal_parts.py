"""A sparse block as a sum of a few labelled ones, and its product with a labelled block
as one ``einsum`` a part: no pattern of the pairs that meet.

A sum of labelled blocks of different structure is a :class:`~dgraph.blocks.Sparse`
block (the union of their patterns). Where each of its entries has an output axis
equal to an input axis of the same length — the gradient's block of a symmetric
matrix's product ``x̄ = (S + Sᵀ)·x``, ``∂x̄_k/∂S_ij`` nonzero where ``i = k`` or
``j = k`` — the block is that many *diagonal parts*: each a labelled block whose one
label reads both axes (a Kronecker delta, module :mod:`dgraph.blocks`), its values
the entries it holds, 0 at the places the pattern lacks. Its product with a labelled
block (a matrix product's Kronecker block: ``n³`` entries for n×n matrices) is then a
few labelled products, each an ``einsum`` over the labels, summed, where the sparse
product pairs each entry with a row of the other factor: 2n³ pairs for ``x̄`` above,
three index arrays of that many entries held while the code is made and kept in the
module (some 7 GB at n = 512, the Hessian of ``Σ c·eigvalsh(D + x xᵀ)``).

Each entry goes to the first relation (output axis, input axis) it satisfies, the
relations taken greedily by how many entries they hold; the split is refused
(None) where an entry satisfies none, where more than :data:`SPLIT_PARTS` parts are
needed, or where the parts would hold more than :data:`SPLIT_WASTE` values an entry.
"""

from __future__ import annotations

import functools
import math
import weakref
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import FORGETS, ONES, SMALL, Block, Labelled, Sparse, add, einsum_plan, multiply

__all__ = [
    "SPLIT_FROM",
    "SPLIT_PARTS",
    "SPLIT_WASTE",
    "Part",
    "Split",
    "parts",
    "split_product",
    "split_values",
]

SPLIT_FROM = 2**15  # the pairs (estimated) from which a product is split: below, the pairs
# are cheap, and small programs keep the code they had
SPLIT_PARTS = 4  # the most parts (a statement each)
SPLIT_WASTE = 2  # the parts' values at most twice the block's entries, and the split's
# multiplications at most twice the pairs of the sparse product


@dataclass(frozen=True)
class Part:
    """One diagonal part: its labelled block, the sparse block's entries it holds
    (positions in the block's entry order) and their flat places among its values."""

    block: Labelled
    positions: np.ndarray
    places: np.ndarray


@dataclass(frozen=True)
class Split:
    """A product split (:func:`split_product`): its cost and block, and per part the
    part, the product's plan (an :class:`~dgraph.blocks.EinsumPlan`) and its block;
    ``sparse_first``: the sparse factor is the upper (left) one."""

    cost: int
    product: Block
    terms: tuple[tuple[Part, object], ...]
    sparse_first: bool


def _relations(b: Sparse) -> list[tuple[int, int, np.ndarray]]:
    """Each (output axis, input axis) of one length, and which entries have them equal."""
    outs = np.unravel_index(np.asarray(b.rows, dtype=np.int64), b.out_shape)
    ins = np.unravel_index(np.asarray(b.cols, dtype=np.int64), b.in_shape)
    found = []
    for p, size in enumerate(b.out_shape):
        for q, other in enumerate(b.in_shape):
            if size == other and size > 1:
                found.append((p, q, outs[p] == ins[q]))
    return found


def _matchings(relations: list[tuple[int, int, np.ndarray]]) -> list[tuple[tuple[int, int], ...]]:
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


def _part(b: Sparse, matching: tuple[tuple[int, int], ...], positions: np.ndarray) -> Part:
    """The labelled block of the entries ``positions``, each input axis of ``matching``
    read by its output axis's label; labels: the output axes', then the other input
    axes', in order."""
    outs = np.unravel_index(np.asarray(b.rows, dtype=np.int64)[positions], b.out_shape)
    ins = np.unravel_index(np.asarray(b.cols, dtype=np.int64)[positions], b.in_shape)
    n_out = len(b.out_shape)
    matched = {q: p for p, q in matching}
    others = [j for j in range(len(b.in_shape)) if j not in matched]
    label = {j: n_out + k for k, j in enumerate(others)} | matched
    sizes = (*b.out_shape, *(b.in_shape[j] for j in others))
    block = Labelled(
        b.out_shape,
        b.in_shape,
        tuple(((k,), 0) for k in range(n_out)),
        tuple(((label[j],), 0) for j in range(len(b.in_shape))),
        sizes,
        tuple(range(len(sizes))),
        b.kind,
    ).canonical()
    # canonical() numbers the labels by first appearance: output axes first, in order,
    # then the other input axes in order, as ``sizes`` lists them: the same C order
    places = np.ravel_multi_index((*outs, *(ins[j] for j in others)), sizes)
    return Part(block, positions, places)


_PARTS: dict[int, tuple[weakref.ref, tuple[Part, ...] | None]] = {}
FORGETS.append(_PARTS.clear)


def parts(b: Sparse) -> tuple[Part, ...] | None:
    """The block's diagonal parts (module docstring), or None; found once per block."""
    kept = _PARTS.get(id(b))
    if kept is not None and kept[0]() is b:
        return kept[1]
    found = _parts(b)
    key = id(b)
    _PARTS[key] = (weakref.ref(b, lambda _: _PARTS.pop(key, None)), found)
    return found


def _parts(b: Sparse) -> tuple[Part, ...] | None:
    relations = _relations(b)
    held = {(p, q): h for p, q, h in relations}
    candidates = []
    for matching in _matchings(relations):
        covered = np.ones(b.nnz, dtype=bool)
        for pair in matching:
            covered &= held[pair]
        candidates.append((matching, covered))
    left = np.ones(b.nnz, dtype=bool)
    found: list[Part] = []
    stored = 0
    while left.any():
        if len(found) == SPLIT_PARTS:
            return None
        counts = [int(np.count_nonzero(covered & left)) for _, covered in candidates]
        best = int(np.argmax(counts))
        if counts[best] == 0:
            return None
        matching, covered = candidates[best]
        mine = np.flatnonzero(covered & left)
        part = _part(b, matching, mine)
        stored += part.block.stored
        if stored > SPLIT_WASTE * b.nnz:
            return None
        found.append(part)
        left[mine] = False
    return tuple(found)


def split_product(upper: Block, lower: Block) -> Split | None:
    """``upper · lower`` as the sum of its diagonal parts' labelled products, where one
    factor is a plain :class:`~dgraph.blocks.Sparse` block (not of ones) with diagonal
    parts, the other a labelled block, the pairs that meet are at least
    :data:`SPLIT_FROM` (estimated: the sparse block's entries times the other's per
    line) and the parts' products cost at most :data:`SPLIT_WASTE` times them; else None.
    Every part's product is a labelled one (None where one is not)."""
    if type(upper) is Sparse and type(lower) is Labelled:
        sparse, other, first = upper, lower, True
    elif type(lower) is Sparse and type(upper) is Labelled:
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
    found = parts(sparse)
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
    return Split(cost, total, tuple(terms), first)


def split_values(
    split: Split,
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
    return total  # type: ignore[return-value]
