"""Operation counts of an expression set over Jacobian blocks (a tensor graph).

On a tensor graph every edge symbol stands for a structured block
(:mod:`dgraph.blocks`) and an expression set is a noncommutative algebra of
matrices: its price is what its block products and sums cost, counted in scalar
multiplications of the structured products. Each reference is paid for once; a product
of several factors (single-use references inlined) is bracketed the cheapest way, by the
matrix-chain recurrence up to :data:`CHAIN_LIMIT` factors and the cheaper of left to
right and right to left beyond — the bracketing code generation uses too. A number
factor other than ±1 scales the stored values of its block.

References: U. Naumann, "Elimination techniques for cheap Jacobians", INRIA RR-3659,
1999 (vector c-graphs); U. Naumann, "Optimal Jacobian accumulation is NP-complete",
Math. Program. 112 (2008) (the matrix-chain view of a product of local Jacobians).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple, TypeVar

import sympy

from ..blocks import Block, add, multiply, scale
from .costs import Cost

if TYPE_CHECKING:
    from .expression_data import ExpressionData

__all__ = [
    "CHAIN_LIMIT",
    "BlockPrices",
    "ChainProduct",
    "Priced",
    "along_bracketing",
    "block_cost",
    "chain_product",
    "expression_blocks",
    "post_order",
]

T = TypeVar("T")

CHAIN_LIMIT = 24  # factors bracketed by the cubic recurrence; longer ones by a sweep


class Priced(NamedTuple):
    """What an expression costs over blocks, and the block it makes."""

    mults: int
    adds: int
    block: Block | None  # None: zero


class BlockPrices(NamedTuple):
    """An expression set priced over blocks (:func:`expression_blocks`)."""

    priced: dict[object, Priced]  # per reference name and per (y, x) entry
    blocks: dict[sympy.Symbol, Block | None]  # each reference's block (None: zero)


class ChainProduct(NamedTuple):
    """A product of blocks bracketed the cheapest way: its multiplications, the product
    (None: zero) and the bracketing (a factor's index, or a pair of subtrees)."""

    mults: int
    block: Block | None
    tree: object


def chain_product(factors: list[Block]) -> ChainProduct:
    """The cheapest bracketing of ``factors`` (output side first): its multiplications,
    the product, and the bracketing as nested pairs of factor indices.

    >>> from dgraph.blocks import dense
    >>> a, b, c = dense((10,), (100,)), dense((100,), (5,)), dense((5,), (50,))
    >>> cost, _, tree = chain_product([a, b, c])
    >>> cost, tree
    (7500, ((0, 1), 2))
    """
    n = len(factors)
    if n == 1:
        return ChainProduct(0, factors[0], 0)
    if n > CHAIN_LIMIT:
        return _sweep(factors)
    best: dict[tuple[int, int], ChainProduct] = {
        (i, i): ChainProduct(0, f, i) for i, f in enumerate(factors)
    }
    for length in range(2, n + 1):
        for i in range(n - length + 1):
            j = i + length - 1
            found = None
            for k in range(i, j):
                ca, ba, ta = best[(i, k)]
                cb, bb, tb = best[(k + 1, j)]
                if ba is None or bb is None:
                    cand = ChainProduct(ca + cb, None, (ta, tb))
                else:
                    c, p = multiply(ba, bb)
                    cand = ChainProduct(ca + cb + c, p, (ta, tb))
                if found is None or cand.mults < found.mults:
                    found = cand
            best[(i, j)] = found  # type: ignore[assignment]
    return best[(0, n - 1)]


def along_bracketing(tree: object, factors: list[T], multiply: Callable[[T, T], T]) -> T:
    """The product of ``factors`` along a bracketing (nested pairs of factor indices, as
    :func:`chain_product` gives it), without recursion: prices, values and printed code
    follow the same bracketing.

    >>> along_bracketing(((0, 1), 2), ["a", "b", "c"], lambda x, y: f"({x}{y})")
    '((ab)c)'
    """
    done: dict[object, T] = {}
    stack: list[tuple[object, bool]] = [(tree, False)]
    while stack:
        node, ready = stack.pop()
        if isinstance(node, int):
            done[node] = factors[node]
        elif not ready:
            stack.append((node, True))
            stack.extend((child, False) for child in node)  # type: ignore[union-attr]
        else:
            done[node] = multiply(done[node[0]], done[node[1]])  # type: ignore[index]
    return done[tree]


def post_order(expr: sympy.Expr) -> list[sympy.Basic]:
    """The sums, products and symbols of an expression set's entry, each once, every one
    after its arguments (numbers left out), without recursion on the expression's depth:
    each node is known by its identity here (hashing a deep expression new from an
    elimination hashes all of it, recursively), and hashed after its arguments by
    whoever keys on it."""
    seen: set[int] = set()
    order: list[sympy.Basic] = []
    stack: list[tuple[sympy.Basic, bool]] = [(expr, False)]
    while stack:
        e, ready = stack.pop()
        if id(e) in seen:
            continue
        if ready or e.is_Symbol:
            seen.add(id(e))
            order.append(e)
            continue
        if not (e.is_Add or e.is_Mul):
            raise ValueError(f"a block expression holds {type(e).__name__}: {e}")
        stack.append((e, True))
        stack.extend((a, False) for a in e.args if not a.is_Number and id(a) not in seen)
    return order


def _sweep(factors: list[Block]) -> ChainProduct:
    """The cheaper of left-to-right and right-to-left products."""
    results = []
    for reverse in (False, True):
        order = list(range(len(factors)))
        if reverse:
            order.reverse()
        total, acc, tree = 0, factors[order[0]], order[0]
        for i in order[1:]:
            if acc is None:
                break
            c, acc = multiply(acc, factors[i]) if not reverse else multiply(factors[i], acc)
            tree = (tree, i) if not reverse else (i, tree)
            total += c
        results.append(ChainProduct(total, acc, tree))
    return min(results, key=lambda r: r.mults)


def expression_blocks(
    es: ExpressionData, leaf: Callable[[tuple[str, str]], Block] | None = None
) -> BlockPrices:
    """Every reference and entry of ``es`` priced over blocks: a :class:`Priced` per
    reference name and per ``(y, x)``, and the references' blocks."""
    graph = es.graph
    leaf = leaf or (lambda edge: graph.block(*edge))
    edges = graph.edge_symbols
    known: dict[sympy.Symbol, Block | None] = {}
    priced: dict[object, Priced] = {}

    def atom(e: sympy.Basic) -> Block | None:
        if e in known:
            return known[e]
        return leaf(edges[e])

    for name, definition in es.references.items():
        priced[name] = _price(definition, atom)
        known[name] = priced[name].block
    for key, entry in es.jacobian.items():
        priced[key] = _price(entry, atom)
    return BlockPrices(priced, known)


def _price(expr: sympy.Expr, atom: Callable[[sympy.Basic], Block | None]) -> Priced:
    """An expression's blocks, bottom up: sums and products of atoms."""
    done: dict[sympy.Basic, Priced] = {}
    for e in post_order(expr):
        if e.is_Symbol:
            done[e] = Priced(0, 0, atom(e))
        else:
            done[e] = _add_terms(e, done) if e.is_Add else _multiply_factors(e, done)
    return done[expr]


def _add_terms(e: sympy.Expr, done: dict[sympy.Basic, Priced]) -> Priced:
    mults = adds = 0
    total: Block | None = None
    for term in e.args:
        m, a, b = done[term]
        mults, adds = mults + m, adds + a
        if b is None:
            continue
        if total is not None:
            adds += min(total.stored, b.stored)
            total = add(total, b)
        else:
            total = b
    return Priced(mults, adds, total)


def _multiply_factors(e: sympy.Expr, done: dict[sympy.Basic, Priced]) -> Priced:
    coefficient = sympy.S.One
    factors: list[Block | None] = []
    mults = adds = 0
    for f in e.args:
        if f.is_Number:
            coefficient *= f
            continue
        m, a, b = done[f]
        mults, adds = mults + m, adds + a
        factors.append(b)
    if coefficient == 0 or any(b is None for b in factors):
        return Priced(mults, adds, None)
    cost, product, _ = chain_product(factors)  # type: ignore[arg-type]
    mults += cost
    if product is not None and abs(coefficient) != 1:
        mults += product.stored
        product = scale(product)
    return Priced(mults, adds, product)


def block_cost(es: ExpressionData) -> Cost:
    """Scalar multiplications and additions of ``es``'s block operations, the computed
    form's (products grouped as the method made them) where it has one."""
    computed = es.as_computed or es
    priced, _ = expression_blocks(computed)
    mults = sum(p.mults for p in priced.values())
    adds = sum(p.adds for p in priced.values())
    return Cost(mults, adds, mults)
