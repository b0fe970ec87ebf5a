import numpy as np

INPUTS = "u:5x5"


def f(u):
    lap = np.roll(u, 1, 0) + np.roll(u, -1, 0) + np.roll(u, 1, 1) + np.roll(u, -1, 1) - 4 * u
    return lap - u**3 + 1.0
