"""``sympy.cse`` (no optimizations, canonical order, nothing ignored: the call the scalar
passes make) with the work that depends on a node alone remembered between calls: the
same answers, cheaper.

Why not ``sympy.cse`` itself: the pass orders of :mod:`dgraph.codegen.passes` hand it some
16 programs per candidate, mostly the same statements, and it redoes for every node of
every one what depends on the node alone: whether it gives a minus sign
(``could_extract_minus_sign``, ``as_ordered_terms`` of every sum) and its negation, the
canonical order of a sum's or product's arguments (``ordered``: sort keys that walk the
subtree, again at every level), and the rebuild (evaluating each function again) of every
subtree, also of one with nothing in it to name (sympy 1.14, tests/test_codegen.py under
cProfile: 50 of ``straight_line``'s 75 s in ``sympy.cse``). :func:`cse` runs sympy's own
steps in sympy's order (``opt_cse``'s rewrites and sympy's ``match_common_args``,
``tree_cse``'s repeats and its rebuild in ``ordered`` order, taking the symbols in the same
turn) and remembers those per-node facts (:func:`_negated`, :func:`_inverted`,
:func:`_split_mul`, :func:`_ordered_args`) and the rebuild of a subtree in which nothing is
named and every rewrite is its node's own (:func:`_clean_rebuild`): the same replacements
and reduced expressions as ``sympy.cse`` (compared call by call in four test files, and
the generated texts of eleven: benchmarks/RESULTS.md, session 57)."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

import sympy
from sympy.core.sorting import ordered
from sympy.simplify.cse_main import Unevaluated, match_common_args
from sympy.utilities.iterables import iterable, topological_sort

__all__ = ["cse"]

# per-node facts remembered: the nodes of a few hundred programs
_LIMIT = 1 << 16

Assignment = tuple[sympy.Symbol, sympy.Basic]


def cse(
    exprs: list[sympy.Basic], symbols: Iterator[sympy.Symbol]
) -> tuple[list[Assignment], list[sympy.Basic]]:
    """``sympy.cse(exprs, symbols=symbols)`` of scalar expressions: the replacements and
    the reduced expressions."""
    return _tree_cse(exprs, symbols, _opt_cse(exprs))


@lru_cache(maxsize=_LIMIT)
def _negated(expr: sympy.Basic) -> Unevaluated | None:
    """``opt_cse``'s rewrite of ``expr`` as ``-1`` times its negation where it gives a
    minus sign and its negation is no atom (one object per node: :func:`_own`)."""
    if not expr.could_extract_minus_sign():
        return None
    neg = sympy.Add(*(-i for i in expr.args)) if isinstance(expr, sympy.Add) else -expr
    return None if neg.is_Atom else Unevaluated(sympy.Mul, (sympy.S.NegativeOne, neg))


@lru_cache(maxsize=_LIMIT)
def _inverted(expr: sympy.Pow) -> Unevaluated | None:
    """``opt_cse``'s rewrite of a power whose exponent gives a minus sign as the inverse of
    ``base**-exp``, else None."""
    base, exp = expr.base, expr.exp
    if not exp.could_extract_minus_sign():
        return None
    return Unevaluated(sympy.Pow, (sympy.Pow(base, -exp), -1))


@lru_cache(maxsize=_LIMIT)
def _split_mul(m: sympy.Mul) -> tuple[list, list, sympy.Basic | None]:
    """``m``'s commutative and other factors, and the product of the commutative ones."""
    c, nc = m.args_cnc(cset=False)
    return c, nc, (m.func(*c) if c else None)


@lru_cache(maxsize=_LIMIT)
def _ordered_args(expr: sympy.Basic) -> tuple:
    """The arguments of a product or sum in the order ``tree_cse`` walks them."""
    if isinstance(expr, sympy.Mul):
        c, nc = expr.args_cnc()
        return tuple(nc) if c == [1] else (*ordered(c), *nc)
    return tuple(ordered(expr.args))


def _opt_cse(exprs: list[sympy.Basic]) -> dict:
    """sympy's ``opt_cse(exprs)`` of scalar expressions: the rewrites ``tree_cse`` walks
    instead of the nodes they replace."""
    opt_subs: dict = {}
    adds: dict = {}  # insertion-ordered sets, as sympy's OrderedSet
    muls: dict = {}
    seen: set = set()
    collapsible: set = set()

    def classify(e: sympy.Basic) -> None:
        negative = _negated(e)
        if negative is not None:
            opt_subs[e] = negative
            e = negative.args[1]
            seen.add(e)
        if isinstance(e, sympy.Mul):
            (collapsible.add(e) if len(e.args) == 1 else muls.setdefault(e))
        elif isinstance(e, sympy.Add):
            (collapsible.add(e) if len(e.args) == 1 else adds.setdefault(e))
        elif isinstance(e, sympy.Pow):
            inverse = _inverted(e)
            if inverse is not None:
                opt_subs[e] = inverse

    for root in exprs:
        stack: list = [(root, False)]
        while stack:  # sympy's recursion, depth first, each node after its arguments
            e, after = stack.pop()
            if after:
                classify(e)
            elif not isinstance(e, sympy.Basic) or e.is_Atom or e.is_Order:
                continue
            elif iterable(e):
                stack.extend((a, False) for a in reversed(list(e)))
            elif e not in seen:
                seen.add(e)
                stack.append((e, True))
                stack.extend((a, False) for a in reversed(e.args))

    edges = [(s, s.args[0]) for s in collapsible if s.args[0] in collapsible]
    for e in reversed(topological_sort((collapsible, edges))):
        opt_subs[e] = opt_subs.get(e.args[0], e.args[0])

    commutative: dict = {}
    for m in muls:
        c, nc, c_mul = _split_mul(m)
        if c:
            if nc:
                opt_subs[m] = (
                    m.func(*nc) if c_mul == 1 else m.func(c_mul, m.func(*nc), evaluate=False)
                )
            if len(c) > 1:
                commutative.setdefault(c_mul)
    match_common_args(sympy.Add, list(adds), opt_subs)
    match_common_args(sympy.Mul, list(commutative), opt_subs)
    return opt_subs


def _own(e: sympy.Basic) -> Unevaluated | None:
    """The rewrite ``opt_cse`` gives ``e`` by itself: -1 times its negation, or a power's
    inverse (one object per node, so a rewrite in ``opt_subs`` is told by identity)."""
    negative = _negated(e)
    if negative is None and isinstance(e, sympy.Pow):
        return _inverted(e)
    return negative


def _tree_cse(exprs: list[sympy.Basic], symbols: Iterator[sympy.Symbol], opt_subs: dict):
    """sympy's ``tree_cse(exprs, symbols, opt_subs)`` (canonical order, nothing ignored),
    where a subtree with nothing to name and only the rewrites of its nodes alone comes
    from :func:`_clean_rebuild` (what sympy's rebuild gives it, remembered)."""
    to_eliminate: set = set()
    seen: set = set()
    excluded: set = set()
    for root in exprs:
        stack = [root]
        while stack:
            e = stack.pop()
            if not isinstance(e, (sympy.Basic, Unevaluated)) or isinstance(e, sympy.RootOf):
                continue
            if isinstance(e, sympy.Basic) and (e.is_Atom or e.is_Order):
                if e.is_Symbol:
                    excluded.add(e.name)
                continue
            if iterable(e):
                args = e
            else:
                if e in seen:
                    to_eliminate.add(e)
                    continue
                seen.add(e)
                args = opt_subs.get(e, e).args
            stack.extend(reversed(list(args)))

    clean: dict = {}

    def is_clean(e) -> bool:
        """Nothing in ``e`` named, every rewrite in it its node's own."""
        if isinstance(e, Unevaluated):
            return False
        if not isinstance(e, sympy.Basic) or not e.args:
            return True
        found = clean.get(e)
        if found is None:
            if iterable(e):
                found = all(is_clean(a) for a in e.args)
            elif e in to_eliminate or opt_subs.get(e) is not _own(e):
                found = False
            else:
                found = all(is_clean(a) for a in opt_subs.get(e, e).args)
            clean[e] = found
        return found

    names = (s for s in symbols if s.name not in excluded)
    replacements: list[Assignment] = []
    subs: dict = {}

    def rebuild(expr):
        if not isinstance(expr, (sympy.Basic, Unevaluated)) or not expr.args:
            return expr
        if isinstance(expr, sympy.Basic) and is_clean(expr):
            return _clean_rebuild(expr)
        if iterable(expr):
            return expr.func(*[rebuild(a) for a in expr.args])
        if expr in subs:
            return subs[expr]
        orig = expr
        expr = opt_subs.get(expr, expr)
        args = _walked(expr)
        new_args = list(map(rebuild, args))
        changed = isinstance(expr, Unevaluated) or new_args != args
        new_expr = _built(expr.func, tuple(new_args)) if changed else expr
        if orig in to_eliminate:
            sym = next(names)
            subs[orig] = sym
            replacements.append((sym, new_expr))
            return sym
        return new_expr

    reduced = [rebuild(e) if isinstance(e, sympy.Basic) else e for e in exprs]
    return replacements, reduced


def _walked(expr):
    """The arguments of ``expr`` in the order ``tree_cse`` rebuilds them: a list for sums
    and products, the arguments themselves (a tuple: rebuilt whatever they give) else."""
    if isinstance(expr, (sympy.Mul, sympy.Add)):
        return list(_ordered_args(expr))
    return expr.args


def _clean(a):
    return _clean_rebuild(a) if isinstance(a, sympy.Basic) else a


@lru_cache(maxsize=_LIMIT)
def _clean_rebuild(expr: sympy.Basic) -> sympy.Basic:
    """sympy's ``tree_cse`` rebuild of ``expr`` where nothing in it is named and every
    rewrite in it is its node's own (:func:`_own`): a function of ``expr`` alone."""
    if not expr.args:
        return expr
    if iterable(expr):
        return expr.func(*[_clean(a) for a in expr.args])
    rewrite = _own(expr)
    if rewrite is not None:
        return _built(rewrite.func, tuple(_clean(a) for a in rewrite.args))
    args = _walked(expr)
    new_args = [_clean(a) for a in args]
    return _built(expr.func, tuple(new_args)) if new_args != args else expr


@lru_cache(maxsize=_LIMIT)
def _built(func, args: tuple) -> sympy.Basic:
    """``func(*args)``, evaluated as sympy evaluates it, remembered: the rebuild of a node
    with something named in it meets the same arguments again in the next pass's program
    (sympy's own cache, 1,000 entries, and no ``Piecewise`` in it)."""
    return func(*args)
