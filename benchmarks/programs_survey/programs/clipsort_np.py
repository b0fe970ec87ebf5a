import numpy as np

INPUTS = "x:12"
W = np.linspace(1.0, 2.0, 12)


def f(x):
    y = np.clip(x, -1.0, 1.0)
    s = np.sort(y)
    return np.sum(W * np.cumsum(s) ** 2) + np.sum(np.abs(x) ** 3)


def POINT(rng):
    x = rng.normal(size=12)
    x[0], x[1], x[2] = 1.0, -1.0, 3.0  # on the clip bounds, and one clipped
    x[3] = x[4] = 0.25  # a tie in the sort
    return [x]
