import numpy as np

INPUTS = "u:34x34"
H = 1.0 / 33


def f(u):
    lap = (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1]) / H**2
    r = -lap + u[1:-1, 1:-1] ** 3 - 1.0
    return 0.5 * np.sum(r**2) * H**2
