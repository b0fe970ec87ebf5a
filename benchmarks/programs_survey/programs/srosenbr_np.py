import numpy as np

INPUTS = "x:20"


def f(x):
    # CUTEst SROSENBR: separable Rosenbrock on the pairs (x_{2i-1}, x_{2i})
    odd, even = x[::2], x[1::2]
    return np.sum(100.0 * (even - odd**2) ** 2 + (odd - 1.0) ** 2)


def POINT(rng):
    x = np.tile([-1.2, 1.0], 10) + 0.05 * rng.normal(size=20)
    return [x]
