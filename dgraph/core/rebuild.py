"""Expressions rebuilt with new arguments, keeping an inexact number a factor of a sum.

sympy multiplies a number into a sum as it builds a product: ``3.7*(x - 1)`` becomes
``3.7*x - 3.7``. In floating point that is a rounding step before a cancellation: at
``x = 1 + 1e-9`` the product ``3.7*x`` is rounded to 16 digits and the difference keeps 7
of them, where ``x - 1`` is exact (Sterbenz) and its product rounds once. Substituting a
vertex's value into its users (:func:`replaced`) and folding constants rebuild products
this way whenever an argument changes, so a program written ``k*(x - x0)`` was evaluated
as ``k*x - k*x0``. :func:`rebuilt` builds every node as sympy does except that one: a
number times a sum stays a product (a Float, or a Rational the tracer read from one:
``2.5`` is ``5/2``), unless it is a power of two, whose products round nothing.

>>> x = sympy.Symbol("x")
>>> replaced(sympy.Symbol("t") * 3.7, {sympy.Symbol("t"): x - 1})
3.7*(x - 1)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy

__all__ = ["bottom_up", "rebuilt", "replaced"]


def bottom_up(
    expr: sympy.Basic,
    combine: Callable[[sympy.Basic, list], Any],
    known: dict | None = None,
) -> Any:
    """``combine(e, [value of each argument])`` for ``expr``, every subexpression first,
    without recursion (expressions nest deeper than Python's stack); each distinct
    subexpression is combined once, and ``known`` (node -> value, shared between calls)
    gives values that are not combined at all."""
    done: dict = {} if known is None else known
    stack = [(expr, False)]
    while stack:
        e, ready = stack.pop()
        if e in done:
            continue
        if ready or not e.args:
            done[e] = combine(e, [done[a] for a in e.args])
        else:
            stack.append((e, True))
            stack.extend((a, False) for a in e.args if a not in done)
    return done[expr]


def rebuilt(e: sympy.Basic, args: list, **options: bool) -> sympy.Basic:
    """``e`` itself where its arguments are unchanged, else ``e.func(*args, **options)``
    as sympy builds it, except that a number times a sum stays a product (the module's
    reason), unless it is ±2ᵏ, whose products are exact."""
    if all(a is b for a, b in zip(args, e.args, strict=True)):
        return e
    found = e.func(*args, **options)
    if options or not isinstance(e, sympy.Mul) or not found.is_Add:
        return found
    number = sympy.Mul(*[a for a in args if a.is_Number])
    rest = sympy.Mul(*[a for a in args if not a.is_Number])
    if not rest.is_Add or _exact_scale(number):
        return found
    return sympy.Mul(number, rest, evaluate=False)


def _exact_scale(number: sympy.Expr) -> bool:
    """Whether multiplying by ``number`` is exact in binary floating point: ±2ᵏ."""
    if not number.is_Rational or number == 0:
        return False
    p, q = abs(number.p), number.q
    return p & (p - 1) == 0 and q & (q - 1) == 0


def replaced(expr: sympy.Basic, mapping: dict) -> sympy.Basic:
    """``expr.xreplace(mapping)``, every node rebuilt by :func:`rebuilt`, without
    recursion."""
    if not mapping:
        return expr
    return bottom_up(expr, rebuilt, dict(mapping))
