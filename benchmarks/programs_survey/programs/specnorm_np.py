import numpy as np

INPUTS = "A:4x3"


def f(A):
    # spectral and nuclear norms (singular values) and the Frobenius norm
    return np.linalg.norm(A, 2) + 0.5 * np.linalg.norm(A, "nuc") + np.linalg.norm(A, "fro") ** 2


def POINT(rng):
    return [rng.normal(size=(4, 3))]
