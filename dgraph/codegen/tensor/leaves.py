"""Each edge block's values as array statements (``block_value``'s semantics): an
elementwise derivative printed from its sympy formula in the operands' names, the other
operand of a ``dot_general`` transposed to the block's value-label order, a one-hot of
the extremes for ``reduce_max``, and one value for a block without value labels (a 0-d
block's derivative, a constant one's first entry, 1 for a move)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import sympy

from ...blocks import Block, Sparse
from ...blocks.array_extra import permutes
from ...blocks.arrays import (
    ELEMENTWISE,
    OPERANDS,
    RUN_TIME,
    ArrayOp,
    exact_power,
    labelled_block,
    narrowed,
    other_labels,
)
from ...blocks.convolution import CONV
from ...blocks.cumulative import CumsumPattern
from ...blocks.dynamic_scatter import DYNAMIC_ADD
from ...blocks.linalg import LINALG
from ...blocks.scatter import SCATTERS
from ...errors import InputError
from ..ir import AsType, BinOp, Call, Const, Formula, Index, Name, Node
from .convolution import conv_values
from .extra_ops import extra_leaf_node
from .linalg_code import linalg_values
from .scatter_code import scatter_values

__all__ = ["leaf_values"]


def leaf_values(
    op: ArrayOp,
    k: int,
    block: Block,
    args: Sequence[Node],
    shapes: Sequence[tuple[int, ...]],
    emit: Callable[[Node], Node],
    index: Callable[[np.ndarray], Name] | None = None,
    lang: str = "python",
) -> Node:
    """The values of ∂op/∂(operand k), as an expression in the operands ``args`` (C order
    over the block's value labels; one per entry of a sparse block); ``emit`` assigns a
    helper expression to a new name, ``index`` names a constant integer array (the
    entries a block narrowed by a constant keeps: ``arrays.narrowed``)."""
    name = op.primitive
    if name == CONV:
        return conv_values(op, k, args, shapes, index)
    if name in SCATTERS:
        return scatter_values(op, k, block, args, shapes, emit, index)
    if name in LINALG:
        return linalg_values(op, k, args, shapes, emit, lang)
    if name in ("sort", DYNAMIC_ADD) or permutes(op, k):  # a run-time permutation; 1
        return extra_leaf_node(op, args, shapes, emit, k)  # type: ignore[return-value]
    if isinstance(block, CumsumPattern):  # ones: the running sum (blockops prints cumsum)
        return Const(1.0)
    if isinstance(block, Sparse):
        labelled = labelled_block(op, k, shapes)
        found = narrowed(op, k, shapes, labelled)
        if found is None:
            return Call("ones", (Const(block.nnz),))
        if index is None:
            raise InputError(f"{name}: a block narrowed by a constant needs its index array")
        values = leaf_values(op, k, labelled, args, shapes, emit)
        return Index(Call("reshape", (values, Const((-1,)))), (index(found[1]),))
    if not block.value:
        return _number(op, k, args, shapes, emit)
    return _values(op, k, args, shapes, emit)


def _values(
    op: ArrayOp,
    k: int,
    args: Sequence[Node],
    shapes: Sequence[tuple[int, ...]],
    emit: Callable[[Node], Node],
) -> Node:
    """The values of a labelled block over its value labels (every label of an
    elementwise operation's diagonal, the other operand of a dot)."""
    name, shape = op.primitive, op.shape
    if name == "integer_pow":
        y = int(op.param["y"])
        return _broadcast(_power_derivative(y, args[0]), shapes[0], shape)
    if name == "select_n":
        chosen = BinOp("==", AsType(Call("asarray", (args[0],)), "int"), Const(k - 1))
        which = Call("where", (chosen, Const(1.0), Const(0.0)))
        return _broadcast(which, shapes[0], shape)
    if name in ELEMENTWISE:
        by_operand: dict[Node, sympy.Symbol] = {}  # max(x, x): one symbol, one number
        for i, a in enumerate(args):
            by_operand.setdefault(a, sympy.Symbol(f"_a{i}", real=True))
        symbols = [by_operand[a] for a in args]
        names = dict(zip(OPERANDS, symbols, strict=False))
        formula = ELEMENTWISE[name][1][k].xreplace(names)  # max(x, x)'s is a number
        read = formula.free_symbols
        operands = tuple((s, a) for a, s in by_operand.items() if s in read)
        natural = [sh for sh, s in zip(shapes, symbols, strict=False) if s in read]
        node = BinOp("*", Const(1.0), Formula(formula, operands))
        if not natural:
            return Call("full", (Const(tuple(shape)), node))
        return _broadcast(node, np.broadcast_shapes(*natural), shape)
    if name == "dot_general":
        return _dot(op, k, args, shapes)
    if name in ("reduce_max", "reduce_min"):
        axes = (("axis", Const(tuple(op.param["axes"]))), ("keepdims", Const(True)))
        best = Call(name[7:], (args[0],), axes)
        hit = emit(Call("where", (BinOp("==", args[0], best), Const(1.0), Const(0.0))))
        return BinOp("/", hit, Call("sum", (hit,), axes))
    found = extra_leaf_node(op, args, shapes, emit)
    if found is not None:
        return found
    raise InputError(f"{name}: no values for its block")


def _broadcast(node: Node, natural, shape: tuple[int, ...]) -> Node:
    if tuple(natural) == tuple(shape):
        return node
    return Call("broadcast_to", (node, Const(tuple(shape))))


def _number(
    op: ArrayOp,
    k: int,
    args: Sequence[Node],
    shapes: Sequence[tuple[int, ...]],
    emit: Callable[[Node], Node],
) -> Node:
    """A block's one value: a formula's number, 1 for a move or a sum, else the first
    entry of the values (a 0-d block, or a derivative constant along the block)."""
    if op.primitive in ELEMENTWISE and ELEMENTWISE[op.primitive][1][k].is_Number:
        return Const(float(ELEMENTWISE[op.primitive][1][k]))
    if op.primitive == "integer_pow" and int(op.param["y"]) in (0, 1):
        return Const(float(op.param["y"]))
    if op.primitive not in RUN_TIME:
        return Const(1.0)
    values = _values(op, k, args, shapes, emit)
    return values if op.shape == () else Index(Call("ravel", (values,)), (Const(0),))


def _power_derivative(y: int, x: Node) -> Node:
    """``y·x**(y-1)`` (0 for y = 0, where x**-1 would be inf at 0)."""
    if not y:
        return Call("zeros_like", (x,))
    return BinOp("*", Const(y), power_node(x, y - 1))


def power_node(x: Node, y: int) -> Node:
    """``x**y`` for a whole ``y`` of any size, its sign kept
    (:func:`~dgraph.blocks.arrays.exact_power`)."""
    e, times = exact_power(y)
    node = BinOp("**", x, Const(e))
    return BinOp("*", x, node) if times else node


def _dot(op: ArrayOp, k: int, args, shapes) -> Node:
    """The other operand, its axes in the order of the block's value labels
    (``arrays._dot_value``, the permutation found here once)."""
    (lc, rc), (lb, rb) = op.param["dimension_numbers"]
    other = shapes[1 - k]
    oc, ob = (rc, rb) if k == 0 else (lc, lb)
    mine = shapes[k]
    mc, mb = (lc, lb) if k == 0 else (rc, rb)
    n_batch, n_free_m = len(mb), len(mine) - len(mc) - len(mb)
    start = n_batch + n_free_m
    contract = list(range(start, start + len(mc)))
    free_o = list(range(start + len(mc), start + len(mc) + len(other) - len(oc) - len(ob)))
    labels = other_labels(other, oc, ob, contract, list(range(n_batch)), free_o)
    order = tuple(int(i) for i in np.argsort(labels))
    if order == tuple(range(len(order))):
        return args[1 - k]
    return Call("transpose", (args[1 - k], Const(order)))
