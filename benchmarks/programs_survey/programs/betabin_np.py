import numpy as np
from scipy.special import betaln, gammaln

INPUTS = "la:,lb:,k:100,n:100"
PARAMS = "k,n"


def f(la, lb, k, n):
    a, b = np.exp(la), np.exp(lb)
    lc = gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)
    return -np.sum(lc + betaln(k + a, n - k + b) - betaln(a, b))


def POINT(rng):
    n = rng.integers(1, 30, size=100).astype(float)
    k = rng.binomial(n.astype(int), 0.3).astype(float)
    k[:3] = 0.0
    k[3:6] = n[3:6]
    return [np.array(0.5), np.array(1.0), k, n]
