"""Elementary functions of vertex expressions that sympy has no class for.

:class:`StopGradient` is JAX's ``stop_gradient`` of one scalar: the value of its
argument, derivative 0. The element level (:mod:`dgraph.core.expand`) writes it where
an array program holds a value that depends on the inputs out of differentiation (a
softmax's shift, a custom derivative rule's ``t + stop_gradient(f(x) - t)``), so a
vertex's expression still computes its value and the partials derived from it are the
ones JAX differentiates by.

:class:`RuleValue` is a custom derivative rule's output: the value of its first argument
(the primal's), the derivative of its second (the rule's tangent map ``t``). Written
``t + stop_gradient(f - t)`` it has the same partials, but its value is ``nan`` wherever
``t``'s is not finite (``xlogy(x, x)`` at 0: the rule's ``ẋ·log(x) + ẋ·x/x`` is
``0·(−inf) + 0·0/0``), though the primal's there is 0.

:class:`Logistic` is JAX's ``logistic`` (``jax.nn.sigmoid``) of one scalar, with JAX's
derivative ``σ(1 - σ)``: written out as ``1/(1 + exp(-x))``, sympy would differentiate it
to ``exp(-x)/(1 + exp(-x))**2``, which is ``inf/inf`` (NaN) where ``exp(-x)`` overflows
(``x < -709``) though the derivative is 0 there.

:class:`expm1` and :class:`log1p` are sympy's (``sympy.codegen.cfunctions``: C99's,
NumPy's and JAX's functions in code, so a small argument keeps its digits, as
``exp(x) - 1`` does not), written ``expm1``/``log1p`` in LaTeX too (sympy's LaTeX takes a
name's trailing digit for a subscript: ``expm_1``).

:data:`isfinite`, :data:`isnan` and :data:`isinf` are IEEE 754's tests, functions sympy
knows nothing of (so it never folds them: it takes a real symbol for a finite number),
under NumPy's, JAX's and C99's names, which lambdify, the printers and the parser read.

:class:`rint` is the arrays' ``round`` (``numpy.rint``, ``jnp.round``, C99's
``nearbyint`` under the default rounding mode, IEEE 754's roundTiesToEven): the nearest
whole number, a half to the even one, derivative 0 (a step, as ``floor``). Written out of
``floor`` it is a Piecewise, which sympy differentiates entry by entry, asking its
conditions' assumptions (five times the element level's cost).
"""

from __future__ import annotations

import sympy
from sympy.codegen import cfunctions

__all__ = [
    "Logistic",
    "RuleValue",
    "ShiftHeld",
    "StopGradient",
    "expm1",
    "isfinite",
    "isinf",
    "isnan",
    "log1p",
    "rint",
]

isfinite = sympy.Function("isfinite")
isnan = sympy.Function("isnan")
isinf = sympy.Function("isinf")


class _FirstArgumentsValue(sympy.Function):
    """A function whose value is its first argument's (real, finite and evaluated as it
    is) and whose code is that argument in parentheses: generated code computes values,
    never differentiates them."""

    def _eval_is_real(self):
        return self.args[0].is_real

    def _eval_is_finite(self):
        return self.args[0].is_finite

    def _eval_evalf(self, prec):
        return self.args[0].evalf(prec)

    def _code(self, printer, **kwargs) -> str:
        return f"({printer._print(self.args[0])})"

    # the methods sympy's code printers (Python, NumPy and SciPy, JAX, lambdify, mpmath,
    # C and C++: dgraph's C and CUDA printers derive from them) look for first
    _pythoncode = _numpycode = _jaxcode = _lambdacode = _mpmathcode = _code
    _ccode = _cxxcode = _cmathcode = _code


class StopGradient(_FirstArgumentsValue):
    """``stop_gradient(x)``: the value of ``x``, derivative 0 with respect to everything.

    Printed as ``stop_gradient(x)`` (the parser reads it back) and, as code, as its
    argument in parentheses: generated code computes values, never differentiates them.

    >>> x = sympy.Symbol("x", real=True)
    >>> sympy.diff(x * StopGradient(x**2), x)
    stop_gradient(x**2)
    >>> StopGradient(2), StopGradient(StopGradient(x)) == StopGradient(x)
    (2, True)
    """

    nargs = 1

    @classmethod
    def eval(cls, x):
        if x.is_Number or isinstance(x, StopGradient):
            return x
        return None

    def fdiff(self, argindex=1):
        return sympy.S.Zero

    def _eval_derivative(self, s):
        return sympy.S.Zero

    def _sympystr(self, printer) -> str:
        return f"stop_gradient({printer._print(self.args[0])})"

    def _latex(self, printer) -> str:
        return rf"\operatorname{{stop\_gradient}}\left({printer._print(self.args[0])}\right)"


class RuleValue(_FirstArgumentsValue):
    """``rule_value(f, t)``: the value of ``f``, the derivative of ``t`` (partial 0 with
    respect to ``f``, 1 with respect to ``t``): a custom derivative rule's output, ``f``
    the primal's value and ``t`` the rule's tangent map, linear in the inputs.

    Printed as ``rule_value(f, t)`` (the parser reads it back) and, as code, as ``f`` in
    parentheses: ``t``'s value, which may be ``nan`` where ``f``'s is not, never enters
    the value.

    >>> x = sympy.Symbol("x", real=True)
    >>> sympy.diff(RuleValue(x**2, 3 * x), x)
    3
    >>> RuleValue(x**2, 2), sympy.pycode(RuleValue(x**2, 3 * x))
    (stop_gradient(x**2), '(x**2)')
    """

    nargs = 2

    @classmethod
    def eval(cls, f, t):
        if t.is_Number:  # no derivative flows: the value, frozen
            return StopGradient(f)
        return None

    def fdiff(self, argindex=1):
        return sympy.S.Zero if argindex == 1 else sympy.S.One

    def _sympystr(self, printer) -> str:
        f, t = (printer._print(a) for a in self.args)
        return f"rule_value({f}, {t})"

    def _latex(self, printer) -> str:
        f, t = (printer._print(a) for a in self.args)
        return rf"\operatorname{{rule\_value}}\left({f}, {t}\right)"


class ShiftHeld(StopGradient):
    """A :class:`StopGradient` whose value cancels out of the function it is read in: a
    running log-sum-exp's shift ``m`` (``m + log Σ exp(x - m)`` is the log-sum-exp for
    every ``m``; the element level of ``cumlogsumexp``). Differentiated and printed as
    ``stop_gradient``, but the function's values do not depend on the held value, so
    central differences of them still give its derivative and a check by them stands
    (:func:`dgraph.core.value_check.scalar_reference_jvp`)."""


class Logistic(sympy.Function):
    """``logistic(x) = 1/(1 + exp(-x))`` with derivative ``logistic(x)*(1 - logistic(x))``
    (JAX's rule), finite for every ``x``.

    Printed as ``logistic(x)`` (the parser reads it back) and, as code, as
    ``(1/(1 + exp(-x)))``, the value the element level wrote before it had this class.

    >>> x = sympy.Symbol("x", real=True)
    >>> sympy.diff(Logistic(x), x)
    (1 - logistic(x))*logistic(x)
    >>> Logistic(0), Logistic(-sympy.Integer(2))
    (1/2, 1/(1 + exp(2)))
    """

    nargs = 1

    @classmethod
    def eval(cls, x):
        if x.is_Number:
            return _written(x)
        return None

    def fdiff(self, argindex=1):
        return self * (1 - self)

    def _eval_is_real(self):
        return True if self.args[0].is_real else None

    def _eval_is_finite(self):
        return True if self.args[0].is_real else None

    def _eval_rewrite_as_exp(self, x, **kwargs):
        return _written(x)

    def _eval_evalf(self, prec):
        return _written(self.args[0]).evalf(prec)

    def _sympystr(self, printer) -> str:
        return f"logistic({printer._print(self.args[0])})"

    def _latex(self, printer) -> str:
        return rf"\operatorname{{logistic}}\left({printer._print(self.args[0])}\right)"

    def _code(self, printer, **kwargs) -> str:
        return f"({printer._print(_written(self.args[0]))})"

    _pythoncode = _numpycode = _jaxcode = _lambdacode = _mpmathcode = _code
    _ccode = _cxxcode = _cmathcode = _code


def _written(x: sympy.Expr) -> sympy.Expr:
    return 1 / (1 + sympy.exp(-x))


class expm1(cfunctions.expm1):  # lower case: the printers look it up by its name
    """sympy's ``expm1``, its LaTeX ``\\operatorname{expm1}``."""

    def _latex(self, printer) -> str:
        return rf"\operatorname{{expm1}}\left({printer._print(self.args[0])}\right)"


class log1p(cfunctions.log1p):
    """sympy's ``log1p``, its LaTeX ``\\operatorname{log1p}``."""

    def _latex(self, printer) -> str:
        return rf"\operatorname{{log1p}}\left({printer._print(self.args[0])}\right)"


class rint(sympy.Function):  # lower case: NumPy's and C's name, which the parser reads
    """The nearest whole number, a half to the even one (IEEE 754's roundTiesToEven;
    ``numpy.rint``, ``jnp.round``, C99's ``nearbyint``); derivative 0, as JAX takes
    ``round``'s. A number's is exact; ±inf and NaN are their own.

    >>> x = sympy.Symbol("x", real=True)
    >>> sympy.diff(x * rint(x), x), rint(sympy.Rational(5, 2)), rint(sympy.Float(-0.5))
    (rint(x), 2, 0)
    >>> rint(sympy.Float(0.49999999999999994)), rint(sympy.Float(-2.5000000000000004))
    (0, -3)
    >>> from sympy.printing.numpy import NumPyPrinter
    >>> NumPyPrinter().doprint(rint(x)), sympy.ccode(rint(x)), sympy.pycode(rint(x))
    ('numpy.rint(x)', 'nearbyint(x)', 'round(x)')
    """

    nargs = 1

    @classmethod
    def eval(cls, x):
        if x.is_Number or x is sympy.zoo:
            return _nearest_even(x)
        if x.is_integer or isinstance(x, rint):
            return x
        return None

    def fdiff(self, argindex=1):
        return sympy.S.Zero

    def _eval_is_integer(self):
        return self.args[0].is_real

    def _eval_is_real(self):
        return self.args[0].is_real

    def _eval_is_finite(self):
        return self.args[0].is_finite

    def _eval_evalf(self, prec):
        value = self.args[0].evalf(prec)
        return _nearest_even(value).evalf(prec) if value.is_Number else None

    def _latex(self, printer) -> str:
        return rf"\operatorname{{rint}}\left({printer._print(self.args[0])}\right)"

    def _code(self, printer, **kwargs) -> str:
        """NumPy's and SciPy's ``rint``, JAX's (``jnp.round``'s operation); Python's
        ``round`` (halves to even) in plain Python."""
        arg = printer._print(self.args[0])
        module = getattr(printer, "_module", None)  # the NumPy family's array module
        return f"{printer._module_format(module + '.rint')}({arg})" if module else f"round({arg})"

    def _ccode(self, printer, **kwargs) -> str:
        return f"nearbyint({printer._print(self.args[0])})"

    # the methods sympy's printers look for first: Python, NumPy and SciPy, JAX; C, C++
    _pythoncode = _numpycode = _jaxcode = _code
    _cxxcode = _ccode


def _nearest_even(x: sympy.Number) -> sympy.Number:
    """:class:`rint` of a number, exactly (a float's binary value: 0.49999999999999994
    is below ½); ±inf and NaN as they are, a complex infinity NaN."""
    if not x.is_finite:
        return sympy.nan if x is sympy.zoo else x
    q = sympy.Rational(x)  # a Float's exact value
    whole, twice = q.p // q.q, 2 * (q.p % q.q)  # q = whole + rest/q.q, rest in [0, q.q)
    up = twice > q.q or (twice == q.q and whole % 2 == 1)
    return sympy.Integer(whole + up)
