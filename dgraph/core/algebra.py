"""One traversal over noncommutative expressions, read in several algebras.

Expression sets are sums and products of edge symbols, reference symbols and integers.
Costs, exact expansion into path words, evaluation with random matrices and numerical
evaluation are all the same fold with a different meaning for +, * and the leaves.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

import sympy

from ..errors import VerificationError

__all__ = ["fold", "nc_symbol", "real_symbol"]

T = TypeVar("T")


def nc_symbol(name: str) -> sympy.Symbol:
    """A noncommutative symbol (edge labels and references are matrices in vector mode)."""
    return sympy.Symbol(name, commutative=False)


@functools.lru_cache(maxsize=1 << 18)
def real_symbol(name: str) -> sympy.Symbol:
    """A real symbol: a vertex's value (so that d|u|/du is sign(u), not a complex form);
    remembered, since loading asks for the same few symbols many times."""
    return sympy.Symbol(name, real=True)


def fold(
    expr: sympy.Expr,
    leaf: Callable[[sympy.Symbol], T],
    number: Callable[[sympy.Number], T],
    add: Callable[[list[T]], T],
    mul: Callable[[list[T]], T],
) -> T:
    """Evaluate ``expr`` bottom-up; factors reach ``mul`` in noncommutative order."""

    def walk(e: sympy.Expr) -> T:
        if e.is_Symbol:
            return leaf(e)
        if e.is_Number:
            return number(e)
        if e.is_Add:
            return add([walk(a) for a in e.args])
        if e.is_Mul:
            return mul([walk(a) for a in e.args])
        if e.is_Pow and e.exp.is_Integer and e.exp > 0:
            base = walk(e.base)
            return mul([base] * int(e.exp))
        raise VerificationError(f"unsupported term in an expression set: {e}")

    return walk(expr)
