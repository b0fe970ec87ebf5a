"""A lower bound on effective multiplications for *any* accumulation: a rank.

Every value an elimination (vertex, edge or face) or any other sum-and-product program
over the local partials computes is a linear combination, with constant coefficients, of
the labels and of the products it formed. Scaling by a constant adds no new direction, so
the Jacobian entries — Bauer's path sums, polynomials in the general labels with the
constant labels substituted — lie in span(1, labels) + span(products of two general
values). Hence the general-by-general products, and with them the effective
multiplications, number at least the rank of the entries modulo span(1, labels): the rank
of their coefficients on monomials of degree two or more. Labels are independent
indeterminates here as in every expression set. The rank is taken over a prime field,
which can only lower it, so the bound stays valid.
"""

from __future__ import annotations

from fractions import Fraction
from math import lcm

from ..core.budget import Deadline
from ..core.graph import DGraph
from ..core.paths import count_paths, path_sums

__all__ = ["ANY_ACCUMULATION", "RANK_PATH_LIMIT", "rank_lower_bound"]

ANY_ACCUMULATION = "any accumulation, effective mults"  # its key in best's lower_bounds

RANK_PATH_LIMIT = 20_000  # paths beyond which the bound is not computed (about a second)
_PRIME = 2_305_843_009_213_693_951  # 2**61 - 1

Poly = dict[tuple[int, ...], Fraction]  # sorted general-label indices -> coefficient


class _Late(Exception):
    """The deadline passed before the bound was computed."""


def rank_lower_bound(graph: DGraph, deadline: Deadline | None = None) -> int | None:
    """Effective multiplications every accumulation of ``graph`` needs at least (None
    beyond ``RANK_PATH_LIMIT`` paths, or where ``deadline``, a
    :class:`~dgraph.core.budget.Deadline` checked at every edge, passes first: the path
    sums of a long chain hold monomials as long as it, quadratic work).

    >>> from dgraph.frontends import bundled
    >>> rank_lower_bound(bundled("naumann_sin.trace"))
    2
    """
    if count_paths(graph) > RANK_PATH_LIMIT:
        return None
    general: dict[tuple[str, str], int] = {}
    for u, v in graph.edges():
        if graph.constant_label(u, v) is None:
            general[(u, v)] = len(general)

    def extend(poly: Poly, u: str, v: str) -> Poly:
        if deadline is not None and deadline.passed():
            raise _Late
        if (u, v) in general:
            e = general[(u, v)]
            return {tuple(sorted((*m, e))): k for m, k in poly.items()}
        c = Fraction(str(graph.constant_label(u, v)))
        return {m: c * k for m, k in poly.items()}

    def add(polys: list[Poly]) -> Poly:
        out: Poly = {}
        for p in polys:
            for m, k in p.items():
                out[m] = out.get(m, Fraction(0)) + k
        return {m: k for m, k in out.items() if k}

    try:
        sums = path_sums(graph, {(): Fraction(1)}, extend, add)
        rows = []
        for poly in sums.values():
            row = {m: k for m, k in poly.items() if len(m) >= 2}
            if row:
                scale = lcm(*(k.denominator for k in row.values()))
                rows.append({m: int(k * scale) % _PRIME for m, k in row.items()})
        return _rank(rows, deadline)
    except _Late:
        return None


def _rank(rows: list[dict[tuple[int, ...], int]], deadline: Deadline | None = None) -> int:
    """Rank over GF(p) of sparse rows, by elimination against pivots (raising
    :class:`_Late` once ``deadline`` has passed)."""
    pivots: dict[tuple[int, ...], dict[tuple[int, ...], int]] = {}
    for row in rows:
        row = {m: k for m, k in row.items() if k}
        while row:
            if deadline is not None and deadline.passed():
                raise _Late
            lead = min(row)
            if lead not in pivots:
                inverse = pow(row[lead], -1, _PRIME)
                pivots[lead] = {m: k * inverse % _PRIME for m, k in row.items()}
                break
            factor, pivot = row[lead], pivots[lead]
            for m, k in pivot.items():
                row[m] = (row.get(m, 0) - factor * k) % _PRIME
            row = {m: k for m, k in row.items() if k}
    return len(pivots)
