import numpy as np

INPUTS = "x:20"


def f(x):
    # CUTEst FLETCHCR (Fletcher's chained Rosenbrock)
    return np.sum(100.0 * (x[1:] - x[:-1] + 1.0 - x[:-1] ** 2) ** 2)


def POINT(rng):
    return [0.1 * rng.normal(size=20)]
