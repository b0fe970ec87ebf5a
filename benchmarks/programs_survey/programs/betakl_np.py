import numpy as np
from scipy.special import betaln, digamma

INPUTS = "u:5,v:5,k:5,n:5"
PARAMS = "k,n"


def softplus(x):
    return np.logaddexp(0.0, x)


def kl_beta(a1, b1, a2, b2):
    return (
        betaln(a2, b2)
        - betaln(a1, b1)
        + (a1 - a2) * digamma(a1)
        + (b1 - b2) * digamma(b1)
        + (a2 - a1 + b2 - b1) * digamma(a1 + b1)
    )


def f(u, v, k, n, a0=1.0, b0=1.0):
    # variational beta-binomial: the exact expected log-likelihood under Beta(a, b)
    # posteriors (digamma differences) minus the KL to the Beta(a0, b0) prior
    a, b = softplus(u) + 1e-3, softplus(v) + 1e-3
    e_logp = digamma(a) - digamma(a + b)
    e_log1mp = digamma(b) - digamma(a + b)
    ell = np.sum(k * e_logp + (n - k) * e_log1mp)
    return -(ell - np.sum(kl_beta(a, b, a0, b0)))


def POINT(rng):
    return [rng.normal(size=5), np.zeros(5), np.array([0, 3, 5, 10, 2.0]),
            np.array([10, 10, 5, 10, 8.0])]  # fmt: skip
