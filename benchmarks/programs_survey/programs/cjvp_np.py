import numpy as np

INPUTS = "x:6,y:4x3"


def softplus(x):
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


def f(x, y):
    n = np.sqrt(np.sum(y**2, axis=1))
    return np.sum(softplus(x)) * n


def POINT(rng):
    x = rng.normal(size=6)
    x[1] = 0.0  # softplus at its max/abs kinks
    return [x, rng.normal(size=(4, 3))]
