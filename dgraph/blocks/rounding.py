"""The scale of the rounding a derivative rule leaves when evaluated as written: each sum's
terms by their absolute values (running error analysis: Higham, *Accuracy and Stability
of Numerical Algorithms*, 2nd ed., 2002, §3.3, ``|fl(e) - e| <= γ·Ã(e)``). The value
check judges a partial against this magnitude, not against its value, where the terms
cancel: ``1 - tanh(a)**2`` at a large ``a`` is 0 in doubles (exactly about 1e-22) and
its rounding is relative to 2, not to 0."""

from __future__ import annotations

from collections.abc import Mapping

import sympy

__all__ = ["absolute_terms", "sums_terms"]

Sums = Mapping[sympy.Symbol, sympy.Expr] | None  # vertices whose values are sums, by symbol


def absolute_terms(expr: sympy.Expr, sums: Sums = None) -> sympy.Expr:
    """``expr`` with every sum's terms by their absolute values, through products and
    positive integer powers (the bound of the rounding of an expression evaluated as
    written); any other function or quotient as its absolute value (its arguments'
    rounding is not bounded this way). A symbol of ``sums`` met on that walk is its sum's
    terms (one level): a value that is a sum carries its terms' rounding.

    >>> a = sympy.Symbol("a")
    >>> float(absolute_terms(1 - sympy.tanh(a) ** 2).subs(a, 30))  # the value: 0.0
    2.0
    """
    if expr.is_Number:
        return abs(expr)
    if sums and expr in sums:
        return absolute_terms(sums[expr])
    if expr.is_Add:
        return sympy.Add(*(absolute_terms(a, sums) for a in expr.args), evaluate=False)
    if expr.is_Mul:
        return sympy.Mul(*(absolute_terms(a, sums) for a in expr.args), evaluate=False)
    if expr.is_Pow and expr.exp.is_Integer and expr.exp > 0:
        return sympy.Pow(absolute_terms(expr.base, sums), expr.exp, evaluate=False)
    return sympy.Abs(expr, evaluate=False)


def sums_terms(expr: sympy.Expr, sums: Sums = None) -> bool:
    """Whether :func:`absolute_terms` of ``expr`` reaches a sum (through sums, products and
    positive integer powers; a symbol of ``sums`` is one): only then can it differ from
    ``|expr|``. ``1/(1 + a**2)`` does not (a quotient is taken whole), ``1 - tanh(a)**2``
    does.

    >>> a = sympy.Symbol("a")
    >>> sums_terms(1 - sympy.tanh(a) ** 2), sums_terms(1 / (1 + a**2))
    (True, False)
    """
    stack = [expr]
    while stack:
        e = stack.pop()
        if e.is_Add or (sums and e in sums):
            return True
        if e.is_Mul:
            stack += e.args
        elif e.is_Pow and e.exp.is_Integer and e.exp > 0:
            stack.append(e.base)
    return False
