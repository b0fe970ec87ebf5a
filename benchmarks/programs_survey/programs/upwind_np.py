import numpy as np

INPUTS = "u:8"


def f(u):
    flux = 0.5 * u * u
    a = 0.5 * (u[:-1] + u[1:])
    F = np.where(a > 0, flux[:-1], flux[1:])
    return -np.diff(F) / 0.1
