"""Every bracketing and mode choice of a short chain, to check the dynamic program.

A solution for F'_{j,i} is a leaf (j = i: Ḟ_i·I or I·F̄_i) or, for some split i <= k < j,
a dense product of solutions for F'_{j,k+1} and F'_{k,i}, a tangent run Ḟ_j ⋯ Ḟ_{k+1}
over a solution for F'_{k,i}, or an adjoint run F̄_k ⋯ F̄_i under a solution for
F'_{j,k+1} (Naumann, matrix-free chaining, §3: a chain of two has 8). Costs are
counted from the shapes of the matrices each operation sees, not from the recurrence;
the tape follows ``accounting``:
``"sweeps"`` (the recurrence's: each adjoint run records its own DAGs, runs one after
another) or ``"cumulative"`` (the reference implementation's: a run adds to its adjoint
seed's tape; see :mod:`dgraph.chain.reference`).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Literal

from ..errors import InputError, SearchTooLarge
from .notation import Node
from .problem import ChainProblem

__all__ = ["MAX_FACTORS", "brute_force", "count_solutions", "evaluate", "solutions"]

MAX_FACTORS = 7
Accounting = Literal["sweeps", "cumulative"]


@cache
def count_solutions(length: int) -> int:
    """How many solutions a chain of ``length`` factors has (no tape bound): 2, 8, 52, …"""
    if length == 1:
        return 2
    total = 0
    for upper in range(1, length):
        a, b = count_solutions(upper), count_solutions(length - upper)
        total += a * b + a + b
    return total


def _check(problem: ChainProblem, accounting: str) -> None:
    if accounting not in ("sweeps", "cumulative"):
        raise InputError(f"unknown tape accounting {accounting!r}; use sweeps or cumulative")
    if problem.q > MAX_FACTORS:
        raise SearchTooLarge(
            f"brute force over q = {problem.q} factors would list "
            f"{count_solutions(problem.q)} solutions; limit q <= {MAX_FACTORS}"
        )


def _edges(problem: ChainProblem, top: int, bottom: int) -> int:
    return sum(problem.edges[bottom - 1 : top])


def _build(op, j, i, k, children, problem, accounting) -> tuple[Node, int]:
    """A node with its cost and tape from the shapes it works on; also the tape to test
    against the bound (the recorded sweep, or the cumulative tape)."""
    if k is None:  # preaccumulate factor i from an identity seed
        rows, cols = problem.m[i - 1], problem.n[i - 1]
        size = problem.edges[i - 1]
        if op == "tangent":
            return Node(op, j, i, None, cols * size, 0), 0
        return Node(op, j, i, None, rows * size, size), size
    if op == "product":
        upper, lower = children
        a, b = problem.m[upper.j - 1], problem.n[upper.i - 1]
        b2, c = problem.m[lower.j - 1], problem.n[lower.i - 1]
        assert b == b2
        tape = max(upper.tape, lower.tape)
        return Node(op, j, i, k, upper.fma + lower.fma + a * b * c, tape, children), tape
    (seed,) = children
    rows, cols = problem.m[seed.j - 1], problem.n[seed.i - 1]  # the seed's shape
    if op == "tangent":  # Ḟ_j ⋯ Ḟ_{k+1} applied to a (n_{k+1} x cols) seed
        assert rows == problem.n[k]
        fma = seed.fma + cols * _edges(problem, j, k + 1)
        return Node(op, j, i, k, fma, seed.tape, children), 0
    assert cols == problem.m[k - 1]  # (rows x m_k) seed pushed back through F̄_k ⋯ F̄_i
    sweep = _edges(problem, k, i)
    tape = seed.tape + sweep if accounting == "cumulative" else max(seed.tape, sweep)
    checked = tape if accounting == "cumulative" else sweep
    return Node(op, j, i, k, seed.fma + rows * sweep, tape, children), checked


def solutions(
    problem: ChainProblem, memory: int | None = None, accounting: Accounting = "sweeps"
) -> Iterator[Node]:
    """Every feasible solution for the whole chain F'_{q,1} (tape within ``memory``).

    >>> from .problem import ChainProblem
    >>> p = ChainProblem.from_factors([(4, 2, 100), (8, 4, 100)])
    >>> sorted(s.fma for s in solutions(p))
    [400, 600, 664, 864, 1064, 1200, 1264, 1600]
    """
    _check(problem, accounting)
    limit = float("inf") if memory is None else memory

    @cache
    def table(j: int, i: int) -> tuple[Node, ...]:
        found: list[Node] = []

        def keep(op, k, children) -> None:
            node, checked = _build(op, j, i, k, children, problem, accounting)
            if op != "adjoint" or checked <= limit:
                found.append(node)

        if i == j:
            keep("tangent", None, ())
            keep("adjoint", None, ())
            return tuple(found)
        for k in range(i, j):
            for upper in table(j, k + 1):
                for lower in table(k, i):
                    keep("product", k, (upper, lower))
                keep("adjoint", k, (upper,))
            for lower in table(k, i):
                keep("tangent", k, (lower,))
        return tuple(found)

    yield from table(problem.q, 1)


def brute_force(
    problem: ChainProblem, memory: int | None = None, accounting: Accounting = "sweeps"
) -> Node:
    """The cheapest solution by enumeration, least tape among equals.

    >>> from .problem import bundled_problem
    >>> best = brute_force(bundled_problem("example_s5.txt"))
    >>> best.fma, best.tape
    (56, 29)
    """
    return min(solutions(problem, memory, accounting), key=lambda s: (s.fma, s.tape))


def evaluate(node: Node, problem: ChainProblem, accounting: Accounting = "sweeps") -> Node:
    """``node`` with cost and tape recounted from the shapes (checks any solution tree)."""
    children = tuple(evaluate(c, problem, accounting) for c in node.children)
    return _build(node.op, node.j, node.i, node.split, children, problem, accounting)[0]
