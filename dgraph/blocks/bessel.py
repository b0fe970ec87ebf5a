"""The Bessel functions of order 0 and 1 as sympy functions, SciPy's names: ``j0``,
``j1``, ``y0``, ``y1`` (of the first and second kind), ``k0``, ``k1`` (the modified one of
the second kind) and ``k0e``, ``k1e`` (those times eˣ), each one elementwise operation
(:mod:`dgraph.blocks.array_extra`) whose derivatives close over the eight: J₀' = −J₁,
J₁' = J₀ − J₁/x, and the same for Y (Abramowitz and Stegun 9.1.27, 9.1.28); K₀' = −K₁,
K₁' = −K₀ − K₁/x (9.6.26, 9.6.28); for the scaled ones (eˣK)' = eˣK + eˣK'.

J₁'(0) = 1/2, where the formula is 0/0: a Piecewise as ``bessel_i1e``'s (the division
by x is of 1 there); Y and K are singular at 0 and NaN below (SciPy's).

References
----------
Abramowitz, M. and Stegun, I. A. (1964). *Handbook of Mathematical Functions*, 9.1.27,
9.1.28, 9.6.26, 9.6.28.
"""

from __future__ import annotations

import sympy

__all__ = ["BESSEL", "NOT_IN_JAX", "j0", "j1", "k0", "k0e", "k1", "k1e", "y0", "y1"]


def _nonzero(x: sympy.Expr) -> sympy.Expr:
    """``x``, or 1 where it is 0 (a division by it that a Piecewise does not take)."""
    return x + sympy.Piecewise((1, sympy.Eq(x, 0)), (0, True))


class j0(sympy.Function):  # scipy's name
    """The Bessel function of the first kind of order 0, J₀(x): J₀' = −J₁."""

    nargs = 1

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        return -j1(self.args[0])


class j1(sympy.Function):
    """The Bessel function of the first kind of order 1, J₁(x): J₁' = J₀ − J₁/x (1/2 at 0)."""

    nargs = 1

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        x = self.args[0]
        general = j0(x) - j1(x) / _nonzero(x)
        return sympy.Piecewise((sympy.S.Half, sympy.Eq(x, 0)), (general, True))


class y0(sympy.Function):
    """The Bessel function of the second kind of order 0, Y₀(x) (x > 0): Y₀' = −Y₁."""

    nargs = 1

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        return -y1(self.args[0])


class y1(sympy.Function):
    """The Bessel function of the second kind of order 1, Y₁(x) (x > 0): Y₁' = Y₀ − Y₁/x."""

    nargs = 1

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        x = self.args[0]
        return y0(x) - y1(x) / x


class k0(sympy.Function):
    """The modified Bessel function of the second kind of order 0, K₀(x) (x > 0): K₀' = −K₁."""

    nargs = 1

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        return -k1(self.args[0])


class k1(sympy.Function):
    """The modified Bessel function of the second kind of order 1, K₁(x) (x > 0):
    K₁' = −K₀ − K₁/x."""

    nargs = 1

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        x = self.args[0]
        return -k0(x) - k1(x) / x


class k0e(sympy.Function):
    """eˣK₀(x) (x > 0), SciPy's ``k0e``: its derivative is k0e − k1e."""

    nargs = 1

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        x = self.args[0]
        return k0e(x) - k1e(x)


class k1e(sympy.Function):
    """eˣK₁(x) (x > 0), SciPy's ``k1e``: its derivative is k1e − k0e − k1e/x."""

    nargs = 1

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        x = self.args[0]
        return k1e(x) - k0e(x) - k1e(x) / x


BESSEL: tuple[type[sympy.Function], ...] = (j0, j1, y0, y1, k0, k1, k0e, k1e)
"""The eight, each an operation of its own name (SciPy's, in scipy.special and in C as
``dgraph_<name>``)."""
NOT_IN_JAX = frozenset(f.__name__ for f in BESSEL)
"""The operations ``jax.scipy.special`` has no function for (JAX 0.10: only ``i0e``,
``i1e`` and ``bessel_jn``, a recurrence of its own): no generated JAX code, and a
Hessian (JAX's gradient of the array level) from the element level instead."""
