import numpy as np

INPUTS = "u:8"


def f(u):
    dx = 0.1
    fp = 0.5 * np.maximum(u, 0.0) ** 2
    fm = 0.5 * np.minimum(u, 0.0) ** 2
    F = fp[:-1] + fm[1:]
    return -(F[1:] - F[:-1]) / dx
