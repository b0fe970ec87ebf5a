"""Four more special functions of one real argument as sympy functions, SciPy's names,
each one elementwise operation (:mod:`dgraph.blocks.array_extra`): the dilogarithm
``spence``, the complete elliptic integrals ``ellipk`` and ``ellipe`` of the
parameter m, and the principal branch of Lambert's W, ``lambertw`` (SciPy's is complex:
its real part, as users write ``lambertw(x).real``, for x ≥ −1/e; NaN below, where W is
not real).

* spence(x) = ∫₁ˣ log t/(1 − t) dt (x ≥ 0; Abramowitz and Stegun 27.7.1): its derivative
  log x/(1 − x), −1 at x = 1;
* K(m), E(m) (m ≤ 1; A&S 17.3.1, 17.3.3): dK/dm = (E − (1 − m)K)/(2m(1 − m)),
  dE/dm = (E − K)/(2m) (A&S 17.3.29, 17.3.30), π/8 and −π/8
  at m = 0;
* W(x), the principal branch of w·eʷ = x (x ≥ −1/e; Corless et al. 1996): its
  derivative W/(x(1 + W)) = e^(−W)/(1 + W), written the second way (1 at x = 0, where
  the first is 0/0; infinite at −1/e, the branch point).

Where a formula is 0/0 at one point, the point's branch of a Piecewise is the Taylor
polynomial of degree 2 there, so that the first two derivatives of the derivative (the
Hessian's, and one more) are right at the point too; the division elsewhere is of 1 there
(no warning from a printer that computes both branches).

References
----------
Abramowitz, M. and Stegun, I. A. (1964). *Handbook of Mathematical Functions*, 17.3.1,
17.3.3, 17.3.11, 17.3.12, 17.3.29, 17.3.30, 27.7.1.

Corless, R. M., Gonnet, G. H., Hare, D. E. G., Jeffrey, D. J. and Knuth, D. E. (1996). On
the Lambert W function. *Advances in Computational Mathematics* 5, 329-359 (eq. 3.2).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import sympy

__all__ = ["MORE", "REAL_PARTS", "ellipe", "ellipk", "lambertw", "lambertw_value", "spence"]


def _at(x: sympy.Expr, point: int, near: sympy.Expr, general: sympy.Expr) -> sympy.Expr:
    """``general``, and ``near`` (a polynomial in x − point) where x equals ``point``."""
    return sympy.Piecewise((near, sympy.Eq(x, point)), (general, True))


def _off(x: sympy.Expr, point: int) -> sympy.Expr:
    """``x − point``, or 1 where it is 0 (a division by it a Piecewise does not take)."""
    return x - point + sympy.Piecewise((1, sympy.Eq(x, point)), (0, True))


class spence(sympy.Function):  # scipy's name
    """The dilogarithm spence(x) = ∫₁ˣ log t/(1 − t) dt = Li₂(1 − x), x ≥ 0."""

    nargs = 1

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        x = self.args[0]
        t = x - 1  # log x/(1 − x) = −log(1 + t)/t = −1 + t/2 − t²/3 + …
        near = -1 + t / 2 - t**2 / 3
        return _at(x, 1, near, -sympy.log(x) / _off(x, 1))


class ellipk(sympy.Function):
    """The complete elliptic integral of the first kind K(m) = ∫₀^(π/2) dθ/√(1 − m
    sin²θ), m ≤ 1 (SciPy's parameter m = k²)."""

    nargs = 1

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        m = self.args[0]
        near = sympy.pi / 2 * (sympy.Rational(1, 4) + sympy.Rational(9, 32) * m)
        near += sympy.pi / 2 * sympy.Rational(75, 256) * m**2
        general = (ellipe(m) - (1 - m) * ellipk(m)) / (2 * _off(m, 0) * (1 - m))
        return _at(m, 0, near, general)


class ellipe(sympy.Function):
    """The complete elliptic integral of the second kind E(m) = ∫₀^(π/2) √(1 − m
    sin²θ) dθ, m ≤ 1."""

    nargs = 1

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        m = self.args[0]
        near = -sympy.pi / 2 * (sympy.Rational(1, 4) + sympy.Rational(3, 32) * m)
        near -= sympy.pi / 2 * sympy.Rational(15, 256) * m**2
        return _at(m, 0, near, (ellipe(m) - ellipk(m)) / (2 * _off(m, 0)))


class lambertw(sympy.Function):  # scipy's name
    """The principal branch W(x) of Lambert's W, w·eʷ = x, for real x ≥ −1/e."""

    nargs = 1

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        return sympy.exp(-self) / (1 + self)


BRANCH_POINT = -math.exp(-1.0)  # −1/e rounded: SciPy's W there is −1 (to rounding)


def lambertw_value(x: Any) -> Any:
    """W(x) of real ``x`` as SciPy computes it (``scipy.special.lambertw(x).real``),
    NaN below −1/e, where W is complex (its real part is no value of W)."""
    import scipy.special

    x = np.asarray(x, dtype=float)
    with np.errstate(invalid="ignore"):
        w = scipy.special.lambertw(x).real
    return np.where(x < BRANCH_POINT, np.nan, w)


MORE: tuple[type[sympy.Function], ...] = (spence, ellipk, ellipe, lambertw)
"""The four, each an operation of its own name (SciPy's, in C ``dgraph_<name>``)."""

REAL_PARTS = {"lambertw": lambertw_value}
"""Those SciPy computes as complex: NumPy's evaluation of each (its real part)."""
