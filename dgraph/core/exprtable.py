"""An expression set as a table of binary operations over integer ids.

Every product and sum of an expression set becomes a balanced tree of binary nodes
(factors kept in order), references become shared nodes and edge symbols leaves, so
that checks run over plain integers and evaluation goes level by level in NumPy: one
vectorized operation per depth of the expression DAG instead of one per node. The
random-point verification reads it (:mod:`dgraph.core.verify`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy

if TYPE_CHECKING:
    from .expression_data import ExpressionData

__all__ = ["ADD", "LEAF", "MUL", "NUMBER", "ExpressionTable", "Unreadable", "expression_table"]

LEAF, NUMBER, MUL, ADD = range(4)


class Unreadable(Exception):
    """A term the table does not hold (an unknown symbol, a reference used before it is
    defined, a power or number it cannot read): the general checks say what is wrong."""


@dataclass(frozen=True)
class ExpressionTable:
    """Nodes in creation order (children first): ``op[n]``, and ``a[n]``/``b[n]``, the
    operands of a product (``a`` on the output side) or sum, the index of a leaf's edge in
    ``edges`` or of a number in ``numbers``; ``roots`` maps references and ``(y, x)``
    entries to nodes."""

    op: list[int]
    a: list[int]
    b: list[int]
    edges: list[tuple[str, str]]
    numbers: list[int]
    roots: dict[Any, int]

    def levels(self) -> list[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
        """``(op, nodes, a, b)`` batches of products and sums, in an order where each
        batch needs only earlier ones: nodes grouped by depth, then by operation."""
        op, a, b = self.op, self.a, self.b
        depth = [0] * len(op)
        for n, kind in enumerate(op):
            if kind >= MUL:
                depth[n] = 1 + max(depth[a[n]], depth[b[n]])
        ops, depths = np.asarray(op), np.asarray(depth)
        order = np.lexsort((ops, depths))
        batches = []
        key = depths[order] * 4 + ops[order]
        cuts = np.flatnonzero(np.diff(key)) + 1
        left, right = np.asarray(a), np.asarray(b)
        for group in np.split(order, cuts):
            kind = int(ops[group[0]])
            if kind >= MUL:
                batches.append((kind, group, left[group], right[group]))
        return batches

    def evaluate(self, leaves: np.ndarray, mod: np.ndarray) -> np.ndarray:
        """Every node's value modulo ``mod`` (one column per modulus), the edges taking
        the rows of ``leaves`` (int64 residues below 2^31: products fit)."""
        values = np.zeros((len(self.op), len(mod)), dtype=np.int64)
        leaf = [n for n, kind in enumerate(self.op) if kind == LEAF]
        if leaf:
            values[leaf] = leaves[[self.a[n] for n in leaf]]
        for n in (n for n, kind in enumerate(self.op) if kind == NUMBER):
            values[n] = [self.numbers[self.a[n]] % int(p) for p in mod.tolist()]
        for kind, nodes, left, right in self.levels():
            if kind == MUL:
                values[nodes] = values[left] * values[right] % mod
            else:
                values[nodes] = (values[left] + values[right]) % mod
        return values


def expression_table(es: ExpressionData) -> ExpressionTable:
    """The table of ``es``; raises :class:`Unreadable` where it cannot hold a term."""
    edge_symbols = es.graph.edge_symbols
    edge_index = {s: i for i, s in enumerate(edge_symbols)}
    op: list[int] = []
    a: list[int] = []
    b: list[int] = []
    known: dict[sympy.Symbol, int] = {}  # references defined so far, and leaves
    numbers: dict[int, int] = {}  # value -> node
    seen: dict[int, tuple[sympy.Basic, int]] = {}  # id -> (the expression, kept alive; node)

    def node(kind: int, x: int, y: int = -1) -> int:
        op.append(kind)
        a.append(x)
        b.append(y)
        return len(op) - 1

    def combine(kind: int, parts: list[int]) -> int:
        while len(parts) > 1:  # balanced: pairs of neighbours, order kept
            paired = [node(kind, parts[i], parts[i + 1]) for i in range(0, len(parts) - 1, 2)]
            parts = paired + parts[len(parts) - len(parts) % 2 :]
        return parts[0]

    def atom(e: sympy.Basic) -> int | None:
        if e.is_Symbol:
            if e in known:
                return known[e]
            if e in edge_index:
                known[e] = node(LEAF, edge_index[e])
                return known[e]
            raise Unreadable(e)
        if e.is_Integer:
            k = int(e)
            if k not in numbers:
                numbers[k] = node(NUMBER, len(numbers))
            return numbers[k]
        return None

    def parts_of(e: sympy.Basic) -> tuple[int, tuple]:
        if e.is_Mul:
            return MUL, e.args
        if e.is_Add:
            return ADD, e.args
        if e.is_Pow and e.exp.is_Integer and e.exp > 0:
            return MUL, (e.base,) * int(e.exp)
        raise Unreadable(e)

    def resolved(p: sympy.Basic) -> int:
        hit = seen.get(id(p))
        if hit is not None and hit[0] is p:
            return hit[1]
        done = atom(p)
        if done is None:
            raise Unreadable(p)
        return done

    def build(root: sympy.Expr) -> int:
        done = atom(root)
        if done is not None:
            return done
        stack: list[tuple[sympy.Basic, bool]] = [(root, False)]
        while stack:
            e, ready = stack.pop()
            if ready:  # its parts are in the table
                kind, parts = parts_of(e)
                seen[id(e)] = (e, combine(kind, [resolved(p) for p in parts]))
                continue
            hit = seen.get(id(e))
            if hit is not None and hit[0] is e:
                continue
            stack.append((e, True))
            for p in parts_of(e)[1]:
                if not (p.is_Symbol or p.is_Integer):
                    stack.append((p, False))
        return seen[id(root)][1]

    roots: dict[Any, int] = {}
    for name, definition in es.references.items():
        if name in known or name in edge_index:
            raise Unreadable(name)
        roots[name] = known[name] = build(definition)
    for key, entry in es.jacobian.items():
        roots[key] = build(entry)
    return ExpressionTable(op, a, b, list(edge_symbols.values()), list(numbers), roots)
