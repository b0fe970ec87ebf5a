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
   one), else its own symbol. In every label the vertices are replaced by their
   representatives and each subexpression that is some vertex's value by that vertex
   (the label ``−sin t`` of ``c = cos t`` reads ``−s`` where ``s = sin t`` is a
   vertex). Neither changes a value.
2. **Labels as polynomials.** Every vertex value that is not a sum, product or integer
   power of others (``sin t``, ``atan2(a, b)``, an input), every other function of them
   and every ``1/b`` is an independent unknown; a vertex that is such a sum or product is
   its polynomial in those (``nz = c·A − s·B`` is that polynomial, not an unknown), with
   exact rational coefficients (a float's exact binary value). A polynomial identity in
   independent unknowns holds at the values the graph computes.
3. **Forward accumulation.** ``J[v][x] = Σ_u c_vu · J[u][x]`` in evaluation order,
   multiplied out. A sum that is the zero polynomial is zero for every input at which the
   labels are defined: the entry is dropped. A sum of more than ``max_terms`` terms is
   replaced by a fresh unknown (nothing is then claimed of it, so nothing unsound), and a
   graph above ``max_pairs`` (vertices × inputs) is not tried: no entry is claimed to
   cancel.

The answer is a subset of the true zeros (sound: the pattern without it is never smaller
than the nonzeros at any point), not all of them: values equal only by an identity that
the polynomial model does not see (``sin² v + cos² v − 1``, ``b · (1/b) − 1``) stay in
the pattern, and so do sums cut to an unknown.
"""

from __future__ import annotations

from fractions import Fraction

import sympy

from .graph import DGraph, vertex_symbol
from .paths import path_counts

__all__ = ["MAX_PAIRS", "MAX_TERMS", "cancelled_entries", "exact_pattern", "representatives"]

MAX_TERMS = 64  # a sum of more terms becomes an unknown of its own
MAX_PAIRS = 5_000  # vertices × inputs above which no cancellation is looked for (seconds)
#: a product of polynomials whose terms' pairs exceed this is an unknown of its own: a
#: value numbered as one flat product of sums (a cumulative product of 12 steps' ``1 + r·w``,
#: 4¹² terms) multiplied out never finished
MAX_PRODUCT = MAX_TERMS**2


def representatives(g: DGraph) -> dict[sympy.Symbol, sympy.Expr]:
    """Each vertex symbol's representative (step 1 of the module): a number, or the
    symbol of the first vertex computing the same value, where that is proven; the
    vertex's own symbol otherwise."""
    return _numbered(g)[0]


def _numbered(
    g: DGraph,
) -> tuple[dict[sympy.Symbol, sympy.Expr], dict[sympy.Expr, sympy.Symbol]]:
    """The representatives, and each value expression (predecessors replaced by their
    representatives) by the symbol of the vertex that first computes it."""
    rep: dict[sympy.Symbol, sympy.Expr] = {}
    seen: dict[sympy.Expr, sympy.Symbol] = {}
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
    return rep, seen


Monomial = tuple[tuple[int, int], ...]  # (unknown's number, power), by number
Polynomial = dict[Monomial, Fraction]  # no zero coefficient; {} is the zero polynomial


class _Unknowns:
    """Numbers for the unknowns: each sympy expression that is no sum, product, integer
    power or number (a vertex value, ``cos v``, ``1/v``) gets one, equal ones the same;
    a fresh one stands for a sum too long to keep (:meth:`fresh`). A vertex whose value
    is a polynomial in earlier ones (:attr:`values`) is that polynomial, not an unknown."""

    def __init__(self) -> None:
        self.ids: dict[sympy.Expr, int] = {}
        self.count = 0
        self.values: dict[sympy.Symbol, Polynomial] = {}

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
    if e.is_Mul or (e.is_Pow and e.exp.is_Integer and 0 < int(e.exp) <= 8):
        factors = e.args if e.is_Mul else [e.base] * int(e.exp)
        product: Polynomial = {(): Fraction(1)}
        for f in factors:
            term = _polynomial(f, unknowns)
            if len(product) * len(term) > MAX_PRODUCT:  # claims nothing of e
                return {((unknowns.fresh(), 1),): Fraction(1)}
            product = _times(product, term)
        return product
    if e.is_Pow and e.exp.is_Integer and -8 <= int(e.exp) < 0:  # (1/b)^k: one unknown 1/b
        return {((unknowns.of(1 / e.base), -int(e.exp)),): Fraction(1)}
    if e in unknowns.values:
        return unknowns.values[e]
    return {((unknowns.of(e), 1),): Fraction(1)}


def _polynomial_values(
    g: DGraph, rep: dict, seen: dict, unknowns: _Unknowns, max_terms: int
) -> None:
    """Record in ``unknowns.values`` each vertex whose value is a sum, product or power
    of earlier values and numbers, as that polynomial (in evaluation order, so that the
    earlier ones are there already), where it has at most ``max_terms`` terms."""
    for value, s in seen.items():
        if rep.get(s) is not s:
            continue
        if value.is_Add or value.is_Mul or (value.is_Pow and value.exp.is_Integer):
            poly = _polynomial(value, unknowns)
            if len(poly) <= max_terms:
                unknowns.values[s] = poly


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
    rep, seen = _numbered(g)
    unknowns = _Unknowns()
    _polynomial_values(g, rep, seen, unknowns, max_terms)
    labels: dict[tuple[str, str], Polynomial] = {}
    for u, v in g.edges():
        label = g.partial(u, v).xreplace(rep).xreplace(seen)  # type: ignore[union-attr]
        if label.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo):
            labels[u, v] = {((unknowns.fresh(), 1),): Fraction(1)}  # not finite: claim nothing
        else:
            labels[u, v] = _polynomial(label, unknowns)
            if len(labels[u, v]) > max_terms:  # as a sum of the sweep's: an unknown
                labels[u, v] = {((unknowns.fresh(), 1),): Fraction(1)}
    forward = _sweep(g, labels, unknowns, max_terms)
    return frozenset((y, x) for y, x in path_counts(g) if x not in forward[y])


def _sweep(g: DGraph, labels: dict, unknowns: _Unknowns, max_terms: int) -> dict:
    """Per vertex and input, the polynomial sum of the label products over the paths
    between them, in evaluation order; zero sums left out, longer ones than ``max_terms``
    an unknown of their own."""
    one: Polynomial = {(): Fraction(1)}
    sums_of: dict[str, dict[str, Polynomial]] = {}
    for v in g.order():
        sums: dict[str, Polynomial] = {v: one} if g.role(v) == "input" else {}
        for u in g.predecessors(v):
            c = labels[u, v]
            for x, d in sums_of[u].items() if c else ():
                sums[x] = _plus(sums.get(x, {}), _times(c, d))
        sums_of[v] = {}
        for x, total in sums.items():
            if len(total) > max_terms:
                total = {((unknowns.fresh(), 1),): Fraction(1)}
            if total:
                sums_of[v][x] = total
    return sums_of


def exact_pattern(g: DGraph) -> set[tuple[str, str]]:
    """``g``'s structural pattern without the entries proven to cancel: the pairs
    ``(y, x)`` that a path joins and :func:`cancelled_entries` does not drop."""
    return set(path_counts(g)) - cancelled_entries(g)
