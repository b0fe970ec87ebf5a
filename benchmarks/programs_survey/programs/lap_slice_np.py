import numpy as np

INPUTS = "u:6x6"


def f(u):
    h = 1.0 / 5
    c = u[1:-1, 1:-1]
    lap = (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * c) / h**2
    return lap + np.exp(c)
