"""Check an expression set against Bauer's formula.

Bauer (1974): ``dy/dx = sum over paths x -> y of the product of the edge labels along
the path``, products in path order (output end first), noncommutative. First, every
edge label given beside its target's expression must be that expression's derivative
(:mod:`dgraph.core.labels`; mode ``labels`` when not): the formula is only as right as
its labels. Then one of two modes:

* **exact** (total path count N <= ``EXACT_PATH_LIMIT``, and the words written on the way
  to every vertex at most ``EXACT_WORD_LIMIT`` symbols long together): expand every Jacobian entry,
  references substituted, into noncommutative words (sequences of edge symbols) with
  integer coefficients, and compare with the multiset of path words: every path exactly
  once, nothing else.
* **random-point** (above that size), sound with a stated bound, in three steps:

  1. *Word shapes, exactly.* Every reference and entry is folded, without expanding,
     into the (start, end) vertex pairs of its syntactic words (the words of its
     expansion before anything cancels). A word whose factors do not join up, or a word
     of entry (y, x) that does not run from x to y, fails. Every word of an entry is then
     a path x -> y (a walk in a DAG is a path), so the entry is ``sum_p c_p * p`` over
     paths p with integer ``c_p``; Bauer's formula has every ``c_p = 1``.
  2. *Commuting scalars suffice.* In a DAG a path is determined by its set of edges and
     uses no edge twice, so replacing edge symbols by commuting scalars maps distinct
     path words to distinct square-free monomials: the entry equals Bauer's formula iff
     the integer polynomial ``sum_p (c_p - 1) prod_{e in p} r_e`` is zero. So 1x1
     matrices suffice once step 1 has passed. Evaluating arbitrary words instead needs
     matrices larger than half the degree: every polynomial identity of k x k matrices
     vanishes there, the standard polynomial S_2k among them (Amitsur and Levitzki 1950),
     so 4x4 matrices accept a wrong entry plus S_8. Here no identity of any degree can
     hide an error: a nonzero polynomial whose words are all paths is nonzero on
     scalars, so it is no identity; every identity has a word that is not a path, and
     step 1 refuses it exactly.
  3. *Coefficients and a random point.* B, a fold in exact integers (a leaf is 1, a
     number n is |n|; a sum's terms add only where they can share a word, of one shape
     and begun and ended by the same edges, else the larger is taken; a product
     multiplies, once per way a word splits: :func:`shapes_and_bound`), bounds every
     coefficient of the expansion, so ``|c_p - 1| <= B + 1``. Distinct
     primes p_1..p_k below 2^31 whose product exceeds 2(B + 1) leave a nonzero
     ``c_p - 1`` nonzero modulo some p_i. Each edge symbol gets an independent uniform
     residue mod every p_i; entries are folded, Bauer's formula is a sweep in evaluation
     order. A nonzero polynomial of degree at most
     D (the longest path, in edges) over F_p vanishes at a uniform random point with
     probability at most D / p (Schwartz 1980, Zippel 1979); with T independent points a
     wrong set passes with probability at most ``(D / p_min)^T <= 2^-FAILURE_BITS``,
     the bound the detail states. The points come from ``seed``: same input, same answer.

  Step 1 reads terms as written: ``2*w - w`` for a path word w passes (the arithmetic
  sees coefficient 1), but ``+ q - q`` for a word q that is not a path is refused, where
  the exact mode, which expands first, accepts it.

Expansion is done here on tuples rather than with ``sympy.expand``: it is exact, keeps
the coefficient of every word, and is orders of magnitude faster for noncommutative sums.

References: F. L. Bauer, Computational graphs and rounding error, SIAM J. Numer. Anal.
11 (1974); J. T. Schwartz, Fast probabilistic algorithms for verification of polynomial
identities, J. ACM 27 (1980); R. Zippel, Probabilistic algorithms for sparse polynomials,
EUROSAM 1979; S. A. Amitsur and J. Levitzki, Minimal identities for algebras, Proc. AMS 1
(1950).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, TypeVar

import networkx as nx
import numpy as np
import sympy

from ..errors import GraphError, VerificationError
from .algebra import fold
from .exprtable import ADD, LEAF, MUL, ExpressionTable, Unreadable, expression_table
from .labels import check_labels
from .paths import path_counts, path_sums, prefix_length
from .value_check import STATUSES, check_expression_set

if TYPE_CHECKING:
    from .expression_data import ExpressionData
    from .graph import DGraph

__all__ = [
    "BOUND_CAP",
    "EXACT_PATH_LIMIT",
    "EXACT_WORD_LIMIT",
    "FAILURE_BITS",
    "MODES",
    "PRIME_BITS",
    "STATUSES",
    "Uncheckable",
    "Verification",
    "check_well_formed",
    "failure_bound",
    "path_words",
    "primes_for",
    "shapes_and_bound",
    "trials_for",
    "verify",
]

EXACT_PATH_LIMIT = 20_000
EXACT_WORD_LIMIT = 2_000_000  # symbols: a chain of n steps writes n²/2
MODES = ("auto", "exact", "random-point")
PRIME_BITS = 31  # residues below 2**31: a product of two fits in int64
FAILURE_BITS = 60  # random-point: a wrong set passes with probability <= 2**-60
BOUND_CAP = 2**4096  # coefficient bounds saturate here: larger ones are refused
FIRSTS_MOST = 64  # the first (last) edges kept per node; past it, one bound for all

Word = tuple[sympy.Symbol, ...]
Shape = tuple[str, str] | None  # (start, end) vertices of a word; None: the empty word


@dataclass(frozen=True)
class Verification:
    """The outcome of a check, true only when verified.

    Parameters
    ----------
    ok
        Whether the check passed.
    mode
        Which check ran (symbolic, values at points, ...).
    detail
        One line: what was compared, where, and the failure probability or the error.
    status
        ``"verified"`` (``ok``), ``"wrong"`` (a check failed) or ``"not verified"``
        (what had to be checked could not be: a tensor graph's values finite at no
        point tried); by default from ``ok``. A status that contradicts ``ok`` raises
        ValueError.
    """

    ok: bool
    mode: str
    detail: str
    status: str = ""  # default: verified when ok, else wrong

    def __post_init__(self) -> None:
        status = self.status or ("verified" if self.ok else "wrong")
        if status not in STATUSES or (status == "verified") != bool(self.ok):
            raise ValueError(f"a verification {'ok' if self.ok else 'not ok'} is not {status!r}")
        object.__setattr__(self, "status", status)

    def __bool__(self) -> bool:
        return self.ok


class Uncheckable(VerificationError):
    """A set the check cannot decide (paths too long, coefficients too large): not
    verified, which is not the same as wrong."""


def check_well_formed(es: ExpressionData) -> None:
    """Every symbol is an edge label or an earlier reference (no cycle of references)."""
    graph = es.graph
    edges = set(graph.edge_symbols)
    known = set(edges)
    for name, definition in es.references.items():
        if name in known:
            raise VerificationError(f"reference {name} is defined twice or names an edge")
        unknown = definition.free_symbols - known
        if unknown:
            sym = sorted(unknown, key=str)[0]
            if sym in es.references:
                cycle = _reference_cycle(es)
                if cycle:
                    raise VerificationError(f"references form a cycle: {' -> '.join(cycle)}")
                raise VerificationError(f"reference {name} uses {sym} before it is defined")
            raise VerificationError(f"reference {name} uses the undefined symbol {sym}")
        known.add(name)
    for (y, x), entry in es.jacobian.items():
        unknown = entry.free_symbols - known
        if unknown:
            sym = sorted(map(str, unknown))[0]
            raise VerificationError(f"entry ({y}, {x}) uses the undefined symbol {sym}")


def _reference_cycle(es: ExpressionData) -> list[str] | None:
    uses = nx.DiGraph()
    for name, definition in es.references.items():
        uses.add_edges_from((name, s) for s in definition.free_symbols if s in es.references)
    try:
        cycle = nx.find_cycle(uses)
    except nx.NetworkXNoCycle:
        return None
    return [str(u) for u, _ in cycle] + [str(cycle[0][0])]


def expected_entries(es: ExpressionData) -> dict[tuple[str, str], int]:
    """The entries ``es`` must compute (all pairs joined by a path, or its selection) with
    their path counts; raises for a selected pair that no path joins."""
    counts = path_counts(es.graph)
    if es.pairs is None:
        return counts
    for y, x in es.pairs:
        if (y, x) not in counts:
            raise VerificationError(f"no path from {x} to {y}")
    return {key: counts[key] for key in es.pairs}


# -- exact: expansion into path words ----------------------------------------------------


def path_words(graph: DGraph) -> dict[tuple[str, str], Counter[Word]]:
    """Bauer's formula symbolically: for each (output, input), the words of all paths."""
    return _coded_path_words(graph, lambda sym: sym)


Letter = TypeVar("Letter")


def _coded_path_words(
    graph: DGraph, letter: Callable[[sympy.Symbol], Letter]
) -> dict[tuple[str, str], Counter[tuple[Letter, ...]]]:
    """:func:`path_words` with each edge symbol written as ``letter(symbol)``."""

    def extend(words: Counter, u: str, v: str) -> Counter:
        sym = letter(graph.symbol(u, v))  # matrix order: the new edge goes in front
        return Counter({(sym, *w): c for w, c in words.items()})

    return path_sums(graph, Counter({(): 1}), extend, _sum_words)


class _Alphabet(dict):
    """Symbols numbered as first met: words of these numbers hash and compare in C (a
    word of sympy symbols calls each symbol's ``__hash__`` in Python, at every lookup)."""

    def letter(self, sym: sympy.Symbol) -> int:
        code = self.get(sym)
        if code is None:
            code = self[sym] = len(self)
        return code

    def spelled(self, word: tuple[int, ...]) -> str:
        """The word as ``a*b*c`` in the symbols' names."""
        symbols = list(self)  # in the order of their numbers
        return "*".join(str(symbols[code]) for code in word)


_WORDS = "path_words"  # the coded words' entry in graph.derived (not pickled)


def _graph_words(graph: DGraph) -> tuple[_Alphabet, dict[tuple[str, str], Counter]]:
    """The graph's coded path words and their alphabet, built once per graph
    (``graph.derived``, cleared when the graph changes): every candidate method's set is
    checked against the same words. Read, never changed; an expression set's symbols
    that are no edge's are numbered after the edges'."""
    if _WORDS not in graph.derived:
        alphabet = _Alphabet()
        graph.derived[_WORDS] = (alphabet, _coded_path_words(graph, alphabet.letter))
    return graph.derived[_WORDS]  # type: ignore[return-value]


def _sum_words(terms: list[Counter[Word]]) -> Counter[Word]:
    total: Counter[Word] = Counter()
    for t in terms:
        total.update(t)
    return total


def _expand_all(
    es: ExpressionData, limit: int, alphabet: _Alphabet
) -> dict[tuple[str, str], Counter[tuple[int, ...]]]:
    """Every entry expanded into words (their edge symbols numbered by ``alphabet``);
    raises when an expansion outgrows ``limit`` words (a correct set never does: its words
    are distinct paths)."""
    memo: dict[sympy.Symbol, Counter] = {}

    def leaf(s: sympy.Symbol) -> Counter:
        return memo[s] if s in memo else Counter({(alphabet.letter(s),): 1})

    def add(terms: list[Counter[Word]]) -> Counter[Word]:
        return _bounded(_sum_words(terms))

    def mul(factors: list[Counter[Word]]) -> Counter[Word]:
        # runs of one-word factors are joined once, not word by word: a chain's product
        # of n symbols copied words of length 1..n (n² symbols at 5,000 steps)
        acc: Counter[Word] = Counter({(): 1})
        run: list[sympy.Symbol] = []
        scale = 1
        for f in factors:
            if len(f) == 1:
                ((word, count),) = f.items()
                run.extend(word)
                scale *= count
                continue
            acc = times(times(acc, Counter({tuple(run): scale})), f)
            run, scale = [], 1
        return times(acc, Counter({tuple(run): scale})) if run or scale != 1 else acc

    def times(acc: Counter[Word], f: Counter[Word]) -> Counter[Word]:
        nxt: Counter[Word] = Counter()
        for w1, c1 in acc.items():
            for w2, c2 in f.items():
                nxt[w1 + w2] += c1 * c2
        return _bounded(nxt)

    def number(n: sympy.Number) -> Counter[Word]:
        return Counter({(): _integer(n)})

    def _bounded(c: Counter[Word]) -> Counter[Word]:
        if len(c) > limit:
            raise _TooBig
        return c

    for name, definition in es.references.items():
        memo[name] = fold(definition, leaf, number, add, mul)
    return {key: fold(e, leaf, number, add, mul) for key, e in es.jacobian.items()}


class _TooBig(Exception):
    pass


def _integer(n: sympy.Number) -> int:
    if not n.is_Integer:
        raise VerificationError(f"non-integer coefficient {n} in an expression set")
    return int(n)


def _clean(c: Counter[Word]) -> Counter[Word]:
    return Counter({w: k for w, k in c.items() if k})


def _verify_exact(es: ExpressionData, limit: int) -> Verification:
    selected = expected_entries(es)
    alphabet, words = _graph_words(es.graph)
    expected = {key: w for key, w in words.items() if key in selected}
    try:
        got = _expand_all(es, limit, alphabet)
    except _TooBig:
        return Verification(False, "exact", f"an expansion has more than {limit} words")
    for key in expected:
        g = _clean(got.get(key, Counter()))
        if g != expected[key]:
            missing = expected[key] - g
            extra = g - expected[key]
            what = (
                f"misses the path {alphabet.spelled(next(iter(missing)))}"
                if missing
                else f"has the extra term {alphabet.spelled(next(iter(extra)))}"
            )
            return Verification(False, "exact", f"entry ({key[0]}, {key[1]}) {what}")
    n = sum(map(len, expected.values()))
    return Verification(True, "exact", f"{n} path word{'s match' if n != 1 else ' matches'}")


# -- random-point, step 1: word shapes and the coefficient bound --------------------------

# A witness is a word kept unexpanded: an atom (edge symbol or number) or a pair of
# witnesses, left factor nearer the output; it is only spelled out in a failure message.
Witness = sympy.Basic | tuple


def _spell(witness: Witness) -> str:
    """A witness word as ``a*b*c``, long ones shortened."""
    atoms, stack = [], [witness]
    while stack:
        w = stack.pop()
        if isinstance(w, tuple):
            stack.extend(reversed(w))
        else:
            atoms.append(w)
    atoms = [a for a in atoms if a != 1] or [sympy.Integer(1)]
    if len(atoms) > 9:
        return "*".join(map(str, [*atoms[:4], "...", *atoms[-4:]])) + f" ({len(atoms)} factors)"
    return "*".join(map(str, atoms))


def _name(where: sympy.Symbol | tuple[str, str]) -> str:
    return f"entry ({where[0]}, {where[1]})" if isinstance(where, tuple) else f"reference {where}"


# A letter bound: (default, {letter: bound}): every coefficient of a word beginning (or
# ending) with the letter e is at most bounds.get(e, default).
Letters = tuple[int, dict]


def _top(m: Letters) -> int:
    """The largest bound a letter map gives: on every coefficient."""
    return max(m[0], *m[1].values()) if m[1] else m[0]


def _plus(maps: list[Letters]) -> Letters:
    """Letter maps of a sum, letter by letter (a word's coefficient is the sum of its
    coefficients in the terms); past :data:`FIRSTS_MOST` letters, the largest for all."""
    default = min(sum(m[0] for m in maps), BOUND_CAP)
    keys = set().union(*(m[1] for m in maps))
    bounds = {e: min(sum(m[1].get(e, m[0]) for m in maps), BOUND_CAP) for e in keys}
    if len(bounds) > FIRSTS_MOST:
        return max(default, *bounds.values()), {}
    return default, bounds


def _scaled(m: Letters, k: int) -> Letters:
    """Every bound of ``m`` times ``k``."""
    if k == 1:
        return m
    return min(m[0] * k, BOUND_CAP), {e: min(b * k, BOUND_CAP) for e, b in m[1].items()}


class _Part:
    """A node's words of one shape: a witness, and bounds on their coefficients by the
    letter they begin with and by the letter they end with (words written output end
    first); ``bound``, the smaller of the two maps' largest and ``most``, bounds every
    one."""

    __slots__ = ("bound", "first", "last", "witness")

    def __init__(self, witness: Witness, first: Letters, last: Letters, most: int) -> None:
        self.witness, self.first, self.last = witness, first, last
        self.bound = min(_top(first), _top(last), most)


Parts = dict[Shape, _Part]


def _letters_apart(a: Letters, b: Letters) -> bool:
    """Whether no word begins (ends) with a letter of both maps: both known, disjoint."""
    return a[0] == 0 == b[0] and a[1].keys().isdisjoint(b[1])


def _sum(parts: list[_Part]) -> _Part:
    """The parts of a sum's words of one shape, paired as the table pairs them
    (neighbours, order kept): a pair begun or ended by different letters shares no word
    and is bounded by the larger of its bounds, else by their sum; and letter by letter."""
    while len(parts) > 1:
        paired = []
        for a, b in zip(parts[::2], parts[1::2], strict=False):
            apart = _letters_apart(a.first, b.first) or _letters_apart(a.last, b.last)
            most = max(a.bound, b.bound) if apart else min(a.bound + b.bound, BOUND_CAP)
            first, last = _plus([a.first, b.first]), _plus([a.last, b.last])
            paired.append(_Part(a.witness, first, last, most))
        parts = paired + parts[len(parts) - len(parts) % 2 :]
    return parts[0]


def _total(parts: list[_Part]) -> _Part:
    """The splits of a product's words of one shape, each a bound on its share."""
    if len(parts) == 1:
        return parts[0]
    first, last = _plus([p.first for p in parts]), _plus([p.last for p in parts])
    return _Part(parts[0].witness, first, last, min(sum(p.bound for p in parts), BOUND_CAP))


def shapes_and_bound(es: ExpressionData) -> int:
    """Step 1: raise ``VerificationError`` naming a term that is not a path word of its
    entry (or whose factors do not join up); return B, a bound on every coefficient of
    every entry's expansion (on the largest, not on their sum), at most ``BOUND_CAP``.

    Each node is folded into its word shapes (:data:`Shape`), and for each shape into
    bounds on its words' coefficients by the letter (edge) a word begins with and by the
    letter it ends with, and one bound on all; each holds, the smallest is kept. A word
    has one shape, one first and one last letter:

    * a sum's coefficient of a word is the sum of its terms' coefficients of that word,
      so only its terms' parts of that shape, at its letters, add; and paired as the
      table pairs them, two parts begun (or ended) by different edges share no word, so
      the pair is bounded by the larger (hence this bound is at most the table's,
      :func:`table_shapes_and_bound`, on a set both read);
    * a product ``a*b``'s coefficient of w is the sum over splits ``w = u*v`` of
      ``c_a(u) * c_b(v)``. w is a path (its letters join up; a walk in a DAG is a path),
      so a pair of shapes (u's, v's) splits it in at most one way: at the vertex where
      v's shape ends and u's begins (a path passes it once), or with u or v empty. The
      bound of w's shape is the sum over the joining pairs of the parts' products, also
      by letters: w begins with u's first letter (v's when u is empty) and ends with v's
      last. Every pair of non-empty shapes must join (else a term is not a path), so a
      word splits in one way here (k places would count k products; the sum counts
      them).

    Numbers are the empty word with coefficient ``|n|``. A long chain's forward set,
    whose references add terms begun by different edges, has bound 1 where the sum of
    the coefficients is 3^n (past ``BOUND_CAP`` at 2,600 steps); its reverse set, whose
    terms end with different edges, too. tests/test_verify_soundness.py checks the bound
    against sympy's exact expansion of random sets."""
    entries = _shape_parts(es)[1].values()
    return max((part.bound for parts in entries for part in parts.values()), default=0)


def _shape_parts(
    es: ExpressionData,
) -> tuple[dict[sympy.Symbol, Parts], dict[tuple[str, str], Parts]]:
    """Every reference's and entry's :class:`_Part` per shape; raises naming a term that
    is not a path (of its entry)."""
    edges = es.graph.edge_symbols
    memo: dict[sympy.Symbol, Parts] = {}
    where: sympy.Symbol | tuple[str, str] = ()  # what is being folded, named on failure

    def leaf(s: sympy.Symbol) -> Parts:
        if s in memo:
            return memo[s]
        letter = (0, {s: 1})
        return {edges[s]: _Part(s, letter, letter, 1)}

    def number(n: sympy.Number) -> Parts:
        k = min(abs(_integer(n)), BOUND_CAP)
        return {None: _Part(n, (k, {}), (k, {}), k)} if k else {}

    def add(terms: list[Parts]) -> Parts:
        shapes: dict[Shape, list[_Part]] = {}
        for t in terms:
            for shape, part in t.items():
                shapes.setdefault(shape, []).append(part)
        return {shape: _sum(parts) for shape, parts in shapes.items()}

    def times(a: Parts, b: Parts) -> Parts:
        product: dict[Shape, list[_Part]] = {}
        for sa, pa in a.items():
            for sb, pb in b.items():
                if sa is None or sb is None:
                    shape = sb if sa is None else sa
                elif sa[0] == sb[1]:  # a word a*b is walked b first: b ends where a starts
                    shape = (sb[0], sa[1])
                else:
                    raise VerificationError(
                        f"{_name(where)} has a term {_spell((pa.witness, pb.witness))}"
                        " that is not a path"
                    )
                first = _scaled(pb.first, pa.bound) if sa is None else _scaled(pa.first, pb.bound)
                last = _scaled(pa.last, pb.bound) if sb is None else _scaled(pb.last, pa.bound)
                most = min(pa.bound * pb.bound, BOUND_CAP)
                product.setdefault(shape, []).append(
                    _Part((pa.witness, pb.witness), first, last, most)
                )
        return {shape: _total(parts) for shape, parts in product.items()}

    def mul(factors: list[Parts]) -> Parts:
        parts = factors[0]
        for f in factors[1:]:
            parts = times(parts, f)
        return parts

    for name, definition in es.references.items():
        where = name
        memo[name] = fold(definition, leaf, number, add, mul)
    entries: dict[tuple[str, str], Parts] = {}
    for (y, x), entry in es.jacobian.items():
        where = (y, x)
        entries[y, x] = parts = fold(entry, leaf, number, add, mul)
        for shape, part in parts.items():
            if shape != (x, y):
                raise VerificationError(
                    f"{_name(where)} has a term {_spell(part.witness)} that is not a path"
                    f" from {x} to {y}"
                )
    return memo, entries


# -- random-point, steps 2 and 3: primes, trials, evaluation -----------------------------


@cache
def _prime(i: int) -> int:
    """The (i+1)-th largest prime below ``2**PRIME_BITS``."""
    return int(sympy.prevprime(2**PRIME_BITS if i == 0 else _prime(i - 1)))


def primes_for(bound: int) -> list[int]:
    """The fewest largest primes below 2^31 whose product exceeds ``2 * (bound + 1)``: an
    integer of absolute value at most ``bound + 1`` that they all divide is zero.

    >>> primes_for(1)
    [2147483647]
    >>> len(primes_for(2**31)), len(primes_for(2**62))
    (2, 3)
    """
    primes: list[int] = []
    product = 1
    while product <= 2 * (bound + 1):
        primes.append(_prime(len(primes)))
        product *= primes[-1]
    return primes


def trials_for(depth: int, p: int) -> int:
    """The fewest T with ``(depth / p)^T <= 2^-FAILURE_BITS``, decided in integers.

    >>> trials_for(1, 2**31 - 1), trials_for(9, 2**31 - 1), trials_for(2**14, 2**31 - 1)
    (2, 3, 4)
    """
    if depth >= p:
        raise Uncheckable(f"paths of {depth} edges are too long to check at random points")
    t = 1
    while depth**t * 2**FAILURE_BITS > p**t:
        t += 1
    return t


def failure_bound(depth: int, p: int, trials: int) -> int:
    """The largest b with ``(depth / p)^trials <= 2^-b``: a wrong set passes with
    probability at most ``2^-b`` (Schwartz-Zippel, ``trials`` independent points).

    >>> failure_bound(9, 2**31 - 1, 3)
    83
    """
    b = 0
    while depth**trials * 2 ** (b + 1) <= p**trials:
        b += 1
    return b


def _bauer(
    graph: DGraph, label: dict[sympy.Symbol, np.ndarray], mod: np.ndarray
) -> dict[tuple[str, str], np.ndarray]:
    """Bauer's formula at the points: one sweep in evaluation order, every input at once
    (row i of a vertex's block holds d vertex / d input i)."""
    inputs = graph.inputs
    row = {x: i for i, x in enumerate(inputs)}
    uses = {v: graph.nx.out_degree(v) for v in graph.nx}
    block: dict[str, np.ndarray] = {}
    for v in graph.order():
        value = np.zeros((len(inputs), len(mod)), dtype=np.int64)
        if graph.role(v) == "input":
            value[row[v]] = 1
        for u in graph.nx.pred[v]:
            value = (value + label[graph.symbol(u, v)] * block[u]) % mod
            uses[u] -= 1
            if not uses[u]:
                del block[u]  # outputs have no successors and stay
        block[v] = value
    return {(y, x): block[y][row[x]] for y in graph.outputs for x in inputs}


def _firsts(a: frozenset[int] | None, b: frozenset[int] | None) -> frozenset[int] | None:
    """The first edges of a sum's words: both terms' (None: more than
    :data:`FIRSTS_MOST`, or unknown)."""
    if a is None or b is None or len(a) + len(b) > FIRSTS_MOST:
        return None
    return a | b


def _apart(a: frozenset[int] | None, b: frozenset[int] | None) -> bool:
    """Whether two terms' words begin (end) with no edge in common: known and disjoint."""
    return a is not None and b is not None and a.isdisjoint(b)


def table_shapes_and_bound(es: ExpressionData, table: ExpressionTable) -> int | None:
    """:func:`shapes_and_bound` over the table, in integers: every node one word shape
    ``(start, end)``, the empty word ``(-1, -1)`` or none (zero). None where a node has
    several shapes or a term is not a path: the general check then says which.

    The bound is on the largest coefficient, not the l1 norm: a path word of a product
    ``a*b`` splits at the one vertex where b's shape ends (a path passes it once), so
    its coefficient is at most ``B_a * B_b``; a sum whose terms begin with different
    edges, or end with different edges (their words are different words), has
    coefficients at most ``max(B_a, B_b)``, else ``B_a + B_b``. A chain of n steps whose
    references add two or three terms begun (forward) or ended (reverse) by different
    edges each step is 1, where the l1 norm is 3^n (a 3,000-step chain: 2^4755, past
    :data:`BOUND_CAP`). :func:`shapes_and_bound` keeps bounds by letter, so it is at
    most this bound on a set both read."""
    vertex = {v: i for i, v in enumerate(es.graph.order())}
    ends = [(vertex[u], vertex[v]) for u, v in table.edges]
    empty, zero = (-1, -1), None
    shape: list[tuple[int, int] | None] = []
    bound: list[int] = []
    firsts: list[frozenset[int] | None] = []  # the edges a node's words can begin with
    lasts: list[frozenset[int] | None] = []  # ... and end with
    for kind, x, y in zip(table.op, table.a, table.b, strict=True):
        if kind == LEAF:
            shape.append(ends[x])
            bound.append(1)
            firsts.append(frozenset((x,)))
            lasts.append(frozenset((x,)))
            continue
        if kind == MUL:
            sa, sb = shape[x], shape[y]  # the word a*b is walked b first
            if sa is zero or sb is zero:
                out = zero
            elif sa == empty or sb == empty:
                out = sb if sa == empty else sa
            elif sa[0] == sb[1]:
                out = (sb[0], sa[1])
            else:
                return None
            b = bound[x] * bound[y]
            first = firsts[y] if sa == empty else firsts[x]  # a*b is written a first
            last = lasts[x] if sb == empty else lasts[y]
        elif kind == ADD:
            sa, sb = shape[x], shape[y]
            if sa is not zero and sb is not zero and sa != sb:
                return None
            out = sb if sa is zero else sa
            first, last = _firsts(firsts[x], firsts[y]), _firsts(lasts[x], lasts[y])
            # words begun (or ended) by different edges are different: none is in both
            apart = out != empty and (_apart(firsts[x], firsts[y]) or _apart(lasts[x], lasts[y]))
            b = max(bound[x], bound[y]) if apart else bound[x] + bound[y]
        else:  # a number: the empty word, or zero (no word)
            k = table.numbers[x]
            out, b, first = (empty if k else zero), abs(k), frozenset()
            last = first
        shape.append(out)
        bound.append(min(b, BOUND_CAP))
        firsts.append(first)
        lasts.append(last)
    worst = 0
    for (y, x), n in ((k, n) for k, n in table.roots.items() if isinstance(k, tuple)):
        if shape[n] is not zero and shape[n] != (vertex[x], vertex[y]):
            return None
        worst = max(worst, bound[n])
    return worst


def _verify_random_point(
    es: ExpressionData,
    entries: Iterable[tuple[str, str]],
    seed: int,
    table: ExpressionTable | None = None,
) -> Verification:
    """Steps 1-3 (see the module), over ``table`` where the set has one: every check and
    the evaluation in integers and NumPy, a level of the expression DAG at a time."""
    graph = es.graph
    bound = None if table is None else table_shapes_and_bound(es, table)
    if bound is None:
        table, bound = None, shapes_and_bound(es)  # raises, naming the term, or reads it
    if bound >= BOUND_CAP:
        raise Uncheckable("coefficients of more than 4096 bits cannot be checked")
    primes = primes_for(bound)
    depth = max(nx.dag_longest_path_length(graph.nx), 1)
    trials = trials_for(depth, primes[-1])
    mod = np.tile(np.array(primes, dtype=np.int64), trials)  # one column per (point, prime)
    rng = np.random.default_rng(seed)
    symbols = [graph.symbol(u, v) for u, v in graph.edges()]
    draws = rng.integers(0, mod, size=(len(symbols), len(mod)), dtype=np.int64)
    values: dict[sympy.Symbol, np.ndarray] = dict(zip(symbols, draws, strict=True))
    expected = _bauer(graph, values, mod)

    def leaf(s: sympy.Symbol) -> np.ndarray:
        return values[s]

    def number(n: sympy.Number) -> np.ndarray:
        return np.array([int(n) % p for p in mod.tolist()], dtype=np.int64)

    def add(ts: list[np.ndarray]) -> np.ndarray:
        return np.sum(ts, axis=0) % mod

    def mul(fs: list[np.ndarray]) -> np.ndarray:
        acc = fs[0]
        for f in fs[1:]:
            acc = acc * f % mod
        return acc

    if table is not None:
        row = {edge: i for i, edge in enumerate(graph.edges())}
        at = table.evaluate(draws[[row[edge] for edge in table.edges]], mod)
        computed = {key: at[table.roots[key]] for key in entries}
    else:
        for name, definition in es.references.items():
            values[name] = fold(definition, leaf, number, add, mul)
        computed = {key: fold(es.jacobian[key], leaf, number, add, mul) for key in entries}
    for y, x in entries:
        if not np.array_equal(computed[y, x], expected[y, x]):
            return Verification(
                False, "random-point", f"entry ({y}, {x}) differs from Bauer's formula"
            )
    b = failure_bound(depth, primes[-1], trials)
    return Verification(
        True,
        "random-point",
        f"{trials} random points mod {len(primes)} prime{'s' if len(primes) > 1 else ''}"
        f" > 2^30, every term a path word; P(wrong set passes) <= ({depth}/{primes[-1]})"
        f"^{trials} <= 2^-{b}",
    )


def verify(
    es: ExpressionData,
    mode: str = "auto",
    seed: int = 0,
    *,
    exact_path_limit: int = EXACT_PATH_LIMIT,
) -> Verification:
    """Check ``es`` against Bauer's formula: every Jacobian entry is the sum over its
    paths of the products of their labels.

    Parameters
    ----------
    es
        The expression set (or its data) to check, on its graph.
    mode
        ``"exact"`` (symbolic, path by path), ``"random-point"`` (the entries' values at
        random points against the paths' sums there) or ``"auto"``: exact on a graph of at
        most ``exact_path_limit`` paths (and short enough words), random-point above.
    seed
        Picks the random points: the same input gives the same outcome.
    exact_path_limit
        The most paths ``"auto"`` checks exactly.

    Returns
    -------
    Verification
        Whether ``es`` holds, in which mode, and why not; ``"not verified"`` where the
        check could not decide (never a pass).

    Raises
    ------
    VerificationError
        For an unknown ``mode``.
    """
    if mode not in MODES:
        raise VerificationError(f"unknown verification mode {mode!r}; use {', '.join(MODES)}")
    try:
        check_labels(es.graph)
    except GraphError as exc:  # the labels are not the derivatives the values imply
        return Verification(False, "labels", str(exc))
    try:
        table: ExpressionTable | None = expression_table(es)  # only well-formed sets have one
    except Unreadable:
        table = None
    try:
        if table is None:
            check_well_formed(es)
        expected = expected_entries(es)
    except VerificationError as exc:
        return Verification(False, "structure", str(exc))
    present = set(es.jacobian)
    for key in expected:
        if key not in present:
            return Verification(False, "structure", f"entry ({key[0]}, {key[1]}) is missing")
    for key in present - expected.keys():
        return Verification(False, "structure", f"entry ({key[0]}, {key[1]}) has no path")
    n = sum(expected.values())
    if mode == "auto":
        small = n <= exact_path_limit and prefix_length(es.graph) <= EXACT_WORD_LIMIT
        mode = "exact" if small else "random-point"
    try:
        if mode == "exact":
            check = _verify_exact(es, max(n, 1))
        else:
            check = _verify_random_point(es, expected, seed, table)
    except Uncheckable as exc:  # beyond what the check can decide: not verified, not wrong
        return Verification(False, mode, str(exc), "not verified")
    except VerificationError as exc:
        return Verification(False, mode, str(exc))
    if check and es.graph.is_tensor:
        return _verify_block_values(es, check, seed)
    return check


def _verify_block_values(es: ExpressionData, check: Verification, seed: int) -> Verification:
    """On a tensor graph the identity above holds for any blocks; that the blocks are
    the program's derivatives is checked numerically (:mod:`dgraph.core.value_check`:
    ``J·v`` at the user's point, then a random one, against JAX's ``jvp`` or differences):
    wrong where they disagree, not verified where no point could be checked."""
    values = check_expression_set(es, seed)
    if values.status == "wrong":
        return Verification(False, "values", values.detail)
    if values.status == "not verified":
        return Verification(False, check.mode, f"{check.detail}; {values.detail}", "not verified")
    return Verification(True, check.mode, f"{check.detail}; {values.detail}")
