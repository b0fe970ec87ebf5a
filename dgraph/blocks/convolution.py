"""``conv_general_dilated`` (jax.lax's convolution) as an array operation: its value, and
its two blocks, each a :class:`~dgraph.blocks.Sparse` block of the exact pattern.

The convolution is bilinear: every output entry is a sum of products ``lhs[a] · rhs[b]``,
one per *term*: an output position, an input feature of its group and a kernel tap whose
input pixel lies inside the (dilated, padded) input. :func:`terms` lists them as three
flat index arrays (output, lhs, rhs). ∂out/∂lhs has an entry (output, lhs) per term — each
such pair is read by exactly one term (for fixed output and feature the tap is fixed by
the input pixel), so the entries are distinct — whose value is the kernel entry that term
reads; ∂out/∂rhs likewise, valued by lhs entries. Each block is its pattern and, per
entry, the flat index of the other operand's entry that is its value (:class:`ConvBlock`):
a gather of the other operand, which every code target prints (``ravel(rhs)[K]``).
Where the other operand is a constant, its zeros are left out of the pattern.

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
from . import CONSTANT, FORGETS, GENERAL, Sparse

__all__ = ["CONV", "PARAMS", "ConvBlock", "conv_block", "conv_value", "forward", "terms"]

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


@functools.lru_cache(maxsize=64)
def terms(params: tuple, lhs_shape: tuple[int, ...], rhs_shape: tuple[int, ...]) -> Terms:
    """Every term of the convolution of ``params`` (the op's params, as pairs) on arrays
    of these shapes.

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
    groups = _ints((p.get("feature_group_count") or 1,), 1, "feature_group_count", 1)[0]
    batches = _ints((p.get("batch_group_count") or 1,), 1, "batch_group_count", 1)[0]
    n, c = lhs_shape[lspec[0]], lhs_shape[lspec[1]]
    o, i = rhs_shape[rspec[0]], rhs_shape[rspec[1]]
    if c != groups * i or o % groups or n % batches or o % batches:
        raise InputError(
            f"{CONV}: features {c} (lhs), {i} and {o} (rhs) do not fit"
            f" {groups} feature and {batches} batch groups"
        )
    # per spatial axis: the (output, tap, input) triples whose input pixel exists
    per_axis, sizes = [], []
    for a in range(d):
        s, k = lhs_shape[lspec[2 + a]], rhs_shape[rspec[2 + a]]
        lo, hi = (int(v) for v in padding[a])
        padded = (max(s, 1) - 1) * ldil[a] + 1 + lo + hi if s else lo + hi
        span = (k - 1) * rdil[a] + 1 if k else 0
        size = max(0, (padded - span) // strides[a] + 1) if k and padded >= span else 0
        q, t = np.meshgrid(np.arange(size), np.arange(k), indexing="ij")
        pos = q * strides[a] + t * rdil[a] - lo
        ok = (pos >= 0) & (pos % ldil[a] == 0) & (pos // ldil[a] < s)
        per_axis.append((q[ok], t[ok], pos[ok] // ldil[a]))
        sizes.append(size)
    out_shape = [0] * nd
    out_shape[ospec[0]], out_shape[ospec[1]] = n // batches, o
    for a in range(d):
        out_shape[ospec[2 + a]] = sizes[a]
    out_shape = tuple(out_shape)
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
    """The convolution's value: each output the sum of its terms (object arrays too)."""
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    found = terms(tuple(params.items()), lhs.shape, rhs.shape)
    products = lhs.reshape(-1)[found.lhs] * rhs.reshape(-1)[found.rhs]
    size = math.prod(found.out_shape)
    if products.dtype != object:
        return np.bincount(found.out, weights=products, minlength=size).reshape(found.out_shape)
    out = np.zeros(size, dtype=object)
    np.add.at(out, found.out, products)
    return out.reshape(found.out_shape)


class ConvBlock(NamedTuple):
    """∂out/∂(operand k): its pattern, and per entry the flat index of the other
    operand's entry that is its value."""

    block: Sparse
    at: np.ndarray


def conv_block(
    params: tuple, k: int, shapes: Sequence[tuple[int, ...]], other: np.ndarray | None
) -> ConvBlock:
    """∂out/∂(operand k) of the convolution of ``params`` on operands of ``shapes``;
    ``other``: the other operand where it is a constant (its zeros left out)."""
    return _conv_block(params, k, tuple(map(tuple, shapes)), _Key.of(other))


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


def conv_value(other: np.ndarray, found: ConvBlock) -> np.ndarray:
    """The block's values: the other operand's entries, one per pattern entry."""
    return np.asarray(other, dtype=float).reshape(-1)[found.at]


def conv_of(op: Any, k: int, shapes: Sequence[tuple[int, ...]]) -> ConvBlock:
    """:func:`conv_block` of an :class:`~dgraph.blocks.arrays.ArrayOp` (a constant other
    operand read from its ``value``)."""
    return conv_block(op.params, k, shapes, getattr(op.operands[1 - k], "value", None))
