"""A derivative multiplied by a selection's indicator, printed as a select.

A ``where(c, a, b)`` has the partials ``[c]`` by ``a`` and ``[not c]`` by ``b``, and any
elemental written by cases (``Piecewise((g, c), (0, True))``) one that is 0 wherever its
case is not taken. In a scalar program the tangent (or adjoint, or Jacobian factor) of the
case not taken reaches the result as ``0 · ḃ``, which is NaN where ``ḃ`` is not finite:
``where(n >= 1, x / n, x)`` with ``n = |x|`` at ``x = 0``, where ``∂n/∂x = x/n`` is 0/0
though the function is the identity around 0. JAX's tangent rule for ``select_n`` is
``select(c, ȧ, ḃ)``: the other case's tangent is left out, never multiplied by 0.

This module gives the scalar jvp and vjp sweeps that rule (the Jacobian's entries, whose
accumulation folds a selection's cases already, are left as they were: folding them again
cost 7 % of the CPU of where-heavy test files in the passes after it): a product with
a factor that is 0 outside a condition ``c`` (a partial written so, or a tangent or adjoint
that is such a product) is ``Piecewise((rest, c), (0, True))``; the factor's own value is
kept where it is not 1. Where ``c`` holds the value is the product's; elsewhere it is 0 —
what the product is wherever ``rest`` is finite, and what the derivative of the branch
taken is where it is not (Griewank and Walther 2008, §14.2). No multiplication is added
(a factor 1 drops one); each fold adds the condition's comparison. Vertex values are never
rewritten: ``where(c, a, 0) · inf`` stays what the function computes.

>>> c, d, t = sympy.symbols("c d t")
>>> fold = UntakenProducts([(d, sympy.Piecewise((1, c > 0), (0, True)))])
>>> fold.expr(d * t)
Piecewise((t, c > 0), (0, True))

References
----------
.. [1] Griewank, A. and Walther, A. (2008). *Evaluating Derivatives*, 2nd ed., SIAM,
   §14.2 (the derivative of a branch is the derivative of the branch taken).
"""

from __future__ import annotations

from collections.abc import Iterable

import sympy

from ..core.rebuild import bottom_up, rebuilt
from .counting import symbols_in
from .ir import Assignment

__all__ = ["UntakenProducts", "zero_outside"]

# (condition, whether the value is the nonzero one where the condition holds), its value
Case = tuple[tuple[sympy.Basic, bool], sympy.Expr]


def zero_outside(expr: sympy.Basic) -> Case | None:
    """``((c, True), a)`` for ``Piecewise((a, c), (0, True))``, ``((c, False), a)`` for
    ``Piecewise((0, c), (a, True))``; None for anything else."""
    if not isinstance(expr, sympy.Piecewise) or len(expr.args) != 2:
        return None
    (first, c), (second, rest) = expr.args
    if rest is not sympy.true or c is sympy.true:
        return None
    if second == 0 and first != 0:
        return (c, True), first
    if first == 0 and second != 0:
        return (c, False), second
    return None


def _case(key: tuple[sympy.Basic, bool], value: sympy.Expr) -> sympy.Expr:
    """``value`` where ``key``'s condition is as it says, else 0; a select on the same
    condition inside it is read as the branch it then takes."""
    c, held = key
    if value.has(sympy.Piecewise):
        inner = {}
        for p in value.atoms(sympy.Piecewise):
            found = zero_outside(p)
            if found is not None and found[0][0] == c:
                inner[p] = found[1] if found[0][1] == held else sympy.S.Zero
        value = value.xreplace(inner) if inner else value
    pairs = ((value, c), (sympy.S.Zero, True)) if held else ((sympy.S.Zero, c), (value, True))
    return sympy.Piecewise(*pairs, evaluate=False)


class UntakenProducts:
    """The symbols known to be 0 outside a condition (from their definitions), and the
    folding of products by them (the module's rule)."""

    def __init__(self, definitions: Iterable[Assignment] = ()) -> None:
        self.known: dict[sympy.Symbol, Case] = {}
        for symbol, value in definitions:
            self.note(symbol, value)

    def __bool__(self) -> bool:
        return bool(self.known)

    def note(self, symbol: sympy.Symbol, value: sympy.Basic) -> None:
        """Remember ``symbol`` when its definition ``value`` is 0 outside a condition."""
        found = zero_outside(value)
        if found is not None:
            self.known[symbol] = found

    def expr(self, expr: sympy.Expr) -> sympy.Expr:
        """``expr`` with each product by a factor 0 outside a condition as a select; a
        sum of such selects on one condition as one select."""
        if not self.known or not (symbols_in(expr) & self.known.keys()):
            return expr
        return bottom_up(expr, self._combine)

    def assign(self, symbol: sympy.Symbol, expr: sympy.Expr) -> sympy.Expr:
        """:meth:`expr` of ``symbol``'s definition, ``symbol`` remembered when it is a
        select the fold made (a tangent or an adjoint of the case not taken alone)."""
        folded = self.expr(expr)
        self.note(symbol, folded)
        return folded

    def _factor(self, e: sympy.Basic) -> tuple[tuple[sympy.Basic, bool], sympy.Expr] | None:
        """The condition a factor is 0 outside of, and what to multiply by where it is
        not: 1 drops, a number or a literal case's value is its own, else the symbol."""
        if isinstance(e, sympy.Symbol) and e in self.known:
            key, value = self.known[e]
            return key, value if value.is_Number else e
        return zero_outside(e)

    def _combine(self, node: sympy.Basic, args: list) -> sympy.Basic:
        if isinstance(node, sympy.Mul):
            return self._product(args) or rebuilt(node, args)
        if isinstance(node, sympy.Add):
            cases = [zero_outside(a) for a in args]
            keys = {c[0] for c in cases if c is not None}
            if len(keys) == 1 and all(c is not None for c in cases):
                return _case(keys.pop(), sympy.Add(*(c[1] for c in cases)))  # type: ignore[index]
        return rebuilt(node, args)

    def _product(self, args: list) -> sympy.Expr | None:
        for k, a in enumerate(args):
            found = self._factor(a)
            if found is None:
                continue
            key, value = found
            rest = [*args[:k], *args[k + 1 :]]
            inner = self._product(rest) or sympy.Mul(*rest)
            same = zero_outside(inner)
            if same is not None and same[0] == (key[0], not key[1]):
                return sympy.S.Zero  # 0 where the condition holds and where it does not
            if same is not None and same[0] == key:
                inner = same[1]  # the same condition twice: once
            return _case(key, inner if value == 1 else value * inner)
        return None
