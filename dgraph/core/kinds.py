"""Label kinds for *effective* multiplication counts (Naumann's unit labels).

A label is a unit (±1: an addition's or a subtraction's partial), another constant, or a
general value. A product with a unit factor, or of two constants, costs nothing at run
time; any other product costs one multiplication; a sum of two units is a constant.
Searches over vertex, edge and face eliminations price their moves with these rules.
"""

from __future__ import annotations

import sympy

__all__ = ["CONSTANT", "GENERAL", "UNIT", "add", "kind_of", "multiply"]

UNIT, CONSTANT, GENERAL = 0, 1, 2


def kind_of(value: sympy.Number | None) -> int:
    """The kind of a label whose constant value is ``value`` (None: not constant)."""
    return GENERAL if value is None else (UNIT if abs(value) == 1 else CONSTANT)


def multiply(a: int, b: int) -> tuple[int, int]:
    """(cost, kind) of a product of labels of kinds ``a`` and ``b``.

    >>> multiply(UNIT, GENERAL), multiply(CONSTANT, GENERAL), multiply(CONSTANT, CONSTANT)
    ((0, 2), (1, 2), (0, 1))
    """
    if a == UNIT or b == UNIT:
        return 0, max(a, b)
    if a == CONSTANT and b == CONSTANT:
        return 0, CONSTANT
    return 1, GENERAL


def add(a: int, b: int) -> int:
    """The kind of a sum of labels of kinds ``a`` and ``b`` (two units make a constant)."""
    return GENERAL if GENERAL in (a, b) else CONSTANT
