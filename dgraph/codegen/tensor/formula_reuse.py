"""A partial's formula reads a function the forward sweep computed already: ``1/(2·√a)``
where ``v = sqrt(a)`` is a statement before it becomes ``1/(2·v)`` (one square root
less per entry, the same value: the same ``sqrt`` of the same entries).

>>> import sympy
>>> from dgraph.codegen.ir import ArrayStatement as S, Call, Formula, Name
>>> a = sympy.Symbol("_a0")
>>> root = S("v", Call("sqrt", (Name("x"),)))
>>> d = S("d", Formula(1 / (2 * sympy.sqrt(a)), ((a, Name("x")),)))
>>> reused_calls([root, d])[1].value
Formula(expr=1/(2*_a1), operands=((_a1, Name(id='v')),))
"""

from __future__ import annotations

import sympy

from ..ir import ArrayStatement, Call, Formula, Name, Node, rebuilt, walk

__all__ = ["reused_calls"]

_FUNCTIONS = {
    "sqrt": sympy.sqrt,
    "exp": sympy.exp,
    "log": sympy.log,
    "sin": sympy.sin,
    "cos": sympy.cos,
    "tanh": sympy.tanh,
}
"""The NumPy functions whose sympy counterparts are recognised in a formula."""


def reused_calls(statements: list[ArrayStatement]) -> list[ArrayStatement]:
    """``statements`` with each formula's ``f(a)`` read from a statement ``v = f(a)``
    before it (module docstring); unchanged where one stores in place."""
    if any(s.at for s in statements):
        return statements
    made: dict[tuple[str, str], str] = {}  # (function, its operand's name) -> the result
    out = []
    for s in statements:
        if made and any(isinstance(n, Formula) for n in walk(s.value)):
            value = rebuilt(s.value, lambda n: _reused(n, made))
            s = ArrayStatement(s.target, value) if value != s.value else s
        out.append(s)
        v = s.value
        if (
            isinstance(v, Call)
            and v.func in _FUNCTIONS
            and not v.keywords
            and len(v.args) == 1
            and isinstance(v.args[0], Name)
        ):
            made[(v.func, v.args[0].id)] = s.target
    return out


def _reused(node: Node, made: dict[tuple[str, str], str]) -> Node | None:
    """The formula ``node`` reading the results in ``made``; None where none fits."""
    if not isinstance(node, Formula):
        return None
    expr, operands = node.expr, list(node.operands)
    taken = {str(sym) for sym, _ in operands}
    for sym, operand in node.operands:
        if not isinstance(operand, Name):
            continue
        for func, f in _FUNCTIONS.items():
            result = made.get((func, operand.id))
            if result is None:
                continue
            k = len(taken)
            while f"_a{k}" in taken:
                k += 1
            fresh = sympy.Symbol(f"_a{k}", real=True)
            new = _replaced(expr, func, f, sym, fresh)
            if new != expr:
                expr = new
                operands.append((fresh, Name(result)))
                taken.add(str(fresh))
    if expr == node.expr:
        return None
    free = expr.free_symbols
    return Formula(expr, tuple((s, n) for s, n in operands if s in free))


def _replaced(expr: sympy.Expr, func: str, f, sym: sympy.Symbol, fresh: sympy.Symbol):
    """``expr`` with ``f(sym)`` read as ``fresh`` where it occurs as it is (a square root
    also as an odd power of one: ``sym**(-1/2)`` is ``fresh**-1``); ``sym`` elsewhere
    stays (never ``fresh**2``, which rounds differently)."""
    if func != "sqrt":
        return expr.xreplace({f(sym): fresh})

    def half(e: sympy.Basic) -> bool:
        return (
            isinstance(e, sympy.Pow)
            and e.base == sym
            and isinstance(e.exp, sympy.Rational)
            and e.exp.q == 2
        )

    return expr.replace(half, lambda e: fresh ** (2 * e.exp))
