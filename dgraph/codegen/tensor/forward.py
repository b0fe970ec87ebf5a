"""Each vertex's value as one array statement: its :class:`~dgraph.blocks.arrays.ArrayOp`
printed in NumPy or jax.numpy (``evaluate``'s semantics, one call per operation)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ...blocks.arrays import ArrayOp
from ...blocks.convolution import CONV
from ...blocks.linalg import LINALG, LU_DATA
from ...blocks.scatter import SCATTERS
from ...errors import InputError
from ..ir import AsType, BinOp, Call, Const, Index, Node, Seq, Slice, UnaryOp
from ..printing import CALLS, call_operands
from .convolution import conv_forward, pad_forward
from .extra_ops import extra_forward_node
from .leaves import power_node
from .linalg_code import linalg_forward
from .scatter_code import scatter_forward, take_forward

__all__ = ["forward_expression", "operand_shape"]

_OPERATORS = {
    "add": "+", "sub": "-", "mul": "*", "div": "/",
    "eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
}  # fmt: skip
ONE = Const(1)


def _elementwise(name: str, args: Sequence[Node]) -> Node | None:
    """The elementwise operation ``name`` on ``args``; None if it is not one."""
    if name in CALLS:
        return Call(CALLS[name][0], tuple(args[: call_operands(name)]))
    if name in _OPERATORS:
        return BinOp(_OPERATORS[name], args[0], args[1])
    if name == "neg":
        return UnaryOp("-", args[0])
    if name == "logistic":
        return BinOp("/", ONE, BinOp("+", ONE, Call("exp", (UnaryOp("-", args[0]),))))
    if name == "rsqrt":
        return BinOp("/", ONE, Call("sqrt", (args[0],)))
    if name in ("copy", "stop_gradient"):
        return args[0]
    if name == "convert_element_type":
        return BinOp("*", Const(1.0), args[0])
    return None


_BOOLEAN = {"eq", "ne", "lt", "le", "gt", "ge", "and", "or", "not", "is_finite"}


def operand_shape(x: object, shapes: dict[str, tuple[int, ...]]) -> tuple[int, ...]:
    """The shape of an operand: a vertex's, a constant's, a nested operation's."""
    return shapes[x] if isinstance(x, str) else tuple(x.shape)  # type: ignore[attr-defined]


def forward_expression(
    op: ArrayOp,
    args: Sequence[Node],
    shapes: Sequence[tuple[int, ...]],
    top: bool,
    index: Callable[[np.ndarray], Node] | None = None,
    emit: Callable[[Node], Node] | None = None,
    lang: str = "python",
) -> Node:
    """``op`` on the operands ``args`` (of ``shapes``); ``top``: a vertex's value (float,
    as ``evaluate`` gives), else a nested operation's (a comparison stays boolean);
    ``index`` names a constant integer array (a gather's positions), ``emit`` assigns
    a helper expression to a new name; ``lang`` the target (linear algebra's calls)."""
    name, p, shape = op.primitive, op.param, op.shape
    if name == CONV or (name == "pad" and not _plain_pad(p["padding_config"])):
        return (conv_forward if name == CONV else pad_forward)(op, args, shapes, index, emit)
    if name in SCATTERS:
        return scatter_forward(op, args, shapes, index or _literal_index, emit)
    if name in LINALG or name in LU_DATA:
        return linalg_forward(op, args, emit, lang)
    if name == "take" and index is not None:  # a gather the C printer reads too
        return take_forward(op, args[0], tuple(shapes[0]), index)
    if name == "polygamma":  # JAX's takes an integer order only
        args = [AsType(Call("asarray", (args[0],)), "int"), *args[1:]]
    found = _elementwise(name, args)
    if name == "logistic" and lang == "jax":  # JAX's sigmoid, whose derivatives JAX
        found = Call("special.expit", (args[0],))  # takes finite where exp(-x) overflows
    if found is not None:
        if top and name in _BOOLEAN:
            found = BinOp("*", Const(1.0), found)
        return _to_shape(found, np.broadcast_shapes(*shapes), shape)
    if name == "integer_pow":
        return _to_shape(power_node(args[0], int(p["y"])), shapes[0], shape)
    if name == "select_n":
        if len(args) == 3:  # a predicate 0/1 or boolean (a mask): chosen without a compare
            node = Call("where", (args[0], args[2], args[1]))
            return _to_shape(node, np.broadcast_shapes(*shapes), shape)
        node = args[-1]
        for k in range(len(args) - 2, 0, -1):
            node = Call("where", (BinOp("==", args[0], Const(k - 1)), args[k], node))
        return _to_shape(node, np.broadcast_shapes(*shapes), shape)
    if name == "dot_general":
        spec = Const(_dot_spec(shapes, p["dimension_numbers"]))
        return Call("einsum", (spec, args[0], args[1]))
    if name in ("reduce_sum", "reduce_max", "reduce_min"):
        function = {"reduce_sum": "sum", "reduce_max": "max", "reduce_min": "min"}[name]
        return Call(function, (args[0],), (("axis", Const(tuple(p["axes"]))),))
    found = extra_forward_node(op, args)
    if found is not None:
        positions = top and name in ("argmax", "argmin", "searchsorted")
        return BinOp("*", Const(1.0), found) if positions else found
    if name == "cumsum":
        axis = Const(p["axis"])
        if p.get("reverse"):
            flipped = Call("flip", (args[0], axis))
            return Call("flip", (Call("cumsum", (flipped,), (("axis", axis),)), axis))
        return Call("cumsum", (args[0],), (("axis", axis),))
    return _move(name, p, args, shapes, shape)


def _plain_pad(config) -> bool:
    return not any(interior or lo < 0 or hi < 0 for lo, hi, interior in config)


def _literal_index(array: np.ndarray) -> Node:
    return Call("asarray", (Const(tuple(int(i) for i in np.ravel(array))),))


def _to_shape(node: Node, natural: tuple[int, ...], shape: tuple[int, ...]) -> Node:
    if tuple(natural) == tuple(shape):
        return node
    if int(np.prod(natural)) == int(np.prod(shape)):
        return Call("reshape", (node, Const(tuple(shape))))
    return Call("broadcast_to", (node, Const(tuple(shape))))


def _dot_spec(shapes: Sequence[tuple[int, ...]], numbers) -> str:
    """The einsum of ``dot_general`` (batch, lhs free, rhs free), as arrays.py runs it."""
    (lc, rc), (lb, rb) = numbers
    letters = iter("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    left = [next(letters) for _ in shapes[0]]
    right = [next(letters) for _ in shapes[1]]
    for i, j in zip((*lc, *lb), (*rc, *rb), strict=True):
        right[j] = left[i]
    batch = [left[i] for i in lb]
    free_l = [left[i] for i in range(len(left)) if i not in lc and i not in lb]
    free_r = [right[j] for j in range(len(right)) if j not in rc and j not in rb]
    return f"{''.join(left)},{''.join(right)}->{''.join(batch + free_l + free_r)}"


def _move(name: str, p, args, shapes, shape: tuple[int, ...]) -> Node:
    x, mine = args[0], shapes[0]
    if name == "broadcast_in_dim":
        dims = tuple(p["broadcast_dimensions"])
        expanded = tuple(mine[dims.index(k)] if k in dims else 1 for k in range(len(shape)))
        inner = x if expanded == tuple(mine) else Call("reshape", (x, Const(expanded)))
        return inner if expanded == shape else Call("broadcast_to", (inner, Const(shape)))
    if name in ("reshape", "squeeze", "expand_dims"):
        return Call("reshape", (x, Const(tuple(shape))))
    if name == "transpose":
        return Call("transpose", (x, Const(tuple(p["permutation"]))))
    if name == "rev":
        return Call("flip", (x, Const(tuple(p["dimensions"]))))
    if name == "slice":
        strides = p.get("strides") or (1,) * len(p["start_indices"])
        parts = tuple(
            Slice(int(s), int(e), None if k == 1 else int(k))
            for s, e, k in zip(p["start_indices"], p["limit_indices"], strides, strict=True)
        )
        return Index(x, parts)
    if name == "pad":
        widths = tuple((int(lo), int(hi)) for lo, hi, _ in p["padding_config"])
        return Call("pad", (x, Const(widths)), (("constant_values", args[1]),))
    if name == "concatenate":
        return Call("concatenate", (Seq(tuple(args)),), (("axis", Const(p["dimension"])),))
    if name == "take":
        indices = Call("asarray", (Const(tuple(p["indices"])),))
        return Call("take", (x, indices), (("axis", Const(p["axis"])),))
    if name == "stack":
        return Call("stack", (Seq(tuple(args)),), (("axis", Const(p["axis"])),))
    raise InputError(f"the array operation {name!r} is not supported")
