import numpy as np

INPUTS = "x:20"


def f(x):
    # CUTEst CRAGGLVY (extended Cragg-Levy), i = 1 .. n/2 - 1
    a, b, c, d = x[0:-2:2], x[1:-2:2], x[2::2], x[3::2]
    return np.sum(
        (np.exp(a) - b) ** 4
        + 100.0 * (b - c) ** 6
        + (np.tan(c - d) + c - d) ** 4
        + a**8
        + (d - 1.0) ** 2
    )


def POINT(rng):
    x = np.full(20, 2.0)
    x[0] = 1.0  # the published start: tan(0) terms exactly 0
    return [x + 0.0 * rng.normal(size=20)]
