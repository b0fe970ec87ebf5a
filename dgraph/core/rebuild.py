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
from functools import lru_cache
from typing import Any

import sympy
from sympy.core.parameters import global_parameters

__all__ = ["bottom_up", "forget_remade", "rebuilt", "remade", "replaced"]


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
    found = e.func(*args, **options) if options else remade(e.func, tuple(args))
    if options or not isinstance(e, sympy.Mul) or not found.is_Add:
        return found
    number = sympy.Mul(*[a for a in args if a.is_Number])
    rest = sympy.Mul(*[a for a in args if not a.is_Number])
    if not rest.is_Add or _exact_scale(number):
        return found
    return sympy.Mul(number, rest, evaluate=False)


def remade(func: Callable[..., sympy.Basic], args: tuple) -> sympy.Basic:
    """``func(*args)`` as sympy builds it, remembered for the last 32,768 (the code
    generator's passes rebuild the same nodes over the same new arguments again and again,
    in every statement that holds them and in every pass order: a ``Heaviside`` asks its
    argument's sign and imaginary part each time, a sixth of the choice's time on
    tests/test_numpy_idioms.py; sympy's own cache holds 1,000). The arguments are compared
    whole (sympy's structural equality tells a Float's precision and a number's type apart)
    and sympy's evaluation settings are part of the key, so the node is the one sympy
    builds."""
    kinds = tuple(map(type, args))  # 2 and 2.0 told apart where sympy calls them equal
    return _remade(func, args, kinds, global_parameters.evaluate, global_parameters.distribute)


@lru_cache(maxsize=2**15)
def _remade(func: Callable[..., sympy.Basic], args: tuple, *_key: Any) -> sympy.Basic:
    return func(*args)


def forget_remade() -> None:
    """Forget the nodes :func:`remade` remembers (they hold whole programs' expressions)."""
    _remade.cache_clear()


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
