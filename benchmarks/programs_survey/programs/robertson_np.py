import numpy as np

INPUTS = "y:3"


def f(y):
    y1, y2, y3 = y
    r1 = 0.04 * y1
    r2 = 1e4 * y2 * y3
    r3 = 3e7 * y2**2
    return np.array([-r1 + r2, r1 - r2 - r3, r3])


def POINT(rng):
    return [np.array([1.0, 2e-5, 0.01]) * (1 + 0.1 * rng.random(3))]
