import numpy as np

INPUTS = "x:20"


def f(x, zeta=20.0):
    # CUTEst GENHUMPS: many humps
    s = np.sin(zeta * x) ** 2
    return np.sum(s[:-1] * s[1:] + 0.05 * (x[:-1] ** 2 + x[1:] ** 2))


def POINT(rng):
    x = np.full(20, 506.2)
    x[0] = -506.2  # the published start
    return [x + 0.01 * rng.normal(size=20)]
