"""One traversal over noncommutative expressions, read in several algebras.

Expression sets are sums and products of edge symbols, reference symbols and integers.
Costs, exact expansion into path words, evaluation with random matrices and numerical
evaluation are all the same fold with a different meaning for +, * and the leaves.
"""

from __future__ import annotations

import bisect
import functools
import itertools
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import TypeVar

import sympy
from sympy.core import basic as sympy_basic

from ..errors import VerificationError

__all__ = [
    "canonical_key",
    "check_sympy_internals",
    "fold",
    "nc_product",
    "nc_product_of",
    "nc_rebuilt",
    "nc_substitute",
    "nc_sum",
    "nc_sum_of",
    "nc_symbol",
    "real_symbol",
]

T = TypeVar("T")


_NC = sympy.Symbol("_nc", commutative=False)


@functools.lru_cache(maxsize=1 << 16)
def nc_symbol(name: str) -> sympy.Symbol:
    """A noncommutative symbol (edge labels and references are matrices in vector mode):
    ``Symbol(name, commutative=False)``, sharing one symbol's assumptions. Their facts
    depend only on the assumptions given, and deducing them again per symbol would cost
    more than the rest (a large elimination makes 10^5 references).

    >>> nc_symbol("r1") == sympy.Symbol("r1", commutative=False)
    True
    """
    symbol = sympy.Expr.__new__(sympy.Symbol)
    symbol.name = name
    symbol._assumptions = _NC._assumptions
    symbol._assumptions_orig = _NC._assumptions_orig
    symbol._assumptions0 = _NC._assumptions0
    return symbol


def _plain(factors: tuple[sympy.Expr, ...]) -> bool:
    """Noncommutative factors that no flattening rule rewrites: no numbers, no powers."""
    return all(f.is_commutative is False and not f.is_Pow for f in factors)


PLAIN_LIMIT = 1 << 20  # factors (terms) the remembered products (sums) may hold


class _Remembered:
    """Expressions kept by identity (kept alive, so their ids are not reused), the oldest
    dropped once the arguments of those held pass ``limit``: what is held stays linear
    in the expressions an elimination keeps, not in every one it built."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.held = 0
        self.kept: OrderedDict[int, sympy.Expr] = OrderedDict()

    def get(self, e: sympy.Expr) -> sympy.Expr | None:
        return self.kept.get(id(e))

    def add(self, e: sympy.Expr) -> sympy.Expr:
        old = self.kept.pop(id(e), None)
        if old is not None:
            self.held -= len(old.args)
        self.kept[id(e)] = e
        self.held += len(e.args)
        while self.held > self.limit and len(self.kept) > 1:
            self.held -= len(self.kept.popitem(last=False)[1].args)
        return e


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
    if fa[-1] == fb[0] or not (_plain_product(a, fa) and _plain_product(b, fb)):
        return a * b  # a power or a coefficient forms: sympy's rules
    return _known_plain(_nc_mul(fa + fb))


def _nc_mul(factors: tuple[sympy.Expr, ...]) -> sympy.Expr:
    """``Mul._from_args(factors, is_commutative=False)`` holding ``factors`` itself, where
    that copies it (``Basic.__new__(cls, *args)``): a chain's products are as long as the
    chain, one copy fewer of each is a third of its elimination (checked at import)."""
    product = sympy.Basic.__new__(sympy.Mul)
    product._args = factors
    product.is_commutative = False
    return product


# Products nc_product built from plain factors, by identity (the object is kept, so its id
# is not reused): a chain of eliminations extends one product by a factor per step, and
# checking all its factors again at every step was quadratic in the chain's length (a
# 5,000-step loop: 25 million checks). Keyed by the expressions themselves, every new
# product hashed all its factors: quadratic again. Bounded by the factors held, the
# oldest dropped first (a product not found is checked factor by factor, as before):
# bounded by entries, every product of a chain stayed alive, n²/2 factors (a
# 20,000-step loop: 2·10⁸ per elimination, 5.6 GB).
_PLAIN_PRODUCTS = _Remembered(PLAIN_LIMIT)


def _plain_product(e: sympy.Expr, factors: tuple[sympy.Expr, ...]) -> bool:
    return _PLAIN_PRODUCTS.get(e) is e or _plain(factors)


def _known_plain(product: sympy.Expr) -> sympy.Expr:
    return _PLAIN_PRODUCTS.add(product)


def nc_product_of(factors: list[sympy.Expr]) -> sympy.Expr:
    """``nc_product`` folded over ``factors`` left to right, the same object, made once
    where every step would only join factor lists (no intermediate products).

    >>> x, y, z = (nc_symbol(n) for n in "xyz")
    >>> nc_product_of([x * y, z, x]) == x * y * z * x, nc_product_of([x, x * y]) == x**2 * y
    (True, True)
    """
    if len(factors) == 1:
        return factors[0]
    parts = [f.args if f.is_Mul else (f,) for f in factors]
    joined = all(a[-1] != b[0] for a, b in itertools.pairwise(parts))
    if joined and all(_plain(p) for p in parts):
        return _nc_mul(tuple(f for p in parts for f in p))
    out = factors[0]
    for f in factors[1:]:
        out = nc_product(out, f)
    return out


def nc_sum(a: sympy.Expr, b: sympy.Expr) -> sympy.Expr:
    """``a + b``, the same object sympy builds, by merging the two sorted term lists
    where no term repeats or carries a numeric coefficient (else ``a + b``). Sums
    accumulate term by term during elimination; ``Add.flatten`` dominated that.

    >>> x, y, z = (nc_symbol(n) for n in "xyz")
    >>> nc_sum(x * y + z, y * x) == x * y + z + y * x, nc_sum(x, x) == 2 * x
    (True, True)
    """
    ta = a.args if a.is_Add else (a,)
    tb = b.args if b.is_Add else (b,)
    if len(ta) < len(tb):
        a, b, ta, tb = b, a, tb, ta
    if len(tb) <= _INSERT_LIMIT and _PLAIN_SUMS.get(a) is a:
        inserted = _inserted(ta, tb)
        if inserted is not None:
            return _remember_plain(sympy.Add._from_args(inserted, is_commutative=False))
    terms = ta + tb
    if not _plain_terms(terms):
        return a + b
    # timsort finds the two sorted runs: a merge, in C
    return _remember_plain(
        sympy.Add._from_args(tuple(sorted(terms, key=canonical_key)), is_commutative=False)
    )


# Sums built here from plain terms, by identity: adding a few terms to one of them inserts
# them (a binary search each) instead of checking and sorting every term again, which
# made a label accumulated term by term over n eliminations cost n² (a 1,000-term
# statement's Jacobian). Bounded by the terms held, as :data:`_PLAIN_PRODUCTS`.
_PLAIN_SUMS = _Remembered(PLAIN_LIMIT)
_INSERT_LIMIT = 8  # terms inserted one by one; more are merged by sorting


def _remember_plain(total: sympy.Expr) -> sympy.Expr:
    return _PLAIN_SUMS.add(total)


def _inserted(
    sorted_terms: tuple[sympy.Expr, ...], new: tuple[sympy.Expr, ...]
) -> tuple[sympy.Expr, ...] | None:
    """``sorted_terms`` (plain, sorted by :func:`canonical_key`) with the plain terms
    ``new`` put in their places; None where one is not plain or is there already."""
    if not _plain_terms(new):
        return None
    terms = list(sorted_terms)
    for term in new:
        key = canonical_key(term)
        at = bisect.bisect_left(terms, key, key=canonical_key)
        if at < len(terms) and canonical_key(terms[at]) == key:
            return None  # a repeated term: Add gives it a coefficient
        terms.insert(at, term)
    return tuple(terms)


def nc_sum_of(terms: Iterable[sympy.Expr]) -> sympy.Expr:
    """``Add(*terms)``, the same object, sorted once by :func:`canonical_key` where the
    terms are plain (as in :func:`nc_sum`)."""
    terms = tuple(terms)
    flat = tuple(u for t in terms for u in (t.args if t.is_Add else (t,)))
    if len(flat) < 2 or not _plain_terms(flat):
        return sympy.Add(*terms)
    return _remember_plain(
        sympy.Add._from_args(tuple(sorted(flat, key=canonical_key)), is_commutative=False)
    )


def _plain_terms(terms: tuple[sympy.Expr, ...]) -> bool:
    """Noncommutative terms, none repeated, none with a numeric coefficient: Add's rules
    would only sort them."""
    if not all(t.is_commutative is False and not _scaled(t) for t in terms):
        return False
    return len(set(terms)) == len(terms)


_KEYS: dict[int, tuple[sympy.Basic, tuple]] = {}  # id -> (the object, kept alive; its key)
_KEYS_LIMIT = 1 << 20
_SYMBOL_RANK = sympy_basic.ordering_of_classes.index("Symbol")


def canonical_key(e: sympy.Basic) -> tuple:
    """A key that sorts like sympy's ``Basic.compare`` (the order of an Add's terms):
    class rank, length of the hashable content, then its items in turn. One key per
    term and tuple comparisons, where ``compare`` recurses in Python for every pair.
    Keys are remembered by identity: a cache keyed by the expressions themselves would
    compare them structurally on every hit.
    """
    known = _KEYS.get(id(e))
    if known is not None and known[0] is e:
        return known[1]
    if type(e) is sympy.Symbol:  # content: the name, then plain assumption items
        content = e._hashable_content()
        key = (_SYMBOL_RANK, "", len(content), content)
        _KEYS[id(e)] = (e, key)
        return key
    name = type(e).__name__
    try:
        rank = sympy_basic.ordering_of_classes.index(name)
    except ValueError:
        rank = len(sympy_basic.ordering_of_classes) + 1
    content = e._hashable_content()
    items = []
    for item in content:
        if isinstance(item, sympy.Basic):
            items.append(canonical_key(item))
        elif isinstance(item, frozenset):
            raise TypeError("no canonical key for a frozenset item")  # not in expression sets
        else:
            items.append(item)
    unknown = name if rank > len(sympy_basic.ordering_of_classes) else ""
    key = (rank, unknown, len(content), tuple(items))
    if len(_KEYS) >= _KEYS_LIMIT:
        _KEYS.clear()
    _KEYS[id(e)] = (e, key)
    return key


def nc_substitute(
    expr: sympy.Expr, mapping: dict[sympy.Symbol, sympy.Expr], memo: dict | None = None
) -> sympy.Expr:
    """``expr.xreplace(mapping)`` for symbols, rebuilt with :func:`nc_product` and
    :func:`nc_sum`; ``memo`` (shared between calls) keeps rebuilt subexpressions.

    >>> x, y, r = (nc_symbol(n) for n in "xyr")
    >>> nc_substitute(r * x + y, {r: x * y})
    x*y*x + y
    """
    memo = {} if memo is None else memo  # id -> (subexpression, rebuilt): kept alive
    stack = [(expr, False)]
    while stack:  # no recursion: a running value's sums nest as deep as the program
        e, ready = stack.pop()
        if id(e) in memo:
            continue
        if e.is_Symbol or e.is_Atom or not (e.is_Mul or e.is_Add):
            out = mapping.get(e, e) if e.is_Symbol else e if e.is_Atom else e.xreplace(mapping)
            memo[id(e)] = (e, out)
            continue
        if not ready:
            stack.append((e, True))
            stack.extend((a, False) for a in reversed(e.args) if id(a) not in memo)
            continue
        memo[id(e)] = (e, nc_rebuilt(e, [memo[id(a)][1] for a in e.args]))
    return memo[id(expr)][1]


def nc_rebuilt(e: sympy.Expr, args: list[sympy.Expr]) -> sympy.Expr:
    """The sum, product or power ``e`` with ``args`` for its arguments (``e`` itself
    where they are its own), built as :func:`nc_sum_of` and :func:`nc_product_of` build."""
    if all(x is y for x, y in zip(args, e.args, strict=True)):
        return e
    if e.is_Add:
        return nc_sum_of(args)
    return nc_product_of(args) if e.is_Mul else sympy.Pow(*args)


def _scaled(term: sympy.Expr) -> bool:
    return term.is_Number or (term.is_Mul and term.args[0].is_Number)


@functools.lru_cache(maxsize=1 << 18)
def real_symbol(name: str) -> sympy.Symbol:
    """A real symbol: a vertex's value (so that d|u|/du is sign(u), not a complex form);
    remembered, since loading asks for the same few symbols many times."""
    return sympy.Symbol(name, real=True)


def fold(
    expr: sympy.Expr,
    leaf: Callable[[sympy.Symbol], T],
    number: Callable[[sympy.Number], T],
    add: Callable[[list[T]], T],
    mul: Callable[[list[T]], T],
) -> T:
    """Evaluate ``expr`` bottom-up; factors reach ``mul`` in noncommutative order. No
    recursion: a running value's labels nest as deep as the program (forward mode on
    300 statements exceeded Python's limit); each node is evaluated once."""
    done: dict[int, T] = {}
    stack = [(expr, False)]
    while stack:
        e, ready = stack.pop()
        if id(e) in done:
            continue
        if e.is_Symbol:
            done[id(e)] = leaf(e)
            continue
        if e.is_Number:
            done[id(e)] = number(e)
            continue
        if e.is_Add or e.is_Mul:
            parts = e.args
        elif e.is_Pow and e.exp.is_Integer and e.exp > 0:
            parts = (e.base,)
        else:
            raise VerificationError(f"unsupported term in an expression set: {e}")
        if not ready:
            stack.append((e, True))
            stack.extend((a, False) for a in reversed(parts) if id(a) not in done)  # in order
        elif e.is_Add:
            done[id(e)] = add([done[id(a)] for a in parts])
        elif e.is_Mul:
            done[id(e)] = mul([done[id(a)] for a in parts])
        else:
            done[id(e)] = mul([done[id(e.base)]] * int(e.exp))
    return done[id(expr)]


def check_sympy_internals() -> None:
    """Fail loudly, once at import, if a sympy internal dgraph builds on has changed:
    :func:`nc_symbol` (and the trace's tape symbols) fill ``_assumptions``,
    ``_assumptions_orig`` and ``_assumptions0`` of a bare ``Symbol`` by hand, and
    :func:`nc_product`, the D* method and the expression-set packer build products and sums
    with ``Mul._from_args`` / ``Add._from_args`` (no canonicalization). Each must give
    the object sympy's constructors give, or results would be silently wrong.
    tests/test_internals.py checks the same and more."""
    try:
        problems = _sympy_internal_problems()
    except Exception as exc:  # an internal gone or changed its signature
        problems = [f"{type(exc).__name__}: {exc}"]
    if problems:
        raise RuntimeError(
            f"sympy {sympy.__version__} changed an internal dgraph relies on: "
            + "; ".join(problems)
            + " (dgraph.core.algebra.check_sympy_internals; use the sympy version"
            " dgraph's tests pass with)"
        )


def _sympy_internal_problems() -> list[str]:
    """What :func:`check_sympy_internals` found wrong, as phrases."""
    made = nc_symbol("_dgraph_probe")
    built = sympy.Symbol("_dgraph_probe", commutative=False)
    problems = []
    if not (made == built and hash(made) == hash(built) and made.is_commutative is False):
        problems.append("a Symbol made from another's _assumptions is not that Symbol")
    if made._assumptions0 != built._assumptions0:
        problems.append("Symbol._assumptions0 no longer holds the given assumptions")
    a, b = nc_symbol("_dgraph_a"), nc_symbol("_dgraph_b")
    product = sympy.Mul._from_args((b, a), is_commutative=False)  # factors in their order
    if product != sympy.Mul(b, a) or product.args != (b, a) or product.is_commutative:
        problems.append("Mul._from_args(args, is_commutative=False) is not Mul(*args)")
    joined = _nc_mul((b, a))
    if joined != product or hash(joined) != hash(product) or joined.args != (b, a):
        problems.append("a Mul given its args by hand is not Mul._from_args(args)")
    canonical = sympy.Add(product, a)  # rebuilt from its canonical arguments, as packed
    total = sympy.Add._from_args(canonical.args, False)
    if total != canonical or hash(total) != hash(canonical):
        problems.append("Add._from_args(args, False) is not Add(*args)")
    return problems


check_sympy_internals()
