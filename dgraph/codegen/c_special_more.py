"""C text of SciPy's ``special.spence``, ``ellipk`` and ``ellipe``, defined in the
generated files that call them, as :mod:`dgraph.codegen.c_special` defines the other
special functions.

* ``dgraph_spence(x)`` = Li₂(1 − x): the series in u = −log(1 − y) with Bernoulli
  numbers, Li₂(y) = Σ Bₙ uⁿ⁺¹/(n + 1)! (|u| ≤ log 2 here: to B₂₀, terms below 1e-20),
  for 1/2 ≤ x ≤ 2 (u = −log x: no rounding of 1 − x first); the reflection Li₂(y) =
  π²/6 − log y log(1 − y) − Li₂(1 − y) below 1/2 and the inversion Li₂(y) = −π²/6 −
  log²(−y)/2 − Li₂(1/y) above 2 (A&S 27.7.3, 27.7.4; 't Hooft and Veltman 1979).
* ``dgraph_ellipk(m)``, ``dgraph_ellipe(m)``: the arithmetic-geometric mean, K = π/(2
  AGM(1, √(1 − m))) and E = K (1 − Σ 2ⁿ⁻¹ cₙ²), c₀² = m (A&S 17.6.3, 17.6.4), for every
  m ≤ 1 (1 − m exact from 1/2 on), stopped once cₙ < 1e-9 a (cₙ₊₁ ≈ cₙ²/4a is then
  below a's last digit; a tolerance below an ulp never stops, and the weight 2ⁿ⁻¹ of the
  rounding's cₙ grows: a stop at 1e-17 a left E(1/2) 2.3e-15 off).

References
----------
Abramowitz, M. and Stegun, I. A. (1964). *Handbook of Mathematical Functions*, 17.6.3,
17.6.4, 27.7.3, 27.7.4.

't Hooft, G. and Veltman, M. (1979). Scalar one-loop integrals. *Nuclear Physics B* 153,
365-401 (the dilogarithm's Bernoulli series).
"""

from __future__ import annotations

from .lambertw_code import C_LAMBERTW

__all__ = ["MORE_FUNCTIONS"]

_SPENCE = r"""
/* Li2(y) = sum_n B_n u^(n+1) / (n+1)! for u = -log(1 - y), |u| <= log 2. */
DGRAPH_SPECIAL double dgraph_dilog_series(double u)
{
    const double bernoulli[10] = {1.0 / 6, -1.0 / 30, 1.0 / 42, -1.0 / 30, 5.0 / 66,
                                  -691.0 / 2730, 7.0 / 6, -3617.0 / 510, 43867.0 / 798,
                                  -174611.0 / 330};
    const double square = u * u;
    double power = u, factorial = 1.0, sum = u - 0.25 * square; /* u^(2k+1), (2k+1)! */
    for (int k = 1; k <= 10; ++k) {
        power *= square;
        factorial *= (2.0 * k) * (2.0 * k + 1);
        sum += bernoulli[k - 1] * power / factorial;
    }
    return sum;
}

/* spence(x) = Li2(1 - x) for x >= 0 as SciPy's special.spence: NaN below 0. */
DGRAPH_SPECIAL double dgraph_spence(double x)
{
    const double zeta2 = 1.6449340668482264; /* pi^2 / 6 */
    if (!(x >= 0.0) || x == INFINITY) return NAN;
    if (x == 0.0) return zeta2;
    if (x < 0.5) /* y = 1 - x: pi^2/6 - log(y) log(x) - Li2(x) */
        return zeta2 - log1p(-x) * log(x) - dgraph_dilog_series(-log1p(-x));
    if (x <= 2.0) return dgraph_dilog_series(-log(x));
    /* y = 1 - x < -1: -pi^2/6 - log^2(x - 1)/2 - Li2(1/y), 1 - 1/y = x / (x - 1) */
    const double l = log(x - 1.0);
    return -zeta2 - 0.5 * l * l - dgraph_dilog_series(-log1p(1.0 / (x - 1.0)));
}
"""

_ELLIP = r"""
/* K(m) (second = 0) or E(m) (second = 1) as SciPy's special.ellipk and ellipe: NaN above
 * 1, K(1) = inf, E(1) = 1. */
DGRAPH_SPECIAL double dgraph_ellip(int second, double m)
{
    const double pi = 3.141592653589793;
    if (!(m <= 1.0)) return NAN;
    if (m == 1.0) return second ? 1.0 : INFINITY;
    if (m == -INFINITY) return second ? INFINITY : 0.0;
    double a = 1.0, b = sqrt(1.0 - m), power = 0.5, sum = 0.5 * m; /* 2^(n-1), c_0^2 = m */
    for (int n = 1; n < 60; ++n) {
        const double c = 0.5 * (a - b), mean = 0.5 * (a + b);
        b = sqrt(a * b);
        a = mean;
        power *= 2.0;
        sum += power * c * c;
        if (fabs(c) <= 1e-9 * a) break; /* c_(n+1) ~ c_n^2 / 4a: below a's last digit */
    }
    const double k = pi / (2.0 * a);
    return second ? k * (1.0 - sum) : k;
}
DGRAPH_SPECIAL double dgraph_ellipk(double m) { return dgraph_ellip(0, m); }
DGRAPH_SPECIAL double dgraph_ellipe(double m) { return dgraph_ellip(1, m); }
"""

MORE_FUNCTIONS: dict[str, tuple[str, ...]] = {
    "dgraph_spence": (_SPENCE,),
    "dgraph_ellipk": (_ELLIP,),
    "dgraph_ellipe": (_ELLIP,),
    "dgraph_lambertw": (C_LAMBERTW,),
}
"""Each function, the definitions it needs in order."""
