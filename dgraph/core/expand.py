"""The element-level graph of an array graph: every array vertex expanded into its scalars.

An array vertex of shape ``s`` computes one array operation
(:class:`~dgraph.blocks.arrays.ArrayOp`); expanded, each of its ``prod(s)`` elements is a
scalar vertex whose elemental function is the operation written in sympy over its
operands' element symbols, so each scalar edge's label is that function's partial (the
same kind of graph the sympy and trace readers make, which accumulation, counting,
verification and the scalar code generator read). The structure the blocks describe
comes out of the expressions themselves: an elementwise operation reads one element of
each operand (a diagonal), ``dot_general`` one sum of products per entry (a dense or
Kronecker block), ``reduce_sum`` one n-ary sum (a row of ones); a constant zero factor
leaves a term out, so a zero entry of a block makes no edge.

``stop_gradient`` of a value that depends on the inputs is
:class:`~dgraph.core.elementary.StopGradient` of its elements, inside the expressions
that read them: their value, derivative 0 (an edge of partial 0 from a vertex only it
reads, as from one only a condition reads). A custom derivative rule, which the array
reader writes ``t + stop_gradient(f(x) - t)`` (``t`` the rule's tangent map), so has its
primal's value and the rule's partials, as ``jax.jacfwd`` and ``jax.jacrev`` take them.

Moves (reshape, transpose, broadcast, slice, pad, concatenate, take, copies) only
rearrange elements: their elements are the operand's, and make no vertex; neither does
an element that folds to a number. Names: inputs and outputs as the readers name them
(``x`` for a scalar; ``x0, x1, ...`` for a vector; ``u_0_1`` for higher ranks);
element ``i`` of an intermediate ``t`` is ``t_i`` (``t`` where it has one element).

The expansion grows with the data, the array graph does not: :func:`expand` refuses in
one line above ``limit`` scalar edges, naming ``level="array"``: the blocks' nonzeros,
counted before anything is built, then the expanded graph's own edges, which also hold
those of partial 0 no block has (a running max, a stop-gradient or a condition read:
cumlogsumexp's 20 entries bound 210, expand to 267).
"""

from __future__ import annotations

import functools
import math
import operator
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy
from sympy.logic.boolalg import Boolean

from ..blocks import array_extra, convolution, scatter
from ..blocks.arrays import MOVES, REGIONS, ArrayOp, Const, move, rule_parts
from ..blocks.sorted_search import SEARCHSORTED, comparison_form
from ..errors import GraphError, InputError
from .algebra import real_symbol
from .elementary import (
    Logistic,
    RuleValue,
    ShiftHeld,
    StopGradient,
    expm1,
    isfinite,
    isinf,
    isnan,
    log1p,
    rint,
)

# The graphs read and built are DGraphs: graph.py imports this module for
# DGraph.elements, so this one names the type without importing it back.
DGraph = Any

__all__ = [
    "DEFAULT_EDGE_LIMIT",
    "EDGE_LIMIT",
    "NESTING_LIMIT",
    "ElementJvp",
    "NoElementLevel",
    "element_names",
    "expand",
    "scalar_edges",
]

# scalar edges an expansion may make: building costs tens to hundreds of µs an edge
# (elementwise to dense contractions), so 10⁵ is seconds to half a minute, and the scalar
# methods (elimination, search, verification) stay interactive on the result; beyond it
# the array level is the one to use
EDGE_LIMIT = 100_000

# scalar edges up to which a reader asked for no level in particular (from_python's
# level=None: make_function and jacobian of a Python function, the command line) reads the
# element level, the array level above: making a function of the element level costs
# 8-14 ms a scalar edge (27 for softmax, 45 for running maxima and products), of the array
# level about half a second whatever the size (200-entry functions: 3-57 CPU-s against
# 0.4-2.3; benchmarks/jacobian_levels.py, benchmarks/RESULTS.md), so 500 edges (a formula
# of a hundred operations, a few dozen entries of an array function) stay a few seconds
DEFAULT_EDGE_LIMIT = 500


class NoElementLevel(InputError):
    """The graph has no element level: an operation with none (a loop or a branch, a
    region) or more scalar edges than the limit (``edges``: how many; None for an
    operation with none). A reader asked for no level in particular reads the array
    level instead."""

    def __init__(self, message: str, edges: int | None = None) -> None:
        super().__init__(message)
        self.edges = edges
        self.array: DGraph | None = None  # the array level, where a reader has it read


def _select(pred, *cases):
    """``select_n(pred, *cases)``: case ``pred`` (a boolean picks case 1 when true)."""
    if all(isinstance(c, Boolean) and not isinstance(c, sympy.Expr) for c in cases):
        return _boolean_select(pred, cases)
    if len(cases) == 2:
        if pred is sympy.true or pred is sympy.false:
            return cases[1] if pred is sympy.true else cases[0]
        if isinstance(pred, sympy.Expr) and pred.is_Number:
            return cases[int(pred)]
        plain = cases[0] != cases[1] and not any(isinstance(c, sympy.Piecewise) for c in cases)
        return sympy.Piecewise((cases[1], _condition(pred)), (cases[0], True), evaluate=not plain)
    if isinstance(pred, sympy.Expr) and pred.is_Number:
        return cases[int(pred)]
    return sympy.Piecewise(
        *((c, sympy.Eq(pred, k)) for k, c in enumerate(cases[:-1])), (cases[-1], True)
    )


def _boolean_select(pred, cases):
    """A select among conditions as a condition: ``(p & c1) | (~p & c0)`` (a Piecewise
    of conditions is no condition: sympy takes ``Ne`` of it and 0 as true, so a select
    on ``where(c, a > 0, b < 1)`` always took its first case; nor is it rewritten as an
    ``ITE``, which sympy's printers simplify at length)."""
    if len(cases) == 2:
        if isinstance(pred, sympy.Expr) and pred.is_Number:
            return cases[int(pred)]
        held = _condition(pred)
        return sympy.Or(sympy.And(held, cases[1]), sympy.And(sympy.Not(held), cases[0]))
    if isinstance(pred, sympy.Expr) and pred.is_Number:
        return cases[int(pred)]
    picks = [sympy.And(sympy.Eq(pred, k), c) for k, c in enumerate(cases[:-1])]
    rest = sympy.And(*(sympy.Ne(pred, k) for k in range(len(cases) - 1)), cases[-1])
    return sympy.Or(*picks, rest)


def _condition(pred):
    """A predicate as a condition: a number (a boolean converted to float) compared to 0."""
    if isinstance(pred, sympy.logic.boolalg.Boolean) and not pred.is_Symbol:
        return pred
    held = _flag(pred)
    return sympy.Ne(pred, 0) if held is None else held


def _lattice(func: type, conditions: Sequence[Any]) -> Any:
    """``Or`` or ``And`` of ``conditions`` without sympy's check of every two relations
    for a complementary pair (quadratic: 2.6 s for an ``any`` of 1,000 NaN tests):
    repeats once, the identity left out, the absorbing element returned, the rest in
    sympy's order."""
    absorbing = sympy.true if func is sympy.Or else sympy.false
    if any(c is absorbing for c in conditions):
        return absorbing
    kept = list(dict.fromkeys(c for c in conditions if c is not sympy.Not(absorbing)))
    flat = [b for c in kept for b in (c.args if isinstance(c, func) else (c,))]
    flat = list(dict.fromkeys(flat))
    if len(flat) <= 2:
        return func(*flat)
    made = func._from_args(tuple(sympy.ordered(flat)))
    made._argset = frozenset(flat)  # as LatticeOp.__new__ keeps it
    return made


def _extreme(func: type, args: tuple) -> sympy.Expr:
    """``func`` (Max or Min) of elements without sympy's pairwise comparison of every
    two of them (quadratic, with an assumptions query each: 5 s for 40 symbols): nested
    ones of the same kind flattened, numbers folded into one, repeated elements once;
    where only distinct symbols are left, the result is written unevaluated."""
    held = [_flag(a) for a in args]
    if all(h is not None for h in held):  # any / all of conditions (reduce_or's rewrite)
        return _as_number(_lattice(sympy.Or if func is sympy.Max else sympy.And, held))
    flat = [b for a in args for b in (a.args if isinstance(a, func) else (a,))]
    numbers = [a for a in flat if a.is_Number]
    rest = list(dict.fromkeys(a for a in flat if not a.is_Number))
    if not rest or any(not a.is_Symbol for a in rest):
        return func(*args)
    if numbers:
        folded = func(*numbers)
        if folded != (sympy.S.NegativeInfinity if func is sympy.Max else sympy.S.Infinity):
            rest.append(folded)
    return rest[0] if len(rest) == 1 else func(*rest, evaluate=False)


def _max(*args: sympy.Expr) -> sympy.Expr:
    return _extreme(sympy.Max, args)


def _min(*args: sympy.Expr) -> sympy.Expr:
    return _extreme(sympy.Min, args)


# a scatter's combination of an entry with the updates aimed at it
_COMBINE = {"scatter_add": sympy.Add, "scatter_mul": sympy.Mul, "scatter_min": _min}
_COMBINE["scatter_max"] = _max


def _as_number(value):
    """A boolean as 1 or 0 (a dtype conversion); a condition 1 where it holds."""
    if value is sympy.true or value is sympy.false:
        return sympy.Integer(int(value is sympy.true))
    if isinstance(value, sympy.logic.boolalg.Boolean) and not value.is_Symbol:
        # nothing to collapse: sympy's would query each relation's negation (0.2 ms)
        return sympy.Piecewise((1, value), (0, True), evaluate=False)
    return value


def _test(func: Any, a: Any) -> Any:
    """``func(a)`` (isfinite, isnan, isinf) as a condition; a number's decided. Never
    sympy's own relations: it takes a real symbol for a finite number, so ``x != x`` and
    ``x == inf`` were folded false and ``nan_to_num(log(x))`` read as ``log(x)``."""
    if isinstance(a, sympy.Expr) and a.is_Number:
        held = {isfinite: a.is_finite, isnan: a is sympy.nan}.get(func, a.is_infinite)
        return sympy.true if held else sympy.false
    return sympy.Ne(func(a), 0, evaluate=False)  # nothing to decide: no assumptions query


def _is_finite(a):
    return _test(isfinite, a)


def _infinite(a: Any, sign: int) -> Any:
    """``a == sign·inf``: an infinity of that sign (NaN is none)."""
    return sympy.And(_test(isinf, a), a > 0 if sign > 0 else a < 0)


_RELATIONS: dict[str, Any] = {
    "gt": sympy.Gt, "ge": sympy.Ge, "lt": sympy.Lt, "le": sympy.Le, "eq": sympy.Eq, "ne": sympy.Ne
}  # fmt: skip
_IEEE: dict[str, Callable[[float, float], bool]] = {
    "gt": operator.gt, "ge": operator.ge, "lt": operator.lt, "le": operator.le,
    "eq": operator.eq, "ne": operator.ne,
}  # fmt: skip
_SWAPPED = {"gt": "lt", "ge": "le", "lt": "gt", "le": "ge", "eq": "eq", "ne": "ne"}


def _flag(e: Any) -> Any:
    """The condition a 0/1 number stands for (:func:`_as_number`'s), else None."""
    if isinstance(e, sympy.Expr) and e.is_Number and e in (0, 1):
        return sympy.true if e == 1 else sympy.false
    if isinstance(e, sympy.Piecewise) and len(e.args) == 2:
        (one, held), (zero, rest) = e.args
        if one == 1 and zero == 0 and rest is sympy.true:
            return held
    return None


def _compared(name: str, a: Any, b: Any) -> Any:
    """``a <name> b`` (gt, ge, lt, le, eq, ne) as IEEE 754 decides it, which sympy does
    not for the values a real symbol stands for: an entry against itself is false (true
    for ``!=``) where it is NaN, against an infinity true or false by ``isinf`` and its
    sign, against NaN false (``!=`` true). A 0/1 number made of a condition compared with
    a number is that condition or its negation (not a Piecewise inside a condition, which
    sympy distributes: exponential in an ``any`` of n entries); a Piecewise operand is
    compared branch by branch (a NaN case: false, where sympy raises)."""
    if not (isinstance(a, sympy.Expr) and isinstance(b, sympy.Expr)):
        return _RELATIONS[name](a, b)  # conditions compared (boolean arrays)
    if a.is_Number and b.is_Number:
        if a.is_finite and b.is_finite:
            return _RELATIONS[name](a, b)
        return sympy.true if _IEEE[name](float(a), float(b)) else sympy.false
    if (b.is_Number and _flag(a) is not None) or isinstance(a, sympy.Piecewise):
        return _branches(name, a, b)
    if a.is_Number or isinstance(b, sympy.Piecewise):
        return _compared(_SWAPPED[name], b, a)
    if a == b:  # false where NaN (!=: true); < and > false at any value
        return {"ne": _test(isnan, a), "lt": sympy.false, "gt": sympy.false}.get(
            name, sympy.Not(_test(isnan, a))
        )
    if b is sympy.nan:
        return sympy.true if name == "ne" else sympy.false
    if b.is_Number and b.is_infinite:  # a number: no assumptions query of an expression
        return _against_infinity(name, a, 1 if b > 0 else -1)
    return _RELATIONS[name](a, b)


def _branches(name: str, a: Any, b: Any) -> Any:
    """``a <name> b`` for a Piecewise ``a`` (a 0/1 flag's two cases among them): each
    case's comparison where its condition is the first to hold."""
    held = _flag(a)
    if held is not None:
        one, zero = _compared(name, sympy.S.One, b), _compared(name, sympy.S.Zero, b)
        return sympy.Or(sympy.And(held, one), sympy.And(sympy.Not(held), zero))
    terms, before = [], []
    for e, c in a.args:
        terms.append(sympy.And(c, *(sympy.Not(p) for p in before), _compared(name, e, b)))
        before.append(c)
    return sympy.Or(*terms)


def _against_infinity(name: str, a: Any, sign: int) -> Any:
    """``a <name> sign·inf`` for a non-number ``a``."""
    at, number = _infinite(a, sign), sympy.Not(_test(isnan, a))
    beyond = "gt" if sign > 0 else "lt"  # past the infinity: never
    within = "lt" if sign > 0 else "gt"  # short of it: a number other than it
    reached = "ge" if sign > 0 else "le"  # at it
    return {
        "eq": at,
        "ne": sympy.Not(at),
        beyond: sympy.false,
        reached: at,
        within: sympy.And(number, sympy.Not(at)),
    }.get(name, number)  # ≤ inf, ≥ -inf: any number


def _cbrt(a):
    """The real cube root (sympy's ``cbrt`` is the principal one: complex for a < 0)."""
    return sympy.sign(a) * sympy.Abs(a) ** sympy.Rational(1, 3)


# what each elementwise primitive computes, over sympy operands
SYMPY: dict[str, Callable[..., Any]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "neg": lambda a: -a,
    "pow": lambda a, b: a**b,
    "square": lambda a: a**2,
    "sqrt": sympy.sqrt,
    "rsqrt": lambda a: 1 / sympy.sqrt(a),
    "cbrt": _cbrt,
    "exp": sympy.exp,
    "exp2": lambda a: 2**a,
    "expm1": expm1,  # not exp(a) - 1, which loses the digits of a small a
    "log": sympy.log,
    "log1p": log1p,
    "sin": sympy.sin,
    "cos": sympy.cos,
    "tan": sympy.tan,
    "asin": sympy.asin,
    "acos": sympy.acos,
    "atan": sympy.atan,
    "sinh": sympy.sinh,
    "cosh": sympy.cosh,
    "tanh": sympy.tanh,
    "asinh": sympy.asinh,
    "acosh": sympy.acosh,
    "atanh": sympy.atanh,
    "atan2": sympy.atan2,
    "logistic": Logistic,
    "erf": sympy.erf,
    "erfc": sympy.erfc,
    "erf_inv": sympy.erfinv,
    "ndtri": array_extra.ndtri,
    "exp1": array_extra.exp1,
    "expi": array_extra.expi,
    "dawsn": array_extra.dawsn,
    **{f.__name__: f for f in array_extra.SCIPY_NAMED},
    "lgamma": sympy.loggamma,
    "digamma": lambda a: sympy.polygamma(0, a),
    "abs": sympy.Abs,
    "max": lambda a, b: _max(a, b),
    "min": lambda a, b: _min(a, b),
    "copy": lambda a: a,
    "convert_element_type": _as_number,
    "select_n": _select,
    "sign": sympy.sign,
    "floor": sympy.floor,
    "ceil": sympy.ceiling,
    "round": rint,  # the arrays' round: NumPy's, halves to even
    **{k: functools.partial(_compared, k) for k in _RELATIONS},
    "and": lambda a, b: sympy.And(_condition(a), _condition(b)),
    "or": lambda a, b: sympy.Or(_condition(a), _condition(b)),
    "not": lambda a: sympy.Not(_condition(a)),
    "is_finite": _is_finite,
}
# elementwise operations whose operands are read whole (a vertex for each element)
_REDUCED = {"reduce_sum", "reduce_max", "reduce_min", "reduce_prod"}
_COUNTED = {*_REDUCED, "cumsum", "integer_pow", *SYMPY}
_CONDITIONS_READ = {"and", "or", "not", "select_n", "convert_element_type"}  # as they are


def element_names(base: str, shape: tuple[int, ...], taken: set[str]) -> list[str]:
    """``x`` for a scalar; ``x0, x1, ...`` for a vector (``x_0`` where that is taken or
    ``base`` ends in a digit), ``x_0_1`` for higher ranks.

    >>> element_names("x", (2,), set()), element_names("u", (1, 2), set())
    (['x0', 'x1'], ['u_0_0', 'u_0_1'])
    """
    if shape == ():
        return [base]
    out = []
    for index in np.ndindex(*shape):
        name = base + "_" + "_".join(map(str, index))
        plain = base + str(index[0])
        if len(shape) == 1 and not base[-1].isdigit() and plain not in taken:
            name = plain
        out.append(name)
    return out


def scalar_edges(graph: DGraph) -> int:
    """The scalar edges ``graph``'s expansion has at most: its blocks' nonzero entries
    (an edge per entry), 1 per edge of a scalar graph."""
    if not graph.is_tensor:
        return graph.n_edges
    return sum(int(graph.block(u, v).nnz) for u, v in graph.edges())


def _number(v: Any) -> Any:
    """A constant entry as sympy: integers and halves exact, others the double itself;
    booleans true/false."""
    if isinstance(v, (bool, np.bool_)):
        return sympy.true if v else sympy.false
    value = float(v)
    if not math.isfinite(value):
        return sympy.oo if value > 0 else -sympy.oo if value < 0 else sympy.nan
    if value.is_integer():  # every double past 2**53 is one (finfo.max: 2 * value is inf)
        return sympy.Integer(int(value))
    if (2 * value).is_integer():
        return sympy.Rational(int(2 * value), 2)
    return sympy.Float(value)


def _constant(value: np.ndarray) -> np.ndarray:
    out = np.empty(value.shape, dtype=object)
    for i, v in np.ndenumerate(value):
        out[i] = _number(v)
    return out


def _name(symbol: sympy.Symbol) -> str:
    """A vertex symbol's name: its ``str`` (sympy's printer), read directly."""
    return symbol.name


def _fold(expr: Any, where: str) -> Any:
    """A constant element evaluated (exact where it stays a number)."""
    if not isinstance(expr, sympy.Expr) or expr.is_Number:
        return expr
    value = expr.evalf()
    if not value.is_Number:
        raise InputError(f"{where}: a constant expression evaluates to {value}")
    return value


@dataclass
class _Record:
    name: str
    expr: sympy.Expr
    preds: list[sympy.Symbol]


@dataclass
class _Expansion:
    """The scalar vertices made so far, each a record; ``index`` maps each element
    vertex's symbol to its record's place (an input's: -1)."""

    where: str
    every_operation: bool = False
    binary: bool = False
    parameters: list[sympy.Symbol] = field(default_factory=list)
    layout: list[tuple[str, tuple, list[str]]] = field(default_factory=list)  # arguments'
    records: list[_Record] = field(default_factory=list)
    index: dict[sympy.Symbol, int] = field(default_factory=dict)
    taken: set[str] = field(default_factory=set)
    constants: dict[bytes, np.ndarray] = field(default_factory=dict)
    held: dict[sympy.Expr, Any] = field(default_factory=dict)  # stop_gradient vertices
    flags: dict[Any, Any] = field(default_factory=dict)  # conditions named (condition())
    current: str = ""  # the array vertex being expanded: names the vertices it makes
    nested: dict[int, tuple[ArrayOp, np.ndarray]] = field(default_factory=dict)

    def name(self, wanted: str) -> str:
        while wanted in self.taken:
            wanted += "_"
        self.taken.add(wanted)
        return wanted

    def vertex(self, expr: Any, name: str, reads: frozenset = frozenset()) -> Any:
        """``expr`` as a scalar vertex where it reads one, else folded to a number; a bare
        vertex symbol stays itself (no vertex), unless ``reads`` (the operands an
        ``every_operation`` vertex keeps an edge from) is given."""
        if not isinstance(expr, sympy.Expr):
            return self.condition(expr, name) if not self.every_operation else expr
        symbols = expr.free_symbols
        free = {s for s in symbols if s in self.index}
        if not free and not reads:
            return expr if symbols else _fold(expr, self.where)  # of parameters: kept
        if expr in self.index and not reads:
            return expr
        if not free:
            expr = expr if symbols else _fold(expr, self.where)
        if self.binary and not reads and isinstance(expr, (sympy.Add, sympy.Mul)):
            expr = self.chained(expr, name)
            free = {s for s in expr.free_symbols if s in self.index}
        name = self.name(name)
        symbol = real_symbol(name)
        self.index[symbol] = len(self.records)
        self.records.append(_Record(name, expr, sorted(free | reads, key=_name)))
        return symbol

    def condition(self, held: Any, name: str) -> Any:
        """A condition, read by ``select_n``, as it is; one that reads more than two
        vertices (an ``any`` or ``all``, which a broadcast gives every entry) a 0/1 vertex
        of its own, made once, read as ``Ne(flag, 0)``: inlined, each reader would repeat
        it (n² edges) and sympy would distribute it through every condition built on it
        (``jnp.percentile``'s ``where(any(isnan(a)), nan, a)``)."""
        if not isinstance(held, Boolean) or held in (sympy.true, sympy.false):
            return held
        held = self.compared_apart(held, name)
        if len(held.free_symbols & self.index.keys()) <= 2:
            return held
        if held not in self.flags:
            flag = self.vertex(_as_number(held), f"{name}_flag")
            self.flags[held] = sympy.Ne(flag, 0)
        return self.flags[held]

    def compared_apart(self, held: Boolean, name: str) -> Boolean:
        """``held`` with each side of its comparisons that holds more than two
        ``Piecewise`` a vertex of its own: sympy folds a ``Piecewise`` inside a condition
        into one over every combination of the pieces' conditions (``np.sum(~np.isnan(a))
        > ddof`` over 12 entries: 2¹² pieces, minutes), where a vertex is compared as it
        is."""
        sides = {
            side
            for relation in held.atoms(sympy.core.relational.Relational)
            for side in relation.args
            if len(side.atoms(sympy.Piecewise)) > 2
        }
        if not sides:
            return held
        return held.xreplace({side: self.vertex(side, f"{name}_side") for side in sides})

    def chained(self, expr: sympy.Expr, name: str) -> sympy.Expr:
        """A sum or product of more than two terms that read vertices as a chain: every
        partial result but the last one vertex (``name_b1``, ...); the constant terms or
        factors join the last."""
        reading = [a for a in expr.args if a.free_symbols & self.index.keys()]
        if len(reading) <= 2:
            return expr
        rest = [a for a in expr.args if not a.free_symbols & self.index.keys()]
        acc = reading[0]
        for k, a in enumerate(reading[1:-1], 1):
            acc = self.vertex(expr.func(acc, a), f"{name}_b{k}")
        return expr.func(acc, reading[-1], *rest)

    def distinct(self, elements: Sequence[Any]) -> list[Any]:
        """The arguments of a Max or Min with each repeat of a vertex a copy of it (a
        vertex of its own, partial 1): a Max holds each argument once, and JAX counts a
        tie per entry (``max(concatenate([x, x[:1]]))`` gives x[0] 2/3 at a tie with
        x[1], not 1/2)."""
        seen: set[Any] = set()
        out = []
        for e in elements:
            if e in seen and isinstance(e, sympy.Symbol) and e in self.index:
                e = self.vertex(e, f"{self.current}_copy", frozenset({e}))
            seen.add(e)
            out.append(e)
        return out

    def read(self, x: Any, values: Mapping[str, np.ndarray]) -> np.ndarray:
        """An operand's elements: a vertex's, a constant's, or a nested operation's."""
        if isinstance(x, str):
            return values[x]
        if isinstance(x, Const):
            if x.key not in self.constants:
                self.constants[x.key] = _constant(np.asarray(x.value))
            return self.constants[x.key]
        # a nested operation read again (its parts shared: a binary search's steps each
        # read the last twice) is expanded once; the graph holds it, so its id is its own
        known = self.nested.get(id(x))
        if known is None or known[0] is not x:
            out = self.apply(x, values)
            if not self.every_operation and out.size and not isinstance(out.flat[0], sympy.Expr):
                named = [self.condition(e, self.current) for e in out.flat]  # an any, all
                out = np.asarray(named, dtype=object).reshape(out.shape)
            known = self.nested[id(x)] = (x, out)
        return known[1]

    def apply(self, op: ArrayOp, values: Mapping[str, np.ndarray]) -> np.ndarray:
        """The elements of ``op``'s result as sympy expressions of its operands'."""
        name, p = op.primitive, op.param
        if name == "stop_gradient":
            return self.frozen(op, values)
        if name == SEARCHSORTED:  # its count of comparisons: the same positions, NaN's too
            return self.apply(comparison_form(op), values)
        rule = _rule_parts(op)
        if rule is not None:  # a custom rule's output: the primal's value, t's partials
            value, tangent = (self.read(x, values) for x in rule)
            out = np.empty(op.shape, dtype=object)
            for i, (f, t) in enumerate(zip(value.flat, tangent.flat, strict=True)):
                out.flat[i] = RuleValue(f, t)
            return out
        args = [self.read(x, values) for x in op.operands]
        shape = op.shape
        if name in SYMPY or name == "integer_pow":
            rule = SYMPY.get(name) or (lambda a, y=int(p["y"]): a**y)
            wide = [np.broadcast_to(a, shape) for a in args]
            # a condition in arithmetic (NumPy's x * (x > 0), 1 + isnan(x)): its 0 or 1
            numbers = _as_number if name not in _CONDITIONS_READ else lambda a: a
            out = np.empty(shape, dtype=object)
            for i in np.ndindex(*shape):
                try:
                    out[i] = rule(*(numbers(a[i]) for a in wide))
                except (TypeError, ValueError) as exc:
                    raise InputError(f"{self.where}: {name}: {exc}") from None
            return out
        if name in ("reduce_sum", "reduce_max", "reduce_min", "reduce_prod"):
            axes = list(p["axes"])
            moved = np.moveaxis(args[0], axes, list(range(-len(axes), 0)))
            rows = moved.reshape(*shape, -1)
            func = {"reduce_sum": sympy.Add, "reduce_max": _max, "reduce_prod": sympy.Mul}
            func = func.get(name, _min)
            extreme = name in ("reduce_max", "reduce_min")
            out = np.empty(shape, dtype=object)
            for i in np.ndindex(*shape):
                out[i] = func(*(self.distinct(rows[i]) if extreme else rows[i]))
            return out
        if name in ("cumsum", "cumprod", "cumlogsumexp"):
            axis, reverse = p["axis"], bool(p.get("reverse"))
            x = np.moveaxis(args[0], axis, -1)
            out = np.empty(x.shape, dtype=object)
            n = x.shape[-1]
            for i in np.ndindex(*x.shape[:-1]):
                shift = None  # cumlogsumexp's: the running max, a vertex of partial 0
                for j in range(n - 1, -1, -1) if reverse else range(n):
                    part = x[i][j:] if reverse else x[i][: j + 1]
                    if name == "cumlogsumexp" and len(part) > 1:
                        shift = self.vertex(
                            ShiftHeld(_max(shift, x[i][j])),
                            f"{self.current}_max_{'_'.join(map(str, (*i, j)))}",
                        )
                    elif name == "cumlogsumexp":
                        shift = x[i][j]
                    out[(*i, j)] = _running(name, part, shift)
            return np.moveaxis(out, -1, axis)
        if name == "dot_general":
            return _dot(args[0], args[1], p["dimension_numbers"], shape)
        if name in ("gather_flat", "scatter", *_COMBINE):
            combine = {
                **_COMBINE,
                "scatter_max": lambda *a: _max(*self.distinct(a)),
                "scatter_min": lambda *a: _min(*self.distinct(a)),
            }
            return scatter.elements(op, args, combine)
        if name in MOVES:
            return np.asarray(move(name, p, args, shape), dtype=object).reshape(shape)
        if name == convolution.CONV:  # a sum of products per entry, as dot_general's
            out = convolution.forward(p, args[0], args[1])
            numbers = [e if isinstance(e, sympy.Basic) else _number(e) for e in out.flat]
            return np.asarray(numbers, dtype=object).reshape(out.shape)
        what = "a branch" if name == "cond" else "a loop"
        hint = (
            f"{what} is a region: read it at the array level"
            if name in REGIONS
            else 'level="array" reads it'
        )
        raise NoElementLevel(
            f"{self.where}: the array operation {name!r} has no element level ({hint})"
        )

    def frozen(self, op: ArrayOp, values: Mapping[str, np.ndarray]) -> np.ndarray:
        """``stop_gradient``: a value that depends on the inputs as :class:`StopGradient`
        of it (its value, partial 0: an edge of partial 0 from each vertex it reads, as
        for a value only a condition reads), a constant as it is. One that reads more
        than two vertices (a reduction's, which a broadcast gives every element of an
        operation) is a vertex of its own, made once: inlined, each reader would repeat
        it (softmax's shift: n² edges)."""
        inner = self.read(op.operands[0], values)
        out = np.empty(inner.shape, dtype=object)
        for i, e in np.ndenumerate(inner):
            reads = e.free_symbols & self.index.keys() if isinstance(e, sympy.Expr) else ()
            out[i] = e if not reads else StopGradient(e)
            if len(reads) > 2:  # a reduction's, which a broadcast repeats: a vertex once
                if out[i] not in self.held:
                    suffix = "" if inner.size == 1 else "_" + "_".join(map(str, i))
                    self.held[out[i]] = self.vertex(out[i], f"{self.current}_sg{suffix}")
                out[i] = self.held[out[i]]
        return out


def _rule_parts(op: ArrayOp) -> tuple[Any, Any] | None:
    """``(stop_gradient(f), t)`` where ``op`` is ``t + stop_gradient(f - t)``, a custom
    derivative rule's output as the array reader writes it (:func:`~dgraph.blocks.
    arrays.rule_parts`), else None."""
    parts = rule_parts(op)
    if parts is None:
        return None
    value, tangent = parts
    return ArrayOp("stop_gradient", (value,), (), op.shape), tangent


def _dot(lhs: np.ndarray, rhs: np.ndarray, numbers, shape) -> np.ndarray:
    """``dot_general``'s elements: one sum of products per entry, zero terms left out."""
    (lc, rc), (lb, rb) = numbers
    free_l = [i for i in range(lhs.ndim) if i not in lc and i not in lb]
    free_r = [j for j in range(rhs.ndim) if j not in rc and j not in rb]
    a = np.transpose(lhs, [*lb, *free_l, *lc])
    b = np.transpose(rhs, [*rb, *rc, *free_r])
    nb = math.prod(lhs.shape[i] for i in lb)
    nl = math.prod(lhs.shape[i] for i in free_l)
    nc = math.prod(lhs.shape[i] for i in lc)
    nr = math.prod(rhs.shape[j] for j in free_r)
    a = a.reshape(nb, nl, nc)
    b = b.reshape(nb, nc, nr)
    out = np.empty((nb, nl, nr), dtype=object)
    zero = sympy.S.Zero
    for k in range(nb):
        for i in range(nl):
            row = a[k, i]
            for j in range(nr):
                terms = [x * y for x, y in zip(row, b[k, :, j], strict=True)]
                out[k, i, j] = sympy.Add(*(t for t in terms if t != zero))
    return out.reshape(shape)


def expand(
    graph: DGraph,
    limit: int | None = EDGE_LIMIT,
    every_operation: bool = False,
    parameters: Sequence[str] = (),
    binary: bool = False,
) -> DGraph:
    """The element-level graph of ``graph`` (module docstring); a scalar graph (no
    tensor vertex) is returned as it is.

    Parameters
    ----------
    graph
        An array graph whose vertices compute array operations (every reader's).
    limit
        Most scalar edges to make: the blocks' bound (:func:`scalar_edges`) before
        expanding, the result's edges after; None: no limit.
    every_operation
        Keep a vertex per element of every elementwise operation and reduction on
        values that depend on the inputs, with an edge from each such operand, even
        where sympy simplifies it away (``x * 1``; the edge of ``1 ** x`` has partial
        0): the graph of a jaxpr as written, which AlphaGrad counts on.
    parameters
        Inputs of ``graph`` whose elements become the result's parameters
        (:attr:`~dgraph.core.graph.DGraph.parameters`: values fixed when the function
        runs, no Jacobian column): they stay symbols in the expressions and make no vertex.
    binary
        Make every sum or product of more than two vertices a chain of two-operand
        vertices, left to right (one vertex per operation as a tape records it).

    Returns
    -------
    DGraph
        The scalar graph: the same inputs' and outputs' elements, the same Jacobian.

    Raises
    ------
    InputError
        Above ``limit`` scalar edges, or for an operation with no element level
        (a block with no operation).
    """
    if not graph.is_tensor:
        return graph
    where = graph.name or "the graph"
    if any(graph.op(v) is None for v in graph.order() if graph.role(v) != "input"):
        raise InputError(f"{where}: a vertex with no operation has no element-level graph")
    if limit is not None:
        dense = sum(  # a bound that needs no block: the edges' dense sizes
            math.prod(graph.shape(u)) * math.prod(graph.shape(v)) for u, v in graph.edges()
        )
        _refuse_over(where, scalar_edges(graph) if dense > limit else dense, limit)
    unknown = [p for p in parameters if p not in graph.inputs]
    if unknown:
        raise InputError(f"{where}: parameter {unknown[0]!r} is not an input of the graph")
    deepest = _nesting(graph)
    if deepest > NESTING_LIMIT:
        raise NoElementLevel(
            f"{where}: nested operations {deepest} deep (a bisection's brackets, each a"
            f" where of the last): their expressions grow with each level (over"
            f' {NESTING_LIMIT}): use level="array" (--level array)'
        )
    expanded = _expanded(graph, where, every_operation, tuple(parameters), binary)
    if limit is not None:  # the edges the blocks do not hold (module docstring): counted
        _refuse_over(where, expanded.n_edges, limit)
    return expanded


NESTING_LIMIT = 32
"""Most nested operations (values with no vertex of their own, such as comparisons and the
selections made of them) one operand of a vertex may hold, one within another, for the
element level: each level's expressions hold the last's, so a bisection's brackets,
``lo = np.where(cdf(mid) < alpha, mid, lo)`` sixty times, grew exponentially there (six
steps took 47 s, sixty exceeded Python's recursion); the array level reads them."""


def _nesting(graph: DGraph) -> int:
    """The deepest nesting of operations within one vertex's operation (1: none nested),
    each nested operation measured once (a shared one is read by many; no recursion)."""
    depth: dict[int, int] = {}
    deepest = 0
    for v in graph.order():
        op = graph.op(v)
        if op is None:
            continue
        stack = [(op, False)]
        while stack:
            node, done = stack.pop()
            if id(node) in depth:
                continue
            inner = [u for u in getattr(node, "operands", ()) if hasattr(u, "operands")]
            if done:
                depth[id(node)] = 1 + max((depth[id(u)] for u in inner), default=0)
                continue
            stack.append((node, True))
            stack.extend((u, False) for u in inner if id(u) not in depth)
        deepest = max(deepest, depth[id(op)])
    return deepest


def _refuse_over(where: str, edges: int, limit: int) -> None:
    """:class:`NoElementLevel` where ``edges`` scalar edges are over ``limit``."""
    if edges > limit:
        raise NoElementLevel(
            f"{where}: the element level would have {edges:,} scalar edges, over the"
            f' limit of {limit:,}: use level="array" (--level array) or a larger limit',
            edges=edges,
        )


def _expanded(
    graph: DGraph, where: str, every_operation: bool, parameters: tuple[str, ...], binary: bool
) -> DGraph:
    work = _Expansion(where, every_operation, binary)
    outputs = set(graph.outputs)
    work.taken.update(graph.inputs)
    work.taken.update(outputs)
    values: dict[str, np.ndarray] = {}
    inputs: list[tuple[str, sympy.Symbol]] = []
    arrays = graph.parameter_shapes  # array parameters: their elements stay parameters
    work.taken.update(arrays)
    for x in [*graph.inputs, *arrays]:  # each one's name, shape, elements: work.layout
        shape = graph.shape(x)
        array = np.empty(shape, dtype=object)
        work.layout.append((x, shape, element_names(x, shape, work.taken)))
        for i, n in zip(np.ndindex(*shape), work.layout[-1][2], strict=True):
            symbol = real_symbol(n)
            work.taken.add(n)
            if x in parameters or x in arrays:
                work.parameters.append(symbol)
            else:
                work.index[symbol] = -1
                inputs.append((n, symbol))
            array[i] = symbol
        values[x] = array
    out_names: list[tuple[str, Any]] = []
    taken_outputs = {n for n, _ in inputs}
    for v in graph.order():
        if graph.role(v) == "input":
            continue
        op = graph.op(v)
        shape = graph.shape(v)
        work.current = v
        out = work.apply(op, values).reshape(shape)
        keep = every_operation and op.primitive in _COUNTED and op.primitive != "copy"
        base = v
        size = math.prod(shape)
        made = np.empty(shape, dtype=object)
        for i in np.ndindex(*shape):
            reads: frozenset = frozenset()
            if keep:
                reads = frozenset(
                    s
                    for a in _operand_elements(op, values, i, work)
                    for s in a.free_symbols
                    if s in work.index
                )
            suffix = "" if size == 1 else "_" + "_".join(map(str, i))
            made[i] = work.vertex(out[i], base + suffix, reads)
        values[v] = made
        if v in outputs:
            for n, e in zip(element_names(v, shape, taken_outputs), made.reshape(-1), strict=True):
                taken_outputs.add(n)
                out_names.append((n, e))
    return _graph(graph, work, inputs, out_names)


_READ_WHOLE = {"reduce_sum", "reduce_max", "reduce_min", "reduce_prod", "cumsum", "cumprod"}
_READ_WHOLE |= {"cumlogsumexp"}


def _running(name: str, part: Sequence[Any], shift: Any = None) -> Any:
    """One entry of a running sum, product or log-sum-exp over ``part``; the log-sum-exp
    shifted by ``shift``, the stop-gradient of their max (no overflow; jax.nn's form),
    the entry itself for one."""
    if name == "cumsum":
        return sympy.Add(*part)
    if name == "cumprod":
        return sympy.Mul(*part)
    if len(part) == 1:
        return part[0]
    shift = ShiftHeld(shift)  # a vertex, read with partial 0; its value cancels
    return shift + sympy.log(sympy.Add(*(sympy.exp(e - shift) for e in part)))


def _operand_elements(op: ArrayOp, values, i: tuple, work: _Expansion) -> list[Any]:
    """The operand elements an ``every_operation`` vertex keeps edges from: element ``i``
    of each (broadcast) operand of an elementwise operation, all of a reduction's."""
    if op.primitive not in _READ_WHOLE:
        found = []
        for x in op.operands:
            if isinstance(x, str):
                found.append(np.broadcast_to(values[x], op.shape)[i])
        return [e for e in found if isinstance(e, sympy.Basic)]
    x = op.operands[0]
    if not isinstance(x, str):
        return []
    return [e for e in values[x].reshape(-1) if isinstance(e, sympy.Basic)]


def _graph(
    array: DGraph, work: _Expansion, inputs: list[tuple[str, Any]], outputs: list[tuple[str, Any]]
) -> DGraph:
    """The scalar graph of the records the outputs reach: an output names its element's
    vertex where no other vertex or output reads it, else it is a copy."""
    records = work.records
    live: set[int] = set()
    stack = [work.index[e] for _, e in outputs if isinstance(e, sympy.Symbol) and e in work.index]
    while stack:
        k = stack.pop()
        if k < 0 or k in live:
            continue
        live.add(k)
        stack += [work.index[s] for s in records[k].preds]
    uses = Counter(work.index[s] for k in live for s in records[k].preds)
    returned = Counter(work.index.get(e) for _, e in outputs if isinstance(e, sympy.Symbol))
    final = {s: s for s in work.index}
    claimed: dict[int, str] = {}
    for name, e in outputs:
        k = work.index.get(e) if isinstance(e, sympy.Symbol) else None
        if k is not None and k >= 0 and returned[k] == 1 and not uses.get(k):
            claimed[k] = name
            final[e] = real_symbol(name)
    # only the symbols renamed: xreplace rebuilds whatever a rule matches, even to itself,
    # and rebuilding a Max compares its arguments pairwise (quadratic)
    renamed = {s: t for s, t in final.items() if s != t}
    g = type(array)(array.name)
    for p in work.parameters:
        g.add_parameter(p.name)
    for n, _ in inputs:
        g._add_vertex(n, "input", None)
    edges: list[tuple[str, str]] = []
    for k in sorted(live):
        r = records[k]
        if k in claimed:
            continue
        g._add_vertex(r.name, "intermediate", r.expr.xreplace(renamed))
        edges += [(final[s].name, r.name) for s in r.preds]
    for name, e in outputs:
        k = work.index.get(e) if isinstance(e, sympy.Symbol) else None
        if k is not None and k in claimed and claimed[k] == name:
            r = records[k]
            g._add_vertex(name, "output", r.expr.xreplace(renamed))
            edges += [(final[s].name, name) for s in r.preds]
        elif isinstance(e, sympy.Expr):
            g._add_vertex(name, "output", e.xreplace(renamed))
            read = sorted(e.free_symbols & final.keys(), key=_name)
            edges += [(final[s].name, name) for s in read]
        else:
            raise InputError(f"{work.where}: output {name!r} is not a number")
    g._add_edges(edges)
    g.notes = list(array.notes)
    dead = len(records) - len(live)
    if dead:
        g.notes.append(f"{work.where}: {dead} scalar elements no output depends on were dropped")
    g.traced_with = array.traced_with
    point = array.point
    if point is not None and not work.parameters:
        flat = np.concatenate([np.ravel(point[x]) for x in array.inputs])
        g.set_point(dict(zip((n for n, _ in inputs), flat, strict=True)))
    reference = array.jvp_reference
    if reference is not None:
        g.set_jvp_reference(ElementJvp(reference, tuple(work.layout), _layout(array, outputs)))
    try:
        return g._validate(expressions=True)
    except GraphError as exc:  # the expansion's own fault: never the user's input
        raise GraphError(f"{work.where}: the element-level graph is malformed: {exc}") from None


def _layout(array: DGraph, elements: Sequence[tuple[str, Any]]):
    """Each output's name, shape and element names, in order."""
    out, start = [], 0
    for v in array.outputs:
        shape = array.shape(v)
        n = math.prod(shape)
        out.append((v, shape, [e for e, _ in elements[start : start + n]]))
        start += n
    return tuple(out)


class ElementJvp:
    """An array graph's ``J·v`` reference read by element names: ``(inputs, tangents) ->
    {output element: J·v}``, for the expanded graph (picklable where the reference is).
    ``inputs`` gives the parameters' values too (None without them: no reference);
    ``tangents`` the inputs' (a parameter's are 0)."""

    def __init__(self, reference: Callable, inputs: tuple, outputs: tuple) -> None:
        self.reference, self.inputs, self.outputs = reference, inputs, outputs

    def _arrays(self, given: Mapping[str, Any], fill: float | None) -> dict | None:
        if fill is None and any(e not in given for _, _, names in self.inputs for e in names):
            return None
        return {
            v: np.array([given.get(e, fill) for e in names], dtype=float).reshape(shape)
            for v, shape, names in self.inputs
        }

    def __call__(self, inputs: Mapping, tangents: Mapping) -> dict[str, np.ndarray] | None:
        primals = self._arrays(inputs, None)
        if primals is None:
            return None
        got = self.reference(primals, self._arrays(tangents, 0.0))
        if got is None or isinstance(got, str):  # none here, or why it does not hold here
            return got
        return self._elements(got)

    def primal(self, inputs: Mapping) -> dict[str, np.ndarray] | None:
        """The reference's own function values (its ``primal``: the user's function) by
        output element; None where it has none or it does not run here."""
        primals = self._arrays(inputs, None)
        found = getattr(self.reference, "primal", None)
        got = None if primals is None or found is None else found(primals)
        return None if got is None else self._elements(got)

    def _elements(self, got: Mapping) -> dict[str, np.ndarray]:
        out = {}
        for v, _, names in self.outputs:
            flat = np.ravel(np.asarray(got[v], dtype=float))
            out.update({e: flat[k] for k, e in enumerate(names)})
        return out
