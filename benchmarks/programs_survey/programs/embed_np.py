import numpy as np

INPUTS = "E:5x3,w:3"
IDX = np.array([0, 2, 2, 4, 1])


def f(E, w):
    h = E[IDX]
    s = np.tanh(h @ w)
    return np.sum(s**2) + 0.1 * np.sum(E * E)
