"""The derivative of Max and Min as JAX takes it at ties.

JAX shares the derivative of a maximum equally among the arguments equal to it: each of
the k tied entries of a ``reduce_max`` or of a ``scatter_max`` position gets 1/k, each
side of a binary ``max`` 1/2. sympy's ``Max.fdiff`` is the step ``H(a - max(others))``
with H(0) = 1/2, which is 1/k only for k <= 2 (three tied arguments get 1/2 each). Here
the share of argument ``a`` among others ``b`` is

    H(a - max(b), 1) / (1 + Σ_b H(b - a, 1))

(the step with H(0) = 1 says ``a`` is the result; then ``H(b - a, 1)`` is 1 exactly where
``b`` ties with it), the mirror image for a Min, and sympy's step itself for two
arguments (the same numbers). Each term is one comparison, so a partial stays linear in
the arguments, as the step is. :func:`derivative` and :func:`jacobian` differentiate any
expression by this rule (the scalar graph's partials, the symbolic method's entries),
and a power's exponent by JAX's rule at a zero base (:class:`PowerOf`: ``log 0`` read as 0).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

import sympy

from .elementary import isfinite, isinf, isnan, rint
from .rebuild import remade, replaced

__all__ = [
    "PowerOf",
    "derivative",
    "exponents_held",
    "held",
    "jacobian",
    "powers_released",
    "released",
    "share",
    "steps_zeroed",
    "substituted",
]

# IEEE 754's tests too: 0 or 1, constant between (and at) the values where they change
_STEPS = (sympy.floor, sympy.ceiling, rint, sympy.sign, sympy.Heaviside, isfinite, isnan, isinf)


def share(kind: type, args: Sequence[sympy.Expr], i: int) -> sympy.Expr:
    """∂ kind(*args) / ∂ args[i] (``kind`` sympy.Max or sympy.Min), ties shared as JAX
    shares them; an argument repeated counts once per place, as JAX counts entries."""
    x = args[i]
    others = [a for j, a in enumerate(args) if j != i]
    sign = 1 if kind is sympy.Max else -1
    if len(others) == 1:
        return sympy.Heaviside(sign * (x - others[0]))
    rest = kind(*others, evaluate=False)
    ties = sympy.Add(sympy.S.One, *(_step(b, x, sign) for b in others), evaluate=False)
    inverse = sympy.Pow(ties, sympy.S.NegativeOne, evaluate=False)
    return sympy.Mul(_step(x, rest, sign), inverse, evaluate=False)


def _step(a: sympy.Expr, b: sympy.Expr, sign: int) -> sympy.Expr:
    """H(a - b, 1) (H(b - a, 1) for sign -1), built as written, its arguments as they
    are: ``Heaviside(...)`` asks sympy's assumptions whether its argument is negative and
    checks its argument count against a set it builds each time (0.3 ms a step; a max
    over 300 elements makes 90,000 steps)."""
    low, high = (b, a) if sign == 1 else (a, b)
    difference = sympy.Add(high, sympy.Mul(sympy.S.NegativeOne, low), evaluate=False)
    return sympy.Expr.__new__(sympy.Heaviside, difference, sympy.S.One)


class _SharedMax(sympy.Function):
    """Max, unevaluated, differentiated by :func:`share`."""

    kind = sympy.Max

    @classmethod
    def eval(cls, *args):
        return None

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        return share(self.kind, self.args, argindex - 1)


class _SharedMin(_SharedMax):
    kind = sympy.Min


@lru_cache(maxsize=1024)
def held(expr: sympy.Expr) -> sympy.Expr:
    """``expr`` with every Max and Min held unevaluated (a function sympy never compares
    the arguments of: rebuilding ``Max(a, b, c)`` evaluates it, pairwise, with a
    ``factor_terms`` per pair — 80 ms for six sums), differentiated by :func:`share`.
    Remembered for the last 1,024 expressions: a vertex's partials each hold its
    expression (a softmax's Max over n elements: n rewrites of n arguments each, 18 of 30
    profiled seconds at n = 2,000), and the code generator's ``cse``, some 16 per program
    and candidate, holds the same statements again and again (tests/test_numpy_idioms.py's
    ``ufunc_reduce`` and ``accumulate`` tests: 99 of 3,067 calls found among the last 16,
    1,970 among the last 1,024)."""
    if not expr.has(sympy.Max, sympy.Min):
        return expr
    return _rebuilt(expr, _HOLD)


@lru_cache(maxsize=1024)
def released(expr: sympy.Expr) -> sympy.Expr:
    """:func:`held`'s inverse: sympy's Max and Min again, unevaluated. Remembered for the
    last 1,024 expressions, as :func:`held` (the same two tests: 2,584 of 3,952 calls
    found)."""
    if not expr.has(_SharedMax):  # _SharedMin is one too
        return expr
    return _rebuilt(expr, _RELEASE)


_HOLD: dict[type, Callable[..., sympy.Expr]] = {sympy.Max: _SharedMax, sympy.Min: _SharedMin}
_RELEASE: dict[type, Callable[..., sympy.Expr]] = {
    _SharedMax: lambda *a: sympy.Max(*a, evaluate=False),
    _SharedMin: lambda *a: sympy.Min(*a, evaluate=False),
}


def _rebuilt(expr: sympy.Expr, swap: dict[type, Callable[..., sympy.Expr]]) -> sympy.Expr:
    """``expr`` with each subexpression of a type in ``swap`` built by it from its
    rebuilt arguments, bottom up, without recursion. ``expr.replace(Max, _SharedMax)``
    rebuilds a Max whose arguments changed as a Max before replacing it, and so
    evaluates every Max that holds another (a running max's
    ``Max(stop_gradient(Max(..)), x)``: 2,829 of 3,228 comparisons in cumlogsumexp's
    make_function at n = 10)."""
    done: dict[sympy.Basic, sympy.Basic] = {}
    stack = [expr]
    while stack:
        e = stack[-1]
        if e in done:
            stack.pop()
            continue
        given = getattr(e, "args", ())  # a few sympy objects hold plain Python values
        waiting = [a for a in given if a not in done]
        if waiting:
            stack += waiting
            continue
        stack.pop()
        args = tuple(done[a] for a in given)
        make = swap.get(type(e))
        if make is not None:
            done[e] = make(*args)
        elif any(a is not b for a, b in zip(args, given, strict=True)):
            done[e] = remade(e.func, args)
        else:
            done[e] = e
    return done[expr]  # type: ignore[return-value]


def substituted(expr: sympy.Expr, mapping: dict) -> sympy.Expr:
    """``expr.xreplace(mapping)`` without evaluating its Max and Min again, nor
    multiplying a Float into a sum (:func:`~dgraph.core.rebuild.replaced`)."""
    return released(replaced(held(expr), mapping))


def derivative(expr: sympy.Expr, x: sympy.Symbol) -> sympy.Expr:
    """``sympy.diff(expr, x)`` with every Max and Min differentiated by :func:`share`."""
    if not expr.has(sympy.Max, sympy.Min):
        return sympy.diff(expr, x)
    return released(sympy.diff(held(expr), x))


class PowerOf(sympy.Function):
    """``b**e`` while a derivative in its exponent is taken: ``b**e·log(b)`` with
    ``log(b)`` read as ``log(1) = 0`` where ``b = 0``, JAX's rule (``0**e`` is 0 for every
    ``e > 0``: Tweedie's ``y**(2 - p)`` at a zero claim, whose ``0·log 0`` was NaN)."""

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        b, e = self.args
        if argindex == 1:
            return e * b ** (e - 1)
        return b**e * sympy.log(b + sympy.Piecewise((1, sympy.Eq(b, 0)), (0, True)))


def exponents_held(expr: sympy.Expr, symbols: Sequence[sympy.Symbol]) -> sympy.Expr:
    """``expr`` with each power whose exponent holds one of ``symbols`` and whose base may
    be 0 (not a positive number) a :class:`PowerOf`; ``expr`` itself where there is none."""
    if not expr.has(sympy.Pow):
        return expr
    found = {
        p: PowerOf(p.base, p.exp)
        for p in expr.atoms(sympy.Pow)
        if p.exp.has(*symbols) and not (p.base.is_Number and p.base > 0)
    }
    return expr.xreplace(found) if found else expr


def powers_released(expr: sympy.Expr) -> sympy.Expr:
    """Every :class:`PowerOf` of ``expr`` a power again."""
    return expr.replace(PowerOf, sympy.Pow) if expr.has(PowerOf) else expr


def jacobian(exprs: Sequence[sympy.Expr], symbols: Sequence[sympy.Symbol]) -> sympy.Matrix:
    """``Matrix(exprs).jacobian(symbols)`` with every Max and Min differentiated by
    :func:`share` and every step's derivative zero (:func:`steps_zeroed`), as the graph's
    partials take them."""
    exprs = [exponents_held(e, symbols) for e in exprs]  # JAX's rule at a zero base
    if not any(e.has(sympy.Max, sympy.Min) for e in exprs):
        found = sympy.Matrix(exprs).jacobian(list(symbols))
        return found.applyfunc(lambda e: steps_zeroed(powers_released(e)))
    found = sympy.Matrix([held(e) for e in exprs]).jacobian(list(symbols))
    return found.applyfunc(lambda e: steps_zeroed(powers_released(released(e))))


def steps_zeroed(d: sympy.Expr) -> sympy.Expr:
    """A derivative as AD takes it: step functions (sign, Heaviside, floor, ceiling, and
    IEEE's tests isfinite, isnan, isinf) have derivative zero, which holds everywhere but
    at their jumps (sympy's ``DiracDelta``, its unevaluated ``Derivative`` of a step, and
    the ``Subs(0, ...)`` its chain rule leaves for a step of a composite argument,
    ``floor(3*x)``, are zero)."""
    if not d.has(sympy.DiracDelta, sympy.Derivative):
        return d
    zero = dict.fromkeys(d.atoms(sympy.DiracDelta), sympy.S.Zero)
    zero.update(dict.fromkeys(
        (e for e in d.atoms(sympy.Derivative) if e.expr.func in _STEPS), sympy.S.Zero
    ))  # fmt: skip
    zero.update(dict.fromkeys(
        (e for e in d.atoms(sympy.Subs) if e.expr.xreplace(zero) == 0), sympy.S.Zero
    ))  # fmt: skip
    # one substitution, outermost first: a product of two such ``Subs`` (trunc of a
    # rounding, ``np.round(x, 1).astype(int)``) rebuilt with one of them still in it made
    # sympy compare them and fail (TypeError)
    return d.xreplace(zero)
