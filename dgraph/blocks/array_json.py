"""Array operations in dgraph/1 JSON: a tensor vertex's ``op`` object, written and read.

``{"primitive": "dot_general", "operands": ["x", {"const": [[1.0, 2.0]], "shape": [1, 2]},
{"primitive": "gt", ...}], "params": {"dimension_numbers": [[[1], [0]], [[], []]]}}``:
an operand is a vertex's name, a constant (a nested list of its values and its shape;
the non-finite values as the strings ``"inf"``, ``"-inf"`` and ``"nan"``), or a nested operation
with its own ``"shape"``. Params are JSON lists where :mod:`dgraph.blocks.arrays` has
tuples. Reading checks the primitive, the shapes and the number of operands, each with
one error line; nesting is walked with an explicit stack, never recursion.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import InputError
from .arrays import (
    ELEMENTWISE,
    KNOWN,
    MOVES,
    NONDIFFERENTIABLE,
    PRIMITIVES,
    REGIONS,
    ArrayOp,
    Const,
)
from .dynamic_scatter import DYNAMIC_ADD
from .dynamic_take import DYNAMIC_TAKE

__all__ = ["MAX_NESTING", "arity", "op_from_json", "op_to_json", "shape_from_json"]

MAX_NESTING = 200  # nested operations inside one vertex's op


def arity(primitive: str) -> tuple[int, int | None]:
    """The least and most operands ``primitive`` takes (None: any number)."""
    if primitive in ELEMENTWISE:
        n = len(ELEMENTWISE[primitive][1])
        return n, n
    if primitive in NONDIFFERENTIABLE:
        two = ("eq", "ne", "lt", "le", "gt", "ge", "and", "or", "searchsorted")
        n = 2 if primitive in two else 1
        return n, n
    if primitive == "select_n":
        return 2, None
    if primitive in ("concatenate", "stack", "sort", "argsort"):  # a sort's keys beside
        return 1, None
    if primitive == DYNAMIC_ADD:  # the base, the positions, the updates
        return 3, 3
    two = ("dot_general", "pad", "conv_general_dilated", "triangular_solve", "linear_solve")
    if primitive in (*two, DYNAMIC_TAKE) or primitive.startswith("scatter"):
        return 2, 2
    return 1, 1  # the other moves, reductions, integer_pow, cumsum


assert all(arity(p) for p in PRIMITIVES) and "pad" in MOVES


NOT_FINITE = ("inf", "-inf", "nan")  # a float param or constant that JSON cannot hold


def _param_to_json(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return [_param_to_json(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):  # a take's NaN fill
        return "nan" if value != value else "inf" if value > 0 else "-inf"
    return value


def _param_from_json(value: Any, where: str) -> Any:
    """A JSON param as arrays' tuples: numbers (``"inf"``, ``"-inf"``, ``"nan"`` as
    strings), booleans, null, short strings (a take's ``mode``) and lists of them."""
    if isinstance(value, list):
        return tuple(_param_from_json(v, where) for v in value)
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    if isinstance(value, str) and value in NOT_FINITE:
        return float(value)
    if isinstance(value, str) and len(value) <= 40 and value.isidentifier():
        return value
    raise InputError(f"{where}: params hold numbers, booleans, null, names and lists of them")


def _const_to_json(c: Const) -> dict:
    value = c.value
    if value.dtype.kind == "f" and not np.all(np.isfinite(value)):
        flat = np.empty(value.size, dtype=object)
        for k, v in enumerate(value.reshape(-1).tolist()):
            flat[k] = v if math.isfinite(v) else "nan" if v != v else "inf" if v > 0 else "-inf"
        return {"const": flat.reshape(value.shape).tolist(), "shape": list(value.shape)}
    return {"const": value.tolist(), "shape": list(value.shape)}


def shape_from_json(value: Any, where: str) -> tuple[int, ...]:
    if (
        not isinstance(value, list)
        or len(value) > 32
        or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in value)
        or math.prod(value) > 10**9
    ):
        raise InputError(f"{where}: 'shape' must be a list of positive integers")
    return tuple(value)


def _const_from_json(data: dict, where: str) -> Const:
    shape = shape_from_json(data.get("shape"), where)
    if set(data) - {"const", "shape"}:
        raise InputError(f"{where}: a constant has the keys 'const' and 'shape' only")
    raw = data["const"]
    try:
        values = np.asarray(raw, dtype=object)
    except ValueError:
        raise InputError(f"{where}: a constant's values are not a rectangular list") from None
    if values.shape != shape:
        raise InputError(f"{where}: a constant's values have shape {values.shape}, not {shape}")
    flat = values.reshape(-1)
    if all(isinstance(v, bool) for v in flat):
        return Const.of(np.asarray(values, dtype=bool))
    if all(isinstance(v, int) and not isinstance(v, bool) for v in flat):
        if any(abs(v) >= 2**63 for v in flat):
            raise InputError(f"{where}: a constant's integer does not fit 64 bits")
        return Const.of(np.asarray(values, dtype=np.int64))
    out = np.empty(flat.size)
    for k, v in enumerate(flat):
        if v in NOT_FINITE:
            out[k] = float(v)
        elif isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
            out[k] = v
        else:
            raise InputError(f"{where}: a constant's value {str(v)[:20]!r} is not a number")
    return Const.of(out.reshape(shape))


def op_to_json(op: ArrayOp, shape: bool = False) -> dict:
    """``op`` as a JSON object (``shape`` included for a nested operation)."""
    done: dict[int, dict] = {}
    stack: list[tuple[ArrayOp, bool]] = [(op, shape)]
    while stack:
        top, with_shape = stack[-1]
        pending = [x for x in top.operands if isinstance(x, ArrayOp) and id(x) not in done]
        if pending:
            stack += [(x, True) for x in pending]
            continue
        stack.pop()
        operands = [
            x
            if isinstance(x, str)
            else done[id(x)]
            if isinstance(x, ArrayOp)
            else _const_to_json(x)
            for x in top.operands
        ]
        if top.primitive in REGIONS:  # a region's body is a graph: not in dgraph/1 yet
            raise InputError(
                f"a {'branch' if top.primitive == 'cond' else 'loop'} (a lax.scan, while_loop"
                " or cond region) cannot be written as dgraph/1"
            )
        entry: dict[str, Any] = {"primitive": top.primitive, "operands": operands}
        params = [(k, v) for k, v in top.params if k != KNOWN]  # found again when read
        if params:
            entry["params"] = {k: _param_to_json(v) for k, v in params}
        if with_shape:
            entry["shape"] = list(top.shape)
        done[id(top)] = entry
    return done[id(op)]


def op_from_json(data: Any, shape: tuple[int, ...], where: str) -> ArrayOp:
    """A vertex's ``op`` object as an :class:`ArrayOp` of result ``shape``."""
    built: dict[int, ArrayOp] = {}
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        top, depth = stack[-1]
        if depth > MAX_NESTING:
            raise InputError(f"{where}: operations nested deeper than {MAX_NESTING}")
        if not isinstance(top, dict):
            raise InputError(f"{where}: 'op' must be an object")
        operands = top.get("operands")
        if not isinstance(operands, list):
            raise InputError(f"{where}: an op needs a list 'operands'")
        pending = [
            x for x in operands if isinstance(x, dict) and "const" not in x and id(x) not in built
        ]
        if pending:
            stack += [(x, depth + 1) for x in pending]
            continue
        stack.pop()
        built[id(top)] = _one_op(top, operands, built, shape if top is data else None, where)
    return built[id(data)]


def _one_op(top: dict, operands: list, built: dict, shape, where: str) -> ArrayOp:
    primitive = top.get("primitive")
    if not isinstance(primitive, str) or primitive not in PRIMITIVES:
        raise InputError(f"{where}: unknown array primitive {str(primitive)[:40]!r}")
    allowed = {"primitive", "operands", "params"} | ({"shape"} if shape is None else set())
    if set(top) - allowed:
        raise InputError(f"{where}: unknown key {sorted(set(top) - allowed)[0][:40]!r} in an op")
    if shape is None:
        shape = shape_from_json(top.get("shape"), f"{where}: {primitive}")
    low, high = arity(primitive)
    if len(operands) < low or (high is not None and len(operands) > high):
        wanted = f"{low}" if low == high else f"at least {low}"
        raise InputError(f"{where}: {primitive} takes {wanted} operands, not {len(operands)}")
    args: list[Any] = []
    for x in operands:
        if isinstance(x, str):
            args.append(x)
        elif isinstance(x, dict) and "const" in x:
            args.append(_const_from_json(x, f"{where}: {primitive}"))
        elif isinstance(x, dict):
            args.append(built[id(x)])
        else:
            raise InputError(f"{where}: an operand is a name, a constant or an op")
    params = top.get("params", {})
    if not isinstance(params, dict):
        raise InputError(f"{where}: 'params' must be an object")
    kept = tuple((str(k), _param_from_json(v, f"{where}: {primitive}")) for k, v in params.items())
    return ArrayOp(primitive, tuple(args), kept, shape)
