"""Printing powers the way they are counted: x**k as (x*x*...), whatever the language.

sympy's printers emit ``x**3`` or ``pow(x, 3)``; the counting rule of
:mod:`dgraph.codegen.counting` charges an integer power its multiplications, so the
printers of both languages use this mixin to emit exactly those multiplications.
"""

from __future__ import annotations

import sympy

__all__ = ["PowersAsProducts"]


class PowersAsProducts:
    """Mixin for a sympy code printer: integer powers as products, x**(±1/2) via sqrt.

    >>> from sympy.printing.c import C99CodePrinter
    >>> class P(PowersAsProducts, C99CodePrinter):
    ...     one, sqrt = "1.0", "sqrt"
    >>> x, y = sympy.symbols("x y")
    >>> P().doprint(x**3 / (x + y) ** 2)
    '(x*x*x)/((x + y)*(x + y))'
    """

    one = "1"
    sqrt = "sqrt"

    def _print_Pow(self, expr: sympy.Pow, rational: bool = False) -> str:
        base, exp = expr.base, expr.exp
        text = self._print(base)  # type: ignore[attr-defined]
        if not (base.is_Atom or base.is_Function):
            text = f"({text})"
        if exp.is_Integer and exp != 0:
            k = abs(int(exp))
            product = "*".join([text] * k)
            if exp > 0:
                return f"({product})" if k > 1 else text
            return f"({self.one}/{product if k == 1 else f'({product})'})"
        if exp == sympy.S.Half:
            return f"{self.sqrt}({self._print(base)})"  # type: ignore[attr-defined]
        if exp == -sympy.S.Half:
            return f"({self.one}/{self.sqrt}({self._print(base)}))"  # type: ignore[attr-defined]
        return super()._print_Pow(expr)  # type: ignore[misc]
