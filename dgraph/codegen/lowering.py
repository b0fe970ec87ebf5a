"""The scalar path on the array IR: a :class:`~dgraph.codegen.ir.Program` lowered to array
statements of shape (), run through the array passes, and what its printers read.

:func:`lowered` is the last step of the scalar builder
(:func:`dgraph.codegen.passes.build_program`): the assignments the sympy passes left become
an :class:`~dgraph.codegen.ir.ArrayProgram` (argument entries read by an
:class:`~dgraph.codegen.ir.Index`, each assignment a :class:`~dgraph.codegen.ir.Formula`,
each result a store ``name[i, j] = ...``), the passes of the tensor path run on it
(:func:`dgraph.codegen.array_passes.optimize_statements`: value numbering finds values that
sympy's ``cse`` leaves computed twice under two names), and the program's assignments are
read back from the statements, so that the :class:`~dgraph.codegen.ir.Program`, its
counts (:func:`~dgraph.codegen.counting.count_ops` per statement, what
:func:`~dgraph.codegen.array_passes.count_array_ops` charges a statement of shape ()) and
every printer's input are one program. The printers take its statements as they are
(:func:`statements`, :func:`body_and_stores`), batched (:func:`batched`) or as one array
(:func:`result_entries`).
"""

from __future__ import annotations

import dataclasses
from itertools import product

import sympy

from ..core.extremes import substituted
from .array_passes import optimize_statements
from .ir import (
    ArrayProgram,
    ArrayStatement,
    Const,
    Entries,
    Formula,
    Index,
    Name,
    Node,
    Program,
    scalar_statements,
)

__all__ = ["batched", "body_and_stores", "lowered", "result_entries", "statements"]


def lowered(program: Program) -> Program:
    """``program`` with its array statements of shape () (:attr:`Program.arrays
    <dgraph.codegen.ir.Program.arrays>`) after the array passes, its assignments and
    results read back from them: values computed twice are computed once.

    >>> x, y, a, b = sympy.symbols("x y a b")
    >>> p = Program("f", (("x", (x, y)),), ((a, x * y), (b, y * x)), (((0,), a + b),), (1,))
    >>> print(lowered(p).to_text())
    a = x*y
    f[0] = 2*a
    """
    arrays = scalar_statements(program)
    optimized = _in_order(optimize_statements(arrays.statements, [program.name]))
    if optimized == arrays.statements:
        return dataclasses.replace(program, arrays=arrays)
    view = _read_back(program, optimized)
    if view is None or view.ops.key() > program.ops.key():
        # not statements of a scalar program, or read back dearer (sympy's own algebra
        # on a merged value: a + b read as 2*a): left as the sympy passes made it
        return dataclasses.replace(program, arrays=arrays)
    return dataclasses.replace(view, arrays=scalar_statements(view))


def _in_order(found: list[ArrayStatement]) -> list[ArrayStatement]:
    """The stores last (a pass places a value before its first use, which may be a
    store; nothing reads the stored array, so the order is otherwise the same)."""
    return [s for s in found if not s.at] + [s for s in found if s.at]


def _read_back(program: Program, found: list[ArrayStatement]) -> Program | None:
    """The program whose lowering ``found`` is (its assignments, then its results: the
    stores in order), or None where a statement is not one of shape ()."""
    arguments = {name for name, _ in program.arguments}
    known: dict[str, sympy.Symbol] = {}
    for symbol in [
        *(s for _, symbols in program.arguments for s in symbols),
        *(s for s, _ in program.assignments),
        *(s for _, e in program.assignments for s in e.free_symbols),
    ]:
        if known.setdefault(str(symbol), symbol) != symbol:
            return None  # two symbols of one name: the code could not tell them apart

    def symbol(name: str) -> sympy.Symbol:
        return known.setdefault(name, sympy.Symbol(name))

    def expr(node: Node) -> sympy.Expr | None:
        if isinstance(node, Name):
            return symbol(node.id)
        if not isinstance(node, Formula) or not all(isinstance(o, Name) for _, o in node.operands):
            return None
        return substituted(node.expr, {s: symbol(o.id) for s, o in node.operands})  # type: ignore[union-attr]

    assignments, results = [], []
    for s in found:
        value = s.value
        if isinstance(value, Index) and isinstance(value.value, Name) and not s.at:
            if value.value.id not in arguments:
                return None
            continue  # an argument's entry
        e = expr(value)
        if e is None:
            return None
        if s.at:
            results.append((tuple(int(i.value) for i in s.at), e))  # type: ignore[attr-defined]
        else:
            assignments.append((symbol(s.target), e))
    return dataclasses.replace(program, assignments=tuple(assignments), results=tuple(results))


def statements(program: Program) -> ArrayProgram:
    """The array statements of shape () a program's printers print: what its builder made,
    else its lowering (a program made by hand)."""
    if program.arrays is not None:
        return program.arrays
    return scalar_statements(program)


def body_and_stores(
    arrays: ArrayProgram,
) -> tuple[list[ArrayStatement], list[ArrayStatement]]:
    """The statements that make values (argument reads, assignments), and the stores of
    the results (one per result, in the program's order)."""
    return [s for s in arrays.statements if not s.at], [s for s in arrays.statements if s.at]


def batched(arrays: ArrayProgram, out: str, flat: bool = False) -> list[ArrayStatement]:
    """The statements on a batch of points, the entry axis last: argument entries read as
    ``x[..., k]``, results stored into ``out[..., i, j]`` (``flat``: ``out[..., k]``, k
    the result's position)."""
    lead = Const(Ellipsis)
    names = set(arrays.arguments)
    body, stores = body_and_stores(arrays)
    found = []
    for s in body:
        value = s.value
        if isinstance(value, Index) and isinstance(value.value, Name) and value.value.id in names:
            value = Index(value.value, (lead, *value.items))
        found.append(ArrayStatement(s.target, value))
    for k, s in enumerate(stores):
        found.append(ArrayStatement(out, s.value, (lead, *((Const(k),) if flat else s.at))))
    return found


def result_entries(arrays: ArrayProgram, shape: tuple[int, ...]) -> Entries:
    """The results as one array of ``shape`` (entries not stored: 0)."""
    _, stores = body_and_stores(arrays)
    at = {tuple(int(i.value) for i in s.at): s.value for s in stores}  # type: ignore[attr-defined]
    items = tuple(at.get(index, Const(0.0)) for index in product(*(range(n) for n in shape)))
    return Entries(items, shape)
