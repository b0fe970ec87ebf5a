import numpy as np

INPUTS = "x:4,lam:2"


def f(x, lam):
    obj = x[0] * x[3] * (x[0] + x[1] + x[2]) + x[2]
    c1 = np.prod(x) - 25.0
    c2 = np.sum(x**2) - 40.0
    return obj + lam[0] * c1 + lam[1] * c2


def POINT(rng):
    return [1.0 + 4.0 * rng.random(4), rng.normal(size=2)]
