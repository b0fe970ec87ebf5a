import numpy as np

INPUTS = "s:20,beta:3,X:20x3"
PARAMS = "X"


def f(s, beta, X):
    """BLP-style logit inversion by the contraction delta += log s - log share(delta)."""
    delta = np.zeros(20)
    err = 1.0
    while err > 1e-12:
        u = delta + X @ beta
        e = np.exp(u - np.max(u))
        share = e / (np.exp(-np.max(u)) + np.sum(e))
        new = delta + np.log(s) - np.log(share)
        err = np.max(np.abs(new - delta))
        delta = new
    return delta


def POINT(rng):
    s = rng.uniform(1.0, 3.0, size=20)
    return [0.8 * s / s.sum(), 0.5 * rng.normal(size=3), rng.normal(size=(20, 3))]
