import numpy as np
from scipy.special import gammaln, xlogy

INPUTS = "la:,w:3,X:400x3,y:400"
PARAMS = "X,y"


def f(la, w, X, y):
    a = np.exp(la)
    mu = np.exp(X @ w)
    b = a / mu
    return -np.sum(a * np.log(b) - gammaln(a) + xlogy(a - 1.0, y) - b * y)


def POINT(rng):
    X = 0.5 * rng.normal(size=(400, 3))
    return [np.array(0.7), 0.3 * rng.normal(size=3), X, rng.gamma(2.0, 1.0, size=400)]
