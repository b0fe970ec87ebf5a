"""Multiplication relations in an expression set (Zhou 2020, §5, Lemma 1).

Two symbols (edge labels or references) that follow each other on a path are in a
*direct* relation where they are adjacent factors of one product, and in an *indirect*
one where a parenthesis separates them: in ``a·(b·c + d)``, ``b·c`` is direct while
``a`` and ``b``, and ``a`` and ``d``, are indirect. A pair that is direct in one
expression and indirect in another is where face elimination must wait (Lemma 2).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import sympy

from ..core.expressions import ExpressionSet

__all__ = ["Relation", "conflicting_pairs", "multiplication_relations"]


@dataclass(frozen=True)
class Relation:
    """``first`` then ``second`` along a path (``second · first`` in matrix order)."""

    first: str
    second: str
    kind: str  # "direct" or "indirect"
    where: str  # the reference or Jacobian entry it occurs in

    def __str__(self) -> str:
        return f"{self.second}·{self.first} {self.kind} in {self.where}"


def _ends(e: sympy.Expr) -> tuple[list[sympy.Expr], list[sympy.Expr]]:
    """The atoms a value can start with along a path, and those it can end with."""
    if e.is_Symbol or e.is_Number:
        return [e], [e]
    if e.is_Pow:
        return [e.base], [e.base]
    if e.is_Mul:
        factors = [f for f in e.args if not f.is_Number]
        return _ends(factors[-1])[0], _ends(factors[0])[1]
    firsts, lasts = [], []
    for term in e.args:
        f, s = _ends(term)
        firsts += f
        lasts += s
    return firsts, lasts


def _relations(e: sympy.Expr, where: str, out: list[Relation]) -> None:
    if e.is_Symbol or e.is_Number:
        return
    if e.is_Add:
        for term in e.args:
            _relations(term, where, out)
        return
    if e.is_Pow:
        out.extend(
            Relation(str(e.base), str(e.base), "direct", where) for _ in range(int(e.exp) - 1)
        )
        return
    factors = [f for f in e.args if not f.is_Number]
    for f in factors:
        _relations(f, where, out)
    # matrix order: factors[q] follows factors[q + 1] along the path
    for later, earlier in itertools.pairwise(factors):
        direct = not later.is_Add and not earlier.is_Add
        for a in _ends(earlier)[1]:
            for b in _ends(later)[0]:
                out.append(Relation(str(a), str(b), "direct" if direct else "indirect", where))


def multiplication_relations(es: ExpressionSet) -> list[Relation]:
    """Every pair of consecutive symbols in every product, classified direct or indirect.

    >>> from dgraph import from_trace
    >>> from dgraph.methods import accumulate
    >>> text = "inputs: x; outputs: y; u = sin(x); y = cos(u)".replace("; ", chr(10))
    >>> es = accumulate(from_trace(text), "forward")
    >>> [str(r) for r in multiplication_relations(es)]
    ['d_y_u·d_u_x direct in dy/dx']
    """
    out: list[Relation] = []
    for name, definition in es.references.items():
        _relations(definition, str(name), out)
    for (y, x), entry in es.jacobian.items():
        _relations(entry, f"d{y}/d{x}", out)
    return out


def conflicting_pairs(relations: list[Relation]) -> set[tuple[str, str]]:
    """The pairs that are direct somewhere and indirect elsewhere (Lemma 2's subject)."""
    kinds: dict[tuple[str, str], set[str]] = {}
    for r in relations:
        kinds.setdefault((r.first, r.second), set()).add(r.kind)
    return {pair for pair, k in kinds.items() if len(k) == 2}
