"""One traversal over noncommutative expressions, read in several algebras.

Expression sets are sums and products of edge symbols, reference symbols and integers.
Costs, exact expansion into path words, evaluation with random matrices and numerical
evaluation are all the same fold with a different meaning for +, * and the leaves.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import TypeVar

import sympy
from sympy.core.basic import _args_sortkey

from ..errors import VerificationError

__all__ = ["fold", "nc_product", "nc_substitute", "nc_sum", "nc_symbol", "real_symbol"]

T = TypeVar("T")


def nc_symbol(name: str) -> sympy.Symbol:
    """A noncommutative symbol (edge labels and references are matrices in vector mode)."""
    return sympy.Symbol(name, commutative=False)


def _plain(factors: tuple[sympy.Expr, ...]) -> bool:
    """Noncommutative factors that no flattening rule rewrites: no numbers, no powers."""
    return all(f.is_commutative is False and not f.is_Pow for f in factors)


def nc_product(a: sympy.Expr, b: sympy.Expr) -> sympy.Expr:
    """``a * b``, the same object sympy builds, without its general flattening where the
    factors are plain noncommutative ones (the usual case in an expression set).

    Elimination builds ~10^5 products on large graphs; ``Mul.flatten`` dominated that.

    >>> x, y, z = (nc_symbol(n) for n in "xyz")
    >>> nc_product(x * y, z + x) == x * y * (z + x), nc_product(x, x) == x**2
    (True, True)
    """
    fa = a.args if a.is_Mul else (a,)
    fb = b.args if b.is_Mul else (b,)
    if fa[-1] == fb[0] or not (_plain(fa) and _plain(fb)):
        return a * b  # a power or a coefficient forms: sympy's rules
    return sympy.Mul._from_args(fa + fb, is_commutative=False)


def nc_sum(a: sympy.Expr, b: sympy.Expr) -> sympy.Expr:
    """``a + b``, the same object sympy builds, by merging the two sorted term lists
    where no term repeats or carries a numeric coefficient (else ``a + b``).

    >>> x, y, z = (nc_symbol(n) for n in "xyz")
    >>> nc_sum(x * y + z, y * x) == x * y + z + y * x, nc_sum(x, x) == 2 * x
    (True, True)
    """
    ta = a.args if a.is_Add else (a,)
    tb = b.args if b.is_Add else (b,)
    terms = ta + tb
    if not all(t.is_commutative is False and not _scaled(t) for t in terms):
        return a + b
    if len(set(terms)) != len(terms):
        return a + b
    merged = list(heapq.merge(ta, tb, key=_args_sortkey))
    return sympy.Add._from_args(merged, is_commutative=False)


def nc_substitute(
    expr: sympy.Expr, mapping: dict[sympy.Symbol, sympy.Expr], memo: dict | None = None
) -> sympy.Expr:
    """``expr.xreplace(mapping)`` for symbols, rebuilt with :func:`nc_product` and
    :func:`nc_sum`; ``memo`` (shared between calls) keeps rebuilt subexpressions.

    >>> x, y, r = (nc_symbol(n) for n in "xyr")
    >>> nc_substitute(r * x + y, {r: x * y})
    x*y*x + y
    """
    memo = {} if memo is None else memo

    def walk(e: sympy.Expr) -> sympy.Expr:
        if e.is_Symbol:
            return mapping.get(e, e)
        if e.is_Atom:
            return e
        done = memo.get(e)
        if done is not None:
            return done
        if e.is_Mul or e.is_Add:
            join = nc_product if e.is_Mul else nc_sum
            args = [walk(a) for a in e.args]
            out = e if all(x is y for x, y in zip(args, e.args, strict=True)) else args[0]
            if out is not e:
                for a in args[1:]:
                    out = join(out, a)
        else:
            out = e.xreplace(mapping)
        memo[e] = out
        return out

    return walk(expr)


def _scaled(term: sympy.Expr) -> bool:
    return term.is_Number or (term.is_Mul and term.args[0].is_Number)


def real_symbol(name: str) -> sympy.Symbol:
    """A real symbol: a vertex's value (so that d|u|/du is sign(u), not a complex form)."""
    return sympy.Symbol(name, real=True)


def fold(
    expr: sympy.Expr,
    leaf: Callable[[sympy.Symbol], T],
    number: Callable[[sympy.Number], T],
    add: Callable[[list[T]], T],
    mul: Callable[[list[T]], T],
) -> T:
    """Evaluate ``expr`` bottom-up; factors reach ``mul`` in noncommutative order."""

    def walk(e: sympy.Expr) -> T:
        if e.is_Symbol:
            return leaf(e)
        if e.is_Number:
            return number(e)
        if e.is_Add:
            return add([walk(a) for a in e.args])
        if e.is_Mul:
            return mul([walk(a) for a in e.args])
        if e.is_Pow and e.exp.is_Integer and e.exp > 0:
            base = walk(e.base)
            return mul([base] * int(e.exp))
        raise VerificationError(f"unsupported term in an expression set: {e}")

    return walk(expr)
