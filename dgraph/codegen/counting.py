"""Operation counts of straight-line programs: one rule for every tool compared.

The rule, applied alike to dgraph's generated programs, to sympy's ``jacobian`` + ``cse``
and to CasADi's instruction list (:func:`casadi_ops`), and matching what the printers of
:mod:`dgraph.codegen.python` and :mod:`dgraph.codegen.c` emit:

- a constant subexpression (no free symbols) is free: it is folded to one number;
- a sum of k terms costs k - 1 additions (a subtraction is an addition, a negation free);
- a product costs one multiplication per factor beyond the first, counting the folded
  constant coefficient as a factor unless it is ±1; its divisors are multiplied together
  the same way and then divide once (``a*b/(c*d)``: 2 mults, 1 div; ``1/c``: 1 div);
- an integer power x**k costs k - 1 multiplications (it is printed ``(x*x*...)``), and
  x**-k one division more;
- a division counts as a division and a function call (``sin``, ``sqrt``, ``abs``, a
  non-integer power, an integer power beyond :data:`LARGEST_PRODUCT_POWER`) as a call,
  never as multiplications;
- a comparison with the selection it makes is one ``compare``: each relation in a
  ``Piecewise`` condition (``and``/``or`` are free), ``sign``, ``Heaviside``, and each
  argument of ``Max``/``Min`` beyond the first; every branch of a ``Piecewise`` is
  counted (NumPy evaluates them all).

The benchmarks count sympy's ``jacobian`` + ``cse`` with it too
(:mod:`dgraph.bench.baselines`): one counter for every operation count dgraph reports.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

import sympy
from sympy.functions.elementary.piecewise import ExprCondPair
from sympy.logic.boolalg import BooleanFunction

from ..core.rebuild import rebuilt
from ..errors import DGraphError

__all__ = [
    "LARGEST_PRODUCT_POWER",
    "Ops",
    "casadi_ops",
    "count_ops",
    "fold_constants",
    "forget_counts",
    "symbols_in",
]

# x**k is printed as k - 1 multiplications up to this |k|, as a call to pow beyond it
LARGEST_PRODUCT_POWER = 64


@dataclass(frozen=True)
class Ops:
    """Multiplications, additions, divisions, calls and comparisons of a program."""

    mults: int = 0
    adds: int = 0
    divs: int = 0
    calls: int = 0
    compares: int = 0

    def __add__(self, other: Ops) -> Ops:
        return Ops(
            self.mults + other.mults,
            self.adds + other.adds,
            self.divs + other.divs,
            self.calls + other.calls,
            self.compares + other.compares,
        )

    @property
    def total(self) -> int:
        """Every operation, whatever its kind: the size of a program."""
        return self.mults + self.adds + self.divs + self.calls + self.compares

    def key(self) -> tuple[int, int, int]:
        """Order programs by multiplications, then divisions and calls, then additions
        and comparisons."""
        return (self.mults, self.divs + self.calls, self.adds + self.compares)

    def to_dict(self) -> dict[str, int]:
        return {
            "mults": self.mults,
            "adds": self.adds,
            "divs": self.divs,
            "calls": self.calls,
            "compares": self.compares,
        }

    def __str__(self) -> str:
        """``"3 mults, 1 adds, 0 divs, 2 calls"``, and the comparisons when there are any."""
        text = f"{self.mults} mults, {self.adds} adds, {self.divs} divs, {self.calls} calls"
        return text + (f", {self.compares} compares" if self.compares else "")


def fold_constants(expr: sympy.Expr) -> sympy.Expr:
    """``expr`` with every symbol-free subexpression that is not a plain number (sqrt(3),
    pi, ...) replaced by a 17-digit Float, so that constant factors multiply out.

    >>> x = sympy.Symbol("x")
    >>> fold_constants(sympy.sqrt(2) * sympy.pi * x / 2)
    2.2214414690791831*x
    """
    if expr.is_Number or expr.is_Symbol:
        return expr
    return _fold(expr)


@lru_cache(maxsize=2**16)
def _fold(expr: sympy.Basic) -> sympy.Basic:
    """:func:`fold_constants`, remembered: the program passes fold the same assignments
    again and again; an expression with nothing to fold is returned as it is. Looked up
    before anything is computed: an expression seen before (each argument of one being
    folded, each assignment of the next pass) costs its hash, not a walk of its tree for
    its free symbols (at every level of a deep expression: a square of its depth)."""
    if not symbols_in(expr):
        if not isinstance(expr, sympy.Expr):  # true, false
            return expr
        value = sympy.N(expr, 17)
        if not value.is_real:
            raise DGraphError(f"constant {expr} is not a real number")
        return sympy.Float(value, 17)
    if expr.is_Pow and expr.exp.is_Number:
        base = fold_constants(expr.base)
        return expr if base is expr.base else sympy.Pow(base, expr.exp)
    return rebuilt(expr, [fold_constants(a) for a in expr.args])


def forget_counts() -> None:
    """Forget the folded and counted expressions (at the end of a call: they hold whole
    programs' expressions)."""
    _fold.cache_clear()
    _count.cache_clear()
    symbols_in.cache_clear()


_UNION_OF_ARGUMENTS = sympy.Basic.__dict__["free_symbols"]


@cache
def _by_arguments(cls: type) -> bool:
    """Whether ``cls`` has sympy's own ``free_symbols`` (the union of its arguments'),
    not one of its own (a symbol's, an integral's bound variables)."""
    for klass in cls.__mro__:
        if "free_symbols" in vars(klass):
            return vars(klass)["free_symbols"] is _UNION_OF_ARGUMENTS
    return False


@lru_cache(maxsize=2**16)
def symbols_in(expr: sympy.Basic) -> frozenset:
    """``expr.free_symbols``, remembered, built from its arguments' where sympy builds it
    so: sympy walks the whole tree on every call, and the passes and counts ask it of the
    same assignments, and of each of their subexpressions, again and again."""
    if expr.args and _by_arguments(type(expr)):
        return frozenset().union(*map(symbols_in, expr.args))
    return frozenset(expr.free_symbols)


def _is_integer_power(e: sympy.Expr) -> bool:
    return e.is_Pow and e.exp.is_Integer and abs(e.exp) <= LARGEST_PRODUCT_POWER


def count_ops(exprs: list[sympy.Expr]) -> Ops:
    """Operations to evaluate ``exprs`` as written, each shared value a symbol (the rule in
    the module docstring).

    >>> a, b, c = sympy.symbols("a b c")
    >>> count_ops([2 * a * b / (c**2 * sympy.sin(a)) - b])
    Ops(mults=4, adds=1, divs=1, calls=1, compares=0)
    >>> count_ops([sympy.Piecewise((a * b, (a > 0) & (b < 1)), (-a, True)) + sympy.sign(c)])
    Ops(mults=1, adds=1, divs=0, calls=0, compares=3)
    """
    total = Ops()
    for e in exprs:
        total += _count(e)
    return total


@lru_cache(maxsize=2**16)
def _count(expr: sympy.Basic) -> Ops:
    """The operations of one expression (remembered: the passes count the same
    assignments after every step)."""
    mults = adds = divs = calls = compares = 0
    stack = [expr]
    while stack:
        e = stack.pop()
        if e.is_Atom or not symbols_in(e):
            continue
        if e.is_Add:
            adds += len(e.args) - 1
            stack.extend(e.args)
        elif e.is_Mul:
            constant = sympy.Mul(*(a for a in e.args if not symbols_in(a)))
            numerator, denominator = [], []
            for a in e.args:
                if not symbols_in(a):
                    continue
                if a.is_Pow and a.exp.is_number and a.exp.is_negative:
                    denominator.append(sympy.Pow(a.base, -a.exp))
                else:
                    numerator.append(a)
            factors = len(numerator) + (constant not in (1, -1))
            mults += max(factors - 1, 0) + max(len(denominator) - 1, 0)
            divs += bool(denominator)
            stack.extend(numerator + denominator)
        elif _is_integer_power(e):
            k = int(e.exp)
            mults += abs(k) - 1
            divs += k < 0
            stack.append(e.base)
        elif e.is_Pow and e.exp.is_number and e.exp.is_negative:  # 1/sqrt(x), 1/x**(1/3)
            divs += 1
            stack.append(sympy.Pow(e.base, -e.exp))
        elif isinstance(e, (sympy.Piecewise, ExprCondPair, BooleanFunction)):
            stack.extend(e.args)  # the branches and their conditions; and/or/not are free
        elif e.is_Relational or isinstance(e, (sympy.sign, sympy.Heaviside)):
            compares += 1
            stack.extend(e.args)
        elif isinstance(e, (sympy.Max, sympy.Min)):
            compares += len(e.args) - 1
            stack.extend(e.args)
        else:  # a function call or a non-integer power
            calls += 1
            stack.extend(e.args)
    return Ops(mults, adds, divs, calls, compares)


def casadi_ops(function: Any) -> Ops:
    """The same counts for a CasADi ``SX`` Function, read from its instruction list.

    ``OP_SQ`` is x*x (one mult), ``OP_TWICE`` 2*x (one mult), ``OP_INV`` 1/x (one div),
    ``OP_NEG`` is free; a constant integer power (``OP_CONSTPOW`` with an integer
    exponent) counts as its multiplications, any other power or function as a call.
    """
    import casadi

    binary = {casadi.OP_MUL: "mults", casadi.OP_ADD: "adds", casadi.OP_SUB: "adds"}
    binary |= {casadi.OP_DIV: "divs"}
    unary = {casadi.OP_SQ: "mults", casadi.OP_TWICE: "mults", casadi.OP_INV: "divs"}
    free = {
        casadi.OP_CONST,
        casadi.OP_INPUT,
        casadi.OP_PARAMETER,
        casadi.OP_NEG,
        casadi.OP_ASSIGN,
    }
    counts = {"mults": 0, "adds": 0, "divs": 0, "calls": 0}
    constants: dict[int, float] = {}  # work-vector slot -> the constant it holds
    for k in range(function.n_instructions()):
        op = function.instruction_id(k)
        if op == casadi.OP_OUTPUT:  # its "output" is (output index, nonzero), not a slot
            continue
        slot = function.instruction_output(k)[0]
        if op == casadi.OP_CONST:
            constants[slot] = function.instruction_constant(k)
            continue
        exponent = None
        if op in (casadi.OP_CONSTPOW, casadi.OP_POW):
            exponent = constants.get(function.instruction_input(k)[1])
        constants.pop(slot, None)
        if op in free:
            continue
        if op in binary:
            counts[binary[op]] += 1
        elif op in unary:
            counts[unary[op]] += 1
        elif op in (casadi.OP_CONSTPOW, casadi.OP_POW):
            if exponent is not None and float(exponent).is_integer() and exponent != 0:
                counts["mults"] += int(abs(exponent)) - 1
                counts["divs"] += exponent < 0
            else:
                counts["calls"] += 1
        else:
            counts["calls"] += 1
    return Ops(**counts)
