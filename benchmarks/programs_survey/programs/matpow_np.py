import numpy as np

INPUTS = "A:4x4,v:4"


def f(A, v):
    # a 5-step linear dynamics by matrix_power, an integer power of the states
    A5 = np.linalg.matrix_power(A, 5)
    x = A5 @ v
    return np.trace(A5) + np.sum(x**3) + np.linalg.norm(np.linalg.matrix_power(A, 2), "fro")


def POINT(rng):
    return [0.4 * rng.normal(size=(4, 4)), rng.normal(size=4)]
