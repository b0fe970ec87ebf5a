import numpy as np

INPUTS = "x:20"


def f(x):
    # CUTEst EDENSCH (Li 1988)
    a, b = x[:-1], x[1:]
    return 16.0 + np.sum((a - 2.0) ** 4 + (a * b - 2.0 * b) ** 2 + (b + 1.0) ** 2)


def POINT(rng):
    x = 0.1 * rng.normal(size=20)
    x[3] = 2.0  # (a - 2)^4 and a b - 2 b vanish together
    return [x]
