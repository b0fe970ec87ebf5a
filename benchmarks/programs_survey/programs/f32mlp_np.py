import numpy as np

INPUTS = "W:4x3,b:3,X:10x4,y:10"
PARAMS = "X,y"


def f(W, b, X, y):
    # a user who casts the data to float32 and the loss back to float64
    h = np.tanh(X.astype(np.float32) @ W.astype(np.float32) + b.astype(np.float32))
    p = h.sum(axis=1)
    return np.float64(np.mean((p - y.astype(np.float32)) ** 2))


def POINT(rng):
    return [0.5 * rng.normal(size=(4, 3)), np.zeros(3), rng.normal(size=(10, 4)),
            rng.normal(size=10)]  # fmt: skip
