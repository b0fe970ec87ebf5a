"""C text of the Bessel functions of order 0 and 1 as SciPy's ``special.j0``, ``j1``,
``y0``, ``y1``, ``k0``, ``k1``, ``k0e`` and ``k1e``, defined in the generated files that
call them, as :mod:`dgraph.codegen.c_special` defines the other special functions.

* J and Y (``dgraph_bessel_jy``): the power series (A&S 9.1.10, 9.1.11) up to |x| = 2;
  Miller's backward recurrence (A&S 9.12) normalized by 1 = J₀ + 2ΣJ₂ₖ (9.1.46) up to
  25, Y₀ from the same J₂ₖ by Neumann's series (9.1.88) and Y₁ by its derivative
  (−Y₀', with J₂ₖ' = (J₂ₖ₋₁ − J₂ₖ₊₁)/2); Hankel's asymptotic series (9.2.5-9.2.10) from
  25, its phase from C's ``sin(x)`` and ``cos(x)`` (no ``x − π/4`` rounded first: to
  mpmath's digits up to 1e300, where SciPy's are off by 1e-6 at 1e10, all at 1e16). The
  recurrence and the series have absolute errors of a few ulps of max|J|: near a zero
  the relative error grows as 1/|J| (as SciPy's beyond its first zeros).
* K (``dgraph_bessel_k``): the power series (9.6.13, 9.6.11) below 1, all its terms
  positive there; from 1 the trapezoidal rule on eˣK_ν(x) = ∫₀^∞ e^(−2x·sinh²(t/2))
  cosh(νt) dt (9.6.24), whose error for an integrand analytic in a strip falls as
  exp(−2π²/(h²x)) at the step h = min(0.2, 0.5/√x) (Trefethen and Weideman 2014): below
  1e-30; the scaled ``k0e``/``k1e`` with no exponential, K's e^(−x) in halves (no
  underflow before K's own).

References
----------
Abramowitz, M. and Stegun, I. A. (1964). *Handbook of Mathematical Functions*, 9.1.10,
9.1.11, 9.1.46, 9.1.88, 9.2.5-9.2.10, 9.6.11, 9.6.13, 9.6.24, 9.12.

Trefethen, L. N. and Weideman, J. A. C. (2014). The exponentially convergent trapezoidal
rule. *SIAM Review* 56(3), 385-458.
"""

from __future__ import annotations

__all__ = ["BESSEL_FUNCTIONS"]

_JY = r"""
/* J_order(x) (second = 0) or Y_order(x) (second = 1) for order 0 or 1, as SciPy's
 * special.j0, j1, y0, y1: J0 even, J1 odd, Y NaN below 0 and -inf at 0; NaN at +-inf
 * (SciPy's, whose limit is 0). */
DGRAPH_SPECIAL double dgraph_bessel_jy(int order, int second, double x)
{
    const double pi = 3.141592653589793, euler = 0.5772156649015329;
    const double sign = order && x < 0 ? -1.0 : 1.0, a = fabs(x);
    if (x != x || (second && x < 0)) return NAN;
    if (second && x == 0) return -INFINITY;
    if (a == INFINITY) return NAN;
    if (a <= 2.0) { /* 9.1.10, 9.1.11: sums over (-a^2/4)^k / (k! (k + order)!) */
        const double q = -0.25 * a * a, log_half = log(0.5 * a);
        double term = order ? 0.5 * a : 1.0, j = term, harmonic = 0.0, sum = 0.0;
        double psi_sum = order ? 1.0 - 2.0 * euler : -2.0 * euler; /* psi(k+1) + psi(k+order+1) */
        sum = psi_sum * term;
        for (int k = 1; k < 40; ++k) {
            term *= q / (k * (double)(k + order));
            harmonic += 1.0 / k;
            psi_sum = -2.0 * euler + harmonic + harmonic + (order ? 1.0 / (k + 1) : 0.0);
            j += term;
            sum += psi_sum * term;
        }
        if (!second) return sign * j;
        return (order ? -2.0 / (pi * a) : 0.0) + (2.0 * log_half * j - sum) / pi;
    }
    if (a < 25.0) { /* Miller: b_(m-1) = (2m / a) b_m - b_(m+1) from b_(N+1) = 0 */
        const int top = 2 * (int)((1.3 * a + 40.0) / 2.0);
        double next = 0.0, cur = 1.0, norm = 0.0, s0 = 0.0, s1 = 0.0;
        for (int m = top; m >= 1; --m) {
            if (m % 2 == 0) { /* norm: 2 b_2k; s0: (-1)^k b_2k / k */
                const int k = m / 2;
                norm += 2.0 * cur;
                s0 += (k % 2 ? -cur : cur) / k;
            } else { /* s1: (-1)^k (b_(2k-1) - b_(2k+1)) / k */
                const int k = (m + 1) / 2;
                s1 += (k % 2 ? -cur : cur) / k;
                if (m >= 3) s1 -= ((k - 1) % 2 ? -cur : cur) / (k - 1);
            }
            const double prev = 2.0 * m / a * cur - next;
            next = cur;
            cur = prev;
            if (fabs(cur) > 1e250) {
                cur *= 1e-250, next *= 1e-250, norm *= 1e-250, s0 *= 1e-250, s1 *= 1e-250;
            }
        }
        norm += cur;
        const double j0 = cur / norm, j1 = next / norm;
        if (!second) return order ? sign * j1 : j0;
        const double lead = log(0.5 * a) + euler;
        if (!order) return 2.0 / pi * (lead * j0 - 2.0 * s0 / norm);
        return 2.0 / pi * (-j0 / a + lead * j1 + s1 / norm);
    }
    /* Hankel: P = t0 - t2 + t4 ..., Q = t1 - t3 + ..., t_k = t_(k-1) (mu - (2k-1)^2) / (8 k a) */
    const double mu = 4.0 * order * order, c = cos(a), s = sin(a), root2 = 1.4142135623730951;
    double term = 1.0, p = 1.0, qsum = 0.0;
    for (int k = 1; k < 200; ++k) {
        const double next = term * (mu - (2.0 * k - 1) * (2.0 * k - 1)) / (8.0 * k * a);
        if (fabs(next) >= fabs(term)) break;
        term = next;
        if (k % 2) qsum += (k % 4 == 1 ? term : -term);
        else p += (k % 4 == 2 ? -term : term);
        if (fabs(term) < 1e-17) break;
    }
    /* chi = a - (2 order + 1) pi / 4: cos chi and sin chi from cos a and sin a */
    const double cos_chi = (order ? s - c : c + s) / root2;
    const double sin_chi = (order ? -s - c : s - c) / root2;
    const double scale = sqrt(2.0 / (pi * a));
    if (second) return scale * (p * sin_chi + qsum * cos_chi);
    return sign * scale * (p * cos_chi - qsum * sin_chi);
}
DGRAPH_SPECIAL double dgraph_j0(double x) { return dgraph_bessel_jy(0, 0, x); }
DGRAPH_SPECIAL double dgraph_j1(double x) { return dgraph_bessel_jy(1, 0, x); }
DGRAPH_SPECIAL double dgraph_y0(double x) { return dgraph_bessel_jy(0, 1, x); }
DGRAPH_SPECIAL double dgraph_y1(double x) { return dgraph_bessel_jy(1, 1, x); }
"""

_K = r"""
/* K_order(x) for order 0 or 1, times e^x when scaled, as SciPy's special.k0, k1, k0e,
 * k1e: NaN below 0, inf at 0. */
DGRAPH_SPECIAL double dgraph_bessel_k(int order, int scaled, double x)
{
    const double euler = 0.5772156649015329;
    if (x != x || x < 0) return NAN;
    if (x == 0) return INFINITY;
    if (x == INFINITY) return 0.0;
    if (x < 1.0) { /* 9.6.13, 9.6.11: sums over (x^2/4)^k / (k! (k + order)!) */
        const double q = 0.25 * x * x, log_half = log(0.5 * x);
        double term = order ? 0.5 * x : 1.0, i = term, harmonic = 0.0;
        /* psi(k + 1) + psi(k + order + 1), times the term */
        double sum = (order ? 1.0 - 2.0 * euler : -2.0 * euler) * term;
        for (int k = 1; k < 30; ++k) {
            term *= q / (k * (double)(k + order));
            harmonic += 1.0 / k;
            i += term;
            sum += (-2.0 * euler + harmonic + harmonic + (order ? 1.0 / (k + 1) : 0.0)) * term;
        }
        const double value = order ? 1.0 / x + log_half * i - 0.5 * sum : -log_half * i + 0.5 * sum;
        return scaled ? value * exp(x) : value;
    }
    const double h = fmin(0.2, 0.5 / sqrt(x));
    double sum = 0.5; /* the trapezoid's half weight at t = 0 */
    for (int k = 1; k < 1000; ++k) {
        const double t = k * h, half = sinh(0.5 * t), w = 2.0 * x * half * half;
        const double term = exp(-w) * (order ? cosh(t) : 1.0);
        sum += term;
        if (w > 45.0 && term < 1e-18 * sum) break;
    }
    const double scaled_k = h * sum;
    if (scaled) return scaled_k;
    const double decay = exp(-0.5 * x);
    return decay * (decay * scaled_k);
}
DGRAPH_SPECIAL double dgraph_k0(double x) { return dgraph_bessel_k(0, 0, x); }
DGRAPH_SPECIAL double dgraph_k1(double x) { return dgraph_bessel_k(1, 0, x); }
DGRAPH_SPECIAL double dgraph_k0e(double x) { return dgraph_bessel_k(0, 1, x); }
DGRAPH_SPECIAL double dgraph_k1e(double x) { return dgraph_bessel_k(1, 1, x); }
"""

BESSEL_FUNCTIONS: dict[str, tuple[str, ...]] = {
    **{f"dgraph_{name}": (_JY,) for name in ("j0", "j1", "y0", "y1")},
    **{f"dgraph_{name}": (_K,) for name in ("k0", "k1", "k0e", "k1e")},
}
"""Each function, the definitions it needs in order."""
