import numpy as np

INPUTS = "x:8,lo:8,hi:8"
PARAMS = "lo,hi"


def f(x, lo, hi):
    s = np.where(np.isclose(x, 0.0), 1.0, np.sin(x) / np.where(x == 0, 1.0, x))  # sinc guard
    lg = np.log(x)  # NaN where x < 0
    lg = np.where(np.isfinite(lg), lg, 0.0)
    c = np.clip(x, lo, hi)  # array bounds
    return np.sum(s * c) + np.sum(lg**2) + np.sum(np.clip(x**2, 0.1, None))


def POINT(rng):
    x = rng.normal(size=8)
    lo, hi = np.full(8, -0.5), np.full(8, 0.5) + 0.1 * rng.random(8)
    x[0] = 0.0
    x[1] = hi[1]  # at the upper bound
    x[2] = lo[2]  # at the lower bound
    x[3] = -1.3  # log NaN, guarded
    return [x, lo, hi]
