import numpy as np

INPUTS = "x:500"


def f(x):
    xp = np.concatenate([np.zeros(1), x[:-1]])
    xn = np.concatenate([x[1:], np.zeros(1)])
    return (3.0 - 2.0 * x) * x - xp - 2.0 * xn + 1.0
