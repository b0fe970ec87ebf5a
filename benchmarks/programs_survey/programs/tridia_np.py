import numpy as np

INPUTS = "x:20"


def f(x, alpha=2.0, beta=1.0, gamma=1.0, delta=1.0):
    # CUTEst TRIDIA: weights i = 2..n
    i = np.arange(2, x.size + 1)
    return gamma * (delta * x[0] - 1.0) ** 2 + np.sum(i * (alpha * x[1:] - beta * x[:-1]) ** 2)


def POINT(rng):
    return [np.ones(20) + 0.1 * rng.normal(size=20)]
