"""``conv_general_dilated`` (jax.lax's convolution) as an array operation: its value, and
its two blocks, each a :class:`ConvPattern`: the convolution itself, its pattern and
values implied by it.

The convolution is bilinear: every output entry is a sum of products ``lhs[a] · rhs[b]``,
one per *term*: an output position, an input feature of its group and a kernel tap whose
input pixel lies inside the (dilated, padded) input. ∂out/∂lhs has an entry (output, lhs)
per term — each such pair is read by exactly one term (for fixed output and feature the
tap is fixed by the input pixel), so the entries are distinct — whose value is the kernel
entry that term reads: a multi-channel stencil, per tap a shifted (strided) selection of
the input times the kernel's feature matrix at that tap. ∂out/∂rhs likewise, valued by
lhs entries. A block holds the params and shapes only (:class:`ConvPattern`): its entries
are counted from the geometry (:class:`Layout`), its values are the other operand, held
once (:class:`ConvValues`), applied to vectors by kernel taps (:func:`apply`,
:func:`adjoint`) and printed as a convolution in the tangent and adjoint code
(:mod:`dgraph.codegen.tensor.convolution`). A product with a diagonal is the same block;
a product with another convolution's block is one per group of axes
(:class:`KronPattern`: the batch and feature coupling, and per spatial axis which output
reads which input pixel). Where an explicit pattern is asked for (a sum with another
block, a product with any other block, the generated Jacobian's gathers
``ravel(rhs)[K]``), :func:`terms` lists the terms as three flat index arrays (output, lhs,
rhs) and the block its entries and, per entry, the flat index of the other operand's entry
that is its value (:class:`ConvBlock`). Where the other operand is a constant, its zeros
are left out of the pattern.

The params are jax.lax's (the jaxpr equation's): ``window_strides``, ``padding`` (a
(low, high) pair per spatial axis, either may be negative), ``lhs_dilation``,
``rhs_dilation``, ``dimension_numbers`` (``lhs_spec``, ``rhs_spec``, ``out_spec``: the
array axes of batch/feature/spatial, of out-feature/in-feature/spatial and of
batch/feature/spatial), ``feature_group_count`` and ``batch_group_count``, with XLA's
meaning (the output features split into groups, group g reading lhs features
``g·I .. (g+1)·I`` — or lhs batch ``g·N' .. (g+1)·N'`` for batch groups).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from ..errors import InputError
from . import CONSTANT, FORGETS, GENERAL, ONES, STRUCTURED_PRODUCTS, Listed, Sparse, sparse
from .operator_values import OperatorValues

__all__ = [
    "CONV",
    "PARAMS",
    "ConvBlock",
    "ConvPattern",
    "ConvValues",
    "Factor",
    "KronPattern",
    "Layout",
    "adjoint",
    "apply",
    "conv_block",
    "conv_of",
    "conv_value",
    "forward",
    "kron_product",
    "layout",
    "terms",
]

CONV = "conv_general_dilated"
PARAMS = (
    "window_strides",
    "padding",
    "lhs_dilation",
    "rhs_dilation",
    "dimension_numbers",
    "feature_group_count",
    "batch_group_count",
)


class Terms(NamedTuple):
    """The products a convolution sums: flat indices into the output, lhs and rhs, one
    per term, sorted by output (then lhs) index."""

    out_shape: tuple[int, ...]
    out: np.ndarray
    lhs: np.ndarray
    rhs: np.ndarray


def _ints(value: Any, n: int, name: str, least: int) -> tuple[int, ...]:
    found = tuple(int(v) for v in (value if value is not None else (1,) * n))
    if len(found) != n or any(v < least for v in found):
        raise InputError(f"{CONV}: {name} needs {n} integers of at least {least}")
    return found


class Layout(NamedTuple):
    """A convolution's geometry: the axes of each operand and of the output (batch or
    out-feature, feature or in-feature, then spatial), per spatial axis the strides,
    the (low, high) padding, the dilations, the input, kernel and output lengths, and
    the feature and batch group counts."""

    lspec: tuple[int, ...]
    rspec: tuple[int, ...]
    ospec: tuple[int, ...]
    strides: tuple[int, ...]
    padding: tuple[tuple[int, int], ...]
    lhs_dilation: tuple[int, ...]
    rhs_dilation: tuple[int, ...]
    groups: int
    batches: int
    lhs_shape: tuple[int, ...]
    rhs_shape: tuple[int, ...]
    out_shape: tuple[int, ...]
    spatial: tuple[tuple[int, int, int], ...]  # per axis: input, kernel, output length

    def positions(self, a: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Along spatial axis ``a``: the (output, tap, input) triples whose input pixel
        exists (in the dilated, padded input: ``output·stride + tap·rhs_dilation - low``,
        a multiple of the lhs dilation inside the input)."""
        s, k, size = self.spatial[a]
        q, t = np.meshgrid(np.arange(size), np.arange(k), indexing="ij")
        pos = q * self.strides[a] + t * self.rhs_dilation[a] - self.padding[a][0]
        ld = self.lhs_dilation[a]
        ok = (pos >= 0) & (pos % ld == 0) & (pos // ld < s)
        return q[ok], t[ok], pos[ok] // ld

    @property
    def terms(self) -> int:
        """How many products the convolution sums (each block's entries)."""
        n, o = self.lhs_shape[self.lspec[0]], self.rhs_shape[self.rspec[0]]
        i = self.rhs_shape[self.rspec[1]]
        along = math.prod(len(self.positions(a)[0]) for a in range(len(self.spatial)))
        return (n // self.batches) * o * i * along


@functools.lru_cache(maxsize=256)
def layout(params: tuple, lhs_shape: tuple[int, ...], rhs_shape: tuple[int, ...]) -> Layout:
    """The :class:`Layout` of the convolution of ``params`` (the op's params, as pairs)
    on arrays of these shapes.

    Raises
    ------
    InputError
        Params that do not describe a convolution of these shapes.
    """
    p = dict(params)
    try:
        lspec, rspec, ospec = (tuple(int(a) for a in s) for s in p["dimension_numbers"])
    except (KeyError, TypeError, ValueError):
        raise InputError(f"{CONV}: dimension_numbers needs three axis lists") from None
    nd = len(lhs_shape)
    specs = (lspec, rspec, ospec)
    if len(rhs_shape) != nd or nd < 2 or any(sorted(s) != list(range(nd)) for s in specs):
        raise InputError(f"{CONV}: dimension_numbers do not fit operands of rank {nd}")
    d = nd - 2
    strides = _ints(p.get("window_strides"), d, "window_strides", 1)
    ldil = _ints(p.get("lhs_dilation"), d, "lhs_dilation", 1)
    rdil = _ints(p.get("rhs_dilation"), d, "rhs_dilation", 1)
    padding = tuple(p.get("padding") or ((0, 0),) * d)
    if len(padding) != d or any(len(pair) != 2 for pair in padding):
        raise InputError(f"{CONV}: padding needs a (low, high) pair per spatial axis")
    padding = tuple((int(lo), int(hi)) for lo, hi in padding)
    groups = _ints((p.get("feature_group_count") or 1,), 1, "feature_group_count", 1)[0]
    batches = _ints((p.get("batch_group_count") or 1,), 1, "batch_group_count", 1)[0]
    n, c = lhs_shape[lspec[0]], lhs_shape[lspec[1]]
    o, i = rhs_shape[rspec[0]], rhs_shape[rspec[1]]
    if c != groups * i or o % groups or n % batches or o % batches:
        raise InputError(
            f"{CONV}: features {c} (lhs), {i} and {o} (rhs) do not fit"
            f" {groups} feature and {batches} batch groups"
        )
    spatial = []
    for a in range(d):
        s, k = lhs_shape[lspec[2 + a]], rhs_shape[rspec[2 + a]]
        lo, hi = padding[a]
        padded = (max(s, 1) - 1) * ldil[a] + 1 + lo + hi if s else lo + hi
        span = (k - 1) * rdil[a] + 1 if k else 0
        size = max(0, (padded - span) // strides[a] + 1) if k and padded >= span else 0
        spatial.append((s, k, size))
    out_shape = [0] * nd
    out_shape[ospec[0]], out_shape[ospec[1]] = n // batches, o
    for a in range(d):
        out_shape[ospec[2 + a]] = spatial[a][2]
    return Layout(
        lspec, rspec, ospec, strides, padding, ldil, rdil, groups, batches,
        tuple(lhs_shape), tuple(rhs_shape), tuple(out_shape), tuple(spatial),
    )  # fmt: skip


FORGETS.append(layout.cache_clear)


@functools.lru_cache(maxsize=64)
def terms(params: tuple, lhs_shape: tuple[int, ...], rhs_shape: tuple[int, ...]) -> Terms:
    """Every term of the convolution of ``params`` (the op's params, as pairs) on arrays
    of these shapes.

    Raises
    ------
    InputError
        Params that do not describe a convolution of these shapes.
    """
    lay = layout(params, tuple(lhs_shape), tuple(rhs_shape))
    lspec, rspec, ospec = lay.lspec, lay.rspec, lay.ospec
    d = len(lay.spatial)
    n, o, i = lhs_shape[lspec[0]], rhs_shape[rspec[0]], rhs_shape[rspec[1]]
    groups, batches = lay.groups, lay.batches
    per_axis = [lay.positions(a) for a in range(d)]
    out_shape = lay.out_shape
    # every term as a grid over (batch, out feature, in feature, each axis's triples)
    grid = [n // batches, o, i, *(len(t[0]) for t in per_axis)]
    rank = len(grid)

    def along(values: np.ndarray, axis: int) -> np.ndarray:
        return np.asarray(values, dtype=np.int64).reshape(
            [-1 if j == axis else 1 for j in range(rank)]
        )

    nb, of, fi = (along(np.arange(m), j) for j, m in enumerate(grid[:3]))
    out_group, batch_group = o // groups, o // batches
    roles = {
        "out": (ospec, out_shape, [nb, of], 0),
        "lhs": (lspec, lhs_shape, [(of // batch_group) * (n // batches) + nb,
                                   (of // out_group) * i + fi], 2),
        "rhs": (rspec, rhs_shape, [of, fi], 1),
    }  # fmt: skip
    flat = {}
    for role, (spec, shape, lead, which) in roles.items():
        steps = np.cumprod((1, *shape[::-1]))[-2::-1]  # C-order strides in entries
        total = np.zeros((1,) * rank, dtype=np.int64)
        for j, index in enumerate(lead):
            total = total + index * int(steps[spec[j]])
        for a in range(d):
            total = total + along(per_axis[a][which], 3 + a) * int(steps[spec[2 + a]])
        flat[role] = np.broadcast_to(total, grid).reshape(-1)
    order = np.lexsort((flat["lhs"], flat["out"]))
    found = Terms(out_shape, *(np.ascontiguousarray(flat[r][order]) for r in ("out", "lhs", "rhs")))
    for a in found[1:]:
        a.setflags(write=False)
    return found


FORGETS.append(terms.cache_clear)


def forward(params: Mapping[str, Any], lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """The convolution's value: numbers by kernel taps (:func:`apply`), object arrays
    (the element level's symbols) as each output the sum of its terms."""
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    key = tuple(params.items())
    lay = layout(key, lhs.shape, rhs.shape)
    if lhs.dtype != object and rhs.dtype != object and not _empty(lay):
        return apply(lay, lhs, rhs)
    found = terms(key, lhs.shape, rhs.shape)
    products = lhs.reshape(-1)[found.lhs] * rhs.reshape(-1)[found.rhs]
    out = np.zeros(math.prod(found.out_shape), dtype=object)
    np.add.at(out, found.out, products)
    return out.reshape(found.out_shape)


# -- by kernel taps: the convolution, its tangents and adjoints, O(taps × image) --------


def _empty(lay: Layout) -> bool:
    """Whether an operand or the output has no entries (then the terms, none, are read)."""
    return 0 in (*lay.lhs_shape, *lay.rhs_shape, *lay.out_shape)


def _groups(lay: Layout) -> tuple[int, int, int, int, int, int]:
    """(taps, batch groups, batch per group, feature groups, in features, out features
    per group): the shapes the steps below reshape to."""
    n, i = lay.lhs_shape[lay.lspec[0]], lay.rhs_shape[lay.rspec[1]]
    o = lay.rhs_shape[lay.rspec[0]]
    b, g = lay.batches, lay.groups
    return math.prod(k for _, k, _ in lay.spatial), b, n // b, g, i, o // (b * g)


def _padded_shape(lay: Layout) -> tuple[int, ...]:
    return tuple(
        (s - 1) * ld + 1 + lo + hi
        for (s, _, _), ld, (lo, hi) in zip(lay.spatial, lay.lhs_dilation, lay.padding, strict=True)
    )


def _placed(lay: Layout) -> tuple[tuple[slice, ...], tuple[slice, ...]]:
    """Where the input's pixels sit in the dilated, padded input: the slices of the
    input that land inside it, and the strided slices of it they land on."""
    src, dst = [], []
    for (s, _, _), ld, (lo, _), size in zip(
        lay.spatial, lay.lhs_dilation, lay.padding, _padded_shape(lay), strict=True
    ):
        pos = lo + np.arange(s) * ld
        inside = np.flatnonzero((pos >= 0) & (pos < size))
        if inside.size == 0:
            src.append(slice(0, 0))
            dst.append(slice(0, 0))
            continue
        j0, j1 = int(inside[0]), int(inside[-1]) + 1
        src.append(slice(j0, j1))
        dst.append(slice(int(pos[j0]), int(pos[j1 - 1]) + 1, ld))
    return tuple(src), tuple(dst)


def _taps(lay: Layout) -> list[tuple[slice, ...]]:
    """Per kernel tap (C order), the strided slice of the padded input it reads."""
    return [
        tuple(
            slice(t * r, t * r + (q - 1) * st + 1, st)
            for t, r, st, (_, _, q) in zip(
                taps, lay.rhs_dilation, lay.strides, lay.spatial, strict=True
            )
        )
        for taps in np.ndindex(*(k for _, k, _ in lay.spatial))
    ]


def _patches(lay: Layout, lhs: np.ndarray) -> np.ndarray:
    """Every tap's slice of the dilated, padded input, stacked: (taps, batch groups,
    batch, feature groups, features, output positions...)."""
    t, b, n, g, i, _ = _groups(lay)
    x = np.transpose(np.asarray(lhs, dtype=float), lay.lspec)
    padded = np.zeros((*x.shape[:2], *_padded_shape(lay)))
    src, dst = _placed(lay)
    padded[(slice(None), slice(None), *dst)] = x[(slice(None), slice(None), *src)]
    out = np.stack([padded[(slice(None), slice(None), *cut)] for cut in _taps(lay)])
    return out.reshape(t, b, n, g, i, *(q for _, _, q in lay.spatial))


def _kernel(lay: Layout, rhs: np.ndarray) -> np.ndarray:
    t, b, _, g, i, o = _groups(lay)
    w = np.transpose(np.asarray(rhs, dtype=float), lay.rspec)
    return w.reshape(b, g, o, i, t)


_Q = "uvwxyz"  # einsum letters of the spatial axes


def apply(lay: Layout, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """The convolution of ``lhs`` and ``rhs`` (of :class:`Layout` ``lay``): per tap a
    strided slice of the dilated, padded input, one ``einsum`` with the kernel."""
    q = _Q[: len(lay.spatial)]
    out = np.einsum(f"tbngi{q},bgoit->nbgo{q}", _patches(lay, lhs), _kernel(lay, rhs))
    _, b, n, g, _, o = _groups(lay)
    out = out.reshape(n, b * g * o, *(size for _, _, size in lay.spatial))
    return np.transpose(out, np.argsort(lay.ospec))


def adjoint(lay: Layout, k: int, lhs: np.ndarray, rhs: np.ndarray, bar: np.ndarray) -> np.ndarray:
    """``bar``ᵀ · ∂out/∂(operand k), of operand k's shape: for the kernel the products
    of ``bar`` with each tap's slice, for the input each tap's product put back where its
    slice came from, then the padding cut and the dilation dropped."""
    q = _Q[: len(lay.spatial)]
    t, b, n, g, i, o = _groups(lay)
    ybar = np.transpose(np.asarray(bar, dtype=float), lay.ospec)
    ybar = ybar.reshape(n, b, g, o, *(size for _, _, size in lay.spatial))
    if k == 1:
        w = np.einsum(f"nbgo{q},tbngi{q}->bgoit", ybar, _patches(lay, lhs))
        w = w.reshape(b * g * o, i, *(kk for _, kk, _ in lay.spatial))
        return np.transpose(w, np.argsort(lay.rspec))
    spread = np.einsum(f"nbgo{q},bgoit->tbngi{q}", ybar, _kernel(lay, rhs))
    spread = spread.reshape(t, b * n, g * i, *(size for _, _, size in lay.spatial))
    padded = np.zeros((b * n, g * i, *_padded_shape(lay)))
    for j, cut in enumerate(_taps(lay)):
        padded[(slice(None), slice(None), *cut)] += spread[j]
    x = np.zeros((b * n, g * i, *(s for s, _, _ in lay.spatial)))
    src, dst = _placed(lay)
    x[(slice(None), slice(None), *src)] = padded[(slice(None), slice(None), *dst)]
    return np.transpose(x, np.argsort(lay.lspec))


class ConvValues(OperatorValues):
    """A convolution block's values held as the other operand (:class:`ConvPattern`):
    applied to a vector or transposed by kernel taps (:meth:`applied`,
    :meth:`applied_transposed`), their magnitudes the other operand's (each entry is one
    of its entries); anything else reads them as the array of one value per pattern
    entry (``numpy.asarray``, attributes, other ufuncs: the explicit fallback)."""

    OWN = ("block", "other")

    def __init__(self, block: ConvPattern, other: np.ndarray) -> None:
        self.block, self.other = block, np.asarray(other, dtype=float)

    def applied(self, vector: np.ndarray) -> np.ndarray:
        """``block · vector``, flat in and out."""
        lay, k = self.block.layout, self.block.operand
        if _empty(lay):
            return np.zeros(math.prod(self.block.out_shape))
        given = np.reshape(vector, self.block.in_shape)
        out = apply(lay, given, self.other) if k == 0 else apply(lay, self.other, given)
        return out.reshape(-1)

    def applied_transposed(self, vector: np.ndarray) -> np.ndarray:
        """``vectorᵀ · block``, flat in and out."""
        lay, k = self.block.layout, self.block.operand
        if _empty(lay):
            return np.zeros(math.prod(self.block.in_shape))
        bar = np.reshape(vector, self.block.out_shape)
        lhs, rhs = (None, self.other) if k == 0 else (self.other, None)
        return adjoint(lay, k, lhs, rhs, bar).reshape(-1)  # type: ignore[arg-type]

    @functools.cached_property
    def entries(self) -> np.ndarray:
        """One value per pattern entry (the explicit form)."""
        return self.other.reshape(-1)[self.block.at]

    def absolute(self) -> ConvValues:
        """The same pattern over the other operand's magnitudes."""
        return ConvValues(self.block, np.abs(self.other))


class ConvBlock(NamedTuple):
    """∂out/∂(operand k) made explicit: its pattern, and per entry the flat index of the
    other operand's entry that is its value."""

    block: Sparse
    at: np.ndarray


class ConvPattern(Listed):
    """∂out/∂(operand k) of a convolution, held as the convolution itself: its params,
    the operands' shapes and which operand; nothing per entry. ∂out/∂lhs is a
    multi-channel stencil (per kernel tap a shifted, strided selection of the input
    times the kernel's (out, in) feature matrix at that tap), ∂out/∂rhs the same
    products read from the input; so its values are the other operand, held once (the
    kernel, or the input), and its entries a count (:attr:`Layout.terms`). The index
    arrays of a :class:`~dgraph.blocks.Sparse` block (``rows``, ``cols``, ``indptr``)
    and each entry's place in the other operand (``at``) are made only where something
    asks for them: a sum of patterns, a product with a block other than a diagonal or a
    convolution's (:meth:`kron`), a generated Jacobian — the explicit fallback. A
    constant other operand with zeros has them left out of the pattern, which is then
    counted from the explicit form."""

    def __init__(
        self, params: tuple, k: int, shapes: tuple, other: _Key | None = None, kind: int = GENERAL
    ) -> None:
        lay = layout(params, *shapes)
        other = _Key(None) if other is None else other
        if other.value is not None:
            kind = CONSTANT
        state = self.__dict__
        state.update(out_shape=lay.out_shape, in_shape=tuple(shapes[k]), kind=kind)
        state.update(params=params, operand=k, shapes=shapes, other=other, layout=lay)

    @property
    def explicit(self) -> ConvBlock:
        """The pattern and value indices as arrays (made once per convolution, cached)."""
        return _conv_block(self.params, self.operand, self.shapes, self.other)

    @property
    def listed(self) -> Sparse:
        return self.explicit.block

    @property
    def at(self) -> np.ndarray:
        """Per entry, the flat index of the other operand's entry that is its value."""
        return self.explicit.at

    @functools.cached_property
    def nnz(self) -> int:  # type: ignore[override]
        if self.other.value is None or np.all(self.other.value):
            return self.layout.terms
        return self.explicit.block.nnz

    @property
    def stored(self) -> int:  # type: ignore[override]
        return self.nnz

    @property
    def held(self) -> int:
        """The values the structured form holds: the other operand's entries."""
        return math.prod(self.shapes[1 - self.operand])

    def same_pattern(self, kind: int) -> ConvPattern:
        """The same convolution with values of ``kind`` (a product with a diagonal)."""
        if kind == self.kind:
            return self
        other = ConvPattern(self.params, self.operand, self.shapes, None, kind)
        other.__dict__["other"] = self.other  # the same pattern (its zeros left out)
        for cached in ("cols", "indptr", "rows", "nnz", "digest"):
            if cached in self.__dict__:
                other.__dict__[cached] = self.__dict__[cached]
        return other

    def kron(self) -> KronPattern | None:
        """The pattern as a :class:`KronPattern` (batch and feature coupling, then one
        factor per spatial axis); None where a constant other operand's zeros are left
        out (no such product)."""
        if self.other.value is not None and not np.all(self.other.value):
            return None
        return _conv_kron(self.params, self.operand, self.shapes, self.kind)

    def _key(self) -> tuple:
        return (self.params, self.operand, self.shapes, self.other, self.kind)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if isinstance(other, ConvPattern):
            return self._key() == other._key()
        return super().__eq__(other)

    def __hash__(self) -> int:
        return hash(self._key())


class Factor(NamedTuple):
    """One factor of a :class:`KronPattern`: the output axes and input axes it spans
    (array axes, each flattened in C order in the order listed) and its 0/1 pattern."""

    out_axes: tuple[int, ...]
    in_axes: tuple[int, ...]
    matrix: np.ndarray  # bool, (Π out sizes, Π in sizes)


class KronPattern(Listed):
    """A pattern that is a Kronecker product over groups of axes: an entry wherever every
    factor has one at the entry's coordinates on its axes. A convolution's block is one
    (:meth:`ConvPattern.kron`: the batch and feature coupling, and per spatial axis which
    output position reads which input pixel), and so is a product of two such blocks whose
    shared axes are grouped alike: each factor the product of the two factors over the
    same axes (a convolution after a convolution, per axis). Entries and prices factor too;
    the index arrays are made only where asked for."""

    def __init__(self, out_shape, in_shape, factors: tuple[Factor, ...], kind: int) -> None:
        state = self.__dict__
        state.update(out_shape=tuple(out_shape), in_shape=tuple(in_shape), kind=kind)
        state["factors"] = tuple(factors)

    @functools.cached_property
    def nnz(self) -> int:  # type: ignore[override]
        return math.prod(int(np.count_nonzero(f.matrix)) for f in self.factors)

    @property
    def stored(self) -> int:  # type: ignore[override]
        return self.nnz

    @functools.cached_property
    def explicit(self) -> Sparse:
        """The pattern as index arrays: each factor's entries placed at its axes, summed
        over every combination, sorted by row."""
        rows = np.zeros(1, dtype=np.int64)
        cols = np.zeros(1, dtype=np.int64)
        out_steps = np.cumprod((1, *self.out_shape[::-1]))[-2::-1]
        in_steps = np.cumprod((1, *self.in_shape[::-1]))[-2::-1]
        for f in self.factors:
            r, c = np.nonzero(f.matrix)
            flat_r = _placed_flat(r, f.out_axes, self.out_shape, out_steps)
            flat_c = _placed_flat(c, f.in_axes, self.in_shape, in_steps)
            rows = (rows[:, None] + flat_r[None, :]).reshape(-1)
            cols = (cols[:, None] + flat_c[None, :]).reshape(-1)
        return sparse(self.out_shape, self.in_shape, rows, cols, self.kind)

    def same_pattern(self, kind: int) -> KronPattern:
        if kind == self.kind:
            return self
        return KronPattern(self.out_shape, self.in_shape, self.factors, kind)

    def kron(self) -> KronPattern:
        return self

    @functools.cached_property
    def _key(self) -> tuple:
        parts = tuple(
            (f.out_axes, f.in_axes, f.matrix.shape, np.packbits(f.matrix).tobytes())
            for f in self.factors
        )
        return (self.out_shape, self.in_shape, self.kind, parts)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if isinstance(other, KronPattern):
            return self._key == other._key
        return super().__eq__(other)

    def __hash__(self) -> int:
        return hash(self._key)


def _placed_flat(flat: np.ndarray, axes: tuple[int, ...], shape, steps) -> np.ndarray:
    """A factor's flat indices over ``axes`` (C order) as flat indices of the whole side."""
    coords = np.unravel_index(flat, tuple(shape[a] for a in axes)) if axes else ()
    total = np.zeros(flat.size, dtype=np.int64)
    for a, coord in zip(axes, coords, strict=True):
        total += coord.astype(np.int64) * int(steps[a])
    return total


def _aligned(matrix: np.ndarray, axes: tuple[int, ...], want: tuple[int, ...], shape, side: int):
    """``matrix`` with its ``side`` (0 rows, 1 columns) axes reordered from ``axes`` to
    ``want`` (the same set)."""
    if axes == want:
        return matrix
    sizes = [shape[a] for a in axes]
    other = matrix.shape[1 - side]
    full = matrix.reshape(*sizes, other) if side == 0 else matrix.reshape(other, *sizes)
    perm = [axes.index(a) for a in want]
    if side == 0:
        full = np.transpose(full, (*perm, len(perm)))
    else:
        full = np.transpose(full, (0, *(1 + p for p in perm)))
    return full.reshape(matrix.shape)


def kron_product(upper: Sparse, lower: Sparse) -> tuple[int, Sparse | None] | None:
    """``upper · lower`` of two Kronecker patterns whose shared axes are grouped alike
    (:class:`KronPattern`): each factor's product, the price the pairs that meet
    (Σ_k nnz(A[:, k]) · nnz(B[k, :]), a product over the factors); None where either is
    no such pattern or the groups differ (the explicit product then)."""
    a, b = _as_kron(upper), _as_kron(lower)
    if a is None or b is None:
        return None
    by_axes = {frozenset(f.out_axes): f for f in b.factors}
    if len(by_axes) != len(b.factors) or {frozenset(f.in_axes) for f in a.factors} != set(by_axes):
        return None
    factors, cost, several = [], 1, False
    for fa in a.factors:
        fb = by_axes[frozenset(fa.in_axes)]
        mb = _aligned(fb.matrix, fb.out_axes, fa.in_axes, a.in_shape, 0)
        counts = fa.matrix.astype(np.int64) @ mb.astype(np.int64)
        several = several or bool(counts.max(initial=0) > 1)
        cost *= int(fa.matrix.sum(axis=0) @ mb.sum(axis=1))
        factors.append(Factor(fa.out_axes, fb.in_axes, counts > 0))
    kind = max(a.kind, b.kind)
    if ONES in (a.kind, b.kind) or kind == CONSTANT:  # moves, or constants folded
        cost = 0
    if kind == ONES and several:
        kind = CONSTANT  # sums of ones where several pairs meet
    found = KronPattern(a.out_shape, b.in_shape, tuple(factors), kind)
    return cost, (found if found.nnz else None)


def _as_kron(b: object) -> KronPattern | None:
    kron = getattr(b, "kron", None)
    return None if kron is None else kron()


STRUCTURED_PRODUCTS.append(kron_product)


def conv_block(
    params: tuple, k: int, shapes: Sequence[tuple[int, ...]], other: np.ndarray | None
) -> ConvPattern:
    """∂out/∂(operand k) of the convolution of ``params`` on operands of ``shapes``;
    ``other``: the other operand where it is a constant (its zeros left out)."""
    return ConvPattern(params, k, tuple(map(tuple, shapes)), _Key.of(other))


@functools.lru_cache(maxsize=64)
def _conv_kron(params: tuple, k: int, shapes: tuple, kind: int) -> KronPattern:
    lay = layout(params, *shapes)
    n, o = lay.lhs_shape[lay.lspec[0]], lay.rhs_shape[lay.rspec[0]]
    i = lay.rhs_shape[lay.rspec[1]]
    nb, b, g = n // lay.batches, lay.batches, lay.groups
    spec = lay.lspec if k == 0 else lay.rspec
    out_pair = (lay.ospec[0], lay.ospec[1])
    if b == 1:  # batch and features apart: a batch's delta (or every batch) and the groups
        if k == 0:
            batch = Factor((out_pair[0],), (spec[0],), np.eye(n, dtype=bool))
            groups = np.arange(o)[:, None] // (o // g) == np.arange(g * i)[None, :] // i
            feature = Factor((out_pair[1],), (spec[1],), groups)
        else:
            batch = Factor((out_pair[0],), (), np.ones((n, 1), dtype=bool))
            same = np.repeat(np.eye(o, dtype=bool), i, axis=1)  # (o, (o', i)): o = o'
            feature = Factor((out_pair[1],), (spec[0], spec[1]), same)
        factors = [batch, feature]
    else:  # batch groups: the batch read depends on the output feature
        rows_n, rows_o = np.meshgrid(np.arange(nb), np.arange(o), indexing="ij")
        rows_n, rows_o = rows_n.reshape(-1), rows_o.reshape(-1)  # (batch, out feature)
        if k == 0:
            read = (rows_o // (o // b)) * nb + rows_n
            first = (rows_o // (o // g)) * i
            coupling = np.zeros((nb * o, n, g * i), dtype=bool)
            for j in range(i):
                coupling[np.arange(nb * o), read, first + j] = True
            coupling = coupling.reshape(nb * o, n * g * i)
        else:
            coupling = np.zeros((nb * o, o, i), dtype=bool)
            coupling[np.arange(nb * o), rows_o, :] = True
            coupling = coupling.reshape(nb * o, o * i)
        factors = [Factor(out_pair, (spec[0], spec[1]), coupling)]
    for a, (s, kk, size) in enumerate(lay.spatial):
        q, t, pos = lay.positions(a)
        matrix = np.zeros((size, s if k == 0 else kk), dtype=bool)
        matrix[q, pos if k == 0 else t] = True
        factors.append(Factor((lay.ospec[2 + a],), (spec[2 + a],), matrix))
    return KronPattern(lay.out_shape, shapes[k], tuple(factors), kind)


FORGETS.append(_conv_kron.cache_clear)


class _Key:
    """A constant array hashable by its bytes (the cache's key)."""

    def __init__(self, value: np.ndarray | None) -> None:
        self.value = value
        self.key = None if value is None else (value.shape, value.tobytes())

    @staticmethod
    def of(value: np.ndarray | None) -> _Key:
        return _Key(None if value is None else np.asarray(value, dtype=float))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Key) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)


@functools.lru_cache(maxsize=64)
def _conv_block(params: tuple, k: int, shapes: tuple, other: _Key) -> ConvBlock:
    lhs_shape, rhs_shape = shapes
    found = terms(params, lhs_shape, rhs_shape)
    cols, at = (found.lhs, found.rhs) if k == 0 else (found.rhs, found.lhs)
    rows = found.out
    kind = GENERAL if other.value is None else CONSTANT
    if other.value is not None:
        keep = other.value.reshape(-1)[at] != 0
        rows, cols, at = rows[keep], cols[keep], at[keep]
    if k == 1:  # terms are sorted by (out, lhs): sort by (out, rhs)
        order = np.lexsort((cols, rows))
        rows, cols, at = rows[order], cols[order], at[order]
    block = Sparse(found.out_shape, (lhs_shape, rhs_shape)[k], rows, cols, kind)
    at = np.ascontiguousarray(at)
    at.setflags(write=False)
    return ConvBlock(block, at)


FORGETS.append(_conv_block.cache_clear)


def conv_value(other: np.ndarray, found: ConvPattern) -> ConvValues:
    """The block's values: the other operand, held once (:class:`ConvValues`; read as
    an array, one value per pattern entry)."""
    return ConvValues(found, other)


def conv_of(op: Any, k: int, shapes: Sequence[tuple[int, ...]]) -> ConvPattern:
    """:func:`conv_block` of an :class:`~dgraph.blocks.arrays.ArrayOp` (a constant other
    operand read from its ``value``)."""
    return conv_block(op.params, k, shapes, getattr(op.operands[1 - k], "value", None))
