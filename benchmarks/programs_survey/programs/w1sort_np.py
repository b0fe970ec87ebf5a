import numpy as np

INPUTS = "x:20,y:20"
PARAMS = "y"


def f(x, y, p=2):
    # the 1-D Wasserstein-p distance of two samples by sorting, plus quantile penalties
    w = np.mean(np.abs(np.sort(x) - np.sort(y)) ** p)
    q = np.quantile(x, [0.1, 0.5, 0.9])
    return w + 0.1 * np.sum(q**2)


def POINT(rng):
    x = rng.normal(size=20)
    x[:3] = 0.25  # ties
    y = rng.normal(loc=0.5, size=20)
    return [x, y]
