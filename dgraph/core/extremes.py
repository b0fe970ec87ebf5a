"""The derivative of Max and Min as JAX takes it at ties.

JAX shares the derivative of a maximum equally among the arguments equal to it: each of
the k tied entries of a ``reduce_max`` or of a ``scatter_max`` position gets 1/k, each
side of a binary ``max`` 1/2. sympy's ``Max.fdiff`` is the step ``H(a - max(others))``
with H(0) = 1/2, which is 1/k only for k <= 2 (three tied arguments get 1/2 each). Here
the share of argument ``a`` of ``m = Max(args)`` is JAX's own rule (its
``_reduce_chooser_jvp_rule``),

    [a == m] / Σ_b [b == m]

(the same comparisons, k of them true: the values compared are the ones the maximum was
taken of; NaN anywhere makes every share 0/0, NaN, as JAX's), the mirror image for a Min,
and sympy's step itself for two arguments (the same numbers). Every partial of one
maximum holds the same value ``m``, the same indicators and the same count: the code
generator computes them once (``m`` is the vertex's own value), so the n partials of a
maximum over n cost O(n) together, where a partial holding the maximum of the n - 1
others cost n each (n² for all; 60 CPU-s for ``np.max`` of 110 entries).
:func:`derivative` and :func:`jacobian` differentiate any expression by this rule (the
scalar graph's partials, the symbolic method's entries), and a power's exponent by JAX's
rule at a zero base (:class:`PowerOf`: ``log 0`` read as 0).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

import sympy

from .elementary import isfinite, isinf, isnan, rint
from .rebuild import bottom_up, rebuilt, remade, replaced

__all__ = [
    "PowerOf",
    "derivative",
    "exponents_held",
    "held",
    "holds",
    "jacobian",
    "over_value",
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
    sign = 1 if kind is sympy.Max else -1
    if len(args) == 2:
        return sympy.Heaviside(sign * (args[i] - args[1 - i]))
    value, inverse = _ties(kind, tuple(args))
    a = args[i]
    below = sympy.StrictLessThan(*((a, value) if sign == 1 else (value, a)), evaluate=False)
    return sympy.Piecewise(
        (inverse, sympy.Eq(a, value, evaluate=False)),
        (sympy.S.Zero, below),
        (sympy.nan, sympy.true),
        evaluate=False,
    )


@lru_cache(maxsize=64)
def _ties(kind: type, args: tuple[sympy.Expr, ...]) -> tuple[sympy.Expr, sympy.Expr]:
    """``m = kind(*args)`` and ``1 / Σ [a == m]``, built once for the n partials of one
    maximum (the same objects in each: the code generator's ``cse`` and the rebuilding
    passes meet each once). ``m`` is held (:class:`_SharedMax`) where the arguments are,
    so that :func:`released` builds it unevaluated: a sympy Max rebuilt over new
    arguments compares them pairwise."""
    hold = any(holds(a, _SharedMax) for a in args)
    value = _HOLD[kind](*args) if hold else kind(*args, evaluate=False)
    count = sympy.Add(*(_indicator(a, value) for a in args), evaluate=False)
    return value, sympy.Pow(count, sympy.S.NegativeOne, evaluate=False)


def _indicator(a: sympy.Expr, value: sympy.Expr) -> sympy.Expr:
    """``[a == value]``, 1 or 0, built as written (sympy's ``Eq`` would ask whether the
    difference is zero, its ``Piecewise`` whether the condition can be simplified)."""
    equal = sympy.Eq(a, value, evaluate=False)
    return sympy.Piecewise((sympy.S.One, equal), (sympy.S.Zero, sympy.true), evaluate=False)


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
    if not holds(expr, (sympy.Max, sympy.Min)):
        return expr
    return _rebuilt(expr, _HOLD)


@lru_cache(maxsize=1024)
def released(expr: sympy.Expr) -> sympy.Expr:
    """:func:`held`'s inverse: sympy's Max and Min again, unevaluated. Remembered for the
    last 1,024 expressions, as :func:`held` (the same two tests: 2,584 of 3,952 calls
    found)."""
    if not holds(expr, _SharedMax):  # _SharedMin is one too
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
        elif not any(a is not b for a, b in zip(args, given, strict=True)):
            done[e] = e
        elif isinstance(e, _AS_BUILT):  # as evaluated when first built, a class swapped
            done[e] = e.func(*args, evaluate=False)
        else:
            done[e] = remade(e.func, args)
    return done[expr]  # type: ignore[return-value]


# rebuilt unevaluated by :func:`_rebuilt`: a Piecewise evaluated walks its whole tree
# (each partial of a maximum holds its value n times) and a relation asks whether its
# sides differ by zero
_AS_BUILT = (sympy.Piecewise, sympy.core.relational.Relational)


def holds(expr: sympy.Basic, types: type | tuple[type, ...]) -> bool:
    """``expr.has(*types)`` for types, each distinct subexpression looked at once: sympy's
    walks the tree, and the n partials of a maximum over n each hold its value n times
    (in the count of its ties), n² nodes a partial to walk."""
    seen: set[sympy.Basic] = set()
    stack = [expr]
    while stack:
        e = stack.pop()
        if isinstance(e, types):
            return True
        for a in getattr(e, "args", ()):
            if a not in seen:
                seen.add(a)
                stack.append(a)
    return False


def over_value(expr: sympy.Expr, mapping: dict, known: dict | None = None) -> sympy.Expr:
    """``expr.xreplace(mapping)`` where ``mapping`` reads a Max or Min (a vertex's value,
    in its partials) as a symbol (the vertex's own value), and may rename others: each
    distinct subexpression rebuilt once, no Max evaluated, and the mapped value never
    walked. A maximum's partials so read its value once each, and the count of its ties
    is n comparisons with it (:func:`share`). ``known``: what was done with this
    ``mapping`` before, shared between the n partials of one maximum, which hold one
    count (each then rebuilds only its own few nodes)."""
    known = {} if known is None else known
    known.update(mapping)

    def combine(e: sympy.Basic, args: list) -> sympy.Basic:
        if isinstance(e, (sympy.Max, sympy.Min)):  # another, holding the value: as it is
            return rebuilt(e, args, evaluate=False)
        return rebuilt(e, args)

    return bottom_up(expr, combine, known)


def substituted(expr: sympy.Expr, mapping: dict) -> sympy.Expr:
    """``expr.xreplace(mapping)`` without evaluating its Max and Min again, nor
    multiplying a Float into a sum (:func:`~dgraph.core.rebuild.replaced`)."""
    return released(replaced(held(expr), mapping))


def derivative(expr: sympy.Expr, x: sympy.Symbol) -> sympy.Expr:
    """``sympy.diff(expr, x)`` with every Max and Min differentiated by :func:`share`."""
    if not holds(expr, (sympy.Max, sympy.Min)):
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
    if not holds(expr, sympy.Pow):
        return expr
    found = {
        p: PowerOf(p.base, p.exp)
        for p in expr.atoms(sympy.Pow)
        if p.exp.has(*symbols) and not (p.base.is_Number and p.base > 0)
    }
    return expr.xreplace(found) if found else expr


def powers_released(expr: sympy.Expr) -> sympy.Expr:
    """Every :class:`PowerOf` of ``expr`` a power again."""
    return expr.replace(PowerOf, sympy.Pow) if holds(expr, PowerOf) else expr


def jacobian(exprs: Sequence[sympy.Expr], symbols: Sequence[sympy.Symbol]) -> sympy.Matrix:
    """``Matrix(exprs).jacobian(symbols)`` with every Max and Min differentiated by
    :func:`share` and every step's derivative zero (:func:`steps_zeroed`), as the graph's
    partials take them."""
    exprs = [exponents_held(e, symbols) for e in exprs]  # JAX's rule at a zero base
    if not any(holds(e, (sympy.Max, sympy.Min)) for e in exprs):
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
    if not holds(d, (sympy.DiracDelta, sympy.Derivative)):
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
