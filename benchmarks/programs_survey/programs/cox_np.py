import numpy as np

INPUTS = "b:5,X:2000x5,ev:2000"
PARAMS = "X,ev"


def f(b, X, ev):
    """Cox partial likelihood, rows sorted by time: the risk set of i is i..n-1."""
    eta = X @ b
    risk = np.cumsum(np.exp(eta)[::-1])[::-1]
    return -np.sum(ev * (eta - np.log(risk)))


def POINT(rng):
    return [
        0.1 * rng.normal(size=5),
        rng.normal(size=(2000, 5)),
        (rng.uniform(size=2000) < 0.7).astype(float),
    ]
