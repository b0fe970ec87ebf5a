import numpy as np

INPUTS = "W:5x3,b:3,X:50x5,Y:50x3"
PARAMS = "X,Y"


def f(W, b, X, Y):
    z = X @ W + b
    z = z - np.max(z, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.sum(Y * logp) / X.shape[0] + 0.01 * np.sum(W**2)


def POINT(rng):
    y = rng.integers(0, 3, size=50)
    return [0.1 * rng.normal(size=(5, 3)), np.zeros(3), rng.normal(size=(50, 5)), np.eye(3)[y]]
