import numpy as np

INPUTS = "c:6,t:25,y:25"
PARAMS = "t,y"


def f(c, t, y):
    # a Chebyshev fit with a roughness penalty on the derivative series
    r = np.polynomial.chebyshev.chebval(t, c) - y
    d = np.polynomial.chebyshev.chebder(c)
    return np.sum(r**2) + 0.01 * np.sum(d**2)


def POINT(rng):
    t = np.linspace(-1, 1, 25)
    return [rng.normal(size=6), t, np.cos(3 * t)]
