"""Canonical sympy expressions, renamed without evaluating them again.

Loading a graph builds one sympy expression per vertex; building each with sympy's full
evaluation (``sin`` looking for a multiple of ``pi``, ``Mul`` flattening, ...) is what made
loading slow. Most vertices of a trace share a few *shapes* (``sin(a)*b + 0.5*a``), and
sympy's canonical form of an expression depends on its symbols only through how their
names compare: the order of the arguments of a sum or a product, which of ``a - b`` and
``b - a`` keeps its sign, are decided by comparing names. So the canonical form is built
once per shape and *name order*, over rank symbols :data:`RANK` (``RANK[0] < RANK[1] <
...``), and every other expression of that shape and order is that template with the rank
symbols swapped for the real ones, argument by argument, without evaluating anything
(:func:`rename`). Templates holding an operation whose raw construction is not known to be
safe (``Piecewise``, ``Max``, relations, ...) fall back to ``xreplace``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sympy
from sympy.core.function import AppliedUndef
from sympy.core.parameters import global_parameters

from .algebra import real_symbol

__all__ = [
    "CACHES",
    "CACHE_LIMIT",
    "RANK",
    "Recipe",
    "clear",
    "rank_of",
    "rank_symbol",
    "rank_symbols_of",
    "ranks",
    "recipe",
    "rename",
    "stats",
]

CACHE_LIMIT = 50_000  # templates remembered; the cache starts over when it is full
_PREFIX = "_dgraph_rank_"  # names that compare as their ranks do (fixed width)
RANK: list[sympy.Symbol] = []
_INDEX: dict[sympy.Basic, int] = {}  # rank symbol -> its rank

# How often templates were built (sympy evaluates) and instantiated (no evaluation); the
# linear-loading test reads these.
stats = {"built": 0, "instantiated": 0, "fallback": 0}
CACHES: list[dict] = []  # every template cache, for clear()


def clear() -> None:
    """Forget every template (tests; the caches also start over when full)."""
    for cache in CACHES:
        cache.clear()


def rank_symbol(k: int) -> sympy.Symbol:
    """The real symbol standing for the ``k``-th smallest name of a template."""
    while len(RANK) <= k:
        s = real_symbol(f"{_PREFIX}{len(RANK):09d}")
        _INDEX[s] = len(RANK)
        RANK.append(s)
    return RANK[k]


def rank_of(symbol: sympy.Symbol) -> int:
    """The rank a rank symbol stands for."""
    return _INDEX[symbol]


def rank_symbols_of(expr: sympy.Basic) -> tuple[sympy.Symbol, ...]:
    """The rank symbols ``expr`` uses, smallest rank first."""
    return tuple(sorted((s for s in expr.free_symbols if s in _INDEX), key=_INDEX.__getitem__))


def ranks(names: Sequence[str]) -> tuple[int, ...]:
    """Each name's rank among the distinct ``names`` (equal names share a rank)."""
    if len(names) == 1:
        return (0,)
    order = sorted(range(len(names)), key=names.__getitem__)
    out = [0] * len(names)
    rank, previous = -1, None
    for i in order:
        if names[i] != previous:
            rank, previous = rank + 1, names[i]
        out[i] = rank
    return tuple(out)


class Recipe:
    """How to rebuild a canonical expression over :data:`RANK` with other symbols: a
    postfix program of pushes (a rank's symbol, a constant subexpression) and raw
    constructions. ``steps`` is None when some operation cannot be built raw."""

    __slots__ = ("expr", "steps")

    def __init__(self, expr: sympy.Expr) -> None:
        self.expr = expr
        self.steps = _compile(expr)

    def __call__(self, symbols: Sequence[sympy.Basic]) -> sympy.Expr:
        """The expression with ``RANK[k]`` read as ``symbols[k]`` (all real symbols)."""
        steps = self.steps
        if steps is None:
            stats["fallback"] += 1
            return self.expr.xreplace({RANK[k]: s for k, s in enumerate(symbols)})
        stats["instantiated"] += 1
        stack: list[Any] = []
        push = stack.append
        for kind, payload in steps:
            if kind == 0:
                push(symbols[payload])
            elif kind == 1:
                push(payload)
            else:
                make, n = payload
                args = stack[-n:]
                del stack[-n:]
                push(make(args))
        return stack[0]


def _raw(node: sympy.Basic):
    """A function building ``node``'s class from canonical arguments without evaluating,
    or None where that is not known to be safe."""
    cls = type(node)
    if cls is sympy.Add or cls is sympy.Mul:
        commutative = node.is_commutative
        return lambda args: cls._from_args(args, commutative)
    if cls is sympy.Pow:
        return lambda args: sympy.Pow(args[0], args[1], evaluate=False)
    if (
        isinstance(node, sympy.Function)
        and not isinstance(node, (AppliedUndef, sympy.Piecewise))
        and all(isinstance(a, sympy.Expr) for a in node.args)
        and isinstance(node.__dict__.get("nargs"), sympy.Set)
    ):
        # what cls(*args, evaluate=False) makes, without working out nargs again
        nargs = node.nargs

        def applied(args: list) -> sympy.Expr:
            obj = sympy.Expr.__new__(cls, *args)
            obj.nargs = nargs
            return obj

        return applied
    return None


def _compile(expr: sympy.Basic) -> list[tuple[int, Any]] | None:
    """The postfix program of a :class:`Recipe`; None if a node cannot be built raw."""
    has_rank: dict[sympy.Basic, bool] = {}
    stack: list[tuple[sympy.Basic, bool]] = [(expr, False)]
    while stack:  # which subexpressions hold a rank symbol (iterative: deep expressions)
        e, expanded = stack.pop()
        if e in has_rank:
            continue
        if not e.args:
            has_rank[e] = e in _INDEX
        elif expanded:
            has_rank[e] = any(has_rank[a] for a in e.args)
        else:
            stack.append((e, True))
            stack.extend((a, False) for a in e.args if a not in has_rank)
    steps: list[tuple[int, Any]] = []
    work: list[tuple[sympy.Basic, bool]] = [(expr, False)]
    while work:
        e, expanded = work.pop()
        if not has_rank[e]:
            steps.append((1, e))
        elif not e.args:
            steps.append((0, _INDEX[e]))
        elif expanded:
            make = _raw(e)
            if make is None:
                return None
            steps.append((2, (make, len(e.args))))
        else:
            work.append((e, True))
            work.extend((a, False) for a in reversed(e.args))
    return steps


_RECIPES: dict[tuple, Recipe] = {}
CACHES.append(_RECIPES)


def recipe(expr: sympy.Expr) -> Recipe:
    """The :class:`Recipe` of a canonical expression over :data:`RANK` (cached)."""
    key = ("recipe", expr)
    found = _RECIPES.get(key)
    if found is None:
        if len(_RECIPES) >= CACHE_LIMIT:
            _RECIPES.clear()
        found = _RECIPES[key] = Recipe(expr)
    return found


def rename(
    expr: sympy.Expr, slots: tuple[sympy.Symbol, ...], targets: Sequence[sympy.Symbol]
) -> sympy.Expr:
    """``expr.xreplace(dict(zip(slots, targets)))`` (evaluated, so canonical for the
    targets' names) for real symbols ``targets``, from a template per name order."""
    if not slots:
        return expr
    order = ranks([t.name for t in targets])
    key = (expr, slots, order, global_parameters.evaluate)
    found = _RECIPES.get(key)
    if found is None:
        stats["built"] += 1
        canonical = expr.xreplace({s: rank_symbol(r) for s, r in zip(slots, order, strict=True)})
        if len(_RECIPES) >= CACHE_LIMIT:
            _RECIPES.clear()
        found = _RECIPES[key] = Recipe(canonical)
    by_rank: list[sympy.Symbol] = [None] * (max(order) + 1)  # type: ignore[list-item]
    for t, r in zip(targets, order, strict=True):
        by_rank[r] = t
    return found(by_rank)
