"""The scalar path's passes on array programs: common subexpressions, dead statements and
operation counts of an :class:`~dgraph.codegen.ir.ArrayProgram`.

- :func:`common_subexpressions`: equal node trees are computed once. Equal means the
  same value number (hash-consing): same kind, same fields, equal operands, where a
  name a statement assigns stands for that statement's value, the operands of ``+``
  and ``*`` are unordered (IEEE addition and multiplication commute), a
  :class:`~dgraph.codegen.ir.Formula` is equal up to the names of its symbols and to
  the node it prints as (``exp(a)``, ``a*b``), and ``1.0 * v`` (a leaf's copy) is
  ``v`` where ``v`` is known to be floating-point (in front of a comparison the factor
  makes numbers of booleans, and stays). A statement that computes what an earlier
  one did reads the earlier name; a subtree computed in two places (two statements,
  or twice in one) becomes a statement of its own, placed before its first use, or is
  read from the statement whose whole value it is. A name written in place (a
  statement with ``at``, or assigned twice) and every node that reads it are never
  merged; the results are never replaced by another name (the caller may change
  one). Views (reshapes, slices, transposes) are not made statements of their own:
  they cost nothing.
- :func:`dead_statements`: the statements nothing needed reads are dropped; the results
  and the stores into arrays not made here are what is needed.
- :func:`count_array_ops`: the program's operations in scalar operations, by the rule
  of :mod:`dgraph.codegen.counting` applied to each entry: an elementwise node counts
  its element count times, a contraction ``einsum`` one multiplication per term of each
  operand beyond the first (m·n·k for a matrix product) and the additions of its sums,
  reductions and scatter-adds one addition per entry added (a segment sum's n
  segments taken as nonempty, as a block product's are). Shapes are found from the
  arguments' and the constants' shapes (:func:`array_shapes`); an operation whose shape
  cannot be found is named in :attr:`ArrayCount.uncounted` instead of guessed.
  ``searchsorted`` is its binary search's ``ceil(log2(m + 1))`` comparisons a query.

A :class:`~dgraph.codegen.ir.Loop`'s body is a program of its own: both passes run on
it alone (nothing moves into or out of a loop) and its count is the body's times the
steps.

:func:`optimize` runs the first two in the tensor path's pipeline (after constant
folding): the same operations on the same operands, fewer times, so the values are
the same bit for bit; the output is deterministic (statement order, names ``_c1``,
``_c2``, ...).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy

from . import ir
from .call_shapes import Operand, call_shape, einsum_sizes, table_name
from .counting import LARGEST_PRODUCT_POWER, Ops, count_ops
from .ir import (
    ArrayProgram,
    ArrayStatement,
    AsType,
    BinOp,
    Call,
    Cond,
    Const,
    Dict,
    Entries,
    Formula,
    Index,
    Item,
    Loop,
    LoopBody,
    Name,
    Node,
    Scatter,
    ScatterAdd,
    SegmentSum,
    Seq,
    Slice,
    SparseMatrix,
    UnaryOp,
    While,
)

__all__ = [
    "ArrayCount",
    "array_shapes",
    "common_subexpressions",
    "count_array_ops",
    "dead_statements",
    "loop_arguments",
    "node_shapes",
    "optimize",
    "optimize_statements",
]

Shape = tuple[int, ...]
ROUNDS = 8  # the most rounds of merging (each round finds what the last one made equal)

# Calls that only view, reshape or copy their operand, or make a dtype: never a
# statement of their own (nothing is saved), and no operation counted
VIEWS = frozenset(
    {"reshape", "ravel", "transpose", "broadcast_to", "asarray", "flip", "result_type"}
)
# Calls that move or allocate entries without arithmetic
MOVES = frozenset(
    {
        "array", "concatenate", "stack", "pad", "take", "zeros", "ones", "full", "eye",
        "zeros_like", "arange", "ascontiguousarray", *VIEWS,
    }
)  # fmt: skip
# Elementwise functions whose value is floating-point whatever their operands' types
CALLS_FLOATING = (
    "exp", "exp2", "log", "log1p", "expm1", "sin", "cos", "tan", "arcsin", "arccos",
    "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "sqrt", "cbrt",
    "erf", "erfc", "arctan2", "power",
)  # fmt: skip
# Elementwise calls by what the scalar rule charges them (the rest: one call an entry)
_COMPARES = {"sign": 1, "maximum": 1, "minimum": 1, "isfinite": 1}
_FREE = frozenset({"where", "logical_and", "logical_or", "logical_not", "floor_divide"})
_REDUCTIONS = frozenset({"sum", "max", "min", "cumsum"})
_COMPARISONS = frozenset({"<", "<=", ">", ">=", "==", "!="})


# -- value numbers ---------------------------------------------------------------------


class _Numbering:
    """A number per node such that equal numbers mean equal values (hash-consing: each
    node's key holds its children's numbers, so no key is hashed twice over); a name a
    statement assigned (:meth:`assign`) has its value's number; the nodes that read a
    name in ``mutable`` are marked impure, those known to be floating-point arrays
    (not booleans or integers: ``1.0 * v`` is then ``v``) floating."""

    def __init__(self, mutable: set[str]) -> None:
        self.mutable = mutable
        self.values: dict[str, int] = {}  # a statement's target -> its value's number
        self.keys: dict[tuple, int] = {}
        self.of: dict[int, int] = {}  # id(node) -> number
        self.impure: set[int] = set()  # numbers of nodes that read a mutable name
        self.floating: set[int] = set()  # numbers of values known to be floating-point
        self.classified: set[int] = set()
        self.reads: set[int] = set()  # ids of the nodes that read a name
        self.keep: list[Node] = []  # the numbered nodes: their ids stay theirs

    kids = staticmethod(Node.children)  # kept on each node by Node.children itself

    def number(self, node: Node) -> int:
        """``node``'s number (its subtree numbered first; those numbered before kept).

        :func:`~dgraph.codegen.ir.fold` inlined, the nodes numbered before standing for
        its ``whole`` (the same nodes combined, in the same order): a statement is
        numbered three times over (its value, its value without factors 1.0, and that
        again), and all but the first find its number at once."""
        of = self.of
        found = of.get(id(node))
        if found is not None:
            return found
        kids, combine = self.kids, self._combine
        stack: list[tuple[Node, tuple[Node, ...] | None]] = [(node, None)]
        while stack:
            n, children = stack.pop()  # children: None until expanded
            if id(n) in of:
                continue
            if children is None:
                children = kids(n)
                if children:
                    stack.append((n, children))
                    stack.extend((c, None) for c in children if id(c) not in of)
                    continue
            combine(n, [of[id(c)] for c in children], children)
        return of[id(node)]

    def assign(self, statement: ArrayStatement) -> None:
        """Number ``statement``'s value (and its store positions); its target, when not
        written in place, then reads as that value."""
        number = self.number(statement.value)
        for item in statement.at:
            self.number(item)
        if not statement.at and statement.target not in self.mutable:
            self.values[statement.target] = number

    def _combine(self, node: Node, numbers: list[int], kids: tuple[Node, ...]) -> int:
        """Number ``node`` whose children ``kids`` have ``numbers`` (each node once: its
        key is built from its own fields, never from a walk of what is under it)."""
        is_name = isinstance(node, Name)
        found = None
        if is_name:
            found = self.values.get(node.id)
        elif isinstance(node, Formula):
            found = self._formula(node, numbers)
        if found is None:
            if is_name:
                key: tuple = (type(node).__name__, ("str", repr(node.id)))
            else:
                key = (type(node).__name__, *_fields_key(node, numbers, kids))
            found = self.keys.setdefault(key, len(self.keys))
        if is_name:
            self.reads.add(id(node))
            if node.id in self.mutable:
                self.impure.add(found)
        elif numbers:
            reads = self.reads
            for c in kids:
                if id(c) in reads:
                    reads.add(id(node))
                    break
            impure = self.impure
            for k in numbers:
                if k in impure:
                    impure.add(found)
                    break
        if found not in self.classified:
            self.classified.add(found)
            if _floating(node, [k in self.floating for k in numbers], self.floating, self.values):
                self.floating.add(found)
        self.of[id(node)] = found
        self.keep.append(node)
        return found

    def _formula(self, node: Formula, numbers: list[int]) -> int | None:
        """The number of the node a formula prints the same as: its operand (a symbol
        alone), a call (``exp(a)``: ``Call("exp")``), a sum or product of two (IEEE
        addition and multiplication commute); None for any other formula."""
        operand = {s: k for (s, _), k in zip(node.operands, numbers, strict=True)}
        done: dict[sympy.Basic, int | None] = {}
        for e in sympy.postorder_traversal(node.expr):
            if e in done:
                continue
            args = [done.get(a) for a in e.args]
            found = None
            if e.is_Symbol:
                found = operand.get(e)
            elif None in args:
                found = None
            elif (e.is_Add or e.is_Mul) and len(args) == 2:
                op = "'+'" if e.is_Add else "'*'"
                key = ("BinOp", ("str", op), *(("node", k) for k in sorted(args)))
                found = self.keys.setdefault(key, len(self.keys))
            else:
                func = _SYMPY_CALLS.get(type(e).__name__)
                if e.is_Pow and e.exp == sympy.S.Half:
                    func, args = "sqrt", args[:1]
                if func is not None and len(args) == 1:
                    key = ("Call", ("str", repr(func)), (("node", args[0]),), ())
                    found = self.keys.setdefault(key, len(self.keys))
            done[e] = found
        return done[node.expr]


# sympy's functions of one argument that print as these array functions
_SYMPY_CALLS = {
    "exp": "exp", "log": "log", "sin": "sin", "cos": "cos", "tan": "tan", "sinh": "sinh",
    "cosh": "cosh", "tanh": "tanh", "asin": "arcsin", "acos": "arccos", "atan": "arctan",
    "asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh", "Abs": "abs",
    "floor": "floor", "ceiling": "ceil", "rint": "round", "erf": "special.erf",
    "erfc": "special.erfc",
}  # fmt: skip
_COMMUTING = frozenset({"+", "*", "==", "!="})


def _fields_key(node: Node, numbers: list[int], kids: tuple[Node, ...]) -> tuple:
    """``node``'s fields with each child node as its number (a Formula's symbols by
    position, a constant by its type and ``repr``: 1 and 1.0 are different dtypes).

    The commonest kinds are keyed here directly, each by the tuple :func:`_generic_key`
    makes from its fields (where its children are the nodes of those fields, in order);
    the rest by :func:`_generic_key`."""
    kind = type(node)
    if kind is Const:
        value = node.value
        if type(value) in _SCALARS:
            return ((type(value).__name__, repr(value)),)
        return (_keyed(value, {}),)
    if kind is Formula:
        return (_canonical(node.expr, tuple(s for s, _ in node.operands)), *numbers)
    if kind is BinOp and len(numbers) == 2:
        if node.op in _COMMUTING:
            return (("str", repr(node.op)), *(("node", k) for k in sorted(numbers)))
        return (("str", repr(node.op)), ("node", numbers[0]), ("node", numbers[1]))
    if kind is Call:  # func, args, keywords (name, node)
        args, keywords = node.args, node.keywords
        n = len(args)
        if len(numbers) == n + len(keywords) and kids[:n] == args:
            return (
                ("str", repr(node.func)),
                tuple([("node", k) for k in numbers[:n]]),
                tuple(
                    [
                        ((type(w).__name__, repr(w)), ("node", k))
                        for (w, _), k in zip(keywords, numbers[n:], strict=True)
                    ]
                ),
            )
    if kind is Name:
        return (("str", repr(node.id)),)
    if kind is UnaryOp and len(numbers) == 1:
        return (("str", repr(node.op)), ("node", numbers[0]))
    if kind is Item and len(numbers) == 1:
        return (("node", numbers[0]), (type(node.index).__name__, repr(node.index)))
    if kind is AsType and len(numbers) == 1:
        return (("node", numbers[0]), (type(node.dtype).__name__, repr(node.dtype)))
    if kind is Index and len(numbers) == 1 + len(node.items) and kids[1:] == node.items:
        return (("node", numbers[0]), tuple([("node", k) for k in numbers[1:]]))
    return _generic_key(node, numbers, kids)


def _generic_key(node: Node, numbers: list[int], kids: tuple[Node, ...]) -> tuple:
    """:func:`_fields_key` by the fields of any kind (the fast paths there make the same
    tuples for their kinds)."""
    if isinstance(node, Const):
        return (_keyed(node.value, {}),)
    if isinstance(node, Formula):
        return (_canonical(node.expr, tuple(s for s, _ in node.operands)), *numbers)
    if isinstance(node, BinOp) and node.op in _COMMUTING:
        return (("str", repr(node.op)), *(("node", k) for k in sorted(numbers)))
    swap = {id(c): ("node", k) for c, k in zip(kids, numbers, strict=True)}
    return tuple([_keyed(getattr(node, f), swap) for f in _field_names(type(node))])


_SCALARS = frozenset({int, float, bool, str, type(None)})  # keyed as (type, repr)


@functools.cache
def _field_names(kind: type) -> tuple[str, ...]:
    """A node kind's fields that take part in equality, in order (``dataclasses.fields``
    asked once per kind)."""
    return tuple(f.name for f in dataclasses.fields(kind) if f.compare)


@functools.lru_cache(maxsize=2**14)
def _canonical(expr: sympy.Basic, symbols: tuple[sympy.Symbol, ...]) -> tuple:
    """A key of ``expr`` that formulas equal up to the names of their operand symbols
    share: its tree with the k-th operand symbol as ``("o", k)`` (and its assumptions),
    the arguments of a sum or product in the order of their keys' hashes, not of the
    names (a tie of hashes can only miss a merge). Built without sympy's evaluation (a
    renamed copy would be sorted and flattened again); remembered: each round of merging
    numbers the same formulas again."""
    position = {s: k for k, s in enumerate(symbols)}
    done: dict[sympy.Basic, tuple] = {}
    for e in sympy.postorder_traversal(expr):
        if e in done:
            continue
        if e in position:
            key: tuple = ("o", position[e], tuple(sorted(e.assumptions0.items())))
        elif not e.args:
            key = (type(e).__name__, e)  # a number itself: 1.848 and 1.8480000000000003 differ
        else:
            args = [done[a] for a in e.args]
            if e.is_Add or e.is_Mul:
                args.sort(key=hash)
            key = (type(e).__name__, *args)
        done[e] = key
    return done[expr]


def _keyed(value: Any, swap: dict[int, tuple]) -> Any:
    if isinstance(value, Node):
        return swap[id(value)]
    if isinstance(value, tuple):
        return tuple([_keyed(v, swap) for v in value])
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.shape, value.tobytes())
    if type(value) is LoopBody:
        return ("LoopBody", _body_text(value))
    return (type(value).__name__, repr(value))


def _body_text(part: LoopBody) -> str:
    """``repr(part)``, made once per body and kept on it (it is immutable): a loop's key
    holds its body's text, and each round of merging numbers the loop again (a body in
    tests/test_cond_in_loop.py: up to 40,000 characters, printed each round before)."""
    text = part.__dict__.get(_TEXT)
    if text is None:
        text = part.__dict__[_TEXT] = repr(part)  # not a field: as Node.children's
    return text


_TEXT = "_text"  # a LoopBody's repr, kept on it by _body_text


# -- common subexpressions -------------------------------------------------------------


def _mutable(statements: Iterable[ArrayStatement]) -> set[str]:
    """The names written in place (a store ``target[at] = ...``) or assigned twice."""
    seen: set[str] = set()
    mutable: set[str] = set()
    for s in statements:
        if s.at or s.target in seen:
            mutable.add(s.target)
        seen.add(s.target)
    return mutable


def _bare(node: Node, numbers: _Numbering) -> Node:
    """A value without the factors 1.0 in front of a floating-point value (a leaf's
    fresh copy of a value another statement computes: the same numbers; in front of a
    comparison the factor makes it a number, and stays)."""
    numbers.number(node)
    while (
        isinstance(node, BinOp)
        and node.op == "*"
        and ir.number(node.left) == 1.0
        and numbers.of[id(node.right)] in numbers.floating
    ):
        node = node.right
    return node


_FLOAT_CALLS = frozenset(CALLS_FLOATING)


def _floating(
    node: Node, children: list[bool], floating: set[int], values: Mapping[str, int]
) -> bool:
    """Whether ``node``'s value is known to be a floating-point array from its kind and
    whether its children's are (``children``, in :meth:`Node.children` order)."""
    if isinstance(node, Const):
        return isinstance(node.value, (float, np.floating))
    if isinstance(node, Name):
        return values.get(node.id) in floating
    if isinstance(node, BinOp):
        return node.op in ("+", "-", "*", "/", "**") and any(children)
    if isinstance(node, (UnaryOp, Index)):
        return children[0]
    if isinstance(node, Formula):
        return any(children) and isinstance(node.expr, sympy.Expr) and not node.expr.is_Relational
    if isinstance(node, AsType):
        return node.dtype == "float"
    if isinstance(node, (Scatter, ScatterAdd, SegmentSum)):
        return True  # made in doubles (_scatter's zeros, a copy as float, bincount's)
    if isinstance(node, (Seq, Entries)):
        return bool(children) and all(children)
    if isinstance(node, Call):
        name = node.func.rpartition(".")[2]
        dtype = node.keyword("dtype")
        if dtype is not None:
            return isinstance(dtype, Const) and dtype.value is float
        if name in _FLOAT_CALLS:
            return True
        if name in ("zeros", "ones", "full", "eye"):
            return name != "full" or children[-1]
        if name == "einsum":
            return any(children[1:])
        if name == "where":
            return all(children[1:])
        if name in (*VIEWS, *_REDUCTIONS, "flip", "concatenate", "stack", "take", "pad"):
            return bool(children) and children[0]
    return False


def _shareable(node: Node, numbers: _Numbering) -> bool:
    """Whether a subtree is worth a statement of its own when it is computed twice: it
    computes (not a name, a literal, a view or a list of operands) and reads a name (a
    constant expression is folded), or it allocates (``zeros``, ``eye``)."""
    if isinstance(node, (Name, Const, Slice, Seq, Dict, SparseMatrix)):
        return False
    if isinstance(node, Call) and node.func in VIEWS:
        return False
    if isinstance(node, Index) and all(isinstance(i, (Const, Slice)) for i in node.items):
        return False  # a view; a gather (an index array) is shared
    if isinstance(node, Formula) and node.expr.is_Symbol:
        return False  # its operand itself
    if isinstance(node, Call) and node.func in MOVES:
        return True  # an allocation (zeros, eye): made once
    return id(node) in numbers.reads


def common_subexpressions(
    statements: list[ArrayStatement], results: Iterable[str], prefix: str = "_c"
) -> list[ArrayStatement]:
    """Each value computed once (the module docstring says which are merged).

    Parameters
    ----------
    statements
        The program's statements, in evaluation order.
    results
        The names the program returns: never replaced by another name.
    prefix
        New statements are named ``<prefix>1``, ``<prefix>2``, ... (names not taken).

    Returns
    -------
    list of ArrayStatement
        The statements, in an order that defines every name before it is read.

    >>> x, e = Name("x"), Call("exp", (Name("x"),))
    >>> S = ArrayStatement
    >>> out = common_subexpressions([S("a", BinOp("+", e, e)), S("b", BinOp("*", e, x))], ["b"])
    >>> [(s.target, sorted(ir.names_in(s.value))) for s in out]
    [('_c1', ['x']), ('a', ['_c1']), ('b', ['_c1', 'x'])]
    """
    ends = set(results)
    mutable = _mutable(statements)
    numbers = _Numbering(mutable)
    statements = _merge_statements(statements, ends, numbers)  # numbers every statement
    count: dict[int, int] = {}
    first: dict[int, tuple[int, Node]] = {}  # number -> (statement, its first node)
    order: list[int] = []  # the shared numbers, each after those it contains
    definer: dict[int, int] = {}  # number -> the statement whose whole value it is

    def visit(k: int, root: Node) -> None:
        stack: list[tuple[Node, bool]] = [(root, False)]
        while stack:
            node, done = stack.pop()
            number = numbers.of[id(node)]
            if done:
                if number not in first:
                    first[number] = (k, node)
                    order.append(number)
                continue
            shared = _shareable(node, numbers) and number not in numbers.impure
            if shared:
                count[number] = count.get(number, 0) + 1
                if count[number] > 1:
                    continue  # computed once: what it contains counted once
            stack.append((node, True))
            stack.extend((c, False) for c in reversed(numbers.kids(node)))

    for k, s in enumerate(statements):
        number = numbers.of[id(s.value)]
        root = not s.at and s.target not in mutable and number not in numbers.impure
        if root and number not in definer and _shareable(s.value, numbers):
            definer[number] = k
        elif root and number in definer and s.target not in ends:
            pass  # equal to an earlier statement's value: merged below as a use
        elif root:  # a result equal to an earlier value: computed again, its parts shared
            for child in numbers.kids(s.value):
                visit(k, child)
            for item in s.at:
                visit(k, item)
            continue
        visit(k, s.value)
        for item in s.at:
            visit(k, item)
    shared = {n for n, c in count.items() if c > 1}
    if not shared:
        return statements
    taken = {s.target for s in statements} | {n for s in statements for n in ir.names_in(s.value)}
    fresh = (f"{prefix}{j}" for j in range(1, 1 << 62) if f"{prefix}{j}" not in taken)
    name = {
        n: statements[definer[n]].target if n in definer else next(fresh)
        for n in order
        if n in shared
    }

    def rewritten(node: Node, own: int | None) -> Node:
        def replace(n: Node) -> Node | None:
            number = numbers.of.get(id(n))
            if number in name and number != own and _shareable(n, numbers):
                return Name(name[number])
            return None

        return ir.rebuilt(node, replace, numbers.kids)

    before: dict[int, list[ArrayStatement]] = {}
    moved: set[int] = set()
    for n in order:
        if n not in shared:
            continue
        k, node = first[n]
        if n in definer:
            if definer[n] == k:
                continue
            moved.add(definer[n])
            node = statements[definer[n]].value
        new = ArrayStatement(name[n], rewritten(node, n))
        before.setdefault(k, []).append(new)
    out: list[ArrayStatement] = []
    for k, s in enumerate(statements):
        out += before.get(k, [])
        if k in moved:
            continue
        own = numbers.of[id(s.value)] if definer.get(numbers.of[id(s.value)]) == k else None
        value = rewritten(s.value, own)
        if isinstance(value, Name) and value.id != s.target and s.target not in ends and not s.at:
            out.append(ArrayStatement(s.target, value))  # an alias: renamed away below
        else:
            out.append(ArrayStatement(s.target, value, tuple(rewritten(i, None) for i in s.at)))
    return _without_aliases(out, ends | mutable)


def _merge_statements(
    statements: list[ArrayStatement], ends: set[str], numbers: _Numbering
) -> list[ArrayStatement]:
    """A statement computing what an earlier one did (up to factors 1.0 in front: a
    leaf's copy) reads the earlier name instead; every statement kept is numbered
    (:meth:`_Numbering.assign`)."""
    mutable = numbers.mutable
    seen: dict[int, str] = {}
    alias: dict[str, str] = {}
    out = []
    for s in statements:
        value = ir.renamed(s.value, alias)
        at = tuple(ir.renamed(i, alias) for i in s.at)
        statement = ArrayStatement(s.target, value, at)
        numbers.assign(statement)
        number = numbers.number(_bare(value, numbers))
        plain = not at and s.target not in mutable and number not in numbers.impure
        if plain and number in seen and s.target not in ends:
            alias[s.target] = seen[number]
            continue
        if plain:
            seen.setdefault(number, s.target)
        out.append(statement)
    return out


def _without_aliases(statements: list[ArrayStatement], kept: set[str]) -> list[ArrayStatement]:
    """Statements ``a = b`` (a name not in ``kept``) dropped, ``a`` read as ``b``."""
    alias: dict[str, str] = {}
    out = []
    for s in statements:
        value = ir.renamed(s.value, alias)
        if isinstance(value, Name) and not s.at and s.target not in kept:
            alias[s.target] = value.id
            continue
        out.append(ArrayStatement(s.target, value, tuple(ir.renamed(i, alias) for i in s.at)))
    return out


# -- dead statements -------------------------------------------------------------------


def dead_statements(
    statements: list[ArrayStatement], results: Iterable[str]
) -> list[ArrayStatement]:
    """The statements the ``results`` need, in order: a store into an array (``at``) is
    needed when that array is, or when no statement here makes it (a buffer the caller
    gave); every other statement when a needed one reads its name.

    >>> S = ArrayStatement
    >>> kept = dead_statements([S("a", Name("x")), S("b", Name("a")), S("c", Name("x"))], ["b"])
    >>> [s.target for s in kept]
    ['a', 'b']
    """
    made = {s.target for s in statements if not s.at}
    needed = set(results)
    kept: list[ArrayStatement] = []
    for s in reversed(statements):
        if s.at:
            if s.target not in needed and s.target in made:
                continue
            needed.add(s.target)
            for item in s.at:
                needed |= ir.names_in(item)
        elif s.target in needed:
            needed.discard(s.target)
        else:
            continue
        needed |= ir.names_in(s.value)
        kept.append(s)
    return kept[::-1]


def optimize_statements(
    statements: list[ArrayStatement],
    results: Iterable[str],
    known: Mapping[str, Shape] | None = None,
) -> list[ArrayStatement]:
    """Dead statements dropped, then common subexpressions merged until none is left
    (a merge can make two statements equal; a few rounds at most), and what merging
    left unread dropped (:func:`dead_statements`, :func:`common_subexpressions`);
    first, products by what selections and structural zeros leave 0 as ``where``
    (:func:`selected_products`, ``known``: the constants' shapes)."""
    return _optimized(statements, results, known)[0]


def _optimized(
    statements: list[ArrayStatement],
    results: Iterable[str],
    known: Mapping[str, Shape] | None = None,
) -> tuple[list[ArrayStatement], bool]:
    """:func:`optimize_statements`, and whether it reached a fixed point (the statements
    given to it again come back equal): its rounds did, and so did every loop body's."""
    results = list(results)
    statements = [_body_optimized(s) for s in statements]
    statements = dead_statements(selected_products(statements, known, results), results)
    for _ in range(ROUNDS):
        merged = dead_statements(common_subexpressions(statements, results), results)
        if merged == statements:
            return statements, all(p.__dict__.get(_SETTLED) for p in _parts(statements))
        statements = merged
    return statements, False


def selected_products(
    statements: list[ArrayStatement],
    known: Mapping[str, Shape] | None = None,
    results: Iterable[str] | None = None,
) -> list[ArrayStatement]:
    """``m * X``, where ``m = where(c, 1.0, 0.0)`` is a selection's block (``select_n``'s
    partial by the operand ``c`` picks), as ``where(c, X, 0.0)``: a tangent of the
    branch not taken is left out, not multiplied by 0, so a NaN or an infinity there
    (``x*log(x)`` at ``x < 0`` in ``where(x > 0, x*log(x), 0)``) does not reach the
    result, as JAX's ``select_n`` tangent rule ``select(c, ȧ, ḃ)`` leaves it out.

    What such a rewrite makes is 0 outside ``c`` too, and so is every product by it
    (``r * Y``, ``r / Y``): each is printed as ``where(c, r * Y, 0.0)``, so a cotangent
    moved past the selection (reverse mode, a Jacobian's rows) meets a partial that is
    NaN in the untaken branch (``2 (A x - y)`` where ``y`` is missing, under
    ``np.nanmean``) as 0, not 0 · NaN: the derivative of the branch taken (Griewank and
    Walther 2008, §14.2; :mod:`dgraph.codegen.untaken_products` is the scalar path's
    rule). JAX's reverse rule multiplies, and ``jax.grad`` is NaN there; its forward
    mode, and this, are finite. Only the selection's blocks and what is made from them
    are read so: a vertex value (``where(c, a, 0) * inf`` in the program) is never
    rewritten.

    A derivative's segment sum (a take's adjoint, a product with a take's one-hot:
    :class:`~dgraph.codegen.ir.SegmentSum` with ``hits``) is 0 outside the entries its
    data lands on, the one-hot's structural zeros, and starts such a chain too
    (``sqrt(clip(d, 0))[k]``'s cotangent meets ``sqrt``'s infinite partial at the
    clipped entries not taken); and a move of a name known to be 0 outside ``c`` (a
    reshape, a transpose, a broadcast, a take at fixed positions), or of a selection's
    block (an n-d take's one-hot laid out), is 0 outside the same move of ``c`` (read at
    the name's shape: ``known``, the constants' shapes, with the statements' own, finds
    it), and so is an ``einsum`` by it that sums none of its axes longer than 1. A
    product by a number is left as it is (0 times it is 0).

    The zeros are restored once a chain, not once a product: a name of the chain that
    only further products and moves of it read (each 0 outside the same conditions, or
    more) is left as the program computes it, NaN or ∞ outside them included, and the
    ``where`` goes on the names something else reads (a sum, a reduction, a comparison,
    a loop, a denominator) and on the ``results``: the same values bit for bit, where
    every condition holds and outside (:func:`_restored`). Without ``results`` every
    name is taken as read so (one ``where`` a product)."""
    writes: dict[str, int] = {}
    for s in statements:
        writes[s.target] = writes.get(s.target, 0) + 1 + bool(s.at)
    zeros: dict[str, _Zero] = {}
    shapes = _Shapes(statements, writes, known)
    out = []
    links: dict[str, tuple[bool, tuple[str, ...]]] = {}  # guarded, the chain's names read
    consumed: dict[str, int] = {}
    joins: dict[str, tuple[tuple[Node, ...], tuple[str, ...]]] = {}  # conditions, names
    for s in statements:
        value, made, taken = s.value, None, []
        if isinstance(value, BinOp) and value.op in ("*", "/"):
            value, made = _selected(value, zeros, shapes, taken)
        guarded = value is not s.value
        out.append(s if not guarded else dataclasses.replace(s, value=value))
        if guarded:  # its where kept, or its readers', which hold its conditions
            _count(consumed, taken)
        if writes[s.target] != 1:
            continue
        found = _mask(s.value)
        if found is None and made is None:
            made = (
                _moved_mask(s.value)
                or _summed(s.value)
                or _moved(s.value, zeros, shapes, taken)
                or _contracted(s.value, zeros, shapes, taken)
            )
        joined = None
        if found is None and made is None:
            joined = _joined(s.value, zeros, shapes, taken)
        if joined is not None:
            made = _Zero(joined, None)
        held = (found[0],) if found is not None else () if made is None else made.conditions
        if any(writes.get(n, 0) > 1 for c in held for n in ir.names_in(c)):
            continue  # a condition read later must read what it read here
        if joined is not None:  # restored here where a side is bare; the sum is no link
            joins[s.target] = (joined, tuple(taken))
            _count(consumed, taken)
        elif found is not None:
            condition, picked = found
            zeros[s.target] = _Zero((condition if picked else Call("logical_not", (condition,)),),
                                    ir.Const(1.0), True)  # fmt: skip
        elif made is not None:
            zeros[s.target] = made
            links[s.target] = (guarded, tuple(taken))
            if not guarded:
                _count(consumed, taken)
    if results is None:
        return out
    chain = _Chain(zeros, links, joins, consumed)
    return _restored(statements, out, chain, shapes, frozenset(results))


def _joined(
    node: Node, zeros: Mapping[str, _Zero], shapes: _Shapes, taken: list[str]
) -> tuple[Node, ...] | None:
    """For ``a + b`` or ``a - b`` of names known to be 0 outside the same conditions, or
    of moves of such names (the same moves of them): those (the sum is 0 outside them
    too), else None; the two names listed in ``taken``."""
    if not (isinstance(node, BinOp) and node.op in ("+", "-")):
        return None
    found: list[tuple[Node, ...]] = []
    names: list[str] = []
    for side in (node.left, node.right):
        if isinstance(side, Name) and side.id in zeros:
            found.append(zeros[side.id].conditions)
            names.append(side.id)
            continue
        moved = _moved(side, zeros, shapes, names)
        if moved is None:
            return None
        found.append(moved.conditions)
    if set(found[0]) != set(found[1]):
        return None
    taken.extend(names)
    return found[0]


def _count(counts: dict[str, int], names: Iterable[str]) -> None:
    """Each of ``names`` counted once more in ``counts``."""
    for n in names:
        counts[n] = counts.get(n, 0) + 1


@dataclass(frozen=True)
class _Chain:
    """What :func:`selected_products` found: the names known to be 0 outside their
    conditions; how each link of a chain is made (a ``where`` of a product's, and the
    chain's names it reads); the sums of two ends (their conditions and sides); how
    many reads of each name are a link's."""

    zeros: Mapping[str, _Zero]
    links: Mapping[str, tuple[bool, tuple[str, ...]]]
    joins: Mapping[str, tuple[tuple[Node, ...], tuple[str, ...]]]
    consumed: Mapping[str, int]


def _restored(
    given: list[ArrayStatement],
    statements: list[ArrayStatement],
    chain: _Chain,
    shapes: _Shapes,
    results: frozenset[str],
) -> list[ArrayStatement]:
    """``statements`` with a chain's ``where`` only on its names read otherwise than as a
    product's factor or a move's operand (``consumed`` counts those reads), or returned.
    A guarded product no such read needs is written bare (``inner``: NaN outside its
    conditions, where 0·∞ met); a move or a product by a number of a bare name is bare
    too, and given the ``where`` where read so. Each reader of a bare name holds that
    name's conditions among its own (a product's are the conjunction of its factors',
    a move's the moved ones), so a ``where`` at the end zeros what every link left out.
    Two ends of a chain added (``joins``: the sides 0 outside the same conditions, a
    vjp's two paths to one input) take one ``where``, on their sum. A product whose
    ``where`` gives it its shape (``m * x``, ``x`` a scalar, reads ``x``) keeps it. The
    reads are counted in the statements ``given`` (a product reads a factor's value,
    not the name, where it is known: :func:`_read`)."""
    zeros, links, joins, consumed = chain.zeros, chain.links, chain.joins, chain.consumed
    reads: dict[str, int] = {}
    for s in given:
        _count(reads, (n.id for node in (s.value, *s.at) for n in ir.walk(node)
                       if isinstance(n, Name)))  # fmt: skip
    bare: set[str] = set()
    out = []
    for s in statements:
        link = links.get(s.target)
        if s.target in joins:
            held, sides = joins[s.target]
            if any(n in bare for n in sides):
                s = dataclasses.replace(
                    s, value=Call("where", (_all(held), s.value, ir.Const(0.0)))
                )
        if link is None:
            out.append(s)
            continue
        guarded, taken = link
        kept = s.target in results or reads.get(s.target, 0) > consumed.get(s.target, 0)
        if guarded and not kept:
            value = s.value.args[1]  # type: ignore[attr-defined]
            shape = shapes.of(value)
            if shape is not None and shape == shapes.of(s.value):
                s = dataclasses.replace(s, value=value)
                bare.add(s.target)
        elif not guarded and any(n in bare for n in taken):
            if kept:
                held = _all(zeros[s.target].conditions)
                s = dataclasses.replace(s, value=Call("where", (held, s.value, ir.Const(0.0))))
            else:
                bare.add(s.target)
        out.append(s)
    return out


@dataclass(frozen=True)
class _Zero:
    """A name that is 0 wherever one of ``conditions`` fails, and what a product reads
    in its place: its value where they all hold (``1.0``, or a name), or None (the name
    itself); ``exact``: one condition of the name's own shape (not one that broadcasts
    to it)."""

    conditions: tuple[Node, ...]
    inner: Node | None
    exact: bool = False


def _mask(node: Node) -> tuple[Node, bool] | None:
    """``(c, True)`` for ``where(c, 1.0, 0.0)``, ``(c, False)`` for ``where(c, 0.0, 1.0)``."""
    if not (isinstance(node, Call) and node.func == "where" and len(node.args) == 3):
        return None
    ones = tuple(ir.number(a) for a in node.args[1:])
    if ones == (1.0, 0.0):
        return node.args[0], True
    if ones == (0.0, 1.0):
        return node.args[0], False
    return None


def _selected(
    product: BinOp, zeros: Mapping[str, _Zero], shapes: _Shapes, taken: list[str]
) -> tuple[Node, _Zero | None]:
    """``product`` as ``where(c, product', 0.0)`` where factors of it (through ``*``, and
    a numerator's) are 0 unless ``c`` holds (the conjunction of their conditions),
    ``product'`` reading each such factor's value there; and what that makes known.
    Else ``product`` itself and None. ``taken``: the known names read so, listed."""
    conditions, value = _read(product, zeros, shapes, taken)
    if not conditions:
        return product, None
    scaled = product.op == "*" and any(_finite(side) for side in (product.left, product.right))
    if scaled and value == product:  # 0 by a number is 0: nothing to leave out
        return product, _Zero(conditions, None)
    inner = value if isinstance(value, (Name, Const)) else None
    return Call("where", (_all(conditions), value, ir.Const(0.0))), _Zero(conditions, inner)


def _finite(node: Node) -> bool:
    """Whether ``node`` is a finite number."""
    value = ir.number(node)
    return value is not None and math.isfinite(value)


def _all(conditions: tuple[Node, ...]) -> Node:
    held = conditions[0]
    for c in conditions[1:]:
        held = Call("logical_and", (held, c))
    return held


def _read(
    node: Node, zeros: Mapping[str, _Zero], shapes: _Shapes, taken: list[str]
) -> tuple[tuple[Node, ...], Node]:
    """The conditions ``node``'s known factors are 0 outside of, and ``node`` with each
    such factor read as its value where they hold (a factor 1.0 dropped); the order of
    the operations is kept (the same value, bit for bit, where they hold). ``taken``:
    the known names read so, listed."""
    if isinstance(node, Name) and node.id in zeros:
        zero = zeros[node.id]
        taken.append(node.id)
        return zero.conditions, node if zero.inner is None else zero.inner
    if not (isinstance(node, BinOp) and node.op in ("*", "/")):
        moved = _moved(node, zeros, shapes, taken)
        return ((), node) if moved is None else (moved.conditions, node)
    held, left = _read(node.left, zeros, shapes, taken)
    right = node.right
    if node.op == "*":
        more, right = _read(node.right, zeros, shapes, taken)
        held = (*held, *(c for c in more if c not in held))
    if not held:
        return (), node
    if node.op == "*" and ir.number(left) == 1.0:
        return held, right
    if node.op == "*" and ir.number(right) == 1.0:
        return held, left
    return held, BinOp(node.op, left, right)


# moves of an array's entries that a boolean array of its shape takes alike: the
# operand first, the other arguments literals (an axis, a shape)
_ALONG = frozenset(
    {"reshape", "ravel", "transpose", "swapaxes", "moveaxis", "flip", "broadcast_to",
     "asarray", "expand_dims", "squeeze"}
)  # fmt: skip


def _move_operand(node: Node) -> Node | None:
    """The array ``node`` moves (:data:`_ALONG`, a take, an index, a negation), else None."""
    if isinstance(node, UnaryOp) and node.op == "-":
        return node.operand
    if isinstance(node, Index) and node.items:
        return node.value
    if not (isinstance(node, Call) and node.args):
        return None
    if not all(isinstance(v, Const) for _, v in node.keywords):
        return None
    if node.func in ("take", "take_along_axis") and len(node.args) == 2:
        return node.args[0]
    if node.func in _ALONG and all(isinstance(a, Const) for a in node.args[1:]):
        return node.args[0]
    return None


def _with_operand(move: Node, operand: Node) -> Node:
    """``move`` of ``operand`` in place of its own."""
    if isinstance(move, UnaryOp):
        return operand  # a sign moves no entry
    if isinstance(move, Index):
        return dataclasses.replace(move, value=operand)
    flat = ("ravel", "reshape")
    if move.func in flat and isinstance(operand, Call) and operand.func in flat:  # type: ignore[attr-defined]
        operand = operand.args[0]  # C order both: the second reads the first's operand
    return dataclasses.replace(move, args=(operand, *move.args[1:]))  # type: ignore[arg-type]


def _moves(node: Node, found: Callable[[Node], bool]) -> tuple[list[Node], Node] | None:
    """The moves ``node`` applies, outermost first, to a node ``found`` accepts."""
    path = []
    while not found(node):
        inner = _move_operand(node)
        if inner is None:
            return None
        path.append(node)
        node = inner
    return path, node


def _moved(
    node: Node, zeros: Mapping[str, _Zero], shapes: _Shapes, taken: list[str] | None = None
) -> _Zero | None:
    """For moves of a name known to be 0 outside its conditions: 0 outside the same
    moves of them, read at the name's shape (None where that is not found); the name
    listed in ``taken``."""
    found = _moves(node, lambda n: isinstance(n, Name) and n.id in zeros)
    if found is None or not found[0]:
        return None
    path, name = found
    condition = _exact(name, zeros[name.id], shapes)  # type: ignore[union-attr]
    if condition is None:
        return None
    for move in reversed(path):
        condition = _with_operand(move, condition)
    if taken is not None:
        taken.append(name.id)  # type: ignore[union-attr]
    return _Zero((condition,), None, True)


def _exact(name: Name, zero: _Zero, shapes: _Shapes) -> Node | None:
    """``zero``'s conditions as one of ``name``'s shape (None: a shape not found)."""
    held = _all(zero.conditions)
    if zero.exact:
        return held
    shape, own = shapes.of(name), shapes.of(held)
    if shape is None or own is None:
        return None
    if own == shape:
        return held
    try:
        if tuple(np.broadcast_shapes(own, shape)) != shape:
            return None
    except ValueError:
        return None
    return Call("broadcast_to", (held, Const(shape)))


def _moved_mask(node: Node) -> _Zero | None:
    """For moves of a selection's block (a one-hot laid out: ``swapaxes(where(c, 1.0,
    0.0), 1, -1)``): 0 outside the same moves of its condition, 1 inside."""
    found = _moves(node, lambda n: _mask(n) is not None)
    if found is None or not found[0]:
        return None
    path, where = found
    condition, picked = _mask(where)  # type: ignore[misc]
    if not picked:
        condition = Call("logical_not", (condition,))
    for move in reversed(path):
        condition = _with_operand(move, condition)
    return _Zero((condition,), ir.Const(1.0), True)


def _contracted(
    node: Node, zeros: Mapping[str, _Zero], shapes: _Shapes, taken: list[str]
) -> _Zero | None:
    """For an ``einsum`` of two operands, one known to be 0 outside its conditions,
    that sums none of its axes but those of length 1 (the one-hot's of an n-d take, a
    product laid out): 0 outside those conditions laid along its output; that operand's
    name listed in ``taken``."""
    if not (isinstance(node, Call) and node.func == "einsum" and len(node.args) == 3):
        return None
    subscripts = node.args[0]
    if not (isinstance(subscripts, Const) and isinstance(subscripts.value, str)):
        return None
    inputs, _, out = subscripts.value.replace(" ", "").partition("->")
    labels = inputs.split(",")
    if "." in subscripts.value or len(labels) != 2 or len(set(out)) != len(out):
        return None
    for operand, own in zip(node.args[1:], labels, strict=True):
        moved: list[str] = []
        zero = _moved(operand, zeros, shapes, moved)
        if zero is None and isinstance(operand, Name) and operand.id in zeros:
            moved = [operand.id]
            zero = zeros[operand.id]
            condition = _exact(operand, zero, shapes)
            zero = None if condition is None else _Zero((condition,), None, True)
        shape = shapes.of(operand) if zero is not None else None
        if zero is None or shape is None or len(set(own)) != len(own) or len(own) != len(shape):
            continue
        size = dict(zip(own, shape, strict=True))
        if any(size[c] != 1 for c in own if c not in out):
            continue
        kept = [c for c in own if c in out]
        condition = zero.conditions[0]
        if len(kept) < len(own):
            condition = Call("reshape", (condition, Const(tuple(size[c] for c in kept))))
        order = sorted(range(len(kept)), key=lambda k: out.index(kept[k]))
        if order != list(range(len(kept))):
            condition = Call("transpose", (condition, Const(tuple(order))))
        if len(kept) < len(out):
            laid = tuple(size[c] if c in kept else 1 for c in out)
            condition = Call("reshape", (condition, Const(laid)))
        taken.extend(moved)
        return _Zero((condition,), None, len(kept) == len(out))
    return None


def _summed(node: Node) -> _Zero | None:
    """For moves of a derivative's segment sum (its ``hits`` given): 0 outside the same
    moves of the entries some data lands on (its sum of ``hits`` not 0)."""
    found = _moves(node, lambda n: isinstance(n, SegmentSum))
    if found is None:
        return None
    path, summed = found
    hits = summed.hits  # type: ignore[union-attr]
    if not isinstance(hits, Node) or not ir.names_in(hits) <= ir.names_in(summed):
        return None  # none, or names since renamed: not the positions it sums at
    condition: Node = BinOp("!=", SegmentSum(hits, summed.ids, summed.n), Const(0.0))  # type: ignore[union-attr]
    for move in reversed(path):
        condition = _with_operand(move, condition)
    return _Zero((condition,), None, True)


class _Shapes:
    """The shapes of the names ``statements`` make (each written once), found when first
    asked (:func:`_kept_shapes`), from ``known`` (the constants') and theirs."""

    def __init__(
        self,
        statements: list[ArrayStatement],
        writes: Mapping[str, int],
        known: Mapping[str, Shape] | None,
    ) -> None:
        self.values = {s.target: s.value for s in statements if writes[s.target] == 1}
        self.env: dict[str, Shape | None] = {k: tuple(v) for k, v in (known or {}).items()}

    def of(self, node: Node) -> Shape | None:
        """``node``'s shape (None: not found)."""
        stack = [n for n in ir.names_in(node) if n not in self.env]
        asked: set[str] = set()
        while stack:
            name = stack[-1]
            if name in self.env:
                stack.pop()
                continue
            value = self.values.get(name)
            missing = [] if value is None else [n for n in ir.names_in(value) if n not in self.env]
            if missing and name not in asked:
                asked.add(name)
                stack.extend(missing)
                continue
            stack.pop()
            shape = None if value is None or missing else _kept_shapes(value, self.env)[id(value)]
            self.env[name] = shape if isinstance(shape, tuple) else None
        shape = _kept_shapes(node, self.env)[id(node)]
        return shape if isinstance(shape, tuple) else None


def _parts(statements: list[ArrayStatement]) -> Iterator[LoopBody]:
    """The bodies (and conditions, branches) of the loops among ``statements``."""
    for s in statements:
        v = s.value
        if isinstance(v, Cond):
            yield from v.branches
        elif isinstance(v, (Loop, While)):
            yield v.body
            if isinstance(v, While):
                yield v.cond


def _body_optimized(statement: ArrayStatement) -> ArrayStatement:
    """A loop's statement with its body optimized as a program of its own (its
    arguments and results kept): nothing moves into or out of a loop."""
    loop = statement.value
    if isinstance(loop, Cond):  # each branch a program of its own
        parts = tuple(_part_optimized(p) for p in loop.branches)
        if parts == loop.branches:
            return statement
        return dataclasses.replace(statement, value=dataclasses.replace(loop, branches=parts))
    if not isinstance(loop, (Loop, While)):
        return statement
    parts = {"body": loop.body, **({"cond": loop.cond} if isinstance(loop, While) else {})}
    new = {}
    for field, part in parts.items():
        optimized = _part_optimized(part)
        if optimized is not part:
            new[field] = optimized
    if not new:
        return statement
    return dataclasses.replace(statement, value=dataclasses.replace(loop, **new))


def _part_optimized(part: LoopBody) -> LoopBody:
    """A loop body or branch optimized as a program of its own (``part`` itself where
    that changes nothing). One known to be optimized already (marked on it: it is
    immutable) is not optimized again: a symmetric Hessian's narrowed programs carry the
    loops the whole program's pass optimized (the RK4 loop's: two bodies of some 500
    statements, each optimized three times)."""
    if part.__dict__.get(_SETTLED):
        return part
    inner, settled = _optimized(list(part.statements), part.results)
    inner_t = tuple(inner)
    out = part if inner_t == part.statements else dataclasses.replace(part, statements=inner_t)
    if settled:
        out.__dict__[_SETTLED] = True  # not a field: equality, hashing and repr ignore it
    return out


_SETTLED = "_optimized"  # a LoopBody's mark: optimize_statements gives its statements back


def optimize(program: ArrayProgram) -> ArrayProgram:
    """``program`` with :func:`optimize_statements` applied (its text is not reprinted)."""
    statements = optimize_statements(program.statements, program.results)
    return dataclasses.replace(program, statements=statements)


# -- shapes ----------------------------------------------------------------------------


def array_shapes(
    program: ArrayProgram, known: Mapping[str, Shape] | None = None
) -> dict[str, Shape | None]:
    """The shape of each name the program makes (None where it cannot be found): from
    the arguments' shapes, the constants' (:attr:`~dgraph.codegen.ir.ArrayProgram.constant_shapes`,
    their arrays, or ``known``) and each node kind's rule.

    >>> p = ArrayProgram("f", ("x",), ((3,),), ("x",), [ArrayStatement("y",
    ...     Call("einsum", (Const("i,j->ij"), Name("x"), Name("x"))))], ["y"])
    >>> array_shapes(p)["y"]
    (3, 3)
    """
    env: dict[str, Shape | None] = dict(program.constant_shapes)
    env.update({k: tuple(np.shape(v)) for k, v in program.constants.items()})
    env.update({k: tuple(v) for k, v in (known or {}).items()})
    env.update({a: tuple(s) for a, s in zip(program.arguments, program.shapes, strict=True)})
    for s in program.statements:
        if s.at:
            continue
        env[s.target] = _kept_shapes(s.value, env)[id(s.value)]
    return env


def node_shapes(node: Node, env: Mapping[str, Shape | None]) -> dict[int, Any]:
    """The shape of each node under ``node``, by id (None where not found); ``env``: the
    names' shapes, as :func:`array_shapes` gives them."""
    return _node_shapes(node, env)


def _node_shapes(node: Node, env: Mapping[str, Shape | None]) -> dict[int, Any]:
    """Each node's shape under ``node`` by id (a list's: its items' shapes; a literal
    that is a parameter, not an array: None): a dict of the caller's own."""
    return dict(_kept_shapes(node, env))


def _kept_shapes(node: Node, env: Mapping[str, Shape | None]) -> dict[int, Any]:
    """:func:`_node_shapes`, found once per node and shapes of the names it reads: kept
    on ``node`` (it is immutable, and holds the nodes whose ids are the keys) with those
    shapes, and given again while they are the same, types included (the passes after
    the merging shape the same statements again and again: the footprint's check, the
    count, the narrowing of a symmetric Hessian). Read only: the caller must not change
    the dict it gets."""
    held = getattr(node, "__dict__", None)
    if held is None:
        return _shapes_found(node, env)
    kept = held.get(_SHAPES_KEPT)
    if kept is not None:
        names, seen, found = kept
        if _typed([env.get(n) for n in names]) == seen:
            return found
    else:
        names = tuple(sorted(ir.names_in(node)))
    found = _shapes_found(node, env)
    held[_SHAPES_KEPT] = (names, _typed([env.get(n) for n in names]), found)
    return found


_SHAPES_KEPT = "_shapes_of"  # a node's (names read, their shapes, its shapes by id)


def _typed(value: Any) -> Any:
    """``value`` (shapes: tuples, lists, None) with the type of each part, to compare:
    equal only where the shapes found from them are the same (3 and ``np.int64(3)`` are
    equal numbers, but not the same text in a shape printed from them)."""
    if type(value) is tuple and all(type(d) is int for d in value):
        return value
    if isinstance(value, (tuple, list)):
        return (type(value), tuple([_typed(v) for v in value]))
    return (type(value), value)


def _shapes_found(node: Node, env: Mapping[str, Shape | None]) -> dict[int, Any]:
    """Each node's shape under ``node`` by id, found (:func:`_node_shapes`): each one
    recorded as :func:`~dgraph.codegen.ir.fold` combines it, children first (so its
    children's are there already, none written twice)."""
    found: dict[int, Any] = {}

    def sh(c: Node) -> Any:  # a child's shape, found before its parent's
        return found[id(c)]

    def combine(n: Node, values: list[Any]) -> Any:
        try:
            shape = _shape(n, env, sh)
        except (ValueError, TypeError, IndexError, KeyError, AttributeError):
            shape = None
        found[id(n)] = shape
        return shape

    ir.fold(node, combine)
    return found


def _broadcast(shapes: Iterable[Any]) -> Shape | None:
    shapes = list(shapes)
    if any(s is None for s in shapes):
        return None
    return tuple(np.broadcast_shapes(*shapes))


def _const(node: Node | None) -> Any:
    if not isinstance(node, Const):
        raise ValueError("not a literal")
    return node.value


def _shape(n: Node, env: Mapping[str, Shape | None], sh: Callable[[Node], Any]) -> Any:
    """One node's shape from its children's (``sh``: a child's); None: not known."""
    if isinstance(n, Name):
        return env.get(n.id)
    if isinstance(n, Const):
        value = n.value
        return () if isinstance(value, (int, float, bool, np.number)) else None
    if isinstance(n, (BinOp,)):
        return _broadcast((sh(n.left), sh(n.right)))
    if isinstance(n, (UnaryOp, AsType)):
        return sh(n.operand)
    if isinstance(n, Formula):
        return _broadcast(sh(o) for _, o in n.operands)
    if isinstance(n, Seq):
        return [sh(i) for i in n.items]
    if isinstance(n, Scatter):
        return (n.size,)
    if isinstance(n, ScatterAdd):
        return sh(n.base)
    if isinstance(n, SegmentSum):
        return (n.n,)
    if isinstance(n, SparseMatrix):
        return tuple(n.shape)
    if isinstance(n, Entries):
        inner = _broadcast(sh(i) for i in n.items)
        return None if inner is None else (*n.shape, *inner)
    if isinstance(n, Index):
        if isinstance(sh(n.value), list):  # one result of linalg.eigh, qr, svd, slogdet
            return sh(n.value)[_const(n.items[0])]
        return _index_shape(sh(n.value), n.items, sh)
    if isinstance(n, Call):
        return _call_shape(n, sh)
    if isinstance(n, Item):
        return sh(n.value)[n.index]
    if isinstance(n, Loop):
        carries = [sh(c) for c in n.init]
        inside = _body_shapes(n.body, loop_arguments(n, sh))
        ys = [inside[r] for r in n.body.results[n.carries :]]
        return [*carries, *(None if y is None else (n.length, *y) for y in ys)]
    if isinstance(n, While):
        return [sh(c) for c in n.init]
    if isinstance(n, Cond):
        part = n.branches[0]
        shapes = [sh(o) for o in n.operands]
        if any(s is None or not isinstance(s, tuple) for s in shapes):
            raise TypeError("a cond operand of unknown shape")
        inside = _body_shapes(part, shapes)
        return [inside[r] for r in part.results]
    return None


def _body_shapes(part: LoopBody, shapes: list[Shape]) -> Mapping[str, Shape | None]:
    """:func:`array_shapes` of a loop body (or branch) whose arguments have ``shapes``,
    found once per body and shapes (kept on the body: it is immutable), not each time a
    program holding the loop is shaped (a symmetric Hessian's programs are, several
    times each)."""
    known = part.__dict__.setdefault("_shapes", {})  # not a field: as Node.children's
    key = tuple(tuple(s) for s in shapes)
    if key not in known:
        known[key] = array_shapes(part.program(key))
    return known[key]


def loop_arguments(n: Loop, sh) -> list[Shape]:
    """The shapes of a loop body's arguments: the carries', the xs' without their first
    axis, the invariants' (a TypeError where one is not known)."""
    shapes = [sh(c) for c in n.init]
    shapes += [tuple(sh(x))[1:] for x in n.xs]
    shapes += [sh(i) for i in n.invariants]
    if any(s is None or not isinstance(s, tuple) for s in shapes):
        raise TypeError("a loop argument of unknown shape")
    return shapes


def _index_shape(value: Shape | None, items: tuple[Node, ...], sh) -> Shape | None:
    """NumPy's indexing rule: by :func:`_indexed_shape` where every item is a slice, an
    integer or an integer array, else run on zero-strided stand-ins (which reads no
    entry but still gathers one per entry of the result: 10⁷ of them for a Hessian's
    index at 10⁶ unknowns)."""
    if value is None:
        return None
    key: list[Any] = []
    for item in items:
        if isinstance(item, Slice):
            key.append(slice(item.lower, item.upper, item.step))
        elif isinstance(item, Const):
            key.append(item.value)
        else:
            shape = sh(item)
            if shape is None:
                return None
            key.append(_Positions(tuple(shape)))
    found = _indexed_shape(tuple(value), key)
    if found is not None:
        return found
    key = [np.broadcast_to(np.zeros((), np.intp), k.shape) if isinstance(k, _Positions) else k
           for k in key]  # fmt: skip
    stand_in = np.broadcast_to(np.zeros((), np.int8), value)
    return tuple(stand_in[tuple(key)].shape)


@dataclass(frozen=True)
class _Positions:
    """An integer index array of this shape (its entries unknown)."""

    shape: Shape


def _indexed_shape(value: Shape, key: list[Any]) -> Shape | None:
    """The shape of an array of shape ``value`` indexed by ``key`` (slices, integers,
    :class:`_Positions`), by NumPy's rule: integers and arrays are advanced indices
    together where there is an array, their broadcast shape in their place where they
    are adjacent, else first; None where another kind of item or an axis of length 0
    under an array leaves it to NumPy. IndexError for an integer out of range or too
    many items, ValueError for shapes that do not broadcast (as NumPy raises)."""
    if any(k is Ellipsis or k is None for k in key):  # NumPy's (a new axis, the rest)
        return None
    if len(key) > len(value):
        raise IndexError("too many indices")
    arrays = any(isinstance(k, _Positions) for k in key)
    parts: list[tuple[bool, Shape]] = []  # (advanced, its dimensions), in axis order
    for k, d in zip(key, value, strict=False):
        if isinstance(k, slice):
            parts.append((False, (len(range(*k.indices(d))),)))
        elif isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)):
            if not -d <= k < d:
                raise IndexError(f"index {k} is out of bounds for an axis of length {d}")
            if arrays:
                parts.append((True, ()))
        elif isinstance(k, _Positions):
            if d == 0:
                return None
            parts.append((True, k.shape))
        else:
            return None
    parts += [(False, (d,)) for d in value[len(key) :]]
    if not arrays:
        return tuple(d for _, dims in parts for d in dims)
    at = [i for i, (advanced, _) in enumerate(parts) if advanced]
    shape = tuple(np.broadcast_shapes(*(parts[i][1] for i in at)))
    basic = [(i, dims) for i, (advanced, dims) in enumerate(parts) if not advanced]
    if at[-1] - at[0] + 1 == len(at):  # adjacent: in their place
        before = tuple(d for i, dims in basic if i < at[0] for d in dims)
        after = tuple(d for i, dims in basic if i > at[-1] for d in dims)
        return (*before, *shape, *after)
    return (*shape, *(d for _, dims in basic for d in dims))


def _call_shape(n: Call, sh) -> Any:
    f, args = n.func.rpartition(".")[2], n.args
    if table_name(n.func) is not None:
        return _table_shape(n, sh)
    if f in ("asarray", "array", "ascontiguousarray"):
        if isinstance(args[0], Const):
            return tuple(np.shape(args[0].value))
        return sh(args[0])
    if f in ("zeros", "ones", "full"):
        target = _const(args[0])
        return (target,) if isinstance(target, int) else tuple(target)
    if f == "eye":
        k = _const(args[0])
        return (k, k)
    if f == "arange":
        return (_const(args[0]),)
    if f == "zeros_like":
        return sh(args[0])
    if f == "result_type":
        return None
    return _broadcast(sh(a) for a in args)  # an elementwise function


def _table_shape(n: Call, sh) -> Any:
    """A call's shape by the shared table (:mod:`dgraph.codegen.call_shapes`): its array
    operands as :class:`~dgraph.codegen.call_shapes.Operand` (a list's items each; shape
    None where not known), its literals as themselves."""

    keywords = {k: _operand(v, sh) for k, v in n.keywords} if n.keywords else {}
    return call_shape(n.func, [_operand(a, sh) for a in n.args], keywords)


def _operand(a: Node, sh) -> Any:
    """What the table reads for ``a``: a literal's value, an array's :class:`Operand`."""
    if isinstance(a, Const):
        return a.value
    if isinstance(a, Seq):
        return [_operand(i, sh) for i in a.items]
    shape = sh(a)
    return Operand(shape if isinstance(shape, tuple) else None)


# -- counting --------------------------------------------------------------------------


@dataclass(frozen=True)
class ArrayCount:
    """An array program's operations in scalar operations, and the operations it could
    not count (their shapes were not found): ``"statement: kind"`` each."""

    ops: Ops
    uncounted: tuple[str, ...] = ()

    @property
    def complete(self) -> bool:
        return not self.uncounted

    def __str__(self) -> str:
        text = str(self.ops)
        if self.uncounted:
            text += f" (and {len(self.uncounted)} operations of unknown shape)"
        return text


def count_array_ops(program: ArrayProgram, known: Mapping[str, Shape] | None = None) -> ArrayCount:
    """The operations of ``program`` (the rule in the module docstring).

    Parameters
    ----------
    program
        The array program.
    known
        Shapes of names the program reads that are neither arguments nor kept constants
        (module constants whose arrays were not kept).

    >>> x = Name("x")
    >>> p = ArrayProgram("f", ("x",), ((4,),), ("x",), [
    ...     ArrayStatement("y", BinOp("*", Call("exp", (x,)), x)),
    ...     ArrayStatement("z", Call("einsum", (Const("i,j->ij"), Name("y"), x)))], ["z"])
    >>> count_array_ops(p).ops
    Ops(mults=20, adds=0, divs=0, calls=4, compares=0)
    """
    env = array_shapes(program, known)
    total = Ops()
    uncounted: list[str] = []
    for s in program.statements:
        shapes = _kept_shapes(s.value, env)
        if s.at:
            shapes = dict(shapes)
            for item in s.at:
                shapes.update(_kept_shapes(item, env))
        reads: set[int] = set()  # the nodes that read a name (the others are folded)
        for root in (s.value, *s.at):
            ir.fold(root, functools.partial(_reading, reads=reads))
        counted_at: set[int] = set()
        for root in (s.value, *s.at):
            stack = [root]  # each node once: a shared subtree is not walked again
            while stack:
                node = stack.pop()
                if id(node) in counted_at:
                    continue
                counted_at.add(id(node))
                stack.extend(node.children())
                ops = _node_ops(node, shapes, reads)
                if ops is None:
                    uncounted.append(f"{s.target}: {_kind(node)}")
                else:
                    total += ops
    return ArrayCount(total, tuple(uncounted))


def _kind(node: Node) -> str:
    if isinstance(node, Call):
        return node.func
    if isinstance(node, (BinOp, UnaryOp)):
        return node.op
    return type(node).__name__


def _times(ops: Ops, k: int) -> Ops:
    return Ops(ops.mults * k, ops.adds * k, ops.divs * k, ops.calls * k, ops.compares * k)


def _reading(node: Node, kids: list[bool], reads: set[int]) -> bool:
    """Whether ``node`` reads a name (``kids``: whether its children do), its id added to
    ``reads`` if so: a node that reads none is a constant, folded to a number (free, as
    in the scalar rule), known for every node of a tree in one pass (asked of each node,
    a walk of its subtree visited a deep statement's nodes its depth times)."""
    found = isinstance(node, Name) or any(kids)
    if found:
        reads.add(id(node))
    return found


def _node_ops(node: Node, shapes: dict[int, Any], reads: set[int]) -> Ops | None:
    """The operations of one node itself (not its children's); None: its shape unknown.
    ``reads``: the ids of the nodes that read a name (:func:`_reading`)."""
    one = _entry_ops(node, shapes, reads)
    if one is None or one == Ops():
        return one
    if isinstance(one, tuple):  # already a total (contractions, reductions, scatters)
        return one[0]
    shape = shapes.get(id(node))
    if not isinstance(shape, tuple):  # unknown, or several results (linalg.qr, svd)
        return None
    return _times(one, math.prod(shape))


def _entry_ops(node: Node, shapes: dict[int, Any], reads: set[int]) -> Ops | tuple[Ops] | None:
    """The operations per entry of an elementwise node, or ``(total,)`` for the others."""
    if isinstance(node, (Name, Const, Slice, Seq, Dict, SparseMatrix, Entries, Index, AsType)):
        return Ops()
    if isinstance(node, Item):
        return Ops()
    if isinstance(node, Loop):  # the body's count, once per step
        try:
            arguments = loop_arguments(node, lambda c: shapes.get(id(c)))
        except TypeError:
            return None
        inside = count_array_ops(node.body.program(arguments))
        return None if inside.uncounted else (_times(inside.ops, node.length),)
    if isinstance(node, (While, Cond)):
        return None  # its trip count / its branch is known only when it runs
    if isinstance(node, (Scatter, UnaryOp)) or id(node) not in reads:
        return Ops()  # a move; a negation is free; a constant is folded
    if isinstance(node, BinOp):
        padded = _padded_adds(node, shapes)
        return _binop_ops(node) if padded is None else (padded,)
    if isinstance(node, Formula):
        return count_ops([node.expr])
    if isinstance(node, ScatterAdd):
        sizes = [shapes.get(id(data)) for _, data in node.parts]
        return None if None in sizes else (Ops(adds=sum(math.prod(s) for s in sizes)),)
    if isinstance(node, SegmentSum):  # each of the n segments taken as nonempty
        data = shapes.get(id(node.data))
        return None if data is None else (Ops(adds=max(math.prod(data) - node.n, 0)),)
    if isinstance(node, Call):
        return _call_ops(node, shapes)
    return None


def _padded_adds(node: BinOp, shapes: dict[int, Any]) -> Ops | None:
    """``a + pad(d)`` (or ``pad(d) + a``) of one shape: an add per entry of ``d``, as
    the scatter-add it stands for (:func:`~dgraph.codegen.tensor.gathers.scatters_as_pads`)
    counts; adding a pad's zeros is no operation. A column of ``d`` spread to every
    ``step``-th place (:func:`~dgraph.codegen.tensor.gathers.spread`) counts ``d``'s
    entries too. None for other nodes."""
    if node.op != "+":
        return None
    shape = shapes.get(id(node))
    for pad, other in ((node.right, node.left), (node.left, node.right)):
        if not (shapes.get(id(other)) == shape == shapes.get(id(pad))):
            continue
        spread = _spread_column(pad.value) if isinstance(pad, Index) else None
        if isinstance(pad, Call) and pad.func == "pad" and pad.args:
            spread = _spread_column(pad.args[0])
            inner = shapes.get(id(pad.args[0] if spread is None else spread))
        else:
            inner = None if spread is None else shapes.get(id(spread))
        if isinstance(inner, tuple):
            return Ops(adds=math.prod(inner))
    return None


def _spread_column(node: Node) -> Node | None:
    """``d`` where ``node`` is ``ravel(pad(reshape(d, (m, 1)), widths))``: ``d``'s entries
    spread to every ``step``-th place (:func:`~dgraph.codegen.tensor.gathers.spread`)."""
    if not (isinstance(node, Call) and node.func == "ravel" and len(node.args) == 1):
        return None
    pad = node.args[0]
    if not (isinstance(pad, Call) and pad.func == "pad" and len(pad.args) == 2):
        return None
    column = pad.args[0]
    if not (isinstance(column, Call) and column.func == "reshape" and len(column.args) == 2):
        return None
    shape = column.args[1]
    if not (
        isinstance(shape, Const) and isinstance(shape.value, tuple) and shape.value[1:] == (1,)
    ):
        return None
    return column.args[0]


def _binop_ops(node: BinOp) -> Ops:
    if node.op in _COMPARISONS:
        return Ops(compares=1)
    if node.op in ("+", "-"):
        return Ops(adds=1)
    if node.op == "/":
        return Ops(divs=1)
    if node.op == "*":
        unit = ir.number(node.left) in (1.0, -1.0) or ir.number(node.right) in (1.0, -1.0)
        return Ops() if unit else Ops(mults=1)
    power = ir.number(node.right)
    if power is not None and power.is_integer() and 0 < abs(power) <= LARGEST_PRODUCT_POWER:
        return Ops(mults=int(abs(power)) - 1, divs=int(power < 0))
    return Ops(calls=1)


def _call_ops(node: Call, shapes: dict[int, Any]) -> Ops | tuple[Ops] | None:
    f = node.func.rpartition(".")[2]
    if f in MOVES:
        return Ops()
    if f == "einsum":
        out, operands = shapes.get(id(node)), [shapes.get(id(a)) for a in node.args[1:]]
        if out is None or any(not isinstance(o, tuple) for o in operands):
            return None
        terms = math.prod(einsum_sizes(_const(node.args[0]), operands)[1].values())
        return (Ops(mults=(len(operands) - 1) * terms, adds=terms - math.prod(out)),)
    if f in _REDUCTIONS:
        before, after = shapes.get(id(node.args[0])), shapes.get(id(node))
        if before is None or after is None:
            return None
        if f == "cumsum":
            axis = node.keyword("axis")
            n = math.prod(before)
            length = n if axis is None else before[_const(axis) % len(before)]
            return (Ops(adds=n - (n // length if length else 0)),)
        kind = "adds" if f == "sum" else "compares"
        return (Ops(**{kind: math.prod(before) - math.prod(after)}),)
    if f == "searchsorted":  # a binary search per query: ceil(log2(m + 1)) comparisons
        table, queries = shapes.get(id(node.args[0])), shapes.get(id(node))
        if not isinstance(table, tuple) or not isinstance(queries, tuple):
            return None
        steps = math.prod(table).bit_length()
        return (Ops(compares=steps * math.prod(queries)),)
    if f == "square":
        return Ops(mults=1)
    if f == "power":
        k = ir.number(node.args[1]) if len(node.args) > 1 else None
        if k is not None and k.is_integer() and 0 < abs(k) <= LARGEST_PRODUCT_POWER:
            return Ops(mults=int(abs(k)) - 1, divs=int(k < 0))
        return Ops(calls=1)
    if f in _COMPARES:
        return Ops(compares=_COMPARES[f])
    if f in _FREE:
        return Ops()
    return Ops(calls=1)
