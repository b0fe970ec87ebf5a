"""``conv_general_dilated`` and the general ``pad`` as array statements.

In a generated Jacobian, every target alike: gathers of constant index arrays
(:mod:`dgraph.blocks.convolution`'s terms) and a segment sum, which the NumPy, JAX, C and
CUDA printers all print — the Jacobian has an entry per term anyway. In ``jvp`` and
``vjp`` (:class:`ConvSweep`) the value, the tangent and the adjoint are convolutions
themselves, of the kernel as it is: the input dilated and padded (a pad, or a gather
along each spatial axis), one strided slice of it per kernel tap stacked (T × the
output's positions), and one ``einsum`` with the kernel over the features of each group:

* value and tangent: ``out = Σ_t slice_t(pad(lhs)) · rhs[:, :, t]`` (for ``rhs``'s tangent
  the same with the tangent as kernel);
* adjoint for ``lhs``: each tap's ``ȳ · rhs[:, :, t]`` put back where its slice came from
  and summed, then the padding cut and the dilation dropped (the transposes of the
  three steps);
* adjoint for ``rhs``: ``Σ_{n, q} ȳ · slice_t(pad(lhs))`` per tap (the slices the value
  reads).

No array the size of the Jacobian, nor index arrays of one entry per term. In JAX the
module's helpers call ``lax.conv_general_dilated`` itself for the value and the tangents,
and its transposes (``jax.vjp`` of it: XLA's own convolutions) for the adjoints."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from ...blocks.arrays import ArrayOp, move
from ...blocks.convolution import CONV, Layout, conv_of, layout, terms
from ...errors import InputError
from ..ir import BinOp, Call, Const, Index, Name, Node, SegmentSum, Seq, Slice

__all__ = ["JAX_HELPERS", "ConvSweep", "conv_forward", "conv_values", "pad_forward"]

Namer = Callable[[np.ndarray], Name] | None
Emitter = Callable[[Node], Node] | None


def _ravel(x: Node) -> Node:
    return Call("reshape", (x, Const((-1,))))


def _needs(index: Namer, emit: Emitter, what: str) -> tuple[Callable, Callable]:
    if index is None or emit is None:
        raise InputError(f"{what}: its code needs index arrays")
    return index, emit


def conv_forward(op: ArrayOp, args: Sequence[Node], shapes, index: Namer, emit: Emitter) -> Node:
    """The convolution: per term the product of its lhs and rhs entries, summed by output
    (the sum a statement of its own, so that its reshape is a view in C)."""
    name, assign = _needs(index, emit, op.primitive)
    found = terms(op.params, tuple(shapes[0]), tuple(shapes[1]))
    lhs = Index(_ravel(args[0]), (name(found.lhs),))
    rhs = Index(_ravel(args[1]), (name(found.rhs),))
    size = int(np.prod(found.out_shape))
    total = assign(SegmentSum(BinOp("*", lhs, rhs), name(found.out), size))
    return Call("reshape", (total, Const(tuple(found.out_shape))))


def conv_values(op: ArrayOp, k: int, args: Sequence[Node], shapes, index: Namer) -> Node:
    """∂out/∂(operand k)'s values: the other operand's entries, one per pattern entry."""
    if index is None:
        raise InputError(f"{op.primitive}: its code needs index arrays")
    found = conv_of(op, k, [tuple(s) for s in shapes])
    return Index(_ravel(args[1 - k]), (index(found.at),))


def pad_forward(op: ArrayOp, args: Sequence[Node], shapes, index: Namer, emit: Emitter) -> Node:
    """``pad`` with interior or negative padding: a gather, one index per output entry
    (of the result's shape), from the operand's entries with the padding value appended."""
    name, assign = _needs(index, emit, "pad")
    size = int(np.prod(shapes[0]))
    positions = np.arange(size, dtype=float).reshape(shapes[0])
    source = move("pad", op.param, [positions, np.asarray(float(size))], op.shape)
    value = Call("reshape", (args[1], Const((1,))))
    both = assign(Call("concatenate", (Seq((_ravel(args[0]), value)),)))
    return Index(both, (name(np.asarray(source).astype(np.int64)),))


_ALL = Slice(None, None)
_SPATIAL = "uvwxyz"  # einsum letters of the spatial axes (t b n g i o: taps, groups, features)


class ConvSweep:
    """A convolution vertex's value, tangents and adjoints as convolutions (the module
    docstring), in the canonical layout (batch, feature, spatial...) inside, the
    operands' and the output's own layouts outside; ``index`` names a constant integer
    array (a gather's positions along one axis)."""

    def __init__(self, lay: Layout, index: Callable[[np.ndarray], Name], lang: str) -> None:
        self.lay, self.index, self.lang = lay, index, lang
        n = lay.lhs_shape[lay.lspec[0]]
        o, i = (lay.rhs_shape[a] for a in lay.rspec[:2])
        b, g = lay.batches, lay.groups
        self.dims = dict(t=math.prod(k for _, k, _ in lay.spatial), b=b, n=n // b, g=g, i=i)
        self.dims["o"] = o // (b * g)
        self.q = _SPATIAL[: len(lay.spatial)]
        self.out_q = tuple(size for _, _, size in lay.spatial)
        self.padded = tuple(
            (s - 1) * ld + 1 + lo + hi
            for (s, _, _), ld, (lo, hi) in zip(
                lay.spatial, lay.lhs_dilation, lay.padding, strict=True
            )
        )

    @staticmethod
    def of(
        op, shapes: Sequence[tuple[int, ...]], index: Callable | None, lang: str = "python"
    ) -> ConvSweep | None:
        """The sweep of ``op`` on operands of ``shapes`` in ``lang`` (JAX: the module's
        helpers :data:`JAX_HELPERS`, ``lax.conv_general_dilated`` and its transposes by
        ``jax.vjp``); None where the generic block products are used instead: not a
        convolution, an operand that is an expression, an empty axis, or feature and
        batch groups both above one."""
        if op is None or op.primitive != CONV or index is None:
            return None
        if any(not isinstance(x, str) and not hasattr(x, "value") for x in op.operands):
            return None
        lay = layout(op.params, tuple(shapes[0]), tuple(shapes[1]))
        if min((*lay.lhs_shape, *lay.rhs_shape, *lay.out_shape), default=1) == 0:
            return None
        if lay.groups > 1 and lay.batches > 1:
            return None
        return ConvSweep(lay, index, lang)

    @property
    def mults(self) -> int:
        """The scalar multiplications of one tangent or adjoint: one per term."""
        return self.lay.terms

    # -- the three products --------------------------------------------------------------

    def _params(self) -> Const:
        lay = self.lay
        return Const(
            (
                ("window_strides", lay.strides),
                ("padding", lay.padding),
                ("lhs_dilation", lay.lhs_dilation),
                ("rhs_dilation", lay.rhs_dilation),
                ("dimension_numbers", (lay.lspec, lay.rspec, lay.ospec)),
                ("feature_group_count", lay.groups),
                ("batch_group_count", lay.batches),
            )
        )

    def value(self, lhs: Node, rhs: Node) -> Node:
        """The convolution of ``lhs`` and ``rhs`` (also each operand's tangent term)."""
        if self.lang == "jax":
            return Call("_conv", (lhs, rhs, self._params()))
        d, q = self.dims, self.q
        patches = self._patches(lhs)
        kernel = self._kernel(rhs)
        out = Call("einsum", (Const(f"tbngi{q},bgoit->nbgo{q}"), patches, kernel))
        shape = (d["n"], d["b"] * d["g"] * d["o"], *self.out_q)
        return _permuted(Call("reshape", (out, Const(shape))), _inverse(self.lay.ospec))

    def tangent(self, k: int, lhs: Node, rhs: Node, dot: Node) -> Node:
        """∂out/∂(operand k) · ``dot``: the convolution with ``dot`` in operand k's place."""
        return self.value(dot, rhs) if k == 0 else self.value(lhs, dot)

    def adjoint(self, k: int, lhs: Node, rhs: Node, bar: Node) -> Node:
        """``bar``ᵀ · ∂out/∂(operand k), of operand k's shape."""
        if self.lang == "jax":
            return Call("_conv_adjoint", (Const(k), lhs, rhs, bar, self._params()))
        d, q, lay = self.dims, self.q, self.lay
        ybar = _permuted(bar, lay.ospec)
        ybar = Call("reshape", (ybar, Const((d["n"], d["b"], d["g"], d["o"], *self.out_q))))
        if k == 1:
            spec = f"nbgo{q},tbngi{q}->bgoit"
            kernel = Call("einsum", (Const(spec), ybar, self._patches(lhs)))
            shape = (d["b"] * d["g"] * d["o"], d["i"], *(k for _, k, _ in lay.spatial))
            return _permuted(Call("reshape", (kernel, Const(shape))), _inverse(lay.rspec))
        spread = Call("einsum", (Const(f"nbgo{q},bgoit->tbngi{q}"), ybar, self._kernel(rhs)))
        lead = (d["b"] * d["n"], d["g"] * d["i"])
        spread = Call("reshape", (spread, Const((d["t"], *lead, *self.out_q))))
        total: Node | None = None
        for j, taps in enumerate(np.ndindex(*(k for _, k, _ in lay.spatial))):
            part: Node = Index(spread, (Const(j),))
            for a, t in enumerate(taps):  # the slice's transpose: back to its positions
                start, step = t * lay.rhs_dilation[a], lay.strides[a]
                src = _source(self.padded[a], start, step, self.out_q[a])
                part = self._reindex(part, 2 + a, src, self.out_q[a])
            total = part if total is None else BinOp("+", total, part)
        for a, (s, _, _) in enumerate(lay.spatial):  # the padding's and dilation's transpose
            lo, ld = lay.padding[a][0], lay.lhs_dilation[a]
            src = lo + np.arange(s) * ld
            src = np.where((src >= 0) & (src < self.padded[a]), src, -1)
            total = self._reindex(total, 2 + a, src, self.padded[a])  # type: ignore[arg-type]
        return _permuted(total, _inverse(lay.lspec))  # type: ignore[arg-type]

    # -- the steps -----------------------------------------------------------------------

    def _patches(self, lhs: Node) -> Node:
        """Per tap, the strided slice of the dilated, padded input it reads:
        (taps, batch groups, batch, feature groups, features, output positions...)."""
        lay = self.lay
        x = _permuted(lhs, lay.lspec)
        if all(
            ld == 1 and lo >= 0 and hi >= 0
            for ld, (lo, hi) in zip(lay.lhs_dilation, lay.padding, strict=True)
        ):
            if any(lo or hi for lo, hi in lay.padding):  # a plain pad, every axis at once
                x = Call("pad", (x, Const(((0, 0), (0, 0), *lay.padding))))
            return self._stacked(x)
        for a, (s, _, _) in enumerate(lay.spatial):
            lo, ld = lay.padding[a][0], lay.lhs_dilation[a]
            p = np.arange(self.padded[a]) - lo
            src = np.where((p >= 0) & (p % ld == 0) & (p // ld < s), p // ld, -1)
            x = self._reindex(x, 2 + a, src, s)
        return self._stacked(x)

    def _stacked(self, x: Node) -> Node:
        """The taps' strided slices of the padded input ``x``, stacked."""
        d, lay = self.dims, self.lay
        slices = []
        for taps in np.ndindex(*(k for _, k, _ in lay.spatial)):
            items = [_ALL, _ALL]
            for a, t in enumerate(taps):
                start, step = t * lay.rhs_dilation[a], lay.strides[a]
                stop = start + (self.out_q[a] - 1) * step + 1
                items.append(Slice(start, stop, step if step != 1 else None))
            slices.append(Index(x, tuple(items)))
        stacked = Call("stack", (Seq(tuple(slices)),)) if len(slices) > 1 else slices[0]
        shape = (d["t"], d["b"], d["n"], d["g"], d["i"], *self.out_q)
        return Call("reshape", (stacked, Const(shape)))

    def _kernel(self, rhs: Node) -> Node:
        """The kernel as (batch groups, feature groups, out features, in features, taps)."""
        d = self.dims
        w = _permuted(rhs, self.lay.rspec)
        return Call("reshape", (w, Const((d["b"], d["g"], d["o"], d["i"], d["t"]))))

    def _reindex(self, x: Node, axis: int, src: np.ndarray, size: int) -> Node:
        """``x`` along ``axis`` (of ``size``) read at ``src`` (-1: a zero): nothing, a
        slice, a pad, or a gather of it with one zero appended."""
        src = np.asarray(src, dtype=np.int64)
        inside = np.flatnonzero(src >= 0)
        lead = [_ALL] * axis
        if inside.size and np.array_equal(src[inside], src[inside[0]] + np.arange(inside.size)):
            first, last = int(inside[0]), int(inside[-1])
            if inside.size == last - first + 1:  # one run: a slice, padded
                lo_src, hi_src = int(src[first]), int(src[last]) + 1
                if (lo_src, hi_src) != (0, size):
                    x = Index(x, (*lead, Slice(lo_src, hi_src)))
                if (first, src.size - 1 - last) != (0, 0):
                    widths = [(0, 0)] * (len(self.lay.lhs_shape))
                    widths[axis] = (first, src.size - 1 - last)
                    x = Call("pad", (x, Const(tuple(widths))))
                return x
        widths = [(0, 0)] * len(self.lay.lhs_shape)
        widths[axis] = (0, 1)
        joined = Call("pad", (x, Const(tuple(widths))))  # one zero appended
        picked = np.where(src >= 0, src, size)
        return Index(joined, (*lead, self.index(picked)))


JAX_HELPERS = [
    "import functools",
    "",
    "",
    "@functools.partial(jax.jit, static_argnums=2)",
    "def _conv(lhs, rhs, params):",
    '    """jax.lax.conv_general_dilated with the params of the jaxpr (pairs)."""',
    "    p = dict(params)",
    '    numbers = jax.lax.ConvDimensionNumbers(*p.pop("dimension_numbers"))',
    "    return jax.lax.conv_general_dilated(lhs, rhs, dimension_numbers=numbers, **p)",
    "",
    "",
    "@functools.partial(jax.jit, static_argnums=(0, 4))",
    "def _conv_adjoint(k, lhs, rhs, bar, params):",
    '    """bar^T times the convolution\'s derivative by operand k: JAX\'s transpose."""',
    "    if k == 0:",
    "        return jax.vjp(lambda a: _conv(a, rhs, params), lhs)[1](bar)[0]",
    "    return jax.vjp(lambda b: _conv(lhs, b, params), rhs)[1](bar)[0]",
]


def _source(length: int, start: int, step: int, count: int) -> np.ndarray:
    """Along an axis of ``length``: for each position the index of the strided slice
    ``start::step`` (``count`` long) that reads it, -1 where none does."""
    p = np.arange(length) - start
    return np.where((p >= 0) & (p % step == 0) & (p // step < count), p // step, -1)


def _inverse(spec: Sequence[int]) -> tuple[int, ...]:
    return tuple(int(a) for a in np.argsort(spec))


def _permuted(x: Node, perm: Sequence[int]) -> Node:
    perm = tuple(int(a) for a in perm)
    return x if perm == tuple(range(len(perm))) else Call("transpose", (x, Const(perm)))
