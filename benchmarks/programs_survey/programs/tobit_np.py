import numpy as np
from scipy.special import log_ndtr

INPUTS = "b:4,ls:,X:300x4,y:300"
PARAMS = "X,y"


def f(b, ls, X, y):
    s = np.exp(ls)
    z = (y - X @ b) / s
    cens = y <= 0.0
    ll = np.where(cens, log_ndtr(z), -0.5 * z**2 - ls - 0.5 * np.log(2 * np.pi))
    return -np.sum(ll)


def POINT(rng):
    X = rng.normal(size=(300, 4))
    y = np.maximum(X @ np.array([1.0, -0.5, 0.2, 3.0]) + rng.normal(size=300), 0.0)
    return [np.array([1.0, -0.5, 0.2, 3.0]), np.array(0.1), X, y]
