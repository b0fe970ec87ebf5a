import numpy as np

INPUTS = "W:3x4,x:6x3"
PARAMS = "x"


def f(W, x):
    # ELU and SELU layers, a stable softplus read-out
    h = x @ W
    a = np.where(h > 0, h, np.expm1(h))
    s = 1.0507 * np.where(a > 0, a, 1.6733 * np.expm1(a))
    z = s.sum(axis=1)
    return np.sum(np.log1p(np.exp(-np.abs(z))) + np.maximum(z, 0))
