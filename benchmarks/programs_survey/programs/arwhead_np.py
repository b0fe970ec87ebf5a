import numpy as np

INPUTS = "x:2000"


def f(x):
    return np.sum(-4.0 * x[:-1] + 3.0) + np.sum((x[:-1] ** 2 + x[-1] ** 2) ** 2)
