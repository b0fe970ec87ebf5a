import numpy as np

INPUTS = "xq:4,fp:6"
XP = np.linspace(0.0, 1.0, 6)


def f(xq, fp):
    return np.interp(xq, XP, fp) ** 2


def POINT(rng):
    return [np.array([0.05, 0.33, 0.61, 0.93]) + 0.01 * rng.random(4), rng.normal(size=6)]
