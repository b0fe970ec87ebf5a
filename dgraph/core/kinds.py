"""Label values for *effective* multiplication counts (Naumann's unit labels).

A label is general (``None``: known only at run time) or a constant, kept exactly (an
``int`` or a ``Fraction``). One rule, :func:`product`, prices every product, in a built
expression set (:mod:`dgraph.core.costs`) and in every search alike: the constant
factors fold for free, the general ones cost one less than their number, plus one for a
constant coefficient other than ±1; a zero coefficient makes the product zero, and free.
A sum of constants is the constant it adds up to: 1 + (−1) is a zero label.

Lower bounds reason about three *kinds* instead (:func:`kind_of`): unit (±1), other
constant, general.

References: U. Naumann, "Optimal accumulation of Jacobian matrices by elimination
methods on the dual computational graph", Math. Program. 99 (2004) 399–421.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction

import sympy

from ..blocks import Product

__all__ = [
    "CONSTANT",
    "GENERAL",
    "UNIT",
    "Value",
    "add",
    "kind_of",
    "multiply",
    "product",
    "value_of",
]

# a constant label's exact value (an int when it is one); None: a general label
Value = int | Fraction | None

UNIT, CONSTANT, GENERAL = 0, 1, 2


def value_of(number: sympy.Number | None) -> Value:
    """The exact value of a constant label (a float exactly as stored); None stays None.

    >>> value_of(sympy.Integer(-1)), value_of(sympy.Rational(1, 2)), value_of(None)
    (-1, Fraction(1, 2), None)
    """
    if number is None:
        return None
    if number.is_Integer:
        return int(number)
    if number.is_Rational:
        return Fraction(int(number.p), int(number.q))
    value = float(number)
    if not math.isfinite(value):  # x/1e-320's 1e320, past the doubles: a general label
        return None
    return _exact(Fraction(value))


def _exact(x: int | Fraction) -> int | Fraction:
    """``x`` as an int when it is one: only an int can be 0 or ±1, which keeps the
    checks below cheap."""
    return x if x.__class__ is int or x.denominator != 1 else x.numerator


def product(values: Iterable[Value]) -> Product:
    """One product of factors with these values, and its effective multiplications.

    Parameters
    ----------
    values
        The factors' values: None for a general factor, else its exact constant.

    Returns
    -------
    Product
        ``cost``: the effective multiplications; ``product``: the product's value.

    >>> product([None, 2, 3]).cost, product([None, None, -1]), product([None, 0])
    (1, Product(cost=1, product=None), Product(cost=0, product=0))
    >>> tuple(product([2, 3]))
    (0, 6)
    """
    general, constant = 0, 1
    for v in values:
        if v is None:
            general += 1
        else:
            constant *= v
    constant = _exact(constant)
    if general == 0:
        return Product(0, constant)
    if constant == 0:
        return Product(0, 0)
    return Product(general - (1 if constant in (1, -1) else 0), None)


def multiply(a: Value, b: Value) -> Product:
    """``product((a, b))``, written out: eliminations price every product with it.

    >>> [tuple(multiply(*ab)) for ab in ((1, None), (2, None), (2, 3), (0, None))]
    [(0, None), (1, None), (0, 6), (0, 0)]
    """
    if a is None:
        if b is None or b.__class__ is not int:
            return _GENERAL  # general times general, or a fraction: never 0 or ±1
        return _ZERO if b == 0 else (_UNIT_GENERAL if b in (1, -1) else _GENERAL)
    if b is None:
        if a.__class__ is not int:
            return _GENERAL
        return _ZERO if a == 0 else (_UNIT_GENERAL if a in (1, -1) else _GENERAL)
    if a.__class__ is int and b.__class__ is int:
        return Product(0, a * b)
    if a == 1 or b == 1:  # a unit times a fraction, the common case: no arithmetic
        return Product(0, b if a == 1 else a)
    return Product(0, _exact(a * b))


# the products of a general label, made once: every search prices many of them
_GENERAL, _UNIT_GENERAL, _ZERO = Product(1, None), Product(0, None), Product(0, 0)


def add(a: Value, b: Value) -> Value:
    """The value of a sum: general if either term is, else the constant it adds up to.

    >>> add(1, -1), add(1, None), add(Fraction(1, 2), Fraction(1, 2))
    (0, None, 1)
    """
    return None if a is None or b is None else _exact(a + b)


def kind_of(value: Value) -> int:
    """The kind of a label of this value: unit (±1), constant or general."""
    return GENERAL if value is None else (UNIT if value in (1, -1) else CONSTANT)
