"""C text of the special functions C99's ``<math.h>`` lacks, defined in the generated
files that call them.

``lgamma`` is C99's, but its derivatives (digamma, trigamma, …) are not: a Jacobian of a
log-likelihood with ``gammaln`` calls ``dgraph_polygamma(n, x)``, SciPy's
``special.polygamma`` for an integer order ``n``, and ``dgraph_digamma(x)``, its order 0;
``dgraph_erfinv``, ``dgraph_ndtri``, ``dgraph_i0e`` and ``dgraph_i1e`` are SciPy's
``erfinv``, ``ndtri``, ``i0e`` and ``i1e``; ``dgraph_gammainc``, ``dgraph_gammaincc`` and
``dgraph_zeta`` SciPy's ``gammainc``, ``gammaincc`` and ``zeta``; ``dgraph_betainc``
SciPy's ``betainc``; ``dgraph_expn``,
``dgraph_exp1``, ``dgraph_expi`` and ``dgraph_dawsn`` SciPy's ``expn``, ``exp1``,
``expi`` and ``dawsn``; the Bessel functions of order 0 and 1 (``dgraph_j0`` …
``dgraph_k1e``) are :mod:`dgraph.codegen.c_bessel`'s, ``dgraph_spence``,
``dgraph_ellipk`` and ``dgraph_ellipe`` :mod:`dgraph.codegen.c_special_more`'s;
``dgraph_logaddexp`` is
NumPy's ``logaddexp`` (the larger operand plus ``log1p(exp(-|x - y|))``), the step of
``logaddexp.accumulate``.
Written here because no C library the generated files may assume defines them.

References
----------
Abramowitz, M. and Stegun, I. A. (1964). *Handbook of Mathematical Functions*, 6.3.7,
6.3.18, 6.4.6, 6.4.7, 6.4.11, 6.1.41, 6.5.29, 6.5.31, 9.6.10, 9.7.1, 23.1.30, 23.2.3,
26.2.12, 26.5.2, 26.5.8, 5.1.10, 5.1.12, 5.1.22, 5.1.24, 5.1.51 and 7.1.17.

Lentz, W. J. (1976). Generating Bessel functions in Mie scattering calculations using
continued fractions. *Applied Optics* 15(3).

Rybicki, G. B. (1989). Dawson's integral and the sampling theorem. *Computers in
Physics* 3(2), 85-87.

Winitzki, S. (2008). A handy approximation for the error function and its inverse.
"""

from __future__ import annotations

from .c_bessel import BESSEL_FUNCTIONS
from .c_linalg import LINALG_FUNCTIONS
from .c_sort import SORT_FUNCTIONS
from .c_special_more import MORE_FUNCTIONS

__all__ = ["MAX_ORDER", "special_definitions"]

MAX_ORDER = 20  # the highest order the C polygamma evaluates (its cot-polynomial's size)

# Above 20 + n the asymptotic series (6.3.18, 6.4.11) to B_16; below, the recurrence
# (6.4.6) up to it; below 0 the reflection (6.3.7, 6.4.7):
#   psi^(n)(x) = (-1)^n psi^(n)(1 - x) - pi^(n+1) P_n(cot(pi x)),
# P_0(c) = c, P_(k+1)(c) = -(1 + c^2) P_k'(c), cot's period 1 taken exactly first (x
# minus its nearest integer: near a pole the distance keeps its digits).
_POLYGAMMA = r"""
/* polygamma(n, x): the n-th derivative of digamma for an integer order
 * 0 <= n <= MAX_ORDER, as SciPy's special.polygamma (poles: digamma's -1/x at 0, NaN at
 * the negative integers; (-1)^(n+1) inf for n >= 1). Abramowitz and Stegun 6.3.7,
 * 6.3.18, 6.4.6, 6.4.7, 6.4.11. */
DGRAPH_SPECIAL double dgraph_polygamma(double order, double x)
{
    const double bernoulli[8] = {1.0 / 6, -1.0 / 30, 1.0 / 42, -1.0 / 30, 5.0 / 66,
                                 -691.0 / 2730, 7.0 / 6, -3617.0 / 510};
    const double pi = 3.141592653589793;
    const int n = (int)order;
    if (!(order == n) || n < 0 || n > MAX_ORDER || x != x) return NAN;
    const double sign = n % 2 ? 1.0 : -1.0; /* (-1)^(n+1) */
    double factorial = 1.0;
    for (int k = 2; k <= n; ++k) factorial *= k;
    if (x <= 0 && x == floor(x)) {
        if (n == 0) return x == 0 ? -1.0 / x : NAN;
        return sign * INFINITY;
    }
    if (x == INFINITY) return n == 0 ? INFINITY : 0.0;
    double outer = 0.0, flip = 1.0;
    if (x < 0) {
        double p[MAX_ORDER + 2] = {0.0, 1.0}, q[MAX_ORDER + 2];
        for (int k = 0; k < n; ++k) {
            for (int j = 0; j <= k + 2; ++j) q[j] = 0.0;
            for (int j = 1; j <= k + 1; ++j) {
                q[j - 1] -= j * p[j];
                q[j + 1] -= j * p[j];
            }
            for (int j = 0; j <= k + 2; ++j) p[j] = q[j];
        }
        const double r = x - round(x), c = cos(pi * r) / sin(pi * r);
        double value = 0.0, scale = pi;
        for (int j = n + 1; j >= 0; --j) value = value * c + p[j];
        for (int k = 0; k < n; ++k) scale *= pi;
        outer = -scale * value;
        flip = n % 2 ? -1.0 : 1.0;
        x = 1.0 - x;
    }
    double sum = 0.0;
    for (; x < 20.0 + n; x += 1.0) sum += sign * factorial / pow(x, n + 1);
    const double inverse = 1.0 / x, square = inverse * inverse;
    double power = pow(inverse, n); /* x^-n, then x^-(2k+n) */
    double series = (n == 0 ? -log(x) : factorial / n * power) + factorial * power * inverse / 2;
    for (int k = 1; k <= 8; ++k) {
        power *= square;
        double t = n == 0 ? 1.0 / (2 * k) : 1.0; /* (2k+n-1)! / (2k)! */
        for (int j = 2 * k + 1; j <= 2 * k + n - 1; ++j) t *= j;
        series += bernoulli[k - 1] * t * power;
    }
    return flip * (sum + sign * series) + outer;
}
""".replace("MAX_ORDER", str(MAX_ORDER))
_DIGAMMA = """
DGRAPH_SPECIAL double dgraph_digamma(double x) { return dgraph_polygamma(0.0, x); }
"""

# Winitzki's closed form (relative error below 4e-3) refined by Halley's method on
# f(y) = erf(y) - |x|, whose step is f / (f' + y f) since f'' = -2 y f'; above 1/2,
# f = (1 - |x|) - erfc(y) keeps its digits.
_ERFINV = r"""
/* erfinv(x) as SciPy's special.erfinv: +-inf at +-1, NaN outside [-1, 1]. */
DGRAPH_SPECIAL double dgraph_erfinv(double x)
{
    if (!(x >= -1.0 && x <= 1.0)) return NAN;
    if (x == 0.0 || x == 1.0 || x == -1.0) return x == 0.0 ? x : x * INFINITY;
    const double a = fabs(x), pi = 3.141592653589793, c = 0.147;
    const double l = log((1.0 - a) * (1.0 + a)), b = 2.0 / (pi * c) + l / 2;
    double y = sqrt(sqrt(b * b - l / c) - b);
    for (int k = 0; k < 6; ++k) {
        const double f = a > 0.5 ? (1.0 - a) - erfc(y) : erf(y) - a;
        const double step = f / (2.0 / sqrt(pi) * exp(-y * y) + y * f);
        y -= step;
        if (fabs(step) <= 1e-17 * y) break;
    }
    return x < 0 ? -y : y;
}
"""

# Between 1/4 and 3/4 erfinv's argument 2p - 1 is exact; in the tails Newton's method on
# g(z) = log Phi(z) - log q, q = min(p, 1 - p) (1 - p exact above 1/2): g is concave, so
# after one step the iterates rise to the root from below, and its step g Phi / phi keeps
# its digits where Phi underflows (log Phi by the asymptotic series below z = -37).
_NDTRI = r"""
/* The standard normal quantile as SciPy's special.ndtri: -inf at 0, inf at 1, NaN
 * outside [0, 1]. Abramowitz and Stegun 26.2.12 (Phi's asymptotic series). */
DGRAPH_SPECIAL double dgraph_ndtri(double p)
{
    const double root2 = 1.4142135623730951, root2pi = 2.5066282746310002;
    if (!(p >= 0.0 && p <= 1.0)) return NAN;
    if (p == 0.0 || p == 1.0) return p == 0.0 ? -INFINITY : INFINITY;
    if (p >= 0.25 && p <= 0.75) return root2 * dgraph_erfinv(2.0 * p - 1.0);
    const double target = log(p < 0.5 ? p : 1.0 - p), u = -2.0 * target;
    double z = -sqrt(fmax(u - log(2 * 3.141592653589793 * u), 0.5));
    for (int k = 0; k < 100; ++k) {
        double log_phi, ratio; /* log Phi(z) and Phi(z) / phi(z) */
        if (z > -37.0) {
            const double phi = 0.5 * erfc(-z / root2);
            log_phi = log(phi);
            ratio = phi * root2pi * exp(0.5 * z * z);
        } else { /* Phi(z) = phi(z) / -z * (1 - 1/z^2 + 3/z^4 - 15/z^6 + ...) */
            const double w = 1.0 / (z * z);
            double term = 1.0, series = 1.0;
            for (int j = 1; j < 12; ++j) {
                term *= -(2 * j - 1) * w;
                series += term;
            }
            ratio = series / -z;
            log_phi = -0.5 * z * z - log(root2pi) + log(ratio);
        }
        const double step = (log_phi - target) * ratio;
        z -= step;
        if (fabs(step) <= 1e-14 * fabs(z)) break;
    }
    return p < 0.5 ? z : -z;
}
"""

# E_n by its power series up to 1 (alternating, but every term below 1 there), by the
# continued fraction beyond (Lentz's method); e^(-x) in halves, so that it underflows
# only where E_n itself does. E1 is its order 1.
_EXPN = r"""
/* The exponential integral E_n(x) of a whole order n >= 0 as SciPy's special.expn: NaN
 * below 0 (n or x), at x = 0 inf for n <= 1 and 1/(n - 1) beyond, 0 at inf. Abramowitz
 * and Stegun 5.1.12 (the series), 5.1.22 (the continued fraction) and 5.1.24 (E_0). */
DGRAPH_SPECIAL double dgraph_expn(double order, double x)
{
    const double euler = 0.5772156649015329;
    const int n = (int)order;
    if (!(order == n) || n < 0 || !(x >= 0.0)) return NAN;
    if (x == 0.0 || x == INFINITY) return x != 0.0 ? 0.0 : n <= 1 ? INFINITY : 1.0 / (n - 1);
    if (n == 0) return exp(-x) / x;
    if (x <= 1.0) { /* (-x)^(n-1)/(n-1)! (psi(n) - log x) - sum_(k != n-1) (-x)^k/((k-n+1) k!) */
        double psi = -euler, term = 1.0, lead = 0.0, sum = 0.0; /* term: (-x)^k / k! */
        for (int k = 1; k < n; ++k) psi += 1.0 / k;
        for (int k = 0; k < n + 40; ++k) {
            if (k == n - 1) lead = term;
            else sum += term / (k - n + 1);
            term *= -x / (k + 1);
        }
        return lead * (psi - log(x)) - sum;
    }
    /* f = x + n - n / (x + n + 2 - 2 (n + 1) / (x + n + 4 - ...)), E_n = e^-x / f */
    double f = x + n, c = f, d = 0.0;
    for (int k = 1; k < 1000; ++k) {
        const double a = -(double)k * (n + k - 1), b = x + n + 2.0 * k;
        d = b + a * d;
        c = b + a / c;
        d = 1.0 / (d == 0.0 ? 1e-300 : d);
        const double delta = (c == 0.0 ? 1e-300 : c) * d;
        f *= delta;
        if (fabs(delta - 1.0) < 1e-16) break;
    }
    const double half = exp(-0.5 * x);
    return half * (half / f);
}
"""
_EXP1 = r"""
/* E1(x) as SciPy's special.exp1: E_n's order 1. */
DGRAPH_SPECIAL double dgraph_exp1(double x) { return dgraph_expn(1.0, x); }
"""

# Ei by its power series up to 40 (all terms positive); within 1/4 of its root x0 the
# series less its value at x0, log(x / x0) + sum_k (x^k - x0^k) / (k k!), whose terms
# share the sign of d = x - x0 (D_k = x^k - x0^k = x D_(k-1) + x0^(k-1) d): no
# cancellation, so Ei keeps its relative digits through its zero. Beyond 40 the
# asymptotic series, cut where its terms stop falling.
_EXPI = r"""
/* The exponential integral Ei(x) as SciPy's special.expi: -E1(-x) below 0, -inf at 0.
 * Abramowitz and Stegun 5.1.10 (the series) and 5.1.51 (the asymptotic series). */
DGRAPH_SPECIAL double dgraph_expi(double x)
{
    const double euler = 0.5772156649015329;
    const double root = 0.3725074107813666, root_low = 1.3140183414386028e-17;
    if (x != x) return NAN;
    if (x <= 0.0) return -dgraph_exp1(-x);
    if (x == INFINITY) return INFINITY;
    if (fabs(x - root) < 0.25) {
        const double d = (x - root) - root_low;
        double scaled = 0.0, power = 1.0, sum = 0.0; /* D_k / k!, x0^k / k! */
        for (int k = 1; k < 30; ++k) {
            scaled = (x * scaled + power * d) / k;
            power *= root / k;
            sum += scaled / k;
        }
        return log1p(d / root) + sum;
    }
    if (x <= 40.0) { /* euler + log x + sum_k x^k / (k k!) */
        double term = 1.0, sum = 0.0;
        for (int k = 1; k < 200; ++k) {
            term *= x / k;
            sum += term / k;
            if (term < 1e-17 * sum) break;
        }
        return euler + log(x) + sum;
    }
    double term = 1.0, sum = 1.0; /* e^x / x sum_k k! / x^k */
    for (int k = 1; k < 200; ++k) {
        const double next = term * k / x;
        if (next >= term || next < 1e-17) break;
        term = next;
        sum += term;
    }
    const double half = exp(0.5 * x);
    return half * (half / x * sum);
}
"""

# Dawson's integral: its series (alternating) below 0.2, Rybicki's sum of Gaussians
# (the sampling theorem; step h = 0.2, error about exp(-(pi / 2h)^2) = 2e-27, the odd n
# within 7 of x / h: the others' terms below exp(-49)) up to 10, the asymptotic series
# beyond.
_DAWSN = r"""
/* Dawson's integral F(x) = exp(-x^2) int_0^x exp(t^2) dt as SciPy's special.dawsn (odd).
 * Abramowitz and Stegun 7.1.17 (the series and the asymptotic series: e^(t^2)
 * integrated term by term, and by parts); Rybicki (1989). */
DGRAPH_SPECIAL double dgraph_dawsn(double x)
{
    const double h = 0.2, rootpi = 1.7724538509055160, a = fabs(x);
    double f = 0.0;
    if (x != x) return NAN;
    if (a < 0.2) { /* x sum_k (-2 x^2)^k / (2k + 1)!! */
        const double w = -2.0 * x * x;
        double term = 1.0, sum = 1.0;
        for (int k = 1; k < 30; ++k) {
            term *= w / (2 * k + 1);
            sum += term;
        }
        return x * sum;
    }
    if (a < 10.0) { /* (1 / sqrt(pi)) sum_(n odd) exp(-(a - n h)^2) / n */
        int n = (int)floor((a - 7.0) / h);
        const int last = (int)ceil((a + 7.0) / h);
        for (n += (n % 2 == 0); n <= last; n += 2) {
            const double t = a - n * h;
            f += exp(-t * t) / n;
        }
        f /= rootpi;
    } else if (a < INFINITY) { /* 1/(2a) sum_k (2k - 1)!! / (2 a^2)^k */
        const double w = 0.5 / (a * a);
        double term = 1.0, sum = 1.0;
        for (int k = 1; k < 60; ++k) {
            const double next = term * (2 * k - 1) * w;
            if (next >= term || next < 1e-17) break;
            term = next;
            sum += term;
        }
        f = 0.5 / a * sum;
    }
    return x < 0 ? -f : f;
}
"""

# exp(-|x|) I_nu(x) for nu = 0, 1: the power series (9.6.10) up to |x| = 30, where its
# terms are all positive, and the asymptotic series (9.7.1) beyond, cut at its least term.
_BESSEL = r"""
/* exp(-|x|) I_order(x) for order 0 or 1, as SciPy's special.i0e and i1e. */
DGRAPH_SPECIAL double dgraph_bessel_ie(int order, double x)
{
    const double a = fabs(x);
    double sum;
    if (x != x) return x;
    if (a <= 30.0) {
        const double q = a * a / 4;
        double term = order ? a / 2 : 1.0;
        sum = term;
        for (int k = 1; k < 200 && term > 1e-17 * sum; ++k) {
            term *= q / (k * (double)(k + order));
            sum += term;
        }
        sum *= exp(-a);
    } else {
        const double mu = 4.0 * order * order;
        double term = 1.0;
        sum = 1.0;
        for (int k = 1; k < 100; ++k) {
            const double next = -term * (mu - (2.0 * k - 1) * (2.0 * k - 1)) / (8.0 * k * a);
            if (fabs(next) >= fabs(term)) break;
            term = next;
            sum += term;
            if (fabs(term) <= 1e-17 * fabs(sum)) break;
        }
        sum /= sqrt(2 * 3.141592653589793 * a);
    }
    return order && x < 0 ? -sum : sum;
}
"""
_I0E = """
DGRAPH_SPECIAL double dgraph_i0e(double x) { return dgraph_bessel_ie(0, x); }
"""
_I1E = """
DGRAPH_SPECIAL double dgraph_i1e(double x) { return dgraph_bessel_ie(1, x); }
"""
# NumPy's npy_logaddexp: log(e^x + e^y) shifted by the larger (infinities of one sign: x)
_LOGADDEXP = """
DGRAPH_SPECIAL double dgraph_logaddexp(double x, double y)
{
    if (x == y) return x + 0.693147180559945309417232121458176568;
    const double d = x - y;
    if (d > 0.0) return x + log1p(exp(-d));
    if (d <= 0.0) return y + log1p(exp(d));
    return d;
}
"""
# The regularized incomplete gammas: P's power series (6.5.29) below x = a + 1, Q's
# continued fraction (6.5.31) by Lentz's method above, each the other's complement; their
# factor x^a e^-x / Gamma(a) from a = 20 by Stirling's series for log Gamma, whose terms
# cancel there (a·log(x) against lgamma(a): 1e-11 of error at a = 10^4 otherwise).
_IGAMMA = r"""
/* P(a, x) (lower = 1) or Q(a, x) = 1 - P(a, x) (lower = 0), as SciPy's special.gammainc
 * and gammaincc for a > 0, x >= 0 (NaN elsewhere but at a = 0 < x: P = 1). Abramowitz
 * and Stegun 6.5.29, 6.5.31. */
DGRAPH_SPECIAL double dgraph_igamma(int lower, double a, double x)
{
    const double eps = 1e-17, tiny = 1e-300;
    if (!(a >= 0.0 && x >= 0.0) || (a == 0.0 && x == 0.0)) return NAN;
    if (a == 0.0 || x == INFINITY) return lower ? 1.0 : 0.0;
    if (x == 0.0) return lower ? 0.0 : 1.0;
    double front;
    if (a >= 20.0) { /* x^a e^-x / Gamma(a) by Stirling's series (6.1.41): no cancellation */
        const double t = (x - a) / a, r = 1.0 / (a * a);
        const double series = (1.0 / 12 - r * (1.0 / 360 - r * (1.0 / 1260 - r / 1680))) / a;
        const double u = t < -0.5 ? log(x / a) : log1p(t); /* log(x/a): 1 + t loses digits */
        front = exp(a * (u - t) + 0.5 * log(a / (2 * 3.141592653589793)) - series);
    } else {
        front = exp(-x + a * log(x) - lgamma(a));
    }
    if (x < a + 1.0) {
        double term = 1.0 / a, sum = term;
        for (int n = 1; n < 100000 && fabs(term) > eps * fabs(sum); ++n) {
            term *= x / (a + n);
            sum += term;
        }
        return lower ? sum * front : 1.0 - sum * front;
    }
    double b = x + 1.0 - a, c = 1.0 / tiny, d = 1.0 / b, h = d;
    for (int i = 1; i < 100000; ++i) {
        const double an = -i * (i - a);
        b += 2.0;
        d = an * d + b;
        if (fabs(d) < tiny) d = tiny;
        c = b + an / c;
        if (fabs(c) < tiny) c = tiny;
        d = 1.0 / d;
        h *= d * c;
        if (fabs(d * c - 1.0) <= eps) break;
    }
    return lower ? 1.0 - front * h : front * h;
}
DGRAPH_SPECIAL double dgraph_gammainc(double a, double x) { return dgraph_igamma(1, a, x); }
DGRAPH_SPECIAL double dgraph_gammaincc(double a, double x) { return dgraph_igamma(0, a, x); }
"""

# The regularized incomplete beta I_x(a, b): the continued fraction 26.5.8 by Lentz's
# method below x = (a + 1)/(a + b + 2), where it converges fast, else 1 - I_(1-x)(b, a)
# (26.5.2). Its factor x^a (1-x)^b / B(a, b) in logarithms; from a or b = 10 log Gamma by
# Stirling's series (6.1.41) with the large parts of the logarithms gathered first, which
# would otherwise cancel (a·log(x) against log Gamma(a), ~6e3 at a = 10^3).
_BETAINC = r"""
/* log Gamma(z) - (z - 1/2) log z + z - log(2 pi)/2 for z >= 10 (6.1.41) */
DGRAPH_SPECIAL double dgraph_stirling(double z)
{
    const double r = 1.0 / (z * z);
    return (1.0 / 12 - r * (1.0 / 360 - r * (1.0 / 1260 - r * (1.0 / 1680
            - r * (1.0 / 1188 - r * (691.0 / 360360)))))) / z;
}
/* log(x^a (1-x)^b / B(a, b)) for 0 < x < 1, a, b > 0 finite */
DGRAPH_SPECIAL double dgraph_beta_front(double a, double b, double x)
{
    const double s = a + b, log_2pi = 1.8378770664093453;
    if (a >= 10.0 && b >= 10.0) { /* about the mode p = a/s: a log(x/p) + b log((1-x)/q) */
        const double p = a / s, q = b / s, d = x - p;
        const double lx = fabs(d) < 0.5 * p ? log1p(d / p) : log(x / p);
        const double ly = fabs(d) < 0.5 * q ? log1p(-d / q) : log1p(-x) - log(q);
        return a * lx + b * ly + 0.5 * (log(a * q) - log_2pi) - dgraph_stirling(a)
               - dgraph_stirling(b) + dgraph_stirling(s);
    }
    if (a >= 10.0) /* log Gamma(s) - log Gamma(a) = (a - 1/2) log1p(b/a) + b log s - b + ... */
        return a * log(x) + b * (log1p(-x) + log(s)) - b + (a - 0.5) * log1p(b / a)
               - lgamma(b) + dgraph_stirling(s) - dgraph_stirling(a);
    if (b >= 10.0)
        return b * log1p(-x) + a * (log(x) + log(s)) - a + (b - 0.5) * log1p(a / b)
               - lgamma(a) + dgraph_stirling(s) - dgraph_stirling(b);
    return a * log(x) + b * log1p(-x) - lgamma(a) - lgamma(b) + lgamma(s);
}
/* one step of Lentz's method: the convergent's factor for the partial numerator an */
DGRAPH_SPECIAL double dgraph_lentz_step(double an, double *c, double *d)
{
    const double tiny = 1e-300;
    *d = 1.0 + an * *d;
    if (fabs(*d) < tiny) *d = tiny;
    *c = 1.0 + an / *c;
    if (fabs(*c) < tiny) *c = tiny;
    *d = 1.0 / *d;
    return *d * *c;
}
/* the continued fraction of I_x(a, b)·a·B(a, b)/(x^a (1-x)^b), 26.5.8, by Lentz's method */
DGRAPH_SPECIAL double dgraph_beta_fraction(double a, double b, double x)
{
    const double eps = 1e-16, tiny = 1e-300;
    double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
    if (fabs(d) < tiny) d = tiny;
    d = 1.0 / d;
    double h = d;
    for (int m = 1; m < 100000; ++m) {
        const double m2 = 2.0 * m;
        h *= dgraph_lentz_step(m * (b - m) * x / ((a - 1.0 + m2) * (a + m2)), &c, &d); /* even */
        const double odd = dgraph_lentz_step(
            -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1.0 + m2)), &c, &d);
        h *= odd;
        if (fabs(odd - 1.0) <= eps) break;
    }
    return h;
}
/* I_x(a, b) as SciPy's special.betainc for a, b >= 0 (not both 0 or both infinite) and
 * 0 <= x <= 1, NaN elsewhere. Abramowitz and Stegun 26.5.2, 26.5.8. */
DGRAPH_SPECIAL double dgraph_betainc(double a, double b, double x)
{
    if (!(a >= 0.0 && b >= 0.0 && x >= 0.0 && x <= 1.0)) return NAN;
    if ((a == 0.0 && b == 0.0) || (a == INFINITY && b == INFINITY)) return NAN;
    if (x == 0.0 || x == 1.0) return x;
    if (a == 0.0 || b == INFINITY) return 1.0;
    if (b == 0.0 || a == INFINITY) return 0.0;
    const double front = exp(dgraph_beta_front(a, b, x));
    if (x < (a + 1.0) / (a + b + 2.0)) return front * dgraph_beta_fraction(a, b, x) / a;
    return 1.0 - front * dgraph_beta_fraction(b, a, 1.0 - x) / b;
}
"""

# Hurwitz's zeta by Euler-Maclaurin summation (23.2.3's remainder, Bernoulli numbers to
# B_24): the terms (q + k)^-s summed directly until q + k >= max(10, (s + 24)/2) (the
# corrections shrink like ((s + 2j)/(2 pi w))^2j), the tail's integral, half its first
# term and twelve corrections; a sum whose tail is below its last digit stops there.
_ZETA = r"""
/* zeta(s, q) = sum_k (q + k)^-s as SciPy's special.zeta: inf at s = 1 and at q a
 * non-positive integer, NaN for s < 1 and for q < 0 with s no integer. Abramowitz and
 * Stegun 23.1.30, 23.2.3. */
DGRAPH_SPECIAL double dgraph_zeta(double s, double q)
{
    const double bernoulli[12] = {1.0 / 6, -1.0 / 30, 1.0 / 42, -1.0 / 30, 5.0 / 66,
                                  -691.0 / 2730, 7.0 / 6, -3617.0 / 510, 43867.0 / 798,
                                  -174611.0 / 330, 854513.0 / 138, -236364091.0 / 2730};
    if (s != s || q != q || s < 1.0) return NAN;
    if (s == 1.0) return INFINITY;
    if (q <= 0.0) {
        if (q == floor(q)) return INFINITY;
        if (s != floor(s)) return NAN;
    }
    if (q == INFINITY) return 0.0;
    double sum = 0.0, w = q, t = pow(w, -s);
    for (; w < 10.0 || w < (s + 24.0) / 2.0; t = pow(w, -s)) {
        sum += t;
        w += 1.0;
        if (w > 1.0 && t * (w / (s - 1.0) + 1.0) <= 1e-17 * fabs(sum)) return sum; /* no tail */
    }
    sum += pow(w, 1.0 - s) / (s - 1.0) + 0.5 * t;
    double rising = s, power = t / w, factorial = 2.0;
    for (int j = 0; j < 12; ++j) {
        const double term = bernoulli[j] / factorial * rising * power;
        sum += term;
        if (fabs(term) <= 1e-17 * fabs(sum)) break;
        rising *= (s + 2 * j + 1) * (s + 2 * j + 2);
        power /= w * w;
        factorial *= (2 * j + 3) * (2 * j + 4);
    }
    return sum;
}
"""
# each function, the definitions it needs in order
_FUNCTIONS = {
    "dgraph_logaddexp": (_LOGADDEXP,),
    "dgraph_polygamma": (_POLYGAMMA,),
    "dgraph_digamma": (_POLYGAMMA, _DIGAMMA),
    "dgraph_erfinv": (_ERFINV,),
    "dgraph_ndtri": (_ERFINV, _NDTRI),
    "dgraph_i0e": (_BESSEL, _I0E),
    "dgraph_i1e": (_BESSEL, _I1E),
    "dgraph_gammainc": (_IGAMMA,),
    "dgraph_gammaincc": (_IGAMMA,),
    "dgraph_zeta": (_ZETA,),
    "dgraph_betainc": (_BETAINC,),
    "dgraph_expn": (_EXPN,),
    "dgraph_exp1": (_EXPN, _EXP1),
    "dgraph_expi": (_EXPN, _EXP1, _EXPI),
    "dgraph_dawsn": (_DAWSN,),
    **BESSEL_FUNCTIONS,
    **MORE_FUNCTIONS,
    **LINALG_FUNCTIONS,
    **SORT_FUNCTIONS,
}


def special_definitions(text: str, qualifier: str = "static") -> list[str]:
    """The lines defining the special functions ``text`` calls (none when it calls none),
    each function declared ``qualifier`` (``static`` in C; CUDA's device qualifiers).

    >>> special_definitions("y = sin(x);")
    []
    >>> special_definitions("y = dgraph_digamma(x);")[0]
    '#define DGRAPH_SPECIAL static'
    """
    called = [bodies for name, bodies in _FUNCTIONS.items() if f"{name}(" in text]
    bodies = dict.fromkeys(body for needed in called for body in needed)
    if not bodies:
        return []
    return [f"#define DGRAPH_SPECIAL {qualifier}", *"".join(bodies).splitlines()]
