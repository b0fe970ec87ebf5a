import numpy as np

INPUTS = "x:100"


def f(x):
    return 1e-5 * np.sum((x - 1.0) ** 2) + (np.dot(x, x) - 0.25) ** 2
