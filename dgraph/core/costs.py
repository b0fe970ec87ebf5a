"""Operation counts of an expression set, as written: each reference is paid for once.

*Structural* counts treat every label as a general value (the seeds' figures): a product
of k factors costs k - 1 multiplications, a sum of k terms k - 1 additions. *Effective*
multiplications skip factors that are the constant +-1 (labels of +, -, copies) and fold
constant x constant.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import sympy

from .algebra import fold

if TYPE_CHECKING:
    from .expressions import ExpressionSet

__all__ = ["Cost", "ScalarOps", "expression_cost", "expression_set_cost", "scalar_op_counts"]


@dataclass(frozen=True)
class Cost:
    """Multiplications (structural and effective) and additions."""

    mults: int
    adds: int
    mults_effective: int


@dataclass(frozen=True)
class _Count:
    mults: int
    adds: int
    effective: int
    value: sympy.Number | None  # the constant value, when the expression is constant


def _number(n: sympy.Number) -> _Count:
    return _Count(0, 0, 0, n)


def _add(terms: list[_Count]) -> _Count:
    values = [t.value for t in terms]
    value = sum(values, sympy.Integer(0)) if None not in values else None
    return _Count(
        sum(t.mults for t in terms),
        sum(t.adds for t in terms) + len(terms) - 1,
        sum(t.effective for t in terms),
        value,
    )


def _mul(factors: list[_Count]) -> _Count:
    mults = sum(f.mults for f in factors) + len(factors) - 1
    adds = sum(f.adds for f in factors)
    effective = sum(f.effective for f in factors)
    general = sum(f.value is None for f in factors)
    constant = sympy.Mul(*(f.value for f in factors if f.value is not None))
    if general == 0 or constant == 0:
        return _Count(mults, adds, effective, constant if general == 0 else sympy.Integer(0))
    extra = 0 if constant in (1, -1) else 1
    return _Count(mults, adds, effective + general - 1 + extra, None)


def expression_cost(expr: sympy.Expr, constants: dict[sympy.Symbol, sympy.Number | None]) -> _Count:
    """Counts for one expression; ``constants`` gives known constant leaves (else general)."""
    return fold(expr, lambda s: _Count(0, 0, 0, constants.get(s)), _number, _add, _mul)


def expression_set_cost(es: ExpressionSet) -> Cost:
    """Total counts over the references (once each) and the Jacobian entries."""
    graph = es.graph
    constants: dict[sympy.Symbol, sympy.Number | None] = {
        sym: graph.constant_label(*edge) for sym, edge in graph.edge_symbols.items()
    }
    counts = []
    for name, definition in es.references.items():
        counts.append(expression_cost(definition, constants))
        constants[name] = counts[-1].value
    counts.extend(expression_cost(entry, constants) for entry in es.jacobian.values())
    return Cost(
        sum(c.mults for c in counts), sum(c.adds for c in counts), sum(c.effective for c in counts)
    )


@dataclass(frozen=True)
class ScalarOps:
    """Operations in ordinary (commutative) sympy expressions evaluated as trees."""

    mults: int
    adds: int
    divs: int
    calls: int


def scalar_op_counts(exprs: list[sympy.Expr]) -> ScalarOps:
    """Count the operations to evaluate ``exprs`` as written (after ``cse``, each shared
    value is a symbol). A product of k factors is k - 1 mults (a -1 factor is a sign, free);
    x**k is k - 1 mults; x**-k adds one division; a function call counts as a call."""
    mults = adds = divs = calls = 0
    stack = list(exprs)
    while stack:
        e = stack.pop()
        if e.is_Atom:
            continue
        if e.is_Add:
            adds += len(e.args) - 1
        elif e.is_Mul:  # divisors (negative powers) are counted as divisions below
            factors = [
                a for a in e.args if a not in (-1, 1) and not (a.is_Pow and a.exp.is_negative)
            ]
            mults += max(len(factors) - 1, 0)
        elif e.is_Pow and e.exp.is_Integer:
            k = abs(int(e.exp))
            mults += k - 1
            divs += 1 if e.exp.is_negative else 0
            stack.append(e.base)
            continue
        elif e.is_Pow and e.exp == sympy.S.Half:
            calls += 1  # sqrt
            stack.append(e.base)
            continue
        elif e.is_Pow and e.exp == -sympy.S.Half:
            calls += 1
            divs += 1
            stack.append(e.base)
            continue
        else:
            calls += 1
        stack.extend(e.args)
    return ScalarOps(mults, adds, divs, calls)
