"""Check an expression set against Bauer's formula.

Bauer: ``dy/dx = sum over paths x -> y of the product of the edge labels along the path``,
products in path order (output end first), noncommutative. Two checks:

* **exact** (total path count N <= ``EXACT_PATH_LIMIT``): expand every Jacobian entry,
  references substituted, into noncommutative words (sequences of edge symbols) with
  integer coefficients, and compare with the multiset of path words: every path exactly
  once, nothing else.
* **random-matrix** (above that size): give every edge label a random
  ``MATRIX_SIZE x MATRIX_SIZE`` integer matrix, evaluate both sides modulo the prime
  ``PRIME``, and compare exactly; ``TRIALS`` independent draws. Noncommutativity is
  tested because the labels are matrices; a wrong set passes a trial with probability at
  most (longest path length) / PRIME per entry (Schwartz-Zippel).

Expansion is done here on tuples rather than with ``sympy.expand``: it is exact, keeps
the coefficient of every word, and is orders of magnitude faster for noncommutative sums.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import sympy

from ..errors import VerificationError
from .algebra import fold
from .paths import path_counts, path_sums

if TYPE_CHECKING:
    from .expressions import ExpressionSet
    from .graph import DGraph

__all__ = [
    "EXACT_PATH_LIMIT",
    "MATRIX_SIZE",
    "PRIME",
    "TRIALS",
    "Verification",
    "check_well_formed",
    "path_words",
    "verify",
]

EXACT_PATH_LIMIT = 20_000
MATRIX_SIZE = 4
PRIME = 1_073_741_789  # the largest prime below 2**30: products of 4 terms fit in int64
TRIALS = 2

Word = tuple[sympy.Symbol, ...]


@dataclass(frozen=True)
class Verification:
    """The outcome of a check: ``ok``, which ``mode`` ran, and a one-line ``detail``."""

    ok: bool
    mode: str
    detail: str

    def __bool__(self) -> bool:
        return self.ok


def check_well_formed(es: ExpressionSet) -> None:
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


def _reference_cycle(es: ExpressionSet) -> list[str] | None:
    import networkx as nx

    uses = nx.DiGraph()
    for name, definition in es.references.items():
        uses.add_edges_from((name, s) for s in definition.free_symbols if s in es.references)
    try:
        cycle = nx.find_cycle(uses)
    except nx.NetworkXNoCycle:
        return None
    return [str(u) for u, _ in cycle] + [str(cycle[0][0])]


def expected_entries(es: ExpressionSet) -> dict[tuple[str, str], int]:
    """The entries ``es`` must compute (all pairs joined by a path, or its selection) with
    their path counts; raises for a selected pair that no path joins."""
    counts = path_counts(es.graph)
    if es.pairs is None:
        return counts
    for y, x in es.pairs:
        if (y, x) not in counts:
            raise VerificationError(f"no path from {x} to {y}")
    return {key: counts[key] for key in es.pairs}


def path_words(graph: DGraph) -> dict[tuple[str, str], Counter[Word]]:
    """Bauer's formula symbolically: for each (output, input), the words of all paths."""

    def extend(words: Counter[Word], u: str, v: str) -> Counter[Word]:
        sym = graph.symbol(u, v)  # matrix order: the new edge goes in front
        return Counter({(sym, *w): c for w, c in words.items()})

    return path_sums(graph, Counter({(): 1}), extend, _sum_words)


def _sum_words(terms: list[Counter[Word]]) -> Counter[Word]:
    total: Counter[Word] = Counter()
    for t in terms:
        total.update(t)
    return total


def _expand_all(es: ExpressionSet, limit: int) -> dict[tuple[str, str], Counter[Word]]:
    """Every entry expanded into words; raises when an expansion outgrows ``limit`` words
    (a correct set never does: its words are distinct paths)."""
    memo: dict[sympy.Symbol, Counter[Word]] = {}

    def leaf(s: sympy.Symbol) -> Counter[Word]:
        return memo[s] if s in memo else Counter({(s,): 1})

    def add(terms: list[Counter[Word]]) -> Counter[Word]:
        return _bounded(_sum_words(terms))

    def mul(factors: list[Counter[Word]]) -> Counter[Word]:
        acc: Counter[Word] = Counter({(): 1})
        for f in factors:
            nxt: Counter[Word] = Counter()
            for w1, c1 in acc.items():
                for w2, c2 in f.items():
                    nxt[w1 + w2] += c1 * c2
            acc = _bounded(nxt)
        return acc

    def number(n: sympy.Number) -> Counter[Word]:
        if not n.is_Integer:
            raise VerificationError(f"non-integer coefficient {n} in an expression set")
        return Counter({(): int(n)})

    def _bounded(c: Counter[Word]) -> Counter[Word]:
        if len(c) > limit:
            raise _TooBig
        return c

    for name, definition in es.references.items():
        memo[name] = fold(definition, leaf, number, add, mul)
    return {key: fold(e, leaf, number, add, mul) for key, e in es.jacobian.items()}


class _TooBig(Exception):
    pass


def _clean(c: Counter[Word]) -> Counter[Word]:
    return Counter({w: k for w, k in c.items() if k})


def _verify_exact(es: ExpressionSet, limit: int) -> Verification:
    selected = expected_entries(es)
    expected = {key: words for key, words in path_words(es.graph).items() if key in selected}
    try:
        got = _expand_all(es, limit)
    except _TooBig:
        return Verification(False, "exact", f"an expansion has more than {limit} words")
    for key in expected:
        g = _clean(got.get(key, Counter()))
        if g != expected[key]:
            missing = expected[key] - g
            extra = g - expected[key]
            what = (
                f"misses the path {'*'.join(map(str, next(iter(missing))))}"
                if missing
                else f"has the extra term {'*'.join(map(str, next(iter(extra))))}"
            )
            return Verification(False, "exact", f"entry ({key[0]}, {key[1]}) {what}")
    n = sum(map(len, expected.values()))
    return Verification(True, "exact", f"{n} path word{'s match' if n != 1 else ' matches'}")


def _random_matrices(es: ExpressionSet, rng: np.random.Generator) -> str | None:
    """One trial: the first mismatching entry, or None."""
    graph, k, p = es.graph, MATRIX_SIZE, PRIME
    label = {s: rng.integers(0, p, size=(k, k), dtype=np.int64) for s in graph.edge_symbols}
    identity = np.eye(k, dtype=np.int64)
    inputs = graph.inputs
    column = {x: i for i, x in enumerate(inputs)}
    # Bauer by dynamic programming: block row of vertex v holds d v / d x for every input x.
    block: dict[str, np.ndarray] = {}
    for v in graph.order():
        if graph.role(v) == "input":
            row = np.zeros((k, k * len(inputs)), dtype=np.int64)
            row[:, k * column[v] : k * column[v] + k] = identity
        else:
            row = np.zeros((k, k * len(inputs)), dtype=np.int64)
            for u in graph.nx.pred[v]:
                row = (row + label[graph.symbol(u, v)] @ block[u]) % p
        block[v] = row

    values = dict(label)

    def mul(fs: list[np.ndarray]) -> np.ndarray:
        acc = fs[0]
        for f in fs[1:]:
            acc = (acc @ f) % p
        return acc

    def leaf(s: sympy.Symbol) -> np.ndarray:
        return values[s]

    def number(n: sympy.Number) -> np.ndarray:
        return (identity * (int(n) % p)) % p

    def add(ts: list[np.ndarray]) -> np.ndarray:
        return sum(ts[1:], ts[0]) % p

    for name, definition in es.references.items():
        values[name] = fold(definition, leaf, number, add, mul)
    for y, x in expected_entries(es):
        expected = block[y][:, k * column[x] : k * column[x] + k]
        if not np.array_equal(fold(es.jacobian[y, x], leaf, number, add, mul), expected):
            return f"entry ({y}, {x}) differs from Bauer's formula"
    return None


def verify(es: ExpressionSet, mode: str = "auto", seed: int = 0) -> Verification:
    """Check ``es`` against Bauer's formula; ``mode`` is auto, exact or random-matrix."""
    try:
        check_well_formed(es)
    except VerificationError as exc:
        return Verification(False, "structure", str(exc))
    try:
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
        mode = "exact" if n <= EXACT_PATH_LIMIT else "random-matrix"
    try:
        if mode == "exact":
            return _verify_exact(es, max(n, 1))
        if mode != "random-matrix":
            raise ValueError(f"unknown verification mode {mode!r}")
        rng = np.random.default_rng(seed)
        for _ in range(TRIALS):
            failure = _random_matrices(es, rng)
            if failure:
                return Verification(False, "random-matrix", failure)
    except VerificationError as exc:
        return Verification(False, mode, str(exc))
    return Verification(
        True,
        "random-matrix",
        f"{TRIALS} trials with {MATRIX_SIZE}x{MATRIX_SIZE} integer matrices mod {PRIME}",
    )
