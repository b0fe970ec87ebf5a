import numpy as np

INPUTS = "b:12,X:200x12,y:200"
PARAMS = "X,y"


def f(b, X, y):
    r = X @ b - y
    return 0.5 * np.mean(r**2) + 0.1 * np.sum(np.abs(b)) + 0.05 * np.linalg.norm(b[:4])


def POINT(rng):
    b = rng.normal(size=12)
    b[5:9] = 0.0  # sparse: |b| at its kink
    X = rng.normal(size=(200, 12))
    return [b, X, X @ b + 0.1 * rng.normal(size=200)]
