"""Jacobian entries that cancel: a path joins them, yet their value is zero for every input.

A graph's structural pattern has an entry ``(y, x)`` wherever a path joins ``x`` to
``y`` (:func:`~dgraph.core.paths.path_counts`). Its value is Bauer's sum over those paths
of the products of the local partials, and that sum can be identically zero although no
single path is: ``x·y − y·x``, a vertex ``w = t + v`` with ``t = −v``, the second-order
terms of two products whose adjoints are opposite. :func:`cancelled_entries` finds those
it can *prove* zero, from the labels alone, never by evaluating at points:

1. **Value numbering.** Each vertex gets a representative, an expression whose value is
   the vertex's for every input: its expression with its predecessors replaced by their
   representatives, when that is a number or another vertex's representative (the same
   operation of the same operands, sympy's canonical form making ``x·y`` and ``y·x``
   one), else its own symbol. Replacing the vertices of every label by their
   representatives changes no value.
2. **Forward accumulation with the labels as polynomials.** ``J[v][x] = Σ_u c_vu ·
   J[u][x]`` in evaluation order, each sum multiplied out (``sympy.expand_mul``: it only
   distributes products over sums and collects equal terms) in which every vertex value
   and every function of one (``cos v``) is an independent unknown. A sum that is the
   zero polynomial is zero whatever values the unknowns take, so in particular at the
   values the graph computes, for every input at which its labels are defined: the entry
   is dropped. A sum of more than ``max_terms`` terms is replaced by a fresh unknown
   (nothing is then claimed of it, so nothing unsound), and a graph above ``max_pairs``
   (vertices × inputs) is not tried: no entry is claimed to cancel.

The answer is a subset of the true zeros (sound: the pattern without it is never smaller
than the nonzeros at any point), not all of them: values equal only by an identity that
the polynomial model does not see (``sin² v + cos² v − 1``) stay in the pattern.
"""

from __future__ import annotations

from fractions import Fraction

import sympy

from .graph import DGraph, vertex_symbol
from .paths import path_counts

__all__ = ["MAX_PAIRS", "MAX_TERMS", "cancelled_entries", "exact_pattern", "representatives"]

MAX_TERMS = 64  # a sum of more terms becomes an unknown of its own
MAX_PAIRS = 40_000  # vertices × inputs above which no cancellation is looked for


def representatives(g: DGraph) -> dict[sympy.Symbol, sympy.Expr]:
    """Each vertex symbol's representative (step 1 of the module): a number, or the
    symbol of the first vertex computing the same value, where that is proven; the
    vertex's own symbol otherwise."""
    rep: dict[sympy.Symbol, sympy.Expr] = {}
    seen: dict[sympy.Expr, sympy.Expr] = {}
    named = {vertex_symbol(p) for p in g.parameters}
    for v in g.order():
        s = vertex_symbol(v)
        expr = g.expr(v) if g.role(v) != "input" else None
        if expr is None:
            rep[s] = s
            named.add(s)
            continue
        value = expr.xreplace(rep)
        if (value.is_Number and value.is_finite) or value in named:
            rep[s] = value  # a number, another vertex's value or a parameter
        else:
            rep[s] = seen.setdefault(value, s)
        named.add(rep[s])
    return rep


Monomial = tuple[tuple[int, int], ...]  # (unknown's number, power), by number
Polynomial = dict[Monomial, Fraction]  # no zero coefficient; {} is the zero polynomial


class _Unknowns:
    """Numbers for the unknowns: each sympy expression that is no sum, product, integer
    power or number (a vertex value, ``cos v``, ``1/v``) gets one, equal ones the same;
    a fresh one stands for a sum too long to keep (:meth:`fresh`)."""

    def __init__(self) -> None:
        self.ids: dict[sympy.Expr, int] = {}
        self.count = 0

    def of(self, e: sympy.Expr) -> int:
        if e not in self.ids:
            self.ids[e] = self.fresh()
        return self.ids[e]

    def fresh(self) -> int:
        self.count += 1
        return self.count


def _number(e: sympy.Expr) -> Fraction | None:
    """An exact rational of a finite sympy number (a float's exact binary value)."""
    if e.is_Integer:
        return Fraction(int(e))
    if e.is_Rational:
        return Fraction(int(e.p), int(e.q))
    if e.is_Float and e.is_finite:
        return Fraction(float(e))
    return None


def _times(a: Polynomial, b: Polynomial) -> Polynomial:
    out: Polynomial = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            powers = dict(ma)
            for k, p in mb:
                powers[k] = powers.get(k, 0) + p
            m = tuple(sorted(powers.items()))
            c = out.get(m, 0) + ca * cb
            if c:
                out[m] = c
            else:
                out.pop(m, None)
    return out


def _plus(a: Polynomial, b: Polynomial) -> Polynomial:
    out = dict(a)
    for m, c in b.items():
        total = out.get(m, 0) + c
        if total:
            out[m] = total
        else:
            out.pop(m, None)
    return out


def _polynomial(e: sympy.Expr, unknowns: _Unknowns) -> Polynomial:
    """``e`` as a polynomial in its unknowns (:class:`_Unknowns`), multiplied out."""
    c = _number(e) if e.is_Number else None
    if c is not None:
        return {(): c} if c else {}
    if e.is_Add:
        total: Polynomial = {}
        for t in e.args:
            total = _plus(total, _polynomial(t, unknowns))
        return total
    if e.is_Mul:
        product: Polynomial = {(): Fraction(1)}
        for f in e.args:
            product = _times(product, _polynomial(f, unknowns))
        return product
    if e.is_Pow and e.exp.is_Integer and 0 < int(e.exp) <= 8:
        base = _polynomial(e.base, unknowns)
        product = {(): Fraction(1)}
        for _ in range(int(e.exp)):
            product = _times(product, base)
        return product
    return {((unknowns.of(e), 1),): Fraction(1)}


def cancelled_entries(
    g: DGraph, max_terms: int = MAX_TERMS, max_pairs: int = MAX_PAIRS
) -> frozenset[tuple[str, str]]:
    """The entries ``(y, x)`` of ``g``'s structural pattern that are proven zero for every
    input (module docstring); empty for a tensor graph, a graph whose labels are not all
    known, or one above ``max_pairs`` vertices × inputs."""
    if g.is_tensor or len(g.vertices) * max(1, len(g.inputs)) > max_pairs:
        return frozenset()
    if not g.has_partials():
        return frozenset()
    rep = representatives(g)
    unknowns = _Unknowns()
    one: Polynomial = {(): Fraction(1)}
    J: dict[str, dict[str, Polynomial]] = {}
    for v in g.order():
        if g.role(v) == "input":
            J[v] = {v: one}
            continue
        sums: dict[str, Polynomial] = {}
        for u in g.predecessors(v):
            label = g.partial(u, v).xreplace(rep)  # type: ignore[union-attr]
            if label.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo):
                c = {((unknowns.fresh(), 1),): Fraction(1)}  # not finite: claim nothing
            else:
                c = _polynomial(label, unknowns)
            for x, d in J[u].items() if c else ():
                sums[x] = _plus(sums.get(x, {}), _times(c, d))
        J[v] = {}
        for x, total in sums.items():
            if len(total) > max_terms:
                total = {((unknowns.fresh(), 1),): Fraction(1)}
            if total:
                J[v][x] = total
    return frozenset(e for e in path_counts(g) if e[1] not in J[e[0]])


def exact_pattern(g: DGraph) -> set[tuple[str, str]]:
    """``g``'s structural pattern without the entries proven to cancel: the pairs
    ``(y, x)`` that a path joins and :func:`cancelled_entries` does not drop."""
    return set(path_counts(g)) - cancelled_entries(g)
