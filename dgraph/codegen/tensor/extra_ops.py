"""Generated array code for the operations of :mod:`dgraph.blocks.array_extra`: their
values (``argmax``, ``argsort``, ``searchsorted``, ``prod``, ``sort``) and their blocks' values (the
exclusive products of ``reduce_prod``, the row values and source positions of ``sort``'s
run-time permutation), in the semantics of ``array_extra``'s NumPy evaluation. The same
text runs under NumPy and jax.numpy (``stable=True``: both take it)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from ...blocks.array_extra import permutes
from ...blocks.arrays import ArrayOp
from ...blocks.cumulative import CUMULATIVE
from ...blocks.dynamic_scatter import DYNAMIC_ADD
from ...blocks.dynamic_take import DYNAMIC_TAKE
from ..ir import AsType, BinOp, Call, Const, Index, Node, Scatter, Seq, Slice
from .cumulative_code import cumulative_forward, cumulative_values
from .dynamic_code import dynamic_forward_node, dynamic_value_node
from .dynamic_scatter_code import add_forward_node, add_value_node

__all__ = ["extra_forward_node", "extra_leaf_node"]

_STABLE = ("stable", Const(True))


def extra_forward_node(op: ArrayOp, args: Sequence[Node]) -> Node | None:
    """``op``'s value as one expression, for this module's operations; else None."""
    name, p = op.primitive, op.param
    if name == DYNAMIC_TAKE:  # positions known at run time
        return dynamic_forward_node(op, args)
    if name == DYNAMIC_ADD:  # its transpose
        return add_forward_node(op, args)
    if name in ("argmax", "argmin"):
        return Call(name, (args[0],), (("axis", Const(int(p["axes"][0]))),))
    if name == "argsort":
        return _order(args, int(p["dimension"]))
    if name == "searchsorted":  # a binary search per query (sorted_search)
        side = Const("right" if p["right"] else "left")
        return Call("searchsorted", (args[0], args[1]), (("side", side),))
    if name == "sort" and len(args) > 1:  # the last operand, in the keys' order
        d = Const(int(p["dimension"]))
        return Call("take_along_axis", (args[-1], _order(args[:-1], d.value)), (("axis", d),))
    if name == "sort":  # by its order: the block's sources, the same argsort, computed once
        d = Const(int(p["dimension"]))
        return Call("take_along_axis", (args[0], _order(args, d.value)), (("axis", d),))
    if name in ("frexp_mantissa", "frexp_exponent"):
        return Index(Call("frexp", (args[0],)), (Const(int(name == "frexp_exponent")),))
    if name == "reduce_prod":
        return Call("prod", (args[0],), (("axis", Const(tuple(p["axes"]))),))
    if name in CUMULATIVE:
        return cumulative_forward(op, args)
    return None


def extra_leaf_node(
    op: ArrayOp,
    args: Sequence[Node],
    shapes: Sequence[tuple[int, ...]],
    emit: Callable[[Node], Node],
    k: int = 0,
) -> Node | None:
    """The block values of ∂op/∂(operand k) over its value labels
    (:func:`~dgraph.blocks.array_extra.extra_value`), for this module's operations."""
    if permutes(op, k):  # a take or a scatter-add at an argsort's positions
        return _permutation_sources(op, args[1])
    if op.primitive == DYNAMIC_TAKE:
        return dynamic_value_node(op, args)
    if op.primitive == DYNAMIC_ADD:
        return add_value_node(op, k, args)
    if op.primitive == "reduce_prod":
        return _exclusive_product(tuple(op.param["axes"]), args[0], tuple(shapes[0]), emit)
    if op.primitive in CUMULATIVE:
        return cumulative_values(op, args)
    if op.primitive == "sort":  # the permutation's row values (ones) and sources
        d = int(op.param["dimension"])
        perm = AsType(_order(args[:-1] or args, d), "float")
        ones = Call("ones", (Const(tuple(shapes[-1])),))
        return Call("stack", (Seq((ones, perm)),))
    return None


def _permutation_sources(op: ArrayOp, positions: Node) -> Node:
    """A take's or a scatter-add's permutation at an ``argsort``'s positions: ones and
    each output's source (:func:`~dgraph.blocks.orders.sources`)."""
    a, shape = int(op.param["axis"]), tuple(op.shape)
    laid = shape if op.param.get("along") else tuple(-1 if j == a else 1 for j in range(len(shape)))
    at = Call("broadcast_to", (Call("reshape", (positions, Const(laid))), Const(shape)))
    if op.primitive == DYNAMIC_ADD:  # the inverse: where each position's update comes from
        return Call("stack", (Seq((Call("ones", (Const(shape),)), _inverse(at, shape, a))),))
    ones = Call("ones", (Const(shape),))
    return Call("stack", (Seq((ones, AsType(at, "float"))),))


def _inverse(at: Node, shape: tuple[int, ...], a: int) -> Node:
    """The inverse of the permutations ``at`` along axis ``a`` (each fibre of ``at`` holds
    every index once), as floats: zeros with each place's index written at its position,
    one scatter, O(n) (an ``argsort`` of ``at``, the same values, sorts: O(n log n), 0.4
    of the 1.4 s a call of a sort's Hessian took at 10⁶ unknowns)."""
    n, m = math.prod(shape), shape[a]
    stride = math.prod(shape[a + 1 :])
    lead = math.prod(shape[:a])
    laid = tuple(-1 if j == a else 1 for j in range(len(shape)))
    along = Call("reshape", (Call("arange", (Const(m),)), Const(laid)))  # the index along a
    flat = BinOp("*", at, Const(stride)) if stride != 1 else at
    if n != m:  # the other axes' offsets: the fibre's first entry
        first = BinOp("*", Call("arange", (Const(lead),)), Const(m * stride))
        first = BinOp(
            "+", Call("reshape", (first, Const((lead, 1)))), Call("arange", (Const(stride),))
        )
        inner = tuple(shape[j] if j != a else 1 for j in range(len(shape)))
        flat = BinOp("+", flat, Call("reshape", (first, Const(inner))))
    data = Call("broadcast_to", (along, Const(shape)))
    scattered = Scatter(n, Call("ravel", (flat,)), Call("ravel", (data,)))
    return Call("reshape", (scattered, Const(shape)))


def _order(keys: Sequence[Node], d: int) -> Node:
    """The stable order along ``d`` by ``keys``, the first key first
    (``array_extra.sort_order``): ``argsort``, or ``lexsort`` of the keys reversed."""
    if len(keys) == 1:
        return Call("argsort", (keys[0],), (("axis", Const(d)), _STABLE))
    return Call("lexsort", (Seq(tuple(reversed(keys))),), (("axis", Const(d)),))


def _exclusive_product(axes, x: Node, shape: tuple[int, ...], emit) -> Node:
    """Prefix times suffix products over the reduced axes, moved last and flattened
    (``array_extra.exclusive_product``)."""
    kept = [j for j in range(len(shape)) if j not in axes]
    order = tuple(kept + list(axes))
    lead = tuple(shape[j] for j in kept)
    moved = x if order == tuple(range(len(shape))) else Call("transpose", (x, Const(order)))
    flat = emit(Call("reshape", (moved, Const((*lead, -1)))))
    ones = Call("ones", (Const((*lead, 1)),))
    last = Const(-1)
    every = (Const(Ellipsis),)
    head = Index(flat, (*every, Slice(None, -1, None)))
    before = Call("cumprod", (_join(ones, head),), (("axis", last),))
    reversed_ = Call("flip", (flat, last))
    tail = Index(reversed_, (*every, Slice(None, -1, None)))
    after = Call("flip", (Call("cumprod", (_join(ones, tail),), (("axis", last),)), last))
    product = emit(BinOp("*", emit(before), emit(after)))
    moved_shape = tuple(shape[j] for j in order)
    back = Call("reshape", (product, Const(moved_shape)))
    if order == tuple(range(len(shape))):
        return back
    inverse = tuple(sorted(range(len(order)), key=order.__getitem__))
    return Call("transpose", (back, Const(inverse)))


def _join(a: Node, b: Node) -> Node:
    return Call("concatenate", (Seq((a, b)),), (("axis", Const(-1)),))
