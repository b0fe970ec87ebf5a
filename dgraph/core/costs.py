"""Operation counts of an expression set, as written: each reference is paid for once.

*Structural* counts treat every label as a general value (the seeds' figures): a product
of k factors costs k - 1 multiplications, a sum of k terms k - 1 additions. *Effective*
multiplications price each product by :func:`dgraph.core.kinds.product`, the rule every
search prices its moves with: factors that are the constant ±1 (labels of +, -, copies)
are free and constants fold.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import reduce
from typing import TYPE_CHECKING, NamedTuple

import sympy

from .algebra import fold
from .kinds import Value, add, product, value_of

if TYPE_CHECKING:
    from .expression_data import ExpressionData

__all__ = [
    "Cost",
    "constant_values",
    "expression_cost",
    "expression_set_cost",
]


@dataclass(frozen=True)
class Cost:
    """Multiplications (structural and effective) and additions."""

    mults: int
    adds: int
    mults_effective: int


class _Count(NamedTuple):  # a tuple: one is made per node of every expression set
    mults: int
    adds: int
    effective: int
    value: Value  # the constant value, when the expression is constant (dgraph.core.kinds)


def _number(n: sympy.Number) -> _Count:
    return _Count(0, 0, 0, value_of(n))


def _add(terms: list[_Count]) -> _Count:
    return _Count(
        sum(t.mults for t in terms),
        sum(t.adds for t in terms) + len(terms) - 1,
        sum(t.effective for t in terms),
        reduce(add, [t.value for t in terms]),
    )


def _mul(factors: list[_Count]) -> _Count:
    effective, value = product(f.value for f in factors)
    return _Count(
        sum(f.mults for f in factors) + len(factors) - 1,
        sum(f.adds for f in factors),
        sum(f.effective for f in factors) + effective,
        value,
    )


def expression_cost(expr: sympy.Expr, constants: dict[sympy.Symbol, Value]) -> _Count:
    """Counts for one expression; ``constants`` gives the values of constant leaves (any
    other leaf is general)."""
    return fold(expr, lambda s: _Count(0, 0, 0, constants.get(s)), _number, _add, _mul)


def constant_values(es: ExpressionData) -> dict[sympy.Symbol, Value]:
    """The value of every edge symbol and reference of ``es`` that is a constant."""
    return _references(es)[0]


def expression_set_cost(es: ExpressionData) -> Cost:
    """Total counts over the references (once each) and the Jacobian entries."""
    constants, counts = _references(es)
    counts.extend(expression_cost(entry, constants) for entry in es.jacobian.values())
    return Cost(
        sum(c.mults for c in counts), sum(c.adds for c in counts), sum(c.effective for c in counts)
    )


def _references(es: ExpressionData) -> tuple[dict[sympy.Symbol, Value], list[_Count]]:
    """The values of the constant leaves and the counts of the references, in order."""
    graph = es.graph
    constants: dict[sympy.Symbol, Value] = {
        sym: value_of(graph.constant_label(*edge)) for sym, edge in graph.edge_symbols.items()
    }
    counts = []
    for name, definition in es.references.items():
        counts.append(expression_cost(definition, constants))
        constants[name] = counts[-1].value
    return constants, counts
