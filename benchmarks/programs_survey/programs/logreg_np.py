import numpy as np

INPUTS = "w:3,X:10x3,y:10"
PARAMS = "X,y"


def f(w, X, y):
    z = X @ w
    return np.mean(np.logaddexp(0.0, -y * z)) + 0.01 * np.dot(w, w)


def POINT(rng):
    return [rng.normal(size=3), rng.normal(size=(10, 3)), np.sign(rng.normal(size=10))]
