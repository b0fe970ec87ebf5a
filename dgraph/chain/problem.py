"""Jacobian chain problems (Naumann, *Matrix-Free Jacobian Chaining*, §2, §5).

F = F_q ∘ … ∘ F_1, factor i maps R^{n_i} to R^{m_i} (so n_{i+1} = m_i) and its DAG G_i
has |E_i| edges. The ADMission text format of the reference implementation is the number
of factors q on the first line, then one line ``m n |E|`` per factor, factor 1 (applied
first) first.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np

from ..core.files import read_text
from ..errors import InputError

__all__ = [
    "ChainProblem",
    "bundled_problem",
    "parse_problem",
    "random_problem",
    "read_problem",
]


@dataclass(frozen=True)
class ChainProblem:
    """Shapes and edge counts of a chain: factor i (1-based) is ``m[i-1] x n[i-1]`` with
    ``edges[i-1]`` DAG edges.

    >>> p = ChainProblem.from_factors([(3, 3, 29), (1, 3, 14), (2, 1, 7)])
    >>> p.q, p.total_edges
    (3, 50)
    """

    m: tuple[int, ...]
    n: tuple[int, ...]
    edges: tuple[int, ...]
    name: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        q = len(self.m)
        if q == 0:
            raise InputError("the chain is empty (q = 0)")
        if len(self.n) != q or len(self.edges) != q:
            raise InputError("m, n and edges need one entry per factor")
        for i in range(q):
            problem = _factor_fault(i + 1, self.m[i], self.n[i], self.edges[i])
            if problem:
                raise InputError(problem)
            if i and self.n[i] != self.m[i - 1]:
                raise InputError(_mismatch(i + 1, self.n[i], self.m[i - 1]))

    @classmethod
    def from_factors(cls, factors: Iterable[Sequence[int]], name: str = "") -> ChainProblem:
        """From ``(m, n, |E|)`` triples, factor 1 first (the ADMission line order)."""
        rows = [tuple(int(x) for x in f) for f in factors]
        return cls(
            tuple(r[0] for r in rows), tuple(r[1] for r in rows), tuple(r[2] for r in rows), name
        )

    @property
    def q(self) -> int:
        return len(self.m)

    @property
    def factors(self) -> list[tuple[int, int, int]]:
        """``(m, n, |E|)`` per factor, factor 1 first."""
        return list(zip(self.m, self.n, self.edges, strict=True))

    @property
    def total_edges(self) -> int:
        return sum(self.edges)

    def to_text(self) -> str:
        """The ADMission text format."""
        return "\n".join([str(self.q), *(f"{m} {n} {e}" for m, n, e in self.factors)]) + "\n"


def _factor_fault(i: int, m: int, n: int, e: int) -> str | None:
    if m < 1 or n < 1:
        return f"factor {i}: sizes m = {m}, n = {n} must be positive"
    if e < 0:
        return f"factor {i}: the edge count |E| = {e} must not be negative"
    return None


def _mismatch(i: int, n: int, m_before: int) -> str:
    return (
        f"factor {i} takes n = {n} inputs but factor {i - 1} gives m = {m_before} outputs;"
        " neighbouring shapes must match"
    )


def content_lines(text: str) -> list[tuple[int, str]]:
    """The lines that say something, numbered from 1: ``#`` comments and blank lines
    dropped (the chain formats' shared reading)."""
    return [
        (number, line.split("#", 1)[0])
        for number, line in enumerate(text.splitlines(), start=1)
        if line.split("#", 1)[0].strip()
    ]


def integers(text: str, what: str, count: int | None = None, digits: int = 18) -> list[int]:
    """The integers of a line (``count`` of them where given), each below ``10^digits``,
    or an :class:`InputError` quoting (a short part of) the line.

    >>> integers("3 4", "'m n'", 2)
    [3, 4]
    """
    fields = text.split()
    quoted = repr(text.strip()) if len(text.strip()) <= 60 else repr(text.strip()[:60] + "...")
    if count is not None and len(fields) != count:
        raise InputError(f"expected {what}, got {quoted}")
    try:
        numbers = [int(f) for f in fields]
    except ValueError:
        raise InputError(f"expected {what} as integers, got {quoted}") from None
    if any(abs(x) >= 10**digits for x in numbers):
        raise InputError(f"expected {what} as integers below 10^{digits}, got {quoted}")
    return numbers


def parse_problem(text: str, source: str = "<problem>") -> ChainProblem:
    """Read the ADMission text format; errors name ``source`` and the line at fault.

    Blank lines and ``#`` comments are skipped.

    >>> parse_problem("3\\n3 3 29\\n1 3 14\\n2 1 7\\n").factors
    [(3, 3, 29), (1, 3, 14), (2, 1, 7)]
    """
    lines = content_lines(text)
    if not lines:
        raise InputError(f"{source}: line 1: empty file; expected the number of factors q")
    number, line = lines[0]
    try:
        (q,) = integers(line, "the number of factors q", 1)
    except InputError as exc:
        raise InputError(f"{source}: line {number}: {exc}") from None
    if q < 1:
        raise InputError(f"{source}: line {number}: the chain is empty (q = {q})")
    factors: list[list[int]] = []
    for k, (number, line) in enumerate(lines[1:], start=1):
        if k > q:
            raise InputError(f"{source}: line {number}: more than q = {q} factors")
        try:
            m, n, e = integers(line, "'m n |E|'", 3)
        except InputError as exc:
            raise InputError(f"{source}: line {number}: {exc}") from None
        fault = _factor_fault(k, m, n, e)
        if fault is None and factors and n != factors[-1][0]:
            fault = _mismatch(k, n, factors[-1][0])
        if fault:
            raise InputError(f"{source}: line {number}: {fault}")
        factors.append([m, n, e])
    if len(factors) < q:
        last = lines[-1][0]
        raise InputError(f"{source}: line {last}: q = {q} factors announced, {len(factors)} given")
    return ChainProblem.from_factors(factors, name=Path(source).stem)


def read_problem(path: str | Path) -> ChainProblem:
    """Read a problem file (ADMission text format)."""
    return parse_problem(read_text(path), str(path))


def bundled_problem(name: str) -> ChainProblem:
    """A problem from the paper shipped in ``dgraph/chain/data``, e.g. ``example_s5.txt``.

    >>> bundled_problem("case_study_s6.txt").q
    6
    """
    try:
        text = resources.files("dgraph.chain.data").joinpath(name).read_text()
    except (FileNotFoundError, IsADirectoryError):
        raise InputError(f"{name}: no such bundled chain problem") from None
    return parse_problem(text, name)


def random_problem(
    q: int,
    max_size: int,
    seed: int | None = None,
    edges: tuple[int, int] | None = None,
) -> ChainProblem:
    """A random chain like the reference generator's: sizes uniform in [1, max_size], and
    ``|E_i|`` uniform in [n_i + m_i, (n_i + m_i)²] (within [2, 4·max_size²]), or in ``edges``.

    >>> p = random_problem(5, 4, seed=1)
    >>> p.q, all(1 <= s <= 4 for s in p.m + p.n)
    (5, True)
    """
    if q < 1 or not 1 <= max_size < 2**62:
        raise InputError(f"random chain: need q >= 1 and 1 <= max size < 2^62, got {q}, {max_size}")
    if seed is not None and seed < 0:
        raise InputError(f"random chain: the seed must be >= 0, got {seed}")
    if edges is not None and not 0 <= edges[0] <= edges[1]:
        raise InputError(f"random chain: bad edge range {edges}")
    rng = np.random.default_rng(seed)
    sizes = [int(s) for s in rng.integers(1, max_size, size=q + 1, endpoint=True)]
    factors = []
    for i in range(q):
        n, m = sizes[i], sizes[i + 1]
        low, high = edges if edges is not None else (n + m, (n + m) ** 2)
        factors.append((m, n, int(rng.integers(low, high, endpoint=True))))
    return ChainProblem.from_factors(factors, name=f"random-{q}-{max_size}")
