import numpy as np

INPUTS = "u:10"


def f(u):
    dx = 0.1
    g = np.gradient(u, dx)
    flux = (1 + u**2) * g
    return np.gradient(flux, dx) - np.sin(u)
