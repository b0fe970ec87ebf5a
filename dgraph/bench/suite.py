"""The benchmark suite: paper graphs, FastDifferentiation.jl-style families, random DAGs.

Every entry is a name and a zero-argument builder returning a :class:`DGraph`. Chebyshev
polynomials and real spherical harmonics are written from their textbook recurrences
(the families FastDifferentiation.jl benchmarks); their graphs share subexpressions
heavily, so the number of paths grows much faster than the number of vertices.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import sympy

from ..core.graph import DGraph
from ..errors import DGraphError
from ..frontends import bundled, from_sympy
from ..frontends.random_graphs import random_dag
from .realworld import REAL_WORLD

__all__ = ["SUITES", "chebyshev", "spherical_harmonics", "suite"]


def chebyshev(n: int) -> DGraph:
    """T_n(x) by the recurrence T_k = 2 x T_{k-1} - T_{k-2}, T_0 = 1, T_1 = x."""
    x = sympy.Symbol("x")
    t = [sympy.Integer(1), x]
    for _ in range(2, n + 1):
        t.append(2 * x * t[-1] - t[-2])
    return from_sympy({"T": t[n]}, [x], name=f"chebyshev-{n}")


def spherical_harmonics(order: int) -> DGraph:
    """The real spherical harmonics Y_lm(x, y, z) for l < ``order`` (order**2 outputs).

    Associated Legendre functions by the standard three-term recurrence in z, the
    azimuthal factors C_m + i S_m = (x + i y)^m by their two-term recurrences, and the
    usual normalization sqrt((2l+1)/(4 pi) (l-m)!/(l+m)!) (times sqrt 2 for m != 0).
    """
    x, y, z = sympy.symbols("x y z")

    @cache
    def legendre(l: int, m: int) -> sympy.Expr:
        if l == m:
            return sympy.Integer(1) if m == 0 else (1 - 2 * m) * legendre(m - 1, m - 1)
        if l == m + 1:
            return (2 * m + 1) * z * legendre(m, m)
        return sympy.Rational(2 * l - 1, l - m) * z * legendre(l - 1, m) - sympy.Rational(
            l + m - 1, l - m
        ) * legendre(l - 2, m)

    @cache
    def cos_part(m: int) -> sympy.Expr:
        return sympy.Integer(1) if m == 0 else x * cos_part(m - 1) - y * sin_part(m - 1)

    @cache
    def sin_part(m: int) -> sympy.Expr:
        return sympy.Integer(0) if m == 0 else x * sin_part(m - 1) + y * cos_part(m - 1)

    def norm(l: int, m: int) -> sympy.Expr:
        scale = sympy.Rational(2 * l + 1, 4) * sympy.factorial(l - m) / sympy.factorial(l + m)
        return sympy.sqrt(scale / sympy.pi) * (sympy.sqrt(2) if m else 1)

    outputs = {}
    for l in range(order):
        for m in range(-l, l + 1):
            azimuth = sin_part(-m) if m < 0 else cos_part(m)
            value = norm(l, abs(m)) * legendre(l, abs(m)) * azimuth
            if l > 0:  # Y_00 is a constant (free_symbols would walk the shared tree: 2^l)
                outputs[f"Y_{l}_{'m' if m < 0 else ''}{abs(m)}"] = value
    return from_sympy(outputs, [x, y, z], name=f"spherical-harmonics-{order}")


_PAPER: dict[str, Callable[[], DGraph]] = {
    "naumann-sin": lambda: bundled("naumann_sin.trace"),
    "naumann-discrepancy": lambda: bundled("naumann_discrepancy.json"),
    "zhou-two-blocks": lambda: bundled("zhou_two_blocks.json"),
    "spherical-coordinates": lambda: bundled("spherical_coordinates.trace"),
}

SUITES: dict[str, dict[str, Callable[[], DGraph]]] = {
    "quick": {
        **_PAPER,
        "chebyshev-5": lambda: chebyshev(5),
        "spherical-harmonics-3": lambda: spherical_harmonics(3),
        **{f"random-dag-{s}": (lambda s=s: random_dag(s, 3, 10, 3, 0.25)) for s in range(3)},
    },
    "full": {
        **_PAPER,
        **{f"chebyshev-{n}": (lambda n=n: chebyshev(n)) for n in (5, 10, 20)},
        **{f"spherical-harmonics-{n}": (lambda n=n: spherical_harmonics(n)) for n in (3, 5, 8)},
        **{f"random-dag-{s}": (lambda s=s: random_dag(s, 4, 16, 4, 0.2)) for s in range(5)},
        **REAL_WORLD,
    },
    "real": dict(REAL_WORLD),
}


def suite(name: str) -> dict[str, Callable[[], DGraph]]:
    if name not in SUITES:
        raise DGraphError(f"unknown suite {name!r}: use {', '.join(SUITES)}")
    return SUITES[name]
