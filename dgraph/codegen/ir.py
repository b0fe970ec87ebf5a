"""The straight-line programs dgraph generates code from, at every level.

A scalar :class:`Program`: named arguments, assignments of sympy expressions in evaluation
order and results (the IR the passes of :mod:`dgraph.codegen.passes` transform and the
scalar printers print). An :class:`ArrayProgram`: assignments of array nodes
(:class:`Node` and its kinds: elementwise arithmetic and formulas, array functions,
views and gathers, scatters, segment sums, the sparse result, a :class:`Loop` over a body
program of its own and the :class:`Item` that reads its outputs), what the tensor path
builds and every target prints with one method per node kind (NumPy and JAX:
:mod:`dgraph.codegen.printing`; C and CUDA: :mod:`dgraph.codegen.tensor.c_values`). A
scalar assignment is the array statement of a :class:`Formula` of shape ``()``
(:func:`scalar_statements`): sympy expressions cannot hold reshapes, gathers or sparse
assembly, so the array nodes carry them and embed the scalar IR for elementwise work."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import count
from typing import Any, Literal

import sympy

from ..core.rebuild import bottom_up
from ..errors import DGraphError
from .counting import Ops, count_ops, symbols_in

__all__ = [
    "STATEMENT_HEIGHT",
    "ArrayProgram",
    "ArrayStatement",
    "AsType",
    "Assignment",
    "BinOp",
    "Call",
    "Cond",
    "Const",
    "Dict",
    "Entries",
    "Formula",
    "Index",
    "Item",
    "Loop",
    "LoopBody",
    "Name",
    "Node",
    "Program",
    "Result",
    "Scatter",
    "ScatterAdd",
    "SegmentSum",
    "Seq",
    "Slice",
    "SparseMatrix",
    "Strategy",
    "UnaryOp",
    "While",
    "bottom_up",
    "fold",
    "fresh",
    "gather_paths",
    "gathered",
    "height",
    "in_order",
    "label_symbol",
    "live_ranges",
    "names_in",
    "number",
    "reads",
    "rebuilt",
    "renamed",
    "sorted_symbols",
    "straight_line",
    "substituted",
    "times",
    "value_symbol",
    "walk",
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
    ``shape`` per point (entries not listed are zero); ``arrays``: the same program as
    array statements of shape (), as its builder made them and its printers print them
    (:mod:`dgraph.codegen.lowering`; None for a program made by hand)."""

    name: str
    arguments: tuple[tuple[str, tuple[sympy.Symbol, ...]], ...]
    assignments: tuple[Assignment, ...]
    results: tuple[Result, ...]
    shape: tuple[int, ...]
    method: str = ""
    arrays: ArrayProgram | None = dataclasses.field(default=None, compare=False, repr=False)

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
    names = {_text(t) for t in taken}
    return (sympy.Symbol(f"{prefix}{k}") for k in count(1) if f"{prefix}{k}" not in names)


def sorted_symbols(symbols: Iterable[sympy.Symbol]) -> list[sympy.Symbol]:
    return sorted(symbols, key=_text, reverse=True)


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
            stack.extend((t, False) for t in order(symbols_in(definitions[s])) if t not in done)


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


# -- array statements -------------------------------------------------------------------
#
# The tensor path's program: straight-line assignments ``target = node`` over whole arrays.
# Nodes are target-neutral: a :class:`Call` names an array function (``exp``, ``einsum``,
# ``reshape``) that each printer maps to its library (``numpy.exp``, ``jnp.exp``, a C loop
# nest); what differs by target beyond a name is a kind of its own (:class:`Scatter`,
# :class:`SegmentSum`, :class:`SparseMatrix`); an elementwise scalar formula is a
# :class:`Formula` (a sympy expression over operand nodes, printed by each target's scalar
# printer). A scalar statement is one of shape ``()``.


class Node:
    """An array expression (immutable, hashable: equal nodes compute equal values)."""

    __slots__ = ()

    def children(self) -> tuple[Node, ...]:
        """The nodes among its fields, in field order (inside tuples too); found once per
        node (it is immutable) and kept on it, outside its fields: the passes, the
        evaluator and the printers ask each node again and again (some 4·10⁴ times while
        the minimal surface's Hessian is made at 10⁶ unknowns)."""
        try:
            return self.__dict__["_children"]
        except (AttributeError, KeyError):  # found once per node
            pass
        held = getattr(self, "__dict__", None)
        stack = [getattr(self, f) for f in reversed(_fields(type(self)))]
        listed: list[Node] = []
        while stack:
            value = stack.pop()
            if isinstance(value, Node):
                listed.append(value)
            elif isinstance(value, tuple):
                stack.extend(reversed(value))
        found = tuple(listed)
        if held is not None:
            held["_children"] = found  # not a field: equality, hashing and repr ignore it
        return found


@functools.cache
def _fields(kind: type) -> tuple[str, ...]:
    """The fields of a node kind that hold nodes (by their annotation)."""
    if not dataclasses.is_dataclass(kind):
        return ()
    return tuple(f.name for f in dataclasses.fields(kind) if "Node" in str(f.type))


@dataclass(frozen=True)
class Name(Node):
    """A named array: an argument, a statement's target, a module constant."""

    id: str


@dataclass(frozen=True)
class Const(Node):
    """A literal: a number, a string (einsum subscripts), a shape, an axis tuple, a dtype
    (``float``)."""

    value: Any


@dataclass(frozen=True)
class BinOp(Node):
    """``left op right`` elementwise (``+ - * / **``), or a comparison (``< <= == ...``)."""

    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class UnaryOp(Node):
    """``-operand`` (op ``-``)."""

    op: str
    operand: Node


@dataclass(frozen=True)
class Call(Node):
    """An array function ``func(*args, **keywords)``; ``special.<f>`` a special function."""

    func: str
    args: tuple[Node, ...] = ()
    keywords: tuple[tuple[str, Node], ...] = ()

    def keyword(self, name: str) -> Node | None:
        return next((v for k, v in self.keywords if k == name), None)


@dataclass(frozen=True)
class AsType(Node):
    """``operand`` converted to ``dtype`` (``int``: truncated; ``float``)."""

    operand: Node
    dtype: str


@dataclass(frozen=True)
class Slice(Node):
    """``lower:upper:step`` inside an :class:`Index` (None: omitted)."""

    lower: int | None
    upper: int | None
    step: int | None = None


@dataclass(frozen=True)
class Index(Node):
    """``value[items]``: integers and slices (a strided view) or one integer array (a
    gather)."""

    value: Node
    items: tuple[Node, ...]


@dataclass(frozen=True)
class Seq(Node):
    """A list of arrays (``concatenate``'s, ``stack``'s operands)."""

    items: tuple[Node, ...]


@dataclass(frozen=True)
class Formula(Node):
    """An elementwise scalar formula: ``expr`` with each symbol standing for the entries
    of its operand node (broadcast together)."""

    expr: sympy.Expr
    operands: tuple[tuple[sympy.Symbol, Node], ...]


@dataclass(frozen=True)
class Scatter(Node):
    """A vector of ``size`` zeros with ``data`` at the positions ``flat`` (each once)."""

    size: int
    flat: Node
    data: Node


@dataclass(frozen=True)
class ScatterAdd(Node):
    """A copy of the vector ``base`` with each part's data added at its positions (each
    position once a part)."""

    base: Node
    parts: tuple[tuple[Node, Node], ...]


@dataclass(frozen=True)
class SegmentSum(Node):
    """Entry k: the sum of ``data`` where ``ids`` is k, for k < ``n``. ``hits``: where
    given (a derivative's sum: a take's adjoint, a product with its one-hot), data of
    ones where ``data`` lands and 0 where it does not (an out-of-range position): the
    entries whose sum of ``hits`` is 0 are structural zeros, which
    :func:`~dgraph.codegen.array_passes.selected_products` keeps 0 through the products
    that follow. No child (not printed, counted or renamed), and no part of equality."""

    data: Node
    ids: Node
    n: int
    hits: object = dataclasses.field(default=None, compare=False)


@dataclass(frozen=True)
class SparseMatrix(Node):
    """The sparse (m, n) result: ``data`` at a fixed pattern (CSR ``indices``/``indptr``
    for NumPy, BCOO's (nnz, 2) indices in ``indices`` for JAX); no data: empty."""

    data: Node | None
    indices: Node | None
    indptr: Node | None
    shape: tuple[int, int]


@dataclass(frozen=True)
class Dict(Node):
    """``{key: value}`` with string keys (the outputs' values F)."""

    items: tuple[tuple[str, Node], ...]


@dataclass(frozen=True)
class Entries(Node):
    """The array of ``shape`` whose entries, in row-major order, are ``items`` (broadcast
    together: entries that hold a batch of points keep its axes last)."""

    items: tuple[Node, ...]
    shape: tuple[int, ...]


@dataclass(frozen=True)
class ArrayStatement:
    """``target = value``: one statement of an array program; with ``at``, a store
    ``target[at] = value`` into an array that exists."""

    target: str
    value: Node
    at: tuple[Node, ...] = ()


@dataclass
class ArrayProgram:
    """A tensor graph's generated function as array statements (after every pass): its
    name, arguments (the inputs' names in the code) and their shapes, statements, the
    names it returns, the module constants (their arrays where kept) and the module
    text the dialect's printer made of it; the constants' shapes (kept or not: what
    counting the program's operations needs); the patterns of the blocks it writes in
    JAX's delta form, by name (:class:`~.tensor.delta_form.DeltaPattern`)."""

    name: str
    arguments: tuple[str, ...]
    shapes: tuple[tuple[int, ...], ...]
    inputs: tuple[str, ...]
    statements: list[ArrayStatement]
    results: list[str]
    constants: dict[str, Any] = dataclasses.field(default_factory=dict)  # name: array
    text: str = ""
    constant_shapes: dict[str, tuple[int, ...]] = dataclasses.field(default_factory=dict)
    deltas: dict[str, Any] = dataclasses.field(default_factory=dict)  # name: DeltaPattern


@dataclass(frozen=True)
class LoopBody:
    """A :class:`Loop`'s step as a program of its own: it reads only its ``arguments``
    (the carries, then the step's slices of the xs, then the loop-invariant values) and
    its own targets, and returns ``results`` (the new carries, then the step's ys)."""

    arguments: tuple[str, ...]
    statements: tuple[ArrayStatement, ...]
    results: tuple[str, ...]

    def program(self, shapes: Iterable[tuple[int, ...]], name: str = "body") -> ArrayProgram:
        """The body as an :class:`ArrayProgram` whose arguments have ``shapes`` (what the
        passes that work on whole programs take)."""
        shapes = tuple(tuple(s) for s in shapes)
        return ArrayProgram(
            name, self.arguments, shapes, self.arguments, list(self.statements), list(self.results)
        )


@dataclass(frozen=True)
class Loop(Node):
    """A loop of ``length`` steps (``jax.lax.scan``'s meaning): the carries start at
    ``init``; step t (t = 0 .. length-1, or downwards with ``reverse``) runs ``body`` on
    the carries, the slices ``x[t]`` of each of ``xs`` (along axis 0) and ``invariants``,
    and its results are the new carries, then the step's ys. The loop's value is a tuple:
    the final carries, then each y stacked along a new axis 0 (``ys[t]`` the y of step
    t, also in reverse), read by :class:`Item`. Only a statement's whole value (a
    printer writes it as a loop, not as an expression); the body is not among the
    node's children, so a pass over nodes never reaches into it nor moves a statement
    across the loop's boundary."""

    init: tuple[Node, ...]
    xs: tuple[Node, ...]
    invariants: tuple[Node, ...]
    body: LoopBody
    length: int
    reverse: bool = False

    def __post_init__(self) -> None:
        arguments = len(self.init) + len(self.xs) + len(self.invariants)
        if len(self.body.arguments) != arguments:
            raise DGraphError(
                f"a loop body takes {len(self.body.arguments)} arguments, not the {arguments}"
                " carries, slices and invariants"
            )
        if len(self.body.results) < len(self.init):
            raise DGraphError("a loop body returns fewer results than the loop carries")
        if self.length < 1:
            raise DGraphError(f"a loop of {self.length} steps")

    @property
    def carries(self) -> int:
        """How many carried values."""
        return len(self.init)

    @property
    def ys(self) -> int:
        """How many per-step outputs (stacked)."""
        return len(self.body.results) - len(self.init)


@dataclass(frozen=True)
class While(Node):
    """A loop run while ``cond`` holds (``jax.lax.while_loop``'s meaning): the carries start
    at ``init``; ``cond`` and ``body`` both take the carries, then ``invariants``;
    ``cond`` returns one boolean scalar, ``body`` the new carries. Its value is the tuple
    of the final carries (read by :class:`Item`); the trip count is known only when it
    runs. A statement's whole value, as a :class:`Loop` is."""

    init: tuple[Node, ...]
    invariants: tuple[Node, ...]
    cond: LoopBody
    body: LoopBody

    def __post_init__(self) -> None:
        arguments = len(self.init) + len(self.invariants)
        for part in (self.cond, self.body):
            if len(part.arguments) != arguments:
                raise DGraphError(
                    f"a while loop's program takes {len(part.arguments)} arguments, not the"
                    f" {arguments} carries and invariants"
                )
        if len(self.cond.results) != 1 or len(self.body.results) != len(self.init):
            raise DGraphError("a while loop's condition returns one value, its body the carries")

    @property
    def carries(self) -> int:
        return len(self.init)


@dataclass(frozen=True)
class Cond(Node):
    """One of ``branches`` run (``jax.lax.switch``'s meaning): ``index``, clamped to
    ``0 .. len(branches) - 1``, chooses it at run time; each branch takes ``operands``
    and returns as many results as the others. Its value is the tuple of the taken
    branch's results (read by :class:`Item`); the others never run. A statement's whole
    value, as a :class:`Loop` is."""

    index: Node
    operands: tuple[Node, ...]
    branches: tuple[LoopBody, ...]

    def __post_init__(self) -> None:
        if not self.branches:
            raise DGraphError("a cond of no branches")
        results = len(self.branches[0].results)
        for part in self.branches:
            if len(part.arguments) != len(self.operands):
                raise DGraphError(
                    f"a cond branch takes {len(part.arguments)} arguments, not the"
                    f" {len(self.operands)} operands"
                )
            if len(part.results) != results:
                raise DGraphError("the branches of a cond return different numbers of results")


@dataclass(frozen=True)
class Item(Node):
    """Entry ``index`` of a tuple value (a :class:`Loop`'s final carries, then its ys)."""

    value: Node
    index: int


def walk(node: Node) -> Iterator[Node]:
    """``node`` and every node under it, without recursion."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.children())


def names_in(node: Node) -> frozenset[str]:
    """The names ``node`` reads; found once per node asked (it is immutable) and kept on
    it, as :meth:`Node.children` is: the passes ask each statement's value again and
    again (366,164 times, 3.0 of the 27 CPU-s profiled, for 20 RK4 steps of a rigid
    body)."""
    held = getattr(node, "__dict__", None)
    if held is None:
        return frozenset({n.id for n in walk(node) if isinstance(n, Name)})
    found = held.get("_names")
    if found is not None:
        return found
    # each node under it once (a node read twice is walked once), and a node asked
    # before read from what it holds; kept on the node asked only: sets for every node
    # of a long chain of sums would hold a number of names quadratic in its length
    names: set[str] = set()
    seen: set[int] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        known = getattr(n, "__dict__", {}).get("_names")
        if known is not None:
            names |= known
        elif isinstance(n, Name):
            names.add(n.id)
        else:
            stack.extend(n.children())
    found = frozenset(names)
    held["_names"] = found  # not a field: equality, hashing and repr ignore it
    return found


GATHER_CALLS = ("take", "take_along_axis")
"""The :class:`Call` names that gather entries at an index array."""


def gathered(node: Node) -> list[Node]:
    """The operands ``node`` gathers entries of at an index array (``take``,
    ``take_along_axis``, an :class:`Index` by an array), outermost first."""
    found = []
    for n in walk(node):
        if isinstance(n, Call) and n.func in GATHER_CALLS and n.args:
            found.append(n.args[0])
        elif isinstance(n, Index) and any(not isinstance(i, (Slice, Const)) for i in n.items):
            found.append(n.value)
    return found


def gather_paths(statements: Sequence[ArrayStatement]) -> int:
    """A bound on the places at which a chain of gathers through ``statements`` reads a
    value they compute: along each chain the product of how many gathers read each link
    (a name gathered at 5 index arrays, whose gathers feed a name gathered at 5 more:
    25), counted from what they read from before them (1: no gather of a value they
    compute). XLA's older CPU emitters compile a fused chain in time growing with it
    (:mod:`dgraph.codegen.tensor.jit_arguments`)."""
    assigned = {s.target for s in statements}
    fan: dict[str, int] = {}  # how many gathers read each name they compute
    for s in statements:
        for operand in gathered(s.value):
            for n in names_in(operand) & assigned:
                fan[n] = fan.get(n, 0) + 1
    paths: dict[str, int] = {}
    most = 1
    for s in statements:
        reads = names_in(s.value).union(*(names_in(a) for a in s.at))
        found = max((paths.get(n, 1) for n in reads), default=1)
        for operand in gathered(s.value):
            inner = [paths.get(n, 1) * fan[n] for n in names_in(operand) if n in fan]
            if inner:
                found = max(found, *inner)
        paths[s.target] = found
        most = max(most, found)
    return most


def straight_line(statements: Iterable[ArrayStatement]) -> bool:
    """Whether ``statements`` are assignments only: no store into an existing array and no
    loop or branch (what the printed form's rewrites of a Hessian's body assume)."""
    return not any(s.at or isinstance(s.value, (Loop, While, Cond)) for s in statements)


def reads(statements: Iterable[ArrayStatement]) -> dict[str, int]:
    """How many times each name is read in ``statements`` (each occurrence counted)."""
    count: dict[str, int] = {}
    for s in statements:
        for n in walk(s.value):
            if isinstance(n, Name):
                count[n.id] = count.get(n.id, 0) + 1
    return count


def renamed(node: Node, names: Mapping[str, str]) -> Node:
    """``node`` with the names in ``names`` replaced (each node once)."""
    if not names or not (names_in(node) & names.keys()):
        return node
    return rebuilt(
        node, lambda n: Name(names[n.id]) if isinstance(n, Name) and n.id in names else None
    )


def substituted(node: Node, mapping: Mapping[Node, Node]) -> Node:
    """``node`` with every subexpression equal to a key of ``mapping`` replaced."""
    return rebuilt(node, mapping.get)


def fold(
    node: Node,
    combine: Callable[[Node, list[Any]], Any],
    whole: Mapping[Node, Any] | Callable[[Node], Any] | None = None,
    kids: Callable[[Node], tuple[Node, ...]] = Node.children,
) -> Any:
    """``combine(n, [the values of n's children])`` for ``node`` and every node under it,
    children first, each node once, without recursion: the one traversal of the array
    passes, the shapes, the evaluator and the printers.

    Parameters
    ----------
    whole
        A node's value given instead of combined, its subtree not descended into: a
        mapping's value for its keys, or a function's where it is not None (outermost
        nodes asked first).
    kids
        A node's children (:meth:`Node.children`; a pass that asks often remembers them).
    """
    instead = whole.get if isinstance(whole, Mapping) else whole
    done: dict[int, Any] = {}
    # a node's children, once found, ride on the stack with it (None: not yet expanded)
    stack: list[tuple[Node, tuple[Node, ...] | None]] = [(node, None)]
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        n, children = pop()
        key = id(n)
        if key in done:
            continue
        if children is None:
            if instead is not None:
                value = instead(n)
                if value is not None:
                    done[key] = value
                    continue
            children = kids(n)
            if children:
                push((n, children))
                extend((c, None) for c in children if id(c) not in done)
                continue
        done[key] = combine(n, [done[id(c)] for c in children])
    return done[id(node)]


def rebuilt(
    node: Node,
    replace: Callable[[Node], Node | None],
    kids: Callable[[Node], tuple[Node, ...]] = Node.children,
) -> Node:
    """``node`` with each subtree for which ``replace`` gives a node swapped for it
    (outermost first); the subtrees nothing changed in are kept as they are."""

    def combine(n: Node, values: list[Node]) -> Node:
        children = kids(n)
        for c, v in zip(children, values, strict=True):
            if v is not c:
                break
        else:
            return n
        swap = {id(c): v for c, v in zip(children, values, strict=True)}
        return type(n)(
            **{f.name: _swapped(getattr(n, f.name), swap) for f in dataclasses.fields(n)}
        )  # type: ignore[arg-type]

    return fold(node, combine, replace, kids)


def _swapped(value: Any, swap: dict[int, Node]) -> Any:
    if isinstance(value, Node):
        return swap.get(id(value), value)
    if isinstance(value, tuple):
        return tuple(_swapped(v, swap) for v in value)
    return value


def number(node: Node) -> float | None:
    """The number a node is (a :class:`Const` number, or minus one), else None."""
    if isinstance(node, Const) and isinstance(node.value, (int, float)):
        return float(node.value)
    if isinstance(node, UnaryOp) and node.op == "-":
        inner = number(node.operand)
        return None if inner is None else -inner
    return None


def times(a: Node, b: Node) -> Node:
    """``a * b``, numbers folded and factors 1 left out."""
    x, y = number(a), number(b)
    if x is not None and y is not None:
        return Const(x * y)
    if x == 1.0:
        return b
    if y == 1.0:
        return a
    return BinOp("*", a, b)


def scalar_statements(program: Program) -> ArrayProgram:
    """A scalar program as array statements of shape ``()``: each argument entry it reads
    by an :class:`Index`, each assignment a :class:`Formula` over the names it reads, each
    result a store ``name[i, j] = ...`` into the array ``program.name`` (entries not
    stored 0), so that one printer per target prints both levels
    (:mod:`dgraph.codegen.lowering`: the printers' views of them, batched or as one array).

    >>> x = sympy.Symbol("x")
    >>> s = sympy.Symbol("s")
    >>> p = Program("f", (("x", (x,)),), ((s, sympy.sin(x)),), (((0,), 2 * s),), (1,))
    >>> [(s.target, len(s.at)) for s in scalar_statements(p).statements]
    [('x', 0), ('s', 0), ('f', 1)]
    """
    used = set().union(
        *(_free(e) for _, e in program.assignments), *(_free(e) for _, e in program.results)
    )
    statements = [
        ArrayStatement(_text(s), Index(Name(name), (Const(k),)))
        for name, symbols in program.arguments
        for k, s in enumerate(symbols)
        if s in used
    ]
    statements += [ArrayStatement(_text(s), _formula(e)) for s, e in program.assignments]
    statements += [
        ArrayStatement(program.name, _formula(e), tuple(Const(int(i)) for i in index))
        for index, e in program.results
    ]
    names = tuple(name for name, _ in program.arguments)
    shapes = tuple((len(symbols),) for _, symbols in program.arguments)
    return ArrayProgram(program.name, names, shapes, names, statements, [program.name])


@functools.lru_cache(maxsize=2**14)
def _formula(expr: sympy.Expr) -> Node:
    """A scalar expression over named scalars as a node: a :class:`Name` or a
    :class:`Formula` whose operands are the names themselves (remembered, like
    :func:`_free`)."""
    if expr.is_Symbol:
        return Name(_text(expr))
    if expr.is_Number:
        return Formula(expr, ())
    return Formula(expr, tuple((s, Name(_text(s))) for s in sorted(_free(expr), key=_text)))


def _text(symbol: sympy.Symbol) -> str:
    """``str(symbol)``, without sympy's printer for a plain symbol (its name)."""
    return symbol.name if type(symbol) is sympy.Symbol else str(symbol)


@functools.lru_cache(maxsize=2**14)
def _free(expr: sympy.Expr) -> frozenset[sympy.Symbol]:
    """``expr.free_symbols``, remembered (sympy walks the tree on every call, and a
    program is lowered more than once: by its builder, by each printer)."""
    return frozenset(expr.free_symbols)
