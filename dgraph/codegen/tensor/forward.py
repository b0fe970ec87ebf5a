"""Each vertex's value as one array statement: its :class:`~dgraph.blocks.arrays.ArrayOp`
printed in NumPy or jax.numpy (``evaluate``'s semantics, one call per operation)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...blocks.arrays import ArrayOp
from ...errors import InputError
from .dialect import Dialect

__all__ = ["forward_expression", "operand_shape"]

# name: the expression, {0} and {1} the operands, {xp} the array module
_ELEMENTWISE = {
    "neg": "(-{0})",
    "exp": "{xp}.exp({0})",
    "exp2": "{xp}.exp2({0})",
    "log": "{xp}.log({0})",
    "log1p": "{xp}.log1p({0})",
    "expm1": "{xp}.expm1({0})",
    "sin": "{xp}.sin({0})",
    "cos": "{xp}.cos({0})",
    "tan": "{xp}.tan({0})",
    "asin": "{xp}.arcsin({0})",
    "acos": "{xp}.arccos({0})",
    "atan": "{xp}.arctan({0})",
    "sinh": "{xp}.sinh({0})",
    "cosh": "{xp}.cosh({0})",
    "tanh": "{xp}.tanh({0})",
    "asinh": "{xp}.arcsinh({0})",
    "acosh": "{xp}.arccosh({0})",
    "atanh": "{xp}.arctanh({0})",
    "logistic": "(1 / (1 + {xp}.exp(-{0})))",
    "sqrt": "{xp}.sqrt({0})",
    "rsqrt": "(1 / {xp}.sqrt({0}))",
    "cbrt": "{xp}.cbrt({0})",
    "abs": "{xp}.abs({0})",
    "square": "{xp}.square({0})",
    "add": "({0} + {1})",
    "sub": "({0} - {1})",
    "mul": "({0} * {1})",
    "div": "({0} / {1})",
    "pow": "{xp}.power({0}, {1})",
    "atan2": "{xp}.arctan2({0}, {1})",
    "max": "{xp}.maximum({0}, {1})",
    "min": "{xp}.minimum({0}, {1})",
    "copy": "{0}",
    "convert_element_type": "(1.0 * {0})",
    "stop_gradient": "{0}",
    "floor": "{xp}.floor({0})",
    "ceil": "{xp}.ceil({0})",
    "round": "{xp}.round({0})",
    "sign": "{xp}.sign({0})",
    "eq": "({0} == {1})",
    "ne": "({0} != {1})",
    "lt": "({0} < {1})",
    "le": "({0} <= {1})",
    "gt": "({0} > {1})",
    "ge": "({0} >= {1})",
    "and": "{xp}.logical_and({0}, {1})",
    "or": "{xp}.logical_or({0}, {1})",
    "not": "{xp}.logical_not({0})",
    "is_finite": "{xp}.isfinite({0})",
}
_BOOLEAN = {"eq", "ne", "lt", "le", "gt", "ge", "and", "or", "not", "is_finite"}


def operand_shape(x: object, shapes: dict[str, tuple[int, ...]]) -> tuple[int, ...]:
    """The shape of an operand: a vertex's, a constant's, a nested operation's."""
    return shapes[x] if isinstance(x, str) else tuple(x.shape)  # type: ignore[attr-defined]


def forward_expression(
    op: ArrayOp, args: Sequence[str], shapes: Sequence[tuple[int, ...]], d: Dialect, top: bool
) -> str:
    """``op`` on the operands named ``args`` (of ``shapes``); ``top``: a vertex's value
    (float, as ``evaluate`` gives), else a nested operation's (a comparison stays boolean)."""
    name, p, xp, shape = op.primitive, op.param, d.xp, op.shape
    if name == "erf":
        return f"{d.special('erf')}({args[0]})"
    if name in _ELEMENTWISE:
        text = _ELEMENTWISE[name].format(*args, xp=xp)
        if top and name in _BOOLEAN:
            text = f"(1.0 * {text})"
        return _to_shape(text, np.broadcast_shapes(*shapes), shape, xp)
    if name == "integer_pow":
        return _to_shape(f"({args[0]} ** {int(p['y'])})", shapes[0], shape, xp)
    if name == "select_n":
        text = args[-1]
        for k in range(len(args) - 2, 0, -1):
            text = f"{xp}.where({args[0]} == {k - 1}, {args[k]}, {text})"
        return _to_shape(text, np.broadcast_shapes(*shapes), shape, xp)
    if name == "dot_general":
        return f"{xp}.einsum({_dot_spec(shapes, p['dimension_numbers'])!r}, {args[0]}, {args[1]})"
    if name in ("reduce_sum", "reduce_max", "reduce_min"):
        function = {"reduce_sum": "sum", "reduce_max": "max", "reduce_min": "min"}[name]
        return f"{xp}.{function}({args[0]}, axis={tuple(p['axes'])!r})"
    if name == "cumsum":
        axis = p["axis"]
        if p.get("reverse"):
            return f"{xp}.flip({xp}.cumsum({xp}.flip({args[0]}, {axis}), axis={axis}), {axis})"
        return f"{xp}.cumsum({args[0]}, axis={axis})"
    return _move(name, p, args, shapes, shape, xp)


def _to_shape(text: str, natural: tuple[int, ...], shape: tuple[int, ...], xp: str) -> str:
    if tuple(natural) == tuple(shape):
        return text
    if int(np.prod(natural)) == int(np.prod(shape)):
        return f"{xp}.reshape({text}, {shape!r})"
    return f"{xp}.broadcast_to({text}, {shape!r})"


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


def _move(name: str, p, args, shapes, shape: tuple[int, ...], xp: str) -> str:
    x, mine = args[0], shapes[0]
    if name == "broadcast_in_dim":
        dims = tuple(p["broadcast_dimensions"])
        expanded = tuple(mine[dims.index(k)] if k in dims else 1 for k in range(len(shape)))
        inner = x if expanded == tuple(mine) else f"{xp}.reshape({x}, {expanded!r})"
        return inner if expanded == shape else f"{xp}.broadcast_to({inner}, {shape!r})"
    if name in ("reshape", "squeeze", "expand_dims"):
        return f"{xp}.reshape({x}, {shape!r})"
    if name == "transpose":
        return f"{xp}.transpose({x}, {tuple(p['permutation'])!r})"
    if name == "rev":
        return f"{xp}.flip({x}, {tuple(p['dimensions'])!r})"
    if name == "slice":
        strides = p.get("strides") or (1,) * len(mine)
        parts = []
        for s, e, k in zip(p["start_indices"], p["limit_indices"], strides, strict=True):
            parts.append(f"{s}:{e}" + (f":{k}" if k != 1 else ""))
        return f"{x}[{', '.join(parts)}{',' if len(parts) == 1 else ''}]"
    if name == "pad":
        config = p["padding_config"]
        if any(interior or lo < 0 or hi < 0 for lo, hi, interior in config):
            raise InputError("pad: interior or negative padding is not supported")
        widths = tuple((int(lo), int(hi)) for lo, hi, _ in config)
        return f"{xp}.pad({x}, {widths!r}, constant_values={args[1]})"
    if name == "concatenate":
        return f"{xp}.concatenate([{', '.join(args)}], axis={p['dimension']})"
    if name == "take":
        return f"{xp}.take({x}, {xp}.asarray({list(p['indices'])!r}), axis={p['axis']})"
    if name == "stack":
        return f"{xp}.stack([{', '.join(args)}], axis={p['axis']})"
    raise InputError(f"the array operation {name!r} is not supported")
