"""Block products and sums as array statements (``multiply_values`` and ``add_values``
printed): a labelled product is one ``einsum`` over its plan
(:func:`~dgraph.blocks.einsum_plan`), each factor cut to the range the product
keeps; a sum of one structure a broadcast add; anything with a :class:`Sparse` block goes
through index arrays computed here once — for a product, the pairs of entries that meet
(Σ_k nnz(A[:, k]) · nnz(B[k, :]) of them) and the product entry each pair adds to, its
values a segment sum per call; never a dense intermediate."""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Iterator

import numpy as np

from ...blocks import (
    CONSTANT,
    FORGETS,
    GENERAL,
    ONES,
    SMALL,
    SPLIT_FROM,
    Applied,
    Block,
    Labelled,
    Sparse,
    add,
    as_sparse,
    dense,
    dense_pays,
    dense_plan,
    einsum_plan,
    first_appearance,
    full,
    merge_flags,
    move_source,
    multiply,
    on_the_diagonal,
    pattern,
    plain_dense,
    remember_sum,
    remembered_sum,
    rule_side,
    same_structure,
    shares_pattern,
    sparse,
    split_label,
    split_of,
)
from ...blocks.cumulative import CumsumPattern
from ...blocks.dynamic_take import DYNAMIC_TAKE
from ...blocks.linalg import cotangent, tangent
from ...blocks.permutation import Permutation, same_order
from ...errors import DGraphError
from ..ir import (
    BinOp,
    Call,
    Const,
    Index,
    Name,
    Node,
    Scatter,
    ScatterAdd,
    SegmentSum,
    Seq,
    Slice,
    UnaryOp,
)
from ..ir import number as _node_number
from ..ir import times as _times
from .constants import Constants
from .dense_gather import gathered_product
from .dynamic_gathers import onehot_product
from .entries import entries, every, fills
from .linalg_code import vocabulary
from .permutation_code import multiply_permutation, scale_permutation, structural_of
from .scatter_chains import MOST_PARTS

__all__ = ["BlockOps", "Terms", "Valued", "entries", "values_at"]


class Terms:
    """A sparse block's values not yet summed: each part's values (a name) and the
    entries they go to (None: every entry, in order). A sum of patterns stays a list
    of parts, a move of it only moves the parts' positions (index arrays composed here,
    once); the parts are scattered when a product needs the values themselves, or at the
    end — one pass per part that varies, the constant ones folded into one. ``kept``:
    where the parts are a product distributed over a sum's (:meth:`BlockOps._distributed`),
    the product's values computed as one (the sum's values, then the product), what a
    later product that needs the values reads instead of the parts scattered.

    ``keyed``, instead of ``parts``: a sparse block and each part as its origin (a
    summand block of the same shape whose entries, in :func:`entries` order, hold the
    part), its positions among the origin's entries (None: all) and its values, placed
    in the block's pattern only when the parts are first read, each origin once
    (:func:`_resolved`). A sum of many terms added one at a time (a Hessian's band, one
    term per eliminated vertex) then never places its earlier terms in each larger
    pattern again: O(K) parts placed once, not O(K²) positions gathered; and the parts
    of a summand whose pattern is the sum's keep their positions (no look-up at all).

    ``scaled_from``: where the parts are another :class:`Terms`'s scaled by a number, in
    place (:meth:`scaled`), that one and the number: its values, once summed
    (:meth:`BlockOps.materialize`: the same scatters), scaled are these, and a sum
    summed once is read as its total from then on (a state carried over an unrolled
    loop's steps, each step's sum one part of the next, not all the earlier steps' parts)."""

    __slots__ = ("__weakref__", "_keyed", "_parts", "kept", "scaled_from", "size")

    def __init__(
        self,
        size: int,
        parts: tuple[tuple[np.ndarray | None, Node], ...] | None = None,
        kept: Callable[[], Node] | None = None,
        keyed: tuple[Sparse, tuple[Keyed, ...]] | None = None,
        scaled_from: tuple[Terms, float] | None = None,
    ) -> None:
        self.size, self._parts, self.kept, self._keyed = size, parts, kept, keyed
        self.scaled_from = scaled_from

    def __repr__(self) -> str:
        return f"Terms(size={self.size!r}, count={self.count!r})"

    @property
    def parts(self) -> tuple[tuple[np.ndarray | None, Node], ...]:
        """Each part's positions among the block's entries (None: all, in order) and values."""
        if self._parts is None:
            block, keyed = self._keyed  # type: ignore[misc]
            self._parts = _resolved(block, keyed, self.size)
            self._keyed = None
        return self._parts

    @property
    def count(self) -> int:
        """How many parts (none looked up)."""
        return len(self._parts if self._parts is not None else self._keyed[1])  # type: ignore[index]

    @property
    def overlap(self) -> bool:
        """Whether the parts hold at least :data:`OVERLAP` times the block's entries
        (none looked up): a sum of sums, its entries each summed from several parts."""
        if self._parts is not None:
            held = sum(self.size if p is None else p.size for p, _ in self._parts)
        else:
            held = sum(o.nnz if at is None else at.size for o, at, _ in self._keyed[1])  # type: ignore[index]
        return held >= OVERLAP * self.size

    def keys_in(self, block: Block) -> tuple[Keyed, ...] | None:
        """The parts by their origins (:data:`Keyed`) where they are kept so against
        ``block``'s pattern (no look-up, no gather); else None."""
        if self._keyed is None or not _same_pattern(self._keyed[0], block):
            return None
        return self._keyed[1]

    def scaled(self, factor: float, kept: Callable[[], Node] | None) -> Terms:
        """The same positions (keyed or not), each part's values times ``factor``."""
        if self._keyed is not None:
            block, keyed = self._keyed
            parts = tuple((o, at, _scaled(factor, d)) for o, at, d in keyed)
            return Terms(self.size, None, kept, (block, parts), (self, factor))
        parts = tuple((p, _scaled(factor, d)) for p, d in self.parts)
        return Terms(self.size, parts, kept, None, (self, factor))


def _same_pattern(a: Block, b: Block) -> bool:
    """Whether two sparse blocks have one pattern: the same arrays, or equal ones."""
    if shares_pattern(a, b):
        return True
    if not (isinstance(a, Sparse) and isinstance(b, Sparse)):
        return False
    if (a.out_shape, a.in_shape, a.nnz) != (b.out_shape, b.in_shape, b.nnz):
        return False
    return bool(np.array_equal(a.indptr, b.indptr) and np.array_equal(a.cols, b.cols))


def _flat_keys(block: Block, width: int) -> np.ndarray:
    """Each entry's flat key, row · width + column, in :func:`entries` order."""
    rows, cols, _ = entries(block)
    return rows.astype(np.int64) * width + cols


Keyed = tuple[Block, "np.ndarray | None", Node]
"""A part of a keyed :class:`Terms`: its origin (a block of the sum's shape), its
positions among the origin's entries in :func:`entries` order (None: all) and its values."""

MERGE_SHARE = 8  # an origin of at least 1/MERGE_SHARE of the sum's entries is placed by a
# merge of the two patterns (linear: 40 ms for 3·10⁶ entries in 7·10⁶), a smaller one by a
# search of its flat keys (log n a key: 102 ms for the same; benchmarks/sum_placing.py)
MERGE_FROM = 1 << 16  # and only in a sum of this many entries or more: a merge costs some
# 0.17 ms whatever its size (two SciPy matrices), a search of 8·10³ keys in 1.7·10⁴ 0.23 ms


def _resolved(block: Sparse, keyed, size: int) -> tuple[tuple[np.ndarray | None, Node], ...]:
    """Keyed parts (:class:`Terms`) as positions among ``block``'s entries, None for a
    part of every entry in order: each origin's entries placed in ``block``'s pattern
    once (:func:`_placed`), each part's positions among them then gathered."""
    dtype = _narrowest(size)
    placed: dict[int, np.ndarray | None] = {}
    keys: list[np.ndarray] = []  # the sum's flat keys, formed where a search needs them
    parts = []
    for origin, at, data in keyed:
        if id(origin) not in placed:
            placed[id(origin)] = _placed(origin, block, keys)
        where = placed[id(origin)]
        if where is None:  # the origin's pattern is the sum's
            p = every(origin.nnz) if at is None else at
        else:
            p = where if at is None else where[at]
        p = p.astype(dtype, copy=False)
        parts.append((None if fills(p, size) else p, data))
    return tuple(parts)


def _placed(origin: Block, block: Sparse, keys: list[np.ndarray]) -> np.ndarray | None:
    """Where each entry of ``origin`` (:func:`entries` order; a summand of ``block``, its
    pattern within ``block``'s) sits among ``block``'s entries; None where they are all
    of them, in order (one pattern). A sparse origin of at least 1/:data:`MERGE_SHARE`
    of the entries of a sum of at least :data:`MERGE_FROM` by a merge of the patterns
    (:func:`_flagged_merge`: the entries of the union that hold one of the origin's, in
    order), else by a search of its flat keys among ``block``'s (``keys``: formed once,
    kept for the next origin)."""
    if _same_pattern(origin, block):
        return None
    large = block.nnz >= MERGE_FROM and origin.nnz * MERGE_SHARE >= block.nnz
    if isinstance(origin, Sparse) and large:
        merged = _flagged_merge(origin, block)
        if merged is not None and merged[1].size == block.nnz:  # within block's pattern
            return _places(merged[1], block.nnz)[0]
    width = max(1, int(np.prod(block.in_shape)))
    if not keys:
        keys.append(_flat_keys(block, width))
    return _positions(keys[0], _flat_keys(origin, width))


Valued = tuple[Block, "Node | Terms"] | None  # a block and its values; None: 0

OVERLAP = 2.0  # a sum whose parts hold this many entries a block entry is read as its total
# once summed (BlockOps._as_summed): below it, the parts move few more entries than the
# total would, and the total's scatter may be folded away (a Hessian's ring stencil: its
# sum of 36 + 12 parts over 45 entries read as its total moved 255 entries a call, not 216)

DISTRIBUTE_BELOW = 10**5  # blocks of this many entries and more are not distributed: the
# minimal surface at 99,856 unknowns is accumulated otherwise, and distributing there
# scatter-adds more (3.1·10⁶ entries a call against 2.9·10⁶; RESULTS.md, branch msasm)
DISTRIBUTE = 2.0  # a product is distributed over parts holding at most this many entries a
# block entry (:meth:`BlockOps._distributed`)
DISTRIBUTE_PARTS = 8  # and over at most this many parts: each part is a statement a product,
# so parts that multiply with each level (paths enumerated, a scan's log n levels of pads and
# slices: 770 parts of one entry at 24 unknowns) would make the program grow with the size;
# a partially separable function's parts are its element's terms (the minimal surface's 6)


def _in_c_order(block: Block, values: Node, perm: tuple[int, ...] | None) -> Node:
    """A :func:`~dgraph.blocks.plain_dense` block's values as :func:`~dgraph.blocks.dense`'s
    (``perm`` None: as they are)."""
    if perm is None:
        return values
    if perm != tuple(range(len(perm))):
        values = Call("transpose", (values, Const(perm)))
    return Call("reshape", (values, Const((*block.out_shape, *block.in_shape))))


def _value_shape(block: Block) -> tuple[int, ...]:
    if isinstance(block, Sparse):
        return (block.nnz,)
    return tuple(block.sizes[k] for k in block.value)


class BlockOps:
    """Builds the statements of block operations; ``emit(node)`` assigns a new name and
    returns it; ``lang`` decides what only one target has (JAX's delta form);
    ``distribute``: the blocks are a Hessian's, whose sums of element second derivatives
    are assembled at last (:meth:`_distributed`)."""

    def __init__(
        self,
        lang: str,
        constants: Constants,
        emit: Callable[..., Name],
        varies: Callable[[Node], bool] = lambda node: True,
        distribute: bool = False,
    ):
        self.lang, self.constants, self.emit, self.varies = lang, constants, emit, varies
        self.distribute = distribute
        self._met: dict[tuple[int, int], tuple] = {}
        self.rules: dict[str, tuple] = {}  # an Applied leaf's values' name: op, k, args, result
        self.ones: set[str] = set()  # the names of leaves' values that are ones(nnz)
        # a take's (scatter-add's) union one-hot leaf's values' name: op, its positions
        self.onehots: dict[str, tuple] = {}
        # each Terms summed (materialize), its values; the names among them, which a walk
        # must not rename (Writer.rename: they are read again under them)
        self._totals: weakref.WeakKeyDictionary[Terms, Node] = weakref.WeakKeyDictionary()
        self.held: set[str] = set()

    def materialize(self, valued: Valued, product: bool = False) -> Valued:
        """The values as one name (a :class:`Terms` scattered: the parts that do not vary
        first, so that their sum is a statement the constant folding computes once).
        ``product``: a factor of a product, which reads the values themselves: a
        distributed product's values computed as one (``Terms.kept``), not its parts
        scattered (its parts' statements then read by nothing, dropped).

        A sum whose parts overlap (:attr:`Terms.overlap`) is summed once and its total
        kept (:meth:`_as_summed` reads it); one scaled in place (``Terms.scaled_from``)
        through the sum it scales: that one summed (the same scatters), then scaled, its
        total kept for whatever else reads it (the next step's sum, its other moves).
        Disjoint parts are scattered as they are each time (a pass may fold a gather of
        them into their own gathers)."""
        if valued is None or not isinstance(valued[1], Terms):
            return valued
        block, terms = valued
        if not terms.overlap:  # disjoint parts: each moved and scattered as it is
            if product and terms.kept is not None:
                return block, terms.kept()
            return block, self._scattered(terms)
        known = self._summed(terms)
        if known is not None:
            return block, known
        if product and terms.kept is not None:
            return block, terms.kept()  # its parts still moved on as parts
        chain = [terms]  # the sums scaled in place, down to the one they scale
        while chain[-1].scaled_from is not None:
            chain.append(chain[-1].scaled_from[0])
        total = self._hold(chain[-1], self._scattered(chain[-1]))
        for t in reversed(chain[:-1]):
            total = self._hold(t, _scaled(t.scaled_from[1], total))  # type: ignore[index]
        return block, total

    def _summed(self, terms: Terms) -> Node | None:
        """``terms``'s values where already summed (:meth:`materialize`): its own total,
        or the total of a sum it scales in place, scaled; else None."""
        chain = []
        while terms not in self._totals:
            if terms.scaled_from is None:
                return None
            chain.append(terms)
            terms = terms.scaled_from[0]
        total = self._totals[terms]
        for t in reversed(chain):
            total = self._hold(t, _scaled(t.scaled_from[1], total))  # type: ignore[index]
        return total

    def _hold(self, terms: Terms, total: Node) -> Node:
        """``total`` kept as ``terms``'s values."""
        self._totals[terms] = total
        if isinstance(total, Name):
            self.held.add(total.id)
        return total

    def _as_summed(self, valued: Valued) -> Valued:
        """A :class:`Terms` already summed whose parts overlap (:attr:`Terms.overlap`) as
        one part, its total: a move of it moves the total's entries, a sum with it adds
        them, not the parts' again (a sum carried over unrolled steps reaches each step as
        one part). Anything else as it is (parts that barely overlap move few more
        entries than their total, and a pass may fold the total away)."""
        if valued is None or not isinstance(valued[1], Terms):
            return valued
        known = self._summed(valued[1]) if valued[1].overlap else None
        if known is None:
            return valued
        return valued[0], Terms(valued[1].size, ((None, known),))

    def _scattered(self, terms: Terms) -> Node:
        """``terms``'s parts summed: scattered into the block's entries."""
        parts = sorted(terms.parts, key=lambda p: (self.varies(p[1]), p[0] is not None))
        total = None
        pending: list[tuple[Node, Node]] = []  # scatter-adds written as one statement

        def flush(total: Node) -> Node:
            if pending:
                total = self.emit(ScatterAdd(total, tuple(pending)))
                pending.clear()
            return total

        for where, data in parts:
            if total is None:
                total = (
                    data
                    if where is None
                    else self.emit(Scatter(terms.size, self.constants.index(where), data))
                )
            elif where is None:
                total = flush(total)
                total = self.emit(BinOp("+", _ravel(total), _ravel(data)))
            else:
                if pending and self.varies(pending[-1][1]) != self.varies(data):
                    total = flush(total)  # the parts that vary not folded with the rest
                elif len(pending) >= MOST_PARTS:
                    total = flush(total)  # a statement of bounded depth (JAX's chain)
                if total is parts[0][1]:  # a part of every entry, maybe one number: spread
                    total = Call("broadcast_to", (_ravel(total), Const((terms.size,))))
                pending.append((self.constants.index(where), data))
        return flush(total)

    def values_at(self, block: Block, values: Node, at: np.ndarray) -> Node:
        return values_at(self.constants, block, values, at)

    def _one(self, values: Node) -> Node:
        """A move's values ``ones(nnz)`` (a name in :attr:`ones`) as the number 1, marked
        (:class:`_Ones`) so that two such are not taken for numbers."""
        if isinstance(values, Name) and values.id in self.ones:
            return _ONES
        return values

    # -- products ----------------------------------------------------------------------

    def multiply(self, upper: Valued, lower: Valued) -> Valued:
        """``upper · lower`` with its values (None: zero)."""
        try:
            return self._multiply(upper, lower)
        finally:  # the pairs that met, some 10⁷ indices a product at 10⁶ unknowns
            self._met.clear()

    def _multiply(self, upper: Valued, lower: Valued) -> Valued:
        if upper is None or lower is None:
            return None
        upper, lower = self._as_summed(upper), self._as_summed(lower)
        (a, va), (b, vb) = upper, lower
        if isinstance(a, Permutation) or isinstance(b, Permutation):
            return multiply_permutation(self, upper, lower)
        moved = self._moved_onehot(upper, lower) if self.onehots else None
        if moved is not None:
            return moved
        if isinstance(a, Applied) or isinstance(b, Applied):
            return self._applied(upper, lower)
        plan = einsum_plan(a, b)
        if plan is False and self.onehots:  # the positions split as the other factor's
            split = self._split_onehot(upper, lower)
            if split is not None:
                return self._multiply(*split)
        if plan is False and isinstance(va, Terms) != isinstance(vb, Terms):
            moved = self._moved(a, b, va, vb)
            if moved is None and self.distribute:
                moved = self._distributed(a, b, va, vb)
            if moved is not None:
                return moved
        (a, va), (b, vb) = self.materialize(upper, True), self.materialize(lower, True)  # type: ignore[misc]
        if plan is None:
            return None
        if plan is not False:
            text = self._einsum(plan, a, b, va, vb)
            relaid = self._relaid_onehot(plan, (a, b), (va, vb))
            if relaid is not None and _number(text) is None:  # a name a walk keeps
                held, first = relaid
                name = self.emit(text, f"{held[0]}_laid")
                self.onehots[name.id] = (*held[1], first)
                return plan.product, name
            return plan.product, self._assigned(text)  # type: ignore[union-attr]
        replanned = dense_plan(a, b) if plan is False else None
        if replanned is not None:  # a dense factor whose labels do not line up: re-read
            plan, perms = replanned
            hot = self._dense_onehot(plan, (a, b), (va, vb), perms)
            if hot is not None:  # a gather or a segment sum, not the union's one-hot
                return plan.product, self._assigned(hot)
            va, vb = (_in_c_order(x, v, p) for x, v, p in ((a, va, perms[0]), (b, vb, perms[1])))
            a, b = (
                dense(x.out_shape, x.in_shape, x.kind) if p is not None else x
                for x, p in zip((a, b), perms, strict=True)
            )
            return plan.product, self._assigned(self._einsum(plan, a, b, va, vb))
        _, product = multiply(a, b)
        if product is None:
            return None
        split = split_of(a, b, product)
        if split is not None:  # a sparse factor's diagonal parts: one einsum each
            return self._split(split, a, b, va, vb)
        one = _one_pair_number(a, b, self._one(va), self._one(vb), product)
        if one is not None:  # a move of cumsum's ones (a slice, a flip): still one number
            return product, one
        running = self._running(a, b, va, vb, product)
        if running is not None:
            return product, running
        through = self._through_dense(a, b, va, vb, product)
        if through is not None:
            if isinstance(product, Labelled):
                return product, self.emit(Call("reshape", (through, Const(_value_shape(product)))))
            return product, self.emit(through)
        if self.lang in ("python", "jax") and not self.constants.keep_arrays:  # not C's
            at = self.values_at
            target = as_sparse(product) if isinstance(product, Labelled) else product
            gathered = gathered_product(a, b, va, vb, target, at, self.constants.index, self.emit)
            if isinstance(product, Labelled) and gathered is not None:
                return product, self.emit(Call("reshape", (gathered, Const(_value_shape(product)))))
            if gathered is not None:
                return product, self.emit(gathered)
        if isinstance(product, Labelled):  # a dense product of blocks that do not line up
            flat = self.emit(self._pairs(a, b, va, vb, as_sparse(product)))
            return product, self.emit(Call("reshape", (flat, Const(_value_shape(product)))))
        return product, self.emit(self._pairs(a, b, va, vb, product))  # type: ignore[arg-type]

    def _split(self, split, a: Block, b: Block, va: Node, vb: Node) -> Valued:
        """A product split into a sparse factor's diagonal parts
        (:func:`dgraph.blocks.split_product`): each part's values placed in its value
        array (zeros where the pattern lacks an entry), its labelled product one
        ``einsum``, the products summed; where those zeros widen the sum, its values at
        the entries some pair meets (the split's exact pattern)."""
        first = split.sparse_first
        block, values, other = (a, va, vb) if first else (b, vb, va)
        total: Valued = None
        for part, plan in split.terms:
            data = self.values_at(block, values, part.positions)
            if _number(data) is not None:
                data = Call("full", (Const(int(part.positions.size)), data))
            size = part.block.stored
            if not fills(part.places, size):
                data = Scatter(size, self.constants.index(part.places), data)
            mine = self.emit(Call("reshape", (data, Const(_value_shape(part.block)))))
            pa, pb = (part.block, b) if first else (a, part.block)
            xa, xb = (mine, other) if first else (other, mine)
            found = (plan.product, self._assigned(self._einsum(plan, pa, pb, xa, xb)))
            total = found if total is None else self.add(total, found)
        if split.kept is not None and total is not None:  # the entries the pairs meet
            block, summed = self.materialize(total, product=True)  # type: ignore[misc]
            return split.product, self.emit(self.values_at(block, summed, split.kept))
        return total

    def _applied(self, upper: Valued, lower: Valued) -> Valued:
        """A product with an :class:`~dgraph.blocks.Applied` block: the other factor's
        rows by the cotangent rule or its columns by the tangent rule
        (:func:`~dgraph.blocks.rule_side`, the formulas of :mod:`dgraph.blocks.linalg`
        printed), else both read as dense blocks."""
        (a, va), (b, vb) = upper, lower  # type: ignore[misc]
        side = rule_side(a, b)
        held = vb if side == "rows" else va
        rule = self.rules.get(held.id) if side and isinstance(held, Name) else None
        if rule is None:
            plain = [(x.plain() if isinstance(x, Applied) else x, v) for x, v in (upper, lower)]
            return self._multiply(*plain)  # type: ignore[arg-type]
        op, k, args, result = rule
        product = dense(a.out_shape, b.in_shape)
        if side == "rows":
            a, va = self.materialize(upper, True)  # type: ignore[misc]
            m, n = math.prod(a.out_shape), math.prod(b.out_shape)
            bar = self._as_matrix(a, va, (m, n))
            bar = Call("reshape", (bar, Const((m, *op.shape))))
            square = b.in_shape if k == 0 else ()  # the first operand's shape (det's n)
            out = self.emit(
                cotangent(op, k, args, bar, result, vocabulary(self.lang, square, self.emit))
            )
            return product, self.emit(Call("reshape", (out, Const(_value_shape(product)))))
        b, vb = self.materialize(lower, True)  # type: ignore[misc]
        n, m = math.prod(b.out_shape), math.prod(b.in_shape)
        columns = self._as_matrix(b, vb, (n, m))
        dirs = Call("reshape", (Call("transpose", (columns,)), Const((m, *b.out_shape))))
        square = b.out_shape if k == 0 else ()
        out = self.emit(
            tangent(op, k, args, dirs, result, vocabulary(self.lang, square, self.emit))
        )
        moved = Call("moveaxis", (out, Const(0), Const(-1)))
        return product, self.emit(Call("reshape", (moved, Const(_value_shape(product)))))

    def _through_dense(self, a: Block, b: Block, va: Node, vb: Node, product: Block) -> Node | None:
        """``product``'s values (in its entries' order) from ``a`` and ``b`` made dense
        matrices and multiplied by one ``einsum`` where :func:`~dgraph.blocks.dense_pays`
        (pair by pair, three indices a pair held here and in the module, the Hessian of
        ``sum(cumsum(x)**2)`` at 2,000 unknowns ran out of 24 GB); else None."""
        m, k, n = (math.prod(s) for s in (a.out_shape, a.in_shape, b.in_shape))
        if not dense_pays(m, k, n, min(a.nnz * n, b.nnz * m, a.nnz * b.nnz)):
            return None  # not even at the most pairs the entry counts allow (no pass)
        rows_a, cols_a, at_a = entries(a)
        rows_b, cols_b, at_b = entries(b)
        if not dense_pays(m, k, n, _pair_count(cols_a, rows_b, k)):
            return None
        left = self._densified(a, va, (rows_a, cols_a, at_a), (m, k))
        right = self._densified(b, vb, (rows_b, cols_b, at_b), (k, n))
        optimize = (("optimize", Const(True)),)  # NumPy's einsum through BLAS, not its loops
        full = self.emit(Call("einsum", (Const("ik,kj->ij"), left, right), optimize))
        rows, cols, _ = entries(as_sparse(product) if isinstance(product, Labelled) else product)
        return Index(_ravel(full), (self.constants.index(rows.astype(np.int64) * n + cols),))

    def _running(self, a: Block, b: Block, va: Node, vb: Node, product: Block) -> Node | None:
        """A product with ``cumsum``'s block (:class:`~dgraph.blocks.cumulative.
        CumsumPattern`, its values one number: ones, maybe scaled) as the running sum it
        is: the other factor made a dense matrix, summed along the axis (``a · C`` runs
        against ``C``'s direction, ``C · b`` along it: ``cumsum``, or
        ``flip``-``cumsum``-``flip``), O(entries) where the product by the explicit
        triangle is O(length) per entry. Only where the dense matrix has no more entries
        than twice the product's, or than the pairs that meet (else None: the pairs); a
        diagonal other factor keeps the pattern (a gather: None)."""
        if isinstance(b, CumsumPattern) and _number(vb) is not None:
            pattern, other, values, scale, right = b, a, va, _number(vb), True
        elif isinstance(a, CumsumPattern) and _number(va) is not None:
            pattern, other, values, scale, right = a, b, vb, _number(va), False
        else:
            return None
        if on_the_diagonal(other):
            return None
        if isinstance(other, CumsumPattern) and (other.shape, other.axis) == (
            pattern.shape,
            pattern.axis,
        ):
            return self._lanes(pattern, other, values, scale, right, product)
        m, k, n = (math.prod(s) for s in (a.out_shape, a.in_shape, b.in_shape))
        shape = (m, k) if right else (k, n)
        if shape[0] * shape[1] > 2 * product.nnz and shape[0] * shape[1] > _pair_count(
            entries(a)[1], entries(b)[0], k
        ):  # the dense matrix larger than the product and than the pairs' work
            return None
        whole_product = isinstance(product, Labelled) and full(product)
        if not whole_product:
            rows, cols, at = entries(product)
            if at.size != _stored(product):  # a labelled product's entries share values
                return None
        matrix = self._densified(other, values, entries(other), shape)
        lanes = (m, *pattern.shape) if right else (*pattern.shape, n)
        axis = pattern.axis + 1 if right else pattern.axis
        summed = running_sum(self.emit, Call("reshape", (matrix, Const(lanes))), axis,
                             pattern.reverse == right)  # fmt: skip
        if scale != 1.0:
            summed = self.emit(_scaled(scale, summed))  # type: ignore[arg-type]
        whole = Call("reshape", (summed, Const((m, n))))
        if whole_product:
            return self.emit(Call("reshape", (whole, Const(_value_shape(product)))))
        flat = rows.astype(np.int64) * n + cols
        if isinstance(product, Labelled):  # in the order of its values
            flat = flat[np.argsort(at, kind="stable")]
        taken = Index(_ravel(self.emit(whole)), (self.constants.index(flat),))
        if isinstance(product, Labelled):
            return self.emit(Call("reshape", (taken, Const(_value_shape(product)))))
        return self.emit(taken)

    def _lanes(self, pattern, other, values: Node, scale: float, right: bool, product) -> Node:
        """Two running sums along the same axis (:func:`~dgraph.blocks.cumulative.
        _two_running`): ``other``'s entries laid out by lane, ``(*shape, length)`` (the
        row's indices, then the column's position along the axis: its other indices are
        the row's), summed along the axis :meth:`_running` sums: the column's for
        ``other · C``, the row's for ``C · other``. The lane-dense product's values are
        that array; a running sum's are gathered from it."""
        shape, axis, length = pattern.shape, pattern.axis, pattern.shape[pattern.axis]
        stride = math.prod(shape[axis + 1 :])
        rows, cols, at = entries(other)
        place = rows.astype(np.int64) * length + (cols // stride) % length
        data = self.values_at(other, values, at)
        if _number(data) is not None:
            data = Call("full", (Const(int(at.size)), data))
        size = math.prod(shape) * length
        laid = self.emit(Call("reshape", (Scatter(size, self.constants.index(place), data),
                                          Const((*shape, length)))))  # fmt: skip
        summed = running_sum(self.emit, laid, len(shape) if right else axis,
                             pattern.reverse == right)  # fmt: skip
        if scale != 1.0:
            summed = self.emit(_scaled(scale, summed))  # type: ignore[arg-type]
        if isinstance(product, Labelled):
            return summed
        rows, cols, _ = entries(product)
        place = rows.astype(np.int64) * length + (cols // stride) % length
        return self.emit(Index(_ravel(summed), (self.constants.index(place),)))

    def _as_matrix(self, block: Block, values: Node, shape: tuple[int, int]) -> Node:
        """The block's values as a dense ``shape`` matrix: a dense block's
        (:func:`~dgraph.blocks.plain_dense`) put in C order, no pattern of its entries;
        any other's placed (:meth:`_densified`)."""
        perm = plain_dense(block)
        if perm is None or _number(values) is not None:
            return self._densified(block, values, entries(block), shape)
        return self.emit(Call("reshape", (_in_c_order(block, values, perm), Const(shape))))

    def _densified(self, block: Block, values: Node, found: tuple, shape: tuple[int, int]) -> Node:
        """The block's values as a dense ``shape`` matrix (zeros off its entries)."""
        rows, cols, at = found
        data = self.values_at(block, values, at)
        if _number(data) is not None:
            data = Call("full", (Const(int(at.size)), data))
        flat = rows.astype(np.int64) * shape[1] + cols
        size = shape[0] * shape[1]
        whole = data if fills(flat, size) else Scatter(size, self.constants.index(flat), data)
        return self.emit(Call("reshape", (whole, Const(shape))))

    def _moved(self, a: Block, b: Block, va, vb) -> Valued:
        """A move (one factor a number on one pair per entry of the product) of a
        :class:`Terms`: its parts' positions moved, no statement; None where the
        product is not such a move."""
        factor = _number(va if isinstance(vb, Terms) else vb)
        if factor is None:
            return None
        _, product = multiply(a, b)
        if not isinstance(product, Sparse):  # None, or a full product made a dense block
            return None
        terms, block, other = (vb, b, a) if isinstance(vb, Terms) else (va, a, b)
        if on_the_diagonal(other) and product.nnz == block.nnz == terms.size:  # in place
            kept = None if terms.kept is None else self._undistributed(a, b, va, vb)
            return product, terms.scaled(factor, kept)
        pairs = self._pairing(a, b, product)
        if pairs is None:
            return None
        ia, ib = pairs
        terms, source = (vb, ib) if isinstance(vb, Terms) else (va, ia)
        kept = None if terms.kept is None else self._undistributed(a, b, va, vb)
        if source is every(terms.size) and product.nnz == terms.size:  # positions stay
            return product, terms.scaled(factor, kept)
        moved = []
        for where, data, taken, hit in _met(terms, source):
            size = terms.size if where is None else where.size
            text = data
            if not fills(taken, size):
                text = Index(_ravel(data), (self.constants.index(taken),))
            text = _scaled(factor, text)
            moved.append((None if fills(hit, product.nnz) else hit, text))
        if not moved:
            return None
        return product, Terms(product.nnz, tuple(moved), kept)

    def _distributed(self, a: Block, b: Block, va, vb) -> Valued:
        """A product of a :class:`Terms` and a block of values where each entry of the
        product is one pair (a diagonal scaling, a move scaled entry by entry): the
        product distributed over the parts, each part's values times the other factor's
        at the pairs it meets, so that the parts stay parts, scattered once where they
        are summed at last (the elements' second derivatives of a partially separable
        function, Griewank and Toint, 1982, each assembled once), not into the block's
        pattern first and again into the next.

        The rule (a Hessian's blocks only, ``distribute``: there the parts meet again in
        the stored lower triangle, each scattered once, :func:`~.triangle._joined`;
        elsewhere a sum's product is one statement, not one a part): distributed only
        where the block holds fewer than :data:`DISTRIBUTE_BELOW` entries, there are at
        most :data:`DISTRIBUTE_PARTS` parts (so a program's statements do not grow with the
        paths a sum gathers), the parts hold at most :data:`DISTRIBUTE` times as many
        entries as the block, and the entries computed per call do not
        rise — each part's product that varies (moved on as a part), against the varying
        parts scattered into the block's pattern now (a part of every entry is added,
        not scattered) and the sum's product (moved on as one part). A scaling by a
        constant one is not written (a part or a factor of one value is that number).
        None where an entry sums several pairs, or where the rule declines."""
        _, product = multiply(a, b)
        if not isinstance(product, Sparse):
            return None
        terms, block = (vb, b) if isinstance(vb, Terms) else (va, a)
        other, values = (a, va) if block is b else (b, vb)
        if not 2 <= terms.count <= DISTRIBUTE_PARTS or block.nnz >= DISTRIBUTE_BELOW:
            return None  # no sum; or parts that multiply; or large
        sizes = [terms.size if p is None else p.size for p, _ in terms.parts]
        if sum(sizes) > DISTRIBUTE * block.nnz:
            return None
        scaled = self.varies(values)
        varying = [self.varies(data) for _, data in terms.parts]
        summed = sum(  # the sum's varying parts scattered now, then its product moved on
            n
            for n, v, (p, _) in zip(sizes, varying, terms.parts, strict=True)
            if v and p is not None
        ) + (product.nnz if scaled or any(varying) else 0)
        if sum(n for n, v in zip(sizes, varying, strict=True) if v or scaled) > summed:
            return None  # more entries per call than the sum's
        pairs = self._pairing(a, b, product)
        if pairs is None:
            return None
        ia, ib = pairs
        source, paired = (ib, ia) if block is b else (ia, ib)
        at_other = _value_places(other)
        factor = _number(values)
        parts = []
        for where, data, taken, hit in _met(terms, source):
            size = terms.size if where is None else where.size
            one = self._one_value(data, taken)
            text = Const(one) if one is not None else _flat(data)
            if not fills(taken, size) and one is None:
                text = Index(text, (self.constants.index(taken),))
            at = None if factor is not None else _taken(at_other, paired[hit])  # not read
            same = factor if at is None else self._one_value(values, at)
            scale = Const(same) if same is not None else self.values_at(other, values, at)
            node = self._folded(scale, text) if block is b else self._folded(text, scale)
            if _number(node) is not None:  # both numbers: one per entry of the part
                node = Call("full", (Const(int(hit.size)), node))
            parts.append((None if fills(hit, product.nnz) else hit, self._assigned(node)))
        if not parts:
            return None
        return product, Terms(product.nnz, tuple(parts), self._undistributed(a, b, va, vb))

    def _undistributed(self, a: Block, b: Block, va, vb) -> Callable[[], Node]:
        """The product ``a · b`` of a :class:`Terms` as one (its values, then the
        product), computed when first asked for (:attr:`Terms.kept`)."""
        made: list[Node] = []

        def kept() -> Node:
            if not made:
                upper = self.materialize((a, va), True)
                lower = self.materialize((b, vb), True)
                made.append(self._multiply(upper, lower)[1])  # type: ignore[index]
            return made[0]

        return kept

    def _folded(self, left: Node, right: Node) -> Node:
        """``left * right`` with its numbers, each ±2ᵏ, multiplied into one
        (``2.0 * (-1.0 * x)`` is ``-2.0 * x``) and that into a module constant that is a
        factor where there is one (a new constant, made here once), else written first;
        never a factor one. The same doubles as the product as written (a product by
        ±2ᵏ is exact); with another number among them, the product as written."""
        node = BinOp("*", left, right)
        numbers = [k for f in _product_factors(node) if (k := _number(f)) is not None]
        if not numbers or not all(_two_power(k) for k in numbers):
            return _times(left, right)
        number, rest = math.prod(numbers), _numbers_left_out(node)
        if rest is None:
            return Const(number)
        if number != 1.0:
            factors = (
                [rest.left, rest.right] if isinstance(rest, BinOp) and rest.op == "*" else [rest]
            )
            for k, f in enumerate(factors):
                known = self._constant_values(f)
                if known is not None:
                    factors[k] = _ravel(self.constants.add(number * known))
                    number = 1.0
                    rest = factors[0] if len(factors) == 1 else BinOp("*", *factors)
                    break
        return _times(Const(number), rest)

    def _constant_values(self, node: Node) -> np.ndarray | None:
        """The values (as floats) of a module constant ``K``, ``ravel(K)`` or ``ravel(K)[J]``
        (``J`` an index constant); None for anything else."""
        index = None
        if isinstance(node, Index) and len(node.items) == 1 and isinstance(node.items[0], Name):
            index = self.constants.arrays.get(node.items[0].id)
            if index is None:
                return None
            node = node.value
        if isinstance(node, Call) and node.func == "ravel" and len(node.args) == 1:
            node = node.args[0]
        array = self.constants.arrays.get(node.id) if isinstance(node, Name) else None
        if array is None or array.dtype.kind not in "fiu":
            return None
        flat = np.ravel(array).astype(float)
        return flat if index is None else flat[index]

    def _one_value(self, values: Node, at: np.ndarray) -> float | None:
        """The one number ``values`` holds at the value positions ``at``: a number
        (flattened or spread, ``ravel(1.0)``), or a module constant's entries there all
        equal; else None."""
        node = values
        while isinstance(node, Call) and node.func in ("ravel", "broadcast_to") and node.args:
            node = node.args[0]
        if _number(node) is not None:
            return _number(node)
        array = self.constants.arrays.get(node.id) if isinstance(node, Name) else None
        if array is None or array.dtype.kind != "f" or array.size == 0 or at.size == 0:
            return None
        taken = np.ravel(array)[at]
        return float(taken[0]) if bool((taken == taken[0]).all()) else None

    def _pairing(self, a: Block, b: Block, product: Sparse) -> tuple | None:
        """The pairs of entries of ``a`` and ``b`` that meet, one per entry of the
        product in its order; None where an entry sums several."""
        ia, ib, ic, single = self._meeting(a, b, product)
        if not single:
            return None
        if ic is every(ic.size):  # already in the product's order
            return ia, ib
        order = np.argsort(ic, kind="stable")
        return ia[order], ib[order]

    def _meeting(self, a: Block, b: Block, product: Sparse) -> tuple:
        """The pairs of entries that meet (:func:`_meeting_pairs`), the product entry
        each adds to, and whether each entry gets one; found once per product."""
        key = (id(a), id(b))
        if key not in self._met and isinstance(product, Sparse):
            for one, other, side in ((b, a, 1), (a, b, 0)):
                if on_the_diagonal(one) and product.nnz == other.nnz:  # entry for entry
                    whole = every(other.nnz)
                    met = (whole, _side(other, 1)) if side else (_side(other, 0), whole)
                    self._met[key] = (a, b, (*met, whole, True))
                    break
        if key not in self._met and isinstance(product, Sparse):
            moved = _through_move(a, b, product)
            if moved is not None:
                self._met[key] = (a, b, moved)
        if key not in self._met:
            rows_a, cols_a, _ = entries(a)
            rows_b, cols_b, _ = entries(b)
            _refuse_many_pairs(cols_a, rows_b, a, b)
            ia, ib = _meeting_pairs(cols_a, rows_b, int(np.prod(a.in_shape)))
            ic = _permuted_positions(rows_a, cols_a, rows_b, cols_b, ia, ib, product)
            if ic is None:
                ic = _looked_up(product, rows_a[ia], cols_b[ib])
            single = ic.size == product.nnz and (
                ic.size == 0 or np.bincount(ic, minlength=product.nnz).max() == 1
            )
            self._met[key] = (a, b, (ia, ib, ic, single))  # the blocks kept: ids stay theirs
        return self._met[key][2]

    def _einsum(self, plan, a: Labelled, b: Labelled, va: Node, vb: Node) -> Node:
        left, out = plan.subscripts.split("->")
        sa, sb = left.split(",")
        cut_a = _cut(va, plan.cuts[0], _value_shape(a))
        cut_b = _cut(vb, plan.cuts[1], _value_shape(b))
        hot = self._onehot(plan, (sa, sb, out), (a, b), (va, vb), (cut_a, cut_b))
        if hot is not None:  # a gather or a segment sum, not the union's one-hot
            return _times(hot, Const(float(plan.scale))) if plan.scale != 1 else hot
        if not sa and not sb:
            text = _times(cut_a, cut_b)
        elif not sa:
            text = _times(cut_a, _one_einsum(sb, out, cut_b))
        elif not sb:
            text = _times(_one_einsum(sa, out, cut_a), cut_b)
        elif sa == sb == out:
            text = _times(cut_a, cut_b)
        else:
            text = Call("einsum", (Const(plan.subscripts), cut_a, cut_b))
        return _times(text, Const(float(plan.scale))) if plan.scale != 1 else text

    def _onehot(self, plan, subs, blocks, values, cut) -> Node | None:
        """A product with a take's (scatter-add's) union block whose values are its
        one-hot leaf (:attr:`onehots`, whole: not cut) as the gather or segment sum it
        is (:func:`~.dynamic_gathers.onehot_product`); else None."""
        sa, sb, out = subs
        for h in (0, 1):
            held, x = values[h], 1 - h
            if not (isinstance(held, Name) and held.id in self.onehots):
                continue
            shape = _value_shape(blocks[h])
            if any(
                (lo, hi) != (0, size) for (lo, hi), size in zip(plan.cuts[h], shape, strict=True)
            ):
                continue
            op, index, first = self.onehots[held.id]
            other = _value_shape(blocks[x])
            cut_shape = tuple(hi - lo for lo, hi in plan.cuts[x]) if plan.cuts[x] else other
            hot, sub = (sa, sb) if h == 0 else (sb, sa)
            if len(hot) != len(shape) or len(hot) < 2:
                continue
            if first:
                letters = (hot[0], hot[1:], tuple(shape[1:]))
            else:
                letters = (hot[-1], hot[:-1], tuple(shape[:-1]))
            found = onehot_product(op, index, letters, sub, out, cut[x], cut_shape)
            if found is not None:
                return found
        return None

    def _moved_onehot(self, upper: Valued, lower: Valued) -> Valued:
        """A reshape (in C order) of a take's output times its union block, or a
        scatter-add's union block times a reshape of its updates: the same one-hot, as
        the dense block a 1-D array's union is, its values the one-hot laid out so
        (:attr:`onehots`: still multiplied as a gather or a segment sum after); else None."""
        (a, va), (b, vb) = upper, lower  # type: ignore[misc]
        for take in (True, False):
            held, block, move, mv = (vb, b, a, va) if take else (va, a, b, vb)
            if not (isinstance(held, Name) and held.id in self.onehots):
                continue
            op = self.onehots[held.id][0]
            n, size = int(op.param["length"]), int(op.param["size"])
            if (op.primitive == DYNAMIC_TAKE) != take or _value_shape(block) != (n, size):
                continue
            ends = (block.in_shape, move.out_shape) if take else (block.out_shape, move.in_shape)
            if tuple(ends[0]) != (n,) or math.prod(ends[1]) != size:
                continue
            if getattr(move, "kind", None) != ONES or not _is_one(self._one(mv)):
                continue
            source = move_source(move)
            if source is None or not np.array_equal(source, np.arange(size)):
                continue
            index = self.onehots[held.id][1]
            if take:
                product = dense(tuple(move.out_shape), (n,), GENERAL)
                laid = Call("transpose", (held,))
                node = Call("reshape", (laid, Const((*move.out_shape, n))))
            else:
                product = dense((n,), tuple(move.in_shape), GENERAL)
                node = Call("reshape", (held, Const((n, *move.in_shape))))
            values = self.emit(node, f"{held.id}_laid")  # a name a walk keeps (Writer.rename)
            self.onehots[values.id] = (op, index, not take)
            return product, values
        return None

    def _split_onehot(self, upper: Valued, lower: Valued) -> tuple[Valued, Valued] | None:
        """A take's union block below a factor whose axis against the output positions is
        a reshape's (a triangle's corners (m, 3) against the flat 3m), or a scatter-add's
        above one (its updates): the same one-hot with that label split alike (its values
        reshaped, C order; still a one-hot, :attr:`onehots`), so that the labels line up
        and the product is a gather or a segment sum; else None."""
        for h in (1, 0):
            block, held = lower if h else upper  # type: ignore[misc]
            other = (upper if h else lower)[0]  # type: ignore[index]
            found = self.onehots.get(held.id) if isinstance(held, Name) else None
            if found is None or not found[2] or not isinstance(block, Labelled):
                continue
            op = found[0]
            if len(block.value) != 2 or (op.primitive == DYNAMIC_TAKE) != bool(h):
                continue
            if not isinstance(other, Labelled):
                continue
            done = split_label(block, other, bool(h))
            if done is None:
                continue
            split, parts = done
            value = split.value
            node = Call("reshape", (held, Const((block.sizes[value[0]], *parts))))
            values = self.emit(node, f"{held.id}_split")  # a name a walk keeps
            self.onehots[values.id] = found
            return (upper, (split, values)) if h else ((split, values), lower)
        return None

    def _relaid_onehot(self, plan, blocks, values) -> tuple[tuple, bool] | None:
        """Where a move's ones (a reshape, a transpose: no value letters) times a one-hot
        only lays its letters out again, the output positions' letters in their order and
        the input position first or last: the one-hot's (name, (op, positions)) and
        whether its input position comes first in the product (:attr:`onehots`); else
        None."""
        left, out = plan.subscripts.split("->")
        subs = left.split(",")
        if plan.scale != 1:
            return None
        for h in (0, 1):
            held, other = values[h], values[1 - h]
            found = self.onehots.get(held.id) if isinstance(held, Name) else None
            if found is None or subs[1 - h] or not _is_one(self._one(other)):
                continue
            hot, shape = subs[h], _value_shape(blocks[h])
            whole = all((lo, hi) == (0, w) for (lo, hi), w in zip(plan.cuts[h], shape, strict=True))
            if sorted(out) != sorted(hot) or not whole:
                return None
            i = hot[0] if found[2] else hot[-1]
            group = hot.replace(i, "")
            if out in (i + group, group + i):
                return (held.id, found[:2]), out[0] == i
            return None
        return None

    def _dense_onehot(self, plan, blocks, values, perms) -> Node | None:
        """:meth:`_onehot` where the union block is read as a dense block (its labels do
        not line up with the other factor's: a triangle's corners against the taken
        positions): its letters the dense block's axes, the positions' side one axis of
        the taken length, the other side's in C order the output positions."""
        left, out = plan.subscripts.split("->")
        subs = left.split(",")
        for h in (0, 1):
            held, x = values[h], 1 - h
            if perms[h] is None or not (isinstance(held, Name) and held.id in self.onehots):
                continue
            op, index, _ = self.onehots[held.id]
            block, sub = blocks[h], subs[h]
            n = int(op.param["length"])
            if op.primitive == DYNAMIC_TAKE and tuple(block.in_shape) == (n,):
                letters = (sub[-1], sub[:-1], tuple(block.out_shape))
            elif op.primitive != DYNAMIC_TAKE and tuple(block.out_shape) == (n,):
                letters = (sub[0], sub[1:], tuple(block.in_shape))
            else:
                continue
            if any(c[0] != 0 for c in plan.cuts[h]) or _value_shape(block) != (
                n,
                int(op.param["size"]),
            ):
                continue
            other = _in_c_order(blocks[x], values[x], perms[x])
            shape = (
                (*blocks[x].out_shape, *blocks[x].in_shape) if perms[x] else _value_shape(blocks[x])
            )
            cut = _cut(other, plan.cuts[x], shape)
            cut_shape = tuple(hi - lo for lo, hi in plan.cuts[x]) if plan.cuts[x] else shape
            found = onehot_product(op, index, letters, subs[x], out, cut, cut_shape)
            if found is not None:
                return _times(found, Const(float(plan.scale))) if plan.scale != 1 else found
        return None

    def _assigned(self, node: Node) -> Node:
        """A name or a number as it is; an expression assigned to a new name."""
        if isinstance(node, Name) or _number(node) is not None:
            return node
        return self.emit(node)

    def _pairs(self, a: Block, b: Block, va: Node, vb: Node, product: Sparse) -> Node:
        """The sparse product: for every pair of entries that meet, the product of their
        values, summed into the product's entry (``multiply_values``'s result order)."""
        ia, ib, ic, single = self._meeting(a, b, product)
        if single and ic is not every(ic.size):  # one pair per entry: no sum, a gather
            order = np.argsort(ic, kind="stable")
            ia, ib = ia[order], ib[order]
        left = self._at(a, va, ia)
        right = self._at(b, vb, ib)
        data = _times(left, right)
        if _number(data) is not None:  # both factors numbers: one per pair
            data = Call("full", (Const(int(ic.size)), data))
        if single:
            return data
        return SegmentSum(data, self.constants.index(ic), product.nnz)

    def _at(self, block: Block, values: Node, where: np.ndarray) -> Node:
        """The values at the block's entries ``where``; a number as it is (every entry of
        a scaled move: its value places not taken, 10⁶ and more of them), a move's ones
        the number 1 (a pair's product by it not written, not a gather of ones)."""
        if _number(values) is not None:
            return values
        if isinstance(values, Name) and values.id in self.ones:  # a move's ones: 1
            return _ONES
        return self.values_at(block, values, _taken(_value_places(block), where))

    # -- sums --------------------------------------------------------------------------

    def add(self, first: Valued, second: Valued) -> Valued:
        """``first + second`` with its values (``add_values``)."""
        if first is None or second is None:
            return first if second is None else second
        first, second = self._as_summed(first), self._as_summed(second)
        if same_order(first[0], second[0]):  # one permutation: its row values added
            rows = BinOp("+", Index(first[1], (Const(0),)), Index(second[1], (Const(0),)))
            sources = Index(first[1], (Const(1),))
            return first[0], self.emit(Call("stack", (Seq((rows, sources)),)))
        if isinstance(first[0], Permutation) or isinstance(second[0], Permutation):
            first, second = (self._structural(x) for x in (first, second))
        (a, va), (b, vb) = first, second
        keyed = self._keyed_sum(a, b, va, vb)
        if keyed is not None:
            return keyed
        total, placed = _sum_placed(a, b)
        onto = self._onto_dense(a, b, va, vb, total)
        if onto is not None:
            return onto
        if isinstance(total, Labelled) and same_structure(a, b):
            parts = [_aligned(block, v, total) for block, v in ((a, va), (b, vb))]  # type: ignore[arg-type]
            return total, self.emit(BinOp("+", parts[0], parts[1]))
        width = max(1, int(np.prod(a.in_shape)))
        made_dense = isinstance(total, Labelled)  # different structures, one of them full
        if placed is None and not made_dense:
            placed = _merged(a, b, total)  # type: ignore[arg-type]
        keys = None
        if not made_dense and placed is None:
            keys = total.rows * width + total.cols  # type: ignore[union-attr]
        size = total.nnz
        parts = []  # each summand's parts and the positions in the sum they go to
        for k, (block, v) in enumerate(((a, va), (b, vb))):
            if placed is not None:
                where = placed[k]
                at = _value_places(block)
            else:  # a dense block's C order is the flat index itself
                rows, cols, at = entries(block)
                flat = rows * width + cols
                where = flat if made_dense else _positions(keys, flat)
            if isinstance(v, Terms):
                if fills(where, size):  # each part's positions as they are
                    parts += [(where if p is None else p, data) for p, data in v.parts]
                else:
                    parts += [(where if p is None else where[p], data) for p, data in v.parts]
            else:
                parts.append((where, self.values_at(block, v, at)))
        terms = Terms(size, tuple((None if fills(p, size) else p, d) for p, d in parts))
        if not made_dense:
            return total, terms
        _, summed = self.materialize((total, terms))
        shape = (*total.out_shape, *total.in_shape)
        return total, self.emit(Call("reshape", (summed, Const(shape))))

    def _onto_dense(self, a: Block, b: Block, va, vb, total: Block) -> Valued:
        """A sum made dense whose summand is a dense block (:func:`~dgraph.blocks.
        plain_dense`) of at least :data:`~dgraph.blocks.SPLIT_FROM` entries
        and the other one of fewer entries: the other's values added onto
        the dense one's in C order (one scatter-add of its entries), no index array of
        every entry. None where that does not apply."""
        if not isinstance(total, Labelled) or same_structure(a, b) or not full(total):
            return None
        for (dense_block, vd), (other, vo) in (((a, va), (b, vb)), ((b, vb), (a, va))):
            perm = plain_dense(dense_block)
            if perm is None or isinstance(vd, Terms) or isinstance(vo, Terms):
                continue
            if other.nnz >= dense_block.nnz or dense_block.nnz < SPLIT_FROM:
                continue  # (small sums keep the code they had)
            rows, cols, at = entries(other)
            data = self.values_at(other, vo, at)
            if _number(data) is not None:
                data = Call("full", (Const(int(at.size)), data))
            flat = rows.astype(np.int64) * max(1, math.prod(total.in_shape)) + cols
            base = self.emit(_ravel(_in_c_order(dense_block, vd, perm)))
            summed = self.emit(ScatterAdd(base, ((self.constants.index(flat), data),)))
            shape = (*total.out_shape, *total.in_shape)
            return total, self.emit(Call("reshape", (summed, Const(shape))))
        return None

    def _keyed_sum(self, a: Block, b: Block, va, vb) -> Valued:
        """``a + b`` where a summand is :class:`Terms` and the sum is sparse: the sum's
        parts kept by their origins (:data:`Keyed`), a keyed summand's parts as they are,
        the other's entries with it as their origin; no summand placed in the sum's
        pattern. None where that does not apply."""
        if not (isinstance(va, Terms) or isinstance(vb, Terms)):
            return None
        total = add(a, b)
        if not isinstance(total, Sparse):
            return None
        keyed: list[Keyed] = []
        for block, v in ((a, va), (b, vb)):
            if isinstance(v, Terms):
                found = v.keys_in(block)
                if found is None:
                    found = tuple((block, p, d) for p, d in v.parts)
                keyed += found
            else:
                keyed.append((block, None, self.values_at(block, v, entries(block)[2])))
        return total, Terms(total.nnz, None, None, (total, tuple(keyed)))

    def _structural(self, valued: Valued) -> Valued:
        """A run-time permutation as the union of its patterns (one-hot values)."""
        block, values = valued  # type: ignore[misc]
        return structural_of(self, block, values)

    def scale(self, valued: Valued, coefficient: float) -> Valued:
        if valued is None or coefficient == 1:
            return valued
        block, values = valued
        if isinstance(block, Permutation):
            return scale_permutation(self, block, values, coefficient)
        if isinstance(values, Terms):
            _, values = self._as_summed(valued)  # type: ignore[misc]
            return block, values.scaled(coefficient, None)
        return block, self._assigned(_times(Const(coefficient), values))


def _met(terms: Terms, source: np.ndarray) -> Iterator[tuple]:
    """Each part of ``terms`` that ``source`` (entries of the sum, one a product entry)
    meets, in order: ``(where, data, taken, hit)``, ``hit`` the product entries the part
    reaches (ascending) and ``taken`` each one's place in the part. The parts with
    positions are met all at once: their positions sorted together, each source entry
    looked up there (each position once a part). Part by part, a pass over ``source``
    for each of P parts made the moves of a long recurrence's sums quadratic (an
    unrolled biquad at 80 samples: 113,760 parts met, 1,422 of them reached)."""
    parts = terms.parts
    listed = [k for k, (where, _) in enumerate(parts) if where is not None]
    found: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    if listed and source.size:
        sizes = np.array([np.size(parts[k][0]) for k in listed], dtype=np.int64)
        positions = np.concatenate([np.ravel(parts[k][0]) for k in listed])
        starts = np.cumsum(sizes) - sizes
        order = np.argsort(positions, kind="stable")
        ordered = positions[order]
        lo = np.searchsorted(ordered, source, "left")
        count = np.searchsorted(ordered, source, "right") - lo
        total = int(count.sum())
        if total:
            hit = np.repeat(np.arange(source.size), count)
            step = np.arange(total) - np.repeat(np.cumsum(count) - count, count)
            at = order[np.repeat(lo, count) + step]  # each match's place in ``positions``
            part = np.repeat(np.arange(len(listed)), sizes)[at]
            by = np.lexsort((hit, part))  # by part, then by product entry
            part, hit, place = part[by], hit[by], (at - starts[part])[by]
            cuts = np.flatnonzero(np.diff(part)) + 1
            dtype = _narrowest(terms.size)
            for p, h, t in zip(*(np.split(a, cuts) for a in (part, hit, place)), strict=True):
                found[listed[int(p[0])]] = (t.astype(dtype), h)
    for k, (where, data) in enumerate(parts):
        if where is None:
            if source.size:
                yield where, data, source, every(source.size)
        elif k in found:
            yield (where, data, *found[k])


def _narrowest(size: int) -> type:
    """int32 for positions among ``size`` entries where they fit, else int64 (index
    arrays of 10⁷ entries: half the memory to fill and read)."""
    return np.int32 if size < 2**31 else np.int64


def _taken(at: np.ndarray, where: np.ndarray) -> np.ndarray:
    """``at[where]``; ``where`` itself where ``at`` is every position in order. A
    labelled block's positions (int64, each below its entry count) read in int32 where
    that count fits: what is taken is then a module constant in int32 already, not
    narrowed again after the gather (10⁶ positions narrowed against 3·10⁶ taken). Where
    ``at`` is every position in order but not that array (a diagonal's values, C order
    along its labels), ``where`` itself too: one pass over ``at``, no gather."""
    if at is every(at.size) or _in_order(at):
        return where
    if at.dtype == np.int64 and _narrowest(at.size) is np.int32:
        at = at.astype(np.int32)
    return at[where]


def _in_order(at: np.ndarray) -> bool:
    """Whether ``at`` is 0, 1, ..., at.size - 1 (its ends first: one comparison for
    most positions that are not)."""
    size = at.size
    return size > 0 and at[0] == 0 and at[-1] == size - 1 and _increasing(at)


def _positions(keys: np.ndarray, found: np.ndarray) -> np.ndarray:
    """Where each of ``found`` is in the sorted ``keys`` (all there): a search, or, where
    ``found`` is ``keys`` itself (a block that fills the pattern in order), every place."""
    if found.size == keys.size and np.array_equal(found, keys):
        return every(keys.size)
    return np.searchsorted(keys, found)


def _looked_up(product: Sparse, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Where each entry ``(rows[i], cols[i])`` sits in ``product`` (all there): each
    looked up within its row of the CSR pattern (SciPy's element indexing of a matrix
    valued by position, a search among a row's few entries), not among all entries of
    the product (10⁷ flat keys searched at 10⁶ unknowns, several times slower). Every
    place in order, as :func:`_positions` gives it, where they are the product's entries
    in order."""
    import scipy.sparse  # here: importing dgraph stays light

    shape = (int(np.prod(product.out_shape)), max(1, int(np.prod(product.in_shape))))
    if rows.size == 0:
        return every(0) if product.nnz == 0 else np.zeros(0, dtype=np.int64)
    matrix = scipy.sparse.csr_array((every(product.nnz), product.cols, product.indptr), shape=shape)
    matrix.has_canonical_format = True  # sorted and distinct within each row
    found = matrix[rows, cols]
    if not isinstance(found, np.ndarray):  # a sparse result (none in the SciPy used here)
        width = shape[1]
        return _positions(product.rows * width + product.cols, rows * width + cols)
    found = np.asarray(found).reshape(-1)  # a matrix (1, n) in older SciPy
    if found.size == product.nnz and _increasing(found):  # n distinct places of n
        return every(found.size)
    return found


def _sum_placed(a: Block, b: Block) -> tuple[Block, list[np.ndarray] | None]:
    """``a + b`` (:func:`~dgraph.blocks.add`) and, where it is the union of two large
    patterns not formed before, where each summand's entries sit in it (:func:`_merged`),
    both from one merge (the union is the merge's pattern, remembered as ``add`` would
    remember it); else the sum ``add`` gives and None."""
    if (
        (a.nnz <= SMALL and b.nnz <= SMALL)
        or a is b
        or same_structure(a, b)
        or full(a)
        or full(b)
        or remembered_sum(a, b) is not None
    ):
        return add(a, b), None
    merged = _flagged_merge(a, b)
    if merged is None:
        return add(a, b), None
    union, held = merged
    kind = max(a.kind, b.kind, CONSTANT)
    total = Sparse(a.out_shape, a.in_shape, None, union.indices, kind, indptr=union.indptr)
    remember_sum(a, b, total)
    return total, _places(held, total.nnz)


def _merged(a: Block, b: Block, total: Sparse) -> list[np.ndarray] | None:
    """Where each entry of ``a`` and of ``b`` (in :func:`entries` order) sits in their
    sum ``total`` (:func:`_flagged_merge`); None where a labelled block's entries are
    not in row-major order (a search then). The flags of the merge that made ``total``
    where it is pricing's (:func:`~dgraph.blocks.merge_flags`): no merge again."""
    for k, (whole, other) in enumerate(((a, b), (b, a))):
        if whole.nnz == total.nnz and _entries_row_major(whole):  # it holds the other
            rows, cols, _ = entries(other)
            places = [every(total.nnz), _looked_up(total, rows, cols)]
            return places[::-1] if k else places
    kept = merge_flags(a, b, total)
    if kept is not None and all(_entries_row_major(x) for x in (a, b)):
        flags, swapped = kept
        places = _places(flags, total.nnz)
        return places[::-1] if swapped else places
    merged = _flagged_merge(a, b)
    if merged is None:
        return None
    if merged[1].size != total.nnz:
        raise ValueError("block sum: the merged pattern is not the sum's")  # not by construction
    return _places(merged[1], total.nnz)


def _entries_row_major(block: Block) -> bool:
    """Whether the block's entries (:func:`entries`) are in row-major order, as its
    pattern's in a merge: a sparse block's always, a labelled one's where its labels
    read the rows first."""
    return isinstance(block, Sparse) or _row_major(*entries(block)[:2])


def _places(held: np.ndarray, size: int) -> list[np.ndarray]:
    """The entries of a flagged merge (:func:`_flagged_merge`) that hold one of a's and
    one of b's: every entry, in order, for a summand whose pattern holds the other's."""
    places = []
    for flag in (1, 2):
        mine = _flagged(held, flag)
        count = int(np.count_nonzero(mine))
        places.append(every(size) if count == size else _nonzero_narrow(mine, count))
    return places


def _flagged(held: np.ndarray, flag: int) -> np.ndarray:
    """Per entry of a flagged merge, whether it holds ``flag`` (1 or 2), as booleans:
    the flags' bits as bytes of 0 and 1 read in place as ``bool`` (flatnonzero reads
    booleans some three times faster than int8: 15 against 45 ms for 7·10⁶ entries)."""
    if held.dtype != np.int8:  # not by construction: a merge of int8 flags
        return (held & flag) != 0
    bits = held & 1 if flag == 1 else held >> 1  # 1, 2, 3: each bit 0 or 1
    return bits.view(bool)


_CHUNK = 1 << 16  # entries per pass of :func:`_nonzero_narrow`: 512 kB of int64 at a time,
# in cache and reused (32 MB chunks took twice the CPU at 7·10⁶ flags: each a fresh
# allocation, its pages faulted in, then read again to narrow)


def _nonzero_narrow(flags: np.ndarray, count: int) -> np.ndarray:
    """``np.flatnonzero(flags)`` (``count`` of them) in :func:`_narrowest`'s integers,
    found a chunk at a time: never the whole int64 array (10⁷ positions at 10⁶ unknowns,
    held through the walk)."""
    dtype = _narrowest(flags.size)
    if dtype is np.int64 or flags.size <= _CHUNK:
        return np.flatnonzero(flags).astype(dtype, copy=False)
    found = np.empty(count, dtype=dtype)
    filled = 0
    for start in range(0, flags.size, _CHUNK):
        part = np.flatnonzero(flags[start : start + _CHUNK])
        part += start
        found[filled : filled + part.size] = part
        filled += part.size
    if filled != count:
        raise ValueError("flagged merge: the count of flags changed")  # not by construction
    return found


def _flagged_merge(a: Block, b: Block):
    """The union of the two patterns as one linear merge (SciPy's ``csr_plus_csr``), a's
    entries valued 1 and b's 2, so that each entry of the sum reads whether it holds one
    of a's (odd), of b's (2 or 3) or both; a merge keeps each summand's row-major order,
    so a's k-th entry is the k-th of the sum that holds one of a's. It replaces a search
    of every entry's flat index in the sum's (10⁷ of them a sum at 10⁶ unknowns). The
    merged CSR matrix and its flags; None where a labelled block's entries are not in
    row-major order."""
    import scipy.sparse  # here: importing dgraph stays light

    shape = (int(np.prod(a.out_shape)), max(1, int(np.prod(a.in_shape))))
    flagged = []
    for block, flag in ((a, 1), (b, 2)):
        if not isinstance(block, Sparse):
            rows, cols, _ = entries(block)
            if not _row_major(rows, cols):
                return None
            block = sparse(block.out_shape, block.in_shape, rows, cols)  # the same order
        matrix = scipy.sparse.csr_array(
            (np.full(block.nnz, flag, dtype=np.int8), block.cols, block.indptr), shape=shape
        )
        matrix.has_canonical_format = True  # sorted and distinct within each row
        flagged.append(matrix)
    union = flagged[0] + flagged[1]  # 1, 2 or 3: no entry sums to 0 and is dropped
    return union, union.data


_ONES = Const(1.0)  # a move's ones(nnz) read as a number (BlockOps._one)


def _one_pair_number(a: Block, b: Block, va: Node, vb: Node, product: Block) -> Node | None:
    """The values of a sparse ``a · b`` whose factors' values are numbers (one of them may
    be a move's ones, :data:`_ONES`; not both: a product of moves keeps its arrays) and
    whose entries are each one pair (``a`` at most one entry a row, or ``b`` one a
    column: a move, a slice, a flip): their product, one number for every entry (a
    slice or a flip of cumsum's ones stays the number 1); else None."""
    x, y = _number(va), _number(vb)
    if x is None or y is None or not isinstance(product, Sparse) or va is vb is _ONES:
        return None
    if not (_at_most_one(entries(a)[0]) or _at_most_one(entries(b)[1])):
        return None
    return Const(x * y)


def _stored(block: Block) -> int:
    """The values a block holds: one per entry of a sparse one (whatever it counts)."""
    return block.nnz if isinstance(block, Sparse) else block.stored


def running_sum(emit: Callable[[Node], Node], x: Node, axis: int, forward: bool) -> Node:
    """``x``'s running sum along ``axis``: ``cumsum``, or ``flip(cumsum(flip(x)))`` the
    other way (each a statement: the C printers write ``cumsum`` as one)."""
    where = (("axis", Const(axis)),)
    if forward:
        return emit(Call("cumsum", (x,), where))
    flipped = emit(Call("flip", (x, Const(axis))))
    return emit(Call("flip", (emit(Call("cumsum", (flipped,), where)), Const(axis))))


def values_at(constants: Constants, block: Block, values: Node, at) -> Node:
    """The block's values at these flat value indices (all of them, in order: no gather);
    a sparse block's one number for all its entries (cumsum's ones) spread to each."""
    if isinstance(block, Sparse) and _number(values) is not None:
        return Call("full", (Const(int(np.size(at))), values))
    size = int(np.prod(_value_shape(block)))
    flat = _ravel(values)
    if fills(np.asarray(at), size):
        return flat
    return Index(flat, (constants.index(at),))


def _is_one(values: Node) -> bool:
    """Whether ``values`` are ones: the number 1, or a move's ones (:class:`_Ones`)."""
    return values is _ONES or _number(values) == 1.0


def _ravel(values: Node) -> Node:
    return Call("ravel", (values,))


def _flat(node: Node) -> Node:
    """``node``'s values as a vector: each name under its arithmetic flattened (an
    expression's leaves, not the expression: its gathers stay in reach of the printers
    that write them through views); a number as it is."""
    if _number(node) is not None or (isinstance(node, Call) and node.func == "ravel"):
        return node
    if isinstance(node, BinOp):
        return BinOp(node.op, _flat(node.left), _flat(node.right))
    if isinstance(node, UnaryOp):
        return UnaryOp(node.op, _flat(node.operand))
    return _ravel(node)


def _number(node: Node) -> float | None:
    return _node_number(node)


def _scaled(number: float, node: Node) -> Node:
    """``number * node``, a number that ``node`` is scaled by multiplied in where that
    gives the same doubles (``2.0 * (-1.0 * x)`` is ``-2.0 * x``); a factor one left out."""
    inner = _number(node.left) if isinstance(node, BinOp) and node.op == "*" else None
    if inner is not None and (_two_power(number) or _two_power(inner)):
        number, node = number * inner, node.right  # type: ignore[union-attr]
    return _times(Const(number), node)


def _two_power(c: float) -> bool:
    """Whether ``c`` is ±2ᵏ (k ≥ 0): a product by it is exact (short of overflow), so
    that ``c · (d · x)`` is ``(c·d) · x`` to the bit."""
    m, e = math.frexp(abs(c))
    return m == 0.5 and e >= 1


def _numbers_left_out(node: Node) -> Node | None:
    """A product ``node`` without its numbers, its other factors as they were nested;
    None where it is numbers alone."""
    if _number(node) is not None:
        return None
    if not (isinstance(node, BinOp) and node.op == "*"):
        return node
    left, right = _numbers_left_out(node.left), _numbers_left_out(node.right)
    if left is None or right is None:
        return right if left is None else left
    return BinOp("*", left, right)


def _product_factors(node: Node) -> list[Node]:
    """The factors of a product ``a * (b * c) ...`` in order (``node`` alone if none)."""
    if isinstance(node, BinOp) and node.op == "*":
        return [*_product_factors(node.left), *_product_factors(node.right)]
    return [node]


def _cut(values: Node, cuts, shape: tuple[int, ...]) -> Node:
    if all(lo == 0 and hi == n for (lo, hi), n in zip(cuts, shape, strict=True)):
        return values
    return Index(values, tuple(Slice(int(lo), int(hi)) for lo, hi in cuts))


def _one_einsum(sub: str, out: str, values: Node) -> Node:
    return values if sub == out else Call("einsum", (Const(f"{sub}->{out}"), values))


def _aligned(block: Labelled, values: Node, total: Labelled) -> Node:
    """A summand's values with axes in the sum's value order and 1 where it has none."""
    if not block.value:
        return values
    order = first_appearance(block)
    ranks = sorted(range(len(block.value)), key=lambda i: order[block.value[i]])
    node = (
        values
        if ranks == list(range(len(ranks)))
        else Call("transpose", (values, Const(tuple(ranks))))
    )
    canonical = block.canonical()
    shape = tuple(canonical.sizes[k] if k in canonical.value else 1 for k in total.value)
    now = tuple(block.sizes[block.value[r]] for r in ranks)
    return node if shape == now else Call("reshape", (node, Const(shape)))


def _monotone_move(block: Block) -> tuple[np.ndarray, np.ndarray] | None:
    """The entries (rows, columns) of a block of ones with at most one entry in each row
    and each column, both increasing (a slice, a pad, a shift, an order-keeping
    selection or embedding); None for any other block."""
    if block.kind != ONES:
        return None
    if isinstance(block, Sparse):
        if block.nnz and np.diff(block.indptr).max() > 1:
            return None
        rows, cols = block.rows, block.cols
    else:
        rows, cols, _ = pattern(block)
        if not _increasing(rows):
            return None
    return (rows, cols) if _increasing(cols) else None


def _through_move(a: Block, b: Block, product: Sparse) -> tuple | None:
    """:meth:`BlockOps._meeting` where a factor is a :func:`_monotone_move`: each entry of
    the other factor that meets the move gives one entry of the product, in the other's
    order (the move keeps rows and columns in order), so the pairs are found by one
    lookup of the move's entry at each of the other's shared indices, and the product's
    entries are the pairs in order. None where neither factor is such a move."""
    for move, side in ((a, 0), (b, 1)):
        found = _monotone_move(move)
        if found is None:
            continue
        rows, cols = found
        other = b if side == 0 else a
        if not isinstance(other, Sparse):
            other_rows, other_cols, _ = entries(other)
            if not _row_major(other_rows, other_cols):
                return None
        shared = cols if side == 0 else rows
        size = int(np.prod(move.in_shape if side == 0 else move.out_shape))
        entry = np.full(size, -1, dtype=_narrowest(shared.size))
        entry[shared] = every(shared.size)
        if side == 0 and isinstance(other, Sparse) and "rows" not in other.__dict__:
            at = np.repeat(entry, np.diff(other.indptr))  # each row's entry, row by row
        else:
            at = entry[_side(other, side)]  # at the other's index the move's entries meet
        met = at >= 0
        count = int(np.count_nonzero(met))
        if count != product.nnz:
            return None  # not by construction
        if count == at.size:  # every entry of the other meets the move
            kept, mine = every(count), at
        else:
            kept = _nonzero_narrow(met, count)  # int32 where they fit, as ``mine``
            # nearly all met (a slice of a pad): the flags compress ``at`` in one pass,
            # some twice as fast as a gather at ``kept`` (10⁷ entries at 10⁶ unknowns)
            mine = at[met] if 16 * count >= 15 * at.size else at[kept]
        pairs = (mine, kept) if side == 0 else (kept, mine)
        return (*pairs, every(count), True)
    return None


def _value_places(block: Block) -> np.ndarray:
    """Each entry's index into the block's flattened values (:func:`entries`'s third;
    a sparse block's rows not made for it)."""
    return every(block.nnz) if isinstance(block, Sparse) else entries(block)[2]


def _side(block: Block, side: int) -> np.ndarray:
    """The flat rows (``side`` 0) or columns (1) of the block's entries, in
    :func:`entries` order (a sparse block's rows, where not made before, made for the
    caller alone in :func:`_narrowest`'s integers: 10⁷ of them in int32, not kept on
    the block in int64 and narrowed again as a module constant)."""
    if isinstance(block, Sparse):
        if side == 1:
            return block.cols
        if type(block) is not Sparse or "rows" in block.__dict__:  # made already, or
            return block.rows  # a structured pattern's own
        held = _ROWS.get(id(block))
        if held is not None and held[0]() is block:  # made for an earlier product
            return held[1]
        counts = np.diff(block.indptr)  # else made here, in the narrowest integers
        rows = np.repeat(np.arange(counts.size, dtype=_narrowest(counts.size)), counts)
        rows.setflags(write=False)
        _ROWS[id(block)] = (weakref.ref(block, _forget_rows(id(block))), rows)
        while len(_ROWS) > ROWS_KEPT:
            _ROWS.pop(next(iter(_ROWS)))
        return rows
    return entries(block)[side]


ROWS_KEPT = 16  # sparse blocks whose rows :func:`_side` keeps: the minimal surface's
# Hessian reads six blocks' rows twice each, up to 14 products apart (3·10⁶ rows each at
# 10⁶ unknowns, each then a module constant that holds them anyway)
_ROWS: dict[int, tuple[weakref.ref, np.ndarray]] = {}  # by the block's id
FORGETS.append(_ROWS.clear)


def _forget_rows(key: int) -> Callable[[weakref.ref], None]:
    """A block's rows let go with the block (its id may then name another). The dict is
    bound now: a block freed as the interpreter exits finds the module's names gone."""
    kept = _ROWS

    def forget(ref: weakref.ref) -> None:
        held = kept.get(key)
        if held is not None and held[0] is ref:
            del kept[key]

    return forget


def _permuted_positions(
    rows_a: np.ndarray,
    cols_a: np.ndarray,
    rows_b: np.ndarray,
    cols_b: np.ndarray,
    ia: np.ndarray,
    ib: np.ndarray,
    product: Sparse,
) -> np.ndarray | None:
    """The product entry of each pair where one factor is a partial permutation (at most
    one entry in each row and column: a slice, a pad, a shift), read off the other
    factor's row-major order instead of searched for; None otherwise.

    ``a`` such: the product's row ``r`` is ``b``'s row ``k`` whole (``a[r, k]`` its
    entry), in its order. ``b`` such, mapping columns in increasing order: the product is
    ``a``'s entries that meet one, in ``a``'s order."""
    if _at_most_one(rows_a) and _at_most_one(cols_a) and _row_major(rows_b, cols_b):
        counts = np.bincount(rows_b)
        start = np.cumsum(counts) - counts  # where each row of b starts
        return product.indptr[rows_a[ia]] + (ib - start[rows_b[ib]])
    if (
        _at_most_one(rows_b)
        and _at_most_one(cols_b)
        and ia.size == product.nnz
        and _row_major(rows_a, cols_a)
        and _increasing(rows_b)
        and _increasing(cols_b)
    ):
        if _increasing(ia):
            return every(ia.size)
        met = np.zeros(rows_a.size, dtype=bool)
        met[ia] = True
        return (np.cumsum(met) - 1)[ia]  # its rank among a's entries that meet one
    return None


def _at_most_one(index: np.ndarray) -> bool:
    return index.size == 0 or np.bincount(index).max() <= 1


def _increasing(values: np.ndarray) -> bool:
    return bool(np.all(values[1:] > values[:-1]))


def _row_major(rows: np.ndarray, cols: np.ndarray) -> bool:
    """Whether the entries are in row-major order (each once)."""
    if rows.size < 2:
        return True
    step = rows[1:] - rows[:-1]
    return bool(np.all((step > 0) | ((step == 0) & (cols[1:] > cols[:-1]))))


PAIRS_MOST = 3 * 10**8
"""Pairs of entries a product's code multiplies one by one, at most: three indices each,
held while the code is made and in the module (some 7 GB here)."""


def _pair_count(cols_a: np.ndarray, rows_b: np.ndarray, inner: int) -> int:
    """The pairs of entries that meet in a product: Σ_k (a's entries in column k) · (b's
    in row k)."""
    count_a = np.bincount(cols_a, minlength=inner).astype(np.int64)
    return int(count_a @ np.bincount(rows_b, minlength=inner).astype(np.int64))


def _refuse_many_pairs(cols_a: np.ndarray, rows_b: np.ndarray, a: Block, b: Block) -> None:
    """Refuse, in one line, a product that pairs more than :data:`PAIRS_MOST` entries (and
    was not done as dense matrices): its indices would exhaust the memory."""
    pairs = _pair_count(cols_a, rows_b, math.prod(a.in_shape))
    if pairs > PAIRS_MOST:
        raise DGraphError(
            f"a product of blocks {a.out_shape} x {a.in_shape} and {b.out_shape} x"
            f" {b.in_shape} pairs {pairs:,} entries (at most {PAIRS_MOST:,}, and its dense"
            " matrices would be larger): its code would not fit in memory"
        )


def _meeting_pairs(
    cols_a: np.ndarray, rows_b: np.ndarray, mid: int
) -> tuple[np.ndarray, np.ndarray]:
    """Every (i, j) with ``cols_a[i] == rows_b[j]``, vectorized: in the order of a's
    entries, each meeting the entries of b's row ``cols_a[i]`` in b's order (for
    row-major factors: the pairs by a's row, each entry's pairs in the order of the
    shared index, so that the pairs summed into one product entry come in that order
    and a search of their places reads the product nearly in order)."""
    count_a = np.bincount(cols_a, minlength=mid)
    count_b = np.bincount(rows_b, minlength=mid)
    if count_a.max(initial=0) <= 1 or count_b.max(initial=0) <= 1:  # a move: a lookup
        one_a = count_a.max(initial=0) <= 1
        index = np.full(mid, -1, dtype=np.int64)
        single, other = (cols_a, rows_b) if one_a else (rows_b, cols_a)
        index[single] = np.arange(single.size)
        found = index[other]
        keep = np.flatnonzero(found >= 0)
        return (found[keep], keep) if one_a else (keep, found[keep])
    # each of a's entries meets the count_b[k] entries of b's row k, one run each
    order_b = _stable_order(rows_b)
    runs = count_b[cols_a]
    ia = np.repeat(np.arange(cols_a.size), runs)
    ib = np.arange(ia.size, dtype=np.int64)
    start_b = np.cumsum(count_b) - count_b
    ib += np.repeat(start_b[cols_a] - (np.cumsum(runs) - runs), runs)
    return ia, (ib if order_b is None else order_b[ib])


def _stable_order(keys: np.ndarray) -> np.ndarray | None:
    """The stable order that sorts ``keys``; None where they are in order already (a
    sparse block's rows are)."""
    if keys.size < 2 or bool(np.all(keys[1:] >= keys[:-1])):
        return None
    return np.argsort(keys, kind="stable")
