"""Bit operations on signed integers read as integer arithmetic at the array level: a loop
body's ``k >> 1``, ``k & 1`` or ``i ^ 3`` of its counter (repeated squaring's bits), where
the array level's ``and``/``or``/``not`` are logical (booleans'). ``k >> s`` is
``floor(k / 2^s)`` (exact below 2^53), ``k << s`` is ``k · 2^s``, ``k & m`` for a constant
``m ≥ 0`` is the sum of ``m``'s bits ``2^b`` times ``k``'s bit ``b``, ``floor(k / 2^b) −
2 floor(k / 2^(b+1))`` (two's complement, negative ``k`` too), ``k | m = k + m − (k & m)``,
``k ^ m = k + m − 2 (k & m)`` and ``~k = −1 − k``. Shift counts and masks must be constants
(None otherwise: the usual reading, which refuses them). See Warren, *Hacker's Delight*,
2nd ed. (2012), §2-1 and §2-5 for these identities."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..blocks.arrays import ArrayOp

__all__ = ["BITWISE"]

_MAX_BITS = 31  # masks below 2^31: one term per set bit


def _signed(aval) -> bool:
    dtype = getattr(aval, "dtype", None)
    return isinstance(dtype, np.dtype) and dtype.kind == "i"


def _scale(reader, x: Any, power: np.ndarray, shape: tuple, op: str) -> ArrayOp:
    """``x`` times (``mul``) or divided by (``div``) the constants ``2^power``."""
    factor = np.broadcast_to(np.ldexp(1.0, power.astype(np.int64)), shape)
    return ArrayOp(op, (reader.operand(x), reader.operand(np.array(factor))), (), shape)


def _floor_shift(reader, k: Any, bits: int, shape: tuple) -> ArrayOp | Any:
    """``floor(k / 2^bits)`` (``k >> bits``)."""
    if bits == 0:
        return reader.operand(k)
    divided = _scale(reader, k, np.full(shape, bits), shape, "div")
    return ArrayOp("floor", (divided,), (), shape)


def _masked(reader, k: Any, mask: np.ndarray, shape: tuple) -> ArrayOp | None:
    """``k & mask`` for constants ``0 ≤ mask < 2^31``: Σ_b (mask's bit b) 2^b bit_b(k)."""
    mask = np.broadcast_to(np.asarray(mask, dtype=np.int64), shape)
    if mask.size and (mask.min() < 0 or mask.max() >= 2**_MAX_BITS):
        return None
    total: Any = reader.operand(np.zeros(shape))
    top = int(mask.max()).bit_length() if mask.size else 0
    for b in range(top):
        chosen = (mask >> b) & 1
        if not chosen.any():
            continue
        high = _floor_shift(reader, k, b + 1, shape)
        bit = ArrayOp(
            "sub",
            (_floor_shift(reader, k, b, shape), _scale(reader, high, np.ones(shape), shape, "mul")),
            (),
            shape,
        )
        weight = reader.operand(np.array(np.ldexp(1.0, b) * chosen, dtype=float))
        total = ArrayOp("add", (total, ArrayOp("mul", (weight, bit), (), shape)), (), shape)
    return total


def _operands(eqn, ins: list[Any]) -> tuple[Any, np.ndarray] | None:
    """(the traced integer, the constant) of a binary bit operation, else None."""
    if not all(_signed(v.aval) for v in (*eqn.invars, *eqn.outvars)):
        return None
    constant = [isinstance(x, np.ndarray) for x in ins]
    if constant == [False, True]:
        return ins[0], np.asarray(ins[1])
    if constant == [True, False] and eqn.primitive.name in ("and", "or", "xor"):
        return ins[1], np.asarray(ins[0])
    return None


def _read(reader, eqn, ins: list[Any]) -> list[Any] | None:
    name = eqn.primitive.name
    shape = tuple(int(n) for n in eqn.outvars[0].aval.shape)
    if name == "not":
        if not _signed(eqn.invars[0].aval) or isinstance(ins[0], np.ndarray):
            return None
        minus_one = reader.operand(np.full(shape, -1.0))
        return [ArrayOp("sub", (minus_one, reader.operand(ins[0])), (), shape)]
    found = _operands(eqn, ins)
    if found is None:
        return None
    k, m = found
    if name in ("shift_right_arithmetic", "shift_left"):
        m = np.broadcast_to(m, shape)
        if m.size and (m.min() < 0 or m.max() > _MAX_BITS):
            return None
        if name == "shift_left":
            return [_scale(reader, k, m, shape, "mul")]
        if np.unique(m).size == 1:
            return [_floor_shift(reader, k, int(m.reshape(-1)[0]) if m.size else 0, shape)]
        return [ArrayOp("floor", (_scale(reader, k, m, shape, "div"),), (), shape)]
    masked = _masked(reader, k, m, shape)
    if masked is None or name == "and":
        return None if masked is None else [masked]
    return [_combined(reader, k, m, masked, name == "xor", shape)]


def _combined(reader, k: Any, m: np.ndarray, masked: ArrayOp, xor: bool, shape: tuple):
    """``k | m = k + m − (k & m)``, ``k ^ m = k + m − 2 (k & m)``."""
    m = np.array(np.broadcast_to(m, shape), dtype=float)
    both = ArrayOp("add", (reader.operand(k), reader.operand(m)), (), shape)
    overlap = _scale(reader, masked, np.full(shape, int(xor)), shape, "mul")
    return ArrayOp("sub", (both, overlap), (), shape)


#: lax's bit primitives on signed integers (the rest: None, the usual reading)
BITWISE = {
    name: _read for name in ("shift_right_arithmetic", "shift_left", "and", "or", "xor", "not")
}
