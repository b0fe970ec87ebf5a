import numpy as np

INPUTS = "x:20"


def f(x):
    # CUTEst DQRTIC: an integer power of an array, its Hessian diagonal 12 (x_i - i)^2
    return np.sum((x - np.arange(1, x.size + 1)) ** 4)


def POINT(rng):
    x = 2.0 + 0.1 * rng.normal(size=20)
    x[1] = 2.0  # a zero of the fourth power: Hessian entry exactly 0
    return [x]
