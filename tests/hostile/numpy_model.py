"""NumPy-style functions the command line cannot take, each for one reason."""

import numpy as np


def branches(x):
    if x > 0:  # a branch on a value that depends on the input
        return x
    return -x


def converts(x):
    return float(x) * 2.0  # float() of a traced value


def unknown_ufunc(x):
    return np.logaddexp(x, 1.0)
