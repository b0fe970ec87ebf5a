import numpy as np

INPUTS = "r:15"


def f(r):
    # a portfolio's log wealth, its drawdown from the running maximum, penalised
    w = np.cumsum(r)
    peak = np.maximum.accumulate(w)
    dd = peak - w
    return -w[-1] + 2.0 * np.sum(dd**2) + 0.5 * np.max(dd)


def POINT(rng):
    return [0.05 * rng.normal(size=15)]
