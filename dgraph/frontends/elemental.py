"""Turn sympy expressions into differentiation-graph vertices, one per operation node.

Shared by the trace builder and :func:`from_sympy`: every sympy operation node with free
symbols becomes one vertex (n-ary ``+`` and ``*`` stay n-ary, or with ``binary`` become
chains of two-operand vertices as an operator-overloading tape records them; equal
subexpressions are one vertex), numbers and closed-form constants are folded into local
partials. Names are chosen at the end so that outputs keep their declared names and every
output is maximal.
"""

from __future__ import annotations

import contextlib
import gc
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

import sympy
from sympy.core.function import AppliedUndef
from sympy.core.parameters import global_parameters
from sympy.core.relational import Relational
from sympy.functions.elementary.piecewise import ExprCondPair
from sympy.logic.boolalg import BooleanFunction

from ..core.activity import dead_note
from ..core.graph import DGraph, vertex_symbol
from ..core.parse import Template
from ..core.templates import CACHE_LIMIT, CACHES, rank_of, rank_symbol, rename
from ..errors import InputError

__all__ = ["ExprGraphBuilder", "Value", "gc_paused", "replace_shared"]

# A value in a program: a vertex (its node index) or a constant sympy expression.
Value = int | sympy.Expr

# classes whose free symbols are their arguments' (the walks below need not ask sympy,
# whose free_symbols recurses without memory: exponential on a deeply shared expression)
_PLAIN = (sympy.Add, sympy.Mul, sympy.Pow, sympy.Function, ExprCondPair, Relational)
_PLAIN += (BooleanFunction,)
_LOCALS: dict[tuple, sympy.Expr] = {}  # an operation over rank symbols, evaluated once
CACHES.append(_LOCALS)


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while a graph is built: loading makes millions of small
    objects and no cycles, and the collector's passes over them cost a third of the time."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@dataclass(slots=True)
class _Node:
    # elemental function: ``local`` with each symbol of ``slots`` read as the vertex of the
    # same position in ``args``; renamed to vertex symbols once names are known
    local: sympy.Expr | None
    slots: tuple[sympy.Symbol, ...]
    args: tuple[int, ...]
    preds: list[int]
    names: list[str] = field(default_factory=list)  # preferred names, first wins


class ExprGraphBuilder:
    """Accumulates vertices from expressions, then names them and emits a :class:`DGraph`.

    Expressions come as sympy expressions over the symbols of ``env`` (:meth:`statement`,
    :meth:`elemental`) or as parsed templates with their bindings (:meth:`statement_of`,
    :meth:`elemental_of`); no expression is evaluated again per vertex: vertex functions
    are renamed from templates (:func:`dgraph.core.templates.rename`) when names are known.
    """

    def __init__(
        self,
        inputs: list[str],
        where: str = "",
        binary: bool = False,
        parameters: tuple[str, ...] = (),
    ) -> None:
        self.where = where
        self.binary = binary
        # values fixed when the function runs: constants to the graph, symbols in its labels
        self.parameters = tuple(parameters)
        self._constant = frozenset(self.parameters)
        self.nodes: list[_Node] = []
        self._by_key: dict[tuple, int] = {}
        self.inputs = [self._new(None, (), (), [], name) for name in inputs]
        self._input_set = set(self.inputs)

    def _new(
        self,
        local: sympy.Expr | None,
        slots: tuple[sympy.Symbol, ...],
        args: tuple[int, ...],
        preds: list[int],
        name: str | None = None,
    ) -> int:
        self.nodes.append(_Node(local, slots, args, preds, [name] if name else []))
        return len(self.nodes) - 1

    def _fail(self, message: str) -> None:
        raise InputError(f"{self.where}: {message}" if self.where else message)

    # -- vertices from expressions -------------------------------------------------------

    def statement(self, expr: sympy.Expr, env: dict[sympy.Symbol, Value]) -> Value:
        """One vertex for the whole expression (statement granularity)."""
        expr, free = self._resolve_constants(expr, env)
        if not free[expr]:
            return expr
        slots = tuple(sorted(free[expr], key=str))
        args = tuple(env[s] for s in slots)
        return self._new(expr, slots, args, list(dict.fromkeys(args)))

    def statement_of(self, template: Template, bound: list[Value]) -> Value:
        """:meth:`statement` for a parsed template; ``bound[k]`` is what its ``k``-th name
        stands for (names bound to constants are already put in)."""
        if not template.free:
            return template.expr
        args = tuple(bound[rank_of(s)] for s in template.free)
        return self._new(template.expr, template.free, args, list(dict.fromkeys(args)))

    def elemental(self, expr: sympy.Expr, env: dict[sympy.Symbol, Value]) -> Value:
        """One vertex per operation node of ``expr`` (elemental granularity)."""
        expr, free = self._resolve_constants(expr, env)
        return self._run(_program(expr, free), env)

    def elemental_of(self, template: Template, bound: list[Value]) -> Value:
        """:meth:`elemental` for a parsed template (see :meth:`statement_of`)."""
        if template.program is None:
            template.program = _program(template.expr, _free_symbols(template.expr, self._constant))
        return self._run(template.program, {rank_symbol(k): v for k, v in enumerate(bound)})

    def _run(self, program: tuple[list, tuple], env: dict[sympy.Symbol, Value]) -> Value:
        steps, result = program
        temps: list[Value] = []

        def value(ref: tuple) -> Value:
            kind, x = ref
            return env[x] if kind == 0 else x if kind == 1 else temps[x]

        for step in steps:
            if step[0] == "op":
                temps.append(self._operation(step[1], [value(r) for r in step[2]]))
            else:
                slots = step[2]
                args = tuple(env[s] for s in slots)
                temps.append(self._new(step[1], slots, args, list(dict.fromkeys(args))))
        return value(result)

    def _resolve_constants(
        self, expr: sympy.Expr, env: dict[sympy.Symbol, Value]
    ) -> tuple[sympy.Expr, dict[sympy.Basic, frozenset]]:
        free = _free_symbols(expr, self._constant)
        for e in free:
            if isinstance(e, sympy.Derivative):
                self._fail(
                    f"the expression contains the derivative {sympy.sstr(e)[:60]}: write it in"
                    " terms of the inputs or give it a symbol"
                )
        for e in free:
            if isinstance(e, AppliedUndef):
                self._fail(
                    f"unknown function {sympy.sstr(e)[:60]!r}: a function of time"
                    " (sympy.physics.mechanics) must be an input or a parameter"
                )
        unknown = [s for s in free[expr] if s not in env]
        if unknown:
            self._fail(
                f"unknown name {sorted(map(str, unknown))[0]!r}: neither an input nor a"
                " parameter (give it with params= or --params)"
            )
        constants = {s: env[s] for s in free[expr] if not isinstance(env[s], int)}
        if self._constant:  # a parameter written with other assumptions than real=True
            constants.update(
                (e, vertex_symbol(e.name))
                for e in free
                if e.is_Symbol and e.name in self._constant and e != vertex_symbol(e.name)
            )
        if constants:
            expr = replace_shared(expr, constants)
            free = _free_symbols(expr, self._constant)
        return expr, free

    def _operation(self, func: type, args: list[Value]) -> int:
        vertices = [a for a in args if isinstance(a, int)]
        if self.binary and (func is sympy.Add or func is sympy.Mul) and len(vertices) > 2:
            # as a tape records it: left to right, two operands per vertex, the constant
            # terms or factors joining the last one
            acc = vertices[0]
            for a in vertices[1:-1]:
                acc = self._node(func, [acc, a])
            constants = [a for a in args if not isinstance(a, int)]
            return self._node(func, [acc, vertices[-1], *constants])
        return self._node(func, args)

    def _node(self, func: type, args: list[Value]) -> int:
        key = (func, tuple(a if isinstance(a, int) else ("const", a) for a in args))
        index = self._by_key.get(key)
        if index is not None:
            return index
        preds = list(dict.fromkeys(a for a in args if isinstance(a, int)))
        slot_of = {p: k for k, p in enumerate(preds)}
        pattern = (
            func,
            tuple(slot_of[a] if isinstance(a, int) else ("const", a) for a in args),
            global_parameters.evaluate,
        )
        local = _LOCALS.get(pattern)
        if local is None:
            if len(_LOCALS) >= CACHE_LIMIT:
                _LOCALS.clear()
            local = _LOCALS[pattern] = func(
                *[rank_symbol(slot_of[a]) if isinstance(a, int) else a for a in args]
            )
        slots = tuple(rank_symbol(k) for k in range(len(preds)))
        index = self._by_key[key] = self._new(local, slots, tuple(preds), preds)
        return index

    def prefer_name(self, value: Value, name: str) -> None:
        """Ask that the vertex computing ``value`` be called ``name`` if nothing claims it."""
        if isinstance(value, int) and value not in self._input_set:
            self.nodes[value].names.append(name)

    # -- naming and emission ---------------------------------------------------------------

    def build(self, outputs: list[tuple[str, Value]], name: str = "") -> DGraph:
        """Name every vertex and return the graph; outputs are made maximal with copies."""
        used_as_pred = {p for node in self.nodes for p in node.preds}
        wanted = Counter(v for _, v in outputs if isinstance(v, int))
        output_nodes: list[tuple[str, int]] = []
        for out_name, value in outputs:
            if not isinstance(value, int):  # a constant output: no in-edges, a zero row
                value = self._new(value, (), (), [])
            elif value in self._input_set or value in used_as_pred or wanted[value] > 1:
                slot = rank_symbol(0)
                value = self._new(slot, (slot,), (value,), [value])  # copy, label 1
            output_nodes.append((out_name, value))

        live = self._live([i for _, i in output_nodes])
        dead = [  # named values no output uses: dead code, dropped with a note
            node.names[0]
            for index, node in enumerate(self.nodes)
            if index not in live and index not in self._input_set and node.names
        ]

        names = {i: self.nodes[i].names[0] for i in self.inputs}
        taken = set(names.values()) | set(self.parameters)  # a parameter t's t0, t1, ...
        counters: dict[str, int] = {}  # where _fresh goes on looking, per stem
        for out_name, i in output_nodes:  # an output that reuses an input's name is renamed
            if out_name in taken:
                out_name = (
                    f"{out_name}_out"
                    if f"{out_name}_out" not in taken
                    else _fresh([out_name], taken, counters)
                )
            names[i] = out_name
            taken.add(names[i])
        # Named variables first, so that temporaries never take a name the program uses.
        unnamed = sorted(live - names.keys())
        for index in sorted(unnamed, key=lambda i: not self.nodes[i].names):
            preferred = [n for n in self.nodes[index].names if n not in taken]
            names[index] = (
                preferred[0] if preferred else _fresh(self.nodes[index].names, taken, counters)
            )
            taken.add(names[index])

        symbols = {i: vertex_symbol(n) for i, n in names.items()}

        def local(index: int) -> sympy.Expr:
            node = self.nodes[index]
            return rename(node.local, node.slots, [symbols[a] for a in node.args])

        graph = DGraph(name)
        for p in self.parameters:
            graph.add_parameter(p)
        for i in self.inputs:
            graph.add_vertex(names[i], "input")
        output_set = {i for _, i in output_nodes}
        for index in sorted(live - output_set - set(self.inputs)):
            graph._add_vertex(names[index], "intermediate", local(index))
        for _, index in output_nodes:
            graph._add_vertex(names[index], "output", local(index))
        graph._add_edges(
            [(names[p], names[index]) for index in sorted(live) for p in self.nodes[index].preds]
        )
        if dead:
            note = dead_note(list(dict.fromkeys(dead)))
            graph.notes.append(f"{self.where}: {note}" if self.where else note)
        # every vertex function is over its in-edges' symbols by construction
        return graph._validate(expressions=False)

    def _live(self, roots: list[int]) -> set[int]:
        """Nodes some output depends on."""
        live: set[int] = set()
        stack = list(roots)
        while stack:
            i = stack.pop()
            if i not in live:
                live.add(i)
                stack.extend(self.nodes[i].preds)
        return live


def _fresh(preferred: list[str], taken: set[str], counters: dict[str, int]) -> str:
    """A new name: ``<preferred>_k`` for a renamed variable, ``t<k>`` for a temporary (the
    smallest free ``k``; ``taken`` only grows, so the search goes on where it stopped)."""
    base = f"{preferred[0]}_" if preferred else "t"
    k = counters.get(base, 2 if preferred else 1)
    while f"{base}{k}" in taken:
        k += 1
    counters[base] = k
    return f"{base}{k}"


def _free_symbols(
    expr: sympy.Basic, constant: frozenset = frozenset()
) -> dict[sympy.Basic, frozenset]:
    """Every subexpression of ``expr`` with its free symbols, each computed once; symbols
    named in ``constant`` (parameters) count as none."""
    free: dict[sympy.Basic, frozenset] = {}
    stack: list[tuple[sympy.Basic, bool]] = [(expr, False)]
    while stack:
        e, expanded = stack.pop()
        if e in free:
            continue
        if e.is_Symbol:
            free[e] = frozenset() if e.name in constant else frozenset((e,))
        elif not e.args:
            free[e] = frozenset(e.free_symbols)
        elif expanded:  # bound variables (Integral, Sum, ...): sympy knows them
            plain = isinstance(e, _PLAIN)
            if plain:
                free[e] = frozenset().union(*(free[a] for a in e.args))
            else:
                free[e] = frozenset(e.free_symbols)
        else:
            stack.append((e, True))
            stack.extend((a, False) for a in e.args if a not in free)
    return free


def replace_shared(expr: sympy.Basic, mapping: dict[sympy.Basic, sympy.Basic]) -> sympy.Basic:
    """``expr.xreplace(mapping)`` with each distinct subexpression visited once: sympy's
    ``xreplace`` walks a shared subexpression once per use, exponential on the deeply
    shared expressions of an LU solve (``KanesMethod.rhs()``)."""
    done: dict[sympy.Basic, sympy.Basic] = {}
    stack: list[tuple[sympy.Basic, bool]] = [(expr, False)]
    while stack:
        e, expanded = stack.pop()
        if e in done:
            continue
        if e in mapping:
            done[e] = mapping[e]
        elif not e.args:
            done[e] = e
        elif not expanded:
            stack.append((e, True))
            stack.extend((a, False) for a in e.args if a not in done)
        else:
            args = tuple(done[a] for a in e.args)
            done[e] = e.func(*args) if args != e.args else e
    return done[expr]


def _program(expr: sympy.Expr, free: dict[sympy.Basic, frozenset]) -> tuple[list, tuple]:
    """The vertices :meth:`ExprGraphBuilder.elemental` makes for ``expr``, in order: steps
    ``("op", func, refs)`` and ``("opaque", expr, slots)``, and the reference to the
    result; a reference is ``(0, symbol)``, ``(1, constant)`` or ``(2, step)``."""
    done: dict[sympy.Basic, tuple] = {}
    steps: list[tuple] = []
    stack: list[tuple[sympy.Basic, bool]] = [(expr, False)]
    # Iterative post-order walk: expressions from recurrences nest deeper than Python's
    # recursion limit.
    while stack:
        e, expanded = stack.pop()
        if e in done:
            continue
        if not free[e]:
            done[e] = (1, e)
        elif isinstance(e, sympy.Symbol):
            done[e] = (0, e)
        elif not all(isinstance(a, sympy.Expr) for a in e.args):
            # a node whose arguments are not all expressions (Piecewise, Integral, ...):
            # one vertex over the variables it contains
            steps.append(("opaque", e, tuple(sorted(free[e], key=str))))
            done[e] = (2, len(steps) - 1)
        elif not expanded:
            stack.append((e, True))
            stack.extend((a, False) for a in e.args if a not in done)
        else:
            steps.append(("op", e.func, [done[a] for a in e.args]))
            done[e] = (2, len(steps) - 1)
    return steps, done[expr]
