"""The straight-line program dgraph generates code from: named arguments, assignments in
evaluation order and results, with the names of program variables (the IR the passes of
:mod:`dgraph.codegen.passes` transform and the printers print)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from itertools import count
from typing import Any, Literal

import sympy

from ..errors import DGraphError
from .counting import Ops, count_ops

__all__ = [
    "STATEMENT_HEIGHT",
    "Assignment",
    "Program",
    "Result",
    "Strategy",
    "bottom_up",
    "fresh",
    "height",
    "in_order",
    "label_symbol",
    "live_ranges",
    "sorted_symbols",
    "value_symbol",
]

Assignment = tuple[sympy.Symbol, sympy.Expr]

# The most levels of nesting a pass may give one statement by substituting a value into
# its use: sympy's printers, ``cse``, ``xreplace`` and ``free_symbols`` recurse on an
# expression's depth (a few Python frames per level), and its evaluation of a function
# walks the argument (``sin(sin(...))`` built step by step is quadratic in its depth); a
# time-stepping loop of thousands of steps, inlined whole, would nest that deep
# (RecursionError). The programs of real functions nest far less (after every pass: the
# Roe flux 4, the 3-link pendulum 5).
STATEMENT_HEIGHT = 16
Result = tuple[tuple[int, ...], sympy.Expr]
Strategy = Literal["auto", "jacobian", "sweep"]


@dataclass(frozen=True)
class Program:
    """A straight-line program: named arguments (each a vector of scalar symbols),
    assignments in evaluation order, and results ``index -> value`` of an array of shape
    ``shape`` per point (entries not listed are zero)."""

    name: str
    arguments: tuple[tuple[str, tuple[sympy.Symbol, ...]], ...]
    assignments: tuple[Assignment, ...]
    results: tuple[Result, ...]
    shape: tuple[int, ...]
    method: str = ""

    @cached_property
    def ops(self) -> Ops:
        """Operations of the whole program (:func:`dgraph.codegen.counting.count_ops`)."""
        return count_ops([e for _, e in self.assignments] + [e for _, e in self.results])

    @property
    def mults(self) -> int:
        return self.ops.mults

    @property
    def adds(self) -> int:
        return self.ops.adds

    def to_text(self) -> str:
        """The program as readable lines, results as ``name[i, j] = ...``."""
        lines = [f"{s} = {sympy.sstr(e)}" for s, e in self.assignments]
        lines += [
            f"{self.name}[{', '.join(map(str, k))}] = {sympy.sstr(e)}" for k, e in self.results
        ]
        return "\n".join(lines)


def value_symbol(v: str) -> sympy.Symbol:
    """The program variable holding vertex ``v``'s value: real, like the vertex symbols, so
    that sympy differentiates ``Abs`` and ``Max`` over it as real functions."""
    return sympy.Symbol(f"v_{v}", real=True)


def label_symbol(u: str, v: str) -> sympy.Symbol:
    """The program variable holding the local partial on edge ``u -> v`` (commutative)."""
    return sympy.Symbol(f"d_{v}_{u}")


def fresh(prefix: str, taken: Iterable[sympy.Symbol]) -> Iterator[sympy.Symbol]:
    """``<prefix>1``, ``<prefix>2``, ... skipping every name taken (whatever a taken
    symbol's assumptions: the printed code knows only names)."""
    names = {str(t) for t in taken}
    return (sympy.Symbol(f"{prefix}{k}") for k in count(1) if f"{prefix}{k}" not in names)


def sorted_symbols(symbols: Iterable[sympy.Symbol]) -> list[sympy.Symbol]:
    return sorted(symbols, key=str, reverse=True)


def in_order(
    definitions: Mapping[sympy.Symbol, sympy.Expr],
    roots: Iterable[sympy.Symbol],
    done: set[sympy.Symbol],
    out: list[Assignment],
    order: Callable[[Iterable[sympy.Symbol]], list[sympy.Symbol]] = sorted_symbols,
) -> None:
    """Append to ``out`` each root's definition after the definitions it reads, depth
    first (iterative: recurrences nest deeper than Python's stack), the reads pushed in
    ``order`` (it decides which comes first, and so what ``cse`` sees next to what);
    ``done`` holds the symbols known and grows. A definition that reads itself raises
    DGraphError."""
    active: set[sympy.Symbol] = set()
    for root in roots:
        stack = [(root, False)]
        while stack:
            s, expanded = stack.pop()
            if s in done or s not in definitions:
                continue
            if expanded:
                active.discard(s)
                done.add(s)
                out.append((s, definitions[s]))
                continue
            if s in active:
                raise DGraphError(f"the program variable {s} depends on itself")
            active.add(s)
            stack.append((s, True))
            stack.extend((t, False) for t in order(definitions[s].free_symbols) if t not in done)


def height(expr: sympy.Basic) -> int:
    """Levels of nesting of ``expr`` (an atom: 0), without recursion, each shared
    subexpression walked once.

    >>> x = sympy.Symbol("x")
    >>> height(x), height(sympy.sin(x) + 1), height(sympy.sin(sympy.sin(x)))
    (0, 2, 2)
    """
    known: dict[int, int] = {}  # by id, not by node (hashing each node costs 10 % here)
    keep = []  # the nodes whose ids are keys: alive while ``known`` is used
    stack = [(expr, False)]
    while stack:
        e, ready = stack.pop()
        if id(e) in known:
            continue
        if not e.args:
            known[id(e)] = 0
        elif ready:
            known[id(e)] = 1 + max(known[id(a)] for a in e.args)
        else:
            stack.append((e, True))
            stack.extend((a, False) for a in e.args if id(a) not in known)
            continue
        keep.append(e)
    return known[id(expr)]


def bottom_up(
    expr: sympy.Basic,
    combine: Callable[[sympy.Basic, list], Any],
    known: dict | None = None,
) -> Any:
    """``combine(e, [value of each argument])`` for ``expr``, every subexpression first,
    without recursion (expressions nest deeper than Python's stack); each distinct
    subexpression is combined once, and ``known`` (node -> value, shared between calls)
    gives values that are not combined at all."""
    done: dict = {} if known is None else known
    stack = [(expr, False)]
    while stack:
        e, ready = stack.pop()
        if e in done:
            continue
        if ready or not e.args:
            done[e] = combine(e, [done[a] for a in e.args])
        else:
            stack.append((e, True))
            stack.extend((a, False) for a in e.args if a not in done)
    return done[expr]


def live_ranges(program: Program) -> tuple[dict[int, list[sympy.Symbol]], int]:
    """For each statement (the assignments, then the results, in order), the temporaries
    whose last use it is (an unused one: its own assignment); and the most temporaries
    alive at once (what a block of NumPy arrays or a GPU thread's registers must hold)."""
    last_use = {s: k for k, (s, _) in enumerate(program.assignments)}
    exprs = [e for _, e in program.assignments] + [e for _, e in program.results]
    for k, e in enumerate(exprs):
        for s in e.free_symbols & last_use.keys():
            last_use[s] = k
    dead: dict[int, list[sympy.Symbol]] = {}
    for s, k in last_use.items():
        dead.setdefault(k, []).append(s)
    live = peak = 0
    for k in range(len(exprs)):
        live += k < len(program.assignments)
        peak = max(peak, live)
        live -= len(dead.get(k, ()))
    return dead, peak
