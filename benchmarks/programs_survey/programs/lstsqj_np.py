import numpy as np

INPUTS = "A:8x3,b:8"


def f(A, b):
    # least squares with a traced design and data: residual norm plus the solution's norm
    x, *_ = np.linalg.lstsq(A, b, rcond=None)
    return np.sum((A @ x - b) ** 2) + 0.1 * np.sum(x**2)


def POINT(rng):
    return [rng.normal(size=(8, 3)), rng.normal(size=8)]
