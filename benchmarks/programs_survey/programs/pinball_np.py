import numpy as np

INPUTS = "b:3,X:5000x3,y:5000"
PARAMS = "X,y"
TAU = 0.75


def f(b, X, y):
    r = y - X @ b
    return np.mean(np.maximum(TAU * r, (TAU - 1.0) * r)) + 1e-3 * np.sum(b**2)


def POINT(rng):
    X = rng.normal(size=(5000, 3))
    b = np.array([1.0, 2.0, -1.0])
    y = X @ b + rng.normal(size=5000)
    y[:50] = X[:50] @ b  # residual exactly zero: the kink
    return [b, X, y]
