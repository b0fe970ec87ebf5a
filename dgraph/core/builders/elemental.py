"""Turn sympy expressions into differentiation-graph vertices, one per operation node.

Shared by the trace builder and :func:`from_sympy`: every sympy operation node with free
symbols becomes one vertex (n-ary ``+`` and ``*`` stay n-ary, or with ``binary`` become
chains of two-operand vertices as an operator-overloading tape records them; equal
subexpressions are one vertex), numbers and closed-form constants are folded into local
partials. Names are chosen at the end so that outputs keep their declared names and every
output is maximal.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import sympy
from sympy.core.function import AppliedUndef

from ...errors import InputError
from ..graph import DGraph, vertex_symbol

__all__ = ["ExprGraphBuilder", "Value"]

# A value in a program: a vertex (its node index) or a constant sympy expression.
Value = int | sympy.Expr


@dataclass
class _Node:
    local: sympy.Expr | None  # elemental function over the predecessors' placeholders
    preds: list[int]
    names: list[str] = field(default_factory=list)  # preferred names, first wins
    placeholder: sympy.Dummy = field(default_factory=lambda: sympy.Dummy(real=True))


class ExprGraphBuilder:
    """Accumulates vertices from expressions, then names them and emits a :class:`DGraph`."""

    def __init__(self, inputs: list[str], where: str = "", binary: bool = False) -> None:
        self.where = where
        self.binary = binary
        self.nodes: list[_Node] = []
        self._by_key: dict[tuple, int] = {}
        self.inputs = [self._new(None, [], name) for name in inputs]
        self._input_set = set(self.inputs)

    def _new(self, local: sympy.Expr | None, preds: list[int], name: str | None = None) -> int:
        node = _Node(local, preds, [name] if name else [])
        self.nodes.append(node)
        return len(self.nodes) - 1

    def _fail(self, message: str) -> None:
        raise InputError(f"{self.where}: {message}" if self.where else message)

    # -- vertices from expressions -------------------------------------------------------

    def statement(self, expr: sympy.Expr, env: dict[sympy.Symbol, Value]) -> Value:
        """One vertex for the whole expression (statement granularity)."""
        expr = self._resolve_constants(expr, env)
        if not expr.free_symbols:
            return expr
        preds = [env[s] for s in sorted(expr.free_symbols, key=str)]
        local = expr.xreplace({s: self.nodes[env[s]].placeholder for s in expr.free_symbols})
        return self._new(local, list(dict.fromkeys(preds)))

    def elemental(self, expr: sympy.Expr, env: dict[sympy.Symbol, Value]) -> Value:
        """One vertex per operation node of ``expr`` (elemental granularity)."""
        expr = self._resolve_constants(expr, env)
        done: dict[sympy.Basic, Value] = {}
        stack: list[tuple[sympy.Basic, bool]] = [(expr, False)]
        # Iterative post-order walk: expressions from recurrences nest deeper than Python's
        # recursion limit.
        while stack:
            e, expanded = stack.pop()
            if e in done:
                continue
            if not e.free_symbols:
                done[e] = e
            elif isinstance(e, sympy.Symbol):
                done[e] = env[e]
            elif not all(isinstance(a, sympy.Expr) for a in e.args):
                done[e] = self._opaque(e, env)
            elif not expanded:
                stack.append((e, True))
                stack.extend((a, False) for a in e.args if a not in done)
            else:
                done[e] = self._operation(e, [done[a] for a in e.args])
        return done[expr]

    def _resolve_constants(self, expr: sympy.Expr, env: dict[sympy.Symbol, Value]) -> sympy.Expr:
        for f in expr.atoms(AppliedUndef):
            self._fail(f"unknown function {f.func.__name__!r}")
        unknown = [s for s in expr.free_symbols if s not in env]
        if unknown:
            self._fail(f"unknown name {sorted(map(str, unknown))[0]!r}")
        constants = {
            s: v for s, v in env.items() if not isinstance(v, int) and s in expr.free_symbols
        }
        return expr.xreplace(constants) if constants else expr

    def _operation(self, e: sympy.Expr, args: list[Value]) -> int:
        vertices = [a for a in args if isinstance(a, int)]
        if self.binary and (e.is_Add or e.is_Mul) and len(vertices) > 2:
            # as a tape records it: left to right, two operands per vertex, the constant
            # terms or factors joining the last one
            acc = vertices[0]
            for a in vertices[1:-1]:
                acc = self._node(e.func, [acc, a])
            constants = [a for a in args if not isinstance(a, int)]
            return self._node(e.func, [acc, vertices[-1], *constants])
        return self._node(e.func, args)

    def _node(self, func: type, args: list[Value]) -> int:
        key = (func, tuple(a if isinstance(a, int) else ("const", a) for a in args))
        if key in self._by_key:
            return self._by_key[key]
        local = func(*[self.nodes[a].placeholder if isinstance(a, int) else a for a in args])
        preds = list(dict.fromkeys(a for a in args if isinstance(a, int)))
        index = self._new(local, preds)
        self._by_key[key] = index
        return index

    def _opaque(self, e: sympy.Basic, env: dict[sympy.Symbol, Value]) -> int:
        """A node whose arguments are not all expressions (Piecewise, Integral, ...): one
        vertex over the variables it contains."""
        symbols = sorted(e.free_symbols, key=str)
        local = e.xreplace({s: self.nodes[env[s]].placeholder for s in symbols})
        return self._new(local, list(dict.fromkeys(env[s] for s in symbols)))

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
                value = self._new(value, [])
            elif value in self._input_set or value in used_as_pred or wanted[value] > 1:
                value = self._new(self.nodes[value].placeholder, [value])  # copy, label 1
            output_nodes.append((out_name, value))

        live = self._live([i for _, i in output_nodes])
        for index, node in enumerate(self.nodes):
            if index not in live and index not in self._input_set and node.names:
                self._fail(f"{node.names[0]!r} is computed but no output uses it")

        names = {i: self.nodes[i].names[0] for i in self.inputs}
        taken = set(names.values())
        for out_name, i in output_nodes:  # an output that reuses an input's name is renamed
            if out_name in taken:
                out_name = (
                    f"{out_name}_out"
                    if f"{out_name}_out" not in taken
                    else _fresh([out_name], taken)
                )
            names[i] = out_name
            taken.add(names[i])
        # Named variables first, so that temporaries never take a name the program uses.
        unnamed = sorted(live - names.keys())
        for index in sorted(unnamed, key=lambda i: not self.nodes[i].names):
            preferred = [n for n in self.nodes[index].names if n not in taken]
            names[index] = preferred[0] if preferred else _fresh(self.nodes[index].names, taken)
            taken.add(names[index])

        placeholders = {self.nodes[i].placeholder: vertex_symbol(n) for i, n in names.items()}
        graph = DGraph(name)
        for i in self.inputs:
            graph.add_vertex(names[i], "input")
        output_set = {i for _, i in output_nodes}
        for index in sorted(live - output_set - set(self.inputs)):
            graph.add_vertex(
                names[index], "intermediate", self.nodes[index].local.xreplace(placeholders)
            )
        for _, index in output_nodes:
            graph.add_vertex(names[index], "output", self.nodes[index].local.xreplace(placeholders))
        for index in sorted(live):
            for p in self.nodes[index].preds:
                graph.add_edge(names[p], names[index])
        return graph.validate()

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


def _fresh(preferred: list[str], taken: set[str]) -> str:
    """A new name: ``<preferred>_k`` for a renamed variable, ``t<k>`` for a temporary."""
    base, k = (f"{preferred[0]}_", 2) if preferred else ("t", 1)
    while f"{base}{k}" in taken:
        k += 1
    return f"{base}{k}"
