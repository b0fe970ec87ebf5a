import numpy as np

INPUTS = "th:3,r:500"
PARAMS = "r"


def f(th, r):
    w, a, b = np.exp(th[0]), 1 / (1 + np.exp(-th[1])), 1 / (1 + np.exp(-th[2]))
    s2 = np.var(r)
    ll = 0.0
    for t in range(500):
        ll = ll + np.log(s2) + r[t] ** 2 / s2
        s2 = w + a * r[t] ** 2 + b * s2
    return 0.5 * ll


def POINT(rng):
    r = 0.01 * rng.standard_t(5, size=500)
    r[100:110] = 0.0  # a market holiday: zero returns
    return [np.array([np.log(1e-6), -2.0, 2.0]), r]
