"""Piecewise held for ``sympy.cse``: cse rebuilds every node it walks (sympy's
``tree_cse._rebuild``), and each rebuilt ``Piecewise`` evaluates again — its pairs
checked, and every function of it (``log(Piecewise(...))``) asking its sign and
zero-ness, each asked of every piece — most of cse's time for a logaddexp or softplus at
the element level. :func:`pieces_held` makes each a :class:`Piecewise` of this module (a
function that never evaluates and knows nothing of its value, with the same pairs as its
arguments, so cse walks, names and orders the same nodes); :func:`pieces_released` makes
it sympy's Piecewise again, and the nodes above it, as cse built them (unevaluated:
they were evaluated when the expression was first built)."""

from __future__ import annotations

from functools import lru_cache

import sympy

from ..core.extremes import holds
from ..core.rebuild import bottom_up

__all__ = ["Piecewise", "pieces_held", "pieces_released"]


class Piecewise(sympy.Function):
    """A Piecewise held, its arguments its (expression, condition) pairs. Named as sympy's:
    sympy orders arguments by class name (``Basic.compare``) and by ``class_key``, and
    hashes by class name, so sums, products and cse's walk order it as the Piecewise it
    holds."""

    @classmethod
    def eval(cls, *args):
        return None

    @classmethod
    def class_key(cls):
        return sympy.Piecewise.class_key()


@lru_cache(maxsize=1024)
def pieces_held(expr: sympy.Expr) -> sympy.Expr:
    """``expr`` with every Piecewise held (:class:`Piecewise`); ``expr`` itself where it
    has none. Remembered, as :func:`~dgraph.core.extremes.held`: the code generator's cse
    meets the same statements in every pass order and candidate."""
    if not holds(expr, sympy.Piecewise):
        return expr
    return _swapped(expr, sympy.Piecewise, Piecewise)


@lru_cache(maxsize=1024)
def pieces_released(expr: sympy.Basic) -> sympy.Basic:
    """:func:`pieces_held`'s inverse: each held :class:`Piecewise` sympy's again."""
    if not holds(expr, Piecewise):
        return expr
    return _swapped(expr, Piecewise, sympy.Piecewise)


def _swapped(expr: sympy.Basic, old: type, new: type) -> sympy.Basic:
    """``expr`` with each node of type ``old`` a ``new`` of its rebuilt arguments, bottom
    up, without recursion; every node above one rebuilt as it stands (unevaluated) where
    sympy allows it."""

    def combine(e: sympy.Basic, args: list) -> sympy.Basic:
        if isinstance(e, old):
            return new(*args, evaluate=False)
        if all(a is b for a, b in zip(args, e.args, strict=True)):
            return e
        if isinstance(e, _UNEVALUATED):
            return e.func(*args, evaluate=False)
        return e.func(*args)

    return bottom_up(expr, combine)


_UNEVALUATED = (sympy.Add, sympy.Mul, sympy.Pow, sympy.Function, sympy.core.relational.Relational)
