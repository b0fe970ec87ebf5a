import numpy as np

INPUTS = "z:5,y:5"
PARAMS = "y"


def f(z, y):
    m = np.max(z)
    lse = m + np.log(np.sum(np.exp(z - m)))
    return lse - np.dot(z, y)


def POINT(rng):
    return [rng.normal(size=5), np.eye(5)[rng.integers(5)]]
