import numpy as np
from scipy.special import gammaln

INPUTS = "log_alpha:5,counts:12x5"
PARAMS = "counts"


def f(log_alpha, counts):
    # Dirichlet-multinomial (Polya) log-likelihood of count vectors
    a = np.exp(log_alpha)
    A = np.sum(a)
    n = np.sum(counts, axis=1)
    ll = (
        gammaln(A) - gammaln(n + A)
        + np.sum(gammaln(counts + a) - gammaln(a), axis=1)
        + gammaln(n + 1) - np.sum(gammaln(counts + 1), axis=1)
    )  # fmt: skip
    return -np.sum(ll)


def POINT(rng):
    counts = rng.multinomial(20, [0.4, 0.3, 0.15, 0.1, 0.05], size=12).astype(float)
    counts[0] = 0.0  # an empty draw
    return [np.zeros(5), counts]
