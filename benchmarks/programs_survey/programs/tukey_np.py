import numpy as np

INPUTS = "beta:3,X:50x3,y:50"
PARAMS = "X,y"


def rho(u, c):
    inside = c**2 / 6.0 * (1.0 - (1.0 - (u / c) ** 2) ** 3)
    return np.where(np.abs(u) <= c, inside, c**2 / 6.0)


def f(beta, X, y, c=4.685):
    r = y - X @ beta
    s = 1.4826 * np.median(np.abs(r - np.median(r)))  # MAD scale
    return np.sum(rho(r / s, c))


def POINT(rng):
    X = np.column_stack([np.ones(50), rng.normal(size=(50, 2))])
    y = X @ np.array([1.0, 2.0, -1.0]) + 0.3 * rng.normal(size=50)
    y[:5] += 8.0  # outliers past the cutoff
    return [np.array([0.9, 2.1, -0.9]), X, y]
