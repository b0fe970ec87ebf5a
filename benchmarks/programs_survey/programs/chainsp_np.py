import numpy as np

INPUTS = "x:10000"


def f(x):
    return np.sum(np.logaddexp(0.0, x)) + np.sum(x[1:] * x[:-1]) + 0.5 * np.sum(np.sin(x) ** 2)
