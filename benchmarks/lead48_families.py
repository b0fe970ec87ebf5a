"""Session 48 (lead): scipy.stats' families read as their formulas. For each family, one
function of x (its methods, traced shapes where allowed): ``make_function(f,
"value_and_jacobian")``, verified, the value against scipy's own and the gradient against
five-point differences of scipy's own function (max error / max |differences|).

``python benchmarks/lead48_families.py [family ...]``
"""

import sys
import warnings

import numpy as np
import scipy.stats as st

import dgraph

warnings.simplefilter("ignore")
x = np.array([0.3, 1.2, 0.7, 2.0, 0.9, 1.6])
cases = {
    "uniform": lambda x: (
        np.sum(st.uniform.logpdf(x, 0.0, 2.5))
        + np.sum(st.uniform.cdf(x, 0.1, 3.0))
        + np.sum(st.uniform.ppf(x / 3, 0.5, 2.0))
    ),
    "gumbel_r": lambda x: np.sum(
        st.gumbel_r.logpdf(x, 0.5, 1.3)
        + st.gumbel_r.cdf(x, 0.2)
        + st.gumbel_r.sf(x)
        + st.gumbel_r.ppf(x / 3)
        + st.gumbel_r.isf(x / 3)
    ),
    "gumbel_l": lambda x: np.sum(
        st.gumbel_l.logpdf(x, 0.5, 1.3)
        + st.gumbel_l.cdf(x, 0.2)
        + st.gumbel_l.logsf(x)
        + st.gumbel_l.ppf(x / 3)
        + st.gumbel_l.isf(x / 3)
    ),
    "pareto": lambda x: np.sum(
        st.pareto.logpdf(x + 1, 2.5)
        + st.pareto.cdf(x + 1, 1.5)
        + st.pareto.ppf(x / 3, 2.0)
        + st.pareto.logpdf(1.5, x + 1)
    ),
    "invgamma": lambda x: np.sum(
        st.invgamma.logpdf(x, 2.5) + st.invgamma.cdf(x, 1.5) + st.invgamma.logpdf(1.1, x + 1)
    ),
    "rayleigh": lambda x: np.sum(
        st.rayleigh.logpdf(x, scale=1.4)
        + st.rayleigh.cdf(x)
        + st.rayleigh.ppf(x / 3)
        + st.rayleigh.isf(x / 3)
    ),
    "genpareto": lambda x: np.sum(
        st.genpareto.logpdf(x, 0.3)
        + st.genpareto.logpdf(x, -0.4)
        + st.genpareto.cdf(x, 0.3)
        + st.genpareto.sf(x, -0.2)
        + st.genpareto.ppf(x / 3, 0.25)
        + st.genpareto.logpdf(0.7, x - 1.0)
    ),
    "genextreme": lambda x: np.sum(
        st.genextreme.logpdf(x, 0.3)
        + st.genextreme.logpdf(x, -0.4)
        + st.genextreme.cdf(x, 0.3)
        + st.genextreme.sf(x, -0.2)
        + st.genextreme.ppf(x / 3, 0.25)
        + st.genextreme.logpdf(0.7, x - 1.0)
    ),
    "skewnorm": lambda x: np.sum(
        st.skewnorm.logpdf(x, 2.0, 0.5, 1.2) + st.skewnorm.pdf(x, -1.5) + st.skewnorm.logpdf(0.3, x)
    ),
    "gennorm": lambda x: np.sum(
        st.gennorm.logpdf(x - 1, 1.5) + st.gennorm.cdf(x - 1, 2.5) + st.gennorm.logpdf(0.4, x + 0.5)
    ),
    "truncnorm": lambda x: np.sum(
        st.truncnorm.logpdf(x, 0.1, 2.5)
        + st.truncnorm.logpdf(x + 6, 5.0, 9.0)
        + st.truncnorm.logpdf(x - 6.5, -9.0, -4.0)
        + st.truncnorm.pdf(0.5, -x, x)
    ),
}


def diffs(f, x, h=1e-5):
    out = []
    for i in range(x.size):
        e = np.zeros(x.size)
        e[i] = h
        out.append((-f(x + 2 * e) + 8 * f(x + e) - 8 * f(x - e) + f(x - 2 * e)) / (12 * h))
    return np.array(out)


for k, f in cases.items():
    if len(sys.argv) > 1 and k not in sys.argv[1:]:
        continue
    try:
        m = dgraph.make_function(f, "value_and_jacobian", point=[x])
        v, J = m(x)
        ref = f(x)
        D = diffs(f, x)
        value_error = abs(v - ref) / max(1, abs(ref))
        gradient_error = np.max(np.abs(np.ravel(J) - D)) / max(1, np.max(np.abs(D)))
        print(f"{k:12s} verified={m.generated.verified} {value_error:.1e} {gradient_error:.1e}")
    except Exception as e:
        print(f"{k:12s} {type(e).__name__}: {str(e)[:200]}")
